"""The club's rewards and leaderboards (:mod:`forumbot.club.leaderboard`,
:mod:`forumbot.club.duo_settling`).

Exposed as ``storage.reward_rows`` (:class:`RewardRows`). Rows are ``dict[str, Any]`` of the
table named (column -> value; timestamps ISO 8601 UTC strings). The SQL is the one the club
always ran (issue 27 moved it here verbatim). Nothing here commits: the club's
``with storage.atomic():`` blocks are the boundaries. Once only: ``rewards`` and
``duel_rewards`` have unique indexes, and the callers move a leaderboard line only when the
``insert or ignore`` of its reward returned 1 (:meth:`RewardRows.give_reward`).

Tables: ``rewards``, ``duel_rewards``, ``leaderboard``, ``duo_duels``, ``duels`` (read).

SQLite-only statements kept as they were: ``insert or ignore`` (:meth:`RewardRows.give_reward`,
:meth:`RewardRows.give_duel_reward`, :meth:`RewardRows.bump_leaderboard`; PostgreSQL: ``on
conflict do nothing``, :mod:`forumbot.storage.pg_dialect`).
"""

from __future__ import annotations

from typing import Any

from forumbot.storage.repository import Repository, insert_once

LEADERBOARD_COLUMNS = ("wins", "losses", "draws")
"""The leaderboard counters :meth:`RewardRows.bump_leaderboard` may move."""


class RewardRows(Repository):
    """Queries of the club's rewards, leaderboards and 2v2 settling (module docstring)."""

    # -- rewards ---------------------------------------------------------------------------
    def give_reward(self, row: dict[str, Any]) -> int:
        """Insert an end-of-duel ``rewards`` row (``board_id``, ``duel_id``, ``kind``,
        ``character``, ``player``, ``reward``, ``amount``, ``stakes``, ``created_at``) unless
        the duel already gave it (``insert or ignore`` on the unique (duel, character,
        reward)); returns the rowcount (1: given now, 0: given before)."""
        return insert_once(self.db, "rewards", row)

    def give_duel_reward(self, row: dict[str, Any]) -> int:
        """Insert an in-duel ``duel_rewards`` row (``board_id``, ``duel_id``, ``kind``,
        ``character``, ``player``, ``source``, ``reward``, ``amount``, ``created_at``: a
        creature defeated, a mechanism solved) unless it was recorded (``insert or ignore``
        on the unique (duel, character, source, reward)); returns the rowcount (1: recorded
        now)."""
        return insert_once(self.db, "duel_rewards", row)

    def duel_reward_sums(self, board_id: int, kind: str) -> list[tuple[Any, ...]]:
        """``(character, reward, sum(amount))`` of the board's in-duel rewards of ``kind``,
        grouped by character and reward."""
        return list(
            self.db.execute(
                "select character, reward, sum(amount) from duel_rewards where board_id = ? "
                "and kind = ? group by character, reward",
                [board_id, kind],
            ).fetchall()
        )

    def purses(self, board_id: int, kind: str) -> list[tuple[Any, ...]]:
        """``(character, galleons, chocolate frogs)`` won at the end of the board's duels of
        ``kind`` (sums over ``rewards``), one row per character."""
        return list(
            self.db.execute(
                "select character, sum(case when reward = 'galleons' then amount else 0 end), "
                "sum(case when reward = 'chocolate_frog' then amount else 0 end) from rewards "
                "where board_id = ? and kind = ? group by character",
                [board_id, kind],
            ).fetchall()
        )

    # -- the leaderboard -------------------------------------------------------------------
    def bump_leaderboard(
        self, board_id: int, kind: str, character_key: str, character: str, player: str,
        column: str, points: int, updated_at: str,
    ) -> None:  # fmt: skip
        """Create the line of ``character_key`` on the ``kind`` leaderboard when missing
        (``insert or ignore``, counters at 0), then add one to ``column`` and ``points`` to its
        points. Raises ValueError for a column not in :data:`LEADERBOARD_COLUMNS`."""
        if column not in LEADERBOARD_COLUMNS:
            raise ValueError(f"unknown leaderboard column {column!r}")
        self.db.execute(
            "insert or ignore into leaderboard (board_id, kind, character_key, character, "
            "player, points, wins, losses, draws, updated_at) "
            "values (?, ?, ?, ?, ?, 0, 0, 0, 0, ?)",
            [board_id, kind, character_key, character, player, updated_at],
        )
        self.db.execute(
            f"update leaderboard set {column} = {column} + 1, points = points + ?, "
            "updated_at = ? where board_id = ? and kind = ? and character_key = ?",
            [points, updated_at, board_id, kind, character_key],
        )

    def leaderboard(self, board_id: int, kind: str) -> list[dict[str, Any]]:
        """The board's ``leaderboard`` lines of ``kind`` (table order; the caller ranks)."""
        return self._rows("leaderboard", "board_id = ? and kind = ?", [board_id, kind])

    def finished_duels(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``finished`` duels, by id (the classic records)."""
        return self._rows("duels", "board_id = ? and status = 'finished'", [board_id], "id")

    # -- 2v2 settling ----------------------------------------------------------------------
    def unsettled_duo_duels(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``duo_duels`` rows not settled yet (``settled_at`` null; table
        order)."""
        return self._rows("duo_duels", "board_id = ? and settled_at is null", [board_id])

    def settle_duo_duel(self, duel_id: int, settled_at: str) -> None:
        """Stamp ``duo_duels.settled_at`` of the duel (caller's transaction)."""
        self.db.execute(
            "update duo_duels set settled_at = ? where duel_id = ?", [settled_at, duel_id]
        )


__all__ = ["LEADERBOARD_COLUMNS", "RewardRows"]
