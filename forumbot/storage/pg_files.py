"""A club's PostgreSQL schema as files (issue 27): ``pg_dump`` backups, their check, restores,
and the in-memory copy ``forumbot check`` works on. The SQLite side is
:mod:`forumbot.storage.files`; :mod:`forumbot.ops.backup` picks one by the URL.

- :func:`dump_schema` writes ``pg_dump -n <schema> -Fc`` of the club's schema (one consistent
  snapshot, safe while ``forumbot run`` writes) and checks the archive (:func:`dump_health`:
  every data block read back by ``pg_restore``, the forumbot migrations table present).
- :func:`restore_schema` puts such an archive back in **one transaction** (``psql
  --single-transaction``): the club's schema dropped, the archive's objects and rows created
  (``pg_restore --no-owner --no-privileges``), and the restore stamped in ``publish_restores``
  (issue 22/24: for 24 hours from the next start every declaration and owl has its marker looked
  for on the board before its first post). A failure anywhere rolls it all back: the schema
  is as it was.
- :func:`memory_copy_pg` copies the schema's rows, read on a read-only session, into a private
  in-memory SQLite :class:`~forumbot.storage.Storage` (the same migrations): the dry run writes
  nothing to the server.

The client programs are found on ``PATH`` (Debian's ``postgresql-client``), else in the newest
``/usr/lib/postgresql/*/bin``; ``pg_dump`` must be at least the server's major version. The
password of the URL, if any, goes to them in ``PGPASSWORD``, never on their command line.

Errors: :class:`PgToolError` (a program missing or failing; the message names it and gives
its last error line, the URL without its password).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

import sqlite_utils

from forumbot.storage.db import Storage
from forumbot.storage.engine import read_only_session, redacted, split_schema
from forumbot.storage.migrations import MIGRATIONS
from forumbot.storage.migrations.h_publish import RESTORES_DDL
from forumbot.storage.pg_dialect import translate

DEBIAN_BIN_DIRS = "/usr/lib/postgresql/*/bin"
"""Where Debian's packages put the versioned client programs."""

TOOL_TIMEOUT_S = 3600.0
"""Longest a ``pg_dump`` / ``pg_restore`` / ``psql`` run may take, seconds."""

RESTORE_LOCK_TIMEOUT = "30s"
"""How long the restore waits for another session's lock on the club's tables before it gives
up and rolls back (SQLite's busy timeout)."""

_MIGRATIONS_TABLE = "_sqlite_migrations"
_TOC_DATA = re.compile(r"^\d+; \d+ \d+ TABLE DATA (\S+) (\S+) ")
_TOC_SCHEMA = re.compile(r"^\d+; \d+ \d+ SCHEMA - (\S+) ")


class PgToolError(Exception):
    """A PostgreSQL client program is missing or failed (message says which and why)."""


def pg_tool(name: str) -> str:
    """The path of the client program ``name`` (``pg_dump``, ``pg_restore``, ``psql``).

    Raises:
        PgToolError: found neither on ``PATH`` nor under :data:`DEBIAN_BIN_DIRS`.
    """
    found = shutil.which(name)
    if found:
        return found

    def major(path: Path) -> int:
        version = path.parent.parent.name
        return int(version) if version.isdigit() else 0

    candidates = sorted(Path("/").glob(DEBIAN_BIN_DIRS.lstrip("/") + "/" + name), key=major)
    if candidates:
        return str(candidates[-1])
    raise PgToolError(
        f"{name} not found (PATH, {DEBIAN_BIN_DIRS}): apt-get install postgresql-client"
    )


def _libpq_target(url: str) -> tuple[str, dict[str, str]]:
    """``(dsn, environment)`` for a client program: ``url`` without ``schema=`` and without its
    password, which goes to ``PGPASSWORD``."""
    dsn, _ = split_schema(url)
    parts = urlsplit(dsn)
    env = dict(os.environ)
    if parts.password is not None:
        env["PGPASSWORD"] = unquote(parts.password)
        netloc = parts.netloc.replace(f":{parts.password}@", "@")
        dsn = urlunsplit(parts._replace(netloc=netloc))
    return dsn, env


