"""Under Docker (no RestartPreventExitStatus) a refused login or a bad configuration holds the
process instead of exiting into a restart loop (FORUMBOT_HOLD_ON_FATAL=1, deploy/compose.yaml)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from forumbot import exit_codes


def test_a_bad_configuration_holds_until_stopped_then_exits_78(tmp_path: Path) -> None:
    config = tmp_path / "forumbot.toml"
    config.write_text('[club]\nreview_delay = "manual"\n', encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "forumbot", "run", "-c", str(config)],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "FORUMBOT_HOLD_ON_FATAL": "1"},
    )
    assert proc.stderr is not None
    lines = []
    deadline = time.monotonic() + 60  # a condition with a generous deadline, not a sleep
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if "holding instead of restarting" in line:
            break
    assert proc.poll() is None, "".join(lines)  # still there: not exited into a restart
    assert any("did you mean club.review_delay_s" in line for line in lines), lines
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == exit_codes.CONFIG_ERROR


def test_without_the_setting_it_exits_at_once(tmp_path: Path) -> None:
    config = tmp_path / "forumbot.toml"
    config.write_text('[club]\nreview_delay = "manual"\n', encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "FORUMBOT_HOLD_ON_FATAL"}
    result = subprocess.run(
        [sys.executable, "-m", "forumbot", "run", "-c", str(config)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert result.returncode == exit_codes.CONFIG_ERROR
    assert "Traceback" not in result.stderr
