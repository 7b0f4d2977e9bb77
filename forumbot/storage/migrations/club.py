"""The club's tables: sign-ups, queue, profiles, owls, club posts, leaderboard, rewards (m020);
2v2 duels (m030), in-duel rewards (m040), 2v2 registrations (m050)."""

from __future__ import annotations

import sqlite_utils

from forumbot.storage.migrations.registry import MIGRATIONS

# -- Club tables (issue 4: sign-up to purse) ----------------------------------------------------
# Appended migrations: registration threads and their posts, requests (open sign-ups), the
# 1v1 queue of pairings, duellist profiles, the owl outbox, the bot's own club posts (sign-up
# replies, duel topics, the leaderboard post), the leaderboard and the rewards given.


@MIGRATIONS(name="m020_club")
def m020_club(db: sqlite_utils.Database) -> None:
    """Tables of the registration desk, the owl outbox, rewards and the leaderboard."""
    db.table("registration_threads").create(
        {"board_id": int, "topic_id": int, "last_post_id": int, "updated_at": str},
        pk=("board_id", "topic_id"),
    )
    db.table("registration_posts").create(
        {
            "board_id": int,
            "post_id": int,
            "topic_id": int,
            "author": str,
            "content_hash": str,
            "status": str,
            "code": str,
            "message": str,
            "signup_json": str,
            "created_at": str,
            "updated_at": str,
        },
        pk=("board_id", "post_id"),
    )
    db.table("requests").create(
        {
            "id": int,
            "board_id": int,
            "thread_topic_id": int,
            "post_id": int,
            "player": str,
            "character": str,
            "stakes": str,
            "status": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db.table("requests").create_index(["board_id", "post_id"], unique=True)
    db.table("queue").create(
        {
            "id": int,
            "board_id": int,
            "thread_topic_id": int,
            "kind": str,
            "ruleset": str,
            "first_player": str,
            "first_character": str,
            "first_post_id": int,
            "second_player": str,
            "second_character": str,
            "second_post_id": int,
            "reason": str,
            "stakes": str,
            "status": str,
            "forum_id": int,
            "subject": str,
            "idempotency_key": str,
            "topic_id": int,
            "duel_id": int,
            "dice_secret": str,
            "attempts": int,
            "last_error": str,
            "created_at": str,
            "started_at": str,
            "finished_at": str,
        },
        pk="id",
    )
    db.table("queue").create_index(["board_id", "status"])
    db.table("duellist_profiles").create(
        {
            "board_id": int,
            "character_key": str,
            "character": str,
            "player": str,
            "year": str,
            "magic_types_json": str,
            "created_at": str,
            "updated_at": str,
            "updated_by": str,
        },
        pk=("board_id", "character_key"),
    )
    db.table("owls").create(
        {
            "id": int,
            "board_id": int,
            "idempotency_key": str,
            "kind": str,
            "duel_id": int,
            "recipient": str,
            "user_id": int,
            "subject": str,
            "text": str,
            "marker": str,
            "status": str,
            "attempts": int,
            "last_error": str,
            "created_at": str,
            "sent_at": str,
        },
        pk="id",
        not_null={"idempotency_key"},
    )
    db.table("owls").create_index(["idempotency_key"], unique=True)
    db.table("club_posts").create(
        {
            "id": int,
            "board_id": int,
            "idempotency_key": str,
            "kind": str,
            "topic_id": int,
            "after_post_id": int,
            "text": str,
            "marker": str,
            "status": str,
            "attempts": int,
            "last_error": str,
            "post_id": int,
            "published_hash": str,
            "created_at": str,
            "publish_after": str,
            "published_at": str,
            "updated_at": str,
        },
        pk="id",
        not_null={"idempotency_key"},
    )
    db.table("club_posts").create_index(["idempotency_key"], unique=True)
    db.table("leaderboard").create(
        {
            "board_id": int,
            "kind": str,
            "character_key": str,
            "character": str,
            "player": str,
            "points": int,
            "wins": int,
            "losses": int,
            "draws": int,
            "updated_at": str,
        },
        pk=("board_id", "kind", "character_key"),
    )
    db.table("rewards").create(
        {
            "id": int,
            "board_id": int,
            "duel_id": int,
            "kind": str,
            "character": str,
            "player": str,
            "reward": str,
            "amount": int,
            "stakes": str,
            "created_at": str,
        },
        pk="id",
    )
    db.table("rewards").create_index(["duel_id", "character", "reward"], unique=True)


# -- Two-against-two duels (issue 5) --------------------------------------------------------------
# Appended: 2v2 duels (environment, duos, placement, the duo state at the opening), zone reveals
# (one owl per duellist and zone, ever), referee tasks (owls asking for details, mechanism
# attempts), the bot's PM inbox already read. The running duo state (creatures' PV, inventory,
# positions) is the ``duo_state`` of the latest published 2v2 declaration (forumbot.duels.duo).


@MIGRATIONS(name="m030_duo")
def m030_duo(db: sqlite_utils.Database) -> None:
    """Tables of two-against-two duels, zone reveals, referee tasks and the PM inbox."""
    db.table("duo_duels").create(
        {
            "duel_id": int,
            "board_id": int,
            "environment": str,
            "duos_json": str,
            "placement_json": str,
            "state_json": str,
            "settled_at": str,
            "created_at": str,
        },
        pk="duel_id",
    )
    db.table("zone_reveals").create(
        {
            "duel_id": int,
            "duellist": str,
            "zone": str,
            "owl_key": str,
            "declaration_id": int,
            "created_at": str,
        },
        pk=("duel_id", "duellist", "zone"),
    )
    db.table("referee_tasks").create(
        {
            "id": int,
            "board_id": int,
            "duel_id": int,
            "kind": str,
            "source_key": str,
            "duellist": str,
            "zone": str,
            "subject": str,
            "text": str,
            "mechanism": str,
            "post_id": int,
            "status": str,
            "created_at": str,
            "done_at": str,
            "done_by": str,
            "note": str,
        },
        pk="id",
        not_null={"source_key"},
    )
    db.table("referee_tasks").create_index(["source_key"], unique=True)
    db.table("inbox_seen").create(
        {"board_id": int, "msg_id": int, "sender": str, "subject": str, "seen_at": str},
        pk=("board_id", "msg_id"),
    )


# -- Rewards won during a 2v2 duel (issue 5) ------------------------------------------------------
# Appended: a creature defeated or a mechanism solved gives a reward from the environment's table
# (galleons, PV, PA, sweets, house points). They get their own table: the ``rewards`` unique index
# (duel, character, reward) allows one reward of a kind per duellist and duel, which two sources
# (or a creature's galleons and the winner's purse) would break.


@MIGRATIONS(name="m040_duel_rewards")
def m040_duel_rewards(db: sqlite_utils.Database) -> None:
    """Rewards won in a duel from a source (``creature:<key>``, ``mechanism:<key>``), once."""
    db.table("duel_rewards").create(
        {
            "id": int,
            "board_id": int,
            "duel_id": int,
            "kind": str,
            "character": str,
            "player": str,
            "source": str,
            "reward": str,
            "amount": int,
            "created_at": str,
        },
        pk="id",
    )
    db.table("duel_rewards").create_index(["duel_id", "character", "source", "reward"], unique=True)


# -- 2v2 registrations (issue 5) ------------------------------------------------------------------
# Appended: the 2v2 registration thread's lobby (sign-ups waiting for a teammate, duos waiting for
# opponents) and the matches of two duos, each opened as one 2v2 duel at a time
# (forumbot.club.duo_registrations).


@MIGRATIONS(name="m050_duo_registrations")
def m050_duo_registrations(db: sqlite_utils.Database) -> None:
    """Tables of the 2v2 registration desk: ``duo_entries`` and ``duo_matches``."""
    db.table("duo_entries").create(
        {
            "id": int,
            "board_id": int,
            "thread_topic_id": int,
            "post_id": int,
            "player": str,
            "character": str,
            "mate_player": str,
            "mate_character": str,
            "mate_post_id": int,
            "status": str,
            "stakes": str,
            "created_at": str,
            "updated_at": str,
        },
        pk="id",
    )
    db.table("duo_entries").create_index(["board_id", "post_id"], unique=True)
    db.table("duo_matches").create(
        {
            "id": int,
            "board_id": int,
            "thread_topic_id": int,
            "forum_id": int,
            "duos_json": str,
            "stakes": str,
            "status": str,
            "subject": str,
            "idempotency_key": str,
            "dice_secret": str,
            "environment": str,
            "topic_id": int,
            "duel_id": int,
            "attempts": int,
            "last_error": str,
            "created_at": str,
            "started_at": str,
            "finished_at": str,
        },
        pk="id",
    )
