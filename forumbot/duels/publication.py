"""What happens to a duel when one of its declarations is published (the poster's hook).

:mod:`forumbot.publish.poster` publishes declarations exactly once and knows nothing of duels:
it calls an injected ``on_published(storage, row, now)`` inside the transaction that marks the
row published. :func:`apply_published` is that hook: the duel's flow
(:func:`forumbot.duels.flows.flow_for`) advances the duel (the opening starts it, a turn's
outcome becomes its state, the final one finishes it) and, when the flow says so, the next
deadline is created (:func:`forumbot.duels.deadlines.create_deadline`) in the same transaction;
a declaration that closes a turn may open a referee task proposing a close when nobody lost PV
for ``club.stalemate_turns`` turns (:func:`forumbot.duels.stalemate.check_stalemate`;
:func:`published_hook` binds the setting), or at once when no duellist has a damaging spell
left (:func:`forumbot.duels.stalemate.check_exhausted`, issue 26).
``bootstrap`` wires it into :class:`forumbot.app.Bot`; :func:`publish_due` is the poster's pass
with it (for the CLI, the replay and tests).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from forumbot.duels.deadlines import create_deadline
from forumbot.duels.erratum import ERRATUM, apply_erratum
from forumbot.duels.flows import flow_for
from forumbot.duels.stalemate import check_exhausted, check_stalemate
from forumbot.forums.base import ForumClient
from forumbot.publish import poster
from forumbot.publish.poster import OnPublished
from forumbot.storage import Storage
from forumbot.storage.records import Declaration, Duel
from rules.stalemate import DEFAULT_QUIET_TURNS


def apply_published(
    storage: Storage, row: Declaration | dict[str, Any], now: datetime, *,
    stalemate_turns: int = DEFAULT_QUIET_TURNS,
) -> None:  # fmt: skip
    """Advance the duel of the published declaration ``row`` (a record, or a row dict) (see
    module doc); a ``notice`` (a cancelled duel's declaration,
    :mod:`forumbot.duels.ending`) advances nothing; an ``erratum`` applies its corrected
    numbers (:func:`forumbot.duels.erratum.apply_erratum`). ``stalemate_turns``: the setting
    ``club.stalemate_turns`` (0 = no close proposed)."""
    decl = Declaration.of(row)
    if decl.kind == "notice":
        return
    if decl.kind == ERRATUM:  # issue 22: its corrected numbers become the duel's state
        apply_erratum(storage, decl, now)
        return
    duel = Duel.from_row(storage.duel(decl.duel_id))
    flow = flow_for(storage, duel)
    if flow.on_published(storage, duel, decl, now):
        create_deadline(storage, decl, now, flow)
    if not check_exhausted(storage, decl, now):  # issue 26: certain, whatever the setting
        check_stalemate(storage, decl, now, stalemate_turns)


def published_hook(stalemate_turns: int) -> OnPublished:
    """The poster's ``on_published`` hook with the board's ``club.stalemate_turns``."""

    def hook(storage: Storage, row: Declaration | dict[str, Any], now: datetime) -> None:
        apply_published(storage, row, now, stalemate_turns=stalemate_turns)

    return hook


def publish_due(
    storage: Storage, client: ForumClient, now: Callable[[], datetime], *, manual: bool = False
) -> list[int]:
    """Publish every due declaration, advancing their duels; returns the post ids."""
    return poster.publish_due(storage, client, now, manual=manual, on_published=apply_published)


__all__ = ["apply_published", "publish_due", "published_hook"]
