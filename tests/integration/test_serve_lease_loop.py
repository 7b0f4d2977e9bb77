"""Two :class:`forumbot.ops.serve.Serve` loops sharing a folder through leases on PostgreSQL
(issue 27), with fake bots (tests/unit/test_serve_pool.py) on one fake clock, each step run
inline: a club starts only where its lease is held, the fair share moves one club to the
second worker, a lost lease stops its club at once, a clean stop releases every lease.
Skipped, with the reason, without a PostgreSQL server (tests/engines.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from forumbot.config import Config
from forumbot.ops.leases import Leaser
from forumbot.ops.serve import InlineExecutor, Serve
from forumbot.storage.engine import split_schema
from forumbot.storage.leases import LeaseTable
from tests.engines import PgSchemas
from tests.integration.test_serve_leases import lapsed
from tests.unit.test_serve_pool import CLUB_FILE, FakeBot, FakeClient, FakeClock

CLUB = CLUB_FILE.replace('"{name}.db"', '"{database}"')  # the pool test's club, its own file


class FencedStorage:
    """The storage of a fake bot: records the lease fence the club runner sets."""

    def __init__(self) -> None:
        self.fences: list[Any] = []

    def declarations(self, statuses: Any = None) -> list[Any]:
        return []

    def set_lease_fence(self, fence: Any) -> None:
        self.fences.append(fence)


def make_bot(config: Config) -> FakeBot:
    bot = FakeBot(config, FakeClient(), lambda _bot: None)
    bot.storage = FencedStorage()
    return bot


def worker(folder: Path, name: str, lease_url: str, clock: FakeClock) -> Serve:
    leases = Leaser(holder=name, ttl_s=30, clock=clock, table=LeaseTable(lease_url))
    return Serve(folder, clock=clock, make_bot=make_bot, executor=InlineExecutor(),
                 leases=leases)  # fmt: skip


def run_ticks(*serves: Serve, times: int = 6) -> None:
    for _ in range(times):
        for serve in serves:
            serve.tick()


def states(serve: Serve) -> dict[str, tuple[str, Any]]:
    clubs = serve.health()["clubs"]
    return {n: (c["state"], c.get("holder")) for n, c in clubs.items()}


def test_two_loops_share_the_clubs_and_a_lost_lease_stops_its_club(
    tmp_path: Path, pg_schemas: PgSchemas
) -> None:
    lease_url = pg_schemas.fresh()
    schemas = {"alpha": pg_schemas.fresh(), "beta": pg_schemas.fresh()}
    folder = tmp_path / "boards"
    folder.mkdir()
    for name, database in schemas.items():
        path = folder / f"{name}.toml"
        path.write_text(CLUB.format(name=name, database=database), encoding="utf-8")
        path.chmod(0o600)
    clock = FakeClock()
    one = worker(folder, "w1", lease_url, clock)
    assert one.reload()["not_held"] == ["alpha", "beta"]
    run_ticks(one)
    assert states(one) == {"alpha": ("running", "w1"), "beta": ("running", "w1")}
    assert [len(r.bot.storage.fences) for r in one.runners.values()] == [1, 1]  # type: ignore[union-attr]

    two = worker(folder, "w2", lease_url, clock)
    two.reload()
    run_ticks(two)
    assert states(two) == {"alpha": ("leased_elsewhere", "w1"), "beta": ("leased_elsewhere", "w1")}
    assert two.club_health("alpha")["status"] == "leased_elsewhere"  # type: ignore[index]

    clock.t += 10  # w1's next round sees two live workers: it sheds one club, cleanly
    run_ticks(one)
    assert len(one.runners) == 1
    (kept,) = one.runners
    (moved,) = set(schemas) - {kept}
    clock.t += 10
    run_ticks(two)
    assert states(two) == {kept: ("leased_elsewhere", "w1"), moved: ("running", "w2")}
    assert one.health()["leases_held"] == 1 and two.health()["live_workers"] == 2

    # w1 is cut off long enough for its lease to lapse; a third worker takes the club over
    thief = LeaseTable(lease_url)
    keys = {n: split_schema(u)[1] for n, u in schemas.items()}
    assert thief.claim("w3", [keys[kept]], 1, 30, at=lapsed()) == {keys[kept]: 2}
    clock.t += 10
    run_ticks(one)
    assert one.runners == {}  # stopped at once: its lease is lost
    assert states(one)[kept] == ("leased_elsewhere", "w3")

    one.stop_all()
    two.stop_all()
    run_ticks(one, two)
    assert one.runners == {} and two.runners == {}
    for serve in (one, two):
        serve.leases.close()  # type: ignore[union-attr]
    rows = thief.read(keys.values())
    assert rows[keys[kept]].holder == "w3"  # not w1's to release
    assert rows[keys[moved]].holder is None  # w2 released it at its clean stop
    thief.close()
