"""Login state and login rate limiting.

The session (Starlette's ``SessionMiddleware``: an itsdangerous-signed, HttpOnly,
SameSite=Lax cookie) holds only a random session id and the CSRF token. The id names a
server-side record (:mod:`forumbot.web.sessions`, table ``web_sessions``); a cookie without a
live record is anonymous, so a session ends for good at logout, when the account's password
changes, when the account is disabled or enabled, or after ``idle_s`` seconds without a
request: replaying an older cookie does not bring it back. Each request also reloads the
account from the database: a disabled user is logged out at once, and the role always comes
from the ``users`` table, never from a form or the cookie.

Rate limit: after ``max_failures`` failed logins for one (username, client address) within
``window_s`` seconds, further attempts get HTTP 429 until the oldest failure leaves the window.
Kept in memory (one web process); a restart clears it.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, MutableMapping
from datetime import datetime
from typing import Any

from forumbot.storage import Storage
from forumbot.web import csrf, sessions
from forumbot.web.users import User, get_user

SESSION_ID = "sid"  # the key of the session id in the cookie


class LoginLimiter:
    """Counts failed logins per key; defaults: 5 failures per 15 minutes.

    Args:
        now: clock (aware datetime).
        max_failures: failures allowed within the window.
        window_s: window length in seconds.
    """

    def __init__(
        self, now: Callable[[], datetime], max_failures: int = 5, window_s: int = 900
    ) -> None:
        self._now = now
        self.max_failures = max_failures
        self.window_s = window_s
        self._failures: dict[tuple[str, str], deque[datetime]] = defaultdict(deque)

    @staticmethod
    def key(username: str, client: str) -> tuple[str, str]:
        """The limiter key of a login attempt."""
        return (username.strip().casefold(), client)

    def _prune(self, key: tuple[str, str]) -> deque[datetime]:
        times = self._failures[key]
        now = self._now()
        while times and (now - times[0]).total_seconds() >= self.window_s:
            times.popleft()
        return times

    def retry_after_s(self, key: tuple[str, str]) -> int:
        """Seconds until an attempt is allowed again (0: allowed now)."""
        times = self._prune(key)
        if len(times) < self.max_failures:
            return 0
        waited = (self._now() - times[0]).total_seconds()
        return max(1, int(self.window_s - waited) + 1)

    def failure(self, key: tuple[str, str]) -> None:
        """Record a failed attempt."""
        self._prune(key).append(self._now())

    def success(self, key: tuple[str, str]) -> None:
        """Forget the failures of ``key`` after a successful login."""
        self._failures.pop(key, None)


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
