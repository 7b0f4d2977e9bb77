"""Notices to referees and admins and draft claims (m060, issue 18)."""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS

# -- Notices to referees and admins (issue 18) ---------------------------------------------------
# Appended: the notices outbox (one row per event, person and channel, sent exactly once by
# forumbot.notify.outbox), each person's notice settings (channels, quiet hours, forum account),
# the scanner's watermarks, and the claim of a draft by a referee (« je m'en occupe »), which
# pauses its review delay until ``claim_until``.


@MIGRATIONS(name="m060_notices")
def m060_notices(db: sqlite_utils.Database) -> None:
    """``notices``, ``notify_settings``, ``notify_state``; ``declarations.claimed_by``,
    ``claimed_at``, ``claim_until``."""
    db.table("notices").create(
        {
            "id": int,
            "idempotency_key": str,
            "event_key": str,
            "kind": str,
            "duel_id": int,
            "turn": int,
            "target": str,
            "recipient": str,
            "channel": str,
            "facts_json": str,
            "status": str,
            "attempts": int,
            "last_error": str,
            "batch_key": str,
            "created_at": str,
            "sent_at": str,
        },
        pk="id",
        not_null={"idempotency_key", "recipient", "channel", "status"},
    )
    db.table("notices").create_index(["idempotency_key"], unique=True)
    db.table("notices").create_index(["status", "channel", "recipient"])
    db.table("notify_settings").create(
        {
            "username": str,
            "forum_name": str,
            "channels_json": str,
            "quiet_start": str,
            "quiet_end": str,
            "updated_by": str,
            "updated_at": str,
        },
        pk="username",
    )
    db.table("notify_state").create({"name": str, "value": str}, pk="name")
    db.table("declarations").add_column("claimed_by", str)
    db.table("declarations").add_column("claimed_at", str)
    db.table("declarations").add_column("claim_until", str)
