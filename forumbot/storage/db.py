"""SQLite storage through sqlite-utils: schema migrations, WAL, and the queries the bot needs.

Tables (see :data:`MIGRATIONS`):

- ``boards``: the forums the bot watches (url, platform).
- ``duels``: one row per duel topic: ruleset, status (``open`` -> ``running`` -> ``finished``),
  the current rule state as JSON, the dice commitment.
- ``duellists``: the duellists of a duel (name, forum user id, year).
- ``posts_seen``: every post read, with a SHA-256 of its own text (edit detection).
- ``turns``: each resolved turn: the inputs (state before, posts, dice) and the outcome.
- ``dice_rolls``: every roll the bot made or read (value, post, time, source).
- ``declarations``: drafts -> approved -> published, with a unique idempotency key.
- ``violations``: proposed / applied / waived / confirmed / dismissed rule breaks.
- ``audit_log``: who changed what, when, before and after.
- ``post_versions``: every distinct text of a post with the time the bot first saw it
  (fatigue: the version in force, ``late_edit``).
- ``deadlines``: fatigue relaunch deadlines and owl reminders (:mod:`forumbot.duels.deadlines`).

All timestamps are ISO 8601 UTC strings; every function takes ``now`` where it writes one.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

import sqlite_utils

from forumbot.config import check_secret_file
from forumbot.storage.club_posts import ClubPosts
from forumbot.storage.club_rows import ClubRows
from forumbot.storage.duel_rows import DuelRows
from forumbot.storage.duel_tasks import DuelTasks
from forumbot.storage.engine import is_postgres, open_pg, pg_board_language, sqlite_path
from forumbot.storage.leases import Fence
from forumbot.storage.migrations import MIGRATIONS
from forumbot.storage.notices import NoticeRows
from forumbot.storage.owl_rows import OwlRows
from forumbot.storage.post_rows import PostRows
from forumbot.storage.publish_rows import PublishRows
from forumbot.storage.readouts import Readouts
from forumbot.storage.records import Declaration, Duel, DuelRecords, StoredPost
from forumbot.storage.reward_rows import RewardRows
from forumbot.storage.same_file import real_database_path, refuse_second_name
from forumbot.storage.signup_rows import SignupRows
from forumbot.storage.sqlite_schema import SchemaCachedDatabase
from forumbot.storage.web_rows import WebRows


def content_hash(text: str) -> str:
    """SHA-256 hex digest of a post's own text (whitespace-normalised)."""
    normalised = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def iso(ts: datetime) -> str:
    """An aware datetime as an ISO 8601 string."""
    return ts.isoformat()


