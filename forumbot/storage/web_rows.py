"""The review page's queries (:mod:`forumbot.web`): accounts, sessions, referees, judging, views.

Exposed as ``storage.web_rows`` (:class:`WebRows`). Rows are ``dict[str, Any]`` of the table
named (column -> value; timestamps ISO 8601 UTC strings). The SQL is the one the review page
always ran (issue 27 moved it here verbatim). Nothing here commits unless its docstring says
so: sqlite-utils' own ``insert`` / ``update`` / ``delete`` (used as before) and the page's
``with storage.atomic():`` blocks are the boundaries, as before the move.

Tables: ``users``, ``web_sessions``, ``duel_referees``, ``violations``, read-only:
``declarations``, ``duels``, ``referee_tasks``, ``turns``, ``dice_rolls``.

SQLite-only statements kept as they were: ``collate nocase`` (user names, duellist names).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forumbot.storage.migrations import MIGRATIONS
from forumbot.storage.repository import Repository

SESSIONS = "web_sessions"
"""The sessions table (one row per open session, keyed by the hash of its id)."""


class WebRows(Repository):
    """Queries of :mod:`forumbot.web` (module docstring)."""

    def migrate(self) -> None:
        """Apply the migrations not applied yet (:data:`forumbot.storage.MIGRATIONS`; each
        migration commits)."""
        MIGRATIONS.apply(self.db)

    # -- users ----------------------------------------------------------------------------
    def user(self, username: str) -> dict[str, Any] | None:
        """The ``users`` row named ``username`` (``collate nocase``), or None."""
        rows = list(self.db.table("users").rows_where("username = ? collate nocase", [username]))
        return rows[0] if rows else None

    def usernames(self) -> list[str]:
        """Every account's name (table order)."""
        return [str(row["username"]) for row in self.db.query("select username from users")]

    def insert_user(self, row: dict[str, Any]) -> None:
        """Insert the ``users`` row."""
        self.db.table("users").insert(row)

    def update_user(self, username: str, fields: dict[str, Any]) -> None:
        """Set ``fields`` on the account ``username`` (its exact stored name)."""
        self.db.table("users").update(username, fields)

    def users(self, enabled_only: bool) -> list[dict[str, Any]]:
        """The accounts (only the enabled ones when ``enabled_only``), by name."""
        if enabled_only:
            return list(self.db.table("users").rows_where("disabled = 0", order_by="username"))
        return list(self.db.table("users").rows_where(order_by="username"))

    # -- sessions -------------------------------------------------------------------------
    def insert_session(self, row: dict[str, Any]) -> None:
        """Insert the ``web_sessions`` row."""
        self.db.table(SESSIONS).insert(row)

    def session(self, id_hash: str) -> dict[str, Any] | None:
        """The session row of ``id_hash``, or None."""
        rows = list(self.db.table(SESSIONS).rows_where("id_hash = ?", [id_hash]))
        return rows[0] if rows else None

    def delete_session(self, id_hash: str) -> None:
        """Delete the session row of ``id_hash`` (none: nothing happens)."""
        self.db.table(SESSIONS).delete_where("id_hash = ?", [id_hash])

    def touch_session(self, id_hash: str, last_seen_at: str) -> None:
        """Move the session's ``last_seen_at``."""
        self.db.table(SESSIONS).update(id_hash, {"last_seen_at": last_seen_at})

    def end_user_sessions(self, username: str) -> int:
        """Delete every session of ``username`` (``collate nocase``); returns how many."""
        table = self.db.table(SESSIONS)
        count = table.count_where("username = ? collate nocase", [username])
        table.delete_where("username = ? collate nocase", [username])
        return count

    def session_stamps(self) -> list[dict[str, Any]]:
        """``{"id_hash", "last_seen_at"}`` of every session."""
        return list(self.db.table(SESSIONS).rows_where(select="id_hash, last_seen_at"))

    # -- duel referees --------------------------------------------------------------------
    def duel_referees(self, duel_id: int) -> list[str]:
        """The usernames refereeing ``duel_id``, by name."""
        return [
            r["username"]
            for r in self.db.table("duel_referees").rows_where(
                "duel_id = ?", [duel_id], order_by="username"
            )
        ]

    def refereed_duels(self, username: str) -> set[int]:
        """Ids of the duels ``username`` (``collate nocase``) referees."""
        return {
            int(r["duel_id"])
            for r in self.db.table("duel_referees").rows_where(
                "username = ? collate nocase", [username]
            )
        }

    def duel_exists(self, duel_id: int) -> bool:
        """True when the ``duels`` row ``duel_id`` exists."""
        return bool(list(self.db.table("duels").rows_where("id = ?", [duel_id])))

    def insert_referee(self, row: dict[str, Any]) -> None:
        """Insert the ``duel_referees`` row."""
        self.db.table("duel_referees").insert(row)

    def delete_referee(self, duel_id: int, username: str) -> None:
        """Delete the ``duel_referees`` row ``(duel_id, username)`` (its stored name)."""
        self.db.table("duel_referees").delete((duel_id, username))

    # -- judging --------------------------------------------------------------------------
    def violations(
        self,
        visible_duels: Sequence[int] | None,
        duel_id: int | None,
        duellist: str | None,
        rule: str | None,
        status: str | None,
    ) -> list[dict[str, Any]]:
        """Violation rows of the duels ``visible_duels`` (None: all; sorted ids) matching each
        filter not None / "" (``duellist`` ``collate nocase``), newest first."""
        where: list[str] = []
        args: list[Any] = []
        if visible_duels is not None:
            where.append(f"duel_id in ({','.join('?' * len(visible_duels))})")
            args.extend(visible_duels)
        if duel_id is not None:
            where.append("duel_id = ?")
            args.append(duel_id)
        if duellist:
            where.append("duellist = ? collate nocase")
            args.append(duellist)
        if rule:
            where.append("rule = ?")
            args.append(rule)
        if status:
            where.append("status = ?")
            args.append(status)
        return list(
            self.db.table("violations").rows_where(
                " and ".join(where) or None, args, order_by="id desc"
            )
        )

    def violation(self, violation_id: int) -> dict[str, Any] | None:
        """The ``violations`` row, or None."""
        rows = list(self.db.table("violations").rows_where("id = ?", [violation_id]))
        return rows[0] if rows else None

    def update_violation(self, violation_id: int, changes: dict[str, Any]) -> None:
        """Set ``changes`` on the violation."""
        self.db.table("violations").update(violation_id, changes)

    def violation_row(self, violation_id: int) -> dict[str, Any]:
        """The ``violations`` row (sqlite-utils ``get``).

        Raises:
            sqlite_utils.db.NotFoundError: no such violation."""
        return dict(self.db.table("violations").get(violation_id))

    def violation_ids(self, duel_id: int) -> list[int]:
        """Ids of the duel's violations (table order)."""
        return [r["id"] for r in self.db.table("violations").rows_where("duel_id = ?", [duel_id])]

    # -- tasks and views ------------------------------------------------------------------
    def referee_tasks(self) -> list[dict[str, Any]]:
        """Every referee task, by id."""
        return list(self.db["referee_tasks"].rows_where(order_by="id"))

    def referee_task(self, task_id: int) -> dict[str, Any] | None:
        """The ``referee_tasks`` row, or None."""
        found = list(self.db["referee_tasks"].rows_where("id = ?", [task_id]))
        return found[0] if found else None

    def duel_title(self, duel_id: int) -> str | None:
        """The duel's title ("" when empty), or None without that duel."""
        found = list(self.db["duels"].rows_where("id = ?", [duel_id]))
        return str(found[0]["title"] or "") if found else None

    def last_published_turn(self, duel_id: int) -> int:
        """``max(turn)`` of the duel's ``published`` declarations but the opening (0: none)."""
        row = self.db.execute(
            "select max(turn) from declarations where duel_id = ? and status = 'published' "
            "and kind != 'opening'",
            [duel_id],
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def turns(self, duel_id: int) -> list[dict[str, Any]]:
        """The duel's ``turns`` rows, by number."""
        return list(self.db.table("turns").rows_where("duel_id = ?", [duel_id], order_by="number"))

    def dice_rolls(self, duel_id: int, turn: int | None = None) -> list[dict[str, Any]]:
        """The duel's ``dice_rolls`` (of ``turn`` only unless None), by id."""
        if turn is None:
            return list(
                self.db.table("dice_rolls").rows_where("duel_id = ?", [duel_id], order_by="id")
            )
        return list(
            self.db.table("dice_rolls").rows_where(
                "duel_id = ? and turn = ?", [duel_id, turn], order_by="id"
            )
        )


__all__ = ["SESSIONS", "WebRows"]
