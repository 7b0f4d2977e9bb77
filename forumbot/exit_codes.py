"""The exit codes of the ``forumbot`` command, defined once (docs/operations.md lists them;
``deploy/forumbot.service`` sets ``RestartPreventExitStatus`` from them).

The values follow BSD ``sysexits.h`` where one fits, so systemd and shell scripts can tell a
problem to fix by hand (no restart) from one that may go away (restart later):

======  =====================  ===========================================================
code    name                   meaning
======  =====================  ===========================================================
0       OK                     done
1       FAILURE                the command ran and found a problem (``doctor`` check failed,
                               ``verify-dice`` mismatch, a refused edit, ...)
2       USAGE                  bad arguments (click's own code)
69      BOARD_UNREACHABLE      the board did not answer (network, DNS, 5xx, maintenance)
                               after every retry; restarting later may work
75      ALREADY_RUNNING        another ``forumbot run`` holds the database lock
77      LOGIN_REFUSED          the board refused the bot's login (wrong password, CAPTCHA):
                               never restarted, retries would lock the account
78      CONFIG_ERROR           the configuration is missing or invalid, or no password, or
                               a configuration or ruleset file is too big, not UTF-8 or
                               nested too deeply, or
                               ``board.url`` answers 404 (no board at this address):
                               never restarted, the file must be fixed
======  =====================  ===========================================================
"""

from __future__ import annotations

OK = 0
FAILURE = 1
USAGE = 2
BOARD_UNREACHABLE = 69  # EX_UNAVAILABLE
ALREADY_RUNNING = 75  # EX_TEMPFAIL
LOGIN_REFUSED = 77  # EX_NOPERM
CONFIG_ERROR = 78  # EX_CONFIG

NO_RESTART = (LOGIN_REFUSED, CONFIG_ERROR)
"""Codes systemd must not restart on (``RestartPreventExitStatus``): a person must act."""

EXIT_CODES = {
    "OK": OK,
    "FAILURE": FAILURE,
    "USAGE": USAGE,
    "BOARD_UNREACHABLE": BOARD_UNREACHABLE,
    "ALREADY_RUNNING": ALREADY_RUNNING,
    "LOGIN_REFUSED": LOGIN_REFUSED,
    "CONFIG_ERROR": CONFIG_ERROR,
}
"""Every code by name (the documentation test reads it)."""


def exit_code_for(exc: BaseException) -> int | None:
    """The exit code of a library error the CLI reports in one line, or None for an error
    the CLI does not know (a bug: it keeps its traceback).

    Start-up errors get their own code (see the table above); every other known library
    error (a refused edit, a bad backup, a page that does not parse, ...) is ``FAILURE``.
    """
    import httpx

    from forumbot.config import ConfigError
    from forumbot.errors import BoardNotFound, ForumError, LoginFailed, ServerError
    from forumbot.ops.scheduler import AlreadyRunning
    from rules.toml_limits import TomlLimitError

    if isinstance(exc, ConfigError | BoardNotFound | TomlLimitError):
        return CONFIG_ERROR
    if isinstance(exc, LoginFailed):
        return LOGIN_REFUSED
    if isinstance(exc, ServerError | httpx.TransportError):
        return BOARD_UNREACHABLE
    if isinstance(exc, AlreadyRunning):
        return ALREADY_RUNNING
    if isinstance(exc, ForumError | httpx.HTTPError | OSError):
        return FAILURE
    if isinstance(exc, _failure_errors()):
        return FAILURE
    return None


def _failure_errors() -> tuple[type[BaseException], ...]:
    """Library errors whose message is written for the operator (exit ``FAILURE``)."""
    from forumbot.club.registrations import ProfileError
    from forumbot.duels.overrides import OverrideError
    from forumbot.ops.backup import BackupError, RestoreError
    from forumbot.web.users import UserError
    from parsers.errors import ParseError
    from rules.errors import RuleError

    return (
        OverrideError,
        ProfileError,
        BackupError,
        RestoreError,
        UserError,
        ParseError,
        RuleError,
    )
