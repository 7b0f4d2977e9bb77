"""The review page's tables (m010 users and duel referees, m011 sessions)."""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS

# -- Review page tables (issue 6) -------------------------------------------------------------
# users, duel_referees (m010) and web_sessions (m011), applied by every open_storage.


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
