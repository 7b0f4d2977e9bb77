"""Online backups and restore of the bot's database.

- :func:`backup` copies the live database with SQLite's online backup API (safe while
  ``forumbot run`` writes; WAL content included) into ``<stem>-YYYYMMDD<suffix>`` and keeps the
  newest ``keep`` daily files.
- :func:`restore` puts a backup back, refusing while a ``forumbot run`` holds the database's
  run lock (:func:`forumbot.ops.lock.single_instance`), after saving the current database.

Backups hold the duels' dice secrets: files are created with mode 0600 in a 0700 folder.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from forumbot.storage import MIGRATIONS
from forumbot.storage.migrations.h_publish import RESTORES_DDL

log = logging.getLogger("forumbot.ops.backup")

DEFAULT_BACKUP_KEEP = 7
"""Daily backups kept by :func:`backup` (setting ``--keep``; a week of history)."""


class BackupError(Exception):
    """A backup could not be made or verified (message says why)."""


class RestoreError(Exception):
    """A restore was refused or failed; the live database is left as it was."""



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


def _stamp_restore(conn: sqlite3.Connection, source: Path, when: datetime) -> None:
    """Record the restore in the restored database (``publish_restores``, issue 22): the next
    start looks for the marker of every declaration and owl before its first post, since the
    board may hold posts and PMs the backup does not know of."""
    conn.execute(RESTORES_DDL)
    conn.execute(
        "insert into publish_restores (restored_at, backup) values (?, ?)",
        [when.isoformat(timespec="seconds"), source.name],
    )
    conn.commit()


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
    files stay consistent. The restore is stamped in the restored database
    (``publish_restores``): the next start checks the board for the marker of every declaration
    and owl before posting it (:class:`forumbot.publish.poster.PublishState`).

    Args:
        backup_path: a file written by :func:`backup`.
        database: the live database file (``storage.database`` of the configuration).
        now: aware datetime naming the safety copy (default: the real UTC clock).

    Returns:
        The safety copy of the replaced database, or None when there was no database.

    Raises:
        forumbot.ops.lock.AlreadyRunning: a ``forumbot run`` uses this database.
        RestoreError: bad backup, or the copy failed (the live database is then unchanged
            or restored from the safety copy by rerunning restore on it).
    """
    from forumbot.ops.lock import single_instance

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
                    _stamp_restore(target, source_path, stamp)
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
