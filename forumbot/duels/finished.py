"""Telling the club a duel finished: each ``on_finished`` callback once per finished duel.

The referee runs :func:`notify_finished` at the end of every poll. A duel is claimed by a
compare-and-set on ``duels.finish_notified_at`` (committed before any callback runs), so a
restart never repeats one; a failing callback is logged and the duel still counts as told.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from forumbot.storage import Storage

log = logging.getLogger("forumbot.duels.referee")

OnFinished = Callable[[int, dict[str, Any]], None]
"""``callback(duel_id, outcome)`` (outcome: :func:`finished_outcome`)."""


def notify_finished(
    storage: Storage, board_id: int, now: datetime, callbacks: Iterable[OnFinished]
) -> list[int]:
    """Run ``callbacks`` once for each duel of ``board_id`` finished and not told yet.

    Returns: the ids of the duels told in this call.
    """
    callbacks = list(callbacks)
    done = []
    for duel in storage.duel_rows.finished_unnotified(board_id):
        if not storage.stamp_once("duels", "finish_notified_at", int(duel["id"]), now):
            continue
        outcome = finished_outcome(duel)
        for callback in callbacks:
            try:
                callback(int(duel["id"]), outcome)
            except Exception:
                log.exception("duel %s: on_finished callback failed", duel["id"])
        done.append(int(duel["id"]))
    return done


def finished_outcome(duel: dict[str, Any]) -> dict[str, Any]:
    """What ``on_finished`` callbacks receive for a finished duel row: ``winner`` and
    ``loser`` (names or None), ``draw``, ``reason`` (``"won"``, ``"draw"``, ``"no_winner"``),
    ``stakes``, ``ruleset``, ``topic_id`` and the final ``state`` (dict)."""
    state = json.loads(duel["state_json"] or "{}")
    winner = state.get("winner")
    names = [d["name"] for d in state.get("duellists", [])]
    loser = next((n for n in names if n != winner), None) if winner else None
    draw = bool(state.get("draw"))
    return {
        "winner": winner,
        "loser": loser,
        "draw": draw,
        "reason": "won" if winner else "draw" if draw else "no_winner",
        "stakes": duel.get("stakes"),
        "ruleset": duel.get("ruleset"),
        "topic_id": duel.get("topic_id"),
        "state": state,
    }


__all__ = ["OnFinished", "finished_outcome", "notify_finished"]