def _run(args: Sequence[str], env: dict[str, str] | None, url: str) -> str:
    """Run a client program; its standard output. Raises :class:`PgToolError`."""
    try:
        done = subprocess.run(  # noqa: S603 - the program is a PostgreSQL client, no shell
            list(args), env=env, capture_output=True, text=True, timeout=TOOL_TIMEOUT_S,
            check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PgToolError(f"{Path(args[0]).name} ({redacted(url)}): {exc}") from exc
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        why = lines[-1] if lines else f"exit status {done.returncode}"
        raise PgToolError(f"{Path(args[0]).name} ({redacted(url)}): {why}")
    return done.stdout


def club_schema(url: str) -> str:
    """The club's schema at ``url``: its ``schema=``, else the session's ``current_schema()``
    (the first of the search path, usually ``public``).

    Raises:
        ConfigError: the server cannot be reached (:func:`forumbot.storage.engine.connect_pg`).
    """
    dsn, schema = split_schema(url)
    if schema is not None:
        return schema
    from forumbot.storage.engine import connect_pg

    raw = connect_pg(dsn)
    try:
        return str(raw.execute("select current_schema()").fetchone()[0])
    finally:
        raw.close()


def schema_has_tables(url: str) -> bool:
    """Whether the club's schema at ``url`` exists and holds at least one table (a read, on a
    session of its own; nothing is created)."""
    schema = club_schema(url)
    raw = read_only_session(url)
    try:
        row = raw.execute(
            "select count(*) from information_schema.tables where table_schema = %s", [schema]
        ).fetchone()
        return bool(row and row[0])
    finally:
        raw.close()


def schema_health(url: str) -> tuple[str, bool, int, list[str]]:
    """``(schema, it exists, its table count, applied forumbot migrations in order)`` of the
    club at ``url``, read on a read-only session (nothing is created). ``forumbot doctor``'s
    view of a PostgreSQL club (the server checks its own pages: there is no
    ``integrity_check`` to run).

    Raises:
        ConfigError: the server cannot be reached.
    """
    from forumbot.storage.pg import PgDatabase

    schema = club_schema(url)
    raw = read_only_session(url)
    try:
        row = raw.execute(
            "select (select count(*) from pg_namespace where nspname = %s), "
            "(select count(*) from information_schema.tables where table_schema = %s)",
            [schema, schema],
        ).fetchone()
        exists, tables = bool(row[0]), int(row[1])
        applied: list[str] = []
        if tables:
            raw.execute(f'set search_path to "{schema}"')
            source = PgDatabase(raw, redacted(url))
            if _MIGRATIONS_TABLE in source.table_names():
                applied = [m.name for m in MIGRATIONS.applied(source)]
        return schema, exists, tables, applied
    finally:
        raw.close()


def dump_schema(url: str, target: Path) -> None:
    """``pg_dump -n <schema> -Fc`` of the club's schema into a new file ``target`` (mode 0600),
    then checked with :func:`dump_health`. ``target`` is removed on failure.

    Raises:
        PgToolError: ``pg_dump`` missing or failing (no such schema, server unreachable,
            version mismatch), or the archive fails its check.
    """
    schema = club_schema(url)
    dsn, env = _libpq_target(url)
    target.unlink(missing_ok=True)
    os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600))
    try:
        _run([pg_tool("pg_dump"), "--format=custom", f"--schema={schema}", f"--file={target}",
              f"--dbname={dsn}"], env, url)  # fmt: skip
        errors, has_migrations, found = dump_health(target)
        if errors:
            raise PgToolError(f"{target}: the archive does not read back: {errors[0]}")
        if found != schema or not has_migrations:
            raise PgToolError(f"{target}: schema {schema} holds no forumbot tables")
    except PgToolError:
        target.unlink(missing_ok=True)
        raise


def dump_health(path: Path) -> tuple[list[str], bool, str | None]:
    """``(problems, forumbot migrations present, schema)`` of a ``pg_dump -Fc`` archive:
    ``pg_restore`` reads its table of contents and every data block (into ``/dev/null``);
    ``schema`` is the one schema it creates (None: none, or several).

    Raises:
        PgToolError: ``pg_restore`` is missing.
    """
    tool = pg_tool("pg_restore")
    try:
        toc = _run([tool, "--list", str(path)], None, str(path))
        _run([tool, "--file=/dev/null", str(path)], None, str(path))
    except PgToolError as exc:
        return [str(exc)], False, None
    schemas = {m.group(1) for m in map(_TOC_SCHEMA.match, toc.splitlines()) if m}
    data = {(m.group(1), m.group(2)) for m in map(_TOC_DATA.match, toc.splitlines()) if m}
    schema = next(iter(schemas)) if len(schemas) == 1 else None
    return [], (schema, _MIGRATIONS_TABLE) in data, schema


