"""Nothing a referee does freezes a duel (issue 22): dropped turn drafts and redrafts.

A flow drafts a turn once per idempotency key (``b<board>t<topic>-turn3``...) and leaves a
row it may not rewrite alone, so a turn draft that was simply cancelled was never drafted
again: every later post gave "1 new post, 0 drafts" until ``duels cancel``. Now a referee who
drops a turn draft says what follows (``forumbot drafts drop N --redraft|--no-redraft``):

- ``redraft`` (the default, the one that cannot freeze): the row becomes ``redraft``; the
  next poll reads the topic and the flow drafts the turn again from the posts as they are
  then, into the same row (:meth:`forumbot.duels.flow.DraftWriter.write`: same key and
  marker, so the poster's exactly-once holds; fresh: no override, waive or hand-edited text;
  the dice are the same, they derive from the secret seed and the post: ``rules/dice.py``).
- ``no redraft``: the row is ``cancelled`` and a ``turn_dropped`` referee task (French text,
  ``turn_dropped_task.txt.j2``; its notice follows from :mod:`forumbot.notify.scan`) says the
  duel waits, until a referee runs ``forumbot drafts redraft N`` or ``duels cancel``.

:func:`request_redraft` (``forumbot drafts redraft N``) puts a pending turn draft (after an
edit, a late post, a mistake) or a dropped one back to ``redraft``; a published declaration
is refused (it is corrected with ``forumbot duels correct``: :mod:`forumbot.duels.erratum`).
Every step is in the audit log (``draft.drop``, ``draft.redraft``, ``draft.redrafted``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.duels.duo_board import add_task
from forumbot.publish.render import render
from forumbot.storage import Storage, iso
from forumbot.storage.records import EDITABLE, DeclStatus

log = logging.getLogger("forumbot.duels.redraft")

TASK_KIND = "turn_dropped"
"""Kind of the referee task a turn draft dropped without redraft opens."""

REDRAFT_KINDS = ("turn",)
"""Declaration kinds that can be drafted again (openings are drafted once at adoption;
relaunches and closures by their deadlines)."""


class RedraftError(ValueError):
    """The draft cannot be drafted again (message says why, in English)."""


def what(decl: dict[str, Any]) -> str:
    """``tour 3`` (French, for the task text)."""
    return f"tour {decl['turn']}"


def mark_redraft(
    storage: Storage, decl: dict[str, Any], note: str, now: datetime
) -> dict[str, Any]:
    """Set the row to ``redraft`` (its overrides, waives and hand-edited text go: the next
    draft is fresh; the audit entry of the caller keeps them). Returns the changes."""
    changes = {
        "status": DeclStatus.REDRAFT.value,
        "last_error": note,
        "overrides_json": "{}",
        "waived_json": "[]",
        "text_edited": 0,
        "version": decl["version"] + 1,
        "updated_at": iso(now),
    }
    storage.duel_rows.update_declaration(decl["id"], changes)
    if str(decl["idempotency_key"]).endswith("-relaunch"):
        # a fired deadline wrote it (deadlines.resolve_undefended), not the posts: the poll
        # would never draft it again (the season soak found such a duel frozen); the
        # deadline is armed again, its next sweep drafts it under the same key
        storage.duel_tasks.rearm_last_fired(decl["duel_id"])
    return changes


def open_dropped_task(
    storage: Storage, decl: dict[str, Any], duel: dict[str, Any], reason: str, actor: str,
    now: datetime, language: str = "fr",
) -> None:  # fmt: skip
    """The ``turn_dropped`` referee task of a turn draft dropped without redraft, or of a
    closure or relaunch dropped in a running duel (nothing else would move it)."""
    text = render(
        "turn_dropped_task.txt.j2",
        {"what": what(decl), "decl_id": decl["id"], "actor": actor, "reason": reason,
         "topic_id": duel["topic_id"], "redraftable": decl["kind"] in REDRAFT_KINDS},
        language,
    )  # fmt: skip
    add_task(
        storage, int(duel["board_id"]), int(duel["id"]), TASK_KIND,
        f"b{duel['board_id']}t{duel['topic_id']}-dropped-d{decl['id']}v{decl['version']}", "",
        None, f"Tour {decl['turn']} abandonné : le duel attend l'arbitre", text.strip(), now,
    )  # fmt: skip
    log.warning(
        "duel %s: %s draft %s dropped without redraft (%s): the duel waits for a referee "
        "(referee task %s)", duel["id"], what(decl), decl["id"], reason, TASK_KIND,
    )  # fmt: skip


def close_dropped_tasks(storage: Storage, decl_id: int, actor: str, now: datetime) -> int:
    """Close the open ``turn_dropped`` tasks of declaration ``decl_id``; returns how many."""
    rows = storage.duel_tasks.open_with_key_like(TASK_KIND, f"%-dropped-d{decl_id}v%")
    for row in rows:
        storage.duel_tasks.update_task(
            row["id"],
            {"status": "done", "done_at": iso(now), "done_by": actor,
             "note": "drafted again (forumbot drafts redraft)"},
        )  # fmt: skip
        storage.audit(actor, "task.done", f"referee_task:{row['id']}", "open", "done", now)
    return len(rows)


@dataclass(frozen=True)
class Redraft:
    """What :func:`request_redraft` did: the declaration, its status before, the tasks
    closed."""

    decl_id: int
    before: str
    tasks_closed: int


def request_redraft(
    storage: Storage, decl_id: int, actor: str, now: datetime, reason: str = ""
) -> Redraft:
    """Ask for turn draft ``decl_id`` to be drafted again at the next poll (module doc).

    Raises:
        RedraftError: unknown declaration; not a turn; published (use ``duels correct``),
            being published, already waiting for its redraft; a duel that is over; a
            dropped draft whose duel went on since (a later declaration is published).
    """
    try:
        decl = storage.declaration(decl_id)
    except Exception as exc:  # sqlite_utils NotFoundError
        raise RedraftError(f"no declaration {decl_id}") from exc
    status = decl["status"]
    if status == DeclStatus.PUBLISHED:
        raise RedraftError(
            f"declaration {decl_id} is published: it cannot be drafted again; correct it with "
            "`forumbot duels correct` (an erratum post)"
        )
    if status == DeclStatus.REDRAFT:
        raise RedraftError(f"declaration {decl_id} already waits to be drafted again")
    if decl["kind"] not in REDRAFT_KINDS:
        raise RedraftError(
            f"declaration {decl_id} is a {decl['kind']} declaration: only turn drafts are "
            "drafted again (edit it, or drop it)"
        )
    if status not in (*EDITABLE, DeclStatus.CANCELLED.value):
        raise RedraftError(f"declaration {decl_id} is {status}: it can no longer change")
    duel = storage.duel(decl["duel_id"])
    if duel["status"] != "running":
        raise RedraftError(f"duel {duel['id']} is {duel['status']}: nothing to draft")
    if status == DeclStatus.CANCELLED:
        later = storage.duel_rows.published_after(duel["id"], decl_id)
        if later:
            raise RedraftError(
                f"duel {duel['id']} went on since declaration {decl_id} was dropped: its turn "
                "cannot be drafted again (correct a published turn with `forumbot duels "
                "correct`)"
            )
    note = f"redraft asked by {actor}" + (f": {reason}" if reason else "")
    with storage.atomic():
        changes = mark_redraft(storage, decl, note, now)
        closed = close_dropped_tasks(storage, decl_id, actor, now)
        storage.audit(
            actor, "draft.redraft", f"declaration:{decl_id}",
            {"status": status, "text": decl["text"], "overrides": decl["overrides_json"],
             "waived": decl["waived_json"]},
            {"status": changes["status"], "reason": reason},
            now,
        )  # fmt: skip
    return Redraft(decl_id, status, closed)


__all__ = [
    "REDRAFT_KINDS",
    "TASK_KIND",
    "Redraft",
    "RedraftError",
    "close_dropped_tasks",
    "mark_redraft",
    "open_dropped_task",
    "request_redraft",
]
