"""Issue 22, "only a real refusal stops the bot", against the sandbox board (both flavours)
and its outage switch (:mod:`forumbot.sandbox.outages`): a challenge page, a host's 508 or a
maintenance page in front of the login URL (or of every URL) is waited out at start-up (one
warning, one line when it is back, never one per retry) and in the running jobs (the
scheduler keeps running); the bot logs in when the page goes away. A wrong password still
exits 77; a wrong base path says "no board at this address" (exit 78); ``check`` on a config
with a ``[[registration]]`` table logs in once, reads the sign-up thread and sends nothing.
Every wait is on the shared fake clock (:class:`tests.fakes.clock.SandboxClock`).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import forumbot.app
import forumbot.ops.scheduler as scheduler_module
from forumbot import exit_codes
from forumbot.app import Bot, bootstrap
from forumbot.cli import main
from forumbot.config import parse_config
from forumbot.errors import LoginFailed, ServerError, TopicNotFound
from forumbot.ops.scheduler import _guard, run_forever
from forumbot.ops.session import OutageWait
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.forumactif import ForumactifSandbox
from tests.fakes.clock import SandboxClock

Board = SandboxBoard | ForumactifSandbox
PASSWORD = "pw-hibou"


@pytest.fixture
def clock() -> SandboxClock:
    return SandboxClock()


def started(flavour: str, **kwargs: Any) -> Board:
    sandbox: Board = (
        SandboxBoard(flood_interval_s=0, **kwargs)
        if flavour == "phpbb3"
        else ForumactifSandbox(flood_interval_s=0, **kwargs)
    )
    sandbox.add_user("Hibou", PASSWORD, ignore_flood=True)
    sandbox.add_user("Arbitre", "pw")
    sandbox.start()
    return sandbox


@pytest.fixture(params=["phpbb3", "forumactif"])
def board(request: pytest.FixtureRequest, clock: SandboxClock) -> Iterator[Board]:
    """A board on the fake clock the bot's client shares."""
    sandbox = started(str(request.param), clock=clock)
    yield sandbox
    sandbox.stop()


@pytest.fixture(params=["phpbb3", "forumactif"])
def cli_board(request: pytest.FixtureRequest) -> Iterator[Board]:
    """A board on the real clock, for the CLI commands (their client waits for real: the
    form's minimum age of 1.1 s, once)."""
    sandbox = started(str(request.param))
    yield sandbox
    sandbox.stop()


def platform(board: Board) -> str:
    return "phpbb3" if isinstance(board, SandboxBoard) else "forumactif"


def config_text(board: Board, tmp_path: Path, url: str | None = None, extra: str = "") -> str:
    return f"""
[board]
url = "{url or board.base_url}"
platform = "{platform(board)}"
[bot]
username = "Hibou"
[club]
review_delay_s = 0
[storage]
database = "{tmp_path / "bot.db"}"
backup_keep = 0
[[watch]]
forum_id = 3
{extra}"""


def make_bot(board: Board, clock: SandboxClock, tmp_path: Path) -> Bot:
    config = parse_config(config_text(board, tmp_path))
    return bootstrap(
        config, password=PASSWORD, now=clock.utc, sleep=clock.sleep, clock=clock,
        keep_session=False,
    )  # fmt: skip


