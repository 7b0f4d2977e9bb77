"""``forumbot serve``'s shared worker pool, club states and folder reading (issue 27), with
fake bots (no board): the bound, fairness, a refused login, log lines, file errors."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from forumbot.config import Config
from forumbot.errors import LoginFailed
from forumbot.ops.boards_dir import locate_problem, read_club
from forumbot.ops.club_log import CLUB_TEXT_FORMAT, ClubLogFilter
from forumbot.ops.serve import InlineExecutor, Serve

CLUB_FILE = """\
[board]
url = "http://127.0.0.1:9/{name}"
platform = "phpbb3"

[bot]
username = "Hibou"

[poll]
poll_interval_s = 30
publish_interval_s = 30

[storage]
database = "{name}.db"
backup_keep = 0

[[watch]]
forum_id = 3
"""


class FakeClock:
    """Monotonic seconds moved by the test (and by a slow fake pass)."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class FakeClient:
    def __init__(self, refuse: bool = False) -> None:
        self.refuse = refuse
        self.max_inline_wait_s = 30.0
        self.logins = 0
        self.closed = False

    def login(self) -> None:
        self.logins += 1
        if self.refuse:
            raise LoginFailed("Vous avez indiqué un mot de passe incorrect.")

    def pause_remaining_s(self, scope: str = "all") -> float:
        return 0.0

    def close(self, logout: bool = False) -> None:
        self.closed = True


@dataclass
class FakeBot:
    """What a club runner uses of a :class:`forumbot.app.Bot`."""

    config: Config
    client: FakeClient
    on_poll: Callable[[FakeBot], None]
    polls: int = 0
    referee: Any = field(default=None)
    storage: Any = field(default=None)

    def __post_init__(self) -> None:
        self.referee = type("R", (), {"on_drafted": []})()
        self.storage = type("S", (), {"declarations": staticmethod(lambda statuses: [])})()

    def poll(self) -> list[Any]:
        self.polls += 1
        self.on_poll(self)
        return [object()] * len(self.config.watch)

    def publish(self) -> list[int]:
        return []

    def wired_notify(self) -> Any:
        return type("N", (), {"run": staticmethod(lambda: [])})()

    def close(self) -> None:
        pass


def folder_with(tmp_path: Path, names: list[str]) -> Path:
    folder = tmp_path / "boards"
    folder.mkdir()
    for name in names:
        path = folder / f"{name}.toml"
        path.write_text(CLUB_FILE.format(name=name), encoding="utf-8")
        path.chmod(0o600)
    return folder


def inline_serve(folder: Path, clock: FakeClock, on_poll: Callable[[FakeBot], None]) -> Serve:
    """One slot, jobs run inline on the fake clock, fake bots calling ``on_poll``; reloaded."""
    serve = Serve(
        folder,
        workers=1,
        clock=clock,
        make_bot=lambda c: FakeBot(c, FakeClient(), on_poll),  # type: ignore[arg-type,return-value]
        executor=InlineExecutor(),
    )
    serve.reload()
    return serve


def test_the_pool_is_bounded_and_a_board_waiting_longest_goes_first(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["a", "b", "c", "d"])
    clock = FakeClock()
    gate = threading.Event()
    started: list[str] = []
    cond = threading.Condition()
    bots: dict[str, FakeBot] = {}

    def blocking_poll(bot: FakeBot) -> None:
        with cond:
            started.append(bot.config.database.rsplit("/", 1)[-1].removesuffix(".db"))
            cond.notify_all()
        assert gate.wait(10), "the test never opened the gate"

    def make(config: Config) -> Any:
        bot = FakeBot(config, FakeClient(), blocking_poll)
        bots[config.database] = bot
        return bot

    pool = ThreadPoolExecutor(2)
    serve = Serve(folder, workers=2, clock=clock, make_bot=make, executor=pool)
    serve.reload()

    def tick_until(what: Callable[[], bool]) -> None:
        for _ in range(2000):
            if what():
                return
            serve.tick()
            with cond:
                cond.wait(0.01)
        raise AssertionError("never happened")

    tick_until(lambda: len(started) == 2)  # two polls hold both workers
    delays = [serve.tick() for _ in range(20)]
    assert serve.in_flight == 2 and len(started) == 2  # the other clubs wait: bounded
    # every slot taken: the due polls waiting for one do not make the loop spin (a slot that
    # frees wakes it); it sleeps until the next job not yet due, or its longest idle wait
    assert all(d is None or d > 0 for d in delays), delays
    first = set(started)
    gate.set()
    tick_until(lambda: len(started) == 4)
    assert set(started[2:]) == {"a", "b", "c", "d"} - first  # the waiting clubs come first
    serve.stop_all()
    tick_until(lambda: not serve.runners)
    pool.shutdown(wait=True)


