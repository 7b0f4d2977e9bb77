"""Bad files fail cleanly (issue 24 F13, F14): a configuration or ruleset that cannot be read
gives one line and exit code 78, no traceback; ``simulate --duels`` is bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.config.files import MAX_TOML_BYTES

BASE = '[board]\nurl = "https://board.test/forum"\n[bot]\nusername = "Hibou"\n'


def _one_line_78(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 78, result.output
    assert result.exc_info is None or result.exc_info[0] is SystemExit
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (BASE.encode("utf-8") + b'[club]\nreferee_name = "Fran\xe7ois"\n', "not UTF-8 (byte"),
        (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b"a = " + b"[" * 40 + b"]" * 40 + b"\n", "nested too deeply (limit 32"),
        (b"x" * (MAX_TOML_BYTES + 1), "larger than"),
        (b"[board\n", "invalid TOML"),
    ],
    ids=["latin-1", "deep-5000", "deep-40", "too-big", "bad-toml"],
)
def test_a_bad_config_is_one_line_and_exit_78(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "forumbot.toml"
    path.write_bytes(content)
    path.chmod(0o600)
    line = _one_line_78(["check", "-c", str(path)])
    assert message in line and str(path) in line


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"a = " + b"{b = " * 5000 + b"1" + b"}" * 5000 + b"\n", "nested too deeply"),
        (b'name = "caf\xe9"\n', "not UTF-8"),
    ],
    ids=["deep-5000", "latin-1"],
)
def test_simulate_reads_rulesets_with_the_same_limits(
    tmp_path: Path, content: bytes, message: str
) -> None:
    path = tmp_path / "mine.toml"
    path.write_bytes(content)
    line = _one_line_78(["simulate", "--ruleset", str(path), "--duels", "98"])
    assert line.startswith(f"Error: ruleset {path}:") and message in line


def test_simulate_duels_are_bounded_with_an_estimate() -> None:
    result = CliRunner().invoke(main, ["simulate", "--duels", str(10**20)])
    assert result.exit_code == 2, result.output
    assert "--duels 100000000000000000000 is above --max-duels 1000000" in result.output
    assert "it would take about" in result.output
    low = CliRunner().invoke(main, ["simulate", "--duels", "200", "--max-duels", "100"])
    assert low.exit_code == 2 and "above --max-duels 100:" in low.output
    ceiling = CliRunner().invoke(main, ["simulate", "--max-duels", str(10**12)])
    assert ceiling.exit_code == 2  # the cap itself is capped
