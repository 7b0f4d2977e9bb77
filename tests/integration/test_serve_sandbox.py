"""``forumbot serve --boards DIR`` (issue 27) on sandbox boards served on 127.0.0.1.

Every board, every bot client and the serve loop share one fake clock (tests/fakes/clock.py):
the loop is driven tick by tick (:class:`forumbot.ops.serve.InlineExecutor` runs each job at
once) and the clock is moved to the next due job, so no test sleeps and every step is
deterministic. The duellists post through the sandbox's server-side helpers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from forumbot.app import Bot, bootstrap
from forumbot.config import Config
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, DUELLISTS, make_demo_board
from forumbot.ops.lock import single_instance
from forumbot.ops.serve import InlineExecutor, Serve
from forumbot.publish.render import marker_text
from forumbot.sandbox import SandboxBoard
from tests.fakes.clock import SandboxClock

POLL_S = 30

CLUB = """\
[board]
url = "{url}"
platform = "phpbb3"

[bot]
username = "{bot}"
password_env = "FORUMBOT_SERVE_TEST_PASSWORD"

[club]
ruleset = "classic"
review_delay_s = 0

[poll]
poll_interval_s = {poll}
publish_interval_s = 5
flood_interval_s = 0

[storage]
database = "{db}"
backup_keep = 0

[[watch]]
forum_id = {forum}
"""


@pytest.fixture
def clock() -> SandboxClock:
    return SandboxClock(datetime(2026, 12, 1, 20, 0, tzinfo=UTC))


@pytest.fixture
def boards(clock: SandboxClock) -> Iterator[dict[str, SandboxBoard]]:
    made: dict[str, SandboxBoard] = {}
    for name in ("alpha", "beta", "gamma"):
        board = make_demo_board("phpbb3", clock=clock, flood_interval_s=0)
        board.start()
        made[name] = board
    yield made
    for board in made.values():
        board.stop()


def write_club(folder: Path, name: str, board: SandboxBoard, poll: int = POLL_S) -> Path:
    """A club file ``<name>.toml`` for ``board`` (database ``<name>.db`` beside it)."""
    path = folder / f"{name}.toml"
    text = CLUB.format(url=board.base_url, bot=BOT, poll=poll, db=f"{name}.db", forum=DUEL_FORUM)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def open_duel(board: SandboxBoard) -> int:
    (a, ya), (b, yb) = DUELLISTS
    return board.create_topic(
        DUEL_FORUM,
        "Arbitre",
        f"Duel : {a} contre {b}",
        f"Les adversaires : {a} ({ya}re année) contre {b} ({yb}e année).",
    )


def post_turn(board: SandboxBoard, topic: int) -> None:
    """Both duellists post their spell of the turn."""
    (a, _), (b, _) = DUELLISTS
    board.post_reply(topic, a, f"{a} lève sa baguette.\nEt vise.\n[b]Expelliarmus[/b]")
    board.post_reply(topic, b, f"{b} se met en garde.\nPuis riposte.\n[b]Protego[/b]")


def declarations(board: SandboxBoard, topic: int) -> int:
    """The bot's posts carrying a marker in ``topic``."""
    bot_id = board.user_id(BOT)
    return sum(1 for p in board.posts(topic) if p.poster_id == bot_id and "forumbot·" in p.text)


def maker(clock: SandboxClock, broken: Callable[[Bot], None] | None = None) -> Any:
    """``make_bot`` for the tests: the demo password, the fake clock, seeded dice;
    ``broken(bot)`` may sabotage a bot (by its board url) after it is wired."""

    def make(config: Config) -> Bot:
        bot = bootstrap(
            config,
            password=BOT_PASSWORD,
            now=clock.utc,
            sleep=clock.sleep,
            clock=clock,
            rng=random.Random(5),
        )
        if broken is not None:
            broken(bot)
        return bot

    return make


def serve_for(folder: Path, clock: SandboxClock, **kwargs: Any) -> Serve:
    return Serve(
        folder,
        workers=2,
        clock=clock,
        now=clock.utc,
        executor=InlineExecutor(),
        make_bot=kwargs.pop("make_bot", maker(clock)),
        **kwargs,
    )


