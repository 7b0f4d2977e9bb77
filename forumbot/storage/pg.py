"""PostgreSQL under :class:`forumbot.storage.Storage` (issue 27): one database object with the
subset of sqlite-utils' API the storage, the migrations and the rooms use, over psycopg 3.

:class:`PgDatabase` answers like ``sqlite_utils.Database``: ``execute(sql, params)`` with
SQLite's SQL (translated by :mod:`forumbot.storage.pg_dialect`), ``query``, ``db["t"]`` /
``db.table("t")`` (:class:`forumbot.storage.pg_table.PgTable`: ``insert``, ``upsert``, ``get``,
``rows_where``, ``update``, ``delete``, ``create``, ``create_index``, ``add_column``,
``exists``, ``last_pk``), ``table_names``, ``atomic`` and ``conn`` (``in_transaction``,
``commit``, ``rollback``, ``execute``, ``executemany``), so sqlite-utils' ``Migrations`` apply
the same migrations (``_sqlite_migrations`` included) and the same queries run on both engines.

Transactions behave as Python's ``sqlite3`` module (legacy mode) makes them behave: psycopg
runs in autocommit and a write statement (``insert``, ``update``, ``delete``, ``replace``)
outside a transaction opens one, committed by ``conn.commit()``. Each write inside a
transaction runs under a savepoint, so a failed one (a unique key) leaves the transaction
usable, as in SQLite. Errors are raised as ``sqlite3``'s classes (``IntegrityError``,
``OperationalError`` for a lock timeout or an unknown table) with psycopg's as their cause, so
the rooms' ``except sqlite3.OperationalError`` keep working.

The exactly-once primitives (docs/operations.md, "PostgreSQL"):

- ``BEGIN IMMEDIATE`` (take the write lock first) is ``BEGIN`` then
  ``pg_advisory_xact_lock(hashtext('forumbot:write:' || current_schema()))``: one writer at a
  time per club schema, released at commit or rollback. As SQLite has one writer at a time,
  every transaction takes that lock at its first write (``atomic`` at once), so the club's
  writers are serialised as on SQLite (and, holding it before any row lock, never deadlock).
- the compare-and-set ``update ... where status = ?`` is unchanged: under READ COMMITTED a
  concurrent update waits for the row lock and re-checks the condition, so ``rowcount`` is 0
  for the loser.
- the run lock is :func:`forumbot.storage.engine.pg_run_lock` (``pg_try_advisory_lock`` on a
  session of its own).

``select total_changes()`` answers the rows this session's writes changed since it opened
(the rooms compare two readings around a write). ``PRAGMA data_version`` answers a number
that changes when ``pg_current_snapshot()`` changed since the last call (a transaction began
or ended anywhere on the server, this session's own included): it errs on reading again,
never on keeping a stale snapshot. Other pragmas that tune SQLite are accepted and do
nothing; ``PRAGMA integrity_check`` and the rest are refused.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.pq import TransactionStatus

from forumbot.storage.pg_dialect import Untranslatable, quote, translate
from forumbot.storage.pg_table import PgTable

WRITE_LOCK_SQL = "select pg_advisory_xact_lock(hashtext('forumbot:write:' || current_schema()))"
"""The lock ``BEGIN IMMEDIATE`` takes on PostgreSQL (module doc)."""

LOCK_TIMEOUT = "30s"
"""How long a statement waits for a lock before it fails (SQLite's 30 s busy timeout)."""

_NO_OP_PRAGMAS = {
    "foreign_keys", "busy_timeout", "synchronous", "cache_size", "journal_mode", "temp_store",
    "mmap_size", "recursive_triggers", "wal_autocheckpoint",
}  # fmt: skip
_WRITE = re.compile(r"^\s*(insert|update|delete|replace)\b", re.I)
_INSERT_INTO = re.compile(
    r"^\s*insert\s+(?:or\s+\w+\s+)?into\s+(\"(?:[^\"]|\"\")+\"|\[[^\]]+\]|\w+)", re.I
)
_DDL = re.compile(r"^\s*(create|alter|drop)\b", re.I)
_CHANGES = re.compile(r"^\s*select\s+total_changes\s*\(\s*\)\s*;?\s*$", re.I)
_TX = re.compile(r"^\s*(begin|commit|end|rollback|savepoint|release)\b", re.I)


class PgCursor:
    """What ``execute`` returns: the rows read at once (``fetchone``, ``fetchall``, iteration),
    ``rowcount``, ``lastrowid`` (the new id of an ``insert`` into a table with an identity key,
    else None) and ``description``."""

    def __init__(
        self,
        rows: list[tuple[Any, ...]],
        rowcount: int = -1,
        lastrowid: int | None = None,
        description: Sequence[Any] | None = None,
    ) -> None:
        self._rows = rows
        self._at = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid
        self.description = description

    def fetchone(self) -> tuple[Any, ...] | None:
        """The next row, or None."""
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[tuple[Any, ...]]:
        """The rows not fetched yet."""
        rest = self._rows[self._at :]
        self._at = len(self._rows)
        return rest

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


def _sqlite_error(exc: psycopg.Error) -> sqlite3.Error:
    """The ``sqlite3`` exception the rooms expect for a psycopg error (module doc)."""
    text = f"{type(exc).__name__}: {exc}".strip()
    if isinstance(exc, pg_errors.IntegrityError):
        return sqlite3.IntegrityError(text)
    if isinstance(exc, pg_errors.LockNotAvailable | pg_errors.DeadlockDetected):
        return sqlite3.OperationalError(f"database is locked ({text})")
    if isinstance(exc, pg_errors.OperationalError | pg_errors.ProgrammingError):
        return sqlite3.OperationalError(text)
    return sqlite3.DatabaseError(text)


def _param(value: Any) -> Any:
    """A parameter as SQLite would store it: booleans as integers."""
    return int(value) if isinstance(value, bool) else value


class PgConnection:
    """The ``db.conn`` of a :class:`PgDatabase`: ``sqlite3.Connection``'s transaction control
    (``in_transaction``, ``commit``, ``rollback``, ``execute``, ``executemany``, ``close``)."""

    def __init__(self, db: PgDatabase) -> None:
        self._db = db

    @property
    def in_transaction(self) -> bool:
        """True between a ``BEGIN`` (explicit or implied by a write) and its end."""
        return self._db.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> PgCursor:
        """:meth:`PgDatabase.execute`."""
        return self._db.execute(sql, params)

    def executemany(self, sql: str, seq: Iterable[Sequence[Any]]) -> PgCursor:
        """Run ``sql`` once per parameter row; ``rowcount`` is the total."""
        total = 0
        for params in seq:
            total += max(self._db.execute(sql, params).rowcount, 0)
        return PgCursor([], total)

    def set_trace_callback(self, callback: Any) -> None:
        """Call ``callback(sql)`` with each statement sent (None: stop), as ``sqlite3`` does
        (the tests count queries with it)."""
        self._db.trace = callback

    def commit(self) -> None:
        """Commit the open transaction (nothing when none is open)."""
        if self.in_transaction:
            self._db.raw.execute("commit")

    def rollback(self) -> None:
        """Roll back the open transaction (nothing when none is open)."""
        if self.in_transaction:
            self._db.raw.execute("rollback")

    def close(self) -> None:
        """Close the session (an open transaction is rolled back by the server)."""
        self._db.raw.close()


class PgDatabase:
    """A PostgreSQL database (one schema of it) with sqlite-utils' API (module doc).

    Attributes:
        raw: the psycopg connection (autocommit; transactions driven as ``sqlite3`` does).
        conn: the :class:`PgConnection` (``sqlite3.Connection``'s transaction control).
        url: the connection URL it was opened with (without a password it may hold).
    """

    def __init__(self, raw: psycopg.Connection[Any], url: str) -> None:
        self.raw = raw
        self.url = url
        self.conn = PgConnection(self)
        self._version = itertools.count(1)
        self._sql: dict[str, str] = {}
        self._schema: dict[str, Any] = {}
        self.trace: Any = None
        self._snapshot: str | None = None
        self._tx_locked = False
        self._changes = 0
        self._version_now = 0
        self.lease_fence: Any = None  # forumbot.storage.leases.Fence under a serve lease
        raw.execute(f"set lock_timeout = '{LOCK_TIMEOUT}'")

    # -- statements ----------------------------------------------------------------------
    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> PgCursor:
        """Run one SQLite statement (translated); ``params`` fill its ``?`` in order.

        Raises:
            Untranslatable: SQL with no translation (:mod:`forumbot.storage.pg_dialect`), or
                a refused pragma.
            sqlite3.IntegrityError, sqlite3.OperationalError, sqlite3.DatabaseError: the
                server refused it (module doc).
        """
        if isinstance(params, dict):
            raise Untranslatable("named parameters (:name) are not translated; use ?")
        head = sql.lstrip()[:16].lower()
        if head.startswith("pragma"):
            return self._pragma(sql)
        if _TX.match(sql):
            return self._transaction(sql)
        if _CHANGES.match(sql):
            return PgCursor([(self._changes,)])
        text = self._translated(sql)
        args = [_param(p) for p in (params or ())]
        identity = None
        if _WRITE.match(sql):
            insert = _INSERT_INTO.match(sql)
            if insert is not None and " returning " not in text.lower():
                identity = self.identity_of(_unquote(insert.group(1)))
                if identity:
                    text += f" returning {quote(identity)}"
            if not self.conn.in_transaction:
                self._begin(write=True)
            elif not self._tx_locked:
                self._write_lock()
            return self._in_savepoint(text, args, identity is not None)
        cursor = self._run(text, args)
        if _DDL.match(sql):
            self._schema.clear()
        return cursor

    def _run(self, text: str, args: list[Any]) -> PgCursor:
        if self.trace is not None:
            self.trace(text)
        try:
            cur = self.raw.execute(text, args)
        except psycopg.Error as exc:
            raise _sqlite_error(exc) from exc
        rows = cur.fetchall() if cur.description is not None else []
        if _WRITE.match(text):
            self._changes += max(cur.rowcount, 0)
        return PgCursor(rows, cur.rowcount, None, cur.description)

    def _in_savepoint(self, text: str, args: list[Any], returning: bool) -> PgCursor:
        """A write inside the open transaction, undone alone when it fails (module doc)."""
        self.raw.execute("savepoint forumbot_stmt")
        try:
            cursor = self._run(text, args)
        except sqlite3.Error:
            self.raw.execute("rollback to savepoint forumbot_stmt")
            self.raw.execute("release savepoint forumbot_stmt")
            raise
        self.raw.execute("release savepoint forumbot_stmt")
        if returning:
            ids = cursor.fetchall()
            cursor = PgCursor([], cursor.rowcount, int(ids[-1][0]) if ids else None)
        return cursor

    def _translated(self, sql: str) -> str:
        text = self._sql.get(sql)
        if text is None:
            text = translate(sql, self.pks_of)
            self._sql[sql] = text
        return text

    def _pragma(self, sql: str) -> PgCursor:
        match = re.match(r"^\s*pragma\s+(\w+)", sql, re.I)
        name = match.group(1).lower() if match else ""
        if name == "data_version":
            return PgCursor([(self._data_version(),)])
        if name in _NO_OP_PRAGMAS:
            return PgCursor([])
        raise Untranslatable(f"PRAGMA {name} is SQLite's; it has no PostgreSQL equivalent here")

    def _begin(self, *, write: bool) -> None:
        """``BEGIN``; ``write``: with the write lock taken first (module doc)."""
        self.raw.execute("begin")
        self._tx_locked = False
        if write:
            self._write_lock()

    def _write_lock(self) -> None:
        """Take the club's write lock for the rest of the open transaction (waiting up to
        :data:`LOCK_TIMEOUT`; the transaction is rolled back when it cannot)."""
        try:
            self.raw.execute(WRITE_LOCK_SQL)
        except psycopg.Error as exc:
            self.raw.execute("rollback")
            raise _sqlite_error(exc) from exc
        self._tx_locked = True

    def _data_version(self) -> int:
        """A number that changes when a transaction began or ended anywhere on the server
        since the last call (``pg_current_snapshot()`` changed): SQLite's ``data_version``
        changes only for other connections' commits; this one changes for this session's own
        writes and other schemas' too, so it errs on reading again."""
        snapshot = self._run("select pg_current_snapshot()::text", []).fetchall()[0][0]
        if snapshot != self._snapshot:
            self._snapshot = snapshot
            self._version_now = next(self._version)
        return self._version_now

    def _transaction(self, sql: str) -> PgCursor:
        words = sql.strip().rstrip(";").lower().split()
        if words[0] == "begin":
            self._begin(write=len(words) > 1 and words[1] in ("immediate", "exclusive"))
            return PgCursor([])
        if words[0] in ("commit", "end"):
            self.conn.commit()
            return PgCursor([])
        if words[0] == "rollback" and len(words) == 1:
            self.conn.rollback()
            return PgCursor([])
        return self._run(sql, [])

    def query(self, sql: str, params: Sequence[Any] | None = None) -> Iterator[dict[str, Any]]:
        """The rows of a SELECT as dicts (column -> value)."""
        cursor = self.execute(sql, params)
        names = [d.name for d in cursor.description or ()]
        for row in cursor.fetchall():
            yield dict(zip(names, row, strict=True))

    @contextmanager
    def atomic(self) -> Iterator[PgDatabase]:
        """A transaction (a savepoint inside an open one), committed at the end of the block,
        rolled back on any error (sqlite-utils' ``Database.atomic``)."""
        if self.conn.in_transaction:
            self.raw.execute("savepoint forumbot_atomic")
            try:
                yield self
            except BaseException:
                if self.conn.in_transaction:
                    self.raw.execute("rollback to savepoint forumbot_atomic")
                    self.raw.execute("release savepoint forumbot_atomic")
                raise
            self.raw.execute("release savepoint forumbot_atomic")
            return
        self._begin(write=True)
        try:
            yield self
        except BaseException:
            self.conn.rollback()
            raise
        try:
            self.raw.execute("commit")
        except psycopg.Error as exc:
            self.conn.rollback()
            raise _sqlite_error(exc) from exc

    # -- tables --------------------------------------------------------------------------
    def __getitem__(self, name: str) -> PgTable:
        return PgTable(self, name)

    def table(self, name: str) -> PgTable:
        """The table ``name`` (it need not exist yet)."""
        return PgTable(self, name)

    def table_names(self) -> list[str]:
        """Tables of the current schema, by name."""
        rows = self._run(
            "select table_name from information_schema.tables where table_schema = "
            "current_schema() and table_type = 'BASE TABLE' order by table_name",
            [],
        ).fetchall()
        return [str(r[0]) for r in rows]

    def columns_of(self, table: str) -> list[tuple[str, str, bool]]:
        """``[(column, PostgreSQL type, not null)]`` of ``table`` in order (cached until DDL)."""
        key = f"columns:{table}"
        if key not in self._schema:
            rows = self._run(
                "select column_name, data_type, is_nullable = 'NO' from "
                "information_schema.columns where table_schema = current_schema() and "
                "table_name = %s order by ordinal_position",
                [table],
            ).fetchall()
            self._schema[key] = [(str(r[0]), str(r[1]), bool(r[2])) for r in rows]
        return list(self._schema[key])

    def _index_columns(self, table: str, primary: bool) -> list[list[str]]:
        key = f"{'pk' if primary else 'unique'}:{table}"
        if key not in self._schema:
            rows = self._run(
                "select i.indexrelid, a.attname from pg_index i join pg_attribute a on "
                "a.attrelid = i.indrelid and a.attnum = any(i.indkey) where i.indrelid = "
                "to_regclass(quote_ident(%s)) and i.indisunique and i.indisprimary = %s "
                "order by i.indexrelid, array_position(i.indkey::int2[], a.attnum)",
                [table, primary],
            ).fetchall()
            groups: dict[int, list[str]] = {}
            for index, column in rows:
                groups.setdefault(int(index), []).append(str(column))
            self._schema[key] = list(groups.values())
        return [list(g) for g in self._schema[key]]

    def pks_of(self, table: str) -> list[str]:
        """The primary key columns of ``table`` (empty: none, or no such table)."""
        found = self._index_columns(table, primary=True)
        return found[0] if found else []

    def unique_keys_of(self, table: str) -> list[list[str]]:
        """The primary key and every unique index of ``table``, as column lists."""
        return self._index_columns(table, primary=True) + self._index_columns(table, False)

    def identity_of(self, table: str) -> str | None:
        """The identity (auto-numbered) column of ``table``, or None."""
        key = f"identity:{table}"
        if key not in self._schema:
            row = self._run(
                "select column_name from information_schema.columns where table_schema = "
                "current_schema() and table_name = %s and is_identity = 'YES'",
                [table],
            ).fetchone()
            self._schema[key] = str(row[0]) if row else None
        found: str | None = self._schema[key]
        return found

    def forget_schema(self) -> None:
        """Drop the cached table descriptions (after DDL)."""
        self._schema.clear()

    def enable_wal(self) -> None:
        """Nothing: PostgreSQL always logs ahead."""

    def close(self) -> None:
        """Close the session."""
        self.raw.close()


def _unquote(name: str) -> str:
    if name.startswith("[") or name.startswith('"'):
        return name[1:-1].replace('""', '"')
    return name
