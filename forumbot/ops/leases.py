"""Which clubs this ``forumbot serve`` worker runs, when several share one PostgreSQL (issue 27,
"Boards move between workers"; docs/operations.md, "Several workers").

A club is leased to one worker at a time (:mod:`forumbot.storage.leases`: a ``leases`` row per
club, claimed with ``SELECT … FOR UPDATE SKIP LOCKED``, a TTL, an epoch). :class:`Leaser` is
this worker's side, one :meth:`Leaser.step` every ``ttl_s / 3`` seconds of the serve loop, and
just after another worker's lease is due to lapse (a dead worker's clubs are taken over as soon
as its leases lapse, not up to a third of the TTL later):

1. heartbeat (this worker counts among the live workers), and a lease row for every club of
   the folder;
2. renew the leases held; one not renewed (taken over after it lapsed, or the server
   unreachable for longer than ``ttl_s - margin``) is **lost**: its club is stopped at once
   (it could not publish anyway: the fence of its claims fails);
3. the fair share: ``target = ceil(clubs / live workers)``, ``cap = target + 1``. Holding more
   than ``cap`` (or more than ``target`` while a live worker holds none and no club is free),
   the worker **sheds** down to ``target`` (those clubs stop cleanly, then their leases are
   released); holding fewer, it claims free or lapsed clubs up to ``cap``. A club it
   released is not claimed back by it for one TTL (another worker takes it first).

Units: seconds on the serve loop's monotonic clock (``clock``); lease times are the server's.
"""

from __future__ import annotations

import logging
import math
import os
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from forumbot.config import Config
from forumbot.storage.engine import is_postgres, redacted, split_schema
from forumbot.storage.leases import LEASE_SCHEMA, Fence, LeaseRow, LeaseTable

log = logging.getLogger("forumbot.ops.serve")

DEFAULT_LEASE_TTL_S = 30.0
"""A club lease's time to live, seconds (``serve --lease-ttl``); renewed every third of it."""


def default_worker_id() -> str:
    """``<host>:<pid>``: this process's holder id in the lease table."""
    return f"{socket.gethostname()}:{os.getpid()}"


def lease_key(config: Config) -> str:
    """The lease key of a club: the PostgreSQL schema of its ``storage.url`` (``public``
    without ``schema=``): one lease per club's data."""
    return split_schema(config.database)[1] or "public"


def lease_refusal(config: Config, lease_url: str) -> str | None:
    """Why a club cannot run under leases on ``lease_url`` (None: it can): its storage must be
    PostgreSQL in the lease table's own database, so the fence is read in the claim's
    statement."""
    if not is_postgres(config.database):
        return (f"storage.database {config.database} is not PostgreSQL: with --lease-url every "
                "club's storage.url is a schema of the lease database")  # fmt: skip
    if split_schema(config.database)[0] != split_schema(lease_url)[0]:
        return (f"storage.url {redacted(config.database)} is not in the lease database "
                f"{redacted(split_schema(lease_url)[0])} (the publish fence reads the lease in "
                "the claim's own statement)")  # fmt: skip
    return None


@dataclass
class LeaseStep:
    """What one :meth:`Leaser.step` changed (lease keys): ``gained`` (start these clubs),
    ``lost`` (stop at once), ``shed`` (stop cleanly, then release)."""

    gained: set[str] = field(default_factory=set)
    lost: set[str] = field(default_factory=set)
    shed: set[str] = field(default_factory=set)


