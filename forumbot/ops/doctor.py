"""``doctor``: checks of what an unattended bot needs (configuration, password, board reachable
and login accepted, database integrity and migrations, clock agreeing with the board); one
:class:`Check` per item; ``forumbot doctor`` prints them."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx

from forumbot.config import Config, ConfigError, load_config
from forumbot.errors import BoardNotFound, CaptchaRequired, ForumError, LoginFailed, ServerError
from forumbot.forums.outages import challenge_reason
from forumbot.i18n import C_, N_, ngettext, ruleset_word
from forumbot.ops.doctor_checks import Check, Text, _check
from forumbot.ops.doctor_folders import backup_tool_check, filesystem_check
from forumbot.ops.filesystem import PROC_MOUNTS
from forumbot.ops.session import bot_client, log_in
from forumbot.ops.validate import config_problems
from forumbot.storage.engine import is_postgres, redacted
from forumbot.storage.files import NotADatabaseError, file_health, known_migrations
from forumbot.storage.pg_files import schema_health
from parsers.page_language import page_language

log = logging.getLogger("forumbot.ops.doctor")

DEFAULT_MAX_CLOCK_SKEW_S = 120.0
"""Seconds the local clock may differ from the board's ``Date`` header before doctor fails
(review delays and publish times are compared with the local clock)."""

DEFAULT_DOCTOR_TIMEOUT_S = 15.0
"""Seconds doctor waits for the board's answer."""


def _failure(exc: BaseException) -> Text:
    """``ConnectError: [Errno 111] Connection refused``: an exception's class and text, one
    library detail."""
    return Text(f"{type(exc).__name__}: {exc}")


NAMES = (
    C_("doctor", "config"), C_("doctor", "password"), C_("doctor", "board"),
    C_("doctor", "login"), C_("doctor", "forum %s"), C_("doctor", "database"),
    C_("doctor", "migrations"), C_("doctor", "filesystem"), C_("doctor", "clock"),
    C_("doctor", "watch"), C_("doctor", "sharing"), C_("doctor", "backup"),
    C_("doctor", "lease"),
    C_("doctor", "ok"), C_("doctor", "warn"), C_("doctor", "fail"), C_("doctor", "skip"),
)  # fmt: skip
"""The checks' names and statuses, translated by the CLI under ``msgctxt "doctor"``."""


NOT_YET = N_("%s does not exist yet; forumbot run (or forumbot serve) creates it")
"""A club's database not created yet: the first ``run`` creates it, or the ``serve`` that
runs its folder (newcomer5 C6: the folder's doctor named ``run`` only)."""

PAGES_IN_LANGUAGE = N_("%s: HTTP %s in %s s, pages in language %s")
"""The ``board`` check of a board whose pages say their language (the last value)."""

REFUSED_CONFIG = N_("the configuration is refused")
"""A refused configuration said without the library's text (:attr:`Check.alone`)."""

REFUSALS = {
    "password": N_("login refused: wrong user name or password"),
    "captcha": N_("login refused: the board asks for a CAPTCHA"),
    "banned": N_("login refused: the bot's account is banned"),
    "inactive": N_("login refused: the bot's account is not active"),
    "refused": N_("login refused by the board"),
}
"""A refused login said without the board's text, by :attr:`~forumbot.errors.LoginFailed.kind`
(:data:`~forumbot.errors.LOGIN_REFUSAL_KINDS`)."""


# ---------------------------------------------------------------------------------------
# doctor
# ---------------------------------------------------------------------------------------


def _config_checks(config: Config) -> list[Check]:
    problems = config_problems(config)  # the same checks as `check` and `run` (issue 13)
    if problems:
        return [_check("config", "fail", "%s", Text("; ".join(problems)), alone=REFUSED_CONFIG)]
    checks = [
        _check(
            "config",
            "ok",
            N_("%s board %s, ruleset %s, watching forums: %s"),
            config.platform,
            config.board_url,
            ruleset_word(config.ruleset),  # « classique » (C7)
            ", ".join(str(w.forum_id) for w in config.watch),  # « 3, 5 », not « [3, 5] »
        )
    ]
    if not config.watch:
        checks.append(_check("watch", "warn", N_("no [[watch]] forum: the bot will read nothing")))
    return checks


def page_language_of(checks: list[Check]) -> str | None:
    """The language the board's pages said in ``checks`` (the ``board`` check's
    :data:`PAGES_IN_LANGUAGE`), None when it said none or was not checked: the staff's
    language of a report whose club sets no ``board.language`` and has no database yet
    (newcomer5 C6: such a club reported in English though its board is French)."""
    for c in checks:
        if c.name == "board" and c.message == PAGES_IN_LANGUAGE:
            return str(c.args[-1])
    return None


