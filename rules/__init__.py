"""Pure rules engine: duel state + posts + dice -> outcome, rulesets as data files.

No I/O, no clock, no randomness: the shell reads ``rules/data/<name>.toml``
(:func:`ruleset_path`), passes its text to :func:`parse_ruleset`, and passes dice values in.

Typical use::

    ruleset = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8"))
    state = start_duel(new_duel(ruleset, [("Aurora Vexley", "5"), ("Cassius Thorne", "7+")]))
    outcome = resolve_turn(state, posts, {101: (5, 2), 102: (4, 3)}, ruleset=ruleset)
"""

from __future__ import annotations

from rules.classic import ClassicSettings, resolve_classic_turn
from rules.effects import (
    EFFECT_TYPES,
    AttackModifier,
    CounterSpell,
    DefenseModifier,
    Effect,
    ExtraDamage,
    NoAttack,
    Shield,
    effect_from_data,
    register_effect,
)
from rules.engine import new_duel, register_engine, resolve_turn, start_duel
from rules.errors import RuleError
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    Modifier,
    TrailEntry,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.ruleset import (
    Ruleset,
    SettingSpec,
    Spell,
    fold_name,
    parse_ruleset,
    register_engine_settings,
    ruleset_path,
)

__all__ = [
    "EFFECT_TYPES",
    "AttackModifier",
    "AttackResult",
    "ClassicSettings",
    "CounterSpell",
    "DefenseModifier",
    "DuelState",
    "DuellistState",
    "Effect",
    "ExtraDamage",
    "Modifier",
    "NoAttack",
    "RuleError",
    "Ruleset",
    "SettingSpec",
    "Shield",
    "Spell",
    "TrailEntry",
    "TurnOutcome",
    "TurnPost",
    "Violation",
    "effect_from_data",
    "fold_name",
    "new_duel",
    "parse_ruleset",
    "register_effect",
    "register_engine",
    "register_engine_settings",
    "resolve_classic_turn",
    "resolve_turn",
    "ruleset_path",
    "start_duel",
]

# Registers the fatigue engine, its effect types and settings (seed 001).
import rules.fatigue  # noqa: E402,F401
