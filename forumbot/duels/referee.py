"""The referee loop's decisions: read duel topics, assemble turns, roll dice, draft declarations.

Functional core, imperative shell: this module gathers facts (pages through a forum client,
rows from storage), asks the pure ``parsers`` and ``rules`` what they mean, and records drafts.
Publishing is :mod:`forumbot.publish.poster`'s job. Nothing here posts to the forum.

Classic turn assembly (seed 000, "Pour chaque tour, les deux duellistes posteront l'un après
l'autre"): after the last published declaration, the first post of each duellist forms the
turn; when both are in, the bot rolls two "Duel" d6 per post (attack, defense), resolves the
turn and drafts the declaration. Further posts by the same duellist before the declaration are
left for the referee (noted in the draft). A post edited before the declaration is published
recomputes the draft; its dice never change (they derive from the post id, not its wording).

Fatigue duels (seed 001, ruleset chosen per duel) are drafted by :mod:`forumbot.duels.fatigue`
(initiative, first declaration, defense, second declaration; versions in force, late edits)
and their silences by :mod:`forumbot.duels.deadlines` (relaunches, owl reminders), both swept at the
end of every :meth:`Referee.poll_forum`. When a duel finishes, every ``on_finished(duel_id,
outcome)`` callback runs once (:meth:`Referee.notify_finished`).
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any

import rules
from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.publish.render import marker_text, render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, content_hash, iso
from parsers.action import SpellMatcher, parse_action
from parsers.duel_setup import find_duellists, find_stakes
from parsers.model import Post
from parsers.text import fold
from rules.dice import commitment, derive_roll

log = logging.getLogger("forumbot.duels.referee")

DRAFT_EDITABLE = ("draft", "approved", "held")
MISSING_DICE = "missing_dice: waiting for the forum's dice"


def forum_dice(row: dict[str, Any], dice_name: str, count: int) -> tuple[int, ...] | None:
    """The first ``count`` values of the forum dice named like ``dice_name`` on a stored post
    (accent/case-insensitive containment: "Dé du Duel" matches "Duel"), in roll order;
    None when fewer are there."""
    wanted = fold(dice_name)
    values: list[int] = []
    for roll in json.loads(row.get("dice_json") or "[]"):
        if wanted in fold(roll["name"]):
            values.extend(int(v) for v in roll["values"])
    return tuple(values[:count]) if len(values) >= count else None


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
        watch_edits: re-read running fatigue duels every poll (late edits without a note).
        full_reread_every: every N-th read of a fatigue duel reads the whole topic.
        owl_reminders: send the owl reminders before fatigue deadlines (ruleset setting
            ``owl_reminder_hours`` gives when; 0 there also turns them off).

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
        # Fatigue edit watch (see forumbot.duels.fatigue): running fatigue duels are re-read
        # every poll even when the listing shows no new post (an edit changes no post id),
        # and every ``full_reread_every``-th read of a duel reads the whole topic.
        self.watch_edits = watch_edits
        self.full_reread_every = max(1, int(full_reread_every))
        self.reads: dict[int, int] = {}
        self.owl_reminders = owl_reminders
        # Called once per finished duel (purse, leaderboard): ``callback(duel_id, outcome)``.
        self.on_finished: list[Callable[[int, dict[str, Any]], None]] = []

    # -- forum level --------------------------------------------------------------------
    def poll_forum(self, forum_id: int) -> PollReport:
        """One poll of a watched forum: 1 listing request + 1 read per changed topic.

        New topics naming two duellists with their years are adopted (opening declaration
        drafted); known duel topics whose last post changed are read and advanced.
        """
        topics = self.client.list_topics(forum_id)
        read = new = edited = drafts = 0
        for summary in topics:
            duel = self.storage.duel_by_topic(self.board_id, summary.topic_id)
            if duel is not None and duel["status"] in ("finished", "ignored"):
                if duel["status"] == "finished" or duel["last_post_id"] == summary.last_post_id:
                    continue
            if (
                duel is not None
                and duel["last_post_id"] == summary.last_post_id
                and not self._has_pending_draft(duel["id"])
                and not self._watches_edits(duel)
            ):
                continue
            try:
                if duel is None or duel["status"] == "ignored":
                    duel = self.try_adopt(forum_id, summary.topic_id, summary.title, summary)
                    read += 1
                    if duel is None:
                        continue
                counts = self.poll_duel(duel["id"], listed_last_post_id=summary.last_post_id)
                read += 1
                new += counts[0]
                edited += counts[1]
                drafts += counts[2]
            except LoginFailed:  # credentials refused (or a CAPTCHA): stop the bot
                raise
            except sqlite3.OperationalError:
                raise  # the database (e.g. locked), not this topic: the caller logs it once
            except ForumError as exc:  # the board failed on this topic: one line, next cycle
                log.warning(
                    "topic %s: poll failed (%s: %s); will retry next cycle",
                    summary.topic_id,
                    type(exc).__name__,
                    exc,
                )
            except Exception:  # one bad topic never stops the loop
                log.exception("topic %s: poll failed; will retry next cycle", summary.topic_id)
        drafts += self.sweep_deadlines(forum_id)
        self.notify_finished()
        return PollReport(forum_id, len(topics), read, new, edited, drafts)

    def _watches_edits(self, duel: dict[str, Any]) -> bool:
        """Fatigue duels running are re-read every poll: a late edit changes no post id."""
        if not self.watch_edits or duel["status"] != "running":
            return False
        return is_fatigue(duel["ruleset"])

    def sweep_deadlines(self, forum_id: int | None = None) -> int:
        """Fire the fatigue deadlines that are due (relaunch drafts, owl reminders); returns
        the drafts written. See :mod:`forumbot.duels.deadlines`."""
        from forumbot.duels.deadlines import sweep

        return sweep(self, forum_id)

    def notify_finished(self) -> list[int]:
        """Run the ``on_finished`` callbacks once for each duel finished since (claimed by a
        compare-and-set on ``duels.finish_notified_at``, so a restart never repeats one).
        A failing callback is logged; the duel still counts as notified. Returns duel ids."""
        done = []
        for duel in self.storage.db["duels"].rows_where(
            "board_id = ? and status = 'finished' and finish_notified_at is null",
            [self.board_id],
        ):
            claimed = self.storage.db.execute(
                "update duels set finish_notified_at = ? where id = ? "
                "and finish_notified_at is null",
                [iso(self.now()), duel["id"]],
            ).rowcount
            self.storage.db.conn.commit()
            if claimed != 1:
                continue
            outcome = finished_outcome(duel)
            for callback in self.on_finished:
                try:
                    callback(int(duel["id"]), outcome)
                except Exception:
                    log.exception("duel %s: on_finished callback failed", duel["id"])
            done.append(int(duel["id"]))
        return done

    def _has_pending_draft(self, duel_id: int) -> bool:
        """True while a turn draft waits: its posts may still be edited, so re-read them."""
        return any(d["kind"] == "turn" for d in self.storage.declarations(DRAFT_EDITABLE, duel_id))

    def try_adopt(
        self, forum_id: int, topic_id: int, title: str, summary: Any = None
    ) -> dict[str, Any] | None:
        """Adopt ``topic_id`` as a duel when its title or first post names both duellists.

        Otherwise remember it as ``ignored`` at its current last post id (so it is not read
        again until it changes). Returns the duel row or None.
        """
        posts = self.client.read_topic(topic_id, None)
        first_text = title + "\n" + (posts[0].text if posts else "")
        found = find_duellists(first_text)
        last = posts[-1].post_id if posts else None
        existing = self.storage.duel_by_topic(self.board_id, topic_id)
        if found is None:
            row = {"last_post_id": last, "status": "ignored", "title": title}
            if existing:
                self.storage.update_duel(existing["id"], **row)
            else:
                self.storage.db["duels"].insert(
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
        duellists: list[tuple[str, str] | tuple[str, str, Sequence[str]]] = list(found)
        if is_fatigue(self.ruleset_name):
            from forumbot.duels.fatigue import fatigue_duellists

            typed = fatigue_duellists(first_text, found)
            if typed is None:
                log.warning(
                    "topic %s: fatigue duel without both magic types ('Nom : brutale'); "
                    "adopt it with forumbot duels adopt or the registration flow",
                    topic_id,
                )
                return None
            duellists = list(typed)
        if existing:
            self.storage.db["duels"].delete(existing["id"])
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
            ValueError: when the topic already holds a duel.
            rules.RuleError: duellists the ruleset refuses (year, magic types, count).
        """
        if self.storage.duel_by_topic(self.board_id, topic_id) is not None:
            raise ValueError(f"topic {topic_id} already holds a duel")
        ruleset_name = ruleset or self.ruleset_name
        rs = load_ruleset(ruleset_name)
        fatigue = is_fatigue(ruleset_name)
        types: list[list[str]] = [
            [str(t) for t in d[2]] if len(d) > 2 else []  # type: ignore[misc]
            for d in duellists
        ]
        pairs = [(str(d[0]), str(d[1])) for d in duellists]
        if fatigue:
            from rules.fatigue import new_fatigue_duel

            state = new_fatigue_duel(
                rs, [(n, y, t) for (n, y), t in zip(pairs, types, strict=True)], stakes
            )
        else:
            state = rules.new_duel(rs, pairs, stakes=stakes)
        secret = dice_secret if dice_secret is not None else self.rng.randbytes(32)
        now = self.now()
        duel_id = int(
            self.storage.db["duels"]
            .insert(
                {
                    "board_id": self.board_id,
                    "forum_id": forum_id,
                    "topic_id": topic_id,
                    "title": title,
                    "ruleset": ruleset_name,
                    "status": "open",
                    "state_json": json.dumps(state.to_dict(), ensure_ascii=False),
                    "stakes": stakes,
                    "dice_secret": secret.hex(),
                    "dice_commitment": commitment(secret),
                    "last_post_id": None,
                    "created_at": iso(now),
                }
            )
            .last_pk
        )
        for i, (name, year) in enumerate(pairs):
            self.storage.db["duellists"].insert(
                {
                    "duel_id": duel_id,
                    "name": name,
                    "year": year,
                    "side": "AB"[i % 2],
                    "magic_types": json.dumps(list(state.duellists[i].magic_types)),
                }
            )
        context = {
            "title": title,
            "duellists": [
                {"name": d.name, "year": d.year, "points": d.points} for d in state.duellists
            ],
            "unit": rs.unit,
            "stakes": stakes,
            "commitment": None if self.forum_rolls_dice else commitment(secret),
            "dice_source": "forum" if self.forum_rolls_dice else "bot",
            "early": [],
            "referee_name": self.referee_name,
        }
        if fatigue:
            from forumbot.duels.fatigue import opening_context

            context.update(opening_context(rs, state))
        text = render(opening_template(ruleset_name), context, self.language)
        self._upsert_draft(duel_id, 0, "opening", text, context, now)
        self.storage.audit(
            actor,
            "duel.adopt",
            f"duel:{duel_id}",
            None,
            {"topic_id": topic_id, "duellists": [list(p) for p in pairs], "ruleset": ruleset_name},
            now,
        )
        log.info(
            "duel %s: adopted topic %s (%s, %s)",
            duel_id,
            topic_id,
            " vs ".join(n for n, _ in pairs),
            ruleset_name,
        )
        return duel_id

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
        duel = self.storage.duel(duel_id)
        since = self._read_from(duel)
        if is_fatigue(duel["ruleset"]):
            from forumbot.duels.fatigue import read_window

            count = self.reads.get(duel_id, 0)
            self.reads[duel_id] = count + 1
            since = read_window(self, duel, full=count % self.full_reread_every == 0)
        posts = self.client.read_topic(duel["topic_id"], since)
        new, edited = self._record_posts(duel, posts)
        seen = [p.post_id for p in posts]
        if listed_last_post_id is not None:
            seen.append(listed_last_post_id)
        if seen:
            last = max(seen)
            if duel["last_post_id"] is None or last > duel["last_post_id"]:
                self.storage.update_duel(duel_id, last_post_id=last)
        drafts = self.advance(duel_id)
        return new, edited, drafts

    def _read_from(self, duel: dict[str, Any]) -> int | None:
        """Read from the last published declaration (posts after it may still be edited)."""
        published = [
            d["published_post_id"]
            for d in self.storage.declarations(("published",), duel["id"])
            if d["published_post_id"]
        ]
        return max(published) if published else None

    def _record_posts(self, duel: dict[str, Any], posts: Sequence[Post]) -> tuple[int, int]:
        ruleset = load_ruleset(duel["ruleset"])
        matcher = SpellMatcher(ruleset.spellbook_names(), threshold=ruleset.fuzzy_threshold)
        new = edited = 0
        now = iso(self.now())
        for post in posts:
            digest = content_hash(post.text)
            stored = self.storage.seen_post(self.board_id, post.post_id)
            try:
                action = parse_action(post, matcher)
                action_json = json.dumps(asdict(action), ensure_ascii=False)
            except Exception as exc:  # a malformed post is reported, never crashes the loop
                log.warning("post %s: action not readable: %s", post.post_id, exc)
                action_json = json.dumps({"error": str(exc)})
            row = {
                "board_id": self.board_id,
                "topic_id": duel["topic_id"],
                "post_id": post.post_id,
                "author": post.author,
                "author_id": post.author_id,
                "posted_at": post.posted_at.isoformat() if post.posted_at else None,
                "content_hash": digest,
                "text": post.text,
                "bold_json": json.dumps(list(post.bold), ensure_ascii=False),
                "action_json": action_json,
                "edited_count": post.edited.count if post.edited else 0,
                "dice_json": json.dumps(
                    [{"name": d.name, "values": list(d.values)} for d in post.dice],
                    ensure_ascii=False,
                ),
                "last_seen_at": now,
            }
            if stored is None or stored["content_hash"] != digest:
                self._record_version(post.post_id, digest, post.text, action_json, now)
            if stored is None:
                row.update(first_seen_at=now, hash_changes=0)
                self.storage.db["posts_seen"].insert(row)
                new += 1
            elif stored["content_hash"] != digest or stored["dice_json"] != row["dice_json"]:
                if stored["content_hash"] != digest:
                    row["hash_changes"] = (stored["hash_changes"] or 0) + 1
                    edited += 1
                    log.info("post %s: content changed (edit)", post.post_id)
                self.storage.db["posts_seen"].update((self.board_id, post.post_id), row)
            else:
                self.storage.db["posts_seen"].update(
                    (self.board_id, post.post_id), {"last_seen_at": now}
                )
        return new, edited

    def _record_version(
        self, post_id: int, digest: str, text: str, action_json: str, seen_at: str
    ) -> None:
        """Store a new version of a post (its text and action) with the time first seen."""
        row = self.storage.db.execute(
            "select max(version) from post_versions where board_id = ? and post_id = ?",
            [self.board_id, post_id],
        ).fetchone()
        version = 0 if row is None or row[0] is None else int(row[0]) + 1
        self.storage.db["post_versions"].insert(
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
        """Draft what the duel's recorded posts call for. Returns the drafts written (0/1)."""
        duel = self.storage.duel(duel_id)
        from forumbot.duels.duo import advance_duo, is_duo

        if is_duo(self.storage, duel_id):  # two against two (issue 5)
            return advance_duo(self, duel_id)
        if duel["status"] == "open":
            return self._check_early_casts(duel)
        if duel["status"] != "running":
            return 0
        if is_fatigue(duel["ruleset"]):
            from forumbot.duels.fatigue import advance_fatigue

            return advance_fatigue(self, duel_id)
        ruleset = load_ruleset(duel["ruleset"])
        state = rules.DuelState.from_dict(json.loads(duel["state_json"]))
        if state.finished:
            return 0
        turn_no = state.turn + 1
        key = self._key(duel_id, f"turn{turn_no}")
        existing = self.storage.declaration_by_key(key)
        if existing is not None and existing["status"] not in DRAFT_EDITABLE:
            return 0
        since = self._read_from(duel) or duel["opening_post_id"] or 0
        names = [d["name"] for d in self.storage.duellists(duel_id)]
        turn_rows: dict[str, dict[str, Any]] = {}
        extra: list[int] = []
        for row in self.storage.topic_posts(self.board_id, duel["topic_id"]):
            if row["post_id"] <= since:
                continue
            name = self.duellist_of(duel_id, row)
            if name is None:
                continue
            if name in turn_rows:
                extra.append(row["post_id"])
            else:
                turn_rows[name] = row
        if len(turn_rows) < len(names):
            return 0
        dice_per_post = int(ruleset.dice_per_post)
        secret = bytes.fromhex(duel["dice_secret"])
        turn_posts = []
        dice: dict[int, tuple[int, ...]] = {}
        missing: list[dict[str, Any]] = []
        for name in names:
            row = turn_rows[name]
            action = json.loads(row["action_json"])
            turn_posts.append(
                rules.TurnPost(
                    duellist=name,
                    post_id=row["post_id"],
                    spell=action.get("spell"),
                    spell_text=action.get("spell_text"),
                    kind=action.get("kind"),
                    bet=tuple(action["bet"]) if action.get("bet") else None,
                    target=action.get("target"),
                )
            )
            if self.forum_rolls_dice:
                values = forum_dice(row, self.dice_name or ruleset.dice_name, dice_per_post)
                if values is None:
                    missing.append({"duellist": name, "post_id": row["post_id"]})
                    continue
                dice[row["post_id"]] = self._record_forum_roll(
                    duel_id, turn_no, row["post_id"], ruleset.dice_name, values
                )
            else:
                dice[row["post_id"]] = self._roll(
                    duel_id, secret, turn_no, row["post_id"], ruleset.dice_name, dice_per_post
                )
        if missing:
            self.write_missing_dice_draft(duel_id, turn_no, missing, dice_per_post, existing)
            return 1
        overrides = json.loads(existing["overrides_json"] or "{}") if existing else {}
        waived = json.loads(existing["waived_json"] or "[]") if existing else []
        outcome = rules.resolve_turn(
            state,
            turn_posts,
            dice,
            ruleset=ruleset,
            overrides=overrides,
            waived={tuple(w) for w in waived},
        )
        inputs = {
            "state_before": state.to_dict(),
            "posts": [asdict(p) for p in turn_posts],
            "dice": {str(k): list(v) for k, v in dice.items()},
            "extra_posts": extra,
        }
        self.write_turn_draft(duel_id, turn_no, inputs, outcome, existing)
        return 1

    def duellist_of(self, duel_id: int, row: dict[str, Any]) -> str | None:
        """The duellist who wrote a stored post, or None (referee, spectator, look-alike).

        Names are matched case-insensitively, then bound to the forum account: the first
        post of a duellist that carries an author id records it, and later posts under the
        same display name from another account (a look-alike such as ``"Cassius  Thorne"``,
        shown as ``"Cassius Thorne"``) are not the duellist's.
        """
        author = (row.get("author") or "").casefold()
        for d in self.storage.duellists(duel_id):
            if d["name"].casefold() != author:
                continue
            author_id = row.get("author_id")
            if author_id is None:
                return str(d["name"])
            if d["user_id"] is None:
                self.storage.db["duellists"].update(d["id"], {"user_id": author_id})
                return str(d["name"])
            if d["user_id"] == author_id:
                return str(d["name"])
            log.warning(
                "duel %s: post %s signed %r by account %s, not the duellist's account %s: ignored",
                duel_id,
                row.get("post_id"),
                row.get("author"),
                author_id,
                d["user_id"],
            )
            return None
        return None

    def _check_early_casts(self, duel: dict[str, Any]) -> int:
        """Before the opening declaration is out, a duellist's post that casts a spell is
        ``cast_before_start`` (seed 000: "Aucun sort ne doit être lancé avant le top de
        l'arbitre sous peine de disqualification immédiate"): the opening draft lists it and
        is held so the referee decides. Returns 1 when the draft changed."""
        early = []
        for row in self.storage.topic_posts(self.board_id, duel["topic_id"]):
            name = self.duellist_of(duel["id"], row) if row["author"] else None
            action = json.loads(row["action_json"] or "{}")
            if name is None or not (action.get("spell") or action.get("spell_text")):
                continue
            early.append(
                rules.TurnPost(
                    duellist=name,
                    post_id=row["post_id"],
                    spell=action.get("spell"),
                    spell_text=action.get("spell_text"),
                    before_start=True,
                )
            )
        key = self._key(duel["id"], "opening")
        decl = self.storage.declaration_by_key(key)
        if not early or decl is None or decl["status"] not in DRAFT_EDITABLE:
            return 0
        stored = json.loads(decl["context_json"])
        context = stored["context"]
        listed = [(e["duellist"], e["post_id"]) for e in context.get("early", [])]
        if listed == [(p.duellist, p.post_id) for p in early]:
            return 0
        ruleset = load_ruleset(duel["ruleset"])
        state = rules.DuelState.from_dict(json.loads(duel["state_json"]))
        outcome = rules.resolve_turn(state, early, {}, ruleset=ruleset)
        context["early"] = [
            {"duellist": v.duellist, "post_id": v.post_id, "spell": v.evidence}
            for v in outcome.violations
        ]
        if is_fatigue(duel["ruleset"]):
            # Fatigue: cast_before_start costs PV (applied by default): the opening's
            # publication starts the duel from this state (forumbot.duels.fatigue).
            context["state_after_early"] = outcome.state.to_dict()
            context["early_points"] = {d.name: d.points for d in outcome.state.duellists}
        now = self.now()
        self.storage.replace_turn_violations(
            duel["id"], 0, [v.to_dict() for v in outcome.violations], now
        )
        text = render(opening_template(duel["ruleset"]), context, self.language)
        self._upsert_draft(duel["id"], 0, "opening", text, context, now)
        self.storage.db["declarations"].update(
            decl["id"], {"status": "held", "last_error": "cast_before_start: referee decides"}
        )
        log.warning(
            "duel %s: spell cast before the start in posts %s: opening held",
            duel["id"],
            ",".join(str(p.post_id) for p in early),
        )
        return 1

    def _roll(
        self, duel_id: int, secret: bytes, turn: int, post_id: int, name: str, count: int
    ) -> tuple[int, ...]:
        """Derive and record a post's dice (recorded once; the same inputs give the same roll)."""
        values = derive_roll(secret, self._duel_key(duel_id), turn, post_id, name, count)
        self.storage.db["dice_rolls"].insert(
            {
                "duel_id": duel_id,
                "turn": turn,
                "post_id": post_id,
                "name": name,
                "values_json": json.dumps(list(values)),
                "source": "bot",
                "derivation": f"hmac-sha256 v1 {self._duel_key(duel_id)}|{turn}|{post_id}|{name}",
                "rolled_at": iso(self.now()),
            },
            ignore=True,
        )
        return values

    def _record_forum_roll(
        self, duel_id: int, turn: int, post_id: int, name: str, values: tuple[int, ...]
    ) -> tuple[int, ...]:
        """Record dice the forum rolled for a post (source ``forum``)."""
        self.storage.db["dice_rolls"].insert(
            {
                "duel_id": duel_id,
                "turn": turn,
                "post_id": post_id,
                "name": name,
                "values_json": json.dumps(list(values)),
                "source": "forum",
                "derivation": "rolled by the forum (Game Master post)",
                "rolled_at": iso(self.now()),
            },
            replace=True,
        )
        return values

    def write_missing_dice_draft(
        self,
        duel_id: int,
        turn_no: int,
        missing: list[dict[str, Any]],
        dice_per_post: int,
        existing: dict[str, Any] | None,
        what: str | None = None,
    ) -> int:
        """A held draft saying which posts lack the forum's dice, asking the referee.

        ``what`` names the draft's key (default ``turn<N>``; fatigue steps pass theirs).

        Issue 3: "A duel post missing the dice its ruleset needs gets a draft that says so
        and asks the referee; the bot never invents dice on a board that rolls its own."
        When the dice appear (a later Game Master post), the next poll replaces it with the
        turn's declaration.
        """
        duel = self.storage.duel(duel_id)
        ruleset = load_ruleset(duel["ruleset"])
        context = {
            "turn": turn_no,
            "missing": missing,
            "dice_name": self.dice_name or ruleset.dice_name,
            "dice_per_post": dice_per_post,
            "referee_name": self.referee_name,
        }
        text = render("missing_dice.bbcode.j2", context, self.language)
        decl_id = self._upsert_draft(duel_id, turn_no, "turn", text, context, self.now(), what=what)
        row = self.storage.declaration(decl_id)
        if row["status"] in DRAFT_EDITABLE and row["status"] != "held":
            self.storage.db["declarations"].update(
                decl_id, {"status": "held", "last_error": MISSING_DICE}
            )
        log.warning(
            "duel %s turn %s: dice missing for posts %s: held for the referee",
            duel_id,
            turn_no,
            ",".join(str(m["post_id"]) for m in missing),
        )
        return decl_id

    def write_turn_draft(
        self,
        duel_id: int,
        turn_no: int,
        inputs: dict[str, Any],
        outcome: Any,
        existing: dict[str, Any] | None,
    ) -> int:
        """Render and store the turn's draft declaration (and its proposed violations)."""
        duel = self.storage.duel(duel_id)
        ruleset = load_ruleset(duel["ruleset"])
        context = self.turn_context(duel, ruleset, inputs, outcome)
        text = render("turn.bbcode.j2", context, self.language)
        now = self.now()
        decl_id = self._upsert_draft(
            duel_id, turn_no, "turn", text, context, now, inputs=inputs, outcome=outcome
        )
        row = self.storage.declaration(decl_id)
        if row["status"] == "held" and row["last_error"] == MISSING_DICE:
            self.storage.db["declarations"].update(decl_id, {"status": "draft", "last_error": None})
        self.storage.replace_turn_violations(
            duel_id, turn_no, [v.to_dict() for v in outcome.violations], now
        )
        log.info(
            "duel %s turn %s: draft %s (posts %s; winner %s)",
            duel_id,
            turn_no,
            decl_id,
            ",".join(str(p["post_id"]) for p in inputs["posts"]),
            outcome.winner,
        )
        return decl_id

    def turn_context(
        self, duel: dict[str, Any], ruleset: Any, inputs: dict[str, Any], outcome: Any
    ) -> dict[str, Any]:
        """The template context of a turn declaration (also stored with the draft)."""
        data = outcome.to_dict()
        return {
            "title": duel["title"],
            "turn": outcome.turn,
            "unit": ruleset.unit,
            "outcome": data,
            "dice": inputs["dice"],
            "posts": inputs["posts"],
            "extra_posts": inputs.get("extra_posts", []),
            "stakes": duel["stakes"],
            "referee_name": self.referee_name,
            # Forum-rolled dice (Forumactif): no seed of the bot's to commit to or reveal.
            "dice_source": "forum" if self.forum_rolls_dice else "bot",
            "dice_secret": duel["dice_secret"]
            if outcome.finished and not self.forum_rolls_dice
            else None,
            "commitment": None if self.forum_rolls_dice else duel["dice_commitment"],
        }

    def _upsert_draft(
        self,
        duel_id: int,
        turn: int,
        kind: str,
        text: str,
        context: dict[str, Any],
        now: datetime,
        *,
        inputs: dict[str, Any] | None = None,
        outcome: Any = None,
        what: str | None = None,
    ) -> int:
        """Insert or update the draft keyed ``what`` (default ``opening`` / ``turn<N>``)."""
        key = self._key(duel_id, what or ("opening" if kind == "opening" else f"turn{turn}"))
        existing = self.storage.declaration_by_key(key)
        publish_after = (
            None
            if self.review_delay_s == "manual"
            else iso(now + timedelta(seconds=int(self.review_delay_s)))
        )
        ctx_json = json.dumps(
            {
                "context": context,
                "inputs": inputs,
                "outcome": outcome.to_dict() if outcome is not None else None,
            },
            ensure_ascii=False,
        )
        if existing is None:
            return int(
                self.storage.db["declarations"]
                .insert(
                    {
                        "duel_id": duel_id,
                        "turn": turn,
                        "kind": kind,
                        "idempotency_key": key,
                        "status": "draft",
                        "text": text,
                        "text_edited": 0,
                        "context_json": ctx_json,
                        "overrides_json": "{}",
                        "waived_json": "[]",
                        "marker": marker_text(key),
                        "created_at": iso(now),
                        "updated_at": iso(now),
                        "publish_after": publish_after,
                        "attempts": 0,
                        "version": 1,
                    }
                )
                .last_pk
            )
        if existing["status"] not in DRAFT_EDITABLE:
            return int(existing["id"])
        if existing["context_json"] == ctx_json and (
            existing["text_edited"] or existing["text"] == text
        ):
            # Nothing new since the last poll: leave the row (and its version) alone, so a
            # referee's open form, approval or text edit is never disturbed by a re-poll.
            return int(existing["id"])
        changes: dict[str, Any] = {
            "context_json": ctx_json,
            "updated_at": iso(now),
            "version": existing["version"] + 1,
        }
        if existing["text_edited"]:
            # The inputs really changed (an edited post, new dice) after the referee rewrote
            # the text: their text may now be wrong, so it waits for them.
            if existing["status"] != "held":
                changes["status"] = "held"
                changes["last_error"] = (
                    "inputs changed after the referee edited the text: held for review"
                )
        else:
            changes["text"] = text
        self.storage.db["declarations"].update(existing["id"], changes)
        return int(existing["id"])

    def _duel_key(self, duel_id: int) -> str:
        duel = self.storage.duel(duel_id)
        return f"{self.platform}:{duel['topic_id']}"

    def _key(self, duel_id: int, what: str) -> str:
        duel = self.storage.duel(duel_id)
        return f"b{self.board_id}t{duel['topic_id']}-{what}"


def is_fatigue(ruleset_name: str | None) -> bool:
    """True when the named ruleset is resolved by the fatigue engine (seed 001)."""
    if not ruleset_name:
        return False
    try:
        return load_ruleset(ruleset_name).engine == "fatigue"
    except (OSError, rules.RuleError):
        return False


def opening_template(ruleset_name: str) -> str:
    """The opening declaration's template for a ruleset."""
    return "fatigue_opening.bbcode.j2" if is_fatigue(ruleset_name) else "opening.bbcode.j2"


def finished_outcome(duel: dict[str, Any]) -> dict[str, Any]:
    """What ``on_finished`` callbacks receive for a finished duel row: ``winner`` and
    ``loser`` (names or None), ``draw``, ``reason`` (``"won"``, ``"draw"``, ``"no_winner"``),
    ``stakes``, ``ruleset``, ``topic_id`` and the final ``state`` (dict)."""
    state = json.loads(duel["state_json"] or "{}")
    winner = state.get("winner")
    names = [d["name"] for d in state.get("duellists", [])]
    loser = next((n for n in names if n != winner), None) if winner else None
    draw = bool(state.get("draw"))
    return {
        "winner": winner,
        "loser": loser,
        "draw": draw,
        "reason": "won" if winner else "draw" if draw else "no_winner",
        "stakes": duel.get("stakes"),
        "ruleset": duel.get("ruleset"),
        "topic_id": duel.get("topic_id"),
        "state": state,
    }
