"""The referee tasks a moved or gone duel topic opens (:mod:`forumbot.duels.follow`), and
closing them when a referee resumes or cancels the duel. Apart from the follow module so the
cancel (:mod:`forumbot.duels.ending`) needs no flow."""

from __future__ import annotations

from datetime import datetime

from forumbot.storage import Storage, iso

HOLD_TASKS = ("topic_gone", "topic_followed")
"""Referee task kinds :mod:`forumbot.duels.follow` opens: ``topic_gone`` (the duel is held),
``topic_followed`` (the topic was moved; the bot follows it)."""


def close_hold_tasks(
    storage: Storage, duel_id: int, actor: str, now: datetime, note: str
) -> list[int]:
    """Close the duel's open ``topic_gone`` / ``topic_followed`` tasks (``done``, by
    ``actor``); returns their ids."""
    ids = storage.duel_tasks.open_of_kinds(duel_id, HOLD_TASKS)
    for task_id in ids:
        storage.duel_tasks.mark_done(task_id, iso(now), actor, note)
    return ids


__all__ = ["HOLD_TASKS", "close_hold_tasks"]
