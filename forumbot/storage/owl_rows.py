"""The owl outbox's queries (:mod:`forumbot.publish.owls`): the ``owls`` table.

Exposed as ``storage.owl_rows`` (:class:`OwlRows`). Rows are ``dict[str, Any]`` of ``owls``
(column -> value; timestamps ISO 8601 UTC strings). The SQL is the one the outbox always ran
(issue 27 moved it here verbatim). Exactly once for owls: :meth:`OwlRows.claim` is a
**compare-and-set** (``update owls … where id = ? and status = ?``, its ``rowcount`` says
whether this sender won the row), **committed** on its own before the PM is sent
(:meth:`OwlRows.commit`). Nothing else here commits unless its docstring says so.

Tables: ``owls``, ``publish_marks`` and ``publish_restores`` (read), ``referee_tasks``
(the owl's task: :meth:`forumbot.storage.publish_rows.PublishRows.open_task`).
"""

from __future__ import annotations

from typing import Any

from forumbot.storage.leases import fenced
from forumbot.storage.repository import KeyedRows


class OwlRows(KeyedRows):
    """Queries of :mod:`forumbot.publish.owls` (module docstring); ``insert``, ``by_key`` and
    ``update`` (sqlite-utils ``update``, as the outbox always did) are
    :class:`~forumbot.storage.repository.KeyedRows`'."""

    table = "owls"

    def of_board(self, board_id: int, status: str | None = None) -> list[dict[str, Any]]:
        """The board's owls (only those with ``status`` unless None), by id."""
        if status is None:
            return list(self.db.table("owls").rows_where("board_id = ?", [board_id], order_by="id"))
        return list(
            self.db.table("owls").rows_where(
                "board_id = ? and status = ?", [board_id, status], order_by="id"
            )
        )

    def claim(self, owl_id: int, status: str) -> int:
        """**Compare-and-set** claim: ``update owls set status = 'sending', attempts + 1
        where id = ? and status = ?``; returns the rowcount (1: this sender owns it; 0 also when
        this worker lost the club's lease: :func:`forumbot.storage.leases.fenced`). Does
        not commit: :meth:`commit` follows at once."""
        sql, params = fenced(
            self.db,
            "update owls set status = 'sending', attempts = coalesce(attempts, 0) + 1 "
            "where id = ? and status = ?",
            [owl_id, status],
        )
        return int(self.db.execute(sql, params).rowcount)

    def commit(self) -> None:
        """**Commits** the connection's open transaction (after a claim, after a task)."""
        self.db.conn.commit()

    def fresh_after(self) -> int | None:
        """``publish_marks.owls_fresh_after`` (owls up to it were written before this process
        started), or None when not recorded."""
        mark = self.db.execute(
            "select value from publish_marks where name = 'owls_fresh_after'"
        ).fetchone()
        return int(mark[0]) if mark else None

    def restore_check_until(self) -> str | None:
        """``max(publish_restores.check_until)``, or None."""
        until = self.db.execute("select max(check_until) from publish_restores").fetchone()
        return str(until[0]) if until and until[0] else None

    def queued(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``queued`` owls (table order)."""
        return list(
            self.db.table("owls").rows_where("board_id = ? and status = 'queued'", [board_id])
        )

    def due(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``pending`` and ``sending`` owls, by id."""
        return list(
            self.db.table("owls").rows_where(
                "board_id = ? and status in ('pending', 'sending')", [board_id], order_by="id"
            )
        )


__all__ = ["OwlRows"]
