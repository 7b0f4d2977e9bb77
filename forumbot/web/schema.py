"""Tables of the review web page, registered on :data:`forumbot.storage.MIGRATIONS`.

- ``users``: username (primary key), argon2 ``password_hash``, ``role`` (``referee`` or
  ``admin``), ``disabled`` (0/1), ``created_at``.
- ``duel_referees``: which referee may review which duel (``duel_id``, ``username``).
- ``web_sessions`` (``m011_web_sessions``): one row per open login, see
  :mod:`forumbot.web.sessions` (``id_hash``, ``username``, ``created_at``, ``last_seen_at``).

Imported at the bottom of :mod:`forumbot.storage` so every ``open_storage`` applies them.
Only sqlite-utils is imported here (no web dependency).
"""

from __future__ import annotations

import sqlite_utils

from forumbot.storage import MIGRATIONS


@MIGRATIONS(name="m010_web_users")
def m010_web_users(db: sqlite_utils.Database) -> None:
    """Accounts of the review page and the duels each referee reviews."""
    db.table("users").create(
        {
            "username": str,
            "password_hash": str,
            "role": str,
            "disabled": int,
            "created_at": str,
        },
        pk="username",
        not_null={"password_hash", "role"},
    )
    db.table("duel_referees").create(
        {"duel_id": int, "username": str, "assigned_by": str, "assigned_at": str},
        pk=("duel_id", "username"),
    )
    db.table("duel_referees").create_index(["username"])


@MIGRATIONS(name="m011_web_sessions")
def m011_web_sessions(db: sqlite_utils.Database) -> None:
    """Server-side session records of the review page (see :mod:`forumbot.web.sessions`)."""
    db.table("web_sessions").create(
        {"id_hash": str, "username": str, "created_at": str, "last_seen_at": str},
        pk="id_hash",
        not_null={"username", "created_at", "last_seen_at"},
    )
