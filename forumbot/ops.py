"""Operations safety nets: ``doctor`` checks, online backups and restore, JSON logs.

- :func:`doctor` checks what an unattended bot needs (configuration, password, board reachable
  and login accepted, database integrity and migrations, clock agreeing with the board) and
  returns one :class:`Check` per item; ``forumbot doctor`` prints them.
- :func:`backup` copies the live database with SQLite's online backup API (safe while
  ``forumbot run`` writes; WAL content included) into ``<stem>-YYYYMMDD<suffix>`` and keeps the
  newest ``keep`` daily files.
- :func:`restore` puts a backup back, refusing while a ``forumbot run`` holds the database's
  run lock (:func:`forumbot.scheduler.single_instance`), after saving the current database.
- :class:`JsonFormatter` writes one JSON object per log line, with the ``extra=`` fields
  (``duel``, ``turn``, ``post_ids``...) as keys; :func:`log_decision` logs one decision so.

Backups hold the duels' dice secrets: files are created with mode 0600 in a 0700 folder.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import IO, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import httpx
import sqlite_utils

from forumbot.config import Config, ConfigError, load_config
from forumbot.errors import CaptchaRequired, ForumError, LoginFailed
from forumbot.storage import MIGRATIONS

log = logging.getLogger("forumbot.ops")

CheckStatus = Literal["ok", "warn", "fail", "skip"]

DEFAULT_BACKUP_KEEP = 7
"""Daily backups kept by :func:`backup` (setting ``--keep``; a week of history)."""

DEFAULT_MAX_CLOCK_SKEW_S = 120.0
"""Seconds the local clock may differ from the board's ``Date`` header before doctor fails
(review delays and publish times are compared with the local clock)."""

DEFAULT_DOCTOR_TIMEOUT_S = 15.0
"""Seconds doctor waits for the board's answer."""


class BackupError(Exception):
    """A backup could not be made or verified (message says why)."""


class RestoreError(Exception):
    """A restore was refused or failed; the live database is left as it was."""


