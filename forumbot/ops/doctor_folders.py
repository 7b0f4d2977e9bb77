"""``doctor``'s ``filesystem`` check (and, on PostgreSQL, its ``backup`` check): what the
club keeps on this machine's disks.

- SQLite: the database's folder, warned about on a network filesystem (WAL does not work
  there: :mod:`forumbot.ops.filesystem`).
- PostgreSQL (``storage.url``): no database file here, so no path is ever made of the URL.
  What is checked instead is what the club does write on this machine: its state folder (the
  cookie jar, dice reserve and notice journal, :func:`forumbot.storage.engine.pg_state_dir`)
  and its backup folder (:func:`forumbot.ops.backup.default_backup_dir`): the mount, the free
  space (:data:`MIN_BACKUP_FREE_MIB`, or twice the newest backup) and whether this user may
  write there; then ``pg_dump`` found (the backups need it). The server itself and the schema's
  migrations are the ``database`` and ``migrations`` checks.
"""

from __future__ import annotations

from pathlib import Path

from forumbot.config import Config
from forumbot.i18n import N_
from forumbot.ops.backup import default_backup_dir, list_backups
from forumbot.ops.doctor_checks import Check, Text, _check
from forumbot.ops.filesystem import folder_space, mount_of, network_filesystem_warning
from forumbot.storage.engine import is_postgres, pg_state_dir
from forumbot.storage.pg_files import PgToolError, pg_tool

MIN_BACKUP_FREE_MIB = 100
"""Free MiB below which the backup folder is warned about (or twice the newest backup's size,
when that is more)."""

_MIB = 1024 * 1024


def filesystem_check(config: Config, mounts: str | Path) -> Check:
    """The ``filesystem`` check of ``config`` (module doc); ``mounts``: the mount table read."""
    database = config.database
    if database == ":memory:":
        return _check("filesystem", "skip", N_("in-memory database"))
    if is_postgres(database):
        return _pg_folders_check(config, mounts)
    warning = network_filesystem_warning(database, mounts)
    if warning is not None:
        return _check(
            "filesystem", "warn", "%s", Text(warning),
            alone=N_("the database folder is on a network filesystem, where SQLite's WAL mode "
                     "does not work: move the database to a local disk"),
        )  # fmt: skip
    mount = mount_of(Path(database).parent, mounts)
    if mount is None:
        return _check("filesystem", "ok", N_("database folder on mount table unreadable"))
    return _check("filesystem", "ok", N_("database folder on %s on %s"), mount.fstype, mount.point)


def _pg_folders_check(config: Config, mounts: str | Path) -> Check:
    """A PostgreSQL club's state and backup folders (module doc)."""
    state, backups = pg_state_dir(), default_backup_dir(config)
    space = folder_space(backups)
    if space is None:
        return _check("filesystem", "warn", N_("PostgreSQL: the backup folder %s cannot be read"),
                      backups)  # fmt: skip
    for folder in (state, backups):
        found = folder_space(folder)
        if found is not None and not found.writable:
            return _check(
                "filesystem", "warn",
                N_("PostgreSQL: %s is not writable by this user (%s): the session, the dice "
                   "reserve and the backups of the club are written there"),
                folder, found.existing,
            )  # fmt: skip
    newest = list_backups(config.database, backups)[-1:]
    needed = max(MIN_BACKUP_FREE_MIB * _MIB, 2 * newest[0].stat().st_size if newest else 0)
    free_mib = space.free_bytes // _MIB
    if space.free_bytes < needed:
        return _check(
            "filesystem", "warn",
            N_("PostgreSQL: only %s MiB free for the backups in %s (at least %s MiB wanted)"),
            free_mib, backups, -(-needed // _MIB),
        )  # fmt: skip
    mount = mount_of(state, mounts)
    where = f"{mount.fstype} {mount.point}" if mount is not None else "?"
    return _check(
        "filesystem", "ok",
        N_("PostgreSQL: no database file here; state folder %s (on %s), backups in %s: %s MiB "
           "free"),
        state, where, backups, free_mib,
    )  # fmt: skip


def backup_tool_check(config: Config) -> list[Check]:
    """On PostgreSQL, a ``backup`` check: ``pg_dump`` found (``warn`` when it is not: the
    daily backups and ``forumbot backup`` need it); none on SQLite (the backup API is built
    in)."""
    if not is_postgres(config.database):
        return []
    try:
        found = pg_tool("pg_dump")
    except PgToolError as exc:
        return [_check("backup", "warn", "%s", exc,
                       alone=N_("pg_dump not found: the backups of a PostgreSQL club need "
                                "Debian's postgresql-client"))]  # fmt: skip
    return [_check("backup", "ok", N_("pg_dump found: %s"), found)]
