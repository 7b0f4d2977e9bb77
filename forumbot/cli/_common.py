"""What every command module shares: the ``-c`` option, loading the configuration and the
database, the acting person, and the one error handler (:func:`cli_error`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from forumbot import exit_codes

if TYPE_CHECKING:
    from forumbot.config import Config
    from forumbot.storage import Storage

DEFAULT_CONFIG = "forumbot.toml"

config_option = click.option(
    "-c", "--config", "config_path", default=DEFAULT_CONFIG, show_default=True
)
"""``-c/--config PATH`` (default ``forumbot.toml``)."""

_BOARD_KEY = "forumbot.board_url"


class CliError(click.ClickException):
    """One line on standard error (``Error: ...``) and a documented exit code
    (:mod:`forumbot.exit_codes`)."""

    def __init__(self, message: str, exit_code: int = exit_codes.FAILURE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def load(config_path: str, *, validate: bool = False) -> Config:
    """The parsed configuration; with ``validate``, also
    :func:`forumbot.ops.validate.validate_config` (ruleset, timezone, URL: what ``check`` and
    ``run`` need before they touch the board).

    Raises:
        ConfigError: reported by :func:`cli_error` (exit ``CONFIG_ERROR``).
    """
    from forumbot.config import load_config
    from forumbot.ops.validate import validate_config

    config = load_config(config_path)
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[_BOARD_KEY] = config.board_url
    return validate_config(config) if validate else config


def storage_for(config_path: str) -> Storage:
    """The database named by the configuration (opened, migrations applied)."""
    from forumbot.storage import open_storage

    return open_storage(load(config_path).database)


def actor(by: str | None) -> str:
    """Who acts, for the audit log: ``--by``, else ``$USER``, else ``"referee"``."""
    return by or os.environ.get("USER") or "referee"


def cli_error(exc: BaseException, board_url: str | None = None) -> CliError | None:
    """The one-line report of a library error, or None when it is not one the CLI knows
    (then it keeps its traceback: a bug to report).

    Start-up errors get their own exit code and a line that says what to do.
    """
    code = exit_codes.exit_code_for(exc)
    if code is None:
        return None
    from forumbot.errors import BoardNotFound, CaptchaRequired, LoginFailed

    board = f"{board_url}: " if board_url else ""
    if isinstance(exc, BoardNotFound):
        message = f"{exc}; fix board.url (the address the board's index page is at)"
    elif isinstance(exc, CaptchaRequired):
        message = (
            f"{board}login refused: the board asks for a CAPTCHA ({exc}); log in once in a "
            "browser, then start again (the bot does not send the password again)"
        )
    elif isinstance(exc, LoginFailed) and exc.kind in ("banned", "inactive"):
        message = (
            f"{board}login refused: the board says the bot's account is {exc.kind} "
            f"(«{exc.reason.rstrip('. ')}»); ask the board's administrators to restore "
            f"{'it' if exc.kind == 'banned' else 'its activation'} (the password is not the cause)"
        )
    elif isinstance(exc, LoginFailed):
        message = (
            f"{board}login refused: {exc.reason.rstrip('. ')}; fix the bot's password "
            "(bot.password_env or bot.password_file) and bot.username"
        )
    elif code == exit_codes.BOARD_UNREACHABLE:
        message = f"{board}board unreachable: {type(exc).__name__}: {exc}"
    elif code in (exit_codes.CONFIG_ERROR, exit_codes.ALREADY_RUNNING):
        message = str(exc)
    elif isinstance(exc, OSError):
        message = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else str(exc)
    else:
        message = str(exc) or type(exc).__name__
        from forumbot.errors import ForumError

        if isinstance(exc, ForumError):
            message = f"{board}{type(exc).__name__}: {message}"
    return CliError(message, code)


class ForumbotGroup(click.Group):
    """The top group: turns the library errors any command lets through into one clean
    line and an exit code (:func:`cli_error`), so commands never catch them one by one."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            except click.ClickException:
                raise
            except Exception as exc:
                error = cli_error(exc, ctx.meta.get(_BOARD_KEY))
                if error is None:
                    raise
                raise error from exc
        except click.ClickException as error:
            if error.exit_code in exit_codes.NO_RESTART and os.environ.get(HOLD_ENV) == "1":
                hold_instead_of_exit(error)
            raise


HOLD_ENV = "FORUMBOT_HOLD_ON_FATAL"
"""Set to ``1`` where the supervisor cannot be told not to restart (Docker's ``restart:`` has
no ``RestartPreventExitStatus``): a refused login or a bad configuration then holds the
process, idle, until it is stopped, instead of exiting into a restart loop that would retry
the password again and again (deploy/compose.yaml sets it)."""


def hold_instead_of_exit(error: click.ClickException) -> None:
    """Print ``error`` once, then wait for SIGTERM/SIGINT; the caller then exits with the
    error's code as usual."""
    import signal
    import threading

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):  # before the lines below: a stop may follow them
        signal.signal(sig, lambda *_: stop.set())
    error.show()
    click.echo(
        f"forumbot: exit code {error.exit_code} needs a person: holding instead of restarting "
        "(fix it, then restart the container)",
        err=True,
    )
    stop.wait()
