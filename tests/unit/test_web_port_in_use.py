"""``forumbot web`` on a port already in use ends in one line and a non-zero exit code (found by
a newcomer: it printed uvicorn's error and exited 0, which systemd reads as a clean stop)."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from forumbot.cli import main
from forumbot.config import EXAMPLE_CONFIG


def test_a_port_in_use_is_an_error(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("forumbot.ops.startup.check_clock", lambda config, **kw: None)
    monkeypatch.setenv("FORUMBOT_WEB_SECRET", "x" * 40)
    config = tmp_path / "forumbot.toml"
    config.write_text(EXAMPLE_CONFIG.replace('database = "forumbot.db"', 'database = "bot.db"'))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(main, ["web", "-c", str(config), "--port", str(port)])
    assert result.exit_code != 0, result.output
    assert "could not listen on 127.0.0.1" in result.output
