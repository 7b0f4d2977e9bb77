"""The fatigue ruleset file: engine settings, bets per action, magic types.

``rules/data/fatigue.toml`` carries the common ruleset keys (read by
:func:`rules.ruleset.parse_ruleset`), the scalar settings registered below under the engine
name ``"fatigue"``, and two tables of its own: ``[bets]`` (faces allowed per action) and
``[magic_types.<key>]`` (label, traits, owl text, modifiers). :func:`load_fatigue_ruleset` reads
all of it into a :class:`FatigueRuleset` (a :class:`rules.ruleset.Ruleset` with the two tables
and typed settings). Pure: it takes the file's text.

Errors: :class:`rules.errors.RuleError` whose ``rule`` names the setting (``"bets.cast"``,
``"magic_types.brutale.modifiers[0].kind"``...).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Any, Literal, cast

import rules.fatigue.effects  # noqa: F401  (registers the fatigue effect types)
from rules.errors import RuleError
from rules.ruleset import (
    Ruleset,
    SettingSpec,
    fold_name,
    parse_ruleset,
    register_engine_settings,
)

ENGINE = "fatigue"
ACTIONS = ("cast", "dodge", "dodge_riposte")
Status = Literal["proposed", "applied", "off"]
_STATUS = ("proposed", "applied", "off")

FATIGUE_SETTINGS: tuple[SettingSpec, ...] = (
    SettingSpec("resolution", "str", ("initiative_defense",), help="1v1 turn shape"),
    SettingSpec("missing_bet", "str", ("lost",), help="a missing bet counts as lost"),
    SettingSpec("invalid_bet", "str", _STATUS, help="a betting action without a valid bet"),
    SettingSpec(
        "dodge_success", "str", ("own_won_and_cast_lost", "own_won"), help="dodge condition"
    ),
    SettingSpec(
        "riposte_vs_undodgeable",
        "str",
        ("own_bet_won", "same_condition", "never"),
        help="riposte against an undodgeable spell",
    ),
    SettingSpec("dodge_riposte_counts_as_dodge", "bool", help="for dodge_twice"),
    SettingSpec("dodge_twice_penalty", "int", minimum=0, help="PV lost for a second dodge"),
    SettingSpec("no_dodge_bars_riposte", "bool", help="no_dodge also bars dodge_riposte"),
    SettingSpec("effect_start", "str", ("next_turn",), help="when a spell's effect starts"),
    SettingSpec("effect_identity", "str", ("kind_and_source", "kind"), help="'the same effect'"),
    SettingSpec("heal_cap", "str", ("starting_points", "none"), help="highest PV after a heal"),
    SettingSpec("violation_penalty", "int", minimum=0, help="PV lost for any other violation"),
    SettingSpec("reused_spell_penalty", "int", minimum=0, help="PV lost for reused_spell"),
    SettingSpec("reuse_counts_dodged", "bool", help="a dodged spell did target"),
    SettingSpec("spell_above_level_penalty", "int", minimum=0, help="PV lost, spell too high"),
    SettingSpec("violations_to_lose", "int", minimum=1, help="violations that lose the duel"),
    SettingSpec(
        "both_lose_by_violations", "str", ("draw", "higher_remaining_wins"), help="both at 3"
    ),
    SettingSpec("short_post", "str", _STATUS, help="post under min_lines"),
    SettingSpec("late_edit", "str", _STATUS, help="edit after the next post"),
    SettingSpec("result_stated", "str", _STATUS, help="post states its own result"),
    SettingSpec("barred_action", "str", _STATUS, help="action forbidden by an effect"),
    SettingSpec("unknown_spell", "str", _STATUS, help="bold matching no spell"),
    SettingSpec("cast_before_start", "str", _STATUS, help="spell before the start"),
    SettingSpec("initiative_not_cast", "str", _STATUS, help="initiative post not a cast"),
    SettingSpec("no_action", "str", _STATUS, help="post with no action while one is legal"),
    SettingSpec("min_lines", "int", minimum=0, help="displayed lines a post needs"),
    SettingSpec("chars_per_line", "int", minimum=10, help="characters of a displayed line"),
    SettingSpec("timeout_1v1_hours", "int", minimum=1, help="delay after a 1v1 declaration"),
    SettingSpec("timeout_2v2_hours", "int", minimum=1, help="delay after a 2v2 declaration"),
    SettingSpec("missing_defense", "str", ("resolve_undefended",), help="defense timeout"),
    SettingSpec("relaunches_without_initiative", "int", minimum=0, help="relaunches, no post"),
    SettingSpec("abandoned_duel", "str", ("no_winner",), help="end after the last relaunch"),
    SettingSpec("owl_reminder_hours", "int", minimum=0, help="owl reminder before a deadline"),
    SettingSpec("double_ko", "str", ("higher_remaining_wins", "draw"), help="both at 0 PV"),
    SettingSpec("concession", "str", ("opponent_wins", "no_winner"), help="a duellist concedes"),
)
register_engine_settings(ENGINE, FATIGUE_SETTINGS)

ModifierKind = Literal[
    "damage_percent", "damage_flat", "damage_taken_flat", "duration_bonus", "heal_flat"
]
_MODIFIER_KINDS = (
    "damage_percent",
    "damage_flat",
    "damage_taken_flat",
    "duration_bonus",
    "heal_flat",
)
_OWN_TABLES = ("bets", "magic_types")


@dataclass(frozen=True)
class MagicModifier:
    """One modifier of a magic type (club's to set).

    Attributes:
        kind: ``damage_percent`` (% more PV dealt, rounded down), ``damage_flat`` (PV more
            dealt), ``damage_taken_flat`` (PV more taken; negative: less), ``duration_bonus``
            (turns more for lasting effects), ``heal_flat`` (PV more healed).
        family: the spell family it concerns (``SpellFamily``), ``"*"`` for every spell.
        value: percent, PV or turns according to ``kind``.
    """

    kind: ModifierKind
    family: str
    value: int

    def concerns(self, family: str | None) -> bool:
        """True when the modifier applies to a spell of ``family`` (None: no family)."""
        return self.family == "*" or (
            family is not None and _folded(family) == _folded(self.family)
        )


# Family names folded once (issue 17: ``concerns`` runs for every modifier of every landed
# spell); a ruleset has a handful of families.
_FOLDED: dict[str, str] = {}


def _folded(name: str) -> str:
    found = _FOLDED.get(name)
    if found is None:
        if len(_FOLDED) >= 4096:
            _FOLDED.clear()
        found = _FOLDED[name] = fold_name(name)
    return found


@dataclass(frozen=True)
class MagicType:
    """A magic type of seed 001 ("Brutale (agressive, féroce, brusque)"...).

    Attributes:
        key: the table key (``"brutale"``, ``"discrete"``), accent-free.
        label: as the seed writes it (``"Discrète"``).
        traits: the seed's words in brackets.
        owl: the French text sent by owl at registration (RULES.md: "they are sent to the
            duellist by owl when they register").
        modifiers: the type's modifiers, in file order.
    """

    key: str
    label: str
    traits: str
    owl: str
    modifiers: tuple[MagicModifier, ...]


@dataclass(frozen=True)
class FatigueSettings:
    """The fatigue engine's scalar settings, typed (see ``rules/data/fatigue.toml``)."""

    invalid_bet: Status
    dodge_success: Literal["own_won_and_cast_lost", "own_won"]
    riposte_vs_undodgeable: Literal["own_bet_won", "same_condition", "never"]
    dodge_riposte_counts_as_dodge: bool
    dodge_twice_penalty: int
    no_dodge_bars_riposte: bool
    effect_identity: Literal["kind_and_source", "kind"]
    heal_cap: Literal["starting_points", "none"]
    violation_penalty: int
    reused_spell_penalty: int
    reuse_counts_dodged: bool
    spell_above_level_penalty: int
    violations_to_lose: int
    both_lose_by_violations: Literal["draw", "higher_remaining_wins"]
    short_post: Status
    late_edit: Status
    result_stated: Status
    barred_action: Status
    unknown_spell: Status
    cast_before_start: Status
    initiative_not_cast: Status
    no_action: Status
    min_lines: int
    chars_per_line: int
    timeout_1v1_hours: int
    timeout_2v2_hours: int
    relaunches_without_initiative: int
    owl_reminder_hours: int
    double_ko: Literal["higher_remaining_wins", "draw"]
    concession: Literal["opponent_wins", "no_winner"]

    @classmethod
    def from_ruleset(cls, ruleset: Ruleset) -> FatigueSettings:
        """Read and re-check the settings. Raises RuleError(setting name) when one is bad."""
        if ruleset.engine != ENGINE:
            raise RuleError("engine", f"ruleset {ruleset.name!r} is not a fatigue ruleset")
        values = {s.name: s.check(ruleset.setting(s.name)) for s in FATIGUE_SETTINGS}
        kwargs = {f.name: values[f.name] for f in fields(cls)}
        return cls(**cast(dict[str, Any], kwargs))

    def status(self, rule: str) -> Status:
        """How the draft treats violation ``rule`` (``"applied"`` for a mechanical one)."""
        value = getattr(self, rule, "applied")
        return cast(Status, value) if value in _STATUS else "applied"

    def penalty(self, rule: str) -> int:
        """PV an applied violation ``rule`` costs (seed 001: "le fautif se verra retirer 20 PV")."""
        if rule == "reused_spell":
            return self.reused_spell_penalty
        if rule == "spell_above_level":
            return self.spell_above_level_penalty
        if rule == "dodge_twice":
            return self.dodge_twice_penalty
        return self.violation_penalty


@dataclass(frozen=True)
class FatigueRuleset(Ruleset):
    """A parsed fatigue ruleset file: the common :class:`Ruleset` plus the fatigue tables.

    Attributes:
        bets: action (``cast``, ``dodge``, ``dodge_riposte``) -> allowed bets (sorted faces).
        magic_types: key -> :class:`MagicType`.
        fatigue: the typed scalar settings.
    """

    bets: Mapping[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)
    magic_types: Mapping[str, MagicType] = field(default_factory=dict)
    fatigue: FatigueSettings | None = None

    @cached_property
    def _magic_type_cache(self) -> dict[str, MagicType]:
        """Name as asked -> magic type, filled by :meth:`magic_type` (accents are folded
        once per name, not on every lookup)."""
        return {}

    @property
    def cfg(self) -> FatigueSettings:
        """The typed settings (always set by :func:`load_fatigue_ruleset`)."""
        if self.fatigue is None:
            raise RuleError("fatigue", "settings missing: load with load_fatigue_ruleset")
        return self.fatigue

    def magic_type(self, name: str) -> MagicType:
        """The magic type named ``name`` (key or label, case and accents ignored).

        Raises RuleError(``"magic_types"``) when unknown.
        """
        found = self._magic_type_cache.get(name)
        if found is not None:
            return found
        wanted = fold_name(name)
        for key, mtype in self.magic_types.items():
            if wanted in (fold_name(key), fold_name(mtype.label)):
                self._magic_type_cache[name] = mtype
                return mtype
        raise RuleError(
            "magic_types", f"unknown magic type {name!r}; known: {sorted(self.magic_types)}"
        )


_HEADER = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_\-\"'.\s]+?)\s*\]\]?\s*(#.*)?$")


def _strip_own_tables(text: str) -> str:
    """The file's text without the ``[bets]`` and ``[magic_types.*]`` tables (header to the
    next header), for :func:`parse_ruleset`, which knows only the common keys."""
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        m = _HEADER.match(line)
        if m:
            root = m.group(1).split(".")[0].strip().strip("\"'")
            skipping = root in _OWN_TABLES
        if not skipping:
            out.append(line)
    return "".join(out)


def load_fatigue_ruleset(toml_text: str) -> FatigueRuleset:
    """Parse ``rules/data/fatigue.toml``'s text into a :class:`FatigueRuleset` (pure).

    Raises:
        RuleError: invalid TOML (``"toml"``), a missing or bad common setting or engine setting
            (its name), a bad ``[bets]`` entry (``"bets.<action>"``), a bad magic type
            (``"magic_types.<key>..."``), own tables not written as ``[bets]`` /
            ``[magic_types.<key>]`` headers (``"fatigue.tables"``).
    """
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError("toml", str(exc)) from exc
    stripped = _strip_own_tables(toml_text)
    try:
        rest = tomllib.loads(stripped)
    except tomllib.TOMLDecodeError as exc:  # pragma: no cover - headers delimit tables
        raise RuleError("fatigue.tables", str(exc)) from exc
    if rest != {k: v for k, v in data.items() if k not in _OWN_TABLES}:
        raise RuleError(
            "fatigue.tables", "write bets and magic types as [bets] / [magic_types.<key>] tables"
        )
    base = parse_ruleset(stripped)
    if base.engine != ENGINE:
        raise RuleError("engine", f"not a fatigue ruleset: engine {base.engine!r}")
    for key in _OWN_TABLES:
        if key not in data:
            raise RuleError(key, "missing table")
    kwargs = {f.name: getattr(base, f.name) for f in fields(Ruleset)}
    return FatigueRuleset(
        **kwargs,
        bets=_bets(data["bets"], base.dice_faces),
        magic_types=_magic_types(data["magic_types"]),
        fatigue=FatigueSettings.from_ruleset(base),
    )


def parse_any_ruleset(toml_text: str) -> Ruleset:
    """:func:`load_fatigue_ruleset` for a file whose ``engine`` is ``"fatigue"``, else
    :func:`rules.ruleset.parse_ruleset` (so the shell can load any shipped ruleset).

    Raises:
        RuleError: as the parser used.
    """
    try:
        engine = tomllib.loads(toml_text).get("engine")
    except tomllib.TOMLDecodeError as exc:
        raise RuleError("toml", str(exc)) from exc
    if engine == ENGINE:
        return load_fatigue_ruleset(toml_text)
    return parse_ruleset(toml_text)


def _bets(raw: object, faces: int) -> dict[str, tuple[tuple[int, ...], ...]]:
    if not isinstance(raw, dict):
        raise RuleError("bets", "must be a table action -> list of bets")
    out: dict[str, tuple[tuple[int, ...], ...]] = {}
    for action in ACTIONS:
        where = f"bets.{action}"
        value = raw.get(action)
        if not isinstance(value, list) or not value:
            raise RuleError(where, "must be a non-empty list of bets, e.g. [[1, 2, 3, 4]]")
        bets: list[tuple[int, ...]] = []
        for bet in value:
            if (
                not isinstance(bet, list)
                or not bet
                or not all(isinstance(f, int) and not isinstance(f, bool) for f in bet)
                or not all(1 <= f <= faces for f in bet)
                or len(set(bet)) != len(bet)
            ):
                raise RuleError(where, f"a bet is a list of distinct faces 1..{faces}, got {bet!r}")
            bets.append(tuple(sorted(bet)))
        out[action] = tuple(bets)
    for key in raw:
        if key not in ACTIONS:
            raise RuleError(f"bets.{key}", f"unknown action; known: {list(ACTIONS)}")
    return out


def _magic_types(raw: object) -> dict[str, MagicType]:
    if not isinstance(raw, dict) or not raw:
        raise RuleError("magic_types", "must be a table of [magic_types.<key>] tables")
    out: dict[str, MagicType] = {}
    for key, entry in raw.items():
        where = f"magic_types.{key}"
        if not isinstance(entry, dict):
            raise RuleError(where, "must be a table")
        for fld in entry:
            if fld not in ("label", "traits", "owl", "modifiers"):
                raise RuleError(f"{where}.{fld}", "unknown field")
        texts: dict[str, str] = {}
        for fld in ("label", "traits", "owl"):
            value = entry.get(fld)
            if not isinstance(value, str) or not value:
                raise RuleError(f"{where}.{fld}", "must be a non-empty string")
            texts[fld] = value
        mods_raw = entry.get("modifiers", [])
        if not isinstance(mods_raw, list):
            raise RuleError(f"{where}.modifiers", "must be a list of tables")
        mods: list[MagicModifier] = []
        for i, mod in enumerate(mods_raw):
            mw = f"{where}.modifiers[{i}]"
            if not isinstance(mod, dict):
                raise RuleError(mw, "must be a table {kind, family, value}")
            kind, family, value = mod.get("kind"), mod.get("family", "*"), mod.get("value")
            if kind not in _MODIFIER_KINDS:
                raise RuleError(f"{mw}.kind", f"must be one of {list(_MODIFIER_KINDS)}")
            if not isinstance(family, str) or not family:
                raise RuleError(f"{mw}.family", 'must be a family name or "*"')
            if isinstance(value, bool) or not isinstance(value, int):
                raise RuleError(f"{mw}.value", f"must be an integer, got {value!r}")
            for fld in mod:
                if fld not in ("kind", "family", "value"):
                    raise RuleError(f"{mw}.{fld}", "unknown field")
            mods.append(MagicModifier(cast(ModifierKind, kind), family, value))
        out[str(key)] = MagicType(
            key=str(key),
            label=texts["label"],
            traits=texts["traits"],
            owl=texts["owl"],
            modifiers=tuple(mods),
        )
    return out


__all__ = [
    "ENGINE",
    "FATIGUE_SETTINGS",
    "FatigueRuleset",
    "FatigueSettings",
    "MagicModifier",
    "MagicType",
    "load_fatigue_ruleset",
    "parse_any_ruleset",
]