@dataclass
class Storage:
    """The bot's database. Open with :func:`open_storage`.

    Attributes:
        db: the sqlite-utils Database (WAL mode, foreign keys on), or on PostgreSQL a
            :class:`forumbot.storage.pg.PgDatabase` with the same API.
        path: the file path, ``":memory:"``, or the ``postgresql://`` URL.
    """

    db: sqlite_utils.Database
    path: str

    # -- the rooms' repositories (issue 27: all SQL lives in storage/) ----------------------
    @cached_property
    def notices(self) -> NoticeRows:
        """The notify room's queries (:class:`forumbot.storage.notices.NoticeRows`)."""
        return NoticeRows(self.db)

    @cached_property
    def duel_rows(self) -> DuelRows:
        """The duels room's duels, declarations, dice and violations
        (:class:`forumbot.storage.duel_rows.DuelRows`)."""
        return DuelRows(self.db)

    @cached_property
    def duel_tasks(self) -> DuelTasks:
        """The duels room's referee tasks and deadlines
        (:class:`forumbot.storage.duel_tasks.DuelTasks`)."""
        return DuelTasks(self.db)

    @cached_property
    def post_rows(self) -> PostRows:
        """The duels room's posts, versions and dice snapshots
        (:class:`forumbot.storage.post_rows.PostRows`)."""
        return PostRows(self.db)

    @cached_property
    def readouts(self) -> Readouts:
        """The CLI's and the demos' reads (:class:`forumbot.storage.readouts.Readouts`)."""
        return Readouts(self.db)

    @cached_property
    def publish_rows(self) -> PublishRows:
        """The publish room's claims, marks, refusals and clock pause
        (:class:`forumbot.storage.publish_rows.PublishRows`)."""
        return PublishRows(self.db)

    @cached_property
    def owl_rows(self) -> OwlRows:
        """The owl outbox (:class:`forumbot.storage.owl_rows.OwlRows`)."""
        return OwlRows(self.db)

    @cached_property
    def web_rows(self) -> WebRows:
        """The review page's accounts, sessions, referees, judging and views
        (:class:`forumbot.storage.web_rows.WebRows`)."""
        return WebRows(self.db)

    @cached_property
    def club_rows(self) -> ClubRows:
        """The sign-up desk's engagements, inbox, topics, profiles and threads
        (:class:`forumbot.storage.club_rows.ClubRows`)."""
        return ClubRows(self.db)

    @cached_property
    def signup_rows(self) -> SignupRows:
        """The sign-up desks' requests, pairings, 2v2 entries and matches, sign-up posts,
        withdrawals and cancellations (:class:`forumbot.storage.signup_rows.SignupRows`)."""
        return SignupRows(self.db)

    @cached_property
    def club_posts(self) -> ClubPosts:
        """The club's own posts: drafts, the claim, the due ones
        (:class:`forumbot.storage.club_posts.ClubPosts`)."""
        return ClubPosts(self.db)

    @cached_property
    def reward_rows(self) -> RewardRows:
        """The club's rewards, leaderboards and 2v2 settling
        (:class:`forumbot.storage.reward_rows.RewardRows`)."""
        return RewardRows(self.db)

    # -- transactions -------------------------------------------------------------------
    @contextmanager
    def atomic(self) -> Iterator[None]:
        """One transaction around the block (``BEGIN`` ... ``COMMIT``, rolled back when it
        raises); inside another one, a savepoint (sqlite-utils' ``Database.atomic``)."""
        with self.db.atomic():
            yield

    def commit(self) -> None:
        """Commit the connection's open (implicit) transaction, if any."""
        self.db.conn.commit()

    def set_lease_fence(self, fence: Fence | None) -> None:
        """Fence this database's publish claims with ``fence`` (``forumbot serve``'s club
        lease, issue 27): from now on a compare-and-set claim before a post to the board
        (a declaration, an owl, a club post, a notice) wins only while that lease is held
        (:func:`forumbot.storage.leases.fenced`); None lifts it.

        Raises:
            ValueError: a fence on SQLite (leases are PostgreSQL's: the lease row must be read
                in the claim's own statement).
        """
        if fence is not None and not is_postgres(self.path):
            raise ValueError("a lease fence needs PostgreSQL (storage.url = postgresql://...)")
        self.db.lease_fence = fence  # type: ignore[attr-defined]

    def rollback_open(self) -> None:
        """Roll back the connection's open transaction when there is one (after a database
        error: the next pass starts clean)."""
        if self.db.conn.in_transaction:
            self.db.conn.rollback()

    @property
    def in_transaction(self) -> bool:
        """True while the connection has an uncommitted transaction."""
        return bool(self.db.conn.in_transaction)

    # -- boards -------------------------------------------------------------------------
    def board_id(self, url: str, platform: str, now: datetime) -> int:
        """The id of the board row for ``url``, created on first use."""
        rows = list(self.db["boards"].rows_where("url = ?", [url]))
        if rows:
            return int(rows[0]["id"])
        return int(
            self.db["boards"]
            .insert({"url": url, "platform": platform, "created_at": iso(now)})
            .last_pk
        )

    def record_board_language(
        self, url: str, platform: str, language: str | None, now: datetime
    ) -> bool:
        """Record the language ``url``'s pages say (``"fr"``, :mod:`parsers.page_language`);
        None or ``""`` records nothing. Returns True when the row changed (first time, or the
        board now says another language)."""
        if not language:
            return False
        board = self.board_id(url, platform, now)
        if self.db["boards"].get(board).get("language") == language:
            return False
        self.db["boards"].update(board, {"language": language, "language_read_at": iso(now)})
        return True

    def board_language(self, url: str) -> str | None:
        """The language recorded for ``url`` (:meth:`record_board_language`), or None."""
        rows = list(self.db["boards"].rows_where("url = ?", [url], select="language"))
        return (rows[0]["language"] or None) if rows else None

    # -- duels --------------------------------------------------------------------------
    def duels(self, status: str | None = None) -> list[dict[str, Any]]:
        """Duel rows, optionally only those with ``status``."""
        if status is None:
            return list(self.db["duels"].rows_where(order_by="id"))
        return list(self.db["duels"].rows_where("status = ?", [status], order_by="id"))

    def duel(self, duel_id: int) -> dict[str, Any]:
        """One duel row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["duels"].get(duel_id))

    def duel_by_topic(self, board_id: int, topic_id: int) -> dict[str, Any] | None:
        """The duel held in ``topic_id`` on that board, or None."""
        rows = list(
            self.db["duels"].rows_where("board_id = ? and topic_id = ?", [board_id, topic_id])
        )
        return rows[0] if rows else None

    def duellists(self, duel_id: int) -> list[dict[str, Any]]:
        """Duellist rows of a duel, in sign-up order."""
        return list(self.db["duellists"].rows_where("duel_id = ?", [duel_id], order_by="id"))

    def update_duel(self, duel_id: int, **fields: Any) -> None:
        """Set columns of a duel row."""
        self.db["duels"].update(duel_id, fields)

    # -- posts --------------------------------------------------------------------------
    def seen_post(self, board_id: int, post_id: int) -> dict[str, Any] | None:
        """The stored row of a post, or None."""
        try:
            return dict(self.db["posts_seen"].get((board_id, post_id)))
        except sqlite_utils.db.NotFoundError:
            return None

    def topic_posts(self, board_id: int, topic_id: int) -> list[dict[str, Any]]:
        """Stored posts of a topic, by post id."""
        return list(
            self.db["posts_seen"].rows_where(
                "board_id = ? and topic_id = ?", [board_id, topic_id], order_by="post_id"
            )
        )

    def last_post_id(self, board_id: int, topic_id: int) -> int | None:
        """Highest post id stored for that topic, or None."""
        row = self.db.execute(
            "select max(post_id) from posts_seen where board_id = ? and topic_id = ?",
            [board_id, topic_id],
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    # -- declarations -------------------------------------------------------------------
    def declaration(self, decl_id: int) -> dict[str, Any]:
        """One declaration row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["declarations"].get(decl_id))

    def declaration_by_key(self, key: str) -> dict[str, Any] | None:
        """The declaration with that idempotency key, or None."""
        rows = list(self.db["declarations"].rows_where("idempotency_key = ?", [key]))
        return rows[0] if rows else None

    def declarations(
        self, statuses: tuple[str, ...] | None = None, duel_id: int | None = None
    ) -> list[dict[str, Any]]:
        """Declarations filtered by status and/or duel, oldest first."""
        where, args = [], []
        if statuses:
            marks = ",".join("?" * len(statuses))
            where.append(f"status in ({marks})")
            args.extend(statuses)
        if duel_id is not None:
            where.append("duel_id = ?")
            args.append(duel_id)
        return list(
            self.db["declarations"].rows_where(" and ".join(where) or None, args, order_by="id")
        )

    # -- one duel's snapshot ----------------------------------------------------------------
    def data_version(self) -> int:
        """SQLite's ``PRAGMA data_version``: it changes when another connection commits."""
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def duel_records(self, duel_id: int, *, posts: bool = True) -> DuelRecords:
        """The duel ``duel_id``, its declarations and its topic's stored posts, read in one
        read transaction (one SELECT per table; :class:`DuelRecords`). ``posts=False``:
        without the posts (:meth:`with_posts` adds them; only the poll worker writes them).
        Raises ``sqlite_utils.db.NotFoundError`` for an unknown duel."""
        conn = self.db.conn
        began = not conn.in_transaction
        if began:
            conn.execute("BEGIN")
        try:
            version = self.data_version()
            duel = Duel.from_row(self.duel(duel_id))
            decls = self.db["declarations"].rows_where("duel_id = ?", [duel_id], order_by="id")
            records = DuelRecords(
                duel,
                tuple(Declaration.from_row(d) for d in decls),
                self._posts_of(duel) if posts else None,
                version,
            )
        finally:
            if began:
                conn.commit()
        return records

    def _posts_of(self, duel: Duel) -> tuple[StoredPost, ...]:
        rows = self.db["posts_seen"].rows_where(
            "board_id = ? and topic_id = ?", [duel.board_id, duel.topic_id], order_by="post_id"
        )
        return tuple(StoredPost.from_row(p) for p in rows)

    def with_posts(self, records: DuelRecords) -> DuelRecords:
        """``records`` with the topic's stored posts (read now when it was read without)."""
        if records.seen is not None:
            return records
        return replace(records, seen=self._posts_of(records.duel))

    def fresh_records(self, records: DuelRecords) -> DuelRecords:
        """``records`` (with its posts) while no other connection committed since they were
        read, else the duel's rows read again (:meth:`duel_records`)."""
        if self.data_version() == records.data_version:
            return self.with_posts(records)
        return self.duel_records(records.duel.id)

    def posts_seen_again(self, seen: list[tuple[str, int, int]]) -> None:
        """Stamp ``posts_seen.last_seen_at`` of posts read again unchanged, in one statement:
        ``seen`` is ``[(last_seen_at ISO, board_id, post_id), ...]`` (empty: nothing done)."""
        if seen:
            with self.db.atomic():
                self.db.conn.executemany(
                    "update posts_seen set last_seen_at = ? where board_id = ? and post_id = ?",
                    seen,
                )

    def update_row(self, table: str, key: dict[str, Any], values: dict[str, Any]) -> int:
        """Set ``values`` on the one row of ``table`` whose primary key is ``key`` (column ->
        value), committed like sqlite-utils' ``update`` but without its existence read first:
        for rows the caller holds in a snapshot. Returns the rows changed (0: gone since)."""
        sets = ", ".join(f"[{column}] = ?" for column in values)
        wheres = " and ".join(f"[{column}] = ?" for column in key)
        with self.db.atomic():
            return int(
                self.db.execute(
                    f"update [{table}] set {sets} where {wheres}",
                    [*values.values(), *key.values()],
                ).rowcount
            )

    def stamp_once(self, table: str, column: str, row_id: int, at: datetime) -> bool:
        """Set ``column`` of row ``row_id`` of ``table`` to ``at`` (ISO) if it is still null,
        committed at once: a compare-and-set that claims a once-only action (telling the club
        a duel finished, an owl reminder) so a restart or a second process never repeats it.
        Returns True when this call claimed it."""
        claimed = self.db.execute(
            f"update [{table}] set [{column}] = ? where id = ? and [{column}] is null",
            [iso(at), row_id],
        ).rowcount
        self.db.conn.commit()
        return bool(claimed == 1)

    # -- violations -----------------------------------------------------------------------
    def insert_violation(
        self, duel_id: int, turn: int, violation: dict[str, Any], now: datetime
    ) -> None:
        """One violation row from an engine violation dict (duellist, rule, post_id,
        evidence, penalty, status)."""
        self.db["violations"].insert(
            {
                "duel_id": duel_id,
                "turn": turn,
                "duellist": violation["duellist"],
                "rule": violation["rule"],
                "post_id": violation["post_id"],
                "evidence": violation["evidence"],
                "penalty": violation["penalty"],
                "status": violation["status"],
                "created_at": iso(now),
                "updated_at": iso(now),
            }
        )

    def record_turn(
        self,
        duel_id: int,
        turn: int,
        state_before: dict[str, Any],
        posts: list[Any],
        dice: dict[str, Any],
        outcome: dict[str, Any],
        now: datetime,
    ) -> None:
        """Store a resolved turn (its inputs and outcome) and make the outcome's state the
        duel's state; a finished outcome finishes the duel."""
        self.db["turns"].insert(
            {
                "duel_id": duel_id,
                "number": turn,
                "state_before_json": json.dumps(state_before, ensure_ascii=False),
                "posts_json": json.dumps(posts, ensure_ascii=False),
                "dice_json": json.dumps(dice),
                "outcome_json": json.dumps(outcome, ensure_ascii=False),
                "created_at": iso(now),
            },
            replace=True,
        )
        fields: dict[str, Any] = {"state_json": json.dumps(outcome["state"], ensure_ascii=False)}
        if outcome["finished"]:
            fields.update(status="finished", finished_at=iso(now))
        self.update_duel(duel_id, **fields)

    # -- audit --------------------------------------------------------------------------
    def audit(
        self, actor: str, action: str, target: str, before: Any, after: Any, now: datetime
    ) -> None:
        """Append one line to the audit log (before/after stored as JSON)."""
        self.db["audit_log"].insert(
            {
                "at": iso(now),
                "actor": actor,
                "action": action,
                "target": target,
                "before": json.dumps(before, ensure_ascii=False, default=str),
                "after": json.dumps(after, ensure_ascii=False, default=str),
            }
        )

    def audit_entries(self, target_prefix: str | None = None) -> list[dict[str, Any]]:
        """Audit log lines, oldest first, optionally for targets starting with a prefix."""
        if target_prefix is None:
            return list(self.db["audit_log"].rows_where(order_by="id"))
        return list(
            self.db["audit_log"].rows_where(
                "target like ?", [target_prefix.replace("%", r"\%") + "%"], order_by="id"
            )
        )

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


