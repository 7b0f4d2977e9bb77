"""What the referee of one process knows of its board's topics, so that it reads only what
changed (issue 12; used by :class:`forumbot.duels.referee.Referee`).

* **Listings**: every page of a watched forum's listing at the first poll of the process, and
  again whenever a topic cannot be accounted for (:meth:`TopicWatch.unaccounted`); the first
  page only otherwise (both platforms sort it by last post, announcements and stickies first).
* **Change**: a topic is read when the listing shows a new last post id or reply count
  (:meth:`TopicWatch.unchanged`), or when its edit watch is due (:meth:`TopicWatch.watch_due`:
  every ``edit_watch_interval_s`` seconds).
* **Publications**: a duel is advanced again, without any read, when one of its declarations
  was published since it was last advanced (:meth:`TopicWatch.needs_advance`).
* **Moved topics**: a duel whose topic the board answers as another topic is held
  (:meth:`TopicWatch.hold_moved`) and never read until its ``topic_moved`` task is closed.
* **Duels follow their topic** (issue 22): a live duel whose topic is missing from its
  forum's whole listing (every page read, or a one-page listing) for ``follow_after_polls``
  polls in a row, or known to be in another forum now (``duels.board_forum_id``), is read by
  id (:meth:`TopicWatch.unlisted` returns it; :mod:`forumbot.duels.follow` reads it and says
  where it went, or holds it when it is gone). A held duel (``duels.held_at``) is not read.

All of it is memory of this process (a restart reads every listing page and every watched
topic once), except the hold, which is in the database.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime

from forumbot.errors import TopicMoved
from forumbot.forums.base import TopicSummary
from forumbot.storage import Storage, iso
from forumbot.storage.records import Duel, DuelRecords

log = logging.getLogger("forumbot.duels.referee")


class TopicWatch:
    """The referee's memory of listings, reads and publications (module doc).

    Args:
        storage: the bot's database; board_id: the board row.
        now: clock (aware UTC datetime).
        edit_watch_interval_s: seconds between two re-reads of an unchanged watched topic
            (0: every poll).
        follow_after_polls: polls in a row a duel topic is missing from its forum's whole
            listing before it is read by id (at least 1).
    """

    def __init__(
        self,
        storage: Storage,
        board_id: int,
        now: Callable[[], datetime],
        edit_watch_interval_s: float = 0.0,
        follow_after_polls: int = 3,
    ) -> None:
        self.storage = storage
        self.board_id = board_id
        self.now = now
        self.edit_watch_interval_s = max(0.0, float(edit_watch_interval_s))
        self.listed_all: set[int] = set()  # forums whose every listing page was read
        self.replies: dict[int, int] = {}  # topic id -> reply count when last read
        self.read_at: dict[int, datetime] = {}  # duel id -> when its topic was last read
        self.advanced: dict[int, tuple[int, int]] = {}  # duel id -> publications then
        self.missing: set[int] = set()  # duel topics reported missing from their listing
        self.listed: dict[int, int | None] = {}  # topic id -> last post id at the last listing
        self.follow_after_polls = max(1, int(follow_after_polls))
        self.absent: dict[int, int] = {}  # duel id -> polls in a row its topic was missing

    # -- listings -------------------------------------------------------------------------
    def listing(self, client: object, forum_id: int) -> list[TopicSummary]:
        """The forum's listing to work from (module doc): ``client.list_topics`` with
        ``all_pages`` at the first poll and when a topic is not accounted for."""
        list_topics = client.list_topics  # type: ignore[attr-defined]
        full = forum_id not in self.listed_all
        topics: list[TopicSummary] = list_topics(forum_id, all_pages=full)
        if not full and self.unaccounted(client, forum_id, topics):
            log.info("forum %s: a topic is not accounted for: reading every listing page",
                     forum_id)  # fmt: skip
            topics = list_topics(forum_id, all_pages=True)
            full = True
        if full:
            self.listed_all.add(forum_id)
        if full or not getattr(client, "listing_more", {}).get(forum_id, True):
            self.report_missing(forum_id, topics)  # every page read (or the only one)
        self.missing -= {summary.topic_id for summary in topics}
        self.listed.update((summary.topic_id, summary.last_post_id) for summary in topics)
        return topics

    def live_duels(self, forum_id: int) -> list[Duel]:
        """The forum's duels still refereed (``open`` / ``running``)."""
        return [
            Duel.from_row(row)
            for row in self.storage.duel_rows.active_in_forum(self.board_id, forum_id)
        ]

    def unaccounted(
        self, client: object, forum_id: int, first_page: Sequence[TopicSummary]
    ) -> bool:
        """True when the first listing page may not show every changed topic: each of its
        topics changed since the previous listing (the oldest shown is new or has a new last
        post) while the listing
        has more pages (``client.listing_more[forum_id]``; unknown counts as more), or a live
        duel topic whose last post is newer than the oldest shown is missing from it."""
        if not first_page:
            return False
        oldest = first_page[-1]
        more = getattr(client, "listing_more", {}).get(forum_id, True)
        if more and (
            oldest.topic_id not in self.listed
            or self.listed[oldest.topic_id] != oldest.last_post_id
        ):
            return True  # new or changed since the previous listing: more may lie beyond
        listed = {summary.topic_id for summary in first_page}
        floor = oldest.last_post_id or 0
        return any(
            duel.topic_id not in listed
            and duel.topic_id not in self.missing
            and (duel.last_post_id or 0) > floor
            for duel in self.live_duels(forum_id)
        )

    def report_missing(self, forum_id: int, topics: Sequence[TopicSummary]) -> None:
        """One warning per live duel topic absent from the forum's whole listing."""
        listed = {summary.topic_id for summary in topics}
        for duel in self.live_duels(forum_id):
            if duel.topic_id in listed or duel.topic_id in self.missing:
                continue
            self.missing.add(duel.topic_id)
            log.warning(
                "duel %s: topic %s is not in forum %s's listing any more (moved or deleted?)",
                duel.id,
                duel.topic_id,
                forum_id,
            )

    def unlisted(self, forum_id: int, listed: set[int]) -> tuple[list[TopicSummary], list[Duel]]:
        """Live duels of the forum not on the listing read: ``(summaries, followed)``.

        ``summaries``: those on a later page, from their rows (reply count -1: unknown), so
        their edit watch and advances run. ``followed``: those to read by id (module doc:
        missing from the whole listing ``follow_after_polls`` polls in a row, or known to be
        in another forum); held duels are in neither. One query for all the forum's duels.
        """
        summaries: list[TopicSummary] = []
        followed: list[Duel] = []
        for duel in self.live_duels(forum_id):
            if duel.topic_id in listed:
                self.absent.pop(duel.id, None)
                continue
            if duel.held_at is not None:
                continue
            if duel.topic_id not in self.missing and duel.board_forum_id is None:
                summaries.append(
                    TopicSummary(
                        duel.topic_id,
                        duel.title or "",
                        duel.last_post_id,
                        self.replies.get(duel.topic_id, -1),
                        None,
                    )  # fmt: skip
                )
                continue
            polls = self.absent[duel.id] = self.absent.get(duel.id, 0) + 1
            if duel.board_forum_id is not None or polls >= self.follow_after_polls:
                followed.append(duel)
        return summaries, followed

    # -- topics ---------------------------------------------------------------------------
    def unchanged(self, duel: Duel, summary: TopicSummary) -> bool:
        """True when the listing shows the duel's topic as it was last read (same last post
        id, same reply count when both are known)."""
        known = self.replies.get(duel.topic_id)
        return duel.last_post_id == summary.last_post_id and (
            known is None or summary.replies < 0 or known == summary.replies
        )

    def only_own_post(self, records: DuelRecords, summary: TopicSummary) -> bool:
        """True when the only post the listing shows since the duel's topic was last read is
        the bot's own declaration: its id is one of the duel's published posts and directly
        follows the last post read (post ids are board-wide, so no post of anybody was made in
        between), and the reply count, when known, grew by one. The reply count is then
        taken as read (issue 22: after its own post the bot does not read the topic again)."""
        duel = records.duel
        last = summary.last_post_id
        if last is None or duel.last_post_id is None or last != duel.last_post_id + 1:
            return False
        if last not in {d.published_post_id for d in records.published()}:
            return False
        known = self.replies.get(duel.topic_id)
        if known is not None and summary.replies >= 0 and summary.replies != known + 1:
            return False
        if known is not None and summary.replies >= 0:
            self.replies[duel.topic_id] = summary.replies
        return True

    def known_up_to(self, records: DuelRecords, last_post_id: int) -> DuelRecords:
        """The duel's topic is known up to ``last_post_id`` without reading it (the bot's own
        declaration, :meth:`only_own_post`): stored, and the snapshot patched."""
        self.storage.update_duel(records.duel.id, last_post_id=last_post_id)
        return records.with_duel(replace(records.duel, last_post_id=last_post_id))

    def watch_due(self, duel: Duel, watched: bool) -> bool:
        """True when the ``watched`` duel's topic was not read for ``edit_watch_interval_s``
        (or not yet by this process)."""
        if not watched:
            return False
        last = self.read_at.get(duel.id)
        return last is None or (self.now() - last).total_seconds() >= self.edit_watch_interval_s

    def note_read(self, duel: Duel, replies: int | None) -> None:
        """The duel's topic was just read; the listing showed ``replies`` (None: unknown)."""
        self.read_at[duel.id] = self.now()
        if replies is not None and replies >= 0:
            self.replies[duel.topic_id] = replies

    def note_advanced(self, records: DuelRecords) -> None:
        """The duel's flow is being advanced with the publications of ``records`` (the
        duel's snapshot, :meth:`DuelRecords.publications`)."""
        self.advanced[records.duel.id] = records.publications()

    def needs_advance(self, records: DuelRecords) -> bool:
        """True when a declaration of the duel was published since it was last advanced (or
        it was not advanced yet by this process): its recorded posts may call for a draft."""
        return records.publications() != self.advanced.get(records.duel.id)

    # -- moved topics ---------------------------------------------------------------------
    def held_moved(self, duel: Duel) -> bool:
        """True while the duel has an open ``topic_moved`` referee task (never read it)."""
        return self.storage.duel_tasks.moved_task_open(duel.id)

    def hold_moved(self, duel: Duel, exc: TopicMoved) -> None:
        """The board answers the duel's topic as another one (merged or moved): hold the
        duel for the referee, loudly, naming both topic ids (an error line, a
        ``topic_moved`` referee task, its drafts ``held``); the other topic is never read
        as this one."""
        other = exc.new_topic_id
        log.error(
            "duel %s: topic %s is answered as topic %s by the board (merged or moved): duel "
            "held, its drafts held; a referee must look (referee task topic_moved)",
            duel.id,
            duel.topic_id,
            other,
        )
        now = iso(self.now())
        text = (
            f"Le sujet {duel.topic_id} du duel renvoie au sujet {other} (fusionné ou déplacé). "
            "Le duel est suspendu : l'arbitre décide de la suite."
        )
        with self.storage.atomic():
            self.storage.duel_tasks.add_moved_task(
                [self.board_id, duel.id, f"b{self.board_id}t{duel.topic_id}-moved-{other}",
                 f"Sujet {duel.topic_id} -> {other}", text, now, str(exc)],
            )  # fmt: skip
            self.storage.duel_rows.hold_drafts(
                duel.id, f"topic moved: {duel.topic_id} -> {other}", now
            )


__all__ = ["TopicWatch"]
