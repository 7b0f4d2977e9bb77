"""``doctor``: checks of what an unattended bot needs (configuration, password, board reachable
and login accepted, database integrity and migrations, clock agreeing with the board); one
:class:`Check` per item; ``forumbot doctor`` prints them."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Literal

import httpx
import sqlite_utils

from forumbot.config import Config, ConfigError, load_config
from forumbot.errors import BoardNotFound, CaptchaRequired, ForumError, LoginFailed, ServerError
from forumbot.forums.outages import challenge_reason
from forumbot.ops.backup import _ro_connect, integrity_errors
from forumbot.ops.filesystem import PROC_MOUNTS, mount_of, network_filesystem_warning
from forumbot.ops.session import bot_client, log_in
from forumbot.ops.validate import config_problems
from forumbot.storage import MIGRATIONS

log = logging.getLogger("forumbot.ops.doctor")

CheckStatus = Literal["ok", "warn", "fail", "skip"]

DEFAULT_MAX_CLOCK_SKEW_S = 120.0
"""Seconds the local clock may differ from the board's ``Date`` header before doctor fails
(review delays and publish times are compared with the local clock)."""

DEFAULT_DOCTOR_TIMEOUT_S = 15.0
"""Seconds doctor waits for the board's answer."""


@dataclass(frozen=True)
class Check:
    """One doctor finding.

    Attributes:
        name: short key (``config``, ``password``, ``board``, ``login``, ``forum 3``,
            ``database``, ``migrations``, ``filesystem``, ``clock``).
        status: ``ok``; ``warn`` (works, but look at it); ``fail`` (the bot cannot run
            unattended as is); ``skip`` (not checked: offline, or an earlier check failed).
        detail: one English line for the operator.
    """

    name: str
    status: CheckStatus
    detail: str

    @property
    def failed(self) -> bool:
        """True when the status is ``fail``."""
        return self.status == "fail"


# ---------------------------------------------------------------------------------------
# doctor
# ---------------------------------------------------------------------------------------


def _config_checks(config: Config) -> list[Check]:
    problems = config_problems(config)  # the same checks as `check` and `run` (issue 13)
    if problems:
        return [Check("config", "fail", "; ".join(problems))]
    checks = [
        Check(
            "config",
            "ok",
            f"{config.platform} board {config.board_url}, ruleset {config.ruleset}, "
            f"watching forums {[w.forum_id for w in config.watch]}",
        )
    ]
    if not config.watch:
        checks.append(Check("watch", "warn", "no [[watch]] forum: the bot will read nothing"))
    return checks


def _password_check(config: Config, environ: Mapping[str, str] | None) -> tuple[Check, str | None]:
    try:
        password = config.password(dict(environ) if environ is not None else None)
    except ConfigError as exc:
        return Check("password", "fail", str(exc)), None
    if config.password_file:
        mode = Path(config.password_file).stat().st_mode & 0o777
        if mode & 0o077:
            return (
                Check(
                    "password",
                    "warn",
                    f"{config.password_file} is readable by others (mode {mode:o}); chmod 600",
                ),
                password,
            )
        return Check("password", "ok", f"read from {config.password_file}"), password
    return Check("password", "ok", f"read from ${config.password_env}"), password


def _known_migrations() -> list[str]:
    empty = sqlite_utils.Database(memory=True)
    try:
        return [m.name for m in MIGRATIONS.pending(empty)]
    finally:
        empty.close()


def _filesystem_check(database: str, mounts: str | Path) -> Check:
    """``warn`` when the database's folder is on a network filesystem (WAL does not work)."""
    if database == ":memory:":
        return Check("filesystem", "skip", "in-memory database")
    warning = network_filesystem_warning(database, mounts)
    if warning is not None:
        return Check("filesystem", "warn", warning)
    mount = mount_of(Path(database).parent, mounts)
    where = f"{mount.fstype} on {mount.point}" if mount is not None else "mount table unreadable"
    return Check("filesystem", "ok", f"database folder on {where}")


def _database_checks(database: str) -> list[Check]:
    if database == ":memory:":
        return [Check("database", "skip", "in-memory database (tests only)")]
    path = Path(database)
    if not path.exists():
        return [
            Check("database", "warn", f"{path} does not exist yet; forumbot run creates it"),
            Check("migrations", "skip", "no database yet"),
        ]
    try:
        conn = _ro_connect(path)
        try:
            errors = integrity_errors(conn)
            db = sqlite_utils.Database(conn)
            applied = [m.name for m in MIGRATIONS.applied(db)]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        return [
            Check("database", "fail", f"{path}: {exc}"),
            Check("migrations", "skip", "database unreadable"),
        ]
    checks = []
    if errors:
        checks.append(
            Check(
                "database", "fail", f"integrity_check: {'; '.join(errors[:5])} (restore a backup)"
            )
        )
    else:
        size_kib = path.stat().st_size // 1024
        checks.append(Check("database", "ok", f"{path} ({size_kib} KiB): integrity_check ok"))
    known = _known_migrations()
    unknown = [name for name in applied if name not in known]
    pending = [name for name in known if name not in applied]
    if unknown:
        checks.append(
            Check(
                "migrations",
                "fail",
                f"database has migrations this forumbot does not know ({', '.join(unknown)}): "
                "it was written by a newer version; upgrade, or restore a backup taken before",
            )
        )
    elif pending:
        checks.append(
            Check(
                "migrations",
                "warn",
                f"{len(pending)} pending ({', '.join(pending)}); applied at the next start",
            )
        )
    else:
        checks.append(Check("migrations", "ok", f"{len(applied)} applied, none pending"))
    return checks


