"""Where a duel's deadline stands, for a post that waits for players (issue 25, reader4 W6).

:func:`deadline_posts` is what answers a deadline (the sweep,
:func:`forumbot.duels.deadlines.sweep`, supersedes a deadline once they came);
:func:`deadline_clock` says, for the Forumactif « dés manquants » post
(:func:`forumbot.duels.flow.missing_dice_draft`), until when the delay runs and whether it
still does.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from forumbot.duels.flow import FlowContext
from forumbot.publish.deadline_text import french_datetime
from forumbot.storage.records import Declaration, Duel, DuelRecords, StoredPost


def deadline_posts(
    records: DuelRecords, decl: Declaration, expected: list[str]
) -> list[StoredPost]:
    """The posts by the ``expected`` duellists (case-insensitive) after the published
    declaration ``decl``: what answers its deadline (:mod:`forumbot.duels.deadlines`)."""
    folded = {n.casefold() for n in expected}
    return [
        r
        for r in records.posts_after(decl.published_post_id or 0)
        if (r.author or "").casefold() in folded
    ]


def deadline_clock(
    ctx: FlowContext, duel: Duel, hours: int,
    needed: Callable[[Declaration], int] | None = None,
) -> dict[str, Any] | None:  # fmt: skip
    """Where the duel's deadline stands, for a post that waits for players (issue 25, reader4
    W6): ``{"hours", "due"`` (« jeudi 3 décembre à 20 h 54 », board timezone)``, "running"}``,
    or None when the duel has no deadline (classic) or its newest one is no longer the clock
    of these posts (fired, cancelled, or superseded by a newer declaration).

    ``running`` is what the sweep does (:func:`forumbot.duels.deadlines.sweep`): the deadline
    stops once the expected posts came, dice or not (``needed``: how many duellists must post,
    :meth:`forumbot.duels.duo.DuoFlow.posts_needed`; default one); else it still runs to
    ``due``, when the relaunch is drafted. ``hours``: the ruleset's delay (RULES.md: 36 h
    for 1v1, 48 h for 2v2)."""
    dl = ctx.storage.duel_tasks.latest_of(duel.id)
    if dl is None or dl["status"] not in ("pending", "superseded"):
        return None
    if dl["status"] == "superseded" and not str(dl.get("note") or "").startswith("post "):
        return None
    records = ctx.records_of(duel)
    decl = records.declaration(int(dl["declaration_id"]))
    if decl is None:
        return None
    came = deadline_posts(records, decl, json.loads(dl["expected_json"]))
    authors = {(r.author or "").casefold() for r in came}
    answered = dl["status"] == "superseded" or len(authors) >= (needed(decl) if needed else 1)
    due = datetime.fromisoformat(str(dl["due_at"]))
    return {
        "hours": hours,
        "due": french_datetime(due, ctx.settings.timezone),
        "running": not answered,
    }


__all__ = ["deadline_clock", "deadline_posts"]
