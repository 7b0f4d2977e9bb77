"""A referee takes a draft (« je m'en occupe »): its review delay pauses until they decide.

A taken draft has ``claimed_by`` (the review page account), ``claimed_at`` and ``claim_until``
(``claimed_at`` + ``claim_limit_s``, :class:`forumbot.notify.settings.NotifyConfig`, but never
past the draft's first take + ``claim_total_s``: renewing cannot hold a draft for good, and
once that total is spent the draft cannot be taken again, code ``expired``; issue 24 F5). A
claim ends too when its referee is unassigned from the duel or their account is disabled
(:func:`end_claims`). The
publisher (:func:`forumbot.publish.poster.due_declarations`) does not publish it by its delay
before ``claim_until``; it goes out when the referee approves it (``approved`` is always due),
or by its delay once released or once ``claim_until`` has passed (the longer limit, so a
referee who forgets never blocks a duel for good).

Taking and releasing are compare-and-set on the row (and bump its ``version``, so a
publisher that saw the draft due just before cannot claim it for posting, and stale forms
elsewhere get the usual 409). Both are audit-logged (``draft.take``, ``draft.release``);
taking queues a ``draft_claimed`` notice to the duel's other referees (admins when it has
none) in the same transaction.

Errors: :class:`ClaimError` (``code``: ``unknown``, ``closed``, ``taken``, ``not_yours``,
``expired``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from forumbot.notify.outbox import Event, queue_event, recipients
from forumbot.notify.settings import NotifyConfig
from forumbot.storage import Storage, iso

CLAIMABLE = ("draft", "approved", "held")


class ClaimError(Exception):
    """A take / release refused: ``code`` says why (module docstring)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _row(storage: Storage, decl_id: int) -> dict[str, Any]:
    row = storage.notices.row("declarations", decl_id)
    if row is None:
        raise ClaimError("unknown", f"no declaration {decl_id}")
    return row


def active_claim(decl: dict[str, Any], now: datetime) -> str | None:
    """Who holds the draft now (None when nobody does, or the claim ran out)."""
    by = decl.get("claimed_by")
    if by and (decl.get("claim_until") or "") > iso(now):
        return str(by)
    return None


def first_take(storage: Storage, decl_id: int) -> datetime | None:
    """When the draft was first taken (its oldest ``draft.take`` audit line), or None."""
    at = storage.notices.first_take_at(f"declaration:{decl_id}")
    return datetime.fromisoformat(at) if at else None


def end_claims(
    storage: Storage, username: str, now: datetime, actor: str, duel_id: int | None = None
) -> int:
    """End every claim ``username`` holds (on ``duel_id`` only, when given): the referee lost
    the duel or the account. Each is audit-logged (``draft.release``); returns how many."""
    ids = storage.notices.claimed_ids(username, duel_id)
    with storage.atomic():
        for decl_id in ids:
            storage.notices.end_claim(decl_id, iso(now))
            storage.audit(
                actor,
                "draft.release",
                f"declaration:{decl_id}",
                {"claimed_by": username},
                {"claimed_by": None, "why": "referee unassigned or disabled"},
                now,
            )
    return len(ids)


def take(
    storage: Storage, decl_id: int, username: str, now: datetime, cfg: NotifyConfig
) -> dict[str, Any]:
    """``username`` takes the draft until ``now + claim_limit_s``; returns the updated row.
    Taking one's own draft again renews the limit.

    Raises:
        ClaimError: unknown, no longer pending (``closed``), or taken by someone else.
    """
    decl = _row(storage, decl_id)
    if decl["status"] not in CLAIMABLE:
        raise ClaimError("closed", f"declaration {decl_id} is {decl['status']}")
    holder = active_claim(decl, now)
    if holder is not None and holder.casefold() != username.casefold():
        raise ClaimError("taken", f"declaration {decl_id} is taken by {holder}")
    first = first_take(storage, decl_id) or now
    end = first + timedelta(seconds=cfg.claim_total_s)
    if end <= now:
        raise ClaimError(
            "expired",
            f"declaration {decl_id} was held {cfg.claim_total_s} s in all since its first take",
        )
    until = min(now + timedelta(seconds=cfg.claim_limit_s), end)
    with storage.atomic():
        changed = storage.notices.claim(decl_id, decl["version"], username, iso(now), iso(until))
        if changed != 1:
            raise ClaimError("closed", f"declaration {decl_id} changed meanwhile")
        storage.audit(
            username,
            "draft.take",
            f"declaration:{decl_id}",
            {"claimed_by": decl.get("claimed_by")},
            {"claimed_by": username, "claim_until": iso(until)},
            now,
        )
        event = Event(
            f"declaration:{decl_id}:taken:{iso(now)}",
            "draft_claimed",
            int(decl["duel_id"]),
            decl["turn"],
            f"declaration:{decl_id}",
            {"by": username},
        )
        if holder is None:  # a renewal by the same referee tells nobody again
            queue_event(
                storage,
                event,
                recipients(storage, int(decl["duel_id"]), "referees"),
                cfg,
                now,
                skip=username,
            )
    return _row(storage, decl_id)


def release(
    storage: Storage, decl_id: int, username: str, now: datetime, *, is_admin: bool = False
) -> dict[str, Any]:
    """Give a taken draft back: its review delay applies again (a delay already over
    publishes it at the next pass). The taker or an admin may release it.

    Raises:
        ClaimError: unknown, not taken (``closed``), or taken by someone else and the user is
            no admin (``not_yours``).
    """
    decl = _row(storage, decl_id)
    holder = decl.get("claimed_by")
    if not holder:
        raise ClaimError("closed", f"declaration {decl_id} is not taken")
    if str(holder).casefold() != username.casefold() and not is_admin:
        raise ClaimError("not_yours", f"declaration {decl_id} is taken by {holder}")
    with storage.atomic():
        storage.notices.end_claim(decl_id, iso(now))
        storage.audit(
            username,
            "draft.release",
            f"declaration:{decl_id}",
            {"claimed_by": holder},
            {"claimed_by": None},
            now,
        )
    return _row(storage, decl_id)


__all__ = [
    "CLAIMABLE",
    "ClaimError",
    "active_claim",
    "end_claims",
    "first_take",
    "release",
    "take",
]
