"""What the soak's script reads of the bot's database (live pairings, published
declarations) and its time format."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from forumbot.storage import iso


def published_count(storage: Any, duel_id: int) -> int:
    """How many declarations of the duel are published."""
    return int(storage.db.execute(
        "select count(*) from declarations where duel_id = ? and status = 'published'",
        [duel_id]).fetchone()[0])  # fmt: skip


def live_players(storage: Any) -> dict[str, dict[str, Any]]:
    """Players of a queued, opening or running pairing, or waiting or matched in the 2v2
    thread (a lone or duo sign-up, a match not finished) -> its row."""
    live = {
        p: row for row in storage.db["queue"].rows_where(
            "status in ('queued', 'opening', 'running')")
        for p in (str(row["first_player"]), str(row["second_player"]))
    }  # fmt: skip
    for row in storage.db["duo_entries"].rows_where("status in ('lone', 'duo')"):
        live.update({str(p): row for p in (row["player"], row["mate_player"]) if p})
    for row in storage.db.query(
        "select m.* from duo_matches m left join duels d on d.id = m.duel_id where m.status in "
        "('queued', 'opening', 'running') and (d.status is null or d.status != 'finished')"
    ):
        live.update({str(e["player"]): row for duo in json.loads(row["duos_json"]) for e in duo})
    return live


def epoch_of(text: str) -> float:
    """An ISO time of the database -> epoch seconds."""
    return datetime.fromisoformat(text).timestamp()


def iso_of(epoch: float) -> str:
    """Epoch seconds -> the database's ISO time."""
    return iso(datetime.fromtimestamp(epoch, UTC))
