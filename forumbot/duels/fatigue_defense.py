"""What a fatigue 1v1 first declaration offers the defender, and whether the initiative gave
anything to dodge (the declarations' context, :func:`forumbot.duels.fatigue.step_context`).

- :func:`defense_options`: the defender's legal answers and the effects that bar the rest
  (issue 25, reader2 W1);
- :func:`nothing_to_dodge`: the initiative's spell aims at nobody to dodge (issue 25,
  reader4 W1).
"""

from __future__ import annotations

from typing import Any

from rules.effects import NoAttack
from rules.fatigue import FatigueRuleset, legal_actions, targets_opponent
from rules.fatigue.effects import NoDodge
from rules.model import DuelState
from rules.ruleset import Ruleset


def nothing_to_dodge(
    ruleset: Ruleset, data: dict[str, Any], init_name: str | None, defender: str | None
) -> dict[str, Any]:
    """``nothing_to_dodge``: True when the turn's initiative spell does not aim at the
    defender: void (barred, reused, above the caster's level...: its attack's ``void_reason``)
    or acting on its caster only (:func:`rules.fatigue.targets_opponent`). ``dodge_counts``:
    the defender's counted action after this step is a dodge (``last_action``, the engine's
    ``_counted_action``): RULES.md fatigue, dodge « Not allowed two turns in a row », and seed
    001 « il est interdit d'utiliser cette action deux tours de suite »: a dodge against nothing
    is still that action, so the next turn's dodge is barred."""
    attack = next((a for a in data.get("attacks", []) if a.get("attacker") == init_name), None)
    if attack is None or defender is None or not isinstance(ruleset, FatigueRuleset):
        return {"nothing_to_dodge": False, "dodge_counts": False}
    spell = attack.get("spell")
    aimed = (
        attack.get("void_reason") in (None, "pending", "dodged")
        and bool(spell)
        and ruleset.has_spell(str(spell))
        and targets_opponent(ruleset.spell(str(spell)))
    )
    me: dict[str, Any] = next((d for d in data["state"]["duellists"] if d["name"] == defender), {})
    return {"nothing_to_dodge": not aimed, "dodge_counts": me.get("last_action") == "dodge"}


def defense_options(
    ruleset: Ruleset, data: dict[str, Any], step: str, defender: str | None
) -> dict[str, Any]:
    """``defense_actions`` (:func:`rules.fatigue.legal_actions` of the defender once the
    initiative is read: ``"cast"``, ``"dodge"``, ``"dodge_riposte"``) and ``defense_bars``
    (``[{"what": "cast" | "dodge", "spell", "caster"}]``, the effects that bar an action),
    for a first declaration; empty otherwise."""
    if step != "initiative" or defender is None or not isinstance(ruleset, FatigueRuleset):
        return {"defense_actions": None, "defense_bars": []}
    state = DuelState.from_dict(data["state"])
    me = state.duellist(defender)
    opponents = tuple(d.name for d in state.duellists if d.name != defender)
    bars = []
    for e in me.effects:
        what = "cast" if isinstance(e, NoAttack) else "dodge" if isinstance(e, NoDodge) else None
        if what is not None:
            bars.append({"what": what, "spell": e.source, "caster": e.caster})
    actions = legal_actions(me, ruleset.cfg, ruleset=ruleset, opponents=opponents)
    return {"defense_actions": list(actions), "defense_bars": bars}


__all__ = ["defense_options", "nothing_to_dodge"]
