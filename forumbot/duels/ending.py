"""Ending what is stuck, by a referee's decision (issue 13): cancel a duel, drop a draft.

- :func:`cancel_duel` (``forumbot duels cancel TOPIC --reason ...``): the duel becomes
  ``cancelled`` (no winner, no rewards: the ``on_finished`` hooks run for ``finished`` duels
  only), its unpublished drafts are cancelled, its pending deadlines too, and the club's
  queue rows that held its players are released. When players have seen the duel (one of its
  declarations is published), a French declaration says so
  (``duel_cancelled.bbcode.j2``, kind ``notice``, approved: the next publish pass posts it,
  exactly once like any declaration; :func:`forumbot.duels.publication.apply_published`
  leaves the duel alone for a notice).
- :func:`drop_draft` (``forumbot drafts drop N --reason ...``): an unpublished draft is
  cancelled and never published. Dropping the opening of a duel that has not started ends
  the duel too (it cannot start without it); a dropped turn draft is drafted again at the
  next poll, or waits with a referee task (``--no-redraft``: :mod:`forumbot.duels.redraft`).

Both write the audit log (``duel.cancel``, ``draft.drop``) with the state before and after.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.duels.duo_board import is_duo
from forumbot.duels.holds import WAITING_TASKS, close_hold_tasks
from forumbot.duels.redraft import REDRAFT_KINDS, mark_redraft, open_dropped_task
from forumbot.publish.render import marker_text, render
from forumbot.storage import Storage, iso
from forumbot.storage.records import EDITABLE, REDRAFTABLE, DuelRecords, declaration_row

STOPPING_KINDS = (*REDRAFT_KINDS, "closure", "relaunch")
"""Draft kinds whose drop, in a running duel, leaves it waiting for a referee (a task says so)."""


class EndingError(ValueError):
    """The duel or draft cannot be ended (message says why, in English)."""


ENDED = ("finished", "cancelled")
"""Duel statuses with nothing left to end."""

NOTICE = "notice"
"""Kind of a declaration that tells the players something without advancing the duel."""

CONCESSION = "concession"
"""Key tail and step of a concession's declaration (:mod:`forumbot.duels.concession`)."""


_CONCEDING = ("draft", "approved", "held", "publishing")


def conceding(storage: Storage, duel_id: int, records: DuelRecords | None = None) -> bool:
    """True while the duel's concession (:mod:`forumbot.duels.concession`) waits for its
    publication: the flows draft nothing more for the duel meanwhile. ``records``: the
    duel's snapshot when the caller holds one (a flow in the referee's poll); else the
    declarations are read now."""
    if records is not None and records.duel.id == duel_id:
        return any(
            d.kind == "closure"
            and d.idempotency_key.casefold().endswith(f"-{CONCESSION}")
            and d.status in _CONCEDING
            for d in records.declarations
        )
    return storage.duel_rows.concession_pending(duel_id, CONCESSION)


@dataclass(frozen=True)
class Ended:
    """What an ending did: ``duel_id``, the ``drafts`` cancelled (ids), the ``notice``
    declaration drafted for the players (id, or None when no declaration was published)."""

    duel_id: int
    drafts: tuple[int, ...]
    notice: int | None
    duel_status: str


def _cancel_drafts(
    storage: Storage, duel_id: int, why: str, actor: str, now: datetime
) -> list[int]:
    cancelled = []
    for decl in storage.declarations(REDRAFTABLE, duel_id):
        storage.duel_rows.update_declaration(
            decl["id"],
            {
                "status": "cancelled",
                "last_error": f"cancelled: {why}",
                "version": decl["version"] + 1,
                "updated_at": iso(now),
            },
        )
        storage.audit(
            actor, "draft.drop", f"declaration:{decl['id']}",
            {"status": decl["status"]}, {"status": "cancelled", "reason": why}, now,
        )  # fmt: skip
        cancelled.append(int(decl["id"]))
    return cancelled


def _release(storage: Storage, duel_id: int, now: datetime) -> None:
    """Pending deadlines and the club's queue rows of the duel end with it."""
    storage.duel_tasks.cancel_pending(duel_id, "duel cancelled", iso(now))
    storage.duel_rows.release_club_rows(duel_id)


def cancel_duel(
    storage: Storage,
    duel_id: int,
    reason: str,
    actor: str,
    now: datetime,
    *,
    referee_name: str = "L'arbitre",
    language: str = "fr",
    announce: bool = True,
    verify_docs_url: str = "",
) -> Ended:
    """Cancel a duel that is not over (see module doc); returns what was done.

    Args:
        reason: why, in the board's language (quoted in the players' declaration).
        announce: post the declaration when players have seen the duel (default).
        verify_docs_url: the page « l'outil de vérification » links to (``club.verify_docs_url``;
            "" = no link).

    Raises:
        EndingError: unknown duel, a duel already over (finished, cancelled), one that is
            only a topic a poll ignored, or an empty reason.
    """
    reason = reason.strip()
    if not reason:
        raise EndingError("a cancellation needs a reason (--reason)")
    try:
        duel = storage.duel(duel_id)
    except Exception as exc:  # sqlite_utils NotFoundError
        raise EndingError(f"no duel {duel_id}") from exc
    if duel["status"] in ENDED or duel["status"] == "ignored":
        raise EndingError(f"duel {duel_id} is {duel['status']}: nothing to cancel")
    published = storage.declarations(("published",), duel_id)
    notice = None
    with storage.atomic():
        drafts = _cancel_drafts(storage, duel_id, f"duel cancelled: {reason}", actor, now)
        _release(storage, duel_id, now)
        # moved / gone topic, dropped turn: the duel waits for nothing any more
        close_hold_tasks(storage, duel_id, actor, now, "duel cancelled", WAITING_TASKS)
        storage.update_duel(duel_id, status="cancelled")
        if announce and published:
            notice = _notice(storage, duel, reason, now, referee_name, language, verify_docs_url)
        storage.audit(
            actor, "duel.cancel", f"duel:{duel_id}",
            {"status": duel["status"], "turn": _turn(duel)},
            {"status": "cancelled", "reason": reason, "drafts_cancelled": drafts,
             "notice": notice},
            now,
        )  # fmt: skip
    return Ended(duel_id, tuple(drafts), notice, "cancelled")


