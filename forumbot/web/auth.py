"""Login state and login rate limiting.

The session (Starlette's ``SessionMiddleware``: an itsdangerous-signed, HttpOnly,
SameSite=Lax cookie) holds only the username and the CSRF token. Each request reloads the
account from the database: a deleted or disabled user is logged out at once, and the role
always comes from the ``users`` table, never from a form or the cookie.

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
from forumbot.web import csrf
from forumbot.web.users import User, get_user, session_stamp

SESSION_USER = "user"
SESSION_STAMP = "stamp"  # see forumbot.web.users.session_stamp


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


def current_user(storage: Storage, session: MutableMapping[str, Any]) -> User | None:
    """The logged-in, still enabled account of this session, or None: a session of a
    disabled account, or one opened before the account's password changed, ends here."""
    name = session.get(SESSION_USER)
    if not isinstance(name, str) or not name:
        return None
    user = get_user(storage, name)
    if user is None or session.get(SESSION_STAMP) != session_stamp(storage, name):
        session.pop(SESSION_USER, None)
        session.pop(SESSION_STAMP, None)
        return None
    return user


def log_in(session: MutableMapping[str, Any], user: User, storage: Storage) -> None:
    """Start a fresh session for ``user`` (new CSRF token: no fixation), stamped with the
    account's current password (:func:`forumbot.web.users.session_stamp`)."""
    session.clear()
    session[SESSION_USER] = user.username
    session[SESSION_STAMP] = session_stamp(storage, user.username)
    csrf.rotate(session)


def log_out(session: MutableMapping[str, Any]) -> None:
    """End the session (a new anonymous CSRF token is issued on the next form)."""
    session.clear()
