"""Spell effects as data (Avrae style): each effect has a ``type``; a registry maps it to a class.

A ruleset file writes effects as inline tables, e.g. ``{type="extra_damage", amount=2}``;
:func:`effect_from_data` turns one into a frozen dataclass and ``Effect.to_dict()`` gives the
table back, so that ``effect_from_data(e.to_dict()) == e``.

The same classes describe effects carried by a duellist between turns (``DuellistState.effects``):
there ``duration`` counts the turns still to run (1 = the next resolved turn only), ``source``
names the spell or rule that created the effect and ``caster`` who cast it.

Registered types (:data:`EFFECT_TYPES`):

- ``extra_damage`` (:class:`ExtraDamage`): more points lost when the attack lands.
- ``defense_modifier`` (:class:`DefenseModifier`): added to a defense roll.
- ``attack_modifier`` (:class:`AttackModifier`): added to an attack roll (and its damage).
- ``no_attack`` (:class:`NoAttack`): the bearer cannot attack.
- ``shield`` (:class:`Shield`): the caster does not attack; adds to the caster's defense.
- ``counter_spell`` (:class:`CounterSpell`): the caster does not attack; cancels the
  opponent's spell of the same turn.

Errors: :class:`rules.errors.RuleError` for an unknown type, an unknown or missing field,
or a value of the wrong type; its ``rule`` is the setting path given by the caller.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from rules.errors import RuleError

Applies = Literal["target", "caster"]
When = Literal["same_turn", "next_turn"]
EffectScalar = str | int | bool | None

E = TypeVar("E", bound="Effect")


@dataclass(frozen=True, kw_only=True)
class Effect:
    """Base of all effects.

    Attributes:
        duration: turns the effect lasts once it starts (>= 1); for a carried effect,
            the turns still to run.
        source: the spell (canonical name) or rule code that created the effect, or None
            in a spellbook entry.
        caster: the duellist who cast it, or None in a spellbook entry.
    """

    kind: ClassVar[str] = ""
    blocks_caster_attack: ClassVar[bool] = False

    duration: int = 1
    source: str | None = None
    caster: str | None = None

    def __post_init__(self) -> None:
        if self.duration < 1:
            raise RuleError(f"{self.kind}.duration", f"must be >= 1 turn, got {self.duration}")

    def to_dict(self) -> dict[str, EffectScalar]:
        """The effect as a JSON/TOML-ready table, ``type`` first."""
        out: dict[str, EffectScalar] = {"type": self.kind}
        for f in fields(self):
            out[f.name] = getattr(self, f.name)
        return out

    @classmethod
    def from_data(cls: type[E], data: Mapping[str, object], where: str = "effect") -> E:
        """Build the effect from a table (``type`` key ignored here; see :func:`effect_from_data`).

        Raises:
            RuleError: unknown field, missing required field, wrong value type or choice;
                ``rule`` is ``f"{where}.{field}"``.
        """
        hints = _type_hints(cls)
        known = {f.name: f for f in fields(cls)}
        for key in data:
            if key != "type" and key not in known:
                raise RuleError(f"{where}.{key}", f"unknown field for effect type {cls.kind!r}")
        kwargs: dict[str, Any] = {}
        for name, f in known.items():
            if name not in data:
                if f.default is MISSING:
                    raise RuleError(f"{where}.{name}", f"missing for effect type {cls.kind!r}")
                continue
            kwargs[name] = _check_value(f"{where}.{name}", hints[name], data[name])
        return cls(**kwargs)


_HINTS: dict[type, dict[str, Any]] = {}


def _type_hints(cls: type) -> dict[str, Any]:
    """``get_type_hints(cls)``, once per effect class (a duel's state holds effects that are
    read back at every load: the hints never change, and computing them compiles strings)."""
    hints = _HINTS.get(cls)
    if hints is None:
        hints = _HINTS[cls] = get_type_hints(cls)
    return hints


def _check_value(where: str, hint: object, value: object) -> object:
    """Check ``value`` against a field's type hint (int, bool, str, Literal, X | None)."""
    origin = get_origin(hint)
    if origin is Literal:
        choices = get_args(hint)
        if value not in choices:
            raise RuleError(where, f"must be one of {list(choices)}, got {value!r}")
        return value
    if origin in (Union, types.UnionType):
        args = get_args(hint)
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _check_value(where, inner[0], value)
    if hint is bool:
        if not isinstance(value, bool):
            raise RuleError(where, f"must be true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RuleError(where, f"must be an integer, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise RuleError(where, f"must be a string, got {value!r}")
        return value
    raise RuleError(where, f"unsupported field type {hint!r}")  # pragma: no cover


EFFECT_TYPES: dict[str, type[Effect]] = {}


def register_effect(cls: type[E]) -> type[E]:
    """Class decorator: register an effect class under its ``kind`` (the data's ``type``)."""
    if not cls.kind or cls.kind in EFFECT_TYPES:
        raise ValueError(f"effect kind {cls.kind!r} empty or registered twice")
    EFFECT_TYPES[cls.kind] = cls
    return cls


def effect_from_data(data: Mapping[str, object], where: str = "effect") -> Effect:
    """Build a registered effect from a table with a ``type`` key.

    Raises:
        RuleError: missing or unknown ``type`` (``rule`` = ``f"{where}.type"``), or a bad field.
    """
    kind = data.get("type")
    if not isinstance(kind, str):
        raise RuleError(f"{where}.type", "missing (each effect needs a type)")
    cls = EFFECT_TYPES.get(kind)
    if cls is None:
        raise RuleError(
            f"{where}.type", f"unknown effect type {kind!r}; known: {sorted(EFFECT_TYPES)}"
        )
    return cls.from_data(data, where)


@register_effect
@dataclass(frozen=True, kw_only=True)
class ExtraDamage(Effect):
    """``extra_damage``: ``amount`` more points lost by the target when the attack lands.

    Seed 000: "Sortilège de Feu (enlève 2 PD supplémentaire si l'attaque réussie)".
    """

    kind: ClassVar[str] = "extra_damage"
    amount: int


@register_effect
@dataclass(frozen=True, kw_only=True)
class DefenseModifier(Effect):
    """``defense_modifier``: ``amount`` added to a defense roll (negative to lower it).

    ``applies``: whose roll (the spell's target or its caster); ``when``: the same turn's
    roll or the next turn's. Seed 000: "Maléfice du Pot de Colle (enlève 2 au prochain jet
    de défense)".
    """

    kind: ClassVar[str] = "defense_modifier"
    amount: int
    applies: Applies = "target"
    when: When = "next_turn"


@register_effect
@dataclass(frozen=True, kw_only=True)
class AttackModifier(Effect):
    """``attack_modifier``: ``amount`` added to an attack roll; to its damage too when
    ``affects_damage``. Lost when the bearer does not attack while it runs.

    RULES.md classic: the unlisted-spell advantage "+2 to the opponent's next attack die,
    for damage too" [D].
    """

    kind: ClassVar[str] = "attack_modifier"
    amount: int
    affects_damage: bool = True
    applies: Applies = "target"
    when: When = "next_turn"


@register_effect
@dataclass(frozen=True, kw_only=True)
class NoAttack(Effect):
    """``no_attack``: the bearer cannot attack.

    Seed 000: "Sortilège de Confusion (empêche l'adversaire d'attaquer au prochain tour)".
    """

    kind: ClassVar[str] = "no_attack"
    applies: Applies = "target"
    when: When = "next_turn"


@register_effect
@dataclass(frozen=True, kw_only=True)
class Shield(Effect):
    """``shield``: the caster rolls no attack; ``amount`` is added to the caster's defense
    (the same post's roll or the next one: ruleset setting ``shield_applies``).

    Seed 000: "Charme du Bouclier (empêche d'attaquer mais ajoute 3 au prochain jet de défense)".
    """

    kind: ClassVar[str] = "shield"
    blocks_caster_attack: ClassVar[bool] = True
    amount: int
    applies: Literal["caster"] = "caster"


@register_effect
@dataclass(frozen=True, kw_only=True)
class CounterSpell(Effect):
    """``counter_spell``: the caster does not attack; the opponent's spell of the same turn
    is cancelled (its damage, its new effects, a shield's bonus, a counter-spell).

    Seed 000: "Antisort Général (empêche d'attaquer mais permet d'annuler tout sortilège jeté)".
    """

    kind: ClassVar[str] = "counter_spell"
    blocks_caster_attack: ClassVar[bool] = True
    applies: Literal["target"] = "target"


__all__ = [
    "EFFECT_TYPES",
    "Applies",
    "AttackModifier",
    "CounterSpell",
    "DefenseModifier",
    "Effect",
    "ExtraDamage",
    "NoAttack",
    "Shield",
    "When",
    "effect_from_data",
    "register_effect",
]