@dataclass(frozen=True)
class Check:
    """One doctor finding.

    Attributes:
        name: short key (``config``, ``password``, ``board``, ``login``, ``forum 3``,
            ``database``, ``migrations``, ``clock``).
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
    from forumbot.render import TEMPLATES_DIR
    from forumbot.rulesets import load_ruleset

    problems: list[str] = []
    try:
        ZoneInfo(config.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        problems.append(f"unknown board.timezone {config.timezone!r}")
    try:
        load_ruleset(config.ruleset)
    except Exception as exc:  # FileNotFoundError, RuleError: report, never crash doctor
        problems.append(f"club.ruleset {config.ruleset!r}: {exc}")
    if not (TEMPLATES_DIR / config.language).is_dir():
        problems.append(f"no declaration templates for club.language {config.language!r}")
    if config.poll_interval_s <= 0 or config.publish_interval_s <= 0:
        problems.append("poll_interval_s and publish_interval_s must be > 0 seconds")
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


def _ro_connect(path: Path) -> sqlite3.Connection:
    """A read-only connection (never creates the file)."""
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)


def integrity_errors(conn: sqlite3.Connection) -> list[str]:
    """``PRAGMA integrity_check`` problems of a database (empty list = healthy).

    Raises:
        sqlite3.DatabaseError: when the file is not an SQLite database at all.
    """
    rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check").fetchall()]
    return [] if rows == ["ok"] else rows


def _known_migrations() -> list[str]:
    empty = sqlite_utils.Database(memory=True)
    try:
        return [m.name for m in MIGRATIONS.pending(empty)]
    finally:
        empty.close()


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

    url = config.board_url + "/"
    started = time.monotonic()
    try:
        with httpx.Client(
            transport=transport,
            timeout=timeout_s,
            headers={"User-Agent": DEFAULT_USER_AGENT},
            follow_redirects=True,
        ) as http:
            resp = http.get(url)
    except httpx.HTTPError as exc:
        return Check("board", "fail", f"{url}: {type(exc).__name__}: {exc}"), None
    elapsed = time.monotonic() - started
    date = resp.headers.get("date")
    if resp.status_code >= 500:
        return Check("board", "fail", f"{url}: HTTP {resp.status_code}"), date
    return Check("board", "ok", f"{url}: HTTP {resp.status_code} in {elapsed:.1f} s"), date


def _login_checks(
    config: Config,
    password: str,
    transport: httpx.BaseTransport | None,
) -> list[Check]:
    from forumbot.app import make_client

    try:
        client = make_client(config, password, transport)
    except (ImportError, ValueError) as exc:
        return [Check("login", "fail", f"no forum client for {config.platform!r}: {exc}")]
    checks: list[Check] = []
    try:
        try:
            client.login()
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
            return [Check("login", "fail", f"refused: {exc.reason}")]
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


def _backup_pattern(database: Path) -> re.Pattern[str]:
    suffix = database.suffix or ".db"
    return re.compile(rf"^{re.escape(database.stem)}-(\d{{8}}){re.escape(suffix)}$")


def backup_name(database: str | Path, now: datetime) -> str:
    """File name of the day's backup: ``<stem>-YYYYMMDD<suffix>`` (UTC date).

    >>> backup_name("/var/lib/forumbot/forumbot.db", datetime(2026, 11, 30, 23, 0, tzinfo=UTC))
    'forumbot-20261130.db'
    """
    db = Path(database)
    day = now.astimezone(UTC) if now.tzinfo is not None else now
    return f"{db.stem}-{day:%Y%m%d}{db.suffix or '.db'}"


def list_backups(database: str | Path, dest_dir: str | Path) -> list[Path]:
    """Backups of ``database`` found in ``dest_dir``, oldest first (by the date in the name)."""
    folder = Path(dest_dir)
    if not folder.is_dir():
        return []
    pattern = _backup_pattern(Path(database))
    found = []
    for entry in folder.iterdir():
        match = pattern.match(entry.name)
        if match and entry.is_file():
            found.append((match.group(1), entry))
    return [path for _, path in sorted(found)]


def _copy_database(source: sqlite3.Connection, target: Path) -> None:
    """Online copy of ``source`` into a new file ``target`` (rollback journal, mode 0600),
    verified with ``integrity_check``. Raises BackupError; ``target`` is removed on failure."""
    target.unlink(missing_ok=True)
    fd = os.open(target, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    os.close(fd)
    try:
        dest = sqlite3.connect(target)
        try:
            source.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
            errors = integrity_errors(dest)
        finally:
            dest.close()
        if errors:
            raise BackupError(f"copy failed integrity_check: {'; '.join(errors[:5])}")
    except (sqlite3.Error, BackupError) as exc:
        target.unlink(missing_ok=True)
        raise BackupError(f"cannot copy into {target}: {exc}") from exc


def backup(
    database: str | Path,
    dest_dir: str | Path,
    now: datetime,
    *,
    keep: int = DEFAULT_BACKUP_KEEP,
) -> Path:
    """Copy the live database into ``dest_dir`` and keep the newest ``keep`` daily backups.

    Uses SQLite's online backup API, so it is safe while ``forumbot run`` writes (the copy is
    a consistent snapshot, WAL content included). The day's file is
    :func:`backup_name` (a second backup the same UTC day replaces it); it is written under a
    temporary name, checked with ``PRAGMA integrity_check``, then renamed into place, so a
    crash never leaves a half-written backup under the real name. Files are mode 0600 (they
    hold the dice secrets); ``dest_dir`` is created with mode 0700.

    Args:
        database: the live database file.
        dest_dir: the backup folder.
        now: aware datetime naming the backup (its UTC date).
        keep: daily backups kept (>= 1); older ones are deleted.

    Returns:
        The path of the new backup.

    Raises:
        BackupError: missing/unreadable database, or a copy failing its integrity check.
        ValueError: ``keep`` < 1.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    db = Path(database)
    if not db.is_file():
        raise BackupError(f"no database at {db}")
    folder = Path(dest_dir)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    final = folder / backup_name(db, now)
    tmp = folder / f".{final.name}.tmp"
    try:
        source = _ro_connect(db)
    except sqlite3.Error as exc:
        raise BackupError(f"cannot open {db}: {exc}") from exc
    try:
        _copy_database(source, tmp)
    finally:
        source.close()
    os.replace(tmp, final)
    for old in list_backups(db, folder)[:-keep]:
        old.unlink(missing_ok=True)
        log.info("backup: removed %s (keeping %d)", old, keep)
    log.info("backup: %s -> %s", db, final)
    return final


def _check_backup_file(path: Path) -> None:
    """Raise RestoreError unless ``path`` is a healthy forumbot database."""
    if not path.is_file():
        raise RestoreError(f"no backup file at {path}")
    try:
        conn = _ro_connect(path)
        try:
            errors = integrity_errors(conn)
            applied = [m.name for m in MIGRATIONS.applied(sqlite_utils.Database(conn))]
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise RestoreError(f"{path} is not an SQLite database: {exc}") from exc
    if errors:
        raise RestoreError(f"{path} fails integrity_check: {'; '.join(errors[:5])}")
    if not applied:
        raise RestoreError(f"{path} is not a forumbot database (no forumbot migrations)")


