"""The sign-up desk's queries (:mod:`forumbot.club`): engagements, inbox, topics, profiles, threads.

Exposed as ``storage.club_rows`` (:class:`ClubRows`; the desks' lobby, withdrawals and
cancellations are :mod:`forumbot.storage.signup_rows`, the club's own posts
:mod:`forumbot.storage.club_posts`, the rewards and leaderboards
:mod:`forumbot.storage.reward_rows`). Rows are ``dict[str, Any]`` of the table named (column
-> value; timestamps ISO 8601 UTC strings). The SQL is the one the desk always ran (issue 27
moved it here verbatim). Nothing here commits unless its docstring says so: the desk's
``with storage.atomic():`` blocks and its ``storage.commit()`` calls are the boundaries, as
before the move.

Tables: ``requests``, ``queue``, ``duo_entries``, ``duo_matches``, ``duo_duels``,
``inbox_seen``, ``referee_tasks``, ``duellist_profiles``, ``registration_threads``,
``boards``, ``duels``.

SQLite-only statements kept as they were: ``insert or ignore`` (:meth:`ClubRows.open_task`),
sqlite-utils ``insert(ignore=True)`` (``insert or ignore``: :meth:`ClubRows.mark_inbox_seen`,
:meth:`ClubRows.insert_profile`) and ``upsert`` (``insert … on conflict do update``:
:meth:`ClubRows.upsert_profile`, :meth:`ClubRows.set_thread_mark`).
"""

from __future__ import annotations

from typing import Any

from forumbot.storage.repository import Repository, open_task_once

TOPIC_TABLES = ("queue", "duo_matches")
"""The tables whose rows open a duel topic (:meth:`ClubRows.count_topic_attempt`)."""