def restore_schema(backup: Path, url: str, when: datetime) -> None:
    """Replace the club's schema at ``url`` with the archive ``backup`` and stamp the restore
    (``publish_restores``), all in one transaction (module doc). The caller holds the club's
    run lock and has checked the archive (:func:`dump_health`: it must hold this schema).

    Raises:
        PgToolError: ``pg_restore`` or ``psql`` missing or failing (nothing changed then), e.g.
            another session held a lock on the club's tables for :data:`RESTORE_LOCK_TIMEOUT`.
    """
    schema = club_schema(url)
    dsn, env = _libpq_target(url)
    name = f'"{schema}"'
    with tempfile.TemporaryDirectory(prefix="forumbot-restore-") as tmp:
        folder = Path(tmp)  # 0700: the script holds the dice secrets
        script = folder / "restore.sql"
        _run([pg_tool("pg_restore"), "--no-owner", "--no-privileges", f"--file={script}",
              str(backup)], None, str(backup))  # fmt: skip
        head = folder / "head.sql"
        head.write_text(
            f"set lock_timeout = '{RESTORE_LOCK_TIMEOUT}';\n"
            f"drop schema if exists {name} cascade;\n",
            encoding="utf-8",
        )
        tail = folder / "tail.sql"
        tail.write_text(
            f"set search_path to {name};\n"
            f"{translate(RESTORES_DDL, lambda _t: [])};\n"
            "insert into publish_restores (restored_at, backup) "
            "values (:'restored_at', :'backup');\n",
            encoding="utf-8",
        )
        _run([pg_tool("psql"), "--no-psqlrc", "--quiet", "--single-transaction",
              "--set=ON_ERROR_STOP=1", f"--set=restored_at={when.isoformat(timespec='seconds')}",
              f"--set=backup={backup.name}", f"--file={head}", f"--file={script}",
              f"--file={tail}", f"--dbname={dsn}"], env, url)  # fmt: skip


def memory_copy_pg(url: str) -> Storage:
    """A private in-memory SQLite :class:`Storage` holding a copy of the club's schema at
    ``url`` (empty when the schema does not exist), migrated to this version, as
    :func:`forumbot.storage.files.memory_copy` does for a file: the migrations the schema has
    are applied first, its rows copied (the columns both have), then the rest applied.

    Raises:
        ConfigError: the server cannot be reached.
        PgToolError: a table of the schema that this forumbot's migrations do not make (a
            schema written by a newer forumbot: upgrade first).
    """
    from forumbot.storage.pg import PgDatabase

    schema = club_schema(url)
    memory = sqlite_utils.Database(sqlite3.connect(":memory:", check_same_thread=False))
    raw = read_only_session(url)
    try:
        exists = raw.execute("select 1 from pg_namespace where nspname = %s", [schema]).fetchone()
        if exists:
            raw.execute(f'set search_path to "{schema}"')
            _copy_rows(PgDatabase(raw, redacted(url)), memory)
    finally:
        raw.close()
    MIGRATIONS.apply(memory)
    return Storage(db=memory, path=":memory:")


def _copy_rows(source: Any, memory: sqlite_utils.Database) -> None:
    """Migrate ``memory`` as far as ``source`` (a PgDatabase) is, then copy every row of it."""
    tables = source.table_names()
    applied = [m.name for m in MIGRATIONS.applied(source)] if _MIGRATIONS_TABLE in tables else []
    pending = [m.name for m in MIGRATIONS.pending(memory) if m.name not in applied]
    MIGRATIONS.apply(memory, stop_before=pending[0] if pending else None)
    memory.execute(f"delete from {_MIGRATIONS_TABLE}")
    for table in tables:
        if not memory.table(table).exists():
            raise PgToolError(
                f"{redacted(source.url)}: table {table} is unknown to this forumbot "
                "(a newer version wrote it): upgrade first"
            )
        mine = set(memory.table(table).columns_dict)
        columns = [c for c, _, _ in source.columns_of(table) if c in mine]
        picked = ", ".join(f"[{c}]" for c in columns)
        rows = source.query(f"select {picked} from [{table}]")
        memory.table(table).insert_all(rows, batch_size=500)
    memory.conn.commit()


__all__ = [
    "PgToolError",
    "club_schema",
    "dump_health",
    "dump_schema",
    "memory_copy_pg",
    "pg_tool",
    "restore_schema",
    "schema_has_tables",
    "schema_health",
]
