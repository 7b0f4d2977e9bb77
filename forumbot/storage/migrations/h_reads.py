"""Duels that follow their topic (m080, issue 22): where the board has a moved topic now, a
duel held because its topic is gone, and a deadline restarted when a referee resumes it."""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS

# -- Duels follow their topic (issue 22) ---------------------------------------------------------
# Appended: ``duels.board_forum_id`` (the forum a moved duel topic is in now, read by id; None
# while it is in its watched forum ``forum_id``), ``duels.held_at`` / ``held_reason`` (the
# topic is gone or unreadable: the duel waits for a referee, its deadlines frozen) and
# ``deadlines.started_at`` (a deadline's clock restarted when the duel was resumed; None: it
# counts from its declaration's publication).


@MIGRATIONS(name="m080_h_reads_follow_topic")
def m080_h_reads_follow_topic(db: sqlite_utils.Database) -> None:
    """``duels.board_forum_id``, ``duels.held_at``, ``duels.held_reason``,
    ``deadlines.started_at``."""
    db["duels"].add_column("board_forum_id", int)
    db["duels"].add_column("held_at", str)
    db["duels"].add_column("held_reason", str)
    db["deadlines"].add_column("started_at", str)
