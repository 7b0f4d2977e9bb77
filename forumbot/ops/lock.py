"""The single-instance run lock: one ``forumbot run`` (or ``restore``) per database file.

The lock is taken on the database file itself (``flock``, released by the OS when the process
dies), so every path that reaches the same file shares one lock: a symlink resolves to it, and a
hard link is the same inode (issue 12, "lock on the database file's resolved path and inode").
``<resolved database>.lock`` is locked too, so a database not created yet is covered; it is
never deleted (deleting a locked file would let a second process lock a new one).
SQLite's own locks are POSIX ``fcntl`` locks and do not interact with ``flock`` on Linux.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from forumbot.storage.engine import RunLockHeld, is_postgres, pg_run_lock
from forumbot.storage.same_file import record_identity


class AlreadyRunning(Exception):
    """Another ``forumbot run`` holds the database lock."""


@contextmanager
def single_instance(database: str) -> Iterator[None]:
    """Hold the exclusive run lock of ``database`` for the ``with`` block.

    ``database`` is a path (it need not exist yet);
    ``":memory:"`` needs no lock; a ``postgresql://`` URL takes
    :func:`forumbot.storage.engine.pg_run_lock` (an advisory lock per club schema).

    Raises:
        AlreadyRunning: when another process holds the lock on the same file (any path to it).
    """
    if database == ":memory:":
        yield
        return
    if is_postgres(database):
        # PostgreSQL (issue 27): pg_try_advisory_lock on a session of its own.
        try:
            with pg_run_lock(database):
                yield
        except RunLockHeld as exc:
            raise AlreadyRunning(str(exc)) from exc
        return
    real = Path(os.path.realpath(database))
    real.parent.mkdir(parents=True, exist_ok=True)
    fds: list[int] = []
    try:
        # The marker beside the resolved file covers every symlink, and a database not created
        # yet; the database file itself (when it exists) covers hard links (same inode).
        paths = [Path(str(real) + ".lock")] + ([real] if real.exists() else [])
        for path in paths:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            fds.append(fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise AlreadyRunning(
                    f"another forumbot run is already using {database} "
                    f"(file {real}, inode {os.fstat(fd).st_ino})"
                ) from exc
        record_identity(fds[0], real)  # the name, dev and inode the run uses (issue 24)
        yield
    finally:
        for fd in fds:
            os.close(fd)  # closing releases the flock
