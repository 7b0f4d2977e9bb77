"""The bot's PM inbox: a duellist's owl asking the referee for details becomes a referee task.

Seed 001: "Un duelliste peut également demander par hibou à l'arbitre des détails
supplémentaires sur la zone où il se trouve." The bot cannot answer such a question (the zone's
``details`` are the referee's to give, RULES.md: "a referee task"): each new message in the
inbox from a duellist of a running 2v2 duel becomes an ``owl_question`` task in the review
queue (with the duellist's current zone and the environment's details for it), once: messages
already read are remembered in ``inbox_seen`` (by message id), and the task's key is the
message id. Messages from anyone else (the bot itself included) are remembered and left
alone; a message whose page names no sender while a 2v2 is open or running becomes a task
too (duellist unknown, logged as a warning): nothing a duellist writes is lost silently.

Reading: the client's ``read_pm_inbox(skip=...)`` (``(msg_id, sender, subject, text)``
tuples, newest first; the ids in ``skip``, already read, come without their text and cost no
request): :meth:`forumbot.forums.phpbb.PhpbbClient.read_pm_inbox` on phpBB,
:meth:`forumbot.forums.forumactif.ForumactifClient.read_pm_inbox` on Forumactif. A client
without it reads no inbox (logged once per poll, nothing else changes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Container
from datetime import datetime
from typing import Any

from forumbot.duels.duo import current_state, duo_row, duo_running, load_env
from forumbot.storage import Storage, iso
from forumbot.storage.profiles import player_of

log = logging.getLogger("forumbot.club.inbox")

Message = tuple[int, str, str, str]


def inbox_rows(
    client: Any, skip: Container[int] = frozenset()
) -> list[tuple[int, str, str, Callable[[], str]]]:
    """``(msg_id, sender, subject, read_text)`` for each message of the inbox, newest first
    (messages whose id is in ``skip`` are listed without their text).

    Raises:
        NotImplementedError: the client can read no inbox.
        forumbot.errors.ForumError: the board could not be read.
    """
    reader = getattr(client, "read_pm_inbox", None)
    if reader is None:
        raise NotImplementedError(f"{type(client).__name__} cannot read its PM inbox")
    return [(m[0], m[1], m[2], (lambda t=m[3]: t)) for m in reader(skip=skip)]


def poll_inbox(
    storage: Storage,
    client: Any,
    board_id: int,
    now: Callable[[], datetime],
    *,
    bot_username: str = "",
) -> list[int]:
    """Read the inbox's new messages; returns the ids of the referee tasks created."""
    created: list[int] = []
    seen_ids = storage.club_rows.inbox_seen(board_id)
    try:
        rows = inbox_rows(client, seen_ids)
    except NotImplementedError as exc:
        log.info("inbox: %s", exc)
        return created
    for msg_id, sender, subject, read in rows:
        if msg_id in seen_ids:
            continue
        seen_ids.add(msg_id)
        own = bool(bot_username) and sender.casefold() == bot_username.casefold()
        found = None if own else _duel_of(storage, board_id, sender)
        running = duo_running(storage, board_id) if not sender.strip() else None
        task_id = None
        if found is not None or running is not None:
            if found is not None:
                duel, name = found
                state = current_state(storage, duel)
                env = load_env(duo_row(storage, duel["id"])["environment"])  # type: ignore[index]
                zone = env.zone(state.zone_of(name))
                zone_key = zone.key
                note = f"Détails de la zone ({zone.name}) à donner si besoin : {zone.details}"
            else:  # the page did not say who wrote it: the referee reads it and decides
                assert running is not None
                duel, name, zone_key = running, "", ""
                note = "Expéditeur non reconnu sur la page du forum : à lire dans la messagerie."
                log.warning("inbox: owl %s (%r): sender not found on the page", msg_id, subject)
            text = read()
            task_id = storage.club_rows.open_task(
                {"board_id": board_id, "duel_id": duel["id"], "kind": "owl_question",
                 "source_key": f"b{board_id}-pm{msg_id}", "duellist": name, "zone": zone_key,
                 "subject": subject, "text": text, "status": "open", "created_at": iso(now()),
                 "note": note}
            )  # fmt: skip
            created.append(task_id)
            log.info("inbox: owl %s from %s (duel %s) -> referee task %s", msg_id, name,
                     duel["id"], task_id)  # fmt: skip
        storage.club_rows.mark_inbox_seen(
            {"board_id": board_id, "msg_id": msg_id, "sender": sender, "subject": subject,
             "seen_at": iso(now())},
        )  # fmt: skip
        storage.commit()
    return created


def poll_duo_inbox(
    storage: Storage,
    client: Any,
    board_id: int,
    now: Callable[[], datetime],
    *,
    bot_username: str = "",
) -> list[int]:
    """After a poll: :func:`poll_inbox` while a 2v2 duel is open or running on the board
    (:func:`forumbot.duels.duo.duo_running`; no request otherwise). Returns the ids of the
    referee tasks created.

    Raises:
        forumbot.errors.ForumError: the inbox could not be read (retried next poll).
    """
    if duo_running(storage, board_id) is None:
        return []
    return poll_inbox(storage, client, board_id, now, bot_username=bot_username)


def _duel_of(storage: Storage, board_id: int, sender: str) -> tuple[dict[str, Any], str] | None:
    """The running 2v2 duel and duellist behind a PM's sender (the forum account, or the
    character's name), or None."""
    duel = duo_running(storage, board_id)  # open (opening posted) or running
    if duel is None:
        return None
    for d in storage.duellists(duel["id"]):
        name = str(d["name"])
        if sender.casefold() in (name.casefold(), player_of(storage, board_id, name).casefold()):
            return duel, name
    return None


__all__ = ["inbox_rows", "poll_duo_inbox", "poll_inbox"]
