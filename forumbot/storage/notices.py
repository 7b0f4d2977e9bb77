"""The notify room's queries (:mod:`forumbot.notify`): notices, the scanner's state, claims.

Exposed as ``storage.notices`` (:class:`NoticeRows`). Rows are ``dict[str, Any]`` of the
table named (column -> value; timestamps ISO 8601 UTC strings). Nothing here commits unless
the docstring says so: the notify room's ``with storage.atomic():`` blocks are the
transactions, as they were before the SQL moved here (issue 27).

Tables: ``notices`` (one row per (event, recipient, channel), unique ``idempotency_key``),
``notify_state`` (the scanner's key-value: watermarks, ``broken:<key>``), ``notify_settings``
(one row per review-page user), read-only: ``users``, ``duel_referees``, ``declarations``,
``violations``, ``referee_tasks``, ``audit_log``, ``boards``, ``duels``, ``registration_posts``,
``publish_restores``.

SQLite-only statements kept as they were: ``insert or ignore`` (:meth:`NoticeRows.queue`,
:meth:`NoticeRows.open_task_once`), ``collate nocase`` (user names).
"""

from __future__ import annotations

from typing import Any

from forumbot.storage.leases import fenced
from forumbot.storage.repository import Repository, open_task_once

ROW_TABLES = ("boards", "duels", "declarations", "referee_tasks")
"""The tables :meth:`NoticeRows.row` reads one row of by id."""


