"""The registry of ruleset flows: which :class:`forumbot.duels.flow.DuelFlow` runs a duel.

:data:`FLOWS` maps a flow's name to the flow, like Avrae's ``EFFECT_MAP`` maps an effect type
to its class and :data:`rules.engine.ENGINES` maps an engine name to its resolver. A duel's
flow is its ruleset's kind (``ruleset.engine``: ``"classic"`` or ``"fatigue"``), except that a
fatigue duel with a ``duo_duels`` row is a two-against-two (``"duo"``). This is the one place
that decides it: the referee loop, the poster's on-published hook
(:mod:`forumbot.duels.publication`), the deadlines and the overrides all ask :func:`flow_for`.
A ruleset whose engine has no flow of its own is refereed as classic (its turns resolve
through :func:`rules.resolve_turn`, which dispatches on the engine).
"""

from __future__ import annotations

from forumbot.duels.classic import CLASSIC
from forumbot.duels.duo import DUO, is_duo
from forumbot.duels.fatigue import FATIGUE
from forumbot.duels.flow import DuelFlow
from forumbot.duels.opening import OpeningFlow
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage
from forumbot.storage.records import Duel
from rules.ruleset import Ruleset

FLOWS: dict[str, DuelFlow] = {flow.name: flow for flow in (CLASSIC, FATIGUE, DUO)}
"""Flows by name (``classic``, ``fatigue``, ``duo``)."""

OPENING_FLOWS: dict[str, OpeningFlow] = {flow.name: flow for flow in (CLASSIC, FATIGUE)}
"""The flows whose duels are adopted from a topic (one against one), by ruleset kind."""


def opening_flow(ruleset: Ruleset) -> OpeningFlow:
    """The flow that adopts a 1v1 duel under ``ruleset`` (classic for an unknown engine)."""
    return OPENING_FLOWS.get(ruleset.engine, CLASSIC)


def flow_for(storage: Storage, duel: Duel, ruleset: Ruleset | None = None) -> DuelFlow:
    """The flow of ``duel`` (``ruleset``: the duel's, when already loaded)."""
    if is_duo(storage, duel.id):
        return FLOWS["duo"]
    rs = ruleset if ruleset is not None else load_ruleset(str(duel.ruleset))
    return FLOWS.get(rs.engine, CLASSIC)


__all__ = ["FLOWS", "OPENING_FLOWS", "flow_for", "opening_flow"]
