"""Which engine holds the bot's database (issue 27): SQLite (the embedded default) or
PostgreSQL (the scale-out store), chosen by ``storage.url``.

- a plain path, ``:memory:`` or ``sqlite:///path`` (``sqlite:////abs/path``): SQLite through
  sqlite-utils, as before;
- ``postgresql://user@host:port/db`` (or ``postgres://``): PostgreSQL through psycopg 3
  (:class:`forumbot.storage.pg.PgDatabase`). ``?schema=club_a`` puts the club's tables in their
  own PostgreSQL schema (created when absent; one database can then hold many clubs); libpq's
  own parameters (``sslmode``, ``options=-csearch_path=...``) are passed on unchanged.

:func:`pg_run_lock` is the run lock on PostgreSQL; :func:`describe` the schema of either
engine (columns, primary key, unique indexes), compared by the tests. :func:`side_file` names
the files the bot keeps beside its database (cookie jar, notice journal, dice reserve): beside
the SQLite file, or for a PostgreSQL club in the state folder (:func:`pg_state_dir`) under
:func:`pg_file_stem`.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from forumbot.config import ConfigError
from forumbot.config.storage_url import POSTGRES_SCHEMES, is_postgres, sqlite_path

RUN_LOCK_SQL = "select pg_try_advisory_lock(hashtext('forumbot:run:' || current_schema()))"
"""The run lock on PostgreSQL: a session-level advisory lock per club schema, released by the
server when the session ends (the process died or closed it), like the ``flock`` on SQLite."""

_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


__all__ = [
    "POSTGRES_SCHEMES", "RunLockHeld", "connect_pg", "describe", "is_postgres", "open_pg",
    "pg_board_language", "pg_file_stem", "pg_identity", "pg_run_lock", "pg_state_dir",
    "read_only_session", "redacted", "side_file", "split_schema", "sqlite_path",
]  # fmt: skip


class RunLockHeld(Exception):
    """Another session holds the PostgreSQL run lock of this club's schema."""


def split_schema(url: str) -> tuple[str, str | None]:
    """``url`` without its ``schema=`` parameter, and that schema (None: the default one).

    Raises:
        ConfigError: a schema name that is not a plain lowercase identifier.
    """
    parts = urlsplit(url)
    params = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in params if k == "schema"]
    if not schemas:
        return url, None
    schema = schemas[-1]
    if not _SCHEMA_NAME.match(schema):
        raise ConfigError(f"storage.url: schema {schema!r} must be a lowercase identifier")
    rest = urlencode([(k, v) for k, v in params if k != "schema"])
    return urlunsplit(parts._replace(query=rest)), schema


def _search_path_schema(query: str) -> str | None:
    """The first schema of a ``options=-csearch_path=a,b`` libpq parameter, or None."""
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == "options":
            found = re.search(r"-c\s*search_path\s*=\s*([^\s,]+)", value)
            if found:
                return found.group(1).strip('"')
    return None


def _pg_names(url: str) -> tuple[Any, str, str]:
    """``(urlsplit of the URL without schema=, database name, schema)`` of a PostgreSQL URL:
    the schema from ``schema=``, else ``options=-csearch_path=...``, else ``public``."""
    dsn, schema = split_schema(url)
    parts = urlsplit(dsn)
    name = unquote(parts.path.lstrip("/")) or parts.username or "postgres"
    return parts, name, schema or _search_path_schema(parts.query) or "public"


def pg_file_stem(url: str) -> str:
    """``<database>-<schema>`` of a PostgreSQL URL, read from the URL alone (``schema=``, else
    ``options=-csearch_path=...``, else ``public``), reduced to ``[A-Za-z0-9_.-]``: the name
    of a club's backups and side files, distinct from another database's club of the same
    schema.

    >>> pg_file_stem("postgresql://bot:secret@db.example:5432/forumbot?schema=poudlard")
    'forumbot-poudlard'
    """
    _, name, schema = _pg_names(url)
    return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{name}-{schema}")


def pg_identity(url: str) -> str:
    """Which club's data a PostgreSQL URL names, read from the URL alone: ``host:port/database
    schema`` (lowercase host, port 5432 by default, the schema as :func:`pg_file_stem` reads it),
    so two spellings of one schema (``postgres://`` and ``postgresql://``, the default port
    written or not, a password or not) are one club's data.

    >>> pg_identity("postgres://bot:pw@DB.example/forumbot?schema=poudlard&sslmode=require")
    'db.example:5432/forumbot schema poudlard'
    """
    parts, name, schema = _pg_names(url)
    host = (parts.hostname or "localhost").lower()
    return f"{host}:{parts.port or 5432}/{name} schema {schema}"


def pg_state_dir() -> Path:
    """Where a PostgreSQL club's files live (no database file to sit beside): systemd's
    ``$STATE_DIRECTORY`` (``StateDirectory=forumbot``: ``/var/lib/forumbot``), else the working
    directory (the container's ``/var/lib/forumbot``)."""
    state = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(state) if state else Path.cwd()


def side_file(database: str, suffix: str, *, whole_name: bool = False) -> Path | None:
    """A file the bot keeps with its database: SQLite ``<folder>/<stem><suffix>``
    (``whole_name``: ``<name><suffix>``); PostgreSQL ``<pg_state_dir>/<pg_file_stem><suffix>``;
    None for an in-memory database.

    >>> str(side_file("/var/lib/forumbot/bot.db", ".cookies.json"))
    '/var/lib/forumbot/bot.cookies.json'
    """
    if database == ":memory:" or database.startswith("file::memory:"):
        return None
    if is_postgres(database):
        return pg_state_dir() / f"{pg_file_stem(database)}{suffix}"
    path = Path(database)
    return path.with_name((path.name if whole_name else path.stem) + suffix)


