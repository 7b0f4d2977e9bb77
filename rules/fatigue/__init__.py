"""The fatigue ruleset (seed 001): PV, spell levels, magic types, dice bets, 1v1 turns.

Importing this package registers the fatigue effect types, the engine settings and the engine
(``rules.resolve_turn`` then dispatches rulesets whose ``engine`` is ``"fatigue"``).

Typical use::

    ruleset = load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))
    state = start_duel(new_fatigue_duel(ruleset, [("Aurora", "5", ["brutale"]),
                                                  ("Cassius", "7", ["sournoise"])]))
    first = resolve_fatigue_step(state, [initiative], {101: (4,)}, ruleset=ruleset)
    second = resolve_fatigue_step(first.state, [defense], {102: (2,)}, ruleset=ruleset)
"""

from __future__ import annotations

from rules.fatigue.context import targets_opponent
from rules.fatigue.effects import (
    DamageOverTime,
    Heal,
    NoDodge,
    PvDamage,
    SpellFamily,
    Undodgeable,
    Ward,
)
from rules.fatigue.engine import (
    PostFacts,
    Step,
    close_without_winner,
    concede,
    has_legal_action,
    legal_actions,
    new_fatigue_duel,
    resolve_fatigue_step,
)
from rules.fatigue.lines import VersionInForce, count_displayed_lines, version_in_force
from rules.fatigue.settings import (
    FATIGUE_SETTINGS,
    FatigueRuleset,
    FatigueSettings,
    MagicModifier,
    MagicType,
    load_fatigue_ruleset,
    parse_any_ruleset,
)

__all__ = [
    "has_legal_action",
    "legal_actions",
    "FATIGUE_SETTINGS",
    "DamageOverTime",
    "FatigueRuleset",
    "FatigueSettings",
    "Heal",
    "MagicModifier",
    "MagicType",
    "NoDodge",
    "PostFacts",
    "PvDamage",
    "SpellFamily",
    "Step",
    "Undodgeable",
    "VersionInForce",
    "Ward",
    "close_without_winner",
    "concede",
    "count_displayed_lines",
    "load_fatigue_ruleset",
    "new_fatigue_duel",
    "parse_any_ruleset",
    "resolve_fatigue_step",
    "targets_opponent",
    "version_in_force",
]