def drive(serve: Serve, clock: SandboxClock, until: Callable[[], bool], limit_s: float) -> float:
    """Tick the loop, moving the fake clock to the next due job, until ``until()``; returns
    the fake seconds it took. Fails past ``limit_s`` fake seconds."""
    start = clock()
    while not until():
        assert clock() - start <= limit_s, f"not done within {limit_s} fake seconds"
        delay = serve.tick()
        if until():
            break
        # the loop's own wait: not a sleep of a client (clock.sleeps keeps only those)
        clock.advance(timedelta(seconds=max(0.5, delay if delay is not None else 1.0)))
    return clock() - start


def test_retry_after_on_one_board_does_not_delay_the_other(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha, beta = boards["alpha"], boards["beta"]
    write_club(tmp_path, "alpha", alpha)
    write_club(tmp_path, "beta", beta)
    topics = {"alpha": open_duel(alpha), "beta": open_duel(beta)}
    serve = serve_for(tmp_path, clock)
    assert serve.reload()["started"] == ["alpha", "beta"]
    drive(
        serve, clock, lambda: all(declarations(boards[n], t) == 1 for n, t in topics.items()), 120
    )

    # 20 s: shorter than a poll, so `forumbot run` would wait it out in place; serve
    # pauses beta instead (inline_wait_s 5 s) and goes on with alpha
    beta.start_outage("challenge503", every_url=True, retry_after_s=20)
    post_turn(beta, topics["beta"])
    sleeps_before = len(clock.sleeps)
    post_turn(alpha, topics["alpha"])
    seen: list[dict[str, Any]] = []

    def alpha_declared() -> bool:
        seen.append(serve.health()["clubs"]["beta"])
        return declarations(alpha, topics["alpha"]) == 2

    took = drive(serve, clock, alpha_declared, 3 * POLL_S)
    assert took <= POLL_S + 5  # alpha's turn is declared within one poll, beta or not
    assert beta.outage_served > 0  # beta was asked, and answered 503 + Retry-After
    assert max(clock.sleeps[sleeps_before:], default=0.0) <= 5  # nobody slept on its wait
    paused = [s for s in seen if s["state"] == "paused"]
    assert paused and "Retry-After" in paused[0]["paused_reason"]
    assert serve.health()["clubs"]["alpha"]["state"] == "running"
    assert serve.health()["clubs"]["alpha"]["paused_reason"] is None

    beta.end_outage()  # the pause ends: beta's turn goes out too, once
    drive(serve, clock, lambda: declarations(beta, topics["beta"]) == 2, 3 * POLL_S)
    assert serve.health()["clubs"]["beta"]["state"] == "running"
    serve.stop_all()
    drive(serve, clock, lambda: not serve.runners, 60)


def test_a_club_whose_pass_raises_does_not_stop_the_others(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha, gamma = boards["alpha"], boards["gamma"]
    write_club(tmp_path, "alpha", alpha)
    write_club(tmp_path, "gamma", gamma)
    topic = open_duel(alpha)
    open_duel(gamma)

    def sabotage(bot: Bot) -> None:
        if bot.config.board_url == gamma.base_url:

            def explode() -> list[Any]:
                raise RuntimeError("gamma's pass blew up")

            bot.poll = explode  # type: ignore[method-assign]

    serve = serve_for(tmp_path, clock, make_bot=maker(clock, sabotage))
    serve.reload()
    drive(serve, clock, lambda: declarations(alpha, topic) == 1, 120)
    post_turn(alpha, topic)
    drive(serve, clock, lambda: declarations(alpha, topic) == 2, POLL_S + 10)
    gamma_health = serve.club_health("gamma")
    assert gamma_health is not None
    assert gamma_health["state"] == "failing"
    assert "RuntimeError: gamma's pass blew up" in gamma_health["last_error"]
    assert serve.runners["gamma"].passes > 2  # it keeps being retried at its interval
    assert serve.health()["status"] == "ok"  # the process is fine: one club is not


def test_reload_adds_changes_removes_and_refuses_files(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha, beta = boards["alpha"], boards["beta"]
    alpha_file = write_club(tmp_path, "alpha", alpha)
    topics = {"alpha": open_duel(alpha), "beta": open_duel(beta)}
    serve = serve_for(tmp_path, clock)
    serve.reload()
    drive(serve, clock, lambda: declarations(alpha, topics["alpha"]) == 1, 120)

    # added: beta starts, its opening goes out
    write_club(tmp_path, "beta", beta)
    assert serve.reload()["started"] == ["beta"]
    drive(serve, clock, lambda: declarations(beta, topics["beta"]) == 1, 120)

    # an invalid file: refused with its line, the others run on
    bad = tmp_path / "broken.toml"
    bad.write_text('[board]\nurl = "http://x"\nplatform = \n', encoding="utf-8")
    bad.chmod(0o600)
    assert serve.reload()["refused"] == ["broken"]
    refused = serve.health()["refused"]["broken"]
    assert "line 3" in refused["error"] and refused["file"] == str(bad)
    assert serve.club_health("broken")["status"] == "refused"  # type: ignore[index]
    post_turn(alpha, topics["alpha"])
    drive(serve, clock, lambda: declarations(alpha, topics["alpha"]) == 2, POLL_S + 10)

    # changed: only alpha restarts (a new runner), beta keeps its own
    old_alpha, old_beta = serve.runners["alpha"], serve.runners["beta"]
    alpha_file.write_text(
        alpha_file.read_text().replace("publish_interval_s = 5", "publish_interval_s = 6")
    )
    assert serve.reload()["restarted"] == ["alpha"]
    drive(serve, clock, lambda: serve.runners["alpha"] is not old_alpha
          and serve.runners["alpha"].state == "running", 60)  # fmt: skip
    assert old_alpha.closed and serve.runners["beta"] is old_beta
    assert serve.runners["alpha"].config.publish_interval_s == 6
    post_turn(alpha, topics["alpha"])
    drive(serve, clock, lambda: declarations(alpha, topics["alpha"]) == 3, POLL_S + 10)

    # removed: beta stops cleanly: logged out, its database lock released
    (tmp_path / "beta.toml").unlink()
    assert serve.reload()["stopped"] == ["beta"]
    drive(serve, clock, lambda: "beta" not in serve.runners, 30)
    with single_instance(str(tmp_path / "beta.db")):
        pass  # nobody holds it any more
    post_turn(beta, topics["beta"])
    post_turn(alpha, topics["alpha"])
    drive(serve, clock, lambda: declarations(alpha, topics["alpha"]) == 4, POLL_S + 10)
    assert declarations(beta, topics["beta"]) == 1  # nobody referees beta now

    # every declaration on the boards once
    for name, topic in topics.items():
        texts = [p.text for p in boards[name].posts(topic)]
        keys = [t.split("forumbot·", 1)[1].split("·", 1)[0] for t in texts if "forumbot·" in t]
        assert len(keys) == len(set(keys)), f"{name}: a declaration posted twice"
        assert all(sum(marker_text(k) in t for t in texts) == 1 for k in keys)


def test_two_clubs_on_one_database_or_account_are_refused(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha = boards["alpha"]
    write_club(tmp_path, "alpha", alpha)
    twin = write_club(tmp_path, "twin", boards["beta"])
    twin.write_text(twin.read_text().replace('"twin.db"', '"alpha.db"'))
    same_account = write_club(tmp_path, "zeta", alpha)
    serve = serve_for(tmp_path, clock)
    report = serve.reload()
    assert report["started"] == ["alpha"]
    assert sorted(report["refused"]) == ["twin", "zeta"]
    refused = serve.health()["refused"]
    assert "alpha.toml" in refused["twin"]["error"] and "database" in refused["twin"]["error"]
    assert (
        "alpha.toml" in refused["zeta"]["error"] and str(same_account) in refused["zeta"]["error"]
    )
