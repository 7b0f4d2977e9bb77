"""Same database, same file (issue 24, "also seen"): SQLite names its ``-wal`` and ``-shm``
files after the path it was opened by, so a second name of the database (a hard link) opened
while another process has the file open gives two write-ahead logs for one database, which
SQLite warns can corrupt it (https://www.sqlite.org/howtocorrupt.html, section 2.4).

Symlinks are resolved (every command opens the real path, so its WAL sits beside the real
file). Hard links are caught through the run lock (:func:`forumbot.ops.lock.single_instance`):
``forumbot run`` holds an exclusive ``flock`` on the database inode (any name of it) and on
``<its real name>.lock``, where it records the name, ``st_dev`` and ``st_ino``. A process that
opens a file with more than one link, finds the inode locked, and finds ``<its own name>.lock``
unlocked is using another name of a database a run has open: it is refused.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

from forumbot.config import ConfigError


class SecondName(ConfigError):
    """The database path is another name (hard link) of a file a running forumbot has open
    under a different name (exit code 78 at the command line)."""


def real_database_path(database: str) -> str:
    """The database's real path: symlinks resolved, ``":memory:"`` unchanged."""
    return database if database == ":memory:" else os.path.realpath(database)


def record_identity(fd: int, real: Path) -> None:
    """Write ``{"path", "dev", "ino", "pid"}`` of the database ``real`` into the open lock file
    ``fd`` (``<real>.lock``, held by the run lock); nothing when the file does not exist yet."""
    try:
        st = real.stat()
    except OSError:
        return
    data = {"path": str(real), "dev": st.st_dev, "ino": st.st_ino, "pid": os.getpid()}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(data).encode(), 0)


def _locked(path: Path) -> bool:
    """Whether another open file description holds an exclusive ``flock`` on ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def refuse_second_name(database: str) -> None:
    """Refuse ``database`` when it is a second name of a file a running forumbot has open.

    Raises:
        SecondName: the file has several hard links, its inode is locked by a run, and the
            run's lock file beside this name is not locked (the run uses another name).
    """
    if database == ":memory:":
        return
    real = Path(real_database_path(database))
    try:
        st = real.stat()
    except OSError:
        return
    if st.st_nlink < 2 or not _locked(real):
        return
    marker = Path(str(real) + ".lock")
    if _locked(marker):
        try:
            seen = json.loads(marker.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            seen = {}
        if seen.get("ino") in (None, st.st_ino) and seen.get("dev") in (None, st.st_dev):
            return  # the run uses this very name
    raise SecondName(
        f"refusing database {database}: it is another name (hard link, inode {st.st_ino}) of a"
        " database a running forumbot has open under a different name; two names give two"
        " write-ahead logs and can corrupt it: use the same path as the running bot"
    )
