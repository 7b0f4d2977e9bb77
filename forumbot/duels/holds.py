"""The referee tasks a moved or gone duel topic opens (:mod:`forumbot.duels.follow`), and
closing them when a referee resumes or cancels the duel. Apart from the follow module so the
cancel (:mod:`forumbot.duels.ending`) needs no flow."""

from __future__ import annotations

from datetime import datetime

from forumbot.storage import Storage, iso

HOLD_TASKS = ("topic_gone", "topic_followed")
"""Referee task kinds :mod:`forumbot.duels.follow` opens: ``topic_gone`` (the duel is held),
``topic_followed`` (the topic was moved; the bot follows it)."""

WAITING_TASKS = (*HOLD_TASKS, "turn_dropped")
"""The task kinds in which the duel waits for its referee: the hold tasks and
:data:`forumbot.duels.redraft.TASK_KIND` (a dropped turn or closure). A cancelled duel waits
for nothing, so :func:`forumbot.duels.ending.cancel_duel` closes them all."""


def close_hold_tasks(
    storage: Storage, duel_id: int, actor: str, now: datetime, note: str,
    kinds: tuple[str, ...] = HOLD_TASKS,
) -> list[int]:  # fmt: skip
    """Close the duel's open tasks of ``kinds`` (default the hold tasks ``topic_gone`` /
    ``topic_followed``; :data:`WAITING_TASKS` on a cancel) as ``done`` by ``actor``; returns
    their ids."""
    ids = storage.duel_tasks.open_of_kinds(duel_id, kinds)
    for task_id in ids:
        storage.duel_tasks.mark_done(task_id, iso(now), actor, note)
    return ids


__all__ = ["HOLD_TASKS", "WAITING_TASKS", "close_hold_tasks"]
