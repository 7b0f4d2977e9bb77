"""SQLite storage through sqlite-utils: schema migrations, WAL, and the queries the bot needs.

Tables (see :data:`MIGRATIONS`):

- ``boards``: the forums the bot watches (url, platform).
- ``duels``: one row per duel topic: ruleset, status (``open`` -> ``running`` -> ``finished``),
  the current rule state as JSON, the dice commitment.
- ``duellists``: the duellists of a duel (name, forum user id, year).
- ``posts_seen``: every post read, with a SHA-256 of its own text (edit detection).
- ``turns``: each resolved turn: the inputs (state before, posts, dice) and the outcome.
- ``dice_rolls``: every roll the bot made or read (value, post, time, source).
- ``declarations``: drafts -> approved -> published, with a unique idempotency key.
- ``violations``: proposed / applied / waived / confirmed / dismissed rule breaks.
- ``audit_log``: who changed what, when, before and after.
- ``post_versions``: every distinct text of a post with the time the bot first saw it
  (fatigue: the version in force, ``late_edit``).
- ``deadlines``: fatigue relaunch deadlines and owl reminders (:mod:`forumbot.deadlines`).

All timestamps are ISO 8601 UTC strings; every function takes ``now`` where it writes one.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

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


def content_hash(text: str) -> str:
    """SHA-256 hex digest of a post's own text (whitespace-normalised)."""
    normalised = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()


def iso(ts: datetime) -> str:
    """An aware datetime as an ISO 8601 string."""
    return ts.isoformat()


