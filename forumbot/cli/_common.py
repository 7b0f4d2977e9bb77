"""What every command module shares: the ``-c`` option, loading the configuration and the
database, the acting person, the one error handler (:func:`cli_error`) and the commands' words
in the board's language (:func:`_`, through :mod:`forumbot.i18n`'s catalogue)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import click

from forumbot import exit_codes
from forumbot.i18n import N_

if TYPE_CHECKING:
    from forumbot.config import Config
    from forumbot.storage import Storage

DEFAULT_CONFIG = "forumbot.toml"

def _speak_as_configured(ctx: click.Context, param: click.Parameter, value: str) -> str:
    set_language(peek_language(value))  # before the command checks its arguments
    return value


config_option = click.option(
    "-c",
    "--config",
    "config_path",
    default=DEFAULT_CONFIG,
    show_default=True,
    callback=_speak_as_configured,
)
"""``-c/--config PATH`` (default ``forumbot.toml``); the command speaks the file's
``board.language`` from then on (:func:`current_language`)."""

_BOARD_KEY = "forumbot.board_url"
_LANGUAGE_KEY = "forumbot.language"


WORDS = (
    # statuses, kinds and roles the commands print through ``_`` (forumbot.i18n's catalogue)
    N_("draft"), N_("approved"), N_("held"), N_("publishing"), N_("published"),
    N_("cancelled"), N_("redraft"), N_("queued"), N_("open"), N_("running"), N_("finished"),
    N_("ignored"), N_("opening"), N_("turn"), N_("closure"), N_("erratum"), N_("notice"),
    N_("admin"), N_("referee"), N_("off"), N_("unsupported"), N_("failed"), N_("drafted"),
    N_("waiting"), N_("edited"), N_("unchanged"), N_("duel"), N_("topic"),
)
"""Words the commands translate from data (a status, a kind): listed for ``pybabel extract``."""

def current_language() -> str:
    """The language of the command's words: ``board.language`` of the configuration the
    command read (``"fr"`` or ``"en"``), English before one is read or when none is known."""
    from forumbot.i18n import SOURCE_LANGUAGE

    ctx = click.get_current_context(silent=True)
    found = ctx.find_root().meta.get(_LANGUAGE_KEY) if ctx is not None else None
    return str(found) if found else SOURCE_LANGUAGE


def set_language(value: str | None) -> None:
    """Speak ``value`` (a ``board.language``, see :func:`forumbot.i18n.staff_language`) for the
    rest of the command."""
    from forumbot.i18n import staff_language

    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.find_root().meta[_LANGUAGE_KEY] = staff_language(value)


def board_language(config: Config) -> str | None:
    """The staff's language for ``config``: ``board.language`` when set, else the language
    the board's pages said, recorded in the database by ``doctor``, ``check`` or the first
    poll (:func:`forumbot.storage.recorded_board_language`), else None (English)."""
    from forumbot.storage import recorded_board_language

    if config.board_language:
        return config.board_language
    return recorded_board_language(config.database, config.board_url)


def _(message: str, *args: object) -> str:
    """``message`` (English, ``%s`` filled by ``args``) in the command's :func:`language`."""
    from forumbot.i18n import translate

    return translate(current_language(), message, *args)


def ngettext(singular: str, plural: str, n: int, *args: object) -> str:
    """The form of ``singular``/``plural`` (English, ``%s`` filled by ``args``) for the
    count ``n`` in the command's :func:`language` (« 1 brouillon annulé », « 2 brouillons
    annulés »; newcomer6 C7: « brouillon(s) annulé(s) »). Named for ``pybabel extract``."""
    from forumbot.i18n import Plural, translate

    return translate(current_language(), Plural(singular, plural, n), *args)


