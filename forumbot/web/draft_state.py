"""A draft's state as staff read it, the same on the review page and the command line
(newcomer5 C3: the page said « approuvé · Version 2 » where ``drafts list`` said « approuvée
v1 »): its status as a phrase that carries its own noun (« brouillon approuvé »,
« déclaration publiée », so every word agrees with the noun it goes with) and its version, the
count of its real edits (:func:`shown_version`, never the row's compare-and-set token).

:func:`draft_state` is what both print: « brouillon approuvé, version 2 »; English
``approved draft, version 2``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from forumbot.i18n import N_

DRAFT_STATES: dict[str, str] = {
    "draft": N_("draft"),
    "approved": N_("approved draft"),
    "held": N_("held draft"),
    "publishing": N_("publishing"),
    "published": N_("published declaration"),
    "queued": N_("awaiting a moderator"),
    "cancelled": N_("dropped draft"),
    "redraft": N_("to be drafted again"),
}
"""A declaration's status (``declarations.status``) -> its phrase (English message of the
catalogue, translated by the caller's ``_``); an unknown status reads as stored."""

EDIT_ACTIONS = ("draft.edit_text", "draft.set_numbers", "draft.waive", "draft.unwaive",
                "draft.redrafted")  # fmt: skip
"""The audit actions that change a draft's content (issue 25: the row's ``version`` is the
compare-and-set token that claims and status changes move too, so an untouched draft read
``v2``/``v4``; the version shown counts these only)."""


def shown_version(storage: Any, decl_id: int) -> int:
    """1 + the real edits of declaration ``decl_id`` (:data:`EDIT_ACTIONS` in the audit log,
    ``storage``: a :class:`forumbot.storage.Storage`): ``1`` for a draft nobody changed."""
    return 1 + int(storage.readouts.edit_count(f"declaration:{decl_id}", EDIT_ACTIONS))


STATE = N_("%s, version %s")
"""The state's phrase and its version (:func:`draft_state`)."""


def draft_state(status: str, version: int, translate: Callable[..., str]) -> str:
    """« brouillon approuvé, version 2 »: the phrase of ``status`` (:data:`DRAFT_STATES`) and
    ``version`` (:func:`shown_version`), in the language of ``translate`` (the page's or the
    command's ``_``: message, then its ``%s`` values)."""
    return translate(STATE, translate(DRAFT_STATES.get(status, status)), version)
