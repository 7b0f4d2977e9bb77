"""Schema migrations of the bot's database (sqlite-utils ``Migrations``), in the order they apply.

Each migration is appended, never edited: an existing database applies only the ones it lacks
(their names are recorded in ``_sqlite_migrations``). The review page's tables (``users``,
``duel_referees``, ``web_sessions``) are migrations here too: storage never imports ``web``.
"""

from __future__ import annotations

import sqlite_utils
from sqlite_utils import Migrations

MIGRATIONS = Migrations("forumbot")


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
