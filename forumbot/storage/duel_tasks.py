"""The duels room's queries on referee tasks and deadlines.

Exposed as ``storage.duel_tasks`` (:class:`DuelTasks`), for :mod:`forumbot.duels`. Rows are
``dict[str, Any]`` (column -> value; timestamps ISO 8601 UTC strings). Nothing here commits
unless its docstring says so: the room's ``with storage.atomic():`` blocks are the
transactions, as before the SQL moved here (issue 27). The deadline claim
(:meth:`DuelTasks.claim_deadline`) is the compare-and-set ``... where id = ? and status =
'pending'`` that makes a relaunch fire once.

Tables: ``referee_tasks`` (unique ``source_key``), ``deadlines`` (one per declaration).

SQLite-only statements kept as they were: ``insert or ignore`` (:meth:`DuelTasks.add_task`,
:meth:`DuelTasks.add_hold_task`, :meth:`DuelTasks.add_moved_task`), ``insert ... ignore=True``
(:meth:`DuelTasks.insert_deadline`), ``select total_changes()``
(:meth:`DuelTasks.total_changes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forumbot.storage.repository import Repository, open_task_once


class DuelTasks(Repository):
    """Referee tasks and deadlines of :mod:`forumbot.duels` (module docstring)."""

    # -- referee tasks --------------------------------------------------------------------
    def task(self, task_id: int) -> dict[str, Any]:
        """One ``referee_tasks`` row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["referee_tasks"].get(task_id))

    def task_exists(self, source_key: str) -> bool:
        """True when a task with ``source_key`` exists (any status)."""
        return bool(
            self.db.execute("select 1 from referee_tasks where source_key = ?", [source_key])
            .fetchone()
        )

    def add_task(self, values: list[Any]) -> None:
        """Open a task unless one with its ``source_key`` exists (``insert or ignore``).
        ``values``: board_id, duel_id, kind, source_key, duellist, zone, subject, text,
        mechanism, post_id, created_at. Caller's transaction."""
        columns = ("board_id", "duel_id", "kind", "source_key", "duellist", "zone", "subject",
                   "text", "mechanism", "post_id", "created_at")  # fmt: skip
        open_task_once(self.db, dict(zip(columns, values, strict=True)))

    def add_hold_task(self, values: list[Any]) -> None:
        """Open a task of a held duel unless its ``source_key`` exists (``insert or
        ignore``). ``values``: board_id, duel_id, kind, source_key, subject, text,
        created_at. Caller's transaction."""
        columns = ("board_id", "duel_id", "kind", "source_key", "subject", "text", "created_at")
        open_task_once(self.db, dict(zip(columns, values, strict=True)))

    def add_moved_task(self, values: list[Any]) -> None:
        """Open a ``topic_moved`` task unless its ``source_key`` exists (``insert or
        ignore``). ``values``: board_id, duel_id, source_key, subject, text, created_at,
        note. Caller's transaction."""
        columns = ("board_id", "duel_id", "source_key", "subject", "text", "created_at", "note")
        open_task_once(self.db, {"kind": "topic_moved", **dict(zip(columns, values, strict=True))})

    def moved_task_open(self, duel_id: int) -> bool:
        """True when the duel has an open ``topic_moved`` task."""
        return (
            self.db.execute(
                "select 1 from referee_tasks where duel_id = ? and kind = 'topic_moved' "
                "and status = 'open'",
                [duel_id],
            ).fetchone()
            is not None
        )

    def kind_count(self, duel_id: int, kind: str) -> int:
        """How many tasks of ``kind`` the duel has had (any status)."""
        (count,) = self.db.execute(
            "select count(*) from referee_tasks where duel_id = ? and kind = ?", [duel_id, kind]
        ).fetchone()
        return int(count)

    def open_count(self, duel_id: int, kind: str) -> int:
        """How many open tasks of ``kind`` the duel has."""
        return int(
            self.db.execute(
                "select count(*) from referee_tasks where duel_id = ? and kind = ? "
                "and status = 'open'",
                [duel_id, kind],
            ).fetchone()[0]
        )

    def total_changes(self) -> int:
        """SQLite's ``total_changes()`` of the connection (rows written since it opened)."""
        return int(self.db.execute("select total_changes()").fetchone()[0])

    def open_of_kinds(self, duel_id: int, kinds: Sequence[str]) -> list[int]:
        """Ids of the duel's open tasks of one of ``kinds``."""
        return [
            int(r[0])
            for r in self.db.execute(
                "select id from referee_tasks where duel_id = ? and status = 'open' and kind in "
                f"({', '.join('?' for _ in kinds)})",
                [duel_id, *kinds],
            ).fetchall()
        ]

    def mark_done(self, task_id: int, at: str, by: str, note: str) -> None:
        """Set a task ``done`` (by whom, why). Caller's transaction."""
        self.db.execute(
            "update referee_tasks set status = 'done', done_at = ?, done_by = ?, note = ? "
            "where id = ?",
            [at, by, note, task_id],
        )

    def close_open(self, task_id: int, status: str, at: str, by: str, note: str) -> int:
        """Compare-and-set: an ``open`` task gets ``status``. Returns the rows changed (1:
        closed now). Caller's transaction (or commit)."""
        return int(
            self.db.execute(
                "update referee_tasks set status = ?, done_at = ?, done_by = ?, note = ? "
                "where id = ? and status = 'open'",
                [status, at, by, note, task_id],
            ).rowcount
        )

    def board_tasks(self, board_id: int, status: str | None) -> list[dict[str, Any]]:
        """The board's tasks (of ``status``; None: all), oldest first."""
        if status is None:
            return list(
                self.db["referee_tasks"].rows_where("board_id = ?", [board_id], order_by="id")
            )
        return list(
            self.db["referee_tasks"].rows_where(
                "board_id = ? and status = ?", [board_id, status], order_by="id"
            )
        )

    def solved_mechanisms(self, duel_id: int) -> list[dict[str, Any]]:
        """The duel's ``mechanism`` tasks judged ``solved``, oldest first."""
        return list(
            self.db["referee_tasks"].rows_where(
                "duel_id = ? and kind = 'mechanism' and status = 'solved'", [duel_id],
                order_by="id",
            )
        )  # fmt: skip

    def open_with_key_like(self, kind: str, pattern: str) -> list[dict[str, Any]]:
        """Open tasks of ``kind`` whose ``source_key`` is ``like`` ``pattern``."""
        return list(
            self.db["referee_tasks"].rows_where(
                "kind = ? and status = 'open' and source_key like ?", [kind, pattern]
            )
        )

    def update_task(self, task_id: int, fields: dict[str, Any]) -> None:
        """Set columns of a task (sqlite-utils ``update``)."""
        self.db["referee_tasks"].update(task_id, fields)

    # -- deadlines ------------------------------------------------------------------------
    def deadline(self, deadline_id: int) -> dict[str, Any]:
        """One ``deadlines`` row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["deadlines"].get(deadline_id))

    def supersede_others(self, duel_id: int, decl_id: int) -> None:
        """The duel's pending deadlines of other declarations are ``superseded``."""
        self.db.execute(
            "update deadlines set status = 'superseded', note = 'a newer declaration' "
            "where duel_id = ? and status = 'pending' and declaration_id != ?",
            [duel_id, decl_id],
        )

    def insert_deadline(self, row: dict[str, Any]) -> int | None:
        """Insert the deadline of a declaration unless it has one (``ignore=True``); returns
        the id of the declaration's deadline (new or existing)."""
        self.db["deadlines"].insert(row, ignore=True)
        found = self.db.execute(
            "select id from deadlines where declaration_id = ?", [row["declaration_id"]]
        ).fetchone()
        return int(found[0]) if found else None

    def claim_deadline(self, deadline_id: int, status: str, at: str, note: str) -> bool:
        """Compare-and-set: a ``pending`` deadline gets ``status`` (fired, superseded).
        True when this call changed it (a deadline fires once). Caller's transaction."""
        done = self.db.execute(
            "update deadlines set status = ?, fired_at = ?, note = ? where id = ? "
            "and status = 'pending'",
            [status, at, note, deadline_id],
        ).rowcount
        return bool(done == 1)

    def pending_ids(self, board_id: int, forum_id: int | None) -> list[int]:
        """Ids of the pending deadlines of the board's duels not held (in ``forum_id``)."""
        rows = self.db.execute(
            "select d.id from deadlines d join duels u on u.id = d.duel_id "
            "where d.status = 'pending' and u.board_id = ? and u.held_at is null"
            + (" and u.forum_id = ?" if forum_id is not None else "")
            + " order by d.id",
            [board_id] + ([forum_id] if forum_id is not None else []),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def fired_with_note_prefix(self, declaration_id: int, prefix: str) -> bool:
        """Whether a deadline of ``declaration_id`` fired with a note starting ``prefix``
        (2v2: ``short_turn:``, the posts that came declared as they are)."""
        row = self.db.execute(
            "select count(*) from deadlines where declaration_id = ? and status = 'fired' "
            "and note like ?", [declaration_id, prefix + "%"],
        ).fetchone()  # fmt: skip
        return bool(row[0])

    def pending_of(self, duel_id: int) -> list[dict[str, Any]]:
        """The duel's pending deadlines, oldest first."""
        return list(
            self.db["deadlines"].rows_where(
                "duel_id = ? and status = 'pending'", [duel_id], order_by="id"
            )
        )

    def latest_of(self, duel_id: int) -> dict[str, Any] | None:
        """The duel's newest ``deadlines`` row, whatever its status, or None (no deadline yet:
        a classic duel never has one)."""
        rows = list(
            self.db["deadlines"].rows_where("duel_id = ?", [duel_id], order_by="id desc", limit=1)
        )
        return dict(rows[0]) if rows else None

    def update_deadline(self, deadline_id: int, fields: dict[str, Any]) -> None:
        """Set columns of a deadline (sqlite-utils ``update``)."""
        self.db["deadlines"].update(deadline_id, fields)

    def cancel_pending(self, duel_id: int, note: str, at: str) -> None:
        """The duel's pending deadlines are ``cancelled`` (``note``: why). Caller's
        transaction."""
        self.db.execute(
            "update deadlines set status = 'cancelled', note = ?, fired_at = ? "
            "where duel_id = ? and status = 'pending'",
            [note, at, duel_id],
        )

    def cancel_pending_silently(self, duel_id: int) -> None:
        """The duel's pending deadlines are ``cancelled`` (no note, no time: a
        re-adoption). Caller's transaction."""
        self.db.execute(
            "update deadlines set status = 'cancelled' where duel_id = ? and status = 'pending'",
            [duel_id],
        )

    def supersede_finished(self, duel_id: int) -> None:
        """The pending deadlines of a finished duel are ``superseded``."""
        self.db.execute(
            "update deadlines set status = 'superseded', note = 'duel finished' "
            "where duel_id = ? and status = 'pending'",
            [duel_id],
        )

    def rearm_last_fired(self, duel_id: int) -> None:
        """The duel's last ``fired`` deadline is ``pending`` again (its relaunch is drafted
        again at its next sweep)."""
        self.db.execute(
            "update deadlines set status = 'pending', fired_at = null where id = (select "
            "max(id) from deadlines where duel_id = ? and status = 'fired')", [duel_id])

    def clear_reminder(self, deadline_id: int) -> None:
        """Forget that the deadline's owl reminder was sent; **commits**."""
        self.db.execute("update deadlines set reminded_at = null where id = ?", [deadline_id])
        self.db.conn.commit()

    def next_due(self) -> str | None:
        """The earliest ``due_at`` of a pending deadline, or None."""
        row = self.db.execute(
            "select min(due_at) from deadlines where status = 'pending'"
        ).fetchone()
        return str(row[0]) if row and row[0] else None


__all__ = ["DuelTasks"]
