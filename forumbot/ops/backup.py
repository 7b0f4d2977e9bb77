"""Online backups and restore of the bot's database, on either engine (issue 27).

- :func:`backup` copies the live database into ``<stem>-YYYYMMDD<suffix>`` and keeps the newest
  ``keep`` daily files. SQLite: the online backup API (safe while ``forumbot run`` writes; WAL
  content included), ``forumbot-20261130.db``. PostgreSQL (``storage.url``): ``pg_dump -n
  <schema> -Fc`` of the club's schema (one consistent snapshot),
  ``<database>-<schema>-20261130.dump``.
- :func:`restore` puts a backup back, refusing while a ``forumbot run`` holds the club's run
  lock (:func:`forumbot.ops.lock.single_instance`: the file's ``flock``, or the schema's
  advisory lock), after saving the current database; the restore is stamped in the restored
  database (``publish_restores``) so that no declaration or owl is posted twice.
- :func:`default_backup_dir` / :func:`daily_backup`: where and how ``run`` makes its daily one.

Backups hold the duels' dice secrets: files are created with mode 0600 in a 0700 folder.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from forumbot.storage.engine import is_postgres, pg_file_stem, pg_state_dir
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
from forumbot.storage.pg_files import (
    PgToolError,
    club_schema,
    dump_health,
    dump_schema,
    restore_schema,
    schema_has_tables,
)

if TYPE_CHECKING:
    from forumbot.config import Config

log = logging.getLogger("forumbot.ops.backup")

DEFAULT_BACKUP_KEEP = 7
"""Daily backups kept by :func:`backup` (setting ``--keep``; a week of history)."""


class BackupError(Exception):
    """A backup could not be made or verified (message says why)."""


class RestoreError(Exception):
    """A restore was refused or failed; the live database is left as it was."""



PG_SUFFIX = ".dump"
"""Suffix of a PostgreSQL backup (``pg_dump -Fc`` archive)."""


def _stem_suffix(database: str | Path) -> tuple[str, str]:
    """``(stem, suffix)`` of the backups of ``database`` (a file or a ``postgresql://`` URL)."""
    if is_postgres(str(database)):
        return pg_file_stem(str(database)), PG_SUFFIX
    db = Path(database)
    return db.stem, db.suffix or ".db"


def _backup_pattern(database: str | Path) -> re.Pattern[str]:
    stem, suffix = _stem_suffix(database)
    return re.compile(rf"^{re.escape(stem)}-(\d{{8}}){re.escape(suffix)}$")


def backup_name(database: str | Path, now: datetime) -> str:
    """File name of the day's backup: ``<stem>-YYYYMMDD<suffix>`` (UTC date); on PostgreSQL
    ``<database>-<schema>-YYYYMMDD.dump``.

    >>> backup_name("/var/lib/forumbot/forumbot.db", datetime(2026, 11, 30, 23, 0, tzinfo=UTC))
    'forumbot-20261130.db'
    """
    stem, suffix = _stem_suffix(database)
    day = now.astimezone(UTC) if now.tzinfo is not None else now
    return f"{stem}-{day:%Y%m%d}{suffix}"


def list_backups(database: str | Path, dest_dir: str | Path) -> list[Path]:
    """Backups of ``database`` found in ``dest_dir``, oldest first (by the date in the name)."""
    folder = Path(dest_dir)
    if not folder.is_dir():
        return []
    pattern = _backup_pattern(database)
    found = []
    for entry in folder.iterdir():
        match = pattern.match(entry.name)
        if match and entry.is_file():
            found.append((match.group(1), entry))
    return [path for _, path in sorted(found)]


def default_backup_dir(config: Config) -> Path:
    """The backup folder of ``config``: ``storage.backup_dir`` when set; else ``backups/``
    beside the SQLite database, or on PostgreSQL ``backups/`` in the club's state folder
    (:func:`forumbot.storage.engine.pg_state_dir`: ``$STATE_DIRECTORY`` under the systemd
    units, else the working directory; ``/var/lib/forumbot`` in both the units and the
    container)."""
    if config.backup_dir:
        return Path(config.backup_dir)
    if is_postgres(config.database):
        return pg_state_dir() / "backups"
    return Path(config.database).parent / "backups"


def daily_backup(config: Config, now: datetime) -> Path:
    """The daily backup ``forumbot run`` makes (``storage.backup_keep`` >= 1 kept, in
    :func:`default_backup_dir`). Raises as :func:`backup`."""
    return backup(config.database, default_backup_dir(config), now, keep=config.backup_keep)


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
    a consistent snapshot, WAL content included); on PostgreSQL ``pg_dump -n <schema> -Fc``
    (:func:`forumbot.storage.pg_files.dump_schema`: one snapshot too). The day's file is
    :func:`backup_name` (a second backup the same UTC day replaces it); it is written under a
    temporary name, checked (``PRAGMA integrity_check``; ``pg_restore`` reading the whole
    archive back), then renamed into place, so a crash never leaves a half-written backup
    under the real name. Files are mode 0600 (they hold the dice secrets); ``dest_dir`` is
    created with mode 0700.

    Args:
        database: the live database file, or the club's ``postgresql://`` URL.
        dest_dir: the backup folder.
        now: aware datetime naming the backup (its UTC date).
        keep: daily backups kept (>= 1); older ones are deleted.

    Returns:
        The path of the new backup.

    Raises:
        BackupError: missing/unreadable database, or a copy failing its integrity check; on
            PostgreSQL also ``pg_dump`` missing or failing (no such schema, server down).
        ValueError: ``keep`` < 1.
    """
    if keep < 1:
        raise ValueError(f"keep must be >= 1, got {keep}")
    postgres = is_postgres(str(database))
    if not postgres and not Path(database).is_file():
        raise BackupError(f"no database at {database}")
    folder = Path(dest_dir)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    final = folder / backup_name(database, now)
    tmp = folder / f".{final.name}.tmp"
    if postgres:
        try:
            dump_schema(str(database), tmp)
        except PgToolError as exc:
            raise BackupError(str(exc)) from exc
    else:
        try:
            source = open_read_only(Path(database))
        except StorageFileError as exc:
            raise BackupError(f"cannot open {database}: {exc}") from exc
        try:
            _copy_database(source, tmp)
        finally:
            source.close()
    os.replace(tmp, final)
    for old in list_backups(database, folder)[:-keep]:
        old.unlink(missing_ok=True)
        log.info("backup: removed %s (keeping %d)", old, keep)
    log.info("backup: %s -> %s", _shown(database), final)
    return final


def _shown(database: str | Path) -> str:
    """``database`` for a log line (a URL without its password)."""
    from forumbot.storage.engine import redacted

    return redacted(str(database))


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

    On PostgreSQL (``database`` a ``postgresql://`` URL; ``backup_path`` a ``pg_dump -Fc``
    archive of the same schema, as :func:`backup` writes): the run lock is the schema's advisory
    lock; the archive is read back whole by ``pg_restore``; the current schema, when it holds
    tables, is saved beside the archive as ``<stem>.pre-restore-<YYYYmmddTHHMMSSZ>.dump``; then
    the schema is dropped, recreated from the archive and stamped in one transaction
    (:func:`forumbot.storage.pg_files.restore_schema`: a failure leaves it as it was).

    Args:
        backup_path: a file written by :func:`backup`.
        database: the live database file (``storage.database`` of the configuration), or the
            club's ``postgresql://`` URL (``storage.url``).
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
    stamp = (now or datetime.now(UTC)).astimezone(UTC)
    if is_postgres(str(database)):
        with single_instance(str(database)):
            return _restore_pg(source_path, str(database), stamp)
    db = Path(database)
    if source_path.resolve() == db.resolve():
        raise RestoreError("the backup and the database are the same file")
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


def _restore_pg(source_path: Path, url: str, stamp: datetime) -> Path | None:
    """:func:`restore` on PostgreSQL, the run lock held (its doc). Raises RestoreError."""
    if not source_path.is_file():
        raise RestoreError(f"no backup file at {source_path}")
    schema = club_schema(url)
    try:
        errors, has_migrations, found = dump_health(source_path)
        if errors:
            raise RestoreError(f"{source_path} is not a readable pg_dump archive: {errors[0]}")
        if found != schema:
            raise RestoreError(
                f"{source_path} holds schema {found or '(none or several)'}, the configuration "
                f"names schema {schema}: restore it into its own schema"
            )
        if not has_migrations:
            raise RestoreError(f"{source_path} is not a forumbot database (no forumbot migrations)")
        safety: Path | None = None
        if schema_has_tables(url):
            stem, suffix = _stem_suffix(url)
            safety = source_path.parent / f"{stem}.pre-restore-{stamp:%Y%m%dT%H%M%SZ}{suffix}"
            try:
                dump_schema(url, safety)
            except PgToolError as exc:
                raise RestoreError(f"cannot save the current schema first: {exc}") from exc
        restore_schema(source_path, url, stamp)
    except PgToolError as exc:
        raise RestoreError(f"restore into schema {schema} failed (nothing changed): {exc}") from exc
    log.info("restore: %s -> schema %s (previous schema saved as %s)", source_path, schema, safety)
    return safety
