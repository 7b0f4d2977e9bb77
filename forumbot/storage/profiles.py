"""Queries on the duellist profiles table shared by the club and the flows."""

from __future__ import annotations

from forumbot.storage.db import Storage
from parsers.registration import fold


def player_of(storage: Storage, board_id: int, character: str) -> str:
    """The forum account behind ``character`` (its duellist profile), else the name itself."""
    rows = list(
        storage.db["duellist_profiles"].rows_where(
            "board_id = ? and character_key = ?", [board_id, fold(character)]
        )
    )
    return str(rows[0]["player"]) if rows else character


def registration_row(storage: Storage, duel_id: int) -> tuple[str, dict[str, object]] | None:
    """The sign-up desk's pairing that opened duel ``duel_id``: ``("queue", row)`` for a 1v1,
    ``("duo_matches", row)`` for a 2v2; None for a duel adopted by hand (a referee's topic
    or ``duels adopt``). Only these duels count on the club's leaderboard (issue 25: the
    leaderboard post says so; a duel adopted by hand promises neither point nor purse)."""
    for table in ("queue", "duo_matches"):
        rows = list(storage.db[table].rows_where("duel_id = ?", [duel_id], limit=1))
        if rows:
            return table, rows[0]
    return None


def registration_duel(storage: Storage, duel_id: int) -> bool:
    """True when the club's sign-up desk opened duel ``duel_id`` (:func:`registration_row`)."""
    return registration_row(storage, duel_id) is not None
