"""Database files as files: health, online copies, restores (the ops room's queries).

The ``ops`` room (:mod:`forumbot.ops.backup`, :mod:`forumbot.ops.doctor`,
:mod:`forumbot.ops.check`) works on a database **file**, often without opening a
:class:`~forumbot.storage.Storage` on it; what it asks of the engine is here (issue 27: all SQL
lives in storage/). Everything is SQLite-specific by nature (the online backup API,
``PRAGMA integrity_check``, ``mode=ro`` URIs); a PostgreSQL store backs up with ``pg_dump``.

Errors: :data:`StorageFileError` (any engine error on a file), :data:`NotADatabaseError` (the
file is not a database at all, or is damaged), :class:`CopyError` (a copy failed; message
says why).
"""

from __future__ import annotations

import os
import sqlite3
from datetime import datetime
from pathlib import Path

import sqlite_utils

from forumbot.storage.db import Storage
from forumbot.storage.migrations import MIGRATIONS
from forumbot.storage.migrations.h_publish import RESTORES_DDL

StorageFileError = sqlite3.Error
"""Any engine error opening, reading or writing a database file."""

NotADatabaseError = sqlite3.DatabaseError
"""The file is not a database (or is damaged past reading)."""

Connection = sqlite3.Connection
"""An open connection to a database file (:func:`open_read_only`); close it when done."""


class CopyError(Exception):
    """An online copy failed (message: ``cannot copy into <target>: <why>``); the target
    file is removed."""


def open_read_only(path: Path) -> Connection:
    """A read-only connection to the file ``path`` (never creates the file).

    Raises:
        StorageFileError: it cannot be opened.
    """
    return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)


def integrity_errors(conn: Connection) -> list[str]:
    """``PRAGMA integrity_check`` problems of a database (empty list = healthy).

    Raises:
        NotADatabaseError: when the file is not an SQLite database at all.
    """
    rows = [str(r[0]) for r in conn.execute("PRAGMA integrity_check").fetchall()]
    return [] if rows == ["ok"] else rows


def applied_migrations(conn: Connection) -> list[str]:
    """Names of the forumbot migrations applied to the database of ``conn`` (in order)."""
    return [m.name for m in MIGRATIONS.applied(sqlite_utils.Database(conn))]


def file_health(path: Path) -> tuple[list[str], list[str]]:
    """``(integrity problems, applied migration names)`` of the database file ``path``, read
    on a read-only connection closed before returning.

    Raises:
        NotADatabaseError: the file is not a database (or cannot be opened).
    """
    conn = open_read_only(path)
    try:
        return integrity_errors(conn), applied_migrations(conn)
    finally:
        conn.close()


def known_migrations() -> list[str]:
    """Names of every migration this forumbot knows (those pending on an empty database)."""
    empty = sqlite_utils.Database(memory=True)
    try:
        return [m.name for m in MIGRATIONS.pending(empty)]
    finally:
        empty.close()


def copy_database(source: Connection, target: Path) -> None:
    """Online copy of ``source`` into a new file ``target`` (rollback journal, mode 0600),
    verified with ``integrity_check``. Raises :class:`CopyError`; ``target`` is removed on
    failure."""
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
            raise CopyError(f"copy failed integrity_check: {'; '.join(errors[:5])}")
    except (sqlite3.Error, CopyError) as exc:
        target.unlink(missing_ok=True)
        raise CopyError(f"cannot copy into {target}: {exc}") from exc


def _stamp_restore(conn: Connection, source: Path, when: datetime) -> None:
    """Record the restore in the restored database (``publish_restores``, issue 22): the next
    start looks for the marker of every declaration and owl before its first post, since the
    board may hold posts and PMs the backup does not know of. Commits."""
    conn.execute(RESTORES_DDL)
    conn.execute(
        "insert into publish_restores (restored_at, backup) values (?, ?)",
        [when.isoformat(timespec="seconds"), source.name],
    )
    conn.commit()


def restore_into(source_path: Path, database: Path, when: datetime) -> list[str]:
    """Copy the backup ``source_path`` into the live file ``database`` through the online
    backup API (its WAL and shared-memory files stay consistent), stamp the restore
    (``publish_restores``, committed), and return the restored file's integrity problems.

    Raises:
        StorageFileError: the copy failed.
    """
    source = open_read_only(source_path)
    try:
        target = sqlite3.connect(database, timeout=30)
        try:
            source.backup(target)
            _stamp_restore(target, source_path, when)
            return integrity_errors(target)
        finally:
            target.close()
    finally:
        source.close()


def memory_copy(path: str) -> Storage:
    """A private in-memory :class:`Storage` holding a copy of the database file ``path`` (an
    empty database when there is no file), migrated to this version: ``forumbot check``
    works on it and the real file is never written."""
    memory = sqlite3.connect(":memory:", check_same_thread=False)
    if Path(path).exists():
        source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        source.backup(memory)
        source.close()
    db = sqlite_utils.Database(memory)
    MIGRATIONS.apply(db)
    return Storage(db=db, path=":memory:")


__all__ = [
    "Connection",
    "CopyError",
    "NotADatabaseError",
    "StorageFileError",
    "applied_migrations",
    "copy_database",
    "file_health",
    "integrity_errors",
    "known_migrations",
    "memory_copy",
    "open_read_only",
    "restore_into",
]