def test_a_slow_board_does_not_starve_the_others(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["fast1", "fast2", "slow"])
    clock = FakeClock()
    polled: dict[str, list[float]] = {}

    def on_poll(bot: FakeBot) -> None:
        name = Path(bot.config.database).stem
        polled.setdefault(name, []).append(clock.t)
        if name == "slow":
            clock.t += 25.0  # a 25 s pass (the board answers slowly), on the only worker

    serve = inline_serve(folder, clock, on_poll)
    while clock.t < 1000.0 + 900:
        delay = serve.tick()
        clock.t += max(0.1, delay or 0.0)
    for name in ("fast1", "fast2"):
        gaps = [b - a for a, b in zip(polled[name], polled[name][1:], strict=False)]
        assert len(polled[name]) >= 900 // (30 + 25 + 1)
        assert max(gaps) <= 30 + 25 + 1  # at worst one slow pass ahead of it
    assert len(polled["slow"]) >= 15  # and the slow one still gets its turns


def test_a_refused_login_stops_that_club_only(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["good", "refused"])
    clock = FakeClock()
    bots: dict[str, FakeBot] = {}

    def make(config: Config) -> Any:
        name = Path(config.database).stem
        bots[name] = FakeBot(config, FakeClient(refuse=name == "refused"), lambda b: None)
        return bots[name]

    serve = Serve(folder, workers=2, clock=clock, make_bot=make, executor=InlineExecutor())
    serve.reload()
    for _ in range(200):
        delay = serve.tick()
        clock.t += max(0.1, delay or 0.0)
    refused = serve.club_health("refused")
    assert refused is not None and refused["state"] == "login_refused"
    assert "mot de passe incorrect" in refused["last_error"]
    assert bots["refused"].client.logins == 1  # never sent again: it would lock the account
    assert bots["good"].polls > 10
    # its file changes (the password was fixed): that club alone starts again
    path = folder / "refused.toml"
    path.write_text(path.read_text() + "\n# password fixed\n")
    assert serve.reload()["restarted"] == ["refused"]
    for _ in range(5):
        serve.tick()
    assert bots["refused"].client.logins == 1 and serve.runners["refused"].state != "stopped"


