"""Club leases between ``forumbot serve`` workers on PostgreSQL (issue 27, "Boards move between
workers"): claims with ``FOR UPDATE SKIP LOCKED``, epochs, the fair share, and the fence that
keeps a worker whose lease was taken over from publishing. Skipped, with the reason, without a
PostgreSQL server (tests/engines.py). Lease times are passed explicitly (``at``) where a test
needs a lease to have lapsed: no test sleeps."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from forumbot.duels.publication import apply_published
from forumbot.duels.referee import Referee
from forumbot.ops.leases import Leaser
from forumbot.publish.poster import PublishState, publish_due
from forumbot.storage import open_storage
from forumbot.storage.engine import split_schema
from forumbot.storage.leases import Fence, LeaseTable
from tests.engines import PgSchemas
from tests.fakes.forum import FakeForum

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class FakeClock:
    """The serve loop's monotonic seconds, moved by hand."""

    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def lapsed() -> datetime:
    """A moment (for ``at=``) after every 30 s lease claimed now has lapsed."""
    return datetime.now(UTC) + timedelta(seconds=90)


def test_claims_skip_locked_rows_and_a_takeover_bumps_the_epoch(pg_schemas: PgSchemas) -> None:
    url = pg_schemas.fresh()
    one, two = LeaseTable(url), LeaseTable(url)
    clubs = ["c1", "c2", "c3"]
    one.ensure(clubs)
    one.ensure(clubs)  # idempotent
    with psycopg.connect(pg_schemas.base) as other:  # a claim in flight holds c1's row
        other.execute(f"select 1 from {one.schema}.leases where club = 'c1' for update")
        assert two.claim("w2", clubs, 5, 30) == {"c2": 1, "c3": 1}  # not waiting on c1
    assert one.claim("w1", clubs, 5, 30) == {"c1": 1}
    assert one.renew("w1", {"c1": 1}, 30) == {"c1"}
    assert two.claim("w2", clubs, 5, 30) == {}  # every lease is live
    # w1 stops renewing: once its lease has lapsed, w2 takes c1 over at a larger epoch
    assert two.claim("w2", clubs, 1, 30, at=lapsed()) == {"c1": 2}  # (c1 first, by name)
    assert one.renew("w1", {"c1": 1}, 30) == set()  # lost
    rows = one.read(clubs)
    assert {k: (r.holder, r.epoch, r.live) for k, r in rows.items()} == {
        "c1": ("w2", 2, True), "c2": ("w2", 1, True), "c3": ("w2", 1, True),
    }  # fmt: skip
    two.release("w2", {"c1": 2, "c2": 1})
    assert one.read(["c1"])["c1"].holder is None
    assert one.claim("w1", clubs, 5, 30) == {"c1": 3, "c2": 2}
    one.close()
    two.close()


def test_the_fair_share_sheds_down_and_a_released_club_goes_to_the_other(
    pg_schemas: PgSchemas,
) -> None:
    url = pg_schemas.fresh()
    clock = FakeClock()
    clubs = [f"club{i}" for i in range(5)]
    w1 = Leaser(holder="w1", ttl_s=30, clock=clock, table=LeaseTable(url))
    w2 = Leaser(holder="w2", ttl_s=30, clock=clock, table=LeaseTable(url))
    first = w1.step(clubs)
    assert first.gained == set(clubs) and w1.live == 1  # alone: cap = 5 + 1
    assert w2.step(clubs).gained == set()  # nothing free; w2 now counts as live
    clock.t += 10
    second = w1.step(clubs)  # 2 live workers: target 3, cap 4; w1 holds 5 > 4
    assert w1.live == 2 and second.shed == {"club3", "club4"} and second.gained == set()
    assert w1.step(clubs).gained == set()  # shedding ones are not claimed again
    for key in second.shed:  # their clubs stopped cleanly: released
        w1.release(key)
    assert w2.step(clubs).gained == {"club3", "club4"}
    clock.t += 10
    assert w1.step(clubs).gained == set()  # none free (and w1 does not take back its own)
    assert sorted(w1.held) == ["club0", "club1", "club2"]
    assert sorted(w2.held) == ["club3", "club4"]
    assert w1.describe("club3") == {
        "holder": "w2", "held_here": False, "lease_epoch": 2, "lease_live": True,
    }  # fmt: skip
    w2.close()  # a clean stop: leases released, heartbeat forgotten
    clock.t += 30  # past w1's one-TTL wait before claiming back what it released
    assert w1.step(clubs).gained == {"club3", "club4"}
    assert w1.live == 1
    w1.close()


def test_a_worker_whose_lease_was_taken_over_never_publishes(pg_schemas: PgSchemas) -> None:
    lease_url, club_url = pg_schemas.fresh(), pg_schemas.fresh()
    key = split_schema(club_url)[1]
    assert key is not None
    forum = FakeForum()
    forum.add_topic(1, "Duel 1", "Arbitre", OPENING)
    storage = open_storage(club_url)
    referee = Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3", review_delay_s=0,
        now=lambda: NOW, rng=random.Random(1),
    )  # fmt: skip
    referee.poll_forum(3)  # the opening is drafted, due at once
    worker1 = Leaser(holder="w1", ttl_s=30, clock=FakeClock(), table=LeaseTable(lease_url))
    assert worker1.step([key]).gained == {key}
    storage.set_lease_fence(worker1.fence(key))
    # worker 1 is partitioned; its lease lapses and worker 2 takes the club over
    worker2 = LeaseTable(lease_url)
    assert worker2.claim("w2", [key], 1, 30, at=lapsed()) == {key: 2}

    state = PublishState(fresh_after=0)
    published = publish_due(storage, forum, lambda: NOW, on_published=apply_published,
                            state=state)  # fmt: skip
    assert published == []
    assert forum.replies_sent == 0  # nothing posted
    assert [d["status"] for d in storage.declarations()] == ["draft"]  # the claim lost

    # the same storage fenced with worker 2's lease (what its own club runner sets) publishes
    storage.set_lease_fence(Fence(key, "w2", 2, 10.0, worker1.schema))
    published = publish_due(storage, forum, lambda: NOW, on_published=apply_published,
                            state=state)  # fmt: skip
    assert len(published) == 1 and forum.replies_sent == 1
    storage.close()
    worker2.close()
    worker1.close()


def test_a_fence_on_sqlite_is_refused() -> None:
    storage = open_storage(":memory:")
    with pytest.raises(ValueError, match="PostgreSQL"):
        storage.set_lease_fence(Fence("c", "w", 1, 10.0))
