"""The classic ruleset's settings (seed 000), typed and read once per ruleset.

Split out of ``rules.classic`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast

from rules.errors import RuleError
from rules.ruleset import Ruleset, SettingSpec

ENGINE = "classic"

CLASSIC_SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("resolution", "str", ("simultaneous",), help="how a turn's two posts resolve"),
    SettingSpec("tie_rule", "str", ("lands", "deflects"), help="attack equal to defense"),
    SettingSpec("shield_applies", "str", ("same_turn", "next_turn"), help="shield bonus timing"),
    SettingSpec("repeated_spell_voids", "bool", help="a repeated spell has no effect"),
    SettingSpec(
        "unlisted_spell_proposal",
        "str",
        ("advantage", "disqualification"),
        help="what the draft proposes for a spell outside the list",
    ),
    SettingSpec("unlisted_spell_advantage", "int", minimum=0, help="added to the opponent's die"),
    SettingSpec("unlisted_advantage_turns", "int", minimum=1, help="turns the advantage runs"),
    SettingSpec("unlisted_advantage_damage", "bool", help="the advantage adds to damage too"),
    SettingSpec(
        "barred_attacking_spell",
        "str",
        ("ignored", "violation"),
        help="an attacking spell cast while barred",
    ),
    SettingSpec("double_ko", "str", ("higher_remaining_wins", "draw"), help="both at 0 PD"),
)

OverrideValue = int | bool

_OVERRIDE_FIELDS: dict[str, type] = {
    "attack_die": int,
    "defense_die": int,
    "landed": bool,
    "damage": int,
    "points": int,
    "disqualified": bool,
}

_TURN_FIELDS = ("attack_die", "defense_die", "landed", "damage")

UNLISTED_PROPOSAL = "advantage: +{n} to the opponent's next attack die{damage}"

UNLISTED_SOURCE = "unlisted_spell"


@dataclass(frozen=True)
class ClassicSettings:
    """The classic engine's settings, typed (see ``rules/data/classic.toml``)."""

    tie_rule: Literal["lands", "deflects"]
    shield_applies: Literal["same_turn", "next_turn"]
    repeated_spell_voids: bool
    unlisted_spell_proposal: Literal["advantage", "disqualification"]
    unlisted_spell_advantage: int
    unlisted_advantage_turns: int
    unlisted_advantage_damage: bool
    barred_attacking_spell: Literal["ignored", "violation"]
    double_ko: Literal["higher_remaining_wins", "draw"]

    @classmethod
    def from_ruleset(cls, ruleset: Ruleset) -> ClassicSettings:
        """Read and re-check the settings. Raises RuleError(setting name) when one is bad.

        Read once per ruleset object (a ruleset is frozen): later calls return the same
        settings."""
        cached = _SETTINGS_CACHE.get(id(ruleset))
        if cached is not None and cached[0] is ruleset:
            return cached[1]
        settings = cls._read(ruleset)
        if len(_SETTINGS_CACHE) >= 64:
            _SETTINGS_CACHE.clear()
        _SETTINGS_CACHE[id(ruleset)] = (ruleset, settings)
        return settings

    @classmethod
    def _read(cls, ruleset: Ruleset) -> ClassicSettings:
        if ruleset.engine != ENGINE:
            raise RuleError("engine", f"ruleset {ruleset.name!r} is not a classic ruleset")
        values = {spec.name: spec.check(ruleset.setting(spec.name)) for spec in CLASSIC_SETTINGS}
        return cls(
            tie_rule=cast(Literal["lands", "deflects"], values["tie_rule"]),
            shield_applies=cast(Literal["same_turn", "next_turn"], values["shield_applies"]),
            repeated_spell_voids=bool(values["repeated_spell_voids"]),
            unlisted_spell_proposal=cast(
                Literal["advantage", "disqualification"], values["unlisted_spell_proposal"]
            ),
            unlisted_spell_advantage=int(values["unlisted_spell_advantage"]),
            unlisted_advantage_turns=int(values["unlisted_advantage_turns"]),
            unlisted_advantage_damage=bool(values["unlisted_advantage_damage"]),
            barred_attacking_spell=cast(
                Literal["ignored", "violation"], values["barred_attacking_spell"]
            ),
            double_ko=cast(Literal["higher_remaining_wins", "draw"], values["double_ko"]),
        )


_SETTINGS_CACHE: dict[int, tuple[Ruleset, ClassicSettings]] = {}
