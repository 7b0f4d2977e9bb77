"""Which filesystem holds the database (issue 22): SQLite's WAL mode needs shared memory
(the ``-shm`` file, mmap) and POSIX locks that network filesystems do not give reliably, so
a database on NFS, CIFS/SMB, sshfs or 9p can be corrupted or see another process's writes
late (https://www.sqlite.org/wal.html, "WAL does not work over a network filesystem").
``forumbot run`` logs a warning at start-up and ``forumbot doctor`` shows one.

The mount table is read from ``/proc/mounts`` (an injected path, so tests pass their own).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC_MOUNTS = "/proc/mounts"

NETWORK_FILESYSTEMS = frozenset(
    {
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "smbfs",
        "9p",
        "fuse.sshfs",
        "sshfs",
        "fuse.rclone",
        "fuse.s3fs",
        "fuse.gcsfuse",
        "fuse.glusterfs",
        "glusterfs",
        "ceph",
        "fuse.ceph",
        "afs",
        "ncpfs",
        "davfs",
        "fuse.davfs2",
        "lustre",
        "gpfs",
        "virtiofs",
        "fuse.vmhgfs-fuse",
        "vboxsf",
        "prl_fs",
    }
)
"""Filesystem types (``/proc/mounts`` third field) on which WAL is not safe: network and
host-shared filesystems (``virtiofs``/``vboxsf``/``9p``: a VM's or WSL's shared folder)."""


@dataclass(frozen=True)
class Mount:
    """One line of the mount table: ``device`` mounted on ``point`` with type ``fstype``."""

    device: str
    point: str
    fstype: str


def _unescape(field: str) -> str:
    """``/proc/mounts`` writes space, tab, newline and backslash as octal escapes."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def mount_of(path: str | Path, mounts: str | Path = PROC_MOUNTS) -> Mount | None:
    """The mount holding ``path`` (the longest mount point above its real path: symlinks
    resolved; a path not created yet is looked up by its nearest existing parent), or None
    when the table cannot be read (not Linux)."""
    try:
        lines = Path(mounts).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    target = Path(path)
    while not target.exists() and target != target.parent:
        target = target.parent
    real = os.path.realpath(target)
    best: Mount | None = None
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = _unescape(fields[1])
        inside = real == point or real.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best.point)):
            best = Mount(_unescape(fields[0]), point, fields[2])
    return best


@dataclass(frozen=True)
class FolderSpace:
    """Room in a folder (or, when it does not exist yet, in its nearest existing parent:
    ``existing``): ``free_bytes`` for this user (``statvfs`` ``f_bavail``), ``writable`` by
    this user (``os.access``)."""

    existing: Path
    free_bytes: int
    writable: bool


def folder_space(path: str | Path) -> FolderSpace | None:
    """:class:`FolderSpace` of ``path``; None when no parent of it can be read (not POSIX)."""
    target = Path(path)
    while not target.exists() and target != target.parent:
        target = target.parent
    try:
        stats = os.statvfs(target)
    except OSError:
        return None
    writable = os.access(target, os.W_OK | os.X_OK)
    return FolderSpace(target, stats.f_bavail * stats.f_frsize, writable)


def network_filesystem_warning(
    database: str, mounts: str | Path = PROC_MOUNTS
) -> str | None:
    """One English line when ``database``'s folder is on a network filesystem
    (:data:`NETWORK_FILESYSTEMS`), else None (also for ``:memory:``, a PostgreSQL URL: no
    SQLite file, no WAL; or an unreadable table)."""
    # imported here: every command's start-up reads this module (forumbot.ops.startup), and
    # importing forumbot.config.* loads the whole configuration schema (tests/unit/test_cli_lazy.py)
    from forumbot.config.storage_url import is_postgres

    if database == ":memory:" or is_postgres(database):
        return None
    folder = Path(database).parent
    mount = mount_of(folder, mounts)
    if mount is None or mount.fstype.lower() not in NETWORK_FILESYSTEMS:
        return None
    return (
        f"the database folder {folder} is on a network filesystem ({mount.fstype} "
        f"{mount.device} on {mount.point}): SQLite's WAL mode does not work there (lost or "
        "corrupted writes); put storage.database on a local disk"
    )