class Leaser:
    """This worker's leases (module doc).

    Args:
        table: the lease tables (:class:`forumbot.storage.leases.LeaseTable`); None: opened on
            ``lease_url`` at the first step.
        lease_url: the lease database (``postgresql://``), used when ``table`` is None.
        holder: this worker's id (:func:`default_worker_id`).
        ttl_s: the leases' time to live, seconds (> 0).
        clock: monotonic seconds (the serve loop's).

    Raises:
        ValueError: ``ttl_s`` <= 0, or neither ``table`` nor ``lease_url``.
    """

    def __init__(
        self,
        *,
        holder: str,
        ttl_s: float = DEFAULT_LEASE_TTL_S,
        clock: Callable[[], float],
        table: LeaseTable | None = None,
        lease_url: str | None = None,
    ) -> None:
        if ttl_s <= 0:
            raise ValueError("the lease TTL must be positive")
        if table is None and lease_url is None:
            raise ValueError("a Leaser needs a lease table or a lease URL")
        self.holder = holder
        self.ttl_s = float(ttl_s)
        self.lease_url = lease_url
        self._clock = clock
        self._table = table
        self.schema = table.schema if table is not None else (
            split_schema(lease_url or "")[1] or LEASE_SCHEMA)  # fmt: skip
        self.held: dict[str, int] = {}  # key -> epoch
        self.shedding: set[str] = set()
        self.rows: dict[str, LeaseRow] = {}  # every club's lease as last read (health)
        self.live = 1
        self._valid_until = float("-inf")  # monotonic: the held leases cannot have lapsed before
        self._cooldown: dict[str, float] = {}  # released by us: not claimed back before
        self._next = float("-inf")
        self.last_error: str | None = None

    @property
    def margin_s(self) -> float:
        """Seconds a lease must still have for a claim to win (a third of the TTL)."""
        return self.ttl_s / 3

    def next_due(self) -> float:
        """Serve clock time of the next :meth:`step`."""
        return self._next

    def fence(self, key: str) -> Fence:
        """The fence of the held lease ``key`` (for its club's publish claims).

        Raises:
            KeyError: ``key`` is not held.
        """
        return Fence(key, self.holder, self.held[key], self.margin_s, self.schema)

    def table(self) -> LeaseTable:
        """The lease tables, opened on first use.

        Raises:
            ConfigError: the lease database cannot be reached.
        """
        if self._table is None:
            assert self.lease_url is not None
            self._table = LeaseTable(self.lease_url)
        return self._table

    def step(self, wanted: Iterable[str], *, claim: bool = True) -> LeaseStep:
        """One round (module doc) over the lease keys of the folder's valid clubs; ``claim``
        False (the worker is stopping): heartbeat and renew only. Never raises: a server
        error is logged and kept in ``last_error``; the held leases are then lost once they
        may have lapsed."""
        keys = set(wanted)
        started = self._clock()
        self._next = started + self.ttl_s / 3
        out = LeaseStep()
        try:
            table = self.table()
            table.heartbeat(self.holder, self.ttl_s)
            table.ensure(keys)
            renewed = table.renew(self.holder, self.held, self.ttl_s)
        except Exception as exc:  # psycopg.Error, ConfigError, OSError: the server is away
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.error("leases: cannot reach the lease table (%s)", self.last_error)
            self._drop_table()
            if started >= self._valid_until - self.margin_s and self.held:
                out.lost = set(self.held)
                log.error("leases: %d club lease(s) may have lapsed: their clubs stop",
                          len(self.held))  # fmt: skip
                self.held.clear()
                self.shedding.clear()
            return out
        self.last_error = None
        self._valid_until = started + self.ttl_s
        out.lost = set(self.held) - renewed
        for key in out.lost:
            del self.held[key]
            self.shedding.discard(key)
        try:
            if claim:
                out.shed, out.gained = self._share(table, keys)
            self.rows = table.read(keys)
            others = [
                r.remaining_s for r in self.rows.values()
                if r.live and r.holder != self.holder and r.remaining_s is not None
            ]  # fmt: skip
            if claim and others:  # look again just after the next lease of another lapses
                self._next = min(self._next, self._clock() + max(0.0, min(others)) + 0.05)
        except Exception as exc:
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.error("leases: claiming failed (%s)", self.last_error)
            self._drop_table()
        return out

    def _share(self, table: LeaseTable, keys: set[str]) -> tuple[set[str], set[str]]:
        """Shed above the cap, or claim up to it (module doc, 3)."""
        self.live = max(1, table.live_workers())
        target = math.ceil(len(keys) / self.live) if keys else 0
        cap = target + 1
        active = [k for k in sorted(self.held) if k not in self.shedding]
        rows = table.read(keys)
        taken = {k for k, r in rows.items() if r.live and r.holder is not None}
        holders = {r.holder for r in rows.values() if r.live and r.holder is not None}
        idle = len(holders | {self.holder}) < self.live and not keys - taken  # one holds none
        if len(active) > cap or (idle and len(active) > target):
            shed = set(active[target:])
            self.shedding |= shed
            return shed, set()
        now_s = self._clock()
        self._cooldown = {k: t for k, t in self._cooldown.items() if t > now_s}
        candidates = keys - set(self.held) - set(self._cooldown)
        gained = table.claim(self.holder, candidates, cap - len(self.held), self.ttl_s)
        self.held.update(gained)
        return set(), set(gained)

    def release(self, key: str) -> None:
        """Give the lease ``key`` back (its club has stopped cleanly); not claimed back by
        this worker for one TTL. Errors are logged (the lease then lapses by itself)."""
        epoch = self.held.pop(key, None)
        self.shedding.discard(key)
        if epoch is None:
            return
        self._cooldown[key] = self._clock() + self.ttl_s
        try:
            self.table().release(self.holder, {key: epoch})
        except Exception as exc:
            log.error("leases: releasing %s failed (%s); it lapses after its TTL", key, exc)
            self._drop_table()

    def close(self) -> None:
        """A clean stop: release every lease still held, forget this worker's heartbeat,
        close the connection (errors logged: the leases lapse by themselves)."""
        held, self.held = dict(self.held), {}
        try:
            table = self.table()
            table.release(self.holder, held)
            table.forget_worker(self.holder)
        except Exception as exc:
            log.error("leases: clean release failed (%s); they lapse after their TTL", exc)
        self._drop_table()

    def _drop_table(self) -> None:
        """Close the lease connection (reopened at the next use) after an error."""
        if self._table is not None and self.lease_url is not None:
            try:
                self._table.close()
            except Exception:  # already broken
                log.debug("leases: closing the broken connection failed", exc_info=True)
            self._table = None

    def describe(self, key: str) -> dict[str, object]:
        """A club's lease for the health answer: ``holder`` (None: free), ``held_here``,
        ``lease_epoch``, ``lease_live``."""
        row = self.rows.get(key)
        return {
            "holder": row.holder if row is not None else None,
            "held_here": key in self.held,
            "lease_epoch": self.held.get(key, row.epoch if row is not None else None),
            "lease_live": row.live if row is not None else False,
        }


__all__ = [
    "DEFAULT_LEASE_TTL_S", "LeaseStep", "Leaser", "default_worker_id", "lease_key",
    "lease_refusal",
]  # fmt: skip
