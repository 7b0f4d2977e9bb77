"""The duels room's queries on the posts it read: ``posts_seen``, ``post_versions`` and the
dice snapshots of :mod:`forumbot.duels.dice_edits`.

Exposed as ``storage.post_rows`` (:class:`PostRows`). Rows are ``dict[str, Any]`` (column ->
value; times ISO 8601 UTC strings). Nothing here commits: the referee's poll commits what it
wrote (``storage.commit()`` before the publisher reads), as before the SQL moved here (issue
27). A sqlite-utils ``insert`` / ``update`` commits by itself when no transaction is open.

SQLite-only statements kept as they were: ``insert ... ignore=True`` (``insert or ignore``,
:meth:`PostRows.insert_snapshot`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forumbot.storage.repository import Repository


class PostRows(Repository):
    """Posts, their versions and their dice snapshots (module docstring)."""

    def insert_post(self, row: dict[str, Any]) -> None:
        """Insert a ``posts_seen`` row (a post read for the first time)."""
        self.db["posts_seen"].insert(row)

    def latest_version(self, board_id: int, post_id: int) -> int | None:
        """The highest ``post_versions.version`` of a post, or None."""
        row = self.db.execute(
            "select max(version) from post_versions where board_id = ? and post_id = ?",
            [board_id, post_id],
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def insert_version(self, row: dict[str, Any]) -> None:
        """Insert a ``post_versions`` row."""
        self.db["post_versions"].insert(row)

    def versions(self, board_id: int, post_id: int) -> list[dict[str, Any]]:
        """Every stored version of a post, oldest first."""
        return list(
            self.db["post_versions"].rows_where(
                "board_id = ? and post_id = ?", [board_id, post_id], order_by="version"
            )
        )

    def text_seen_by(self, board_id: int, post_id: int, at: str) -> str:
        """The post's text in its last version seen by ``at`` (ISO; "" for none), or ""."""
        row = self.db.execute(
            "select text from post_versions where board_id = ? and post_id = ? and seen_at <= ? "
            "order by version desc limit 1",
            [board_id, post_id, at],
        ).fetchone()
        return str(row[0] or "") if row else ""

    def version_reading(self, board_id: int, post_id: int, version: int) -> tuple[Any, Any] | None:
        """``(text, action_json)`` of one version of a post, or None."""
        row = self.db.execute(
            "select text, action_json from post_versions where board_id = ? and post_id = ? "
            "and version = ?",
            [board_id, post_id, version],
        ).fetchone()
        return None if row is None else (row[0], row[1])

    # -- dice snapshots (table named by the caller: forumbot.duels.dice_edits.TABLE) -------
    def snapshots(self, table: str, board_id: int, post_ids: Sequence[int]) -> dict[int, Any]:
        """``{post_id: row}`` of the snapshots of ``post_ids`` in ``table`` (empty when the
        table does not exist or no post is asked)."""
        if not post_ids or table not in self.db.table_names():
            return {}
        marks = ",".join("?" * len(post_ids))
        rows = self.db.execute(
            f"select * from {table} where board_id = ? and post_id in ({marks})",
            [board_id, *post_ids],
        ).fetchall()
        columns = [c.name for c in self.db.table(table).columns]
        return {int(r[1]): dict(zip(columns, r, strict=True)) for r in rows}

    def insert_snapshot(self, table: str, row: dict[str, Any]) -> None:
        """Insert a snapshot unless the post has one (``ignore=True``)."""
        self.db.table(table).insert(row, ignore=True)

    def update_snapshot(self, table: str, key: tuple[int, int], fields: dict[str, Any]) -> None:
        """Set columns of the snapshot ``(board_id, post_id)``."""
        self.db.table(table).update(key, fields)


__all__ = ["PostRows"]
