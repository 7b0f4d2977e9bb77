"""The duels room's queries on duels, duellists, declarations, dice and violations.

Exposed as ``storage.duel_rows`` (:class:`DuelRows`), for :mod:`forumbot.duels`. Rows are
``dict[str, Any]`` (column -> value; timestamps ISO 8601 UTC strings, JSON columns as text).
Nothing here commits: the duels room's ``with storage.atomic():`` blocks (and the referee's
commit before the publisher reads, ``storage.commit()``) are the transactions, as they were
before the SQL moved here (issue 27). A sqlite-utils ``insert`` / ``update`` / ``delete``
commits by itself when no transaction is open, exactly as it did in the room.

Tables: ``duels``, ``duellists``, ``declarations``, ``dice_rolls``, ``violations``, ``turns``,
``boards``, ``duo_duels``, ``zone_reveals``; read-only, the club's ``queue``, ``duo_matches``,
``requests``, ``duo_entries``.

SQLite-only statements kept as they were: ``insert or ignore`` (:meth:`DuelRows.reveal_zone`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forumbot.storage.repository import Repository

CLUB_PAIRINGS = ("queue", "duo_matches")
"""The club's pairing tables that carry a duel's id (1v1 queue, 2v2 matches)."""

SIGNUP_TABLES = ("requests", "duo_entries")
"""The club's sign-up tables whose rows may carry stakes."""


