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
from dataclasses import dataclass

import sqlite_utils

StorageOperationalError = sqlite3.OperationalError
"""The engine's error for the database itself (locked, busy, disk full, no such table), not
for one bad row: a room catches it to retry the whole pass (today ``sqlite3.OperationalError``)."""


def open_task_once(db: sqlite_utils.Database, row: dict[str, object]) -> None:
    """Insert the referee task ``row`` (columns -> values, ``source_key`` among them; status
    ``open`` unless given) unless a task with its ``source_key`` exists (``insert or
    ignore`` on the unique ``source_key``). The one statement every room's tasks go through.
    Caller's transaction."""
    row = {"status": "open", **row}
    db.execute(
        f"insert or ignore into referee_tasks ({', '.join(row)}) "
        f"values ({', '.join('?' * len(row))})",
        list(row.values()),
    )


@dataclass(frozen=True)
class Repository:
    """One room's queries over ``db`` (the :class:`~forumbot.storage.Storage`'s database)."""

    db: sqlite_utils.Database


__all__ = ["Repository", "StorageOperationalError", "open_task_once"]
