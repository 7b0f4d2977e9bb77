"""Login state and login rate limiting.

The session (Starlette's ``SessionMiddleware``: an itsdangerous-signed, HttpOnly,
SameSite=Lax cookie) holds only a random session id and the CSRF token. The id names a
server-side record (:mod:`forumbot.web.sessions`, table ``web_sessions``); a cookie without a
live record is anonymous, so a session ends for good at logout, when the account's password
changes, when the account is disabled or enabled, or after ``idle_s`` seconds without a
request: replaying an older cookie does not bring it back. Each request also reloads the
account from the database: a disabled user is logged out at once, and the role always comes
from the ``users`` table, never from a form or the cookie.

Rate limit (:class:`LoginLimiter`, issue 24), counted over ``window_s`` seconds (default
15 min). An attempt is *reserved* before the password is checked, so a burst sent all at
once gets no more guesses than one sent one by one; a right password releases its
reservation, a wrong one keeps it as a failure:

- at most ``max_failures`` (5) attempts per (username, client address);
- at most ``max_ip_failures`` (20) per client address, whatever the usernames tried;
- per-account backoff: once an account has ``max_account_failures`` (10) failures in the
  window, from any addresses, an address that already failed at that account gets no
  further guess at it (its limit drops from 5 to the failures it already made); an address
  that has not failed at the account keeps its guesses.

There is no global cap: ``max_global_failures`` only counts (a flood beyond it is logged
once per window). A global cap let anyone lock every referee out with random usernames
(issue 24, F2); the limits above never refuse an account's right password from an address
that has not failed. Beyond a limit, attempts get HTTP 429 until the oldest attempt leaves
the window. The client address is the TCP peer, or the ``X-Forwarded-For`` of a configured
proxy only (``web.trusted_proxies``). Kept in memory (one web process; a restart clears it),
bounded: at most ``max_keys`` (username, address), address and account entries, the least
recently used dropped first, each holding at most its limit of entries.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.storage import Storage
from forumbot.web import csrf, sessions
from forumbot.web.users import User, get_user

SESSION_ID = "sid"  # the key of the session id in the cookie
REALM = "realm"
"""The key of the session's realm in the cookie: the club (or ``/host``) under ``forumbot web
--boards``; absent for ``forumbot web`` (one club)."""
log = logging.getLogger(__name__)
_TICKETS = itertools.count(1)


class _Windows:
    """Attempt entries ``(time, ticket)`` per key, in a sliding window; at most ``max_keys``
    keys, each keeping its newest ``limit`` entries (older ones cannot change a decision)."""

    def __init__(self, limit: int, max_keys: int) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self._times: OrderedDict[object, deque[tuple[datetime, int]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._times)

    def _prune(
        self, key: object, now: datetime, window_s: float
    ) -> deque[tuple[datetime, int]] | None:
        times = self._times.get(key)
        if times is None:
            return None
        while times and (now - times[0][0]).total_seconds() >= window_s:
            times.popleft()
        if not times:
            del self._times[key]
            return None
        return times

    def count(self, key: object, now: datetime, window_s: float) -> int:
        """Entries of ``key`` in the window."""
        times = self._prune(key, now, window_s)
        return 0 if times is None else len(times)

    def wait_s(self, key: object, now: datetime, window_s: float, limit: int | None = None) -> int:
        """Seconds until ``key`` is under ``limit`` (default: its limit) again (0: it is)."""
        limit = self.limit if limit is None else limit
        times = self._prune(key, now, window_s)
        if times is None or len(times) < limit:
            return 0
        waited = (now - times[0][0]).total_seconds()
        return max(1, int(window_s - waited) + 1)

    def add(self, key: object, now: datetime, window_s: float, ticket: int = 0) -> None:
        times = self._prune(key, now, window_s)
        if times is None:
            times = self._times[key] = deque(maxlen=self.limit)
        times.append((now, ticket))
        self._times.move_to_end(key)
        while len(self._times) > self.max_keys:
            self._times.popitem(last=False)  # the key whose last entry is the oldest

    def release(self, key: object, ticket: int) -> None:
        """Drop the entry ``ticket`` of ``key`` (a reservation a right password released)."""
        times = self._times.get(key)
        if times is None:
            return
        kept = [e for e in times if e[1] != ticket]
        if not kept:
            del self._times[key]
        elif len(kept) != len(times):
            times.clear()
            times.extend(kept)

    def forget(self, key: object) -> None:
        self._times.pop(key, None)


@dataclass(frozen=True)
class Reservation:
    """One login attempt counted before its password check (:meth:`LoginLimiter.reserve`).

    Attributes:
        key: ``(casefolded username, client address)``.
        ticket: the attempt's entry in the windows (released by a right password).
    """

    key: tuple[str, str]
    ticket: int


class LoginLimiter:
    """Counts login attempts per (username, address), per address and per account (module
    docstring). Thread-safe (one lock); the web app calls it from its event loop.

    Args:
        now: clock (aware datetime).
        max_failures: attempts allowed per (username, address) within the window.
        window_s: window length in seconds.
        max_ip_failures: attempts allowed per address, all usernames together.
        max_global_failures: failures in all beyond which a warning is logged (no refusal).
        max_account_failures: failures at one account (all addresses) beyond which an address
            that failed at it gets no further guess.
        max_keys: most keys remembered per table.
    """

    def __init__(
        self,
        now: Callable[[], datetime],
        max_failures: int = 5,
        window_s: int = 900,
        *,
        max_ip_failures: int = 20,
        max_global_failures: int = 200,
        max_account_failures: int = 10,
        max_keys: int = 10_000,
    ) -> None:
        self._now = now
        self._lock = threading.Lock()
        self.max_failures = max_failures
        self.window_s = window_s
        self.max_account_failures = max_account_failures
        self.max_global_failures = max_global_failures
        self._per_user = _Windows(max_failures, max_keys)
        self._per_ip = _Windows(max_ip_failures, max_keys)
        self._per_account = _Windows(max_account_failures, max_keys)
        self._global = _Windows(max_global_failures, 1)
        self._flood_logged = False

    @staticmethod
    def key(username: str, client: str, realm: str = "") -> tuple[str, str]:
        """The limiter key of a login attempt; ``realm``: the club under ``forumbot web
        --boards`` (its accounts are its own: ``alice`` of two clubs are two accounts; a club
        name holds no ``/``)."""
        name = username.strip().casefold()
        return (f"{realm}/{name}" if realm else name, client)

    def _wait(self, key: tuple[str, str], now: datetime) -> int:
        user_limit = self.max_failures
        if self._per_account.count(key[0], now, self.window_s) >= self.max_account_failures:
            failed_here = self._per_user.count(key, now, self.window_s)
            if failed_here:  # the account is under attack and this address took part
                user_limit = min(user_limit, failed_here)
        return max(
            self._per_user.wait_s(key, now, self.window_s, user_limit),
            self._per_ip.wait_s(key[1], now, self.window_s),
        )

    def retry_after_s(self, key: tuple[str, str]) -> int:
        """Seconds until an attempt is allowed again (0: allowed now): the longest wait of
        the (username, address), address and account limits."""
        with self._lock:
            return self._wait(key, self._now())

    def reserve(self, key: tuple[str, str]) -> Reservation | int:
        """Count an attempt before its password check: a :class:`Reservation` when allowed,
        else the seconds to wait (> 0). Check and count are one step (under the lock), so
        attempts sent at once cannot all pass the check before any is counted."""
        with self._lock:
            now = self._now()
            wait = self._wait(key, now)
            if wait:
                return wait
            ticket = next(_TICKETS)
            self._per_user.add(key, now, self.window_s, ticket)
            self._per_ip.add(key[1], now, self.window_s, ticket)
            return Reservation(key, ticket)

    def failure(self, attempt: Reservation | tuple[str, str]) -> None:
        """A wrong password: the reservation stays counted, and the account's and the global
        failure counts grow. A bare key (no reservation) is reserved and failed at once."""
        if not isinstance(attempt, Reservation):
            reserved = self.reserve(attempt)
            if not isinstance(reserved, Reservation):
                return  # already over the limit: nothing more to count
            attempt = reserved
        with self._lock:
            now = self._now()
            self._per_account.add(attempt.key[0], now, self.window_s, attempt.ticket)
            self._global.add(None, now, self.window_s, attempt.ticket)
            flooded = self._global.count(None, now, self.window_s) >= self.max_global_failures
            if flooded and not self._flood_logged:
                log.warning(
                    "%d failed logins in %d s from many addresses: a guessing flood "
                    "(per-address and per-account limits apply; no one else is refused)",
                    self.max_global_failures,
                    self.window_s,
                )
            self._flood_logged = flooded

    def success(self, attempt: Reservation | tuple[str, str]) -> None:
        """A right password: its reservation is released and the (username, address)
        failures forgotten (the address's other attempts and the account's failures from
        other addresses stay: a right password does not clear guesses elsewhere)."""
        with self._lock:
            if isinstance(attempt, Reservation):
                self._per_ip.release(attempt.key[1], attempt.ticket)
                key = attempt.key
            else:
                key = attempt
            self._per_user.forget(key)

    def tracked(self) -> tuple[int, int]:
        """(username-address keys, addresses) held in memory now (both <= ``max_keys``)."""
        return len(self._per_user), len(self._per_ip)


def current_user(
    storage: Storage,
    session: MutableMapping[str, Any],
    now: datetime,
    idle_s: float = sessions.DEFAULT_IDLE_S,
    realm: str = "",
) -> User | None:
    """The enabled account of this session, or None (anonymous).

    None when the cookie has no session id, when its record is gone (logout, password
    change, disable/enable) or idle for ``idle_s`` seconds or more, or when the account is
    disabled or unknown; the id is then dropped from the cookie. ``now`` is aware UTC.
    None, too, when the session was opened in another realm (:data:`REALM`: another club
    of ``forumbot web --boards``, or the host page): its id is not even looked up here.
    """
    session_id = session.get(SESSION_ID)
    if not isinstance(session_id, str) or not session_id:
        return None
    if session.get(REALM, "") != realm:
        return None
    record = sessions.live_session(storage, session_id, now, idle_s)
    user = get_user(storage, record.username) if record is not None else None
    if user is None:
        session.pop(SESSION_ID, None)
        return None
    return user


def log_in(
    session: MutableMapping[str, Any],
    user: User,
    storage: Storage,
    now: datetime,
    idle_s: float = sessions.DEFAULT_IDLE_S,
    realm: str = "",
) -> None:
    """Start a fresh session for ``user``: the cookie's previous session (if any) ends, a new
    record is created and its id stored in the cookie, with a new CSRF token (no fixation).
    Records idle for ``idle_s`` seconds or more (anyone's) are deleted on the way. A
    ``realm`` (the club, under ``forumbot web --boards``) is recorded in the cookie
    (:data:`REALM`)."""
    log_out(session, storage)
    sessions.purge_idle(storage, now, idle_s)
    session[SESSION_ID] = sessions.open_session(storage, user.username, now)
    if realm:
        session[REALM] = realm
    csrf.rotate(session)


def log_out(session: MutableMapping[str, Any], storage: Storage) -> None:
    """End the session: delete its record (so the cookie stays dead even if replayed) and
    clear the cookie (a new anonymous CSRF token is issued on the next form)."""
    session_id = session.get(SESSION_ID)
    if isinstance(session_id, str) and session_id:
        sessions.end_session(storage, session_id)
    session.clear()
