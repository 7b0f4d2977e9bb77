"""The base of the rooms' repositories: one object per room over the bot's database.

Issue 27 (« All SQL lives in storage/ »): the rooms (duels/, notify/, ops/, ...) ask
:class:`forumbot.storage.Storage` for what they need through one repository per room
(``storage.notices``, ``storage.duel_rows``, ...); each method is one named query the room
needs, with the SQL it always had. A repository holds the same sqlite-utils ``Database`` as
its :class:`~forumbot.storage.Storage` (one connection: a method called inside
``Storage.atomic()`` is part of that transaction).

Transactions: a method that writes does **not** commit unless its docstring says
« commits »; the caller's ``with storage.atomic():`` (or the connection's implicit
transaction, committed by ``storage.commit()``) is the boundary, as before the move.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import sqlite_utils

StorageOperationalError = sqlite3.OperationalError
"""The engine's error for the database itself (locked, busy, disk full, no such table), not
for one bad row: a room catches it to retry the whole pass (today ``sqlite3.OperationalError``)."""


def insert_once(db: sqlite_utils.Database, table: str, row: dict[str, object]) -> int:
    """``insert or ignore into table (columns of row) values (...)``: the row unless one
    with the same unique key exists (PostgreSQL: ``on conflict do nothing``). Returns the
    rowcount (1: inserted now, 0: there already). Caller's transaction; ``table`` is the
    caller's constant, never player text."""
    return int(
        db.execute(
            f"insert or ignore into {table} ({', '.join(row)}) "
            f"values ({', '.join('?' * len(row))})",
            list(row.values()),
        ).rowcount
    )


def open_task_once(db: sqlite_utils.Database, row: dict[str, object]) -> None:
    """Insert the referee task ``row`` (columns -> values, ``source_key`` among them; status
    ``open`` unless given) unless a task with its ``source_key`` exists (``insert or
    ignore`` on the unique ``source_key``, :func:`insert_once`). The one statement every
    room's tasks go through. Caller's transaction."""
    insert_once(db, "referee_tasks", {"status": "open", **row})


@dataclass(frozen=True)
class Repository:
    """One room's queries over ``db`` (the :class:`~forumbot.storage.Storage`'s database)."""

    db: sqlite_utils.Database

    def _rows(
        self, table: str, where: str, args: Sequence[Any], order_by: str | None = None
    ) -> list[dict[str, Any]]:
        """The rows of ``table`` matching ``where`` (SQLite's dialect, ``?`` filled from
        ``args``), by ``order_by`` when given (else table order), read at once."""
        return list(self.db.table(table).rows_where(where, list(args), order_by=order_by))

    def _row(self, table: str, where: str, args: Sequence[Any]) -> dict[str, Any] | None:
        """The first row of ``table`` matching ``where`` (table order), or None."""
        rows = self._rows(table, where, args)
        return rows[0] if rows else None


@dataclass(frozen=True)
class KeyedRows(Repository):
    """A repository over one table (:attr:`table`) whose rows carry a unique
    ``idempotency_key`` and an id: the owls, the club's posts."""

    table: ClassVar[str]

    def insert(self, row: dict[str, Any]) -> int:
        """Insert ``row`` (column -> value) into :attr:`table`; returns its id."""
        return int(self.db.table(self.table).insert(row).last_pk or 0)

    def by_key(self, key: str) -> dict[str, Any] | None:
        """The row with that ``idempotency_key``, or None."""
        return self._row(self.table, "idempotency_key = ?", [key])

    def update(self, row_id: int, fields: dict[str, Any]) -> None:
        """Set ``fields`` on the row ``row_id`` (sqlite-utils ``update``: it commits by
        itself when no transaction is open)."""
        self.db.table(self.table).update(row_id, fields)


__all__ = ["KeyedRows", "Repository", "StorageOperationalError", "insert_once", "open_task_once"]