def restore(
    backup_path: str | Path,
    database: str | Path,
    *,
    now: datetime | None = None,
) -> Path | None:
    """Replace the contents of ``database`` with the backup ``backup_path``.

    Refuses while a ``forumbot run`` holds the run lock of ``database`` (and holds that lock
    itself meanwhile, so no run starts halfway). The backup is verified first
    (``integrity_check``, forumbot migrations present). The current database, when there is
    one, is first saved next to it as ``<name>.pre-restore-<YYYYmmddTHHMMSSZ>`` (mode 0600).
    The copy goes through SQLite's backup API into the live file, so its WAL and shared-memory
    files stay consistent.

    Args:
        backup_path: a file written by :func:`backup`.
        database: the live database file (``storage.database`` of the configuration).
        now: aware datetime naming the safety copy (default: the real UTC clock).

    Returns:
        The safety copy of the replaced database, or None when there was no database.

    Raises:
        forumbot.scheduler.AlreadyRunning: a ``forumbot run`` uses this database.
        RestoreError: bad backup, or the copy failed (the live database is then unchanged
            or restored from the safety copy by rerunning restore on it).
    """
    from forumbot.scheduler import single_instance

    source_path = Path(backup_path)
    db = Path(database)
    if source_path.resolve() == db.resolve():
        raise RestoreError("the backup and the database are the same file")
    stamp = (now or datetime.now(UTC)).astimezone(UTC)
    with single_instance(str(db)):
        _check_backup_file(source_path)
        safety: Path | None = None
        if db.exists():
            safety = db.with_name(f"{db.name}.pre-restore-{stamp:%Y%m%dT%H%M%SZ}")
            try:
                current = _ro_connect(db)
            except sqlite3.Error as exc:
                raise RestoreError(f"cannot open {db}: {exc}") from exc
            try:
                _copy_database(current, safety)
            except BackupError as exc:
                raise RestoreError(f"cannot save the current database first: {exc}") from exc
            finally:
                current.close()
        else:
            db.parent.mkdir(parents=True, exist_ok=True)
            os.close(os.open(db, os.O_CREAT | os.O_WRONLY, 0o600))
        try:
            source = _ro_connect(source_path)
            try:
                target = sqlite3.connect(db, timeout=30)
                try:
                    source.backup(target)
                    errors = integrity_errors(target)
                finally:
                    target.close()
            finally:
                source.close()
        except sqlite3.Error as exc:
            raise RestoreError(f"restore into {db} failed: {exc}; safety copy: {safety}") from exc
        if errors:
            raise RestoreError(f"restored {db} fails integrity_check; safety copy: {safety}")
    log.info("restore: %s -> %s (previous database saved as %s)", source_path, db, safety)
    return safety


# ---------------------------------------------------------------------------------------
# structured logs
# ---------------------------------------------------------------------------------------

_RECORD_ATTRS = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {
    "message",
    "asctime",
    "taskName",
}


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts`` (ISO 8601 UTC, ms), ``level``, ``logger``, ``msg``,
    every ``extra=`` field under its own key, and ``exc`` (the traceback) when there is one.

    Values that are not JSON types are written with ``str()``. Newlines inside values are
    escaped by JSON, so a record is always exactly one line (journald / docker friendly).
    """

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line (no trailing newline)."""
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRS and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            data["stack"] = self.formatStack(record.stack_info)
        return json.dumps(data, ensure_ascii=False, default=str)


def configure_json_logging(level: int = logging.INFO, stream: IO[str] | None = None) -> None:
    """Make the root logger write JSON lines (:class:`JsonFormatter`) to ``stream``
    (default standard error), replacing its handlers."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def log_decision(
    logger: logging.Logger,
    message: str,
    *args: object,
    duel: int,
    turn: int | None = None,
    post_ids: Iterable[int] = (),
    **fields: Any,
) -> None:
    """Log one referee decision at INFO with ``event="decision"``, ``duel``, ``turn`` and
    ``post_ids`` (plus ``fields``) as structured fields; ``message % args`` is the text.

    Raises:
        KeyError: when a field name clashes with a LogRecord attribute (``msg``, ``name``...).
    """
    extra = {"event": "decision", "duel": duel, "turn": turn, "post_ids": list(post_ids)}
    extra.update(fields)
    clash = sorted(set(extra) & _RECORD_ATTRS)
    if clash:
        raise KeyError(f"log field names clash with LogRecord attributes: {clash}")
    logger.info(message, *args, extra=extra)
