"""Issue 12, the poster's side: at most 2 requests per declaration on the normal path (the
topic is re-read for the marker only after an ambiguous outcome or a restart), and reply
forms fetched ahead while one ages (one per topic, never two with one posting-lock key)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from forumbot.duels.publication import apply_published
from forumbot.duels.referee import Referee
from forumbot.publish.poster import PublishState, publish_due
from forumbot.storage import open_storage
from tests.fakes.forum import FakeForum

# The storage and exactly-once tests run on both engines (issue 27, tests/engines.py).
pytestmark = pytest.mark.usefixtures("on_each_engine")

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def clock() -> datetime:
    return NOW


@dataclass
class PreparingForum(FakeForum):
    """A FakeForum whose reply forms are fetched ahead (like phpBB): each form must age
    ``min_age`` seconds of ``t`` (moved only by ``sleep``); ``calls`` logs what was done."""

    t: float = 0.0
    min_age: float = 1.5
    calls: list[tuple[str, int]] = field(default_factory=list)
    keys_per_second: bool = False

    def prepare_reply(self, topic_id: int) -> dict[str, Any]:
        self.calls.append(("form", topic_id))
        return {"topic": topic_id, "at": self.t, "key": int(self.t)}

    def form_wait_s(self, prepared: dict[str, Any]) -> float:
        return max(0.0, self.min_age - (self.t - prepared["at"]))

    def form_key(self, prepared: dict[str, Any]) -> Any:
        return prepared["key"] if self.keys_per_second else None

    def reply(  # type: ignore[override]
        self, topic_id: int, message: str, marker: str, *, prepared: Any = None
    ) -> int:
        if prepared is None:
            prepared = self.prepare_reply(topic_id)
        assert prepared["topic"] == topic_id
        self.t += self.form_wait_s(prepared)  # the client sleeps out the form age
        self.calls.append(("post", topic_id))
        return super().reply(topic_id, message, marker)

    def find_marker(self, topic_id: int, marker: str, after_post_id: int | None) -> int | None:
        self.calls.append(("read", topic_id))
        return super().find_marker(topic_id, marker, after_post_id)


def board_with_openings(forum: FakeForum, topics: int) -> Referee:
    for topic in range(1, topics + 1):
        forum.add_topic(topic, f"Duel {topic}", "Arbitre", OPENING)
    referee = Referee(
        open_storage(":memory:"), forum, board_url="http://board.invalid", platform="phpbb3",
        review_delay_s=0, now=clock, rng=random.Random(1),
    )  # fmt: skip
    return referee


def test_a_fresh_declaration_costs_a_form_and_a_post_no_marker_read() -> None:
    forum = PreparingForum()
    state = PublishState(fresh_after=0)  # the process started before any declaration
    referee = board_with_openings(forum, 1)
    referee.poll_forum(3)
    published = publish_due(
        referee.storage, forum, clock, on_published=apply_published, state=state
    )
    assert len(published) == 1
    assert forum.calls == [("form", 1), ("post", 1)]


def test_rows_from_before_the_start_and_ambiguous_ones_are_looked_for_first() -> None:
    forum = PreparingForum()
    referee = board_with_openings(forum, 2)
    referee.poll_forum(3)
    state = PublishState.at_start(referee.storage)  # a restart: both rows are from before
    forum.fail_next_reply = True
    publish_due(referee.storage, forum, clock, on_published=apply_published, state=state)
    first, second = (c[1] for c in forum.calls if c[0] == "read")
    assert forum.calls == [
        ("read", first), ("form", first), ("post", first),
        ("read", second), ("form", second), ("post", second),
    ]  # fmt: skip
    assert sorted(d["status"] for d in referee.storage.declarations()) == [
        "published", "publishing",
    ]  # fmt: skip
    forum.calls.clear()
    # left publishing (ambiguous): its marker is looked for, found, nothing posted again
    publish_due(referee.storage, forum, clock, on_published=apply_published, state=state)
    assert forum.calls == [("read", first)]
    assert forum.replies_sent == 2


def test_forms_of_the_next_declarations_are_fetched_while_one_ages() -> None:
    forum = PreparingForum()
    referee = board_with_openings(forum, 30)
    state = PublishState(fresh_after=0)
    referee.poll_forum(3)
    published = publish_due(
        referee.storage, forum, clock, on_published=apply_published, state=state
    )
    assert len(published) == 30 and forum.replies_sent == 30
    # the 30 forms are fetched while the first ages, then 30 posts: one form-age wait in all
    forms, posts = forum.calls[:30], forum.calls[30:]
    assert {c for c in forms} == {("form", t) for t in range(1, 31)}
    assert posts == [("post", t) for _, t in forms]
    assert forum.t == 1.5


def test_one_form_per_topic_and_never_two_with_one_posting_lock_key() -> None:
    forum = PreparingForum(keys_per_second=True)
    referee = board_with_openings(forum, 3)
    state = PublishState(fresh_after=0)
    referee.poll_forum(3)
    publish_due(referee.storage, forum, clock, on_published=apply_published, state=state)
    # forms fetched in the same second share a key: the second one is not kept
    (a, first), (b, second), (c, posted) = forum.calls[:3]
    assert (a, b, c) == ("form", "form", "post") and posted == first != second
    assert forum.replies_sent == 3
