"""``forumbot serve`` and ``forumbot doctor --all --boards DIR`` as a host runs them (issue 27):
the real command in a subprocess against a sandbox board on 127.0.0.1, SIGHUP, ``/healthz``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board

ROOT = Path(__file__).resolve().parents[2]

CLUB = """\
[board]
url = "{url}"
platform = "phpbb3"
[bot]
username = "{bot}"
password_env = "FORUMBOT_SERVE_CLI_PASSWORD"
[club]
review_delay_s = 0
[poll]
poll_interval_s = 1
publish_interval_s = 1
flood_interval_s = 0
[storage]
database = "{name}.db"
backup_keep = 0
[[watch]]
forum_id = {forum}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    path.chmod(0o600)
    return path


def test_doctor_all_reports_every_club(tmp_path: Path) -> None:
    write(tmp_path, "alpha", CLUB.format(url="http://127.0.0.1:9", bot=BOT, name="alpha", forum=3))
    write(tmp_path, "twin", CLUB.format(url="http://127.0.0.1:9", bot=BOT, name="twin", forum=3))
    write(tmp_path, "broken", '[board]\nurl = "http://x"\nplatform = \n')
    result = CliRunner().invoke(
        main,
        ["doctor", "--all", "--boards", str(tmp_path), "--offline"],
        env={"FORUMBOT_SERVE_CLI_PASSWORD": "x"},
    )
    assert result.exit_code == 1, result.output
    out = result.output
    assert f"== club alpha ({tmp_path / 'alpha.toml'}): ok" in out
    assert "== club broken" in out and "line 3, column" in out
    assert "== club twin" in out and "[fail] sharing:" in out and "alpha.toml" in out
    usage = CliRunner().invoke(main, ["doctor", "--all"])
    assert usage.exit_code == 2 and "--boards" in usage.output


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: Callable[[], Any], timeout_s: float = 30.0) -> Any:
    """Poll ``what()`` until it gives something true (a real process: its own real time)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = what()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError("timed out")


def healthz(port: int, path: str = "/healthz") -> tuple[int, dict[str, Any]] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError:
        return None


def test_serve_runs_clubs_reloads_on_sighup_and_reports_health(tmp_path: Path) -> None:
    boards = [make_demo_board("phpbb3", flood_interval_s=0) for _ in range(2)]
    urls = [b.start() for b in boards]
    folder = tmp_path / "boards"
    folder.mkdir()
    write(folder, "alpha", CLUB.format(url=urls[0], bot=BOT, name="alpha", forum=DUEL_FORUM))
    port = free_port()
    env = {**os.environ, "FORUMBOT_SERVE_CLI_PASSWORD": BOT_PASSWORD, "PYTHONPATH": str(ROOT)}
    with open(tmp_path / "serve.log", "wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "forumbot",
                "serve",
                "--boards",
                str(folder),
                "--health-port",
                str(port),
                "--workers",
                "2",
            ],  # fmt: skip
            env=env,
            stderr=err,
            stdout=subprocess.DEVNULL,
        )
    try:
        first = wait_for(lambda: (h := healthz(port)) and h[1]["clubs"].get("alpha", {}).get(
            "last_poll_at") and h)  # fmt: skip
        assert first[0] == 200 and first[1]["clubs"]["alpha"]["state"] == "running"
        write(folder, "beta", CLUB.format(url=urls[1], bot=BOT, name="beta", forum=DUEL_FORUM))
        write(folder, "broken", "[board]\nurl = \n")
        proc.send_signal(signal.SIGHUP)
        second = wait_for(lambda: (h := healthz(port)) and h[1]["clubs"].get("beta", {}).get(
            "last_poll_at") and h)  # fmt: skip
        assert "line 2" in second[1]["refused"]["broken"]["error"]
        assert second[1]["clubs"]["alpha"]["state"] == "running"
        one = healthz(port, "/healthz/beta")
        assert one is not None and one[0] == 200 and one[1]["state"] == "running"
        missing = healthz(port, "/healthz/broken")
        assert missing is not None and missing[0] == 503 and missing[1]["status"] == "refused"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for board in boards:
            board.stop()
    log = (tmp_path / "serve.log").read_text()
    assert "[alpha] forumbot.ops.serve: club started" in log
    assert "[beta] forumbot.ops.serve: club started" in log
    assert "[broken] forumbot.ops.serve: club file refused" in log
    assert "forumbot serve stopped" in log


def test_the_serve_unit_runs_a_command_that_parses() -> None:
    import shlex

    import click

    unit = (ROOT / "deploy" / "forumbot-serve.service").read_text(encoding="utf-8")
    lines = dict(
        line.split("=", 1)
        for line in unit.splitlines()
        if line.startswith(("ExecStart=", "ExecReload="))
    )
    args = shlex.split(lines["ExecStart"])
    assert args[1] == "serve" and "--boards" in args
    command = main.get_command(click.Context(main), "serve")
    assert command is not None
    ctx = command.make_context("serve", args[2:])  # parsed, not run
    assert ctx.params["boards_dir"] == "/etc/forumbot/clubs" and ctx.params["health_port"] == 8081
    assert lines["ExecReload"] == "/bin/kill -HUP $MAINPID"  # reload = SIGHUP
    pre = shlex.split(unit.split("ExecStartPre=", 1)[1].splitlines()[0])
    assert pre[0].startswith("-") and pre[1:3] == ["doctor", "--all"]  # never blocks the start