def forum_rolled(storage: Storage, duel_id: int) -> bool:
    """True when the forum rolled some of the duel's dice (``dice_rolls.source`` ``forum``)."""
    return storage.duel_rows.forum_rolled(duel_id)


def _turn(duel: dict[str, Any]) -> int:
    return int(json.loads(duel["state_json"] or "{}").get("turn", 0))


def _notice(
    storage: Storage, duel: dict[str, Any], reason: str, now: datetime, referee_name: str,
    language: str, verify_docs_url: str = "",
) -> int:  # fmt: skip
    key = f"b{duel['board_id']}t{duel['topic_id']}-cancelled"
    # The bot's dice seed is revealed, as at a duel's end, so every roll declared so far can be
    # checked (verify-dice); not where the forum rolled the duel's dice (no seed was used).
    bot_dice = bool(duel.get("dice_secret")) and (
        is_duo(storage, int(duel["id"])) or not forum_rolled(storage, int(duel["id"]))
    )
    context = {
        "title": duel["title"],
        "reason": reason.rstrip(" ."),
        "stakes": duel["stakes"],
        "referee_name": referee_name,
        "dice_secret": duel["dice_secret"] if bot_dice else None,
        "commitment": duel.get("dice_commitment") if bot_dice else None,
        "verify_docs_url": verify_docs_url,
    }
    text = render("duel_cancelled.bbcode.j2", context, language)
    return storage.duel_rows.insert_declaration(
        declaration_row(
            duel_id=duel["id"], turn=_turn(duel), kind=NOTICE, key=key,
            marker=marker_text(key), text=text,
            context_json=json.dumps({"context": context}, ensure_ascii=False),
            status="approved", publish_after=None, at=iso(now),
        )  # fmt: skip
    )


def drop_draft(
    storage: Storage, decl_id: int, reason: str, actor: str, now: datetime, *,
    redraft: bool = True, language: str = "fr",
) -> Ended:  # fmt: skip
    """Drop one unpublished draft (see module doc); returns what was done.

    A turn draft (kind ``turn``) is drafted again at the next poll (``redraft``, the default:
    status ``redraft``), or cancelled with a ``turn_dropped`` referee task saying the duel
    waits (``redraft=False``) (:mod:`forumbot.duels.redraft`): a dropped turn never freezes
    a duel silently. Other kinds are cancelled.

    Raises:
        EndingError: unknown declaration, one being published or already out (published,
            cancelled), or an empty reason.
    """
    reason = reason.strip()
    if not reason:
        raise EndingError("dropping a draft needs a reason (--reason)")
    try:
        decl = storage.declaration(decl_id)
    except Exception as exc:  # sqlite_utils NotFoundError
        raise EndingError(f"no declaration {decl_id}") from exc
    if decl["status"] not in EDITABLE:
        raise EndingError(
            f"declaration {decl_id} is {decl['status']}: only an unpublished draft can be dropped"
        )
    duel = storage.duel(decl["duel_id"])
    status = duel["status"]
    again = redraft and decl["kind"] in REDRAFT_KINDS and status == "running"
    with storage.atomic():
        if again:
            changes = mark_redraft(
                storage, decl, f"dropped: {reason}; drafted again at the next poll", now
            )
        else:
            changes = {
                "status": "cancelled",
                "last_error": f"dropped: {reason}",
                "version": decl["version"] + 1,
                "updated_at": iso(now),
            }
            storage.duel_rows.update_declaration(decl_id, changes)
        storage.audit(
            actor, "draft.drop", f"declaration:{decl_id}",
            {"status": decl["status"], "kind": decl["kind"], "text": decl["text"],
             "overrides": decl["overrides_json"], "waived": decl["waived_json"]},
            {"status": changes["status"], "reason": reason,
             "redraft": bool(again) if decl["kind"] in REDRAFT_KINDS else None},
            now,
        )  # fmt: skip
        if decl["kind"] in STOPPING_KINDS and status == "running" and not again:
            # nothing else would move the duel: its deadline fired or a concession ended it
            # (season soak, seed 5: a dropped concession closure froze the duel silently)
            open_dropped_task(storage, decl, duel, reason, actor, now, language)
        if decl["kind"] == "opening" and status == "open":
            # the duel cannot start without its opening: it ends here, unseen by the players
            _cancel_drafts(storage, duel["id"], f"opening dropped: {reason}", actor, now)
            _release(storage, duel["id"], now)
            storage.update_duel(duel["id"], status="cancelled")
            status = "cancelled"
            storage.audit(
                actor, "duel.cancel", f"duel:{duel['id']}",
                {"status": "open"}, {"status": "cancelled", "reason": f"opening dropped: {reason}"},
                now,
            )  # fmt: skip
    return Ended(int(duel["id"]), (decl_id,), None, status)


__all__ = [
    "CONCESSION",
    "ENDED",
    "NOTICE",
    "Ended",
    "EndingError",
    "cancel_duel",
    "conceding",
    "drop_draft",
]
