"""Issue 22, duels follow their topic, on the in-memory forum: when a duel is read by id, and
what that bookkeeping costs (the SELECT counts of issue 11: one snapshot of the duel's
declarations and one of its posts per poll, nothing else per duel)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.errors import TopicNotFound
from forumbot.forums.base import TopicSummary
from forumbot.storage import open_storage
from parsers.model import Post
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum
from tests.unit.test_duel_records import Traced, kind_of, traced_poll

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."


@dataclass
class MovingForum(FakeForum):
    """Topics in forums: a listing shows its forum's topics only; a read by id answers any
    topic (and says its forum, like the real clients' ``topic_forums``); a deleted topic is
    a TopicNotFound."""

    forum_of: dict[int, int] = field(default_factory=dict)
    deleted: set[int] = field(default_factory=set)
    topic_forums: dict[int, int] = field(default_factory=dict)

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        return [
            row
            for row in super().list_topics(forum_id, all_pages)
            if self.forum_of.get(row.topic_id, 3) == forum_id and row.topic_id not in self.deleted
        ]

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        if topic_id in self.deleted:
            self.reads += 1
            raise TopicNotFound(f"viewtopic.php?t={topic_id}: HTTP 404")
        self.topic_forums[topic_id] = self.forum_of.get(topic_id, 3)
        return super().read_topic(topic_id, after_post_id)


def setup(after_polls: int = 3) -> tuple[MovingForum, Referee, Clock]:
    forum, clock = MovingForum(), Clock()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    referee = Referee(
        open_storage(":memory:"), forum, board_url="http://board.invalid", platform="phpbb3",
        review_delay_s=0, now=clock, rng=random.Random(3), bot_username="Hibou",
        follow_after_polls=after_polls,
    )  # fmt: skip
    referee.poll_forum(3)
    publish_due(referee.storage, forum, clock)
    referee.poll_forum(3)
    return forum, referee, clock


def test_a_moved_topic_is_read_by_id_after_the_set_number_of_polls() -> None:
    forum, referee, _clock = setup(after_polls=2)
    forum.forum_of[7] = 5
    reads = forum.reads
    assert referee.poll_forum(3).topics_read == 0  # missing once
    assert referee.poll_forum(3).topics_read == 1  # missing twice: read by id
    assert forum.reads == reads + 1
    assert referee.storage.duels()[0]["board_forum_id"] == 5
    assert referee.poll_forum(3).topics_read == 1  # known elsewhere: read by id every poll


def test_a_followed_duels_poll_reads_its_rows_once() -> None:
    forum, referee, _clock = setup(after_polls=1)
    forum.forum_of[7] = 5
    traced = Traced()
    for i in range(3):
        forum.add_post(7, "Aurora Vexley", f"Aurora lève sa baguette {i}.\n[b]Flipendo[/b]")
        traced_poll(referee, traced)
    for number, selects in enumerate(traced.polls):
        kinds = [kind_of(s) for s in selects]
        assert kinds.count("snapshot-declarations") == 1, (number, selects)
        assert kinds.count("snapshot-posts") == 1, (number, selects)
        assert "other" not in kinds, (number, selects)


def test_a_deleted_topic_is_held_once_and_never_read_again() -> None:
    forum, referee, clock = setup(after_polls=1)
    forum.deleted.add(7)
    referee.poll_forum(3)
    duel = referee.storage.duels()[0]
    assert duel["held_at"] is not None and "TopicNotFound" in duel["held_reason"]
    reads = forum.reads
    for _ in range(3):
        clock.advance(600)
        assert referee.poll_forum(3).topics_read == 0
    assert forum.reads == reads
    tasks = list(referee.storage.db["referee_tasks"].rows)
    assert [(t["kind"], t["status"]) for t in tasks] == [("topic_gone", "open")]