def _password_check(config: Config, environ: Mapping[str, str] | None) -> tuple[Check, str | None]:
    try:
        password = config.password(dict(environ) if environ is not None else None)
    except ConfigError as exc:
        return _check("password", "fail", "%s", exc, alone=N_("no usable password")), None
    if config.password_file:
        mode = Path(config.password_file).stat().st_mode & 0o777
        if mode & 0o077:
            return (
                _check(
                    "password",
                    "warn",
                    N_("%s is readable by others (mode %s); chmod 600"),
                    config.password_file,
                    f"{mode:o}",
                ),
                password,
            )
        return _check("password", "ok", N_("read from %s"), config.password_file), password
    return _check("password", "ok", N_("read from %s"), f"${config.password_env}"), password


def _known_migrations() -> list[str]:
    return known_migrations()


def _pg_database_checks(url: str) -> list[Check]:
    """``database`` and ``migrations`` of a PostgreSQL club (its schema, read only)."""
    try:
        schema, exists, tables, applied = schema_health(url)
    except ConfigError as exc:
        return [
            _check("database", "fail", N_("%s: %s"), redacted(url), exc),
            _check("migrations", "skip", N_("database unreadable")),
        ]
    if not exists or not tables:
        return [
            _check("database", "warn", NOT_YET,
                   f"{redacted(url)} (schema {schema})"),  # fmt: skip
            _check("migrations", "skip", N_("no database yet")),
        ]
    found = _check("database", "ok", N_("PostgreSQL schema %s: %s tables"), schema, tables)
    return [found, *_migration_checks(applied)]


def _database_checks(database: str) -> list[Check]:
    if database == ":memory:":
        return [_check("database", "skip", N_("in-memory database (tests only)"))]
    if is_postgres(database):
        return _pg_database_checks(database)
    path = Path(database)
    if not path.exists():
        return [
            _check("database", "warn", NOT_YET, path),
            _check("migrations", "skip", N_("no database yet")),
        ]
    try:
        errors, applied = file_health(path)
    except NotADatabaseError as exc:
        return [
            _check("database", "fail", N_("%s: %s"), path, exc,
                   alone=N_("%s cannot be read as a database (restore a backup)")),
            _check("migrations", "skip", N_("database unreadable")),
        ]
    checks = []
    if errors:
        checks.append(
            _check(
                "database",
                "fail",
                N_("integrity_check: %s (restore a backup)"),
                Text("; ".join(errors[:5])),
                alone=N_("the database's integrity check found errors (restore a backup)"),
            )
        )
    else:
        size_kib = path.stat().st_size // 1024
        checks.append(
            _check("database", "ok", N_("%s (%s KiB): integrity_check ok"), path, size_kib)
        )
    return [*checks, *_migration_checks(applied)]


def _migration_checks(applied: list[str]) -> list[Check]:
    """The ``migrations`` check of a database whose applied migrations are ``applied``."""
    checks: list[Check] = []
    known = _known_migrations()
    unknown = [name for name in applied if name not in known]
    pending = [name for name in known if name not in applied]
    if unknown:
        checks.append(
            _check(
                "migrations",
                "fail",
                N_(
                    "database has migrations this forumbot does not know (%s): it was written "
                    "by a newer version; upgrade, or restore a backup taken before"
                ),
                ", ".join(unknown),
            )
        )
    elif pending:
        checks.append(
            _check(
                "migrations",
                "warn",
                N_("%s pending (%s); applied at the next start"),
                len(pending),
                ", ".join(pending),
            )
        )
    else:
        checks.append(_check("migrations", "ok", N_("%s applied, none pending"), len(applied)))
    return checks


def _clock_check(date_header: str | None, local: datetime, max_skew_s: float) -> Check:
    if not date_header:
        return _check("clock", "warn", N_("the board sent no Date header; clock not compared"))
    try:
        board = parsedate_to_datetime(date_header)
    except (TypeError, ValueError):
        return _check("clock", "warn", N_("unreadable Date header %s"), repr(date_header))
    if board.tzinfo is None:
        board = board.replace(tzinfo=UTC)
    skew = (local - board).total_seconds()
    figures = (f"{abs(skew):.0f}", f"{max_skew_s:.0f}")
    if abs(skew) > max_skew_s:
        if skew > 0:
            late = N_(
                "local clock %s s ahead of the board (limit %s s); fix NTP (timedatectl "
                "set-ntp true)"
            )
        else:
            late = N_(
                "local clock %s s behind the board (limit %s s); fix NTP (timedatectl set-ntp true)"
            )
        return _check("clock", "fail", late, *figures)
    if skew > 0:
        return _check(
            "clock", "ok", N_("local clock %s s ahead of the board (limit %s s)"), *figures
        )
    return _check("clock", "ok", N_("local clock %s s behind the board (limit %s s)"), *figures)


