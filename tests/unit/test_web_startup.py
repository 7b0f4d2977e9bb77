"""Issue 14: ``web.https_only`` / ``web.trusted_proxies`` reach the app, a config or password
file that others may write is refused, ``run`` and ``web`` check the clock at start-up, and
``-v`` logs never show cookies or session ids."""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.config import EXAMPLE_CONFIG, ConfigError, load_config, parse_config
from forumbot.ops.startup import ClockSkewError, RedactSecrets, check_clock, quiet_logs, redact

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def board_at(when: datetime | None) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"date": format_datetime(when, usegmt=True)} if when else {}
        return httpx.Response(200, headers=headers, text="<html></html>")

    return httpx.MockTransport(handler)


# -- settings ---------------------------------------------------------------------------------
def test_web_settings_default_and_parsed() -> None:
    default = parse_config(EXAMPLE_CONFIG)
    assert default.web_https_only is False and default.web_trusted_proxies == ()
    text = EXAMPLE_CONFIG.replace("https_only = false", "https_only = true").replace(
        "trusted_proxies = []", 'trusted_proxies = ["127.0.0.1", "10.0.0.0/8"]'
    )
    config = parse_config(text)
    assert config.web_https_only is True
    assert config.web_trusted_proxies == ("127.0.0.1", "10.0.0.0/8")
    with pytest.raises(ConfigError, match="web.trusted_proxies"):
        parse_config(EXAMPLE_CONFIG.replace("trusted_proxies = []", 'trusted_proxies = ["*"]'))
    with pytest.raises(ConfigError, match="web.https_only"):
        parse_config(EXAMPLE_CONFIG.replace("https_only = false", 'https_only = "yes"'))


def test_serve_passes_the_settings_to_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    from forumbot.web import serve as serve_module

    text = EXAMPLE_CONFIG.replace("https_only = false", "https_only = true").replace(
        "trusted_proxies = []", 'trusted_proxies = ["127.0.0.1"]'
    )
    config = parse_config(text, base_dir=tmp_path)
    seen: dict[str, object] = {}

    def fake_run(self: uvicorn.Server) -> None:
        seen["config"] = self.config
        self.started = True  # as a server that listened, then stopped

    monkeypatch.setattr(uvicorn.Server, "run", fake_run)
    serve_module.serve(config)
    uv = seen["config"]
    assert isinstance(uv, uvicorn.Config)
    assert uv.proxy_headers is False and uv.host == "127.0.0.1"
    app = uv.app
    kinds = [m.cls.__name__ for m in app.user_middleware]  # type: ignore[attr-defined]
    assert kinds[0] == "ProxyHeadersMiddleware"
    session = next(m for m in app.user_middleware if m.cls.__name__ == "SessionMiddleware")  # type: ignore[attr-defined]
    assert session.kwargs["https_only"] is True
    assert app.user_middleware[0].kwargs["trusted_hosts"] == ["127.0.0.1"]  # type: ignore[attr-defined]


# -- file permissions -------------------------------------------------------------------------
def test_config_writable_by_others_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "forumbot.toml"
    path.write_text(EXAMPLE_CONFIG, encoding="utf-8")
    os.chmod(path, 0o644)
    assert load_config(path).board_url
    os.chmod(path, 0o666)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    assert "writable by other users (mode 0666)" in message and f"chmod o-w {path}" in message
    r = CliRunner().invoke(main, ["web", "-c", str(path)])
    assert r.exit_code == 78 and "writable by other users"  # CONFIG_ERROR in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_password_file_writable_by_others_is_refused(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("s3cret\n", encoding="utf-8")
    os.chmod(secret, 0o600)
    config = parse_config(
        EXAMPLE_CONFIG.replace('password_file = ""', 'password_file = "password"'),
        base_dir=tmp_path,
    )
    assert config.password({}) == "s3cret"
    os.chmod(secret, 0o622)
    with pytest.raises(ConfigError, match=r"bot.password_file .*writable by other users"):
        config.password({})


# -- clock at start-up ------------------------------------------------------------------------
def test_clock_check_passes_within_the_limit() -> None:
    config = parse_config(EXAMPLE_CONFIG)
    report = check_clock(config, transport=board_at(NOW - timedelta(seconds=30)), now=lambda: NOW)
    assert report.skew_s == 30


@pytest.mark.parametrize("jump_s", [2 * 3600, -600])
def test_clock_jump_refuses_the_start(jump_s: int) -> None:
    config = parse_config(EXAMPLE_CONFIG)
    with pytest.raises(ClockSkewError) as info:
        check_clock(config, transport=board_at(NOW), now=lambda: NOW + timedelta(seconds=jump_s))
    assert info.value.skew_s == jump_s
    assert "refusing to start" in str(info.value) and "NTP" in str(info.value)


def test_clock_not_compared_when_the_board_is_silent() -> None:
    config = parse_config(EXAMPLE_CONFIG)
    assert check_clock(config, transport=board_at(None), now=lambda: NOW).skew_s is None

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    report = check_clock(config, transport=httpx.MockTransport(down), now=lambda: NOW)
    assert report.skew_s is None and "unreachable" in report.note


@pytest.mark.parametrize("command", ["run", "web"])
def test_run_and_web_check_the_clock_first(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both commands stop with the clock message before touching the board or the page."""
    path = tmp_path / "forumbot.toml"
    path.write_text(EXAMPLE_CONFIG, encoding="utf-8")
    called: list[str] = []

    def skewed(config: object, **kwargs: object) -> None:
        called.append(command)
        raise ClockSkewError(7200.0, 120.0)

    monkeypatch.setattr("forumbot.ops.startup.check_clock", skewed)
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw")  # a missing password is found even earlier
    r = CliRunner().invoke(main, [command, "-c", str(path)])
    assert called == [command]
    assert r.exit_code == 1 and "local clock 7200 s ahead of the board" in r.output


# -- quiet logs -------------------------------------------------------------------------------
HTTPCORE_LINE = (
    "receive_response_headers.complete return_value=(b'HTTP/1.1', 302, b'Found', "
    "[(b'Set-Cookie', b'phpbb3_x_sid=0123456789abcdef0123456789abcdef; path=/; HttpOnly'), "
    "(b'Location', b'./index.php?sid=0123456789abcdef0123456789abcdef')])"
)


def test_redact_hides_cookies_and_sids() -> None:
    cleaned = redact(HTTPCORE_LINE)
    assert "0123456789abcdef" not in cleaned and "[redacted]" in cleaned
    assert "Set-Cookie" in cleaned and "Location" in cleaned
    assert "forumbot_session=[redacted]" in redact("cookie forumbot_session=eyJ.abc.def")


def test_verbose_logs_never_show_the_sid(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    handler = logging.StreamHandler()
    root.addHandler(handler)
    old_level = root.level
    try:
        root.setLevel(logging.DEBUG)
        quiet_logs()
        assert any(isinstance(f, RedactSecrets) for f in handler.filters)
        assert logging.getLogger("httpcore").getEffectiveLevel() == logging.WARNING
        logging.getLogger("httpcore.http11").debug(HTTPCORE_LINE)  # dropped by level
        logging.getLogger("forumbot.fetch").debug("%s", HTTPCORE_LINE)  # redacted
        err = capsys.readouterr().err
        assert "0123456789abcdef" not in err and "[redacted]" in err
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