def _clock_check(date_header: str | None, local: datetime, max_skew_s: float) -> Check:
    if not date_header:
        return Check("clock", "warn", "the board sent no Date header; clock not compared")
    try:
        board = parsedate_to_datetime(date_header)
    except (TypeError, ValueError):
        return Check("clock", "warn", f"unreadable Date header {date_header!r}")
    if board.tzinfo is None:
        board = board.replace(tzinfo=UTC)
    skew = (local - board).total_seconds()
    where = "ahead of" if skew > 0 else "behind"
    detail = f"local clock {abs(skew):.0f} s {where} the board (limit {max_skew_s:.0f} s)"
    if abs(skew) > max_skew_s:
        return Check("clock", "fail", detail + "; fix NTP (timedatectl set-ntp true)")
    return Check("clock", "ok", detail)


def _board_check(
    config: Config, transport: httpx.BaseTransport | None, timeout_s: float
) -> tuple[Check, str | None]:
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
        return Check("board", "fail", f"{url}: {type(exc).__name__}: {exc}"), None
    elapsed = time.monotonic() - started
    date = resp.headers.get("date")
    outage = challenge_reason(resp)
    if outage is not None and resp.status_code < 500:  # a challenge in front of the board
        return Check(
            "board",
            "warn",
            f"{url}: {outage}: a page in front of the board, not the board (forumbot run "
            "waits for it to go away)",
        ), date
    if resp.status_code == 404:
        return Check(
            "board",
            "fail",
            f"no board at this address: {url} answers HTTP 404 (is board.url the forum's base "
            "URL?)",
        ), date
    if resp.status_code >= 400:  # 5xx: the board is down
        return Check("board", "fail", f"{url}: HTTP {resp.status_code}"), date
    return Check("board", "ok", f"{url}: HTTP {resp.status_code} in {elapsed:.1f} s"), date


def _login_checks(
    config: Config,
    password: str,
    transport: httpx.BaseTransport | None,
) -> list[Check]:
    try:  # the one client and login of run, check and doctor (ops.session)
        client = bot_client(config, password=password, transport=transport, keep_session=False)
    except (ImportError, ValueError) as exc:
        return [Check("login", "fail", f"no forum client for {config.platform!r}: {exc}")]
    checks: list[Check] = []
    try:
        try:
            log_in(client)
        except CaptchaRequired as exc:
            return [
                Check(
                    "login",
                    "fail",
                    f"the board asks for a CAPTCHA ({exc}); log in once in a browser, "
                    "then retry (the bot never sends the password again)",
                )
            ]
        except LoginFailed as exc:
            return [Check("login", "fail", f"refused ({exc.kind}): {exc.reason}")]
        except BoardNotFound as exc:
            return [Check("login", "fail", f"{exc}; fix board.url")]
        except ServerError as exc:
            return [
                Check(
                    "login",
                    "fail",
                    f"board unavailable ({type(exc).__name__}: {exc}): an outage, not a refused "
                    "password; forumbot run waits for it",
                )
            ]
        except ForumError as exc:
            return [Check("login", "fail", f"{type(exc).__name__}: {exc}")]
        checks.append(Check("login", "ok", f"logged in as {config.username}"))
        for watched in config.watch:
            name = f"forum {watched.forum_id}"
            try:
                topics = client.list_topics(watched.forum_id)
            except ForumError as exc:
                checks.append(Check(name, "fail", f"{type(exc).__name__}: {exc}"))
            else:
                checks.append(Check(name, "ok", f"readable, {len(topics)} topics listed"))
    finally:
        close = getattr(client, "close", None)
        if callable(close):
            close()
    return checks


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
            return [Check("config", "fail", str(exc))]
    checks = _config_checks(config)
    password_check, password = _password_check(config, environ)
    checks.append(password_check)
    checks.extend(_database_checks(config.database))
    checks.append(_filesystem_check(config.database, mounts))
    if offline:
        checks.extend(Check(name, "skip", "offline") for name in ("board", "clock", "login"))
        return checks
    board, date_header = _board_check(config, transport, timeout_s)
    checks.append(board)
    if board.failed:
        checks.extend(Check(name, "skip", "board unreachable") for name in ("clock", "login"))
        return checks
    checks.append(_clock_check(date_header, clock(), max_clock_skew_s))
    if password is None:
        checks.append(Check("login", "skip", "no password"))
    else:
        checks.extend(_login_checks(config, password, transport))
    return checks


# ---------------------------------------------------------------------------------------
# backup / restore
# ---------------------------------------------------------------------------------------

