"""The sign-up desks' lobby (:mod:`forumbot.club`): requests, pairings, 2v2 entries and matches,
the sign-up posts handled, withdrawals and cancellations.

Exposed as ``storage.signup_rows`` (:class:`SignupRows`), for the 1v1 desk
(:mod:`forumbot.club.solo_registrations`), the 2v2 desk (:mod:`forumbot.club.duo_registrations`),
their replies (:mod:`forumbot.club.replies`) and withdrawals (:mod:`forumbot.club.withdrawals`).
Rows are ``dict[str, Any]`` of the table named (column -> value; timestamps ISO 8601 UTC
strings, ``duos_json`` as text). The SQL is the one the desks always ran (issue 27 moved it
here verbatim). Nothing here commits: the desks' ``with storage.atomic():`` blocks and their
``storage.commit()`` calls are the boundaries, as before the move; a sqlite-utils ``insert`` /
``update`` / ``upsert`` commits by itself when no transaction is open, exactly as it did in the
desk. The state changes that decide a turn of the lobby are conditional updates (``… where id
= ? and status = 'queued'``: :meth:`SignupRows.start_pairing`, :meth:`SignupRows.start_match`,
:meth:`SignupRows.cancel_formed`), so a row changed since it was read is left alone.

Tables: ``requests``, ``queue``, ``duo_entries``, ``duo_matches``, ``registration_posts``;
``duels`` read (a pairing whose duel is finished is over).

SQLite-only statements kept as they were: sqlite-utils ``insert(ignore=True)`` (``insert or
ignore``: :meth:`SignupRows.insert_request`, :meth:`SignupRows.insert_duo_entry`) and
``upsert`` (:meth:`SignupRows.record_post`); PostgreSQL's equivalents are
:mod:`forumbot.storage.pg_table`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forumbot.storage.repository import Repository

SIGNUP_TABLES = ("requests", "duo_entries")
"""The sign-up tables (1v1 requests, 2v2 entries) a withdrawal or a cancellation may change."""

FORMED_TABLES = ("queue", "duo_matches")
"""The formed-duel tables (1v1 pairings, 2v2 matches) a cancellation may change."""

PAIRING_SIDES = ("first", "second")
"""The two sides of a 1v1 pairing (``queue.first_*`` / ``queue.second_*``)."""


def _checked(name: str, allowed: tuple[str, ...]) -> str:
    """``name`` when it is one of ``allowed`` (a table or column written into the SQL);
    raises ValueError otherwise."""
    if name not in allowed:
        raise ValueError(name)
    return name


def _marks(values: Sequence[Any]) -> str:
    """``?, ?, …``: one placeholder per value."""
    return ", ".join("?" * len(values))


class SignupRows(Repository):
    """Queries of the sign-up desks' lobby (module docstring)."""

    def _in_thread(
        self, table: str, board_id: int, thread_topic_id: int, clause: str, order_by: str,
        args: Sequence[Any] = (),
    ) -> list[dict[str, Any]]:  # fmt: skip
        """The rows of ``table`` of one registration thread for which ``clause`` (SQL, its
        ``?`` filled from ``args``) holds, by ``order_by``."""
        where = f"board_id = ? and thread_topic_id = ? and {clause}"
        return self._rows(table, where, [board_id, thread_topic_id, *args], order_by)

    # -- 1v1 requests ----------------------------------------------------------------------
    def open_requests_in(self, board_id: int, thread_topic_id: int) -> list[dict[str, Any]]:
        """The ``open`` requests of one registration thread, by post id."""
        return self._in_thread("requests", board_id, thread_topic_id, "status = 'open'", "post_id")

    def request(self, board_id: int, post_id: int) -> dict[str, Any] | None:
        """The request of the sign-up post ``post_id``, or None."""
        return self._row("requests", "board_id = ? and post_id = ?", [board_id, post_id])

    def insert_request(self, row: dict[str, Any], *, ignore: bool = False) -> None:
        """Insert a ``requests`` row (``ignore``: unless the post has one, ``insert or
        ignore``)."""
        self.db.table("requests").insert(row, ignore=ignore)

    def pair_request(self, board_id: int, post_id: int, updated_at: str) -> None:
        """The ``open`` request of ``post_id`` becomes ``paired``."""
        self.db.execute(
            "update requests set status = 'paired', updated_at = ? "
            "where board_id = ? and post_id = ? and status = 'open'",
            [updated_at, board_id, post_id],
        )

    def paired_requests(self, board_id: int, post_ids: Sequence[int]) -> list[dict[str, Any]]:
        """The ``paired`` requests of the two sign-up posts of a pairing (table order)."""
        first, second = post_ids
        return self._rows(
            "requests",
            "board_id = ? and post_id in (?, ?) and status = 'paired'",
            [board_id, first, second],
        )

    def set_request_status(self, request_id: int, status: str, updated_at: str) -> None:
        """Set the ``status`` of the request ``request_id``."""
        self.db.execute(
            "update requests set status = ?, updated_at = ? where id = ?",
            [status, updated_at, request_id],
        )

    # -- 1v1 pairings (queue) --------------------------------------------------------------
    def live_pairings_of_kind(self, board_id: int, kind: str) -> list[dict[str, Any]]:
        """The board's pairings of ``kind`` ``queued`` / ``opening`` / ``running`` whose duel
        is not ``finished``, by id (whole ``queue`` rows)."""
        return list(
            self.db.query(
                "select q.* from queue q left join duels d on d.id = q.duel_id "
                "where q.board_id = ? and q.kind = ? "
                "and q.status in ('queued', 'opening', 'running') "
                "and (d.status is null or d.status != 'finished') order by q.id",
                [board_id, kind],
            )
        )

    def insert_pairing(self, row: dict[str, Any]) -> None:
        """Insert a ``queue`` row (a pairing, ``queued``)."""
        self.db.table("queue").insert(row)

    def withdraw_pairing(self, pairing_id: int) -> None:
        """The pairing becomes ``withdrawn``."""
        self.db.execute("update queue set status = 'withdrawn' where id = ?", [pairing_id])

    def take_pairing_place(
        self, pairing_id: int, side: str, post_id: int, player: str, stakes: str | None
    ) -> None:
        """The sign-up ``post_id`` of ``player`` takes the place ``side`` (``first`` /
        ``second``) the other sign-up named; its ``stakes`` fill the pairing's when it has
        none. Raises ValueError for another side."""
        side = _checked(side, PAIRING_SIDES)
        self.db.execute(
            f"update queue set {side}_post_id = ?, {side}_player = ?, "
            "stakes = coalesce(stakes, ?) where id = ?",
            [post_id, player, stakes, pairing_id],
        )

    def queued_pairings(
        self, board_id: int, thread_topic_id: int, kind: str
    ) -> list[dict[str, Any]]:
        """The ``queued`` pairings of ``kind`` of one registration thread, by id."""
        clause = "kind = ? and status = 'queued'"
        return self._in_thread("queue", board_id, thread_topic_id, clause, "id", [kind])

    def opening_pairings(self, board_id: int) -> list[dict[str, Any]]:
        """The board's pairings being opened (``opening``), by id."""
        return self._rows("queue", "board_id = ? and status = 'opening'", [board_id], "id")

    def start_pairing(
        self, pairing_id: int, started_at: str, subject: str, key: str, dice_secret: str
    ) -> None:
        """A ``queued`` pairing becomes ``opening`` with its topic's subject, idempotency key
        and dice secret fixed (left alone when it is no longer ``queued``). The caller
        commits."""
        self.db.execute(
            "update queue set status = 'opening', started_at = ?, subject = ?, "
            "idempotency_key = ?, dice_secret = ? where id = ? and status = 'queued'",
            [started_at, subject, key, dice_secret, pairing_id],
        )

    # -- 2v2 entries -----------------------------------------------------------------------
    def waiting_duo_entries(self, board_id: int, thread_topic_id: int) -> list[dict[str, Any]]:
        """The 2v2 entries ``lone`` / ``duo`` of one registration thread, by post id."""
        clause = "status in ('lone', 'duo')"
        return self._in_thread("duo_entries", board_id, thread_topic_id, clause, "post_id")

    def insert_duo_entry(self, row: dict[str, Any]) -> None:
        """Insert a ``duo_entries`` row unless the post has one (``ignore=True``)."""
        self.db.table("duo_entries").insert(row, ignore=True)

    def join_duo(
        self, board_id: int, post_id: int, mate: tuple[str, str, int], status: str,
        updated_at: str,
    ) -> None:  # fmt: skip
        """The entry of ``post_id`` (a lone sign-up) gets its teammate ``mate`` (player,
        character, post id) and ``status``."""
        mate_player, mate_character, mate_post_id = mate
        self.db.execute(
            "update duo_entries set mate_player = ?, mate_character = ?, mate_post_id = ?, "
            "status = ?, updated_at = ? where board_id = ? and post_id = ?",
            [mate_player, mate_character, mate_post_id, status, updated_at, board_id, post_id],
        )

    def match_duos(self, board_id: int, post_ids: Sequence[int], updated_at: str) -> None:
        """The two ``duo`` entries of ``post_ids`` (one per duo) become ``matched``."""
        first, second = post_ids
        self.db.execute(
            "update duo_entries set status = 'matched', updated_at = ? where board_id = ? "
            "and post_id in (?, ?) and status = 'duo'",
            [updated_at, board_id, first, second],
        )

    def duo_stakes(self, board_id: int, post_ids: Sequence[int]) -> list[Any]:
        """The stakes written in the four sign-ups ``post_ids`` of a match (those with
        stakes), by post id."""
        where = "board_id = ? and post_id in (?, ?, ?, ?) and stakes is not null"
        return [
            r["stakes"] for r in self._rows("duo_entries", where, [board_id, *post_ids], "post_id")
        ]

    def placeholder_entries(self, board_id: int, post_id: int) -> list[dict[str, Any]]:
        """The entry of ``post_id`` when it is a ``duo`` / ``matched`` one whose teammate's
        place carries its own post id (issue 15: named, not signed up yet)."""
        return self._rows(
            "duo_entries",
            "board_id = ? and status in ('duo', 'matched') and mate_post_id = post_id "
            "and post_id = ?",
            [board_id, post_id],
        )

    def take_mate_place(
        self, entry_id: int, post_id: int, player: str, stakes: str | None, updated_at: str
    ) -> None:
        """The named teammate's own sign-up ``post_id`` of ``player`` takes its place in the
        entry ``entry_id``; its ``stakes`` fill the entry's when it has none."""
        self.db.execute(
            "update duo_entries set mate_post_id = ?, mate_player = ?, "
            "stakes = coalesce(stakes, ?), updated_at = ? where id = ?",
            [post_id, player, stakes, updated_at, entry_id],
        )

    # -- 2v2 matches -----------------------------------------------------------------------
    def formed_matches(self, board_id: int) -> list[dict[str, Any]]:
        """The board's matches ``queued`` / ``opening`` / ``running`` whose duel is not
        ``finished``, by id (whole ``duo_matches`` rows)."""
        return list(
            self.db.query(
                "select m.* from duo_matches m left join duels d on d.id = m.duel_id "
                "where m.board_id = ? and m.status in ('queued', 'opening', 'running') "
                "and (d.status is null or d.status != 'finished') order by m.id",
                [board_id],
            )
        )

    def insert_match(self, row: dict[str, Any]) -> None:
        """Insert a ``duo_matches`` row (a match of two duos, ``queued``)."""
        self.db.table("duo_matches").insert(row)

    def match(self, match_id: int) -> dict[str, Any]:
        """The ``duo_matches`` row (sqlite-utils ``get``; raises ``NotFoundError`` without
        it)."""
        return dict(self.db.table("duo_matches").get(match_id))

    def matches_with_environment(self, board_id: int) -> int:
        """How many of the board's matches have their environment fixed (opened so far)."""
        row = self.db.execute(
            "select count(*) from duo_matches where board_id = ? and environment is not null",
            [board_id],
        ).fetchone()
        return int(row[0])

    def running_matches(self, board_id: int) -> list[dict[str, Any]]:
        """The board's ``running`` matches with a duel (table order)."""
        return self._rows(
            "duo_matches", "board_id = ? and status = 'running' and duel_id is not null", [board_id]
        )

    def matches_in(self, board_id: int, thread_topic_id: int, status: str) -> list[dict[str, Any]]:
        """The matches of one registration thread with ``status``, by id."""
        return self._in_thread(
            "duo_matches", board_id, thread_topic_id, "status = ?", "id", [status]
        )

    def start_match(
        self, match_id: int, started_at: str, subject: str, key: str, dice_secret: str,
        environment: str,
    ) -> None:  # fmt: skip
        """A ``queued`` match becomes ``opening`` with its topic's subject, idempotency key,
        dice secret and environment fixed (left alone when it is no longer ``queued``). The
        caller commits."""
        self.db.execute(
            "update duo_matches set status = 'opening', started_at = ?, subject = ?, "
            "idempotency_key = ?, dice_secret = ?, environment = ? "
            "where id = ? and status = 'queued'",
            [started_at, subject, key, dice_secret, environment, match_id],
        )

    # -- withdrawals and cancellations -----------------------------------------------------
    def live_signup(self, table: str, board_id: int, post_id: int) -> dict[str, Any] | None:
        """The sign-up of ``post_id`` in ``table`` (:data:`SIGNUP_TABLES`) still waiting
        (``open``, ``lone`` or ``duo``), or None. Raises ValueError for another table."""
        return self._row(
            _checked(table, SIGNUP_TABLES),
            "board_id = ? and post_id = ? and status in ('open', 'lone', 'duo')",
            [board_id, post_id],
        )

    def withdraw_signups(self, table: str, ids: Sequence[int], updated_at: str) -> None:
        """The sign-ups ``ids`` of ``table`` (:data:`SIGNUP_TABLES`) become ``withdrawn``.
        Raises ValueError for another table."""
        self.db.execute(
            f"update {_checked(table, SIGNUP_TABLES)} set status = 'withdrawn', "
            f"updated_at = ? where id in ({_marks(ids)})",
            [updated_at, *ids],
        )

    def cancel_formed(self, table: str, row_id: int, finished_at: str, last_error: str) -> int:
        """A formed duel of ``table`` (:data:`FORMED_TABLES`) ``queued`` / ``opening`` and
        without a duel becomes ``cancelled``; returns the rowcount (0: no longer
        cancellable). Raises ValueError for another table."""
        return int(
            self.db.execute(
                f"update {_checked(table, FORMED_TABLES)} set status = 'cancelled', "
                "finished_at = ?, last_error = ? "
                "where id = ? and status in ('queued', 'opening') and duel_id is null",
                [finished_at, last_error, row_id],
            ).rowcount
        )

    def formed(self, table: str, row_id: int) -> dict[str, Any]:
        """The row of ``table`` (:data:`FORMED_TABLES`; sqlite-utils ``get``, raises
        ``NotFoundError`` without it). Raises ValueError for another table."""
        return dict(self.db.table(_checked(table, FORMED_TABLES)).get(row_id))

    def cancel_signup(
        self, table: str, board_id: int, post_id: int, live: Sequence[str], updated_at: str
    ) -> None:
        """The sign-up of ``post_id`` in ``table`` (:data:`SIGNUP_TABLES`) becomes
        ``cancelled`` when its status is one of ``live``. Raises ValueError for another
        table."""
        self.db.execute(
            f"update {_checked(table, SIGNUP_TABLES)} set status = 'cancelled', "
            f"updated_at = ? where board_id = ? and post_id = ? and status in ({_marks(live)})",
            [updated_at, board_id, post_id, *live],
        )

    # -- sign-up posts handled -------------------------------------------------------------
    def post(self, board_id: int, post_id: int) -> dict[str, Any] | None:
        """The ``registration_posts`` row of a sign-up post already handled, or None."""
        return self._row("registration_posts", "board_id = ? and post_id = ?", [board_id, post_id])

    def record_post(self, row: dict[str, Any]) -> None:
        """Insert or update the handled sign-up post (key ``(board_id, post_id)``)."""
        self.db.table("registration_posts").upsert(row, pk=("board_id", "post_id"))


__all__ = ["FORMED_TABLES", "PAIRING_SIDES", "SIGNUP_TABLES", "SignupRows"]
