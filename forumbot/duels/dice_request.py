"""The post asking for the forum's missing dice, once the dice came (issue 3; issue 27/25
mend). :func:`forumbot.duels.flow.missing_dice_draft` holds it under its own key (the step's
key + :data:`forumbot.storage.records.DICE_REQUEST`, kind ``notice``): a referee may publish
it (it advances nothing) or leave it held. When the step's declaration is written, the request
is cancelled if it is still unpublished (:func:`drop_dice_request`)."""

from __future__ import annotations

from datetime import datetime

from forumbot.storage import Storage, iso
from forumbot.storage.records import EDITABLE, DeclStatus

REASON = "the dice came"
"""Why the request is cancelled, in its audit row."""

CANCELLED = "cancelled: the dice came"
"""``last_error`` of a cancelled dice request (« brouillon annulé », forumbot.publish.reasons)."""


def drop_dice_request(storage: Storage, key: str, now: datetime) -> bool:
    """Cancel the dice request keyed ``key`` (``b<board>t<topic>-<step>-dice``) while it is
    a draft, approved or held; one published, publishing or absent is left alone. Audited as
    ``draft.drop`` by ``forumbot``. Returns True when a row was cancelled."""
    row = storage.declaration_by_key(key)
    if row is None or row["status"] not in EDITABLE:
        return False
    storage.update_row("declarations", {"id": row["id"]}, {
        "status": DeclStatus.CANCELLED.value, "last_error": CANCELLED,
        "version": int(row["version"]) + 1, "updated_at": iso(now),
    })  # fmt: skip
    storage.audit(
        "forumbot", "draft.drop", f"declaration:{row['id']}", {"status": row["status"]},
        {"status": "cancelled", "reason": REASON}, now,
    )  # fmt: skip
    return True


__all__ = ["CANCELLED", "REASON", "drop_dice_request"]
