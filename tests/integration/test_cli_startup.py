"""Issue 13, start-up and configuration: `run`, `check` and `doctor` refuse the same bad
configurations before they touch the board; a refused login, a CAPTCHA or a silent board end
in one line and a documented exit code, never a traceback; the exit codes are documented and
the systemd unit does not restart on the ones a person must fix."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

import forumbot.app
from forumbot import exit_codes
from forumbot.cli import main
from forumbot.config import Config
from forumbot.forums.phpbb import PhpbbClient
from forumbot.sandbox import SandboxBoard

ROOT = Path(__file__).resolve().parents[2]


def invoke(args: list[str], env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, args, env=env)


def one_clean_line(result: Result) -> str:
    """The error line, asserting there is no traceback and it is a single ``Error:`` line."""
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, result.output
    return errors[0]


def write_config(path: Path, url: str, extra: str = "") -> Path:
    assert invoke(["init", str(path)]).exit_code == 0
    text = (  # the sandbox's pages say lang="fr" (check speaks it): checked in English
        path.read_text(encoding="utf-8")
        .replace('url = "http://127.0.0.1:8080"', f'url = "{url}"')
        .replace('language = ""', 'language = "en"', 1)
    )
    path.write_text(text + extra, encoding="utf-8")
    return path


@pytest.fixture()
def board():  # type: ignore[no-untyped-def]
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    board.add_user("Arbitre", "a")
    board.add_user("Aurora Vexley", "a")
    board.add_user("Cassius Thorne", "c")
    board.start()
    board.create_topic(
        3,
        "Arbitre",
        "Duel : Aurora contre Cassius",
        "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
    )
    yield board
    board.stop()


GOOD = {"FORUMBOT_PASSWORD": "pw-hibou"}


@pytest.mark.parametrize("command", ["run", "check", "doctor"])
def test_a_misspelt_setting_is_refused_by_every_command(tmp_path: Path, command: str) -> None:
    cfg = write_config(tmp_path / "forumbot.toml", "http://127.0.0.1:9")
    text = cfg.read_text(encoding="utf-8").replace(
        "review_delay_s = 600", 'review_delay = "manual"'
    )
    cfg.write_text(text, encoding="utf-8")
    result = invoke([command, "-c", str(cfg)], env=GOOD)
    message = "unknown setting club.review_delay; did you mean club.review_delay_s?"
    assert message in result.output
    if command == "doctor":
        assert result.exit_code == exit_codes.FAILURE and "[fail] config" in result.output
    else:
        assert result.exit_code == exit_codes.CONFIG_ERROR
        assert message in one_clean_line(result)


@pytest.mark.parametrize("command", ["run", "check"])
def test_run_and_check_refuse_what_doctor_refuses_before_the_board(
    tmp_path: Path, board: SandboxBoard, command: str
) -> None:
    cfg = write_config(tmp_path / "forumbot.toml", board.base_url)
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace('ruleset = "classic"', 'ruleset = "clasic"'),
        encoding="utf-8",
    )
    result = invoke([command, "-c", str(cfg)], env=GOOD)
    assert result.exit_code == exit_codes.CONFIG_ERROR
    line = one_clean_line(result)
    assert "unknown club.ruleset 'clasic'; did you mean 'classic'?" in line
    assert "nothing posted" not in result.output and "logged in" not in result.output
    doctor = invoke(["doctor", "-c", str(cfg), "--offline"], env=GOOD)
    assert doctor.exit_code == exit_codes.FAILURE
    assert "unknown club.ruleset 'clasic'; did you mean 'classic'?" in doctor.output


def test_a_url_without_scheme_and_a_bad_timezone_are_refused(tmp_path: Path) -> None:
    cfg = write_config(tmp_path / "forumbot.toml", "monforum.example/forum")
    cfg.write_text(
        cfg.read_text(encoding="utf-8").replace("Europe/Paris", "Europe/Pariss"), encoding="utf-8"
    )
    line = one_clean_line(invoke(["check", "-c", str(cfg)], env=GOOD))
    assert "board.url 'monforum.example/forum' must start with http:// or https://" in line
    assert "unknown board.timezone 'Europe/Pariss'" in line


@pytest.mark.parametrize("command", ["run", "check"])
def test_a_wrong_password_is_one_line_and_exit_login_refused(
    tmp_path: Path, board: SandboxBoard, command: str
) -> None:
    cfg = write_config(tmp_path / "forumbot.toml", board.base_url)
    result = invoke([command, "-c", str(cfg)], env={"FORUMBOT_PASSWORD": "wrong"})
    assert result.exit_code == exit_codes.LOGIN_REFUSED, result.output
    line = one_clean_line(result)
    assert "login refused" in line and "SchedulerNotRunning" not in result.output
    assert board.base_url in line


def test_a_captcha_is_one_line_and_exit_login_refused(tmp_path: Path) -> None:
    board = SandboxBoard(flood_interval_s=0, max_login_attempts=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    board.start()
    try:
        cfg = write_config(tmp_path / "forumbot.toml", board.base_url)
        result = invoke(["run", "-c", str(cfg)], env={"FORUMBOT_PASSWORD": "wrong"})
    finally:
        board.stop()
    assert result.exit_code == exit_codes.LOGIN_REFUSED, result.output
    assert "CAPTCHA" in one_clean_line(result)


def test_no_password_is_a_configuration_error(tmp_path: Path, board: SandboxBoard) -> None:
    cfg = write_config(tmp_path / "forumbot.toml", board.base_url)
    result = invoke(["run", "-c", str(cfg)], env={"FORUMBOT_PASSWORD": ""})
    assert result.exit_code == exit_codes.CONFIG_ERROR
    assert "no password" in one_clean_line(result)


def test_an_unreachable_board_is_one_line_and_exit_board_unreachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    def make_client(
        config: Config, password: str, transport: httpx.BaseTransport | None = None, **_: object
    ) -> PhpbbClient:  # the real client, its retries waited on no clock
        return PhpbbClient(
            config.board_url,
            config.username,
            password,
            transport=httpx.MockTransport(refuse),
            sleep=lambda s: None,
        )

    monkeypatch.setattr(forumbot.app, "make_client", make_client)
    cfg = write_config(tmp_path / "forumbot.toml", "http://board.invalid")
    # `run` waits for a board that is down (issue 22); --give-up-after 0 makes it exit 69
    result = invoke(["run", "-c", str(cfg), "--give-up-after", "0"], env=GOOD)
    assert result.exit_code == exit_codes.BOARD_UNREACHABLE, result.output
    line = one_clean_line(result)
    assert "board unreachable" in line and "ConnectError" in line


def test_doctor_never_shows_a_404_as_ok(tmp_path: Path) -> None:
    from forumbot.ops.doctor import doctor

    cfg = write_config(tmp_path / "forumbot.toml", "http://board.test/wrong-path")
    checks = doctor(
        cfg,
        environ=GOOD,
        transport=httpx.MockTransport(lambda request: httpx.Response(404, text="Not Found")),
    )
    board = next(c for c in checks if c.name == "board")
    assert board.failed and "HTTP 404" in board.detail
    assert [c.status for c in checks if c.name in ("clock", "login")] == ["skip", "skip"]


def test_init_into_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    result = invoke(["init", str(tmp_path / "nope" / "forumbot.toml")])
    assert result.exit_code == exit_codes.CONFIG_ERROR
    assert f"folder {tmp_path / 'nope'} does not exist" in one_clean_line(result)


def test_the_exit_codes_are_documented_and_the_unit_matches() -> None:
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for name, code in exit_codes.EXIT_CODES.items():
        assert re.search(rf"^\| {code} \| `{name}` \|", operations, re.M), name
    unit = (ROOT / "deploy" / "forumbot.service").read_text(encoding="utf-8")
    found = re.search(r"^RestartPreventExitStatus=(.*)$", unit, re.M)
    assert found is not None
    assert sorted(int(c) for c in found.group(1).split()) == sorted(exit_codes.NO_RESTART)
    assert "exit 0 on purpose" not in unit and "exit code 0" not in operations


def test_library_errors_have_one_handler() -> None:
    """No command module catches a library error to re-raise it by hand: the group's handler
    (forumbot/cli/_common.py, ``cli_error``) does, once."""
    modules = [m for m in (ROOT / "forumbot" / "cli").glob("*.py") if m.name != "_common.py"]
    assert len(modules) >= 7
    for module in modules:
        text = module.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 600, module.name
        for name in ("ConfigError", "OverrideError", "UserError", "BackupError", "LoginFailed"):
            assert not re.search(rf"except \(?[^:]*\b{name}\b", text), (module.name, name)