class DuelRows(Repository):
    """Queries of :mod:`forumbot.duels` on duels and their declarations (module docstring)."""

    # -- boards ---------------------------------------------------------------------------
    def board(self, board_id: int) -> dict[str, Any]:
        """The ``boards`` row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["boards"].get(board_id))

    def board_or_none(self, board_id: int) -> dict[str, Any] | None:
        """The ``boards`` row, or None."""
        rows = list(self.db["boards"].rows_where("id = ?", [board_id], limit=1))
        return rows[0] if rows else None

    # -- duels and duellists --------------------------------------------------------------
    def insert_duel(self, row: dict[str, Any]) -> int:
        """Insert a ``duels`` row; returns its id."""
        return int(self.db["duels"].insert(row).last_pk)

    def delete_duel(self, duel_id: int) -> None:
        """Delete a ``duels`` row (an ignored topic a referee adopts)."""
        self.db["duels"].delete(duel_id)

    def active_in_forum(self, board_id: int, forum_id: int) -> list[dict[str, Any]]:
        """The board's ``open`` / ``running`` duels watched in ``forum_id``."""
        return list(
            self.db["duels"].rows_where(
                "board_id = ? and forum_id = ? and status in ('open', 'running')",
                [board_id, forum_id],
            )
        )

    def finished_unnotified(self, board_id: int) -> list[dict[str, Any]]:
        """The board's finished duels whose end was not told yet (``finish_notified_at``)."""
        return list(
            self.db["duels"].rows_where(
                "board_id = ? and status = 'finished' and finish_notified_at is null", [board_id]
            )
        )

    def duellist_names(self) -> list[str]:
        """Every distinct duellist name ever stored."""
        return [str(r[0]) for r in self.db.execute("select distinct name from duellists")]

    def duellists_unordered(self, duel_id: int) -> list[dict[str, Any]]:
        """The duellist rows of a duel (table order)."""
        return list(self.db["duellists"].rows_where("duel_id = ?", [duel_id]))

    def insert_duellist(self, row: dict[str, Any]) -> None:
        """Insert a ``duellists`` row."""
        self.db["duellists"].insert(row)

    def delete_duellists(self, duel_id: int) -> None:
        """Delete the duellists of a duel (a re-adoption signs them up again)."""
        self.db.execute("delete from duellists where duel_id = ?", [duel_id])

    def set_duellist_user(self, duellist_id: int, user_id: int) -> None:
        """Record the forum account of a duellist."""
        self.db["duellists"].update(duellist_id, {"user_id": user_id})

    # -- 2v2 ------------------------------------------------------------------------------
    def duo_row(self, duel_id: int) -> dict[str, Any] | None:
        """The ``duo_duels`` row of a duel, or None."""
        rows = list(self.db["duo_duels"].rows_where("duel_id = ?", [duel_id]))
        return rows[0] if rows else None

    def open_duo_id(self, board_id: int) -> int | None:
        """The id of the board's first 2v2 duel that is open or running, or None."""
        rows = self.db.execute(
            "select d.id from duels d join duo_duels u on u.duel_id = d.id where d.board_id = ? "
            "and d.status in ('open', 'running') order by d.id",
            [board_id],
        ).fetchall()
        return int(rows[0][0]) if rows else None

    def insert_duo(self, row: dict[str, Any]) -> None:
        """Insert a ``duo_duels`` row."""
        self.db["duo_duels"].insert(row)

    def reveal_zone(
        self, duel_id: int, duellist: str, zone: str, owl_key: str, decl_id: int, at: str
    ) -> bool:
        """Record that a zone was revealed to a duellist unless it was (``insert or
        ignore``: SQLite-only). True when this call recorded it. Caller's transaction."""
        inserted = self.db.execute(
            "insert or ignore into zone_reveals (duel_id, duellist, zone, owl_key, "
            "declaration_id, created_at) values (?, ?, ?, ?, ?, ?)",
            [duel_id, duellist, zone, owl_key, decl_id, at],
        ).rowcount
        return bool(inserted == 1)

    # -- declarations ---------------------------------------------------------------------
    def insert_declaration(self, row: dict[str, Any]) -> int:
        """Insert a ``declarations`` row; returns its id."""
        return int(self.db["declarations"].insert(row).last_pk)

    def update_declaration(self, decl_id: int, changes: dict[str, Any]) -> None:
        """Set columns of a declaration (sqlite-utils ``update``)."""
        self.db["declarations"].update(decl_id, changes)

    def declarations_unordered(self, duel_id: int) -> list[dict[str, Any]]:
        """The declarations of a duel (table order)."""
        return list(self.db["declarations"].rows_where("duel_id = ?", [duel_id]))

    def published_count(self, duel_id: int) -> int:
        """How many declarations of the duel are published."""
        return int(
            self.db.execute(
                "select count(*) from declarations where duel_id = ? and status = 'published'",
                [duel_id],
            ).fetchone()[0]
        )

    def published_after(self, duel_id: int, decl_id: int) -> int:
        """How many declarations of the duel newer than ``decl_id`` are published."""
        return int(
            self.db.execute(
                "select count(*) from declarations where duel_id = ? and status = 'published' "
                "and id > ?",
                [duel_id, decl_id],
            ).fetchone()[0]
        )

    def turns_published_after(self, duel_id: int, decl_id: int) -> int:
        """How many turn or closure declarations newer than ``decl_id`` are published."""
        return int(
            self.db.execute(
                "select count(*) from declarations where duel_id = ? and status = 'published' and "
                "kind in ('turn', 'closure') and id > ?",
                [duel_id, decl_id],
            ).fetchone()[0]
        )

    def kind_count(self, duel_id: int, kind: str) -> int:
        """How many declarations of the duel have ``kind``."""
        return int(
            self.db.execute(
                "select count(*) from declarations where duel_id = ? and kind = ?", [duel_id, kind]
            ).fetchone()[0]
        )

    def concession_pending(self, duel_id: int, suffix: str) -> bool:
        """True when an unpublished closure whose key ends with ``-<suffix>`` waits."""
        row = self.db.execute(
            "select 1 from declarations where duel_id = ? and kind = 'closure' "
            "and idempotency_key like ? and status in ('draft', 'approved', 'held', 'publishing') "
            "limit 1",
            [duel_id, f"%-{suffix}"],
        ).fetchone()
        return row is not None

    def closing_turns(self, duel_id: int, current_id: int) -> list[dict[str, Any]]:
        """The duel's published turn declarations and ``current_id``, by id."""
        return list(
            self.db["declarations"].rows_where(
                "duel_id = ? and kind = 'turn' and (status = 'published' or id = ?)",
                [duel_id, current_id],
                order_by="id",
            )
        )

    def hold_drafts(self, duel_id: int, why: str, at: str) -> None:
        """Hold the duel's ``draft`` / ``approved`` declarations with ``last_error`` ``why``.
        Caller's transaction."""
        self.db.execute(
            "update declarations set status = 'held', last_error = ?, updated_at = ? "
            "where duel_id = ? and status in ('draft', 'approved')",
            [why, at, duel_id],
        )

    def held_for_gone_topic(self, duel_id: int) -> list[int]:
        """Ids of the duel's declarations held because its topic was gone."""
        return [
            int(r[0])
            for r in self.db.execute(
                "select id from declarations where duel_id = ? and status = 'held' "
                "and last_error like 'topic gone:%'",
                [duel_id],
            ).fetchall()
        ]

    def unhold(self, decl_id: int, at: str) -> None:
        """A held declaration becomes a ``draft`` again. Caller's transaction."""
        self.db.execute(
            "update declarations set status = 'draft', last_error = null, updated_at = ? "
            "where id = ?",
            [at, decl_id],
        )

    # -- turns, dice, violations ----------------------------------------------------------
    def set_turn_outcome(self, duel_id: int, number: int, outcome_json: str) -> None:
        """Replace the stored outcome of turn ``number`` (an erratum). Caller's transaction."""
        self.db.execute(
            "update turns set outcome_json = ? where duel_id = ? and number = ?",
            [outcome_json, duel_id, number],
        )

    def insert_roll_once(self, row: dict[str, Any]) -> None:
        """Insert a ``dice_rolls`` row the bot derived unless it exists (``ignore=True``:
        ``insert or ignore``, SQLite-only): a roll is recorded once."""
        self.db["dice_rolls"].insert(row, ignore=True)

    def replace_roll(self, row: dict[str, Any]) -> None:
        """Insert or replace a ``dice_rolls`` row the forum rolled (``replace=True``:
        ``insert or replace``, SQLite-only)."""
        self.db["dice_rolls"].insert(row, replace=True)

    def forum_rolled(self, duel_id: int) -> bool:
        """True when some of the duel's dice were rolled by the forum (``source = 'forum'``)."""
        return bool(
            list(
                self.db["dice_rolls"].rows_where(
                    "duel_id = ? and source = 'forum'", [duel_id], limit=1
                )
            )
        )

    def violations_in_scope(
        self, duel_id: int, scope: str, scope_args: Sequence[Any]
    ) -> list[dict[str, Any]]:
        """The duel's violation rows selected by the SQL condition ``scope`` (with
        ``scope_args``, e.g. ``"turn = ?"``), by id."""
        return list(
            self.db["violations"].rows_where(
                f"duel_id = ? and ({scope})", [duel_id, *scope_args], order_by="id"
            )
        )

    def update_violation(self, violation_id: int, fields: dict[str, Any]) -> None:
        """Set columns of a violation row."""
        self.db["violations"].update(violation_id, fields)

    def delete_violation(self, violation_id: int) -> None:
        """Delete a violation row."""
        self.db["violations"].delete(violation_id)

    # -- the club's rows a duel reads or ends ---------------------------------------------
    def release_club_rows(self, duel_id: int) -> None:
        """The club's pairing rows of the duel (:data:`CLUB_PAIRINGS`, when the table exists)
        still queued, opening or running become ``cancelled``. Caller's transaction."""
        for table in CLUB_PAIRINGS:
            if self.db[table].exists():
                self.db.execute(
                    f"update {table} set status = 'cancelled' where duel_id = ? "
                    "and status in ('queued', 'opening', 'running')",
                    [duel_id],
                )

    def pairing_of_topic(self, board_id: int, topic_id: int) -> tuple[str, dict[str, Any]] | None:
        """``(table, row)`` of the club's pairing (:data:`CLUB_PAIRINGS`) that opened the
        topic, or None."""
        for table in CLUB_PAIRINGS:
            rows = list(self.db[table].rows_where(
                "board_id = ? and topic_id = ?", [board_id, topic_id], limit=1))  # fmt: skip
            if rows:
                return table, rows[0]
        return None

    def signup_stakes(self, table: str, board_id: int, post_id: int) -> list[dict[str, Any]]:
        """The sign-up rows of one post (``table`` one of :data:`SIGNUP_TABLES`) that wrote
        stakes.

        Raises:
            ValueError: another table.
        """
        if table not in SIGNUP_TABLES:
            raise ValueError(f"no sign-up table {table!r}")
        return list(
            self.db[table].rows_where(
                "board_id = ? and post_id = ? and stakes is not null", [board_id, post_id]
            )
        )


__all__ = ["CLUB_PAIRINGS", "SIGNUP_TABLES", "DuelRows"]
