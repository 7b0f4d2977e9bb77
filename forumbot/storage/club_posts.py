"""The club's own posts (:mod:`forumbot.club.posts`): sign-up replies and the leaderboard post.

Exposed as ``storage.club_posts`` (:class:`ClubPosts`). Rows are ``dict[str, Any]`` of
``club_posts`` (column -> value; timestamps ISO 8601 UTC strings). The SQL is the one the desk
always ran (issue 27 moved it here verbatim). The exactly-once path, named for a second engine
to map as :mod:`forumbot.storage.publish_rows` does:

- **compare-and-set** (:meth:`ClubPosts.claim`: ``update club_posts set status =
  'publishing' … where id = ? and status = ?``, whose ``rowcount`` says whether this publisher
  won the row), **committed** at once, before any request to the board;
- the other writes are sqlite-utils ``insert`` / ``update``, which commit by themselves when no
  transaction is open (inside the caller's ``with storage.atomic():`` they are part of it).

Table: ``club_posts`` only.
"""

from __future__ import annotations

from typing import Any

from forumbot.storage.leases import fenced
from forumbot.storage.repository import KeyedRows


class ClubPosts(KeyedRows):
    """Queries of :mod:`forumbot.club.posts` (module docstring); ``insert`` (a draft),
    ``by_key`` and ``update`` are :class:`~forumbot.storage.repository.KeyedRows`'."""

    table = "club_posts"

    def claim(self, post_id: int, status: str, updated_at: str) -> int:
        """**Compare-and-set** claim, **commits**: ``update club_posts set status =
        'publishing', attempts + 1, updated_at … where id = ? and status = ?`` (``status``:
        the one the caller read), then the connection's transaction committed (the claim is
        its own transaction, before any request to the board). Returns the rowcount (1: this
        publisher owns the row; 0: another one claimed it or it changed, or this ``serve``
        worker lost the club's lease: :func:`forumbot.storage.leases.fenced`)."""
        sql, params = fenced(
            self.db,
            "update club_posts set status = 'publishing', attempts = coalesce(attempts, 0) + 1, "
            "updated_at = ? where id = ? and status = ?",
            [updated_at, post_id, status],
        )
        claimed = self.db.execute(sql, params).rowcount
        self.db.conn.commit()
        return int(claimed)

    def due(self, board_id: int, now: str) -> list[dict[str, Any]]:
        """The board's club posts due at ``now`` (ISO): left ``publishing``, or ``draft`` with
        ``publish_after <= now``; by id."""
        return self._rows(
            self.table,
            "board_id = ? and (status = 'publishing' or (status = 'draft' and publish_after <= ?))",
            [board_id, now],
            order_by="id",
        )


__all__ = ["ClubPosts"]