class ClubRows(Repository):
    """Queries of :mod:`forumbot.club` (module docstring)."""

    # -- engagements ----------------------------------------------------------------------
    def open_requests(self, board_id: int) -> list[tuple[Any, ...]]:
        """``(post_id, player)`` of the board's ``open`` 1v1 requests."""
        return list(
            self.db.execute(
                "select post_id, player from requests where board_id = ? and status = 'open'",
                [board_id],
            ).fetchall()
        )

    def live_pairings(self, board_id: int) -> list[tuple[Any, ...]]:
        """``(id, status, first_player, second_player)`` of the board's 1v1 pairings
        ``queued`` / ``opening`` / ``running`` whose duel is not ``finished``."""
        return list(
            self.db.execute(
                "select q.id, q.status, q.first_player, q.second_player from queue q "
                "left join duels d on d.id = q.duel_id where q.board_id = ? "
                "and q.status in ('queued', 'opening', 'running') "
                "and (d.status is null or d.status != 'finished')",
                [board_id],
            ).fetchall()
        )

    def open_duo_entries(self, board_id: int) -> list[tuple[Any, ...]]:
        """``(post_id, player, mate_player)`` of the board's 2v2 entries ``lone`` / ``duo``."""
        return list(
            self.db.execute(
                "select post_id, player, mate_player from duo_entries where board_id = ? "
                "and status in ('lone', 'duo')",
                [board_id],
            ).fetchall()
        )

    def live_duo_matches(self, board_id: int) -> list[tuple[Any, ...]]:
        """``(id, status, duos_json)`` of the board's 2v2 matches ``queued`` / ``opening`` /
        ``running`` whose duel is not ``finished``."""
        return list(
            self.db.execute(
                "select m.id, m.status, m.duos_json from duo_matches m "
                "left join duels d on d.id = m.duel_id where m.board_id = ? "
                "and m.status in ('queued', 'opening', 'running') "
                "and (d.status is null or d.status != 'finished')",
                [board_id],
            ).fetchall()
        )

    # -- inbox ----------------------------------------------------------------------------
    def inbox_seen(self, board_id: int) -> set[int]:
        """Ids of the board's private messages already read."""
        return {
            int(r[0])
            for r in self.db.execute(
                "select msg_id from inbox_seen where board_id = ?", [board_id]
            ).fetchall()
        }

    def open_task(self, row: dict[str, Any]) -> int:
        """Open the referee task ``row`` (columns -> values, ``source_key`` among them) once
        (``insert or ignore`` on ``source_key``); returns the id of the task with that key."""
        open_task_once(self.db, row)
        found = self.db.execute(
            "select id from referee_tasks where source_key = ?", [row["source_key"]]
        ).fetchone()
        return int(found[0])

    def mark_inbox_seen(self, row: dict[str, Any]) -> None:
        """Record a private message read (``insert`` with ``ignore=True``)."""
        self.db.table("inbox_seen").insert(row, ignore=True)

    def had_duo(self, board_id: int) -> bool:
        """True when the board ever had a 2v2 duel (``duo_duels``)."""
        return bool(
            list(self.db.table("duo_duels").rows_where("board_id = ?", [board_id], limit=1))
        )

    # -- topics and openings --------------------------------------------------------------
    def count_topic_attempt(self, table: str, row_id: int) -> None:
        """``attempts + 1`` on the row of ``table`` (:data:`TOPIC_TABLES`) about to open its
        topic. Raises ValueError for another table."""
        if table not in TOPIC_TABLES:
            raise ValueError(table)
        self.db.execute(
            f"update {table} set attempts = coalesce(attempts, 0) + 1 where id = ?", [row_id]
        )

    def update_row(self, table: str, row_id: int, fields: dict[str, Any]) -> None:
        """Set ``fields`` on the row ``row_id`` of ``table`` (:data:`TOPIC_TABLES`: a pairing or
        a match). Raises ValueError for another table."""
        if table not in TOPIC_TABLES:
            raise ValueError(table)
        self.db.table(table).update(row_id, fields)

    def board(self, board_id: int) -> dict[str, Any]:
        """The ``boards`` row (sqlite-utils ``get``; raises ``NotFoundError`` without it)."""
        return dict(self.db.table("boards").get(board_id))

    def delete_duel(self, duel_id: int) -> None:
        """Delete the ``duels`` row (an ``ignored`` duel row in the way of an opening)."""
        self.db.table("duels").delete(duel_id)

    def running_pairings(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``running`` 1v1 pairings with a duel (table order)."""
        return list(
            self.db.table("queue").rows_where(
                "board_id = ? and status = 'running' and duel_id is not null", [board_id]
            )
        )

    def finish_pairing(self, board_id: int, duel_id: int, finished_at: str) -> None:
        """The ``running`` pairing of the duel becomes ``finished``."""
        self.db.execute(
            "update queue set status = 'finished', finished_at = ? "
            "where board_id = ? and duel_id = ? and status = 'running'",
            [finished_at, board_id, duel_id],
        )

    # -- profiles -------------------------------------------------------------------------
    def profile(self, board_id: int, character_key: str) -> tuple[Any, ...] | None:
        """``(character, player, year, magic_types_json)`` of the profile, or None."""
        row = self.db.execute(
            "select character, player, year, magic_types_json from duellist_profiles "
            "where board_id = ? and character_key = ? limit 1",
            [board_id, character_key],
        ).fetchone()
        return tuple(row) if row is not None else None

    def profiles(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``duellist_profiles`` rows (table order)."""
        return list(self.db.table("duellist_profiles").rows_where("board_id = ?", [board_id]))

    def insert_profile(self, row: dict[str, Any]) -> None:
        """Insert the profile unless one exists (``ignore=True``)."""
        self.db.table("duellist_profiles").insert(row, ignore=True)

    def upsert_profile(self, row: dict[str, Any]) -> None:
        """Insert or update the profile (key ``(board_id, character_key)``)."""
        self.db.table("duellist_profiles").upsert(row, pk=("board_id", "character_key"))

    # -- registration threads -------------------------------------------------------------
    def set_thread_mark(self, row: dict[str, Any]) -> None:
        """Insert or update the thread's newest post read (key ``(board_id, topic_id)``)."""
        self.db.table("registration_threads").upsert(row, pk=("board_id", "topic_id"))

    def thread_mark(self, board_id: int, topic_id: int) -> dict[str, Any] | None:
        """The ``registration_threads`` row, or None."""
        rows = list(
            self.db.table("registration_threads").rows_where(
                "board_id = ? and topic_id = ?", [board_id, topic_id]
            )
        )
        return rows[0] if rows else None


__all__ = ["TOPIC_TABLES", "ClubRows"]
