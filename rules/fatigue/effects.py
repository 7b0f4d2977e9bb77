"""The fatigue ruleset's spell effects, registered in :data:`rules.effects.EFFECT_TYPES`.

Written in ``rules/data/fatigue.toml`` as inline tables (``{type = "pv_damage", amount = 30}``),
like the classic effects. Durations are in turns; a carried effect's ``duration`` is the turns
still to run (RULES.md Fine points: "a spell's effect starts with the next turn [...] and lasts
its spellbook duration in turns").

Registered types:

- ``pv_damage`` (:class:`PvDamage`): PV lost by the target when the spell lands.
- ``undodgeable`` (:class:`Undodgeable`): the spell cannot be dodged.
- ``spell_family`` (:class:`SpellFamily`): the family magic-type modifiers look at.
- ``no_dodge`` (:class:`NoDodge`): the bearer may neither dodge nor (by default) dodge_riposte.
- ``damage_over_time`` (:class:`DamageOverTime`): the bearer loses PV at each turn it runs.
- ``ward`` (:class:`Ward`): spells landing on the bearer deal fewer PV.
- ``heal`` (:class:`Heal`): the caster gets PV back when the spell is cast.

The existing ``no_attack`` (:class:`rules.effects.NoAttack`) means "cannot cast" here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rules.effects import EFFECT_TYPES, Effect, register_effect

LASTING_KINDS = ("no_dodge", "no_attack", "damage_over_time", "ward")


def _register(cls: type[Effect]) -> None:
    """Register once (a second import of this module must not fail)."""
    if cls.kind not in EFFECT_TYPES:
        register_effect(cls)


@dataclass(frozen=True, kw_only=True)
class PvDamage(Effect):
    """``pv_damage``: ``amount`` PV lost by the target when the spell lands.

    Seed 001: "Dès lors qu'un duelliste est victime d'un sort, celui perd automatiquement des
    points de vies".
    """

    kind: ClassVar[str] = "pv_damage"
    amount: int
    applies: Literal["target"] = "target"


@dataclass(frozen=True, kw_only=True)
class Undodgeable(Effect):
    """``undodgeable``: the spell cannot be dodged (seed 001: "Cette action permet d'esquiver un
    sort si celui-ci le permet")."""

    kind: ClassVar[str] = "undodgeable"


@dataclass(frozen=True, kw_only=True)
class SpellFamily(Effect):
    """``spell_family``: the family (``"attaque"``, ``"feu"``...) magic-type modifiers look at.

    Seed 001: "l'utilisation de certains sorts et leurs résultats seront parfois différents selon
    le type de magie du duelliste".
    """

    kind: ClassVar[str] = "spell_family"
    family: str


@dataclass(frozen=True, kw_only=True)
class NoDodge(Effect):
    """``no_dodge``: the bearer may not dodge (nor dodge_riposte, setting
    ``no_dodge_bars_riposte``) while it runs; a dodge then is a ``barred_action``."""

    kind: ClassVar[str] = "no_dodge"
    applies: Literal["target", "caster"] = "target"


@dataclass(frozen=True, kw_only=True)
class DamageOverTime(Effect):
    """``damage_over_time``: the bearer loses ``amount`` PV at each turn the effect runs."""

    kind: ClassVar[str] = "damage_over_time"
    amount: int
    applies: Literal["target", "caster"] = "target"


@dataclass(frozen=True, kw_only=True)
class Ward(Effect):
    """``ward``: each spell landing on the bearer deals ``amount`` PV less (never below 0).

    Seed 001: "une esquive, une esquive-riposte ou un sort de protection par exemple peuvent
    parfois la contrer."
    """

    kind: ClassVar[str] = "ward"
    amount: int
    applies: Literal["caster", "target"] = "caster"


@dataclass(frozen=True, kw_only=True)
class Heal(Effect):
    """``heal``: the caster gets ``amount`` PV back when the spell is cast (capped, setting
    ``heal_cap``)."""

    kind: ClassVar[str] = "heal"
    amount: int
    applies: Literal["caster"] = "caster"


for _cls in (PvDamage, Undodgeable, SpellFamily, NoDodge, DamageOverTime, Ward, Heal):
    _register(_cls)

__all__ = [
    "LASTING_KINDS",
    "DamageOverTime",
    "Heal",
    "NoDodge",
    "PvDamage",
    "SpellFamily",
    "Undodgeable",
    "Ward",
]