def peek_language(config_path: str) -> str | None:
    """``board.language`` read straight from the file, for an error met before the
    configuration could be parsed; when the file sets none, the language the board's pages
    said, recorded in the database the file names (:func:`board_language`). None when the
    file cannot be read or nothing is known."""
    import tomllib
    from pathlib import Path

    if not Path(config_path).is_file():  # the default file absent: nothing to import
        return None
    from forumbot.config.files import read_limited

    try:  # the configuration's own caps (size, encoding, depth: issue 24 F13)
        parsed = tomllib.loads(read_limited(config_path, "configuration"))
    except (OSError, ValueError, RecursionError):  # TomlLimitError, TOMLDecodeError
        return None
    board, storage = parsed.get("board", {}), parsed.get("storage", {})
    if not isinstance(board, dict) or not isinstance(storage, dict):
        return None
    value = board.get("language")
    if isinstance(value, str) and value:
        return value
    url, database = board.get("url"), storage.get("database", "forumbot.db")
    storage_url = storage.get("url") or None
    if not isinstance(url, str) or not isinstance(database, str):
        return None
    if storage_url is not None and not isinstance(storage_url, str):
        return None
    from forumbot.config import ConfigError
    from forumbot.config.storage_url import resolve_database

    try:  # as the configuration resolves it: a PostgreSQL URL is never made a path
        database = resolve_database(database, storage_url, Path(config_path).resolve().parent)
    except ConfigError:
        return None
    from forumbot.storage import recorded_board_language

    return recorded_board_language(database, url.rstrip("/"))


class CliError(click.ClickException):
    """One line on standard error (``Error: ...``, « Erreur : ... » in French) and a documented
    exit code (:mod:`forumbot.exit_codes`).

    ``language``: the language ``message`` is written in (default: the command's); the
    « Error: » before it is in that language too. Build one with :func:`error` when a part of
    the message is a library's error text."""

    def __init__(
        self, message: str, exit_code: int = exit_codes.FAILURE, language: str | None = None
    ) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.language = language or current_language()  # shown after the command's context

    def show(self, file: Any = None) -> None:
        """Print ``Error: <message>`` in the message's language on standard error."""
        from forumbot.i18n import translate

        words = translate(self.language, "Error: %s", self.format_message())
        click.echo(words, file=file, err=file is None)


class LibraryText(str):
    """A library's English text given to :func:`error` or :func:`warn` as a value (as an
    exception would be): translated by :func:`forumbot.i18n.translate_detail`, or the whole
    line is English."""


def one_language(message: str, *args: object) -> tuple[str, str]:
    """``message`` (English, ``%s`` filled by ``args``) and the language it is written in: the
    command's, unless an ``args`` item that is an exception or a :class:`LibraryText` (a
    library's English text) is not in the catalogue (:func:`forumbot.i18n.translate_detail`):
    then all of it in English, so one line never mixes two languages.

    Returns:
        ``(text, language)``: ``language`` ``"fr"`` or ``"en"``.
    """
    from forumbot.i18n import SOURCE_LANGUAGE, translate, translate_detail

    def library(a: object) -> bool:
        return isinstance(a, BaseException | LibraryText)

    speak = current_language()
    details = [translate_detail(speak, str(a)) if library(a) else a for a in args]
    if speak != SOURCE_LANGUAGE and all(d is not None for d in details):
        return translate(speak, message, *details), speak
    english = tuple(str(a) if library(a) else a for a in args)
    return (message % english if english else message), SOURCE_LANGUAGE


def error(message: str, *args: object, code: int = exit_codes.FAILURE) -> CliError:
    """A :class:`CliError` of ``message`` (English, ``%s`` filled by ``args``) in the command's
    language, never half and half (:func:`one_language`): an ``args`` item that is an
    exception stands for a library's English text; when one is not in the catalogue, the
    whole error is written in English (the message and its « Error: »)."""
    text, language = one_language(message, *args)
    return CliError(text, code, language)


def warn(message: str, *args: object) -> None:
    """Print a warning line on standard error, in one language (:func:`one_language`)."""
    text, _language = one_language(message, *args)
    click.echo(text, err=True)