def _board_check(
    config: Config, transport: httpx.BaseTransport | None, timeout_s: float
) -> tuple[Check, str | None, str | None]:
    """The reachability check, the board's ``Date`` header and the language its index page
    says (``<html lang>``: :func:`parsers.page_language.page_language`; None when it says
    none or the board did not answer with its page)."""
    from forumbot.forums.phpbb import DEFAULT_USER_AGENT
    from forumbot.forums.tls import verify_for

    url = config.board_url + "/"
    started = time.monotonic()
    try:
        with httpx.Client(
            transport=transport,
            verify=verify_for(transport),
            timeout=timeout_s,
            headers={"User-Agent": DEFAULT_USER_AGENT},
            follow_redirects=True,
        ) as http:
            resp = http.get(url)
    except httpx.HTTPError as exc:
        return _check(
            "board", "fail", N_("%s: %s"), url, _failure(exc),
            alone=N_("%s: the board does not answer"),
        ), None, None  # fmt: skip
    elapsed = time.monotonic() - started
    date = resp.headers.get("date")
    outage = challenge_reason(resp)
    if outage is not None and resp.status_code < 500:  # a challenge in front of the board
        return _check(
            "board",
            "warn",
            N_(
                "%s: %s: a page in front of the board, not the board (forumbot run waits for "
                "it to go away)"
            ),
            url,
            Text(outage),
            alone=N_(
                "%s: a page in front of the board, not the board (forumbot run waits for it "
                "to go away)"
            ),
        ), date, None
    if resp.status_code == 404:
        return _check(
            "board",
            "fail",
            N_(
                "no board at this address: %s answers HTTP 404 (is board.url the forum's base URL?)"
            ),
            url,
        ), date, None
    if resp.status_code >= 400:  # 5xx: the board is down
        return _check("board", "fail", N_("%s: HTTP %s"), url, resp.status_code), date, None
    language = page_language(resp.text) if resp.status_code == 200 else None
    if language:
        return _check(
            "board", "ok", PAGES_IN_LANGUAGE, url,
            resp.status_code, f"{elapsed:.1f}", language,
        ), date, language  # fmt: skip
    return _check(
        "board", "ok", N_("%s: HTTP %s in %s s"), url, resp.status_code, f"{elapsed:.1f}"
    ), date, None


def _login_checks(
    config: Config,
    password: str,
    transport: httpx.BaseTransport | None,
) -> list[Check]:
    try:  # the one client and login of run, check and doctor (ops.session)
        client = bot_client(config, password=password, transport=transport, keep_session=False)
    except (ImportError, ValueError) as exc:
        return [
            _check("login", "fail", N_("no forum client for %s: %s"), repr(config.platform), exc,
                   alone=N_("no forum client for %s"))
        ]
    checks: list[Check] = []
    try:
        try:
            log_in(client)
        except CaptchaRequired as exc:
            return [
                _check(
                    "login",
                    "fail",
                    N_(
                        "the board asks for a CAPTCHA (%s); log in once in a browser, then "
                        "retry (the bot never sends the password again)"
                    ),
                    exc,
                    alone=N_(
                        "the board asks for a CAPTCHA; log in once in a browser, then retry "
                        "(the bot never sends the password again)"
                    ),
                )
            ]
        except LoginFailed as exc:
            return [_check("login", "fail", N_("refused (%s): %s"), exc.kind, Text(exc.reason),
                           alone=REFUSALS.get(exc.kind, REFUSALS["refused"]), alone_args=())]
        except BoardNotFound as exc:
            return [_check("login", "fail", N_("%s; fix board.url"), exc,
                           alone=N_("no board at this address; fix board.url"))]
        except ServerError as exc:
            return [
                _check(
                    "login",
                    "fail",
                    N_(
                        "board unavailable (%s: %s): an outage, not a refused password; "
                        "forumbot run waits for it"
                    ),
                    type(exc).__name__,
                    exc,
                    alone=N_(
                        "board unavailable: an outage, not a refused password; forumbot run "
                        "waits for it"
                    ),
                    alone_args=(),
                )
            ]
        except ForumError as exc:
            return [_check("login", "fail", "%s", _failure(exc),
                           alone=N_("the login failed"))]
        checks.append(_check("login", "ok", N_("logged in as %s"), config.username))
        for watched in config.watch:
            name = f"forum {watched.forum_id}"
            try:
                topics = client.list_topics(watched.forum_id)
            except ForumError as exc:
                checks.append(_check(name, "fail", "%s", _failure(exc),
                                     alone=N_("the forum cannot be read")))
            else:
                listed = ngettext("readable, %s topic listed", "readable, %s topics listed",
                                  len(topics))  # fmt: skip
                checks.append(_check(name, "ok", listed, len(topics)))
    finally:
        close = getattr(client, "close", None)
        if callable(close):
            close()
    return checks


