"""A sqlite-utils ``Database`` that remembers its schema introspection (issue 23: soak speed).

sqlite-utils looks the schema up again on every call: ``db["queue"]`` reads the view names,
``rows_where`` / ``insert`` the table names, ``get`` / ``update`` / ``pks`` a
``PRAGMA table_info``; in the season soak these lookups cost more than the queries they
guard. :class:`SchemaCachedDatabase` keeps the answers of ``table_names()``,
``view_names()`` and each table's ``columns`` until the schema changes.

The schema is known to change when SQLite's ``PRAGMA schema_version`` (the schema cookie,
bumped by every ``CREATE`` / ``DROP`` / ``ALTER`` on any connection, and restored by a
rollback) differs from the one the answers were read under: one pragma per lookup instead
of a scan of ``sqlite_master``, and never a stale answer after a migration, a table
created on first insert, a rolled back migration or another process' change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import sqlite_utils
from sqlite_utils.db import Column, NoTable, Table

T = TypeVar("T")


class SchemaCachedDatabase(sqlite_utils.Database):
    """``sqlite_utils.Database`` whose ``table_names()``, ``view_names()`` and tables'
    ``columns`` are read once per schema version (see the module docstring); everything
    else is sqlite-utils' own. Built with the same arguments as ``sqlite_utils.Database``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._schema_answers: dict[tuple[Any, ...], Any] = {}
        self._schema_version: int | None = None

    def schema_answer(self, key: tuple[Any, ...], read: Callable[[], T]) -> T:
        """The answer stored under ``key`` for the current schema version, read with
        ``read()`` the first time (every stored answer is dropped when the version moved)."""
        version = self.conn.execute("PRAGMA schema_version").fetchone()[0]
        if version != self._schema_version:
            self._schema_answers.clear()
            self._schema_version = version
        try:
            return self._schema_answers[key]  # type: ignore[no-any-return]
        except KeyError:
            answer = self._schema_answers[key] = read()
            return answer

    def table_names(self, fts4: bool = False, fts5: bool = False) -> list[str]:
        """The tables' names (sqlite-utils' ``table_names``, remembered per schema version)."""
        return list(self.schema_answer(
            ("tables", fts4, fts5), lambda: super(SchemaCachedDatabase, self).table_names(
                fts4=fts4, fts5=fts5)))  # fmt: skip

    def view_names(self) -> list[str]:
        """The views' names (sqlite-utils' ``view_names``, remembered per schema version)."""
        return list(self.schema_answer(
            ("views",), lambda: super(SchemaCachedDatabase, self).view_names()))  # fmt: skip

    def table(self, table_name: str, **kwargs: Any) -> Table:
        """A :class:`SchemaCachedTable` (sqlite-utils' ``table``).

        Raises:
            sqlite_utils.db.NoTable: ``table_name`` is a view.
        """
        if table_name in self.view_names():
            raise NoTable(f"Table {table_name} is actually a view")
        kwargs.setdefault("strict", self.strict)
        return SchemaCachedTable(self, table_name, **kwargs)


class SchemaCachedTable(Table):
    """A sqlite-utils ``Table`` whose ``columns`` (hence ``pks``, ``use_rowid``,
    ``columns_dict``) are read once per schema version of its database."""

    db: SchemaCachedDatabase

    @property
    def columns(self) -> list[Column]:
        """The table's columns (``PRAGMA table_info``; ``[]`` while it does not exist)."""
        read: Callable[[], list[Column]] = lambda: Table.columns.fget(self)  # type: ignore[attr-defined]  # noqa: E731
        return list(self.db.schema_answer(("columns", self.name), read))