def test_log_lines_carry_the_club(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["hogwarts"])
    clock = FakeClock()
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep()
    handler.addFilter(ClubLogFilter())
    handler.setFormatter(logging.Formatter(CLUB_TEXT_FORMAT))
    logger = logging.getLogger("forumbot.test_serve")
    logger.addHandler(handler)
    try:
        serve = Serve(
            folder,
            clock=clock,
            executor=InlineExecutor(),
            make_bot=lambda c: FakeBot(  # type: ignore[arg-type,return-value]
                c, FakeClient(), lambda b: logger.warning("forum 3: poll failed")
            ),
        )
        serve.reload()
        for _ in range(5):
            serve.tick()
        logger.warning("outside any club")
    finally:
        logger.removeHandler(handler)
    lines = [handler.format(r) for r in records]
    assert any("[hogwarts] forumbot.test_serve: forum 3: poll failed" in x for x in lines)
    assert lines[-1].endswith("[-] forumbot.test_serve: outside any club")


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('[board]\nurl = "http://x"\nplatform = \n', "line 3, column"),  # TOML syntax
        (CLUB_FILE.format(name="x").replace("publish_interval_s", "publish_intervl_s"), "line 10"),
        (CLUB_FILE.format(name="x").replace('"phpbb3"', '"vbulletin"'), "line 3"),
        (CLUB_FILE.format(name="x").replace("forum_id = 3", "forum_id = -1"), "line 17"),
    ],
)
def test_a_bad_file_is_refused_with_its_line(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "club.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    club = read_club(path)
    assert club.config is None and club.error is not None
    assert needle in club.error and str(path) in club.error


def test_locate_problem_finds_the_table_and_key() -> None:
    text = "[board]\nurl = 1\n\n[[watch]]\nforum_id = 3\n[[watch]]\nforum_id = 4\n"
    assert locate_problem(text, "board.url: must be a string") == 2
    assert locate_problem(text, "watch[1].forum_id: must be > 0") == 7
    assert locate_problem(text, "unknown section [pol]; did you mean [poll]?") is None
    assert locate_problem(text, "board.platform is required") == 1  # the table's line


def test_a_board_down_at_login_is_tried_again_with_backoff_not_slept_on(tmp_path: Path) -> None:
    from forumbot.errors import BoardUnavailable

    folder = folder_with(tmp_path, ["down", "up"])
    clock = FakeClock()
    bots: dict[str, FakeBot] = {}

    class DownClient(FakeClient):
        def login(self) -> None:
            self.logins += 1
            raise BoardUnavailable("Le forum est actuellement désactivé.")

    class OddClient(FakeClient):
        def login(self) -> None:
            self.logins += 1
            raise RuntimeError("a bug in the login path")

    def make(config: Config) -> Any:
        name = Path(config.database).stem
        client = DownClient() if name == "down" else FakeClient()
        bots[name] = FakeBot(config, client, lambda b: None)
        return bots[name]

    serve = Serve(folder, workers=1, clock=clock, make_bot=make, executor=InlineExecutor())
    serve.reload()
    while clock.t < 1000.0 + 200:
        delay = serve.tick()
        clock.t += max(0.1, delay or 0.0)
    # 15 s, 30 s, 60 s, 120 s apart: 4 or 5 attempts in 200 s, never a spin
    assert 3 <= bots["down"].client.logins <= 5
    assert serve.club_health("down")["state"] == "waiting_board"  # type: ignore[index]
    assert bots["up"].polls >= 6  # 200 s at a 30 s poll: the other club polled all along
    # an unexpected error at login is also retried later, not at once
    bots["down"].client.__class__ = OddClient
    before = bots["down"].client.logins
    for _ in range(50):
        serve.tick()
    assert bots["down"].client.logins - before <= 1


def test_a_removed_club_finishes_its_running_pass_before_it_stops(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["leaving"])
    clock = FakeClock()
    gate, inside = threading.Event(), threading.Event()
    order: list[str] = []
    made: list[FakeBot] = []

    def slow_poll(bot: FakeBot) -> None:
        inside.set()
        assert gate.wait(10), "the test never opened the gate"
        order.append("pass finished")

    class Client(FakeClient):
        def close(self, logout: bool = False) -> None:
            order.append(f"closed (logout={logout})")

    def make(config: Config) -> Any:
        made.append(FakeBot(config, Client(), slow_poll))
        return made[-1]

    pool = ThreadPoolExecutor(2)
    serve = Serve(folder, workers=2, clock=clock, make_bot=make, executor=pool)
    serve.reload()
    for _ in range(2000):
        serve.tick()
        if inside.wait(0.01):
            break
    (folder / "leaving.toml").unlink()
    assert serve.reload()["stopped"] == ["leaving"]
    for _ in range(10):
        serve.tick()
    assert serve.club_health("leaving")["state"] == "stopping"  # type: ignore[index]
    assert order == []  # nothing closed under the running pass
    gate.set()
    for _ in range(2000):
        serve.tick()
        if "leaving" not in serve.runners:
            break
        serve.wakeup.wait(0.01)
        serve.wakeup.clear()
    assert order == ["pass finished", "closed (logout=True)"]
    pool.shutdown(wait=True)


def test_a_club_waiting_in_its_client_gives_its_slot_to_another(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["waits", "other"])
    clock = FakeClock()
    asleep, wake_up, other_polled = threading.Event(), threading.Event(), threading.Event()
    holder: list[Serve] = []

    def blocking_sleep(seconds: float) -> None:  # the fake time of a form-age wait
        asleep.set()
        assert wake_up.wait(10), "the test never woke the sleeper"

    def on_poll(bot: FakeBot) -> None:
        if Path(bot.config.database).stem == "waits":
            holder[0].pool_sleep(1.1)  # as phpBB's client waits for its form to be 1 s old
        elif asleep.is_set():  # a poll while the other club sleeps in its client
            other_polled.set()

    serve = Serve(
        folder, workers=1, clock=clock, sleep=blocking_sleep,
        make_bot=lambda c: FakeBot(c, FakeClient(), on_poll),  # type: ignore[arg-type,return-value]
    )  # fmt: skip
    holder.append(serve)
    serve.reload()
    for _ in range(3000):
        serve.tick()
        if other_polled.is_set():
            break
        serve.wakeup.wait(0.01)
        serve.wakeup.clear()
        clock.t += 1.0
    assert asleep.is_set() and other_polled.is_set()  # one slot, and both clubs went on
    assert serve.health()["waiting"] == 1
    wake_up.set()
    serve.stop_all()
    for _ in range(3000):
        serve.tick()
        if not serve.runners:
            break
        serve.wakeup.wait(0.01)
        serve.wakeup.clear()
    assert not serve.runners


def test_a_running_club_whose_file_breaks_keeps_its_configuration(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, ["steady"])
    clock = FakeClock()
    serve = Serve(
        folder, clock=clock, executor=InlineExecutor(),
        make_bot=lambda c: FakeBot(c, FakeClient(), lambda b: None),  # type: ignore[arg-type,return-value]
    )  # fmt: skip
    serve.reload()
    for _ in range(5):
        serve.tick()
    runner = serve.runners["steady"]
    (folder / "steady.toml").write_text("[board]\nurl = 'http://x'\n[bot\n", encoding="utf-8")
    assert serve.reload()["refused"] == ["steady"]
    entry = serve.club_health("steady")
    assert entry is not None and entry["state"] == "running"  # a typo does not take it down
    assert "line 3" in entry["config_error"]
    assert serve.runners["steady"] is runner and not runner.stopping
    (folder / "steady.toml").write_text(CLUB_FILE.format(name="steady"), encoding="utf-8")
    assert serve.reload()["restarted"] == ["steady"]  # fixed: now it restarts on it


def test_a_new_club_is_read_before_the_running_clubs_overdue_passes(tmp_path: Path) -> None:
    """A club started while the others are behind (a takeover from a dead worker: its start,
    login, publish and first poll) is read first, not after every overdue pass of the clubs
    already running (issue 27's takeover bound: TTL + one poll); then the others go on."""
    folder = folder_with(tmp_path, ["a", "b"])
    clock = FakeClock()
    polled: list[str] = []

    def on_poll(bot: FakeBot) -> None:
        polled.append(Path(bot.config.database).stem)

    serve = inline_serve(folder, clock, on_poll)
    while sorted(polled) != ["a", "b"]:
        serve.tick()
    clock.t += 90.0  # a's and b's polls and publish passes are all overdue now
    (folder / "c.toml").write_text(CLUB_FILE.format(name="c"), encoding="utf-8")
    (folder / "c.toml").chmod(0o600)
    serve.reload()
    while len(polled) < 5:
        serve.tick()  # one job per tick: one slot, jobs run inline
    assert polled[2:] == ["c", "a", "b"]
    assert not serve.runners["c"].first_pass and not serve.runners["a"].first_pass
