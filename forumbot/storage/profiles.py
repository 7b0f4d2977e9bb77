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