def remember_language(config: Config, language: str, now: datetime) -> bool:
    """Record the board's language in ``config``'s database (``boards.language``, read by
    the staff's command line when ``board.language`` is not set), when that database exists
    with every migration applied (``doctor`` and ``check`` never create it nor change its
    schema: ``run`` does). Returns True when the row changed; a database error is logged and
    gives False (a diagnosis never fails on it)."""
    from forumbot.storage import open_storage

    ready = _database_checks(config.database)
    if not any(c.name == "migrations" and c.status == "ok" for c in ready):
        return False
    try:
        storage = open_storage(config.database)
        try:
            return storage.record_board_language(
                config.board_url, config.platform, language, now
            )
        finally:
            storage.close()
    except (NotADatabaseError, OSError) as exc:
        log.warning("board language not recorded (%s)", exc)
        return False


def pages_language(
    config: Config,
    transport: httpx.BaseTransport | None = None,
    timeout_s: float = DEFAULT_DOCTOR_TIMEOUT_S,
    now: Callable[[], datetime] | None = None,
) -> str | None:
    """The language the board's index page says, read as ``doctor``'s board check reads it
    (:func:`_board_check`) and recorded as ``doctor`` records it (:func:`remember_language`:
    only into a database that exists). ``check`` asks it when ``board.language`` is not set,
    so both commands speak and record the same language (newcomer6 W3). None when the board
    does not answer with its page or the page says none."""
    _board, _date, language = _board_check(config, transport, timeout_s)
    if language:
        remember_language(config, language, (now or (lambda: datetime.now(UTC)))())
    return language


def doctor(
    config: Config | str | Path,
    *,
    offline: bool = False,
    environ: Mapping[str, str] | None = None,
    transport: httpx.BaseTransport | None = None,
    now: Callable[[], datetime] | None = None,
    max_clock_skew_s: float = DEFAULT_MAX_CLOCK_SKEW_S,
    timeout_s: float = DEFAULT_DOCTOR_TIMEOUT_S,
    mounts: str | Path = PROC_MOUNTS,
) -> list[Check]:
    """Check that the bot can run unattended; returns the findings in order.

    Args:
        config: a parsed :class:`Config`, or the path of the TOML file (then a file that
            does not parse gives a single failed ``config`` check).
        offline: skip the checks that contact the board (``board``, ``clock``, ``login``,
            ``forum N``): they come back as ``skip``.
        environ: where the password variable is read (default ``os.environ``).
        transport: httpx transport for the board requests (tests); None = network.
        now: the local clock, aware (default: the real UTC clock).
        max_clock_skew_s: seconds of disagreement with the board's ``Date`` header allowed.
        timeout_s: seconds to wait for the board's answer to the reachability request.
        mounts: the mount table read for the ``filesystem`` check (tests: their own file).

    Never raises for a problem it checks: each becomes a ``fail`` :class:`Check`.
    Logging in sends the password once; a CAPTCHA or refusal is reported, not retried.
    """
    clock = now or (lambda: datetime.now(UTC))
    if not isinstance(config, Config):
        try:
            config = load_config(config)
        except ConfigError as exc:
            return [_check("config", "fail", "%s", exc, alone=REFUSED_CONFIG)]
    checks = _config_checks(config)
    password_check, password = _password_check(config, environ)
    checks.append(password_check)
    checks.extend(_database_checks(config.database))
    checks.append(filesystem_check(config, mounts))
    checks.extend(backup_tool_check(config))
    if offline:
        checks.extend(
            _check(n, "skip", N_("not checked (--offline)")) for n in ("board", "clock", "login")
        )
        return checks
    board, date_header, language = _board_check(config, transport, timeout_s)
    checks.append(board)
    if language:
        remember_language(config, language, clock())
    if board.failed:
        checks.extend(_check(n, "skip", N_("board unreachable")) for n in ("clock", "login"))
        return checks
    checks.append(_clock_check(date_header, clock(), max_clock_skew_s))
    if password is None:
        checks.append(_check("login", "skip", N_("no password")))
    else:
        checks.extend(_login_checks(config, password, transport))
    return checks


# ---------------------------------------------------------------------------------------
# backup / restore
# ---------------------------------------------------------------------------------------
