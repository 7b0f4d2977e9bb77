"""Login state and login rate limiting.

The session (Starlette's ``SessionMiddleware``: an itsdangerous-signed, HttpOnly,
SameSite=Lax cookie) holds only a random session id and the CSRF token. The id names a
server-side record (:mod:`forumbot.web.sessions`, table ``web_sessions``); a cookie without a
live record is anonymous, so a session ends for good at logout, when the account's password
changes, when the account is disabled or enabled, or after ``idle_s`` seconds without a
request: replaying an older cookie does not bring it back. Each request also reloads the
account from the database: a disabled user is logged out at once, and the role always comes
from the ``users`` table, never from a form or the cookie.

Rate limit (:class:`LoginLimiter`), counted over ``window_s`` seconds (default 15 min):
at most ``max_failures`` (5) failed logins per (username, client address), ``max_ip_failures``
(20) per client address whatever the usernames tried, and ``max_global_failures`` (200) in
all; beyond, attempts get HTTP 429 until the oldest failure leaves the window. The client
address is the TCP peer, or the ``X-Forwarded-For`` of a configured proxy only
(``web.trusted_proxies``). Kept in memory (one web process; a restart clears it), bounded:
at most ``max_keys`` (username, address) and address entries, the least recently failed
dropped first, each holding at most its limit of timestamps.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, MutableMapping
from datetime import datetime
from typing import Any

from forumbot.storage import Storage
from forumbot.web import csrf, sessions
from forumbot.web.users import User, get_user

SESSION_ID = "sid"  # the key of the session id in the cookie


class _Windows:
    """Failure times per key, in a sliding window; at most ``max_keys`` keys, each keeping
    its newest ``limit`` times (older ones cannot change a decision)."""

    def __init__(self, limit: int, max_keys: int) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self._times: OrderedDict[object, deque[datetime]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._times)

    def _prune(self, key: object, now: datetime, window_s: float) -> deque[datetime] | None:
        times = self._times.get(key)
        if times is None:
            return None
        while times and (now - times[0]).total_seconds() >= window_s:
            times.popleft()
        if not times:
            del self._times[key]
            return None
        return times

    def wait_s(self, key: object, now: datetime, window_s: float) -> int:
        """Seconds until ``key`` is under its limit again (0: it is)."""
        times = self._prune(key, now, window_s)
        if times is None or len(times) < self.limit:
            return 0
        waited = (now - times[0]).total_seconds()
        return max(1, int(window_s - waited) + 1)

    def add(self, key: object, now: datetime, window_s: float) -> None:
        times = self._prune(key, now, window_s)
        if times is None:
            times = self._times[key] = deque(maxlen=self.limit)
        times.append(now)
        self._times.move_to_end(key)
        while len(self._times) > self.max_keys:
            self._times.popitem(last=False)  # the key whose last failure is the oldest

    def forget(self, key: object) -> None:
        self._times.pop(key, None)


class LoginLimiter:
    """Counts failed logins per (username, address), per address and in all (module docstring).

    Args:
        now: clock (aware datetime).
        max_failures: failures allowed per (username, address) within the window.
        window_s: window length in seconds.
        max_ip_failures: failures allowed per address, all usernames together.
        max_global_failures: failures allowed in all (a guessing spread over many addresses).
        max_keys: most (username, address) keys and most addresses remembered.
    """

    def __init__(
        self,
        now: Callable[[], datetime],
        max_failures: int = 5,
        window_s: int = 900,
        *,
        max_ip_failures: int = 20,
        max_global_failures: int = 200,
        max_keys: int = 10_000,
    ) -> None:
        self._now = now
        self.max_failures = max_failures
        self.window_s = window_s
        self._per_user = _Windows(max_failures, max_keys)
        self._per_ip = _Windows(max_ip_failures, max_keys)
        self._global = _Windows(max_global_failures, 1)

    @staticmethod
    def key(username: str, client: str) -> tuple[str, str]:
        """The limiter key of a login attempt."""
        return (username.strip().casefold(), client)

    def retry_after_s(self, key: tuple[str, str]) -> int:
        """Seconds until an attempt is allowed again (0: allowed now): the longest wait of
        the (username, address), address and global limits."""
        now = self._now()
        return max(
            self._per_user.wait_s(key, now, self.window_s),
            self._per_ip.wait_s(key[1], now, self.window_s),
            self._global.wait_s(None, now, self.window_s),
        )

    def failure(self, key: tuple[str, str]) -> None:
        """Record a failed attempt."""
        now = self._now()
        self._per_user.add(key, now, self.window_s)
        self._per_ip.add(key[1], now, self.window_s)
        self._global.add(None, now, self.window_s)

    def success(self, key: tuple[str, str]) -> None:
        """Forget the failures of ``key`` after a successful login (the address's and the
        global counts stay: a right password does not clear guesses at other accounts)."""
        self._per_user.forget(key)

    def tracked(self) -> tuple[int, int]:
        """(username-address keys, addresses) held in memory now (both <= ``max_keys``)."""
        return len(self._per_user), len(self._per_ip)


def current_user(
    storage: Storage,
    session: MutableMapping[str, Any],
    now: datetime,
    idle_s: float = sessions.DEFAULT_IDLE_S,
) -> User | None:
    """The enabled account of this session, or None (anonymous).

    None when the cookie has no session id, when its record is gone (logout, password
    change, disable/enable) or idle for ``idle_s`` seconds or more, or when the account is
    disabled or unknown; the id is then dropped from the cookie. ``now`` is aware UTC.
    """
    session_id = session.get(SESSION_ID)
    if not isinstance(session_id, str) or not session_id:
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
) -> None:
    """Start a fresh session for ``user``: the cookie's previous session (if any) ends, a new
    record is created and its id stored in the cookie, with a new CSRF token (no fixation).
    Records idle for ``idle_s`` seconds or more (anyone's) are deleted on the way."""
    log_out(session, storage)
    sessions.purge_idle(storage, now, idle_s)
    session[SESSION_ID] = sessions.open_session(storage, user.username, now)
    csrf.rotate(session)


def log_out(session: MutableMapping[str, Any], storage: Storage) -> None:
    """End the session: delete its record (so the cookie stays dead even if replayed) and
    clear the cookie (a new anonymous CSRF token is issued on the next form)."""
    session_id = session.get(SESSION_ID)
    if isinstance(session_id, str) and session_id:
        sessions.end_session(storage, session_id)
    session.clear()
