"""The owl outbox: every private message drafted once and sent exactly once, across crashes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from forumbot.errors import FloodLimited, FormInvalid
from forumbot.publish.owls import draft_owl, owl, owls, send_due_owls
from forumbot.storage import Storage, open_storage
from tests.fakes.forum import ClubForum, Crash

# The storage and exactly-once tests run on both engines (issue 27, tests/engines.py).
pytestmark = pytest.mark.usefixtures("on_each_engine")

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def clock() -> datetime:
    return NOW


def store() -> Storage:
    storage = open_storage(":memory:")
    storage.board_id("http://board.invalid", "phpbb3", NOW)
    return storage


def draft(storage: Storage, key: str = "b1-duel1-owl-aurora") -> int:
    return draft_owl(
        storage, 1, key, "magic_types", "Aurora Vexley", "Ton type de magie", "Brutale.", NOW
    )


def test_an_owl_is_drafted_once_and_sent_once_with_its_marker() -> None:
    storage, forum = store(), ClubForum()
    first = draft(storage)
    assert draft(storage) == first and len(owls(storage, 1)) == 1
    assert send_due_owls(storage, forum, clock, 1) == [first]
    assert send_due_owls(storage, forum, clock, 1) == []
    (pm,) = forum.pms
    assert pm["to"] == "Aurora Vexley" and "forumbot·b1-duel1-owl-aurora" in str(pm["message"])
    row = owl(storage, "b1-duel1-owl-aurora")
    assert row is not None and row["status"] == "sent" and row["attempts"] == 1


def test_a_timeout_after_sending_is_settled_from_the_outbox_not_resent() -> None:
    storage, forum = store(), ClubForum()
    draft(storage)
    forum.fail_next_pm = True
    assert send_due_owls(storage, forum, clock, 1) == []
    assert owls(storage, 1, "sending")
    assert len(send_due_owls(storage, forum, clock, 1)) == 1
    assert len(forum.pms) == 1 and owls(storage, 1, "sent")


def test_death_right_after_sending_then_restart_sends_nothing_more() -> None:
    storage, forum = store(), ClubForum()
    draft(storage, "k-a")
    draft(storage, "k-b")
    forum.crash_next_pm = True
    with pytest.raises(Crash):
        send_due_owls(storage, forum, clock, 1)
    # restart: a fresh outbox pass on the same database
    send_due_owls(storage, forum, clock, 1)
    assert [pm["message"] for pm in forum.pms].count(forum.pms[0]["message"]) == 1
    assert len(forum.pms) == 2 and len(owls(storage, 1, "sent")) == 2


def test_death_after_the_claim_before_sending_sends_it_after_restart() -> None:
    storage, forum = store(), ClubForum()
    row_id = draft(storage)
    storage.db["owls"].update(row_id, {"status": "sending", "attempts": 1})  # claimed, died
    assert send_due_owls(storage, forum, clock, 1) == [row_id]
    assert len(forum.pms) == 1


class FloodedForum(ClubForum):
    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        raise FloodLimited("too soon", 15)


class RefusingForum(ClubForum):
    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        raise FormInvalid("recipient 'Aurora Vexley' not accepted")


def test_flood_keeps_the_owl_pending_and_a_refusal_fails_it() -> None:
    storage = store()
    draft(storage)
    assert send_due_owls(storage, FloodedForum(), clock, 1) == []
    row = owl(storage, "b1-duel1-owl-aurora")
    assert row is not None and row["status"] == "pending" and "FloodLimited" in row["last_error"]
    assert send_due_owls(storage, RefusingForum(), clock, 1) == []
    row = owl(storage, "b1-duel1-owl-aurora")
    assert row is not None and row["status"] == "failed"


class BlindForum(ClubForum):
    """A client that cannot search its outbox."""

    def __getattribute__(self, name: str) -> object:
        if name == "find_pm_marker":
            raise AttributeError(name)
        return super().__getattribute__(name)


def test_unknown_fate_without_an_outbox_search_is_never_resent() -> None:
    storage, forum = store(), BlindForum()
    draft(storage)
    forum.fail_next_pm = True
    send_due_owls(storage, forum, clock, 1)
    send_due_owls(storage, forum, clock, 1)
    assert len(forum.pms) == 1
    row = owl(storage, "b1-duel1-owl-aurora")
    assert row is not None and row["status"] == "failed" and "cannot search" in row["last_error"]


class SearchLog(ClubForum):
    """Records how deep each sent-box search reads."""

    def __init__(self) -> None:
        super().__init__()
        self.limits: list[int] = []

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        self.limits.append(limit)
        return super().find_pm_marker(subject, marker, limit)


def test_in_a_restores_window_an_owl_is_looked_for_deep_before_its_first_send() -> None:
    """Issue 23, soak seed 5: the owls sent between a backup and its restore were looked for
    among the 10 newest PMs only, and sent again. In the window the search reads
    ``RESTORE_PM_SEARCH`` PMs per folder; outside it, no search before a first send."""
    from forumbot.publish.owls import RESTORE_PM_SEARCH

    storage, forum = store(), SearchLog()
    draft(storage)
    storage.db.execute(
        "insert into publish_restores (restored_at, backup, started_at, check_until) "
        "values (?, 'bot-x.db', ?, ?)",
        [NOW.isoformat(), NOW.isoformat(), "2026-12-01T12:00:00+00:00"],
    )
    storage.db.conn.commit()
    assert len(send_due_owls(storage, forum, clock, 1)) == 1
    assert forum.limits == [RESTORE_PM_SEARCH] and len(forum.pms) == 1
    plain_storage, plain_forum = store(), SearchLog()
    draft(plain_storage)
    send_due_owls(plain_storage, plain_forum, clock, 1)
    assert plain_forum.limits == [] and len(plain_forum.pms) == 1
