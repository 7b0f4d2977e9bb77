"""The referee loop: read duel topics, record their posts, hand each duel to its flow.

Functional core, imperative shell: this module gathers facts (pages through a forum client,
rows from storage) and records what they are; the duel's ruleset flow
(:data:`forumbot.duels.flows.FLOWS`: :mod:`~forumbot.duels.classic`,
:mod:`~forumbot.duels.fatigue`, :mod:`~forumbot.duels.duo`) decides what the recorded posts
call for and returns drafts, which the loop stores (:class:`forumbot.duels.flow.DraftWriter`).
Publishing is :mod:`forumbot.publish.poster`'s job; nothing here posts to the forum.

One poll of a duel (:meth:`Referee.poll_duel`): its rows are read once (a
:class:`forumbot.storage.records.DuelRecords`: the duel, its declarations, its posts), its
ruleset loaded once, its flow picked once; the flow says where to read the topic from
(:meth:`DuelFlow.read_from`), the new and edited posts are recorded (``posts_seen``, every
distinct text in ``post_versions``; merged into the snapshot, not read again), and the flow's
:meth:`DuelFlow.advance` returns the drafts to store. New topics naming two duellists are
adopted (:func:`forumbot.duels.opening.adopt`).

What is read (issue 12): every page of a watched forum's listing at the first poll of the
process, and again whenever a topic cannot be accounted for (every topic on the first page
changed while the listing has more pages, or a duel topic whose last post is newer than the
page's oldest is missing from it); the first page only otherwise. A topic is read only when
the listing shows a new last post id or reply count, or when its edit watch is due (every
``edit_watch_interval_s``: running duels of a flow that watches late edits, and duels whose
turn draft is not published yet, since an edit changes no post id). A duel is advanced
without any read when one of its declarations was published since it was last advanced
(an opening confirmed after an ambiguous publish counts the turn posts already recorded).
A duel topic missing from its forum's listing for a few polls is read by id, followed where
a moderator moved it, held when it is gone (:mod:`forumbot.duels.follow`). A topic answered
as another topic (:class:`~forumbot.errors.TopicMoved`) is never read as this one: the duel
is held (drafts ``held``, a ``topic_moved`` task, an error line naming both topic ids) until
the task is closed (:mod:`forumbot.duels.topic_watch` keeps what the process knows).
Deadlines (:mod:`forumbot.duels.deadlines`) are swept at the end of every poll_forum. When a
duel finishes, every ``on_finished(duel_id, outcome)`` callback runs once
(:meth:`Referee.notify_finished`).
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import datetime
from typing import Any

import rules
from forumbot.duels import adoption, dice_edits, opening
from forumbot.duels.concession_recovery import recover_concession
from forumbot.duels.deadlines import sweep
from forumbot.duels.finished import finished_outcome, notify_finished
from forumbot.duels.flow import MISSING_DICE, DuelFlow, FlowContext, FlowSettings, forum_dice
from forumbot.duels.flows import flow_for, opening_flow
from forumbot.duels.follow import GONE, FollowedTopic, TopicFollow, report_failure
from forumbot.duels.topic_watch import TopicWatch
from forumbot.errors import ForumError, LoginFailed, TopicMoved
from forumbot.forums.base import ForumClient
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, StorageOperationalError, content_hash, iso
from forumbot.storage.records import EDITABLE, Duel, DuelRecords, StoredPost
from parsers.action import parse_action, shared_matcher
from parsers.duel_setup import find_duellists, find_stakes
from parsers.model import Post
from rules.ruleset import Ruleset

log = logging.getLogger("forumbot.duels.referee")

DRAFT_EDITABLE = EDITABLE


@dataclass(frozen=True)
class PollReport:
    """What one poll of a forum did (for logs, tests and the benchmark)."""

    forum_id: int
    topics_listed: int
    topics_read: int
    new_posts: int
    edited_posts: int
    drafts: int


class Referee:
    """Drafts declarations for the duels of one board.

    Args:
        storage: the bot's database.
        client: a logged-in-capable :class:`ForumClient` (phpBB or Forumactif).
        board_url, platform: identify the board row.
        ruleset_name: ruleset for newly adopted duels (e.g. ``"classic"``).
        review_delay_s: seconds before a draft is published, or ``"manual"``.
        now: clock returning an aware UTC datetime.
        rng: source of the duels' secret dice seeds (``random.SystemRandom()`` in production,
            a seeded ``random.Random`` in tests).
        language: template language; referee_name: the signature.
        watch_edits: re-read running duels of flows that watch edits (fatigue, 2v2) every
            poll (late edits without a note).
        full_reread_every: every N-th read of such a duel reads the whole topic.
        edit_watch_interval_s: seconds between two re-reads of an unchanged topic under the
            edit watch (0: every poll); see the module doc.
        owl_reminders: send the owl reminders before fatigue deadlines (ruleset setting
            ``owl_reminder_hours`` gives when; 0 there also turns them off).
        follow_after_polls: polls in a row a duel topic is missing from its forum's listing
            before it is read by id (:mod:`forumbot.duels.follow`).

    Attributes:
        on_finished: callbacks ``(duel_id, outcome)`` run once when a duel finishes (after
            its final declaration is published); ``outcome`` has ``winner``, ``loser``,
            ``draw``, ``reason``, ``stakes``, ``ruleset`` and ``state``.
    """

    def __init__(
        self,
        storage: Storage,
        client: ForumClient,
        *,
        board_url: str,
        platform: str,
        ruleset_name: str = "classic",
        review_delay_s: int | str = 600,
        now: Callable[[], datetime],
        rng: random.Random,
        language: str = "fr",
        referee_name: str = "L'arbitre",
        bot_username: str = "",
        forum_rolls_dice: bool | None = None,
        dice_name: str | None = None,
        watch_edits: bool = True,
        full_reread_every: int = 10,
        owl_reminders: bool = True,
        edit_watch_interval_s: float = 0.0,
        follow_after_polls: int = 3,
        timezone: str = "Europe/Paris",
        verify_docs_url: str = "",
    ) -> None:
        self.storage = storage
        self.client = client
        self.platform = platform
        self.ruleset_name = ruleset_name
        self.review_delay_s = review_delay_s
        self.now = now
        self.rng = rng
        self.language = language
        self.referee_name = referee_name
        self.bot_username = bot_username
        # Forumactif rolls its own dice (Game Master posts): the bot never invents them there.
        self.forum_rolls_dice = (
            platform == "forumactif" if forum_rolls_dice is None else forum_rolls_dice
        )
        self.dice_name = dice_name
        self.board_id = storage.board_id(board_url, platform, now())
        # Edit watch (see forumbot.duels.fatigue_posts): running duels of a flow that watches
        # edits are re-read every ``edit_watch_interval_s`` even when the listing shows no new
        # post (an edit changes no post id), and every ``full_reread_every``-th read reads the
        # whole topic.
        self.watch_edits = watch_edits
        self.full_reread_every = max(1, int(full_reread_every))
        self.reads: dict[int, int] = {}
        # What this process knows of the board (issue 12: read only what changed).
        self.watch = TopicWatch(
            storage, self.board_id, lambda: self.now(), edit_watch_interval_s, follow_after_polls
        )
        # Duels follow their topic (issue 22: moved, deleted; forumbot.duels.follow).
        self.follow = TopicFollow(
            storage, self.board_id, lambda: self.now(), lambda: set(self.watch.listed_all)
        )
        self.owl_reminders = owl_reminders
        self.timezone, self.board_url = timezone, board_url
        self.verify_docs_url = verify_docs_url
        # Called once per finished duel (purse, leaderboard): ``callback(duel_id, outcome)``.
        self.on_finished: list[Callable[[int, dict[str, Any]], None]] = []
        # Called (no argument) right after a topic's new or changed drafts are committed, in
        # the middle of a poll: the scheduler wakes the publisher with it (issue 12), so the
        # first declaration goes out while the poll reads the other topics.
        self.on_drafted: list[Callable[[], None]] = []
        # The snapshots this poll handed to the flows, by duel id (reused by the sweep).
        self.polled: dict[int, DuelRecords] = {}
        # True under ``forumbot check``: its drafts go to an in-memory copy, so the log names
        # no draft id the real database would not have (newcomer5 C5).
        self.dry_run = False

    def settings(self) -> FlowSettings:
        """The board's settings as the flows read them (from the current attributes)."""
        return FlowSettings(
            board_id=self.board_id, platform=self.platform, ruleset_name=self.ruleset_name,
            review_delay_s=self.review_delay_s, language=self.language,
            referee_name=self.referee_name, bot_username=self.bot_username,
            forum_rolls_dice=self.forum_rolls_dice, dice_name=self.dice_name,
            watch_edits=self.watch_edits, full_reread_every=self.full_reread_every,
            owl_reminders=self.owl_reminders, timezone=self.timezone,
            board_url=self.board_url, verify_docs_url=self.verify_docs_url,
        )  # fmt: skip

    def context(self) -> FlowContext:
        """The flows' context (storage, client, clock, rng, settings, draft writer, dice)."""
        return FlowContext.build(self.storage, self.client, self.now, self.rng, self.settings())

    # -- forum level --------------------------------------------------------------------
    def poll_forum(self, forum_id: int) -> PollReport:
        """One poll of a watched forum: 1 listing request + 1 read per changed topic.

        New topics naming two duellists with their years are adopted (opening declaration
        drafted); known duel topics whose last post changed are read and advanced. The first
        poll of the process reads every listing page (module doc).
        """
        topics = self.watch.listing(self.client, forum_id)
        listed = {summary.topic_id for summary in topics}
        ctx = self.context()
        self.polled = {}
        read = new = edited = drafts = 0
        unlisted, followed = self.watch.unlisted(forum_id, listed)
        for summary in [*topics, *unlisted, *map(FollowedTopic.of, followed)]:
            try:
                counts = self._poll_topic(ctx, forum_id, summary)
            except LoginFailed:  # credentials refused (or a CAPTCHA): stop the bot
                raise
            except StorageOperationalError:
                raise  # the database (e.g. locked), not this topic: the caller logs it once
            except ForumError as exc:  # the board failed on this topic: one line, next cycle
                report_failure(summary.topic_id, exc)
                continue
            except Exception:  # one bad topic never stops the loop
                log.exception("topic %s: poll failed; will retry next cycle", summary.topic_id)
                continue
            read += counts[0]
            new += counts[1]
            edited += counts[2]
            drafts += counts[3]
        swept = sweep(self.context(), forum_id, self.polled)
        self.polled = {}
        if swept:
            self._drafted()
        drafts += swept
        self.notify_finished()
        return PollReport(forum_id, len(topics), read, new, edited, drafts)

    def _drafted(self) -> None:
        """Run the ``on_drafted`` callbacks (a failing one is logged, the poll goes on)."""
        if self.storage.in_transaction:
            self.storage.commit()  # the publisher reads on its own connection
        for callback in self.on_drafted:
            try:
                callback()
            except Exception:
                log.exception("on_drafted callback failed")

    def _poll_topic(
        self, ctx: FlowContext, forum_id: int, summary: Any
    ) -> tuple[int, int, int, int]:
        """(reads, new posts, edited posts, drafts) of one listed topic."""
        row = self.storage.duel_by_topic(self.board_id, summary.topic_id)
        duel = Duel.from_row(row) if row is not None else None
        if duel is not None and duel.status in ("finished", "cancelled"):
            return 0, 0, 0, 0
        if duel is not None and duel.status == "ignored":
            if duel.last_post_id == summary.last_post_id:
                return 0, 0, 0, 0
            duel = None  # changed since: read it again for a duel
        read = opened = 0  # opened: the opening drafted (and kicked) on adopting the topic
        fresh: list[Post] | None = None  # the whole topic, read to adopt it: no second read
        if duel is None:
            fresh = self.client.read_topic(summary.topic_id, None)
            adopted = self.try_adopt(forum_id, summary.topic_id, summary.title, fresh, summary)
            read += 1
            if adopted is None:
                return read, 0, 0, 0
            duel = Duel.from_row(adopted)
            opened = 1  # counted in the poll's drafts (newcomer5 C5)
            self._drafted()  # its opening is drafted
        if read == 0 and (duel.held_at is not None or self.watch.held_moved(duel)):
            return 0, 0, 0, 0  # held: its topic moved into another or is gone
        followed = isinstance(summary, FollowedTopic)  # read by id: no listing to compare
        unchanged = read == 0 and not followed and self.watch.unchanged(duel, summary)
        try:
            ruleset = load_ruleset(str(duel.ruleset))
        except (OSError, rules.RuleError):
            if unchanged:
                return 0, 0, 0, 0  # nothing to read; the ruleset error shows when it changes
            raise
        flow = flow_for(self.storage, duel, ruleset)
        # The duel's rows, read once for this poll (storage.records: the snapshot's rule); its
        # posts only once the topic is read or the duel advanced.
        records = self.storage.duel_records(duel.id, posts=False)
        duel = records.duel
        if not unchanged and read == 0 and self.watch.only_own_post(records, summary):
            records, unchanged = self.watch.known_up_to(records, summary.last_post_id), True
            duel = records.duel
        # a turn draft waiting: its posts may still be edited (edit watch)
        pending = any(d.kind == "turn" for d in records.editable())
        watched = self._watches_edits(duel, flow) or pending  # a redraft: read now (issue 22)
        if unchanged and not records.redrafts() and not self.watch.watch_due(duel, watched):
            if not self.watch.needs_advance(records):
                return 0, 0, 0, 0
            # A declaration was published since (e.g. an opening confirmed after an
            # ambiguous outcome): what is recorded may call for a draft; nothing to read.
            return 0, 0, 0, self._advance(ctx.for_duel(ruleset, records), flow)
        replies = summary.replies if summary.replies >= 0 else None
        records = self.storage.with_posts(records)
        try:
            counts = self._poll(
                ctx.for_duel(ruleset, records), flow, summary.last_post_id, replies, fresh
            )
        except TopicMoved as exc:
            self.watch.hold_moved(duel, exc)
            return read + 1, 0, 0, opened
        except GONE as exc:
            if not followed:
                raise  # listed but not readable: retried; held once it is missing (follow)
            self.follow.hold_gone(duel, exc)
            return read + 1, 0, 0, opened
        self.follow.note_forum(duel, self.client)
        if counts[2]:  # the turns drafted now (the opening kicked when it was drafted)
            self._drafted()
        return read + (fresh is None), counts[0], counts[1], counts[2] + opened

    def _watches_edits(self, duel: Duel, flow: DuelFlow) -> bool:
        """Running duels of a flow that watches edits are under the edit watch: a late edit
        changes no post id."""
        return self.watch_edits and duel.status == "running" and flow.watches_edits

    def sweep_deadlines(self, forum_id: int | None = None) -> int:
        """Fire the due deadlines (:mod:`forumbot.duels.deadlines`); returns drafts written."""
        return sweep(self.context(), forum_id)

    def notify_finished(self) -> list[int]:
        """Run the ``on_finished`` callbacks once for each duel finished since; returns the
        duel ids (:func:`forumbot.duels.finished.notify_finished`)."""
        return notify_finished(self.storage, self.board_id, self.now(), self.on_finished)

    def try_adopt(
        self, forum_id: int, topic_id: int, title: str, posts: Sequence[Post],
        summary: Any = None,
    ) -> dict[str, Any] | None:  # fmt: skip
        """Adopt ``topic_id`` as a duel when its title or first post (``posts``: the whole
        topic, just read) names both duellists.

        Otherwise remember it as ``ignored`` at its current last post id (so it is not read
        again until it changes). Returns the duel row or None.
        """
        first_text = title + "\n" + (posts[0].text if posts else "")
        found = find_duellists(first_text)
        last = posts[-1].post_id if posts else None
        existing = self.storage.duel_by_topic(self.board_id, topic_id)
        if found is None:
            row = {"last_post_id": last, "status": "ignored", "title": title}
            if existing:
                self.storage.update_duel(existing["id"], **row)
            else:
                self.storage.duel_rows.insert_duel(
                    {
                        "board_id": self.board_id,
                        "forum_id": forum_id,
                        "topic_id": topic_id,
                        "created_at": iso(self.now()),
                        **row,
                    }
                )
            log.info("topic %s: not a duel topic (no 'A (année) contre B (année)')", topic_id)
            return None
        flow = opening_flow(load_ruleset(self.ruleset_name))
        duellists = flow.topic_duellists(first_text, found)
        if duellists is None:
            log.warning(
                "topic %s: %s duel without both magic types ('Nom : brutale'); "
                "adopt it with forumbot duels adopt or the registration flow",
                topic_id,
                flow.name,
            )
            return None
        if existing:
            self.storage.duel_rows.delete_duel(existing["id"])
        stakes = find_stakes(posts[0].text) if posts else None
        duel_id = self.adopt(forum_id, topic_id, title, duellists, stakes=stakes)
        return self.storage.duel(duel_id)

    def adopt(
        self,
        forum_id: int,
        topic_id: int,
        title: str,
        duellists: Sequence[tuple[str, str] | tuple[str, str, Sequence[str]]],
        *,
        stakes: str | None = None,
        first_post_id: int | None = None,
        actor: str = "forumbot",
        ruleset: str | None = None,
        dice_secret: bytes | None = None,
    ) -> int:
        """Register a duel held in ``topic_id`` and draft its opening declaration.

        Args:
            duellists: ``(name, year)`` pairs (classic), or ``(name, year, magic_types)``
                triples (fatigue: year ``"1"``..``"7"`` or ``"adult"``, one or two magic
                types, e.g. ``("Aurora Vexley", "5", ["brutale"])``).
            ruleset: the duel's ruleset (``"classic"``, ``"fatigue"`` or a TOML path);
                default the referee's ``ruleset_name``. Chosen per duel: the registration
                flow opens fatigue duels on a board whose topics are otherwise classic.
            dice_secret: the 32-byte dice seed (replay of a duel whose seed was revealed);
                default a fresh one from ``rng``.

        Returns the duel id.

        Raises:
            ValueError: when the topic already holds a duel (a topic a poll stored as
                ``ignored`` is adopted, one cancelled unseen too: ``adoption.readopt``).
            rules.RuleError: duellists the ruleset refuses (year, magic types, count).
        """
        known, reuse = adoption.readopt(
            self.storage, self.storage.duel_by_topic(self.board_id, topic_id), actor, self.now()
        )
        if known is not None and known["status"] != "ignored":
            raise ValueError(f"topic {topic_id} already holds a duel")
        if known is not None:  # seen and ignored by a poll: the referee says it is a duel
            self.storage.duel_rows.delete_duel(known["id"])
        ruleset_name = ruleset or self.ruleset_name
        rs = load_ruleset(ruleset_name)
        ctx = self.context().for_duel(rs)
        duel, draft = opening.adopt(
            ctx, opening_flow(rs), forum_id, topic_id, title, duellists,
            ruleset_name=ruleset_name, stakes=stakes, dice_secret=dice_secret, reuse=reuse,
        )  # fmt: skip
        ctx.drafts.write(duel, draft)
        pairs = [(str(d[0]), str(d[1])) for d in duellists]
        self.storage.audit(
            actor,
            "duel.adopt",
            f"duel:{duel.id}",
            None,
            {"topic_id": topic_id, "duellists": [list(p) for p in pairs], "ruleset": ruleset_name},
            ctx.now(),
        )
        log.info(
            "duel %s: adopted topic %s (%s, %s)",
            duel.id,
            topic_id,
            " vs ".join(n for n, _ in pairs),
            ruleset_name,
        )
        return duel.id

    # -- topic level --------------------------------------------------------------------
    def poll_duel(
        self, duel_id: int, listed_last_post_id: int | None = None
    ) -> tuple[int, int, int]:
        """Read a duel topic's new posts, record them, and (re)draft what they call for.

        ``listed_last_post_id`` is the topic's last post id as the forum listing showed it
        just before this read: every post up to it has now been read, so the topic is not
        read again until the listing shows a newer one. Returns
        ``(new_posts, edited_posts, drafts_written)``.
        """
        records = self.storage.duel_records(duel_id)
        ruleset = load_ruleset(str(records.duel.ruleset))
        flow = flow_for(self.storage, records.duel, ruleset)
        return self._poll(self.context().for_duel(ruleset, records), flow, listed_last_post_id)

    def _poll(
        self, ctx: FlowContext, flow: DuelFlow, listed_last_post_id: int | None,
        listed_replies: int | None = None, posts_read: Sequence[Post] | None = None,
    ) -> tuple[int, int, int]:  # fmt: skip
        """Read the topic of the duel of ``ctx.records`` (or take ``posts_read``: the whole
        topic, read to adopt it in this poll), record its posts, advance it."""
        records = ctx.records
        assert records is not None
        duel = records.duel
        count = self.reads.get(duel.id, 0)
        self.reads[duel.id] = count + 1
        since = flow.read_from(ctx, duel, count)
        if posts_read is not None:
            posts = [p for p in posts_read if since is None or p.post_id > since]
        else:
            posts = self.client.read_topic(duel.topic_id, since)
        posts = [p for p in posts if not p.unapproved]  # a moderator's queue: not public yet
        self.watch.note_read(duel, listed_replies)
        new, edited, stored = self._record_posts(ctx.rs, records, posts)
        records = records.with_posts(stored)  # what was just written, not read again
        dice_edits.observe(ctx, duel, posts)  # Forumactif: edits after the dice (issue 16)
        seen = [p.post_id for p in posts]
        if listed_last_post_id is not None:
            seen.append(listed_last_post_id)
        if seen:
            last = max(seen)
            if duel.last_post_id is None or last > duel.last_post_id:
                self.storage.update_duel(duel.id, last_post_id=last)
                records = records.with_duel(replace(duel, last_post_id=last))
        return new, edited, self._advance(replace(ctx, records=records), flow)

    def _record_posts(
        self, ruleset: Ruleset, records: DuelRecords, posts: Sequence[Post]
    ) -> tuple[int, int, list[StoredPost]]:
        """Store new and edited posts (``posts_seen``, ``post_versions``; those stored before
        are the snapshot's): (new, edited, the records of the posts written)."""
        duel = records.duel
        new, edited, written, now = 0, 0, [], iso(self.now())
        seen_again: list[tuple[str, int, int]] = []  # unchanged posts: last_seen_at only
        for post in posts:
            digest = content_hash(post.text)
            stored = records.post(post.post_id)
            dice = [{"name": d.name, "values": list(d.values)} for d in post.dice]
            if stored is not None and stored.content_hash == digest and stored.dice == dice:
                seen_again.append((now, self.board_id, post.post_id))  # nothing to parse
                continue
            matcher = shared_matcher(ruleset.spellbook_names(), ruleset.fuzzy_threshold)
            try:
                action = parse_action(post, matcher)
                action_json = json.dumps(asdict(action), ensure_ascii=False)
            except Exception as exc:  # a malformed post is reported, never crashes the loop
                log.warning("post %s: action not readable: %s", post.post_id, exc)
                action_json = json.dumps({"error": str(exc)})
            row = {
                "board_id": self.board_id,
                "topic_id": duel.topic_id,
                "post_id": post.post_id,
                "author": post.author,
                "author_id": post.author_id,
                "posted_at": post.posted_at.isoformat() if post.posted_at else None,
                "content_hash": digest,
                "text": post.text,
                "bold_json": json.dumps(list(post.bold), ensure_ascii=False),
                "action_json": action_json,
                "edited_count": post.edited.count if post.edited else 0,
                "dice_json": json.dumps(dice, ensure_ascii=False),
                "last_seen_at": now,
            }
            if stored is None or stored.content_hash != digest:
                self._record_version(post.post_id, digest, post.text, action_json, now)
            if stored is None:
                row.update(first_seen_at=now, hash_changes=0)
                self.storage.post_rows.insert_post(row)
                written.append(StoredPost.from_row(row))
                new += 1
            else:  # its text or its dice changed
                if stored.content_hash != digest:
                    row["hash_changes"] = stored.hash_changes + 1
                    edited += 1
                    log.info("post %s: content changed (edit)", post.post_id)
                self.storage.update_row("posts_seen", stored.key, row)
                written.append(StoredPost.from_row({"first_seen_at": stored.first_seen_at,
                                                    "hash_changes": stored.hash_changes, **row}))
        self.storage.posts_seen_again(seen_again)
        return new, edited, written

    def _record_version(
        self, post_id: int, digest: str, text: str, action_json: str, seen_at: str
    ) -> None:
        """Store a new version of a post (its text and action) with the time first seen."""
        latest = self.storage.post_rows.latest_version(self.board_id, post_id)
        version = 0 if latest is None else latest + 1
        self.storage.post_rows.insert_version(
            {
                "board_id": self.board_id,
                "post_id": post_id,
                "version": version,
                "content_hash": digest,
                "text": text,
                "action_json": action_json,
                "seen_at": seen_at,
            }
        )

    # -- turn level ---------------------------------------------------------------------
    def advance(self, duel_id: int) -> int:
        """Draft what the duel's recorded posts call for. Returns the drafts written."""
        records = self.storage.duel_records(duel_id)
        ruleset = load_ruleset(str(records.duel.ruleset))
        flow = flow_for(self.storage, records.duel, ruleset)
        return self._advance(self.context().for_duel(ruleset, records), flow)

    def _advance(self, ctx: FlowContext, flow: DuelFlow) -> int:
        """Hand the duel of ``ctx.records`` to its flow and store the drafts it returns."""
        assert ctx.records is not None
        # Read again if the publisher (its own connection), the review page or the CLI
        # committed since: the flow never sees a duel older than the publications counted.
        records = self.storage.fresh_records(ctx.records)
        if recover_concession(self.storage, records, self.bot_username, self.now()):
            records = self.storage.duel_records(records.duel.id)  # a restore forgot it
        ctx = replace(ctx, records=records)
        duel = records.duel
        self.watch.note_advanced(records)
        self.polled[duel.id] = records
        written = 0
        for draft in flow.advance(ctx, duel):
            decl_id = ctx.drafts.write(duel, draft)
            if ctx.drafts.changed:  # a pending draft, unchanged, is logged once, not each poll
                written += 1
                shown = "(dry run: not stored)" if self.dry_run else decl_id
                log.info("duel %s: %s draft %s (%s)", duel.id, flow.name, shown, draft.what)
        return written


__all__ = [
    "DRAFT_EDITABLE",
    "MISSING_DICE",
    "PollReport",
    "Referee",
    "finished_outcome",
    "forum_dice",
]
