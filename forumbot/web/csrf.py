"""Per-session CSRF tokens: one random token per session, checked on every POST.

The token lives in the signed session cookie and is echoed by every form as the hidden field
``csrf_token``; a POST whose field does not match (constant-time compare) is refused with 403.
A new token is issued at login and logout (session fixation).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import MutableMapping
from typing import Any

FIELD = "csrf_token"
_KEY = "csrf"


def session_token(session: MutableMapping[str, Any]) -> str:
    """The session's token, created on first use (32 random bytes, URL-safe base64)."""
    token = session.get(_KEY)
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        session[_KEY] = token
    return token


def rotate(session: MutableMapping[str, Any]) -> str:
    """Replace the session's token; returns the new one."""
    session[_KEY] = secrets.token_urlsafe(32)
    return str(session[_KEY])


def is_valid(session: MutableMapping[str, Any], submitted: object) -> bool:
    """True when ``submitted`` equals the session's token (False when either is missing)."""
    expected = session.get(_KEY)
    if not isinstance(expected, str) or not expected or not isinstance(submitted, str):
        return False
    return hmac.compare_digest(expected.encode(), submitted.encode())
