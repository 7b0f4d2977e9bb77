"""A sqlite-utils ``Database`` that reads the schema once per schema change (issue 27, CPU).

sqlite-utils looks the schema up at almost every call: ``db["t"]`` lists the views (is
``t`` a view?), ``rows_where``, ``count`` and ``columns`` list the tables (``exists``),
``get``, ``insert`` and ``update`` read ``PRAGMA table_info`` (the primary keys). Measured on
one club of ``forumbot serve`` (``bench/bench_club_cpu.py``): more than half of the SQL
statements of a poll, publish or notify pass were these ``sqlite_master`` reads, about 50 µs
each on a 73-entry schema.

:class:`SchemaCachedDatabase` keeps the table names, view names and each table's columns
and answers from them while SQLite's ``PRAGMA schema_version`` (a counter in the database
header that every schema change increments, on this connection or any other, and that a
rolled-back change restores) reads the same as when they were read: one 6 µs statement
instead of one ``sqlite_master`` scan per lookup. Any change of schema (a migration, a
``create``, an ``add_column``, another process's migration) gives a new version, hence a
fresh read: an answer is never older than the schema it describes.

One answer skips even that statement: a name the cache knows as a table is taken as a
table (``exists()`` True, ``db[name]`` a table) without reading ``schema_version``. Each
statement is a release of the interpreter lock, and at 100 clubs in one process these
lookups were two thirds of the statements of a pass. It is never silently wrong: had the
table been dropped since (by any connection, or by a rolled-back change of this one), the
query that follows fails with SQLite's own "no such table", read against the real schema;
a table recreated under the same name is read as it is now. Every other answer (a name not
known as a table: a new table, a view; the columns) is checked against ``schema_version``
first, since a stale "no such table" would read as no rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlite_utils
from sqlite_utils.db import Column, NoTable, Table


@dataclass
class _Schema:
    """The schema as read at one ``schema_version``: names, and columns per table as read."""

    version: int
    tables: tuple[str, ...]
    views: tuple[str, ...]
    columns: dict[str, list[Column]] = field(default_factory=dict)


class SchemaCachedDatabase(sqlite_utils.Database):
    """``sqlite_utils.Database`` whose ``table_names()``, ``view_names()`` and tables'
    ``columns`` are read again only when ``PRAGMA schema_version`` changed (module doc).
    Same constructor arguments and answers as ``sqlite_utils.Database``; the FTS filters of
    ``table_names(fts4=..., fts5=...)`` are read from ``sqlite_master`` each time."""

    _schema_cache: _Schema | None = None

    def schema_snapshot(self) -> _Schema:
        """The schema at the current ``schema_version`` (read from ``sqlite_master`` when it
        changed since the last call). Raises sqlite3 errors as ``execute`` does."""
        version = int(self.execute("PRAGMA schema_version").fetchone()[0])
        cached = self._schema_cache
        if cached is None or cached.version != version:
            rows = self.execute("select name, type from sqlite_master").fetchall()
            cached = _Schema(
                version,
                tables=tuple(name for name, kind in rows if kind == "table"),
                views=tuple(name for name, kind in rows if kind == "view"),
            )
            self._schema_cache = cached
        return cached

    def table_names(self, fts4: bool = False, fts5: bool = False) -> list[str]:
        """The tables' names (sqlite_master order), from the cached schema unless an FTS
        filter is asked."""
        if fts4 or fts5:
            return super().table_names(fts4=fts4, fts5=fts5)
        return list(self.schema_snapshot().tables)

    def view_names(self) -> list[str]:
        """The views' names, from the cached schema."""
        return list(self.schema_snapshot().views)

    def has_table(self, name: str) -> bool:
        """True when ``name`` is a table: known as one (not checked again: module doc), or
        one at the current ``schema_version``."""
        known = self._schema_cache
        if known is not None and name in known.tables:
            return True
        return name in self.schema_snapshot().tables

    def is_view(self, name: str) -> bool:
        """True when ``name`` is a view at the current ``schema_version`` (a name known as a
        table is not: module doc)."""
        known = self._schema_cache
        if known is not None and name in known.tables:
            return False
        return name in self.schema_snapshot().views

    def __getitem__(self, table_name: str) -> Any:
        """``db[name]``: a :class:`_CachedTable`, or a view when ``name`` is one."""
        if self.is_view(table_name):
            return self.view(table_name)
        return self.table(table_name)

    def table(self, table_name: str, **kwargs: Any) -> Table:
        """``sqlite_utils.Database.table``, giving a :class:`_CachedTable`.

        Raises:
            sqlite_utils.db.NoTable: ``table_name`` is a view.
        """
        if self.is_view(table_name):
            raise NoTable(f"Table {table_name} is actually a view")
        kwargs.setdefault("strict", self.strict)
        return _CachedTable(self, table_name, **kwargs)


class _CachedTable(Table):
    """A table whose ``exists()`` and ``columns`` (``PRAGMA table_info``) come from the
    database's cached schema."""

    db: SchemaCachedDatabase

    def exists(self) -> bool:
        """True when the table exists (:meth:`SchemaCachedDatabase.has_table`)."""
        return self.db.has_table(self.name)

    @property
    def columns(self) -> list[Column]:
        """The table's columns ([] when it does not exist), read once per schema version."""
        schema = self.db.schema_snapshot()
        if self.name not in schema.tables:
            return []
        found = schema.columns.get(self.name)
        if found is None:
            rows = self.db.execute(
                f"PRAGMA table_info({sqlite_utils.db.quote_identifier(self.name)})"
            ).fetchall()
            found = schema.columns[self.name] = [Column(*row) for row in rows]
        return list(found)