@dataclass
class Storage:
    """The bot's database. Open with :func:`open_storage`.

    Attributes:
        db: the sqlite-utils Database (WAL mode, foreign keys on).
        path: the file path, or ``":memory:"``.
    """

    db: sqlite_utils.Database
    path: str

    # -- boards -------------------------------------------------------------------------
    def board_id(self, url: str, platform: str, now: datetime) -> int:
        """The id of the board row for ``url``, created on first use."""
        rows = list(self.db["boards"].rows_where("url = ?", [url]))
        if rows:
            return int(rows[0]["id"])
        return int(
            self.db["boards"]
            .insert({"url": url, "platform": platform, "created_at": iso(now)})
            .last_pk
        )

    # -- duels --------------------------------------------------------------------------
    def duels(self, status: str | None = None) -> list[dict[str, Any]]:
        """Duel rows, optionally only those with ``status``."""
        if status is None:
            return list(self.db["duels"].rows_where(order_by="id"))
        return list(self.db["duels"].rows_where("status = ?", [status], order_by="id"))

    def duel(self, duel_id: int) -> dict[str, Any]:
        """One duel row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["duels"].get(duel_id))

    def duel_by_topic(self, board_id: int, topic_id: int) -> dict[str, Any] | None:
        """The duel held in ``topic_id`` on that board, or None."""
        rows = list(
            self.db["duels"].rows_where("board_id = ? and topic_id = ?", [board_id, topic_id])
        )
        return rows[0] if rows else None

    def duellists(self, duel_id: int) -> list[dict[str, Any]]:
        """Duellist rows of a duel, in sign-up order."""
        return list(self.db["duellists"].rows_where("duel_id = ?", [duel_id], order_by="id"))

    def update_duel(self, duel_id: int, **fields: Any) -> None:
        """Set columns of a duel row."""
        self.db["duels"].update(duel_id, fields)

    # -- posts --------------------------------------------------------------------------
    def seen_post(self, board_id: int, post_id: int) -> dict[str, Any] | None:
        """The stored row of a post, or None."""
        try:
            return dict(self.db["posts_seen"].get((board_id, post_id)))
        except sqlite_utils.db.NotFoundError:
            return None

    def topic_posts(self, board_id: int, topic_id: int) -> list[dict[str, Any]]:
        """Stored posts of a topic, by post id."""
        return list(
            self.db["posts_seen"].rows_where(
                "board_id = ? and topic_id = ?", [board_id, topic_id], order_by="post_id"
            )
        )

    def last_post_id(self, board_id: int, topic_id: int) -> int | None:
        """Highest post id stored for that topic, or None."""
        row = self.db.execute(
            "select max(post_id) from posts_seen where board_id = ? and topic_id = ?",
            [board_id, topic_id],
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else None

    # -- declarations -------------------------------------------------------------------
    def declaration(self, decl_id: int) -> dict[str, Any]:
        """One declaration row. Raises ``sqlite_utils.db.NotFoundError`` when absent."""
        return dict(self.db["declarations"].get(decl_id))

    def declaration_by_key(self, key: str) -> dict[str, Any] | None:
        """The declaration with that idempotency key, or None."""
        rows = list(self.db["declarations"].rows_where("idempotency_key = ?", [key]))
        return rows[0] if rows else None

    def declarations(
        self, statuses: tuple[str, ...] | None = None, duel_id: int | None = None
    ) -> list[dict[str, Any]]:
        """Declarations filtered by status and/or duel, oldest first."""
        where, args = [], []
        if statuses:
            marks = ",".join("?" * len(statuses))
            where.append(f"status in ({marks})")
            args.extend(statuses)
        if duel_id is not None:
            where.append("duel_id = ?")
            args.append(duel_id)
        return list(
            self.db["declarations"].rows_where(" and ".join(where) or None, args, order_by="id")
        )

    # -- violations -----------------------------------------------------------------------
    def replace_turn_violations(
        self, duel_id: int, turn: int, violations: list[dict[str, Any]], now: datetime
    ) -> None:
        """Store the engine's violations of a (re)computed turn draft.

        Rows still undecided (proposed / applied / waived) are replaced; a violation an admin
        already confirmed or dismissed for the same duellist and rule is kept as decided and
        not inserted again. Each item has duellist, rule, post_id, evidence, penalty, status.
        """
        self.db["violations"].delete_where(
            "duel_id = ? and turn = ? and status in ('proposed', 'applied', 'waived')",
            [duel_id, turn],
        )
        decided = {
            (r["duellist"], r["rule"])
            for r in self.db["violations"].rows_where(
                "duel_id = ? and turn = ? and status in ('confirmed', 'dismissed')",
                [duel_id, turn],
            )
        }
        for v in violations:
            if (v["duellist"], v["rule"]) not in decided:
                self.insert_violation(duel_id, turn, v, now)

    def insert_violation(
        self, duel_id: int, turn: int, violation: dict[str, Any], now: datetime
    ) -> None:
        """One violation row from an engine violation dict (duellist, rule, post_id,
        evidence, penalty, status)."""
        self.db["violations"].insert(
            {
                "duel_id": duel_id,
                "turn": turn,
                "duellist": violation["duellist"],
                "rule": violation["rule"],
                "post_id": violation["post_id"],
                "evidence": violation["evidence"],
                "penalty": violation["penalty"],
                "status": violation["status"],
                "created_at": iso(now),
                "updated_at": iso(now),
            }
        )

    def record_turn(
        self,
        duel_id: int,
        turn: int,
        state_before: dict[str, Any],
        posts: list[Any],
        dice: dict[str, Any],
        outcome: dict[str, Any],
        now: datetime,
    ) -> None:
        """Store a resolved turn (its inputs and outcome) and make the outcome's state the
        duel's state; a finished outcome finishes the duel."""
        self.db["turns"].insert(
            {
                "duel_id": duel_id,
                "number": turn,
                "state_before_json": json.dumps(state_before, ensure_ascii=False),
                "posts_json": json.dumps(posts, ensure_ascii=False),
                "dice_json": json.dumps(dice),
                "outcome_json": json.dumps(outcome, ensure_ascii=False),
                "created_at": iso(now),
            },
            replace=True,
        )
        fields: dict[str, Any] = {"state_json": json.dumps(outcome["state"], ensure_ascii=False)}
        if outcome["finished"]:
            fields.update(status="finished", finished_at=iso(now))
        self.update_duel(duel_id, **fields)

    # -- audit --------------------------------------------------------------------------
    def audit(
        self, actor: str, action: str, target: str, before: Any, after: Any, now: datetime
    ) -> None:
        """Append one line to the audit log (before/after stored as JSON)."""
        self.db["audit_log"].insert(
            {
                "at": iso(now),
                "actor": actor,
                "action": action,
                "target": target,
                "before": json.dumps(before, ensure_ascii=False, default=str),
                "after": json.dumps(after, ensure_ascii=False, default=str),
            }
        )

    def audit_entries(self, target_prefix: str | None = None) -> list[dict[str, Any]]:
        """Audit log lines, oldest first, optionally for targets starting with a prefix."""
        if target_prefix is None:
            return list(self.db["audit_log"].rows_where(order_by="id"))
        return list(
            self.db["audit_log"].rows_where(
                "target like ?", [target_prefix.replace("%", r"\%") + "%"], order_by="id"
            )
        )

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


def open_storage(path: str | Path) -> Storage:
    """Open (creating if needed) the database at ``path`` and apply pending migrations.

    WAL journal mode and a 30 s busy timeout are set so the scheduler's jobs and the CLI
    can share the file; the connection may be used from the scheduler's single worker thread.
    ``":memory:"`` gives a private in-memory database (tests).
    """
    path_s = str(path)
    if path_s == ":memory:":
        db = sqlite_utils.Database(memory=True)
    else:
        Path(path_s).parent.mkdir(parents=True, exist_ok=True)
        # The scheduler runs jobs in one worker thread (serially), not the opening thread.
        conn = sqlite3.connect(path_s, check_same_thread=False, timeout=30)
        db = sqlite_utils.Database(conn)
        db.enable_wal()
    db.execute("PRAGMA busy_timeout = 30000")
    db.execute("PRAGMA foreign_keys = ON")
    MIGRATIONS.apply(db)
    return Storage(db=db, path=path_s)


import forumbot.web.schema  # noqa: E402,F401  (review page tables, issue 6)

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
# positions) is the ``duo_state`` of the latest published 2v2 declaration (forumbot.duo_flow).


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
# (forumbot.duo_registrations).


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
