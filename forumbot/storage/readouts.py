"""Read-only queries of the CLI and the demos (:mod:`forumbot.cli`, :mod:`forumbot.demo`).

Exposed as ``storage.readouts`` (:class:`Readouts`). Nothing here writes; each read is one
statement (its own implicit read transaction when none is open). Rows are ``dict[str, Any]``
(column -> value). Issue 27: all SQL lives in storage/.
"""

from __future__ import annotations

from typing import Any

from forumbot.storage.repository import Repository


class Readouts(Repository):
    """What the CLI prints and the demos report (module docstring)."""

    def edit_count(self, target: str, actions: tuple[str, ...]) -> int:
        """How many audit lines of ``target`` (``declaration:<id>``) have one of ``actions``."""
        marks = ",".join("?" for _action in actions)
        row = self.db.execute(
            f"select count(*) from audit_log where target = ? and action in ({marks})",
            [target, *actions],
        ).fetchone()
        return int(row[0] or 0)

    def published_text(self, post_id: int) -> str | None:
        """The text of the declaration published as post ``post_id``, or None."""
        row = self.db.execute(
            "select text from declarations where published_post_id = ?", [post_id]
        ).fetchone()
        return None if row is None else str(row[0])

    def violations(self, duel_id: int) -> list[dict[str, Any]]:
        """The violation rows of a duel, by id."""
        return list(self.db["violations"].rows_where("duel_id = ?", [duel_id], order_by="id"))

    def rewards(self, duel_id: int) -> list[dict[str, Any]]:
        """The reward rows of a duel (``rewards``: character, reward, amount), by id."""
        return list(self.db["rewards"].rows_where("duel_id = ?", [duel_id], order_by="id"))

    def last_published_turn(self, duel_id: int) -> int | None:
        """The highest turn of the duel's published declarations but the opening, or None."""
        row = self.db.execute(
            "select max(turn) from declarations where duel_id = ? and status = 'published' "
            "and kind != 'opening'", [duel_id],
        ).fetchone()  # fmt: skip
        return None if row[0] is None else int(row[0])


__all__ = ["Readouts"]
