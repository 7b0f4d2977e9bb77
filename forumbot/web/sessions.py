"""Server-side session records of the review page (table ``web_sessions``).

The signed session cookie carries only a random session id (``secrets.token_urlsafe(32)``,
43 characters) and the CSRF token; the record says whose session it is. A cookie whose record
is gone is anonymous, so a session really ends when its record is deleted: at logout, when
the account's password changes or the account is disabled or enabled
(:func:`end_user_sessions`), or after ``idle_s`` seconds without a request.

The table keeps the SHA-256 of the id, never the id itself: someone who reads the database
(a backup) cannot present a live session id.

Columns: ``id_hash`` (primary key, 64 hex characters), ``username`` (as stored in ``users``),
``created_at``, ``last_seen_at`` (ISO 8601, aware UTC). ``last_seen_at`` is rewritten at most
once per :data:`TOUCH_INTERVAL_S` seconds, not on every request.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from forumbot.storage import Storage, iso

TABLE = "web_sessions"
TOUCH_INTERVAL_S = 60
DEFAULT_IDLE_S = 12 * 3600


@dataclass(frozen=True)
class WebSession:
    """A live session record.

    Attributes:
        username: the account, as stored in ``users``.
        created_at: login time (aware UTC).
        last_seen_at: last request seen, to within :data:`TOUCH_INTERVAL_S` seconds.
    """

    username: str
    created_at: datetime
    last_seen_at: datetime


def _hash(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def open_session(storage: Storage, username: str, now: datetime) -> str:
    """Record a new session of ``username`` and return its id (for the cookie only)."""
    session_id = secrets.token_urlsafe(32)
    storage.web_rows.insert_session(
        {
            "id_hash": _hash(session_id),
            "username": username,
            "created_at": iso(now),
            "last_seen_at": iso(now),
        }
    )
    return session_id


def live_session(
    storage: Storage, session_id: str, now: datetime, idle_s: float = DEFAULT_IDLE_S
) -> WebSession | None:
    """The record of ``session_id`` when it exists and was used less than ``idle_s`` seconds
    ago, else None (an idle record is deleted). Moves ``last_seen_at`` to ``now`` when it is
    :data:`TOUCH_INTERVAL_S` seconds old or more."""
    key = _hash(session_id)
    row = storage.web_rows.session(key)
    if row is None:
        return None
    last_seen = datetime.fromisoformat(row["last_seen_at"])
    idle = (now - last_seen).total_seconds()
    if idle >= idle_s:
        storage.web_rows.delete_session(key)
        return None
    if idle >= TOUCH_INTERVAL_S:
        storage.web_rows.touch_session(key, iso(now))
        last_seen = now
    return WebSession(row["username"], datetime.fromisoformat(row["created_at"]), last_seen)


def end_session(storage: Storage, session_id: str) -> None:
    """Delete the record of ``session_id`` (nothing happens when there is none)."""
    storage.web_rows.delete_session(_hash(session_id))


def end_user_sessions(storage: Storage, username: str) -> int:
    """Delete every session record of ``username`` (case-insensitive); returns how many."""
    return storage.web_rows.end_user_sessions(username)


def purge_idle(storage: Storage, now: datetime, idle_s: float = DEFAULT_IDLE_S) -> int:
    """Delete the records unused for ``idle_s`` seconds or more; returns how many."""
    stale = [
        r["id_hash"]
        for r in storage.web_rows.session_stamps()
        if (now - datetime.fromisoformat(r["last_seen_at"])).total_seconds() >= idle_s
    ]
    for key in stale:
        storage.web_rows.delete_session(key)
    return len(stale)