class NoticeRows(Repository):
    """Queries of :mod:`forumbot.notify` (module docstring)."""

    # -- notify_state ---------------------------------------------------------------------
    def state(self, name: str) -> dict[str, Any] | None:
        """The ``notify_state`` row ``name`` (``{"name", "value"}``), or None."""
        rows = list(self.db["notify_state"].rows_where("name = ?", [name]))
        return rows[0] if rows else None

    def insert_state(self, name: str, value: str) -> None:
        """Insert the ``notify_state`` row ``name`` (raises if it exists)."""
        self.db.table("notify_state").insert({"name": name, "value": value}, pk="name")

    def set_state(self, name: str, value: str) -> None:
        """Insert or replace the ``notify_state`` row ``name`` (a watermark)."""
        self.db.table("notify_state").upsert({"name": name, "value": value}, pk="name")

    # -- the scanner's reads --------------------------------------------------------------
    def declarations_after(self, start: int) -> list[dict[str, Any]]:
        """Declarations with ``id > start``, by id."""
        return list(self.db["declarations"].rows_where("id > ?", [start], order_by="id"))

    def held_up_to(self, top: int) -> list[dict[str, Any]]:
        """``held`` declarations with ``id <= top``."""
        return list(self.db["declarations"].rows_where("status = 'held' and id <= ?", [top]))

    def undecided_violations(self) -> list[dict[str, Any]]:
        """Violations ``proposed`` / ``applied`` / ``waived``, by id."""
        return list(
            self.db["violations"].rows_where(
                "status in ('proposed', 'applied', 'waived')", order_by="id"
            )
        )

    def undecided_violation(
        self, duel_id: int, turn: object, duellist: object, rule: object
    ) -> list[dict[str, Any]]:
        """The undecided violation rows of (duel, turn, duellist, rule)."""
        return list(
            self.db["violations"].rows_where(
                "duel_id = ? and turn = ? and duellist = ? and rule = ? "
                "and status in ('proposed', 'applied', 'waived')",
                [duel_id, turn, duellist, rule],
            )
        )

    def tasks_after(self, start: int) -> list[dict[str, Any]]:
        """Referee tasks with ``id > start``, by id."""
        return list(self.db["referee_tasks"].rows_where("id > ?", [start], order_by="id"))

    def open_task_once(
        self, duel_id: int | None, kind: str, source_key: str, subject: str, text: str,
        created_at: str, note: str,
    ) -> None:  # fmt: skip
        """Open a board-less referee task unless one with ``source_key`` exists
        (``insert or ignore``: SQLite-only). Caller's transaction."""
        open_task_once(self.db, {
            "board_id": None, "duel_id": duel_id, "kind": kind, "source_key": source_key,
            "subject": subject, "text": text, "created_at": created_at, "note": note,
        })  # fmt: skip

    # -- one row, the audit trail ---------------------------------------------------------
    def row(self, table: str, row_id: int) -> dict[str, Any] | None:
        """The row ``row_id`` of ``table`` (one of :data:`ROW_TABLES`), or None.

        Raises:
            ValueError: another table.
        """
        if table not in ROW_TABLES:
            raise ValueError(f"no row query for table {table!r}")
        rows = list(self.db[table].rows_where("id = ?", [row_id]))
        return rows[0] if rows else None

    def first_take_at(self, target: str) -> str | None:
        """The oldest ``draft.take`` audit time of ``target`` (``declaration:<id>``), or None."""
        rows = list(
            self.db.execute(
                "select min(at) from audit_log where action = 'draft.take' and target = ?",
                [target],
            ).fetchall()
        )
        return str(rows[0][0]) if rows and rows[0][0] else None

    def last_decision(self, target: str) -> tuple[str, str] | None:
        """``(actor, action)`` of the last ``draft.*`` audit line of ``target``, or None."""
        row = self.db.execute(
            "select actor, action from audit_log where target = ? and action like 'draft.%' "
            "order by id desc limit 1",
            [target],
        ).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def approved_by(self, target: str, bot: str) -> str | None:
        """The last actor but ``bot`` whose ``draft.approved`` line names ``target``."""
        row = self.db.execute(
            "select actor from audit_log where target = ? and action = 'draft.approved' "
            "and actor != ? order by id desc limit 1",
            [target, bot],
        ).fetchone()
        return str(row[0]) if row else None

    def signup_topic(self, board_id: object, post_id: object) -> int | None:
        """The topic of the sign-up post (table ``registration_posts``, when it exists)."""
        if "registration_posts" not in self.db.table_names():
            return None
        topic = self.db.execute(
            "select topic_id from registration_posts where board_id = ? and post_id = ?",
            [board_id, post_id],
        ).fetchone()
        return topic[0] if topic else None

    # -- claims ---------------------------------------------------------------------------
    def claimed_ids(self, username: str, duel_id: int | None) -> list[int]:
        """Ids of the pending declarations ``username`` (any case) holds (of ``duel_id``)."""
        where = "claimed_by = ? collate nocase and status in ('draft', 'approved', 'held')"
        args: list[Any] = [username]
        if duel_id is not None:
            where += " and duel_id = ?"
            args.append(duel_id)
        return [r["id"] for r in self.db["declarations"].rows_where(where, args)]

    def end_claim(self, decl_id: int, updated_at: str) -> None:
        """Clear the claim of a declaration and bump its ``version``. Caller's transaction."""
        self.db.execute(
            "update declarations set claimed_by = null, claimed_at = null, claim_until = null, "
            "version = version + 1, updated_at = ? where id = ?",
            [updated_at, decl_id],
        )

    def claim(
        self, decl_id: int, version: int, username: str, claimed_at: str, until: str
    ) -> int:
        """Compare-and-set: ``username`` takes the declaration if it is still at ``version``
        and pending; bumps ``version``. Returns the rows changed (1: taken). Caller's
        transaction."""
        return int(
            self.db.execute(
                "update declarations set claimed_by = ?, claimed_at = ?, claim_until = ?, "
                "version = version + 1, updated_at = ? where id = ? and version = ? "
                "and status in ('draft', 'approved', 'held')",
                [username, claimed_at, until, claimed_at, decl_id, version],
            ).rowcount
        )

    # -- people ---------------------------------------------------------------------------
    def settings_row(self, username: str) -> dict[str, Any] | None:
        """The ``notify_settings`` row of ``username`` (any case), or None."""
        rows = list(
            self.db.table("notify_settings").rows_where("username = ? collate nocase", [username])
        )
        return rows[0] if rows else None

    def save_settings(self, row: dict[str, Any]) -> None:
        """Insert or replace a ``notify_settings`` row (key ``username``)."""
        self.db.table("notify_settings").upsert(row, pk="username")

    def usernames(self) -> list[str]:
        """Every review-page user name."""
        return [str(row["username"]) for row in self.db.query("select username from users")]

    def user_any_case(self, username: str) -> dict[str, Any] | None:
        """The ``users`` row named ``username`` in any case, or None."""
        rows = list(self.db.table("users").rows_where("username = ? collate nocase", [username]))
        return rows[0] if rows else None

    def user(self, username: str) -> dict[str, Any] | None:
        """The ``users`` row named exactly ``username``, or None."""
        rows = list(self.db.table("users").rows_where("username = ?", [username]))
        return rows[0] if rows else None

    def enabled_users(self, role: str | None = None) -> list[dict[str, Any]]:
        """Enabled ``users`` rows (of ``role``), by username."""
        where = "disabled = 0" + (" and role = ?" if role else "")
        return list(
            self.db.table("users").rows_where(where, [role] if role else [], order_by="username")
        )

    def duel_referees(self, duel_id: int) -> list[dict[str, Any]]:
        """The ``duel_referees`` rows of a duel, by username."""
        return list(
            self.db.table("duel_referees").rows_where("duel_id = ?", [duel_id], order_by="username")
        )

    # -- notices --------------------------------------------------------------------------
    def queue(self, values: list[Any]) -> int | None:
        """Insert one ``pending`` notice unless its ``idempotency_key`` exists (``insert or
        ignore``: SQLite-only). ``values``: idempotency_key, event_key, kind, duel_id, turn,
        target, recipient, channel, facts_json, created_at. Returns the new id, None when
        it existed. Caller's transaction."""
        cursor = self.db.execute(
            "insert or ignore into notices (idempotency_key, event_key, kind, duel_id, turn, "
            "target, recipient, channel, facts_json, status, attempts, created_at) "
            "values (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?)",
            values,
        )
        if cursor.rowcount == 1 and cursor.lastrowid is not None:
            return int(cursor.lastrowid)
        return None

    def notices(
        self, status: str | None = None, channel: str | None = None
    ) -> list[dict[str, Any]]:
        """Notice rows (optionally one status / channel), oldest first."""
        where, args = [], []
        if status is not None:
            where.append("status = ?")
            args.append(status)
        if channel is not None:
            where.append("channel = ?")
            args.append(channel)
        return list(self.db["notices"].rows_where(" and ".join(where) or None, args, order_by="id"))

    def update(self, notice_id: int, fields: dict[str, Any]) -> None:
        """Set columns of one notice (sqlite-utils ``update``: it commits when no
        transaction is open)."""
        self.db.table("notices").update(notice_id, fields)

    def last_owl_at(self, username: str) -> str | None:
        """When the last owl notice to ``username`` was sent, or None."""
        row = self.db.execute(
            "select max(sent_at) from notices where recipient = ? and channel = 'owl' "
            "and status = 'sent'",
            [username],
        ).fetchone()
        return str(row[0]) if row and row[0] else None

    def draft_deadline(self, decl_id: int) -> tuple[Any, ...] | None:
        """``(status, publish_after, claimed_by, claim_until)`` of a declaration, or None."""
        row = self.db.execute(
            "select status, publish_after, claimed_by, claim_until from declarations where id = ?",
            [decl_id],
        ).fetchone()
        return tuple(row) if row is not None else None

    def batch(self, key: str, ids: list[int]) -> None:
        """Mark the ``pending`` notices ``ids`` ``batched`` into owl ``key``. Caller's
        transaction."""
        marks = ",".join("?" * len(ids))
        self.db.execute(
            f"update notices set status = 'batched', batch_key = ? where id in ({marks}) "
            "and status = 'pending'",
            [key, *ids],
        )

    def claim_sending(self, group: str, ids: list[int]) -> int:
        """Compare-and-set: the ``pending`` notices ``ids`` become ``sending`` (attempts + 1)
        in ``group``; **commits**. Returns how many were claimed (fewer: another pass took
        some; none: this ``serve`` worker lost the club's lease,
        :func:`forumbot.storage.leases.fenced`)."""
        marks = ",".join("?" * len(ids))
        sql, params = fenced(
            self.db,
            "update notices set status = 'sending', attempts = coalesce(attempts, 0) + 1, "
            f"batch_key = ? where status = 'pending' and id in ({marks})",
            [group, *ids],
        )
        claimed = self.db.execute(sql, params).rowcount
        self.db.conn.commit()
        return int(claimed)

    # -- the notice journal ---------------------------------------------------------------
    def _one(self, sql: str, args: list[Any]) -> Any:
        row = self.db.execute(sql, args).fetchone()
        return row[0] if row else None

    def declaration_key(self, decl_id: int) -> Any:
        """The idempotency key of a declaration, or None."""
        return self._one("select idempotency_key from declarations where id = ?", [decl_id])

    def task_source_key(self, task_id: int) -> Any:
        """The source key of a referee task, or None."""
        return self._one("select source_key from referee_tasks where id = ?", [task_id])

    def duel_place(self, duel_id: int) -> tuple[Any, Any] | None:
        """``(board_id, topic_id)`` of a duel, or None."""
        row = self.db.execute(
            "select board_id, topic_id from duels where id = ?", [duel_id]
        ).fetchone()
        return (row[0], row[1]) if row else None

    def restore_times(self) -> list[str]:
        """When the database was restored (``publish_restores``). Raises the engine's error
        when the table does not exist (a database never restored)."""
        found = self.db.execute(
            "select restored_at from publish_restores where restored_at is not null"
        )
        return [str(r[0]) for r in found]

    def last_notice_audit_before(self, at: str) -> Any:
        """The time of the last ``notice.*`` audit line before ``at``, or None."""
        return self._one(
            "select max(at) from audit_log where action like 'notice.%' and at < ?", [at]
        )


__all__ = ["ROW_TABLES", "NoticeRows"]
