"""The publish room's queries (:mod:`forumbot.publish`): claims, marks, refusals, the clock pause.

Exposed as ``storage.publish_rows`` (:class:`PublishRows`). Rows are ``dict[str, Any]`` of
the table named (column -> value; timestamps ISO 8601 UTC strings). The SQL is the one the
publisher always ran (issue 27 moved it here verbatim); each statement and transaction
boundary of the exactly-once path is kept and named in the docstrings, for a second engine
to map:

- **compare-and-set** (:meth:`PublishRows.claim_declaration`, :meth:`PublishRows.release_refused`,
  :meth:`PublishRows.claim_owl`: an ``UPDATE … WHERE status = ? [and version = ?]`` whose
  ``rowcount`` (0 or 1) says whether this publisher won the row);
- **BEGIN IMMEDIATE** (:meth:`PublishRows.immediate`: the write lock taken before the first
  read of the transaction that marks a declaration published);
- **commits** where the publisher commits on its own (the claim, before any request to the
  board: :meth:`PublishRows.commit_claim`).

Nothing else here commits unless its docstring says so: the publisher's
``with storage.atomic():`` blocks (or the connection's implicit transaction, committed by
``storage.commit()``) are the boundaries.

Tables: ``declarations``, ``referee_tasks``, ``publish_restores``, ``publish_marks``,
``posts_seen``, ``duels`` (read), ``owls`` (max id only; the outbox is
:mod:`forumbot.storage.owl_rows`).

SQLite-only statements kept as they were: ``BEGIN IMMEDIATE`` (:meth:`PublishRows.immediate`),
``insert or ignore`` (:meth:`PublishRows.open_task`, :meth:`PublishRows.open_clock_task`),
``insert or replace`` (:meth:`PublishRows.start_process`), ``instr()``
(:meth:`PublishRows.seen_posts`), ``||`` string concatenation
(:meth:`PublishRows.close_clock_tasks`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from forumbot.storage.leases import fenced
from forumbot.storage.repository import Repository, open_task_once


class PublishRows(Repository):
    """Queries of :mod:`forumbot.publish.poster`, ``refusals`` and ``clock_pause``
    (module docstring)."""

    # -- transactions ---------------------------------------------------------------------
    @contextmanager
    def immediate(self) -> Iterator[None]:
        """A write transaction begun with ``BEGIN IMMEDIATE`` (the write lock held before the
        first read; waits up to the busy timeout), committed at the end, rolled back on any
        error; inside an open transaction, nothing more (the caller's transaction holds).

        Why: a deferred transaction that reads, then writes after another connection (the
        poll worker) committed, fails at once with « database is locked » (SQLite cannot
        upgrade a stale read snapshot). Used around marking a declaration published
        (:func:`forumbot.publish.poster._mark_published`)."""
        conn = self.db.conn
        if conn.in_transaction:
            yield
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.rollback()
            raise
        conn.commit()

    def commit_claim(self) -> None:
        """**Commits** the connection's open transaction: a claim (compare-and-set) is its own
        committed transaction, before any request to the board."""
        self.db.conn.commit()

    # -- declarations: the publisher ------------------------------------------------------
    def last_published_post(self, duel_id: int) -> int | None:
        """Post id of the duel's latest ``published`` declaration (``max(published_post_id)``),
        or None."""
        row = self.db.execute(
            "select max(published_post_id) from declarations where duel_id = ? "
            "and status = 'published'",
            [duel_id],
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    def max_declaration_id(self) -> int:
        """The largest declaration id (0 without any)."""
        row = self.db.execute("select max(id) from declarations").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def start_process(self, started_at: str, check_until: str) -> str | None:
        """What a publisher starting now records, in one transaction (``BEGIN`` … ``COMMIT``,
        **commits**; a savepoint inside an open one): ``publish_restores`` rows not started yet
        get ``started_at`` / ``check_until``; ``publish_marks.owls_fresh_after`` := the largest
        owl id (``insert or replace``). Returns ``max(publish_restores.check_until)`` read
        after that transaction, or None."""
        with self.db.atomic():
            self.db.execute(
                "update publish_restores set started_at = ?, check_until = ? "
                "where started_at is null",
                [started_at, check_until],
            )
            owls = self.db.execute("select max(id) from owls").fetchone()
            self.db.execute(
                "insert or replace into publish_marks (name, value) values (?, ?)",
                ["owls_fresh_after", str(int(owls[0]) if owls and owls[0] is not None else 0)],
            )
        top = self.db.execute("select max(check_until) from publish_restores").fetchone()
        return str(top[0]) if top and top[0] else None

    def claim_declaration(self, decl_id: int, status: str, version: int, updated_at: str) -> int:
        """**Compare-and-set** claim: ``update declarations set status = 'publishing',
        attempts + 1, version + 1 … where id = ? and status = ? and version = ?``. Returns the
        rowcount (1: this publisher owns the row; 0: another one claimed it or it changed, or,
        under ``forumbot serve`` on PostgreSQL, this worker no longer holds the club's lease:
        :func:`forumbot.storage.leases.fenced`, in the same statement). Does not commit:
        :meth:`commit_claim` follows at once."""
        sql, params = fenced(
            self.db,
            "update declarations set status = 'publishing', "
            "attempts = coalesce(attempts, 0) + 1, "
            "version = version + 1, updated_at = ? where id = ? and status = ? "
            "and version = ?",
            [updated_at, decl_id, status, version],
        )
        return int(self.db.execute(sql, params).rowcount)

    def update_declaration(self, decl_id: int, fields: dict[str, Any]) -> None:
        """Set ``fields`` on the declaration ``decl_id`` (sqlite-utils ``update``, as the
        publisher always did)."""
        self.db.table("declarations").update(decl_id, fields)

    # -- refusals (issue 22) --------------------------------------------------------------
    def seen_posts(self, board_id: int, topic_id: int, marker: str) -> list[tuple[Any, ...]]:
        """``(post_id, author, text)`` of the stored posts (``posts_seen``) of the topic whose
        text holds ``marker`` (``instr``), by post id."""
        return list(
            self.db.execute(
                "select post_id, author, text from posts_seen where board_id = ? "
                "and topic_id = ? and instr(text, ?) > 0 order by post_id",
                [board_id, topic_id, marker],
            ).fetchall()
        )

    def duel_title(self, duel_id: int) -> tuple[Any, Any] | None:
        """``(title, topic_id)`` of the duel, or None."""
        row = self.db.execute(
            "select title, topic_id from duels where id = ?", [duel_id]
        ).fetchone()
        return (row[0], row[1]) if row is not None else None

    def open_task(
        self, board_id: int, duel_id: int | None, kind: str, source_key: str, duellist: str,
        subject: str, text: str, created_at: str,
    ) -> None:  # fmt: skip
        """Open a referee task once per ``source_key`` (``insert or ignore``; status
        ``open``, zone null)."""
        open_task_once(self.db, {
            "board_id": board_id, "duel_id": duel_id, "kind": kind, "source_key": source_key,
            "duellist": duellist, "zone": None, "subject": subject, "text": text,
            "created_at": created_at,
        })  # fmt: skip

    def close_tasks_like(self, source_like: str, note: str, done_at: str) -> int:
        """Close (``done`` by ``forumbot``, with ``note``) the open referee tasks whose
        ``source_key`` is ``like`` ``source_like``; returns how many."""
        return int(
            self.db.execute(
                "update referee_tasks set status = 'done', done_at = ?, done_by = 'forumbot', "
                "note = ? where status = 'open' and source_key like ?",
                [done_at, note, source_like],
            ).rowcount
        )

    def change_token(self) -> tuple[int, int]:
        """``(PRAGMA data_version, total_changes())``: the pair differs from an earlier reading
        once any connection committed a change since (``data_version``: another connection,
        e.g. the review page or another worker; ``total_changes()``: this connection's own
        writes). On PostgreSQL (:mod:`forumbot.storage.pg`) ``data_version`` changes at every
        transaction on the server: the pair then differs nearly always (errs on reading)."""
        version = int(self.db.execute("PRAGMA data_version").fetchone()[0])
        return version, int(self.db.execute("select total_changes()").fetchone()[0])

    def any_declaration_in(self, statuses: tuple[str, ...]) -> bool:
        """True when at least one declaration has one of ``statuses`` (one probe,
        ``select 1 … limit 1``; ``statuses`` non-empty)."""
        marks = ",".join("?" * len(statuses))
        sql = f"select 1 from declarations where status in ({marks}) limit 1"
        return self.db.execute(sql, list(statuses)).fetchone() is not None

    def queued_declarations(self) -> list[dict[str, Any]]:
        """The ``queued`` declarations, by id."""
        return list(self.db["declarations"].rows_where("status = 'queued'", order_by="id"))

    def refused_declarations(self, prefix: str) -> list[dict[str, Any]]:
        """The ``held`` declarations whose ``last_error`` starts with ``prefix``, by id."""
        return list(
            self.db["declarations"].rows_where(
                "status = 'held' and last_error like ?", [prefix + "%"], order_by="id"
            )
        )

    def touch_held(self, decl_id: int, updated_at: str) -> None:
        """Stamp ``updated_at`` of the declaration while it is still ``held`` (a probe)."""
        self.db.execute(
            "update declarations set updated_at = ? where id = ? and status = 'held'",
            [updated_at, decl_id],
        )

    def release_refused(self, decl_id: int, version: int, updated_at: str) -> int:
        """**Compare-and-set** release: ``update declarations set status = 'approved',
        last_error = null, version + 1 … where id = ? and status = 'held' and version = ?``;
        returns the rowcount (1: released). Runs in the caller's transaction."""
        return int(
            self.db.execute(
                "update declarations set status = 'approved', last_error = null, "
                "version = version + 1, updated_at = ? where id = ? and status = 'held' "
                "and version = ?",
                [updated_at, decl_id, version],
            ).rowcount
        )

    # -- the clock pause ------------------------------------------------------------------
    def open_clock_task(self, kind: str, source_key: str, subject: str, text: str,
                        created_at: str, note: str) -> None:  # fmt: skip
        """Open the board-less, duel-less referee task ``kind`` once (``insert or ignore``)."""
        self.db.execute(
            "insert or ignore into referee_tasks (board_id, duel_id, kind, source_key, "
            "subject, text, status, created_at, note) "
            "values (null, null, ?, ?, ?, ?, 'open', ?, ?)",
            [kind, source_key, subject, text, created_at, note],
        )

    def open_task_of_kind(self, kind: str) -> bool:
        """True while a referee task of ``kind`` is ``open``."""
        row = self.db.execute(
            "select 1 from referee_tasks where kind = ? and status = 'open' limit 1", [kind]
        ).fetchone()
        return row is not None

    def close_clock_tasks(self, kind: str, done_at: str, note_suffix: str) -> None:
        """Close (``done`` by ``forumbot``) the open tasks of ``kind``, ``note_suffix``
        appended to their note."""
        self.db.execute(
            "update referee_tasks set status = 'done', done_at = ?, done_by = 'forumbot', "
            "note = coalesce(note, '') || ? where kind = ? and status = 'open'",
            [done_at, note_suffix, kind],
        )


__all__ = ["PublishRows"]
