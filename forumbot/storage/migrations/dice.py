"""Forumactif edits after the dice (m070, issue 16): what a roller's post read when the bot first
saw its dice."""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS

# -- Forumactif edits after the dice (issue 16) --------------------------------------------------
# Appended: what a roller's post read the first time the bot saw it with its dice (the Game
# Master's post), kept once and never overwritten (forumbot.duels.dice_edits), and the first
# later reading that differs from it (a ``late_edit``, with or without an edit notice).


@MIGRATIONS(name="m070_dice_snapshots")
def m070_dice_snapshots(db: sqlite_utils.Database) -> None:
    """``dice_snapshots``: one row per roller's post seen with its dice (``fingerprint`` =
    :func:`parsers.model.content_fingerprint`, ``version`` = its ``post_versions`` row then;
    ``late_*``: the first later reading that differs, None while none does)."""
    db.table("dice_snapshots").create(
        {
            "board_id": int,
            "post_id": int,
            "topic_id": int,
            "dice_post_id": int,
            "fingerprint": str,
            "version": int,
            "seen_at": str,
            "late_fingerprint": str,
            "late_seen_at": str,
            "late_noticed": int,
        },
        pk=("board_id", "post_id"),
    )