def recorded_board_language(database: str, url: str) -> str | None:
    """The language recorded for the board at ``url`` (``boards.language``:
    :meth:`Storage.record_board_language`) in the database file ``database``, read without
    creating the file, migrating it or writing to it (a command's language is known before it
    opens its storage). None when the file, the column or the row is missing, or the file
    cannot be read. A PostgreSQL URL is read on the club's schema
    (:func:`forumbot.storage.engine.pg_board_language`), never taken for a path."""
    if is_postgres(database):
        return pg_board_language(database, url)
    if database == ":memory:" or not Path(database).is_file():
        return None
    try:
        uri = Path(real_database_path(database)).as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True, timeout=5)
        try:
            row = conn.execute("select language from boards where url = ?", [url]).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:  # no such column before the migration, unreadable file...
        return None
    return str(row[0]) if row and row[0] else None


def _create_private(path: str) -> None:
    """Create the database file readable by its owner only (0600) when it does not exist: it
    holds the duels' secret dice seeds. SQLite gives its ``-wal`` and ``-shm`` files the
    database file's mode. An existing file is left as it is."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    os.close(fd)


PAGE_CACHE_KIB = 512
"""SQLite page cache of each connection, KiB (issue 12: memory under 80 MiB at 30 duels)."""


def open_storage(path: str | Path) -> Storage:
    """Open (creating if needed) the database at ``path`` and apply pending migrations.

    ``path`` is a ``storage.url`` (:mod:`forumbot.storage.engine`): a file path or
    ``sqlite:///path`` opens SQLite as below; ``postgresql://...`` opens PostgreSQL
    (:class:`forumbot.storage.pg.PgDatabase`, the same migrations and queries).

    WAL journal mode and a 30 s busy timeout are set so the scheduler's jobs and the CLI
    can share the file; the connection may be used from the scheduler's single worker thread.
    ``synchronous = NORMAL`` (the setting SQLite recommends with WAL): a commit survives a
    killed process (``kill -9``, the crash tests) without an fsync each; only an OS crash or
    power cut can undo the last commits, and the publisher then looks for the marker of every
    row written before it started (:class:`forumbot.publish.poster.PublishState`), so nothing
    is posted twice (issue 12: the fsync per commit was a fifth of a busy poll). The page
    cache is :data:`PAGE_CACHE_KIB` per connection (SQLite's default is 2 MiB; the bot keeps
    two connections open and the operating system caches the file anyway).
    ``":memory:"`` gives a private in-memory database (tests). The schema lookups of
    sqlite-utils are remembered per schema version
    (:class:`forumbot.storage.sqlite_schema.SchemaCachedDatabase`).

    Raises:
        ConfigError: the file may be written by other users (a warning is logged when they
            may read it), or it is a second name of a database a run has open
            (:func:`forumbot.storage.same_file.refuse_second_name`).
    """
    path_s = str(path)
    if is_postgres(path_s):
        # PostgreSQL (issue 27): the same migrations and queries (forumbot.storage.pg).
        db = open_pg(path_s)
        MIGRATIONS.apply(db)
        return Storage(db=db, path=path_s)
    path_s = sqlite_path(path_s)
    if path_s == ":memory:":
        db = SchemaCachedDatabase(memory=True)
    else:
        # Same database, same file (issue 24): the real path, never a second name.
        refuse_second_name(path_s)
        real = real_database_path(path_s)
        Path(real).parent.mkdir(parents=True, exist_ok=True)
        _create_private(real)
        check_secret_file(Path(real), "storage.database")
        # The scheduler runs jobs in one worker thread (serially), not the opening thread.
        conn = sqlite3.connect(real, check_same_thread=False, timeout=30)
        db = SchemaCachedDatabase(conn)
        db.enable_wal()
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute(f"PRAGMA cache_size = -{PAGE_CACHE_KIB}")
    db.execute("PRAGMA busy_timeout = 30000")
    db.execute("PRAGMA foreign_keys = ON")
    MIGRATIONS.apply(db)
    return Storage(db=db, path=path_s)
