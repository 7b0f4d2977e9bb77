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
from datetime import UTC, datetime
from pathlib import Path

from forumbot.storage.files import (
    Connection,
    CopyError,
    NotADatabaseError,
    StorageFileError,
    copy_database,
    file_health,
    open_read_only,
    restore_into,
)

log = logging.getLogger("forumbot.ops.backup")

DEFAULT_BACKUP_KEEP = 7
"""Daily backups kept by :func:`backup` (setting ``--keep``; a week of history)."""


class BackupError(Exception):
    """A backup could not be made or verified (message says why)."""


class RestoreError(Exception):
    """A restore was refused or failed; the live database is left as it was."""



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


def _copy_database(source: Connection, target: Path) -> None:
    """Online copy of ``source`` (a :func:`forumbot.storage.files.open_read_only` connection)
    into a new file ``target`` (:func:`forumbot.storage.files.copy_database`). Raises
    BackupError; ``target`` is removed on failure."""
    try:
        copy_database(source, target)
    except CopyError as exc:
        raise BackupError(str(exc)) from exc


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
        source = open_read_only(db)
    except StorageFileError as exc:
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
        errors, applied = file_health(path)
    except NotADatabaseError as exc:
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
                current = open_read_only(db)
            except StorageFileError as exc:
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
            errors = restore_into(source_path, db, stamp)
        except StorageFileError as exc:
            raise RestoreError(f"restore into {db} failed: {exc}; safety copy: {safety}") from exc
        if errors:
            raise RestoreError(f"restored {db} fails integrity_check; safety copy: {safety}")
    log.info("restore: %s -> %s (previous database saved as %s)", source_path, db, safety)
    return safety