def load(config_path: str, *, validate: bool = False) -> Config:
    """The parsed configuration; with ``validate``, also
    :func:`forumbot.ops.validate.validate_config` (ruleset, timezone, URL: what ``check`` and
    ``run`` need before they touch the board).

    Raises:
        ConfigError: reported by :func:`cli_error` (exit ``CONFIG_ERROR``).
    """
    from forumbot.config import load_config
    from forumbot.ops.validate import validate_config

    set_language(peek_language(config_path))  # a refused file is reported in its language too
    config = load_config(config_path)
    set_language(board_language(config))
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
        return error("%s; fix board.url (the address the board's index page is at)", exc, code=code)
    if isinstance(exc, CaptchaRequired):
        return error(
            "%slogin refused: the board asks for a CAPTCHA (%s); log in once in a browser, then "
            "start again (the bot does not send the password again)",
            board, exc, code=code,
        )  # fmt: skip
    if isinstance(exc, LoginFailed):
        reason = exc.reason.rstrip(". ")  # the board's own words, in its language
        if exc.kind == "banned":
            return error(
                "%slogin refused: the board says the bot's account is banned («%s»); ask the "
                "board's administrators to restore it (the password is not the cause)",
                board, reason, code=code,
            )  # fmt: skip
        if exc.kind == "inactive":
            return error(
                "%slogin refused: the board says the bot's account is inactive («%s»); ask "
                "the board's administrators to restore its activation (the password is not "
                "the cause)",
                board, reason, code=code,
            )  # fmt: skip
        return error(
            "%slogin refused: %s; fix the bot's password (bot.password_env or "
            "bot.password_file) and bot.username",
            board, reason, code=code,
        )  # fmt: skip
    if code == exit_codes.BOARD_UNREACHABLE:
        return error("%sboard unreachable: %s: %s", board, type(exc).__name__, exc, code=code)
    if code in (exit_codes.CONFIG_ERROR, exit_codes.ALREADY_RUNNING):
        return error("%s", exc, code=code)
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        return error("%s: %s", exc.filename, Detail(exc.strerror), code=code)
    from forumbot.errors import ForumError

    if isinstance(exc, ForumError):
        return error("%s%s: %s", board, type(exc).__name__, exc, code=code)
    if not str(exc):
        return error("%s", type(exc).__name__, code=code)
    return error("%s", exc, code=code)


class Detail(Exception):
    """A piece of a library's or the board's English text put in a message
    (:func:`error` translates it, or writes the whole error in English)."""


class ForumbotGroup(click.Group):
    """The top group: turns the library errors any command lets through into one clean
    line and an exit code (:func:`cli_error`), so commands never catch them one by one.

    Its commands are imported lazily: ``lazy_commands`` maps a command's name to the module
    of :mod:`forumbot.cli` whose ``COMMANDS`` tuple holds it, imported the first time the
    command is looked up (when it runs, or when ``--help`` lists it with its help);
    ``lazy_subcommands`` maps a group's name to the (module, attribute) of the commands other
    modules add to it.

    Raises (on lookup): LookupError when a module's ``COMMANDS`` lacks the name the table
    gives it (a programming error, caught by tests/unit/test_cli_lazy.py)."""

    def __init__(
        self,
        *args: Any,
        lazy_commands: dict[str, str] | None = None,
        lazy_subcommands: dict[str, tuple[tuple[str, str], ...]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, sorted, without importing any command module."""
        return sorted({*self.commands, *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, its module imported now if it was not (None: unknown)."""
        if cmd_name not in self.commands and cmd_name in self.lazy_commands:
            self.add_command(self._import(cmd_name))
        return super().get_command(ctx, cmd_name)

    def _import(self, name: str) -> click.Command:
        from importlib import import_module

        module = import_module(f"forumbot.cli.{self.lazy_commands[name]}")
        found = [command for command in module.COMMANDS if command.name == name]
        if not found:
            raise LookupError(f"forumbot.cli.{self.lazy_commands[name]} has no command {name!r}")
        command = found[0]
        if isinstance(command, click.Group):
            for module_name, attribute in self.lazy_subcommands.get(name, ()):
                extra = import_module(f"forumbot.cli.{module_name}")
                command.add_command(getattr(extra, attribute))
        return command  # type: ignore[no-any-return]

    def invoke(self, ctx: click.Context) -> Any:
        try:
            try:
                return super().invoke(ctx)
            except (click.ClickException, click.exceptions.Exit):
                raise  # Exit: --help, --version (no library error to look up)
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
        _(
            "forumbot: exit code %s needs a person: holding instead of restarting (fix it, "
            "then restart the container)",
            error.exit_code,
        ),
        err=True,
    )
    stop.wait()
