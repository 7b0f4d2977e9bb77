"""A concession found on the board that the database does not know (issue 23: a restore).

A concession is a staff decision (``forumbot duels concede``, :mod:`forumbot.duels.concession`)
that lives in the database until its declaration is published. When the database is restored
from a backup taken before the concession, the duel is back to ``running`` while its topic
already holds the bot's concession post (marker ``forumbot·b<board>t<topic>-concession·``).
The restored duel's high-water mark (``last_post_id``) is older than that post, so the next poll
reads it again; :func:`recover_concession` then records the concession again, from the post:

- who conceded: the duellist the post names in its first sentence (« <nom> abandonne. », « <nom>
  abandonne : son duo … », ``concession.bbcode.j2``; posts written before the seventh reader of
  issue 25 read « <nom> abandonne le duel « <titre> » »); a post naming none of the duel's
  duellists (or several) is not guessed at: the duel is left alone and a referee task says so
  (« a concession post the database does not know »), once;
- the concession is stored again by :func:`forumbot.duels.concession.concede_duel` (the same
  rules, the same key); its publication is then found on the board by its marker (the poster
  searches the topic's stored posts first: never posted twice) and finishes the duel, which
  gives the results and the leaderboard points once.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime

from forumbot.duels.ending import CONCESSION, EndingError
from forumbot.publish.render import marker_text
from forumbot.storage import Storage
from forumbot.storage.records import DuelRecords

log = logging.getLogger("forumbot.concession")

RECOVERY_ACTOR = "forumbot (restore)"
"""The audit log's actor of a concession recorded again from the board."""


def concession_key(records: DuelRecords) -> str:
    """The idempotency key of the duel's concession (``b<board>t<topic>-concession``)."""
    return f"b{records.duel.board_id}t{records.duel.topic_id}-{CONCESSION}"


def _conceder(text: str, names: list[str]) -> str | None:
    """The one duellist of ``names`` the concession post says abandons, else None."""
    found = [
        n for n in names
        if re.search(
            rf"(?m)^\s*{re.escape(n)} abandonne(?: le duel\b|\s*[.:])", text, re.IGNORECASE
        )
    ]  # fmt: skip
    return found[0] if len(found) == 1 else None


def recover_concession(
    storage: Storage, records: DuelRecords, bot_username: str | None, now: datetime
) -> bool:
    """Record again a concession whose post is in the topic but not in the database (see the
    module doc). Returns True when a concession was recorded (the caller then reads the
    duel again and drafts nothing more: the concession waits for its publication).

    Only for a ``running`` duel that has no concession declaration at all; the post must be
    the bot's (``bot_username``) and carry the concession's marker."""
    if records.duel.status != "running" or records.seen is None:
        return False
    key = concession_key(records)
    if any(d.idempotency_key == key for d in records.declarations):
        return False
    marker = marker_text(key)
    bot = (bot_username or "").casefold()
    post = next(
        (p for p in records.seen if marker in p.text and (p.author or "").casefold() == bot),
        None,
    )
    if post is None:
        return False
    from forumbot.duels.concession import concede_duel

    names = [str(d["name"]) for d in storage.duellists(records.duel.id)]
    who = _conceder(post.text, names)
    if who is None:
        _task_once(storage, records, post.post_id, now)
        return False
    try:
        concede_duel(storage, records.duel.id, who, RECOVERY_ACTOR, now)
    except EndingError as exc:
        log.warning("duel %s: concession post %s found, not recorded again: %s",
                    records.duel.id, post.post_id, exc)  # fmt: skip
        _task_once(storage, records, post.post_id, now)
        return False
    log.warning("duel %s: concession of %s found on the board (post %s) and recorded again "
                "(a restored database?)", records.duel.id, who, post.post_id)  # fmt: skip
    return True


def _task_once(storage: Storage, records: DuelRecords, post_id: int, now: datetime) -> None:
    """One referee task (keyed by the duel's topic) for a concession post the bot cannot
    record again."""
    from forumbot.duels.duo_board import add_task

    duel = records.duel
    with storage.atomic():
        add_task(
            storage, duel.board_id, duel.id, "concession_unknown",
            f"{concession_key(records)}-unknown", "", None,
            "Abandon inconnu de la base",
            f"Le forum montre un abandon (message {post_id}) que la base ne connaît pas "
            "(base restaurée ?) et que le bot ne peut pas relire : le duel reste en cours, "
            "à clore à la main (forumbot duels concede).",
            now, post_id=post_id,
        )  # fmt: skip


__all__ = ["RECOVERY_ACTOR", "concession_key", "recover_concession"]