def redacted(url: str) -> str:
    """``url`` without the password it may hold (for logs and errors)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return urlunsplit(parts._replace(netloc=netloc))


def read_only_session(url: str, connect_timeout_s: int = 10) -> Any:
    """A psycopg session on ``url``'s server whose transactions are read-only (nothing is
    created: not even the schema); ``connect_timeout_s``: seconds to wait for the server.

    Raises:
        ConfigError: the server cannot be reached or refuses the login (the URL without its
            password).
    """
    import psycopg

    dsn, _ = split_schema(url)
    try:
        raw = psycopg.connect(dsn, autocommit=True, connect_timeout=connect_timeout_s)
    except psycopg.Error as exc:
        raise ConfigError(f"cannot open PostgreSQL {redacted(dsn)}: {exc}".strip()) from exc
    raw.execute("set default_transaction_read_only = on")
    return raw


LANGUAGE_CONNECT_TIMEOUT_S = 3
"""Seconds :func:`pg_board_language` waits for the server (a command's language, read before
the command runs, never holds it up for long)."""


def pg_board_language(url: str, board_url: str) -> str | None:
    """The language recorded for the board at ``board_url`` (``boards.language``) in the club's
    schema at ``url``, read on a read-only session (nothing is created or migrated): the
    PostgreSQL side of :func:`forumbot.storage.recorded_board_language`. None when the server
    cannot be reached within :data:`LANGUAGE_CONNECT_TIMEOUT_S`, or the schema, the table, the
    column or the row is missing."""
    import psycopg

    schema = split_schema(url)[1]
    try:
        raw = read_only_session(url, LANGUAGE_CONNECT_TIMEOUT_S)
    except ConfigError:
        return None
    try:
        table = f'"{schema}".boards' if schema else "boards"
        row = raw.execute(f"select language from {table} where url = %s", [board_url]).fetchone()
    except psycopg.Error:  # no such schema, table or column yet
        return None
    finally:
        raw.close()
    return str(row[0]) if row and row[0] else None


def connect_pg(url: str) -> Any:
    """A psycopg connection (autocommit) to ``url``, its ``schema=`` created and first in the
    search path.

    Raises:
        ConfigError: psycopg is not installed (``pip install 'forumbot[postgres]'``), or the
            server cannot be reached or refuses the login (the URL without its password).
    """
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - the [postgres] extra is installed in CI
        raise ConfigError(
            "storage.url is PostgreSQL but psycopg is not installed: "
            "pip install 'forumbot[postgres]'"
        ) from exc
    dsn, schema = split_schema(url)
    try:
        raw = psycopg.connect(dsn, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise ConfigError(f"cannot open PostgreSQL {redacted(dsn)}: {exc}".strip()) from exc
    if schema is not None:
        raw.execute(f'create schema if not exists "{schema}"')
        raw.execute(f'set search_path to "{schema}"')
    return raw


def open_pg(url: str) -> Any:
    """A :class:`forumbot.storage.pg.PgDatabase` on ``url`` (:func:`connect_pg`)."""
    from forumbot.storage.pg import PgDatabase

    return PgDatabase(connect_pg(url), redacted(url))


@contextmanager
def pg_run_lock(url: str) -> Iterator[None]:
    """Hold the run lock of the club at ``url`` for the ``with`` block: a session of its own
    holding :data:`RUN_LOCK_SQL` (closing it, or the process dying, releases it).

    Raises:
        RunLockHeld: another session holds it.
        ConfigError: the server cannot be reached (:func:`connect_pg`).
    """
    raw = connect_pg(url)
    try:
        if not raw.execute(RUN_LOCK_SQL).fetchone()[0]:
            raise RunLockHeld(
                f"another forumbot run holds the run lock of {redacted(url)} "
                "(pg_try_advisory_lock on its schema)"
            )
        yield
    finally:
        raw.close()


def describe(db: Any) -> dict[str, dict[str, Any]]:
    """The schema of a database of either engine, engine-neutral: table -> ``{"columns":
    [(name, kind)], "pk": [columns], "unique": sorted column tuples}``; ``kind`` is ``int``,
    ``str``, ``float`` or ``bytes`` (SQLite's ``INTEGER``/``TEXT``/``FLOAT``/``BLOB``,
    PostgreSQL's ``bigint``/``text``/``double precision``/``bytea``)."""
    kinds = {
        "integer": "int", "bigint": "int", "text": "str", "float": "float", "real": "float",
        "double precision": "float", "blob": "bytes", "bytea": "bytes", "": "str",
    }  # fmt: skip
    out: dict[str, dict[str, Any]] = {}
    if isinstance(getattr(db, "conn", None), sqlite3.Connection):
        for name in db.table_names():
            table = db[name]
            pk = [c.name for c in table.columns if c.is_pk] if table.use_rowid is False else []
            pk = pk or ([] if table.use_rowid else list(table.pks))
            unique = {tuple(i.columns) for i in table.indexes if i.unique}
            unique -= {tuple(pk)}
            out[name] = {
                "columns": [(c.name, kinds[c.type.lower()]) for c in table.columns],
                "pk": pk,
                "unique": sorted(unique),
            }
        return out
    for name in db.table_names():
        pk = db.pks_of(name)
        unique = {tuple(k) for k in db.unique_keys_of(name)} - {tuple(pk)}
        out[name] = {
            "columns": [(c, kinds[t]) for c, t, _ in db.columns_of(name)],
            "pk": pk,
            "unique": sorted(unique),
        }
    return out
