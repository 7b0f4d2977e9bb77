"""Club leases on PostgreSQL (issue 27, "Boards move between workers"): which ``forumbot
serve`` worker runs which club, through PostgreSQL's own row locks.

Two tables in the schema :data:`LEASE_SCHEMA` of the clubs' database (created when absent):

- ``leases (club text primary key, holder text, epoch bigint, expires_at timestamptz)``: one
  row per club (the club's key: its schema); ``holder`` the worker running it (null: free),
  ``epoch`` increased at every claim (the fencing token), ``expires_at`` when the lease lapses
  unless renewed;
- ``workers (holder text primary key, expires_at timestamptz)``: each live worker's heartbeat
  (a worker holding no club still counts in the fair share).

Times are the **server's** clock (``now()``), so the workers' clocks need not agree; the
tests pass an explicit ``at`` (an aware datetime) instead. Durations are seconds (floats).

A claim takes free or lapsed rows with ``SELECT … FOR UPDATE SKIP LOCKED`` (two workers
claiming at once never wait on each other nor take the same row) and bumps their epoch.

:class:`Fence` is what the compare-and-set claims before a post to the board add, in the same
statement, so a worker that lost its lease never claims a declaration, an owl, a club post or
a notice
(:meth:`forumbot.storage.Storage.set_lease_fence`).

Errors: every method raises ``psycopg.Error`` when the server fails or is unreachable (the
caller, :mod:`forumbot.ops.leases`, treats that as "nothing renewed").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.storage.engine import connect_pg

LEASE_SCHEMA = "forumbot_serve"
"""The PostgreSQL schema of the ``leases`` and ``workers`` tables (beside the clubs')."""

_DDL = (
    "create schema if not exists {s}",
    "create table if not exists {s}.leases (club text primary key, holder text, "
    "epoch bigint not null default 0, expires_at timestamptz)",
    "create table if not exists {s}.workers (holder text primary key, "
    "expires_at timestamptz not null)",
)
_NOW = "coalesce(%(at)s::timestamptz, now())"
_TTL = "%(ttl)s * interval '1 second'"


@dataclass(frozen=True)
class Fence:
    """The lease a publisher must still hold for its claim to win.

    Attributes:
        club: the lease's key (the club's schema).
        holder: this worker's id.
        epoch: the epoch it claimed the lease at (a takeover makes a larger one).
        margin_s: the lease must have at least that many seconds left (the claim, then the
            post, must fit in them before any other worker may take the club over).
        schema: the lease tables' schema (:data:`LEASE_SCHEMA` unless the lease URL names one).
    """

    club: str
    holder: str
    epoch: int
    margin_s: float
    schema: str = LEASE_SCHEMA

    def clause(self) -> tuple[str, list[Any]]:
        """``(sql, params)``: `` and exists (...)`` in SQLite's dialect (``?`` parameters),
        appended to a compare-and-set ``update … where …``; the lease row is read ``for
        share`` (a takeover's claim skips it until the claim commits)."""
        return (
            f" and exists (select 1 from {self.schema}.leases where club = ? and holder = ? "
            "and epoch = ? and expires_at > now() + ? * interval '1 second' for share)",
            [self.club, self.holder, self.epoch, self.margin_s],
        )


@dataclass(frozen=True)
class LeaseRow:
    """One club's lease as read: ``holder`` None when free; ``live`` False when lapsed;
    ``remaining_s`` seconds until it lapses (None when free, negative once lapsed)."""

    club: str
    holder: str | None
    epoch: int
    live: bool
    remaining_s: float | None = None


class LeaseTable:
    """The lease tables of the database at ``url`` (a ``postgresql://`` URL), in the schema
    its ``schema=`` names (default :data:`LEASE_SCHEMA`), on a connection of its own
    (autocommit: each method is one statement or one transaction).

    Raises:
        ConfigError: the server cannot be reached (:func:`forumbot.storage.engine.connect_pg`).
    """

    def __init__(self, url: str) -> None:
        from forumbot.storage.engine import split_schema

        dsn, schema = split_schema(url)
        self.schema = schema or LEASE_SCHEMA
        self.raw: Any = connect_pg(dsn)
        with self.raw.transaction():  # two workers starting at once: one creates, one waits
            self.raw.execute("select pg_advisory_xact_lock(hashtext('forumbot:leases:ddl'))")
            for statement in _DDL:
                self.raw.execute(statement.format(s=self.schema))

    def close(self) -> None:
        """Close the connection."""
        self.raw.close()

    def _rows(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        cur = self.raw.execute(sql, params)
        return list(cur.fetchall()) if cur.description is not None else []

    def heartbeat(self, holder: str, ttl_s: float, at: datetime | None = None) -> None:
        """Record ``holder`` alive for ``ttl_s`` seconds more (upsert of its ``workers`` row)."""
        self._rows(
            f"insert into {self.schema}.workers (holder, expires_at) values "
            f"(%(holder)s, {_NOW} + {_TTL}) on conflict (holder) do update "
            "set expires_at = excluded.expires_at",
            {"holder": holder, "ttl": ttl_s, "at": at},
        )

    def live_workers(self, at: datetime | None = None) -> int:
        """Workers whose heartbeat has not lapsed (at least 0)."""
        rows = self._rows(
            f"select count(*) from {self.schema}.workers where expires_at > {_NOW}", {"at": at}
        )
        return int(rows[0][0])

    def forget_worker(self, holder: str) -> None:
        """Delete ``holder``'s heartbeat (a clean stop: it no longer counts in the share)."""
        self._rows(f"delete from {self.schema}.workers where holder = %(h)s", {"h": holder})

    def ensure(self, clubs: Iterable[str]) -> None:
        """Create the free lease row of every club in ``clubs`` that has none."""
        names = sorted(set(clubs))
        if names:
            self._rows(
                f"insert into {self.schema}.leases (club) select unnest(%(c)s::text[]) "
                "on conflict (club) do nothing",
                {"c": names},
            )

    def read(self, clubs: Iterable[str], at: datetime | None = None) -> dict[str, LeaseRow]:
        """The lease rows of ``clubs`` (missing: not created yet)."""
        sql, params = _read_query(self.schema, clubs, at)
        return _lease_rows(self._rows(sql, params))

    def claim(
        self, holder: str, clubs: Iterable[str], limit: int, ttl_s: float,
        at: datetime | None = None,
    ) -> dict[str, int]:  # fmt: skip
        """Take at most ``limit`` of ``clubs`` that are free or lapsed (``FOR UPDATE SKIP
        LOCKED``, by name), for ``ttl_s`` seconds; each taken row's epoch is increased.
        Returns ``{club: new epoch}``."""
        if limit <= 0:
            return {}
        rows = self._rows(
            f"with free as (select club from {self.schema}.leases where club = any(%(c)s) "
            f"and (holder is null or expires_at is null or expires_at <= {_NOW}) "
            "order by club limit %(n)s for update skip locked) "
            f"update {self.schema}.leases l set holder = %(h)s, epoch = l.epoch + 1, "
            f"expires_at = {_NOW} + {_TTL} from free where l.club = free.club "
            "returning l.club, l.epoch",
            {"c": sorted(set(clubs)), "n": limit, "h": holder, "ttl": ttl_s, "at": at},
        )
        return {r[0]: int(r[1]) for r in rows}

    def renew(
        self, holder: str, held: dict[str, int], ttl_s: float, at: datetime | None = None
    ) -> set[str]:
        """Extend by ``ttl_s`` seconds the leases of ``held`` (``{club: epoch}``) that
        ``holder`` still holds at that epoch and that have not lapsed. Returns the clubs
        renewed (the others are lost)."""
        if not held:
            return set()
        names = sorted(held)
        rows = self._rows(
            f"update {self.schema}.leases l set expires_at = {_NOW} + {_TTL} "
            "from (select unnest(%(c)s::text[]) as club, unnest(%(e)s::bigint[]) as epoch) k "
            f"where l.club = k.club and l.epoch = k.epoch and l.holder = %(h)s "
            f"and l.expires_at > {_NOW} returning l.club",
            {"c": names, "e": [held[n] for n in names], "h": holder, "ttl": ttl_s, "at": at},
        )
        return {r[0] for r in rows}

    def release(self, holder: str, held: dict[str, int]) -> None:
        """Free the leases of ``held`` (``{club: epoch}``) still held by ``holder`` at that
        epoch (a clean stop; the next claim increases the epoch)."""
        if not held:
            return
        names = sorted(held)
        self._rows(
            f"update {self.schema}.leases l set holder = null, expires_at = null "
            "from (select unnest(%(c)s::text[]) as club, unnest(%(e)s::bigint[]) as epoch) k "
            "where l.club = k.club and l.epoch = k.epoch and l.holder = %(h)s",
            {"c": names, "e": [held[n] for n in names], "h": holder},
        )


def _read_query(
    schema: str, clubs: Iterable[str], at: datetime | None
) -> tuple[str, dict[str, Any]]:
    """The select of :meth:`LeaseTable.read` and :func:`read_leases`, with its parameters."""
    return (
        f"select club, holder, epoch, coalesce(expires_at > {_NOW}, false), "
        f"extract(epoch from expires_at - {_NOW}) "
        f"from {schema}.leases where club = any(%(c)s)",
        {"c": sorted(set(clubs)), "at": at},
    )


def _lease_rows(rows: Iterable[tuple[Any, ...]]) -> dict[str, LeaseRow]:
    return {
        r[0]: LeaseRow(r[0], r[1], int(r[2]), bool(r[3]),
                       float(r[4]) if r[4] is not None else None)  # fmt: skip
        for r in rows
    }


def read_leases(
    url: str, clubs: Iterable[str], at: datetime | None = None
) -> dict[str, LeaseRow] | None:
    """The lease rows of ``clubs`` in the lease tables at ``url`` (``serve --lease-url``: its
    ``schema=``, default :data:`LEASE_SCHEMA`), read on a read-only session: nothing is
    created (``forumbot doctor --all``). None when no serve worker has made the tables yet.

    Raises:
        ConfigError: the server cannot be reached.
        psycopg.Error: the read failed for another reason.
    """
    import psycopg

    from forumbot.storage.engine import read_only_session, split_schema

    schema = split_schema(url)[1] or LEASE_SCHEMA
    raw = read_only_session(url)
    try:
        found = raw.execute("select to_regclass(%s)", [f"{schema}.leases"]).fetchone()
        if found is None or found[0] is None:
            return None
        sql, params = _read_query(schema, clubs, at)
        return _lease_rows(raw.execute(sql, params).fetchall())
    except psycopg.errors.InvalidSchemaName:
        return None
    finally:
        raw.close()


def fenced(db: Any, sql: str, params: list[Any]) -> tuple[str, list[Any]]:
    """``sql`` (a compare-and-set ``update … where …`` in SQLite's dialect) and its
    ``params``, with the :class:`Fence` of ``db`` appended when one is set
    (:meth:`forumbot.storage.Storage.set_lease_fence`); unchanged otherwise (SQLite,
    ``forumbot run``, the review page)."""
    fence: Fence | None = getattr(db, "lease_fence", None)
    if fence is None:
        return sql, params
    clause, extra = fence.clause()
    return sql + clause, params + extra


__all__ = ["LEASE_SCHEMA", "Fence", "LeaseRow", "LeaseTable", "fenced", "read_leases"]
