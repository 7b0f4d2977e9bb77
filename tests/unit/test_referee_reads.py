"""Issue 12, the referee's side: a topic is read only when something changed; listings;
moved topics; an ambiguous opening loses no turn. Against the in-memory forum."""

from __future__ import annotations

import logging
import random

import pytest

from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.forums.base import TopicSummary
from forumbot.storage import open_storage
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."


def make(
    forum: FakeForum | None = None, review_delay_s: int | str = 0, watch_s: float = 300
) -> tuple[FakeForum, Referee, Clock]:
    forum = forum or FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    clock = Clock()
    referee = Referee(
        open_storage(":memory:"), forum, board_url="http://board.invalid", platform="phpbb3",
        review_delay_s=review_delay_s, now=clock, rng=random.Random(1),
        edit_watch_interval_s=watch_s,
    )  # fmt: skip
    return forum, referee, clock


def turn(forum: FakeForum, topic: int = 7) -> None:
    forum.add_post(
        topic, "Aurora Vexley", "Aurora lève sa baguette.\n[b]Sortilège de Désarmement[/b]"
    )
    forum.add_post(topic, "Cassius Thorne", "Cassius esquive.\n[b]Sortilège de Chatouillis[/b]")


def test_a_pending_draft_is_no_reason_to_read_the_topic_again() -> None:
    forum, referee, clock = make(review_delay_s=600)
    referee.poll_forum(3)
    clock.advance(601)
    publish_due(referee.storage, forum, clock)
    referee.poll_forum(3)  # reads the bot's opening
    turn(forum)
    referee.poll_forum(3)
    draft = referee.storage.declarations(("draft",))[0]
    reads = forum.reads
    for _ in range(5):  # five polls a minute apart: nothing changed, the watch is not due
        clock.advance(59)
        assert referee.poll_forum(3).topics_read == 0
    assert forum.reads == reads
    assert referee.storage.declaration(draft["id"])["version"] == draft["version"]
    clock.advance(6)  # 300 s since the read: the edit watch reads it once
    assert referee.poll_forum(3).topics_read == 1
    assert referee.poll_forum(3).topics_read == 0
    forum.add_post(7, "Maelis Dunbar", "Un spectateur applaudit.")
    assert referee.poll_forum(3).topics_read == 1  # a new post: read at once


def test_listing_every_page_at_start_then_the_first_page() -> None:
    forum, referee, _clock = make()
    for _ in range(3):
        referee.poll_forum(3)
    assert forum.listings == {True: 1, False: 2}


class PagedForum(FakeForum):
    """A listing of pages of two topics (newest last post first)."""

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        rows = super().list_topics(forum_id, all_pages)
        self.listing_more[forum_id] = not all_pages and len(rows) > 2
        return rows if all_pages else rows[:2]


def test_a_topic_not_accounted_for_reads_every_page_again() -> None:
    forum, referee, _clock = make(PagedForum())
    forum.add_topic(8, "Bavardages", "Maelis Dunbar", "Bonjour à tous.")
    forum.add_topic(9, "Annonces", "Arbitre", "Règlement du club.")
    referee.poll_forum(3)  # start-up: every page; topic 7 (on page 2) is adopted
    assert forum.listings == {True: 1}
    assert referee.storage.duel_by_topic(referee.board_id, 7) is not None
    referee.poll_forum(3)  # nothing changed: the first page only
    assert forum.listings == {True: 1, False: 1}
    # Both topics of page 1 and topic 7 change: page 1 no longer shows an unchanged topic,
    # so changes may lie beyond it: every page is read again.
    forum.add_post(8, "Maelis Dunbar", "Encore moi.")
    forum.add_post(9, "Arbitre", "Rappel.")
    turn(forum)
    referee.poll_forum(3)
    assert forum.listings == {True: 2, False: 2}


def test_a_moved_topic_holds_the_duel_and_is_never_read_as_another(
    caplog: pytest.LogCaptureFixture,
) -> None:
    forum, referee, clock = make(review_delay_s=600)
    referee.poll_forum(3)
    forum.topics[7]["moved_to"] = 2
    forum.add_post(7, "Aurora Vexley", "Aurora attend.")
    with caplog.at_level(logging.ERROR, logger="forumbot.duels.referee"):
        referee.poll_forum(3)
    assert any("topic 7" in r.message and "topic 2" in r.message for r in caplog.records)
    tasks = list(referee.storage.db["referee_tasks"].rows)
    assert [(t["kind"], t["status"], t["subject"]) for t in tasks] == [
        ("topic_moved", "open", "Sujet 7 -> 2")
    ]
    assert [d["status"] for d in referee.storage.declarations()] == ["held"]
    reads = forum.reads
    forum.add_post(7, "Cassius Thorne", "Cassius attend aussi.")
    clock.advance(601)
    referee.poll_forum(3)
    assert forum.reads == reads  # held: not read again while the task is open
    assert publish_due(referee.storage, forum, clock) == []


def test_an_ambiguous_opening_loses_no_turn() -> None:
    """The opening's POST times out after the board saved it; the duellists post their first
    turn before the bot knows; once the opening is confirmed (marker found) the turn counts."""
    forum, referee, clock = make()
    referee.poll_forum(3)
    forum.fail_next_reply = True
    assert publish_due(referee.storage, forum, clock) == []  # outcome unknown
    assert [d["status"] for d in referee.storage.declarations()] == ["publishing"]
    turn(forum)
    referee.poll_forum(3)  # the turn posts are recorded; the duel has not started yet
    assert referee.storage.duels("running") == []
    published = publish_due(referee.storage, forum, clock)  # the marker confirms the opening
    assert len(published) == 1 and forum.replies_sent == 1
    reads = forum.reads
    report = referee.poll_forum(3)  # nothing new on the board, but the turn is drafted
    assert report.drafts == 1 and forum.reads == reads
    publish_due(referee.storage, forum, clock)
    duel = referee.storage.duels("running")[0]
    assert '"turn": 1' in duel["state_json"]
    turns = [d for d in referee.storage.declarations() if d["kind"] == "turn"]
    assert [(d["turn"], d["status"]) for d in turns] == [(1, "published")]