class NoLoop:
    """Stands in for the scheduler's blocking loop: run_forever's start-up passes run, then
    ``start`` returns at once (the loop itself is APScheduler's)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started = 0
        real = scheduler_module.build_scheduler

        def build(*args: Any, **kwargs: Any) -> Any:
            scheduler = real(*args, **kwargs)
            scheduler.start = self.start  # type: ignore[method-assign]
            return scheduler

        monkeypatch.setattr(scheduler_module, "build_scheduler", build)

    def start(self) -> None:
        self.started += 1


def forumbot_lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("forumbot") and r.levelno >= level
    ]


@pytest.mark.parametrize("kind", ["challenge403", "challenge503", "limit508", "maintenance"])
def test_start_up_waits_out_a_page_in_front_of_the_login_and_logs_in_when_it_goes(
    board: Board,
    clock: SandboxClock,
    tmp_path: Path,
    kind: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    bot = make_bot(board, clock, tmp_path)
    loop = NoLoop(monkeypatch)
    board.start_outage(kind, requests=12)  # two whole login attempts (5 GETs each), then 2
    waits: list[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        clock.sleep(seconds)

    try:
        with caplog.at_level(logging.INFO):
            run_forever(bot, OutageWait(first_s=15, cap_s=600, sleep=wait, clock=clock))
    finally:
        bot.close()
    assert loop.started == 1  # the bot went on to run its jobs
    assert not board.outage_active and board.outage_served == 12
    assert board.login_posts == 1  # the password went to the board once, to its own page
    assert waits == [15.0, 30.0]  # backoff between the start-up attempts
    warnings = forumbot_lines(caplog, logging.WARNING)
    waiting = [w for w in warnings if "not answering as itself" in w]
    back = [w for w in warnings if "the board is back" in w]
    assert len(waiting) == 1 and len(back) == 1, warnings
    assert not [w for w in warnings if "login refused" in w or "password" in w.split("(")[0]]
    assert not [m for m in forumbot_lines(caplog, logging.INFO) if "; retry " in m]


def test_the_running_jobs_survive_an_outage_at_login_and_log_in_after_it(
    board: Board, clock: SandboxClock, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot = make_bot(board, clock, tmp_path)
    try:
        bot.client.login()
        board.expire_sessions()  # the next read finds a guest: the bot logs in again
        board.start_outage("challenge403", every_url=True)

        class Running:
            running = True

            def shutdown(self, wait: bool = True) -> None:
                raise AssertionError("the scheduler must not stop on an outage")

        stopped: list[Exception] = []
        poll = _guard("poll", bot.poll, Running(), stopped)  # type: ignore[arg-type]
        with caplog.at_level(logging.WARNING):
            poll()
            poll()
        assert stopped == [] and board.outage_served >= 10
        assert not [m for m in forumbot_lines(caplog, logging.WARNING) if "login refused" in m]
        board.end_outage()
        poll()
        assert bot.client.is_logged_in() and board.login_posts == 2
    finally:
        bot.close()


@pytest.mark.parametrize("kind", ["maintenance", "challenge403", "limit508"])
def test_a_page_in_front_of_every_url_is_never_an_empty_forum_or_a_missing_topic(
    board: Board, clock: SandboxClock, tmp_path: Path, kind: str
) -> None:
    topic = board.create_topic(3, "Arbitre", "Duel : A contre B", "Bienvenue.")
    bot = make_bot(board, clock, tmp_path)
    try:
        bot.client.login()
        assert [t.topic_id for t in bot.client.list_topics(3)] == [topic]
        board.start_outage(kind, every_url=True)
        for read in (lambda: bot.client.list_topics(3), lambda: bot.client.read_topic(topic, None)):
            with pytest.raises(ServerError) as caught:  # an outage: retried, never "no topic"
                read()
            assert not isinstance(caught.value, TopicNotFound | LoginFailed)
        board.end_outage()
        assert [p.text for p in bot.client.read_topic(topic, None)] == ["Bienvenue."]
    finally:
        bot.close()


def invoke(args: list[str], password: str = PASSWORD) -> Result:
    return CliRunner().invoke(main, args, env={"FORUMBOT_PASSWORD": password})


def write_config(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    os.chmod(path, 0o600)
    return path


def error_line(result: Result) -> str:
    assert "Traceback" not in result.output, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("Error: ")]
    return line


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_wrong_password_still_exits_77(cli_board: Board, tmp_path: Path, command: str) -> None:
    text = config_text(cli_board, tmp_path)  # the pages say French (check speaks it): English
    cfg = write_config(tmp_path / "forumbot.toml", text.replace("[bot]", 'language = "en"\n[bot]'))
    result = invoke([command, "-c", str(cfg)], password="wrong")
    assert result.exit_code == exit_codes.LOGIN_REFUSED, result.output
    assert "login refused" in error_line(result)


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_wrong_base_path_says_no_board_at_this_address(
    cli_board: Board, tmp_path: Path, command: str
) -> None:
    url = cli_board.base_url + "/forum-qui-n-existe-pas"
    cfg = write_config(tmp_path / "forumbot.toml", config_text(cli_board, tmp_path, url=url))
    result = invoke([command, "-c", str(cfg)])
    assert result.exit_code == exit_codes.CONFIG_ERROR, result.output
    line = error_line(result)
    assert "no board at this address" in line and url in line
    assert "password" not in line and "login refused" not in line
    assert cli_board.login_posts == 0


def test_doctor_reports_an_outage_and_a_wrong_path_without_blaming_the_password(
    board: Board, clock: SandboxClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = forumbot.app.make_client

    def make_client(*args: Any, **kwargs: Any) -> Any:  # the real client, on the fake clock
        kwargs.update(sleep=clock.sleep, clock=clock)
        return real(*args, **kwargs)

    def english(text: str) -> str:  # the board's pages say French: doctor would speak it
        return text.replace("[bot]", 'language = "en"\n[bot]', 1)

    monkeypatch.setattr(forumbot.app, "make_client", make_client)
    cfg = write_config(tmp_path / "forumbot.toml", english(config_text(board, tmp_path)))
    board.start_outage("challenge503")
    outage = invoke(["doctor", "-c", str(cfg)])
    assert "[fail] login: board unavailable" in outage.output, outage.output
    assert clock.sleeps[:4] == [1.0, 2.0, 4.0, 8.0]  # retried like any read, then reported
    assert "[fail] login: refused" not in outage.output and board.login_posts == 0
    board.end_outage()
    assert "[  ok] login: logged in as Hibou" in invoke(["doctor", "-c", str(cfg)]).output
    url = board.base_url + "/ailleurs"
    wrong = write_config(tmp_path / "wrong.toml", english(config_text(board, tmp_path, url=url)))
    result = invoke(["doctor", "-c", str(wrong)])
    assert "no board at this address" in result.output
    assert "[fail] login: refused" not in result.output


def test_check_with_sign_ups_logs_in_once_and_sends_nothing(
    clock: SandboxClock, tmp_path: Path
) -> None:
    board = SandboxBoard(flood_interval_s=0)  # the CLI's own clock: real time
    board.add_user("Hibou", PASSWORD, ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne"):
        board.add_user(name, "pw")
    board.start()
    try:
        thread = board.create_topic(
            4, "Arbitre", "Inscriptions : duels en un contre un", "Postez ici votre fiche."
        )
        bad = board.post_reply(
            thread, "Cassius Thorne", "Je m'inscris !\nType de magie : sournoise"
        )
        board.post_reply(
            thread,
            "Aurora Vexley",
            "Nom : Aurora Vexley\nAnnée : 5e année\nType de magie : brutale",
        )
        registration = f"""
[[registration]]
topic_id = {thread}
thread_forum_id = 4
forum_id = 3
kind = "1v1"
ruleset = "fatigue"
"""
        text = config_text(board, tmp_path, extra=registration)  # checked in English
        cfg = write_config(
            tmp_path / "forumbot.toml", text.replace("[bot]", 'language = "en"\n[bot]', 1)
        )
        result = invoke(["check", "-c", str(cfg)])
        assert result.exit_code == 0, result.output
        assert board.login_posts == 1  # one login, with the bot's password; no empty one
        assert f"--- would send: reply to topic {thread} (not sent) ---" in result.output
        assert (
            f"message n° {bad}" in plain(result.output) and "il manque ton année" in result.output
        )
        assert result.output.rstrip().endswith("dry run: nothing was posted")
        hibou = board.user_id("Hibou")
        assert not [p for p in board.posts(thread) if p.poster_id == hibou]
        assert board.pms() == [] and board.topics(3) == []
        assert not Path(tmp_path / "bot.db").exists()
    finally:
        board.stop()
