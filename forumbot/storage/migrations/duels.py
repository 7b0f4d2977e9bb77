"""The bot's first tables: boards, duels, duellists, posts, turns, dice, declarations, violations,
audit log, post versions, deadlines (m001-m003)."""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS


@MIGRATIONS()
def m001_initial(db: sqlite_utils.Database) -> None:
    """First schema."""
    db["boards"].create(
        {"id": int, "url": str, "platform": str, "created_at": str}, pk="id", not_null={"url"}
    )
    db["boards"].create_index(["url"], unique=True)
    db["duels"].create(
        {
            "id": int,
            "board_id": int,
            "forum_id": int,
            "topic_id": int,
            "title": str,
            "ruleset": str,
            "status": str,
            "state_json": str,
            "stakes": str,
            "dice_secret": str,
            "dice_commitment": str,
            "opening_post_id": int,
            "last_post_id": int,
            "created_at": str,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("board_id", "boards", "id")],
    )
    db["duels"].create_index(["board_id", "topic_id"], unique=True)
    db["duellists"].create(
        {"id": int, "duel_id": int, "name": str, "user_id": int, "year": str, "side": str},
        pk="id",
        foreign_keys=[("duel_id", "duels", "id")],
    )
    db["duellists"].create_index(["duel_id", "name"], unique=True)
    db["posts_seen"].create(
        {
            "board_id": int,
            "topic_id": int,
            "post_id": int,
            "author": str,
            "author_id": int,
            "posted_at": str,
            "content_hash": str,
            "text": str,
            "bold_json": str,
            "action_json": str,
            "edited_count": int,
            "first_seen_at": str,
            "last_seen_at": str,
            "hash_changes": int,
        },
        pk=("board_id", "post_id"),
    )
    db["posts_seen"].create_index(["board_id", "topic_id", "post_id"])
    db["turns"].create(
        {
            "id": int,
            "duel_id": int,
            "number": int,
            "state_before_json": str,
            "posts_json": str,
            "dice_json": str,
            "outcome_json": str,
            "created_at": str,
        },
        pk="id",
        foreign_keys=[("duel_id", "duels", "id")],
    )
    db["turns"].create_index(["duel_id", "number"], unique=True)
    db["dice_rolls"].create(
        {
            "id": int,
            "duel_id": int,
            "turn": int,
            "post_id": int,
            "name": str,
            "values_json": str,
            "source": str,
            "derivation": str,
            "rolled_at": str,
        },
        pk="id",
    )
    db["dice_rolls"].create_index(["duel_id", "post_id", "name"], unique=True)
    db["declarations"].create(
        {
            "id": int,
            "duel_id": int,
            "turn": int,
            "kind": str,
            "idempotency_key": str,
            "status": str,
            "text": str,
            "text_edited": int,
            "context_json": str,
            "overrides_json": str,
            "waived_json": str,
            "marker": str,
            "created_at": str,
            "updated_at": str,
            "publish_after": str,
            "attempts": int,
            "last_error": str,
            "published_post_id": int,
            "published_at": str,
            "version": int,
        },
        pk="id",
        not_null={"idempotency_key"},
    )
    db["declarations"].create_index(["idempotency_key"], unique=True)
    db["violations"].create(
        {
            "id": int,
            "duel_id": int,
            "turn": int,
            "duellist": str,
            "rule": str,
            "post_id": int,
            "evidence": str,
            "penalty": int,
            "status": str,
            "decided_by": str,
            "reason": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db["audit_log"].create(
        {
            "id": int,
            "at": str,
            "actor": str,
            "action": str,
            "target": str,
            "before": str,
            "after": str,
        },
        pk="id",
    )


@MIGRATIONS()
def m002_forum_dice(db: sqlite_utils.Database) -> None:
    """Forum-rendered dice attached to a post (Forumactif): ``[{"name", "values"}]``."""
    db["posts_seen"].add_column("dice_json", str)


@MIGRATIONS()
def m003_fatigue(db: sqlite_utils.Database) -> None:
    """Fatigue duels (issue 4): post versions (version in force, ``late_edit``), magic types,
    persistent deadlines (relaunch / owl reminder, claimed by compare-and-set) and the
    once-only "duel finished" notification (``on_finished`` hooks)."""
    db["post_versions"].create(
        {
            "board_id": int,
            "post_id": int,
            "version": int,
            "content_hash": str,
            "text": str,
            "action_json": str,
            "seen_at": str,
        },
        pk=("board_id", "post_id", "version"),
    )
    db["duellists"].add_column("magic_types", str)
    db["duels"].add_column("finish_notified_at", str)
    db["deadlines"].create(
        {
            "id": int,
            "duel_id": int,
            "declaration_id": int,
            "phase": str,
            "expected_json": str,
            "relaunches": int,
            "due_at": str,
            "remind_at": str,
            "status": str,
            "reminded_at": str,
            "fired_at": str,
            "note": str,
            "created_at": str,
        },
        pk="id",
    )
    db["deadlines"].create_index(["declaration_id"], unique=True)
    db["deadlines"].create_index(["status", "due_at"])
