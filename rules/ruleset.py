"""Rulesets as data: a TOML file (``rules/data/<name>.toml``) read into a frozen :class:`Ruleset`.

File shape (see ``rules/data/classic.toml``, whose comments cite RULES.md and the seed)::

    name = "classic"            # the ruleset's name, kept in DuelState.ruleset
    engine = "classic"          # the resolver that applies it (registered settings, below)
    unit = "PD"                 # the life total's unit ("PD" classic, "PV" fatigue)
    duellists = [2]             # allowed numbers of duellists in one duel
    dice_name = "Duel"          # the forum's dice name
    dice_per_post = 2           # dice values per post
    dice_faces = 6              # faces of each die
    fuzzy_threshold = 85        # spell-name matching score (0..100)
    fuzzy_scorer = "WRatio"     # rapidfuzz scorer used by the action parser
    <engine settings>           # each registered by the engine (register_engine_settings)
    [starting_points]           # year -> points; a key "N+" covers N and above
    [known_levels]              # year -> highest spell level known, or "all"
    [[spells]]                  # name, aliases, level, source, effects = [{type=...}, ...]

The shell reads the file (:func:`ruleset_path` only builds its path) and passes its text to
:func:`parse_ruleset`, which is pure.

Errors: :class:`rules.errors.RuleError` whose ``rule`` is the setting's name (e.g.
``"tie_rule"``, ``"spells[2].effects[0].type"``).
"""

from __future__ import annotations

import pathlib
import tomllib
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal, TypeVar

from rules.effects import Effect, effect_from_data
from rules.errors import RuleError

SettingValue = int | bool | str
T = TypeVar("T")
DATA_DIR = pathlib.Path(__file__).resolve().parent / "data"


def ruleset_path(name: str) -> pathlib.Path:
    """Path of the ruleset file ``rules/data/<name>.toml`` (not read here: that is I/O).

    Raises:
        RuleError: ``name`` is not a plain file stem (rule ``"ruleset.name"``).
    """
    if not name or not all(c.isalnum() or c in "-_" for c in name):
        raise RuleError("ruleset.name", f"not a plain ruleset name: {name!r}")
    return DATA_DIR / f"{name}.toml"


def fold_name(text: str) -> str:
    """Accent-folded, case-folded text with single spaces: ``"Sortilège  de FEU"`` ->
    ``"sortilege de feu"``. RULES.md: spell names are matched "ignoring case and accents"."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().replace("’", "'").split())


@dataclass(frozen=True)
class Spell:
    """One spellbook entry.

    Attributes:
        name: canonical name (as the seed writes it).
        aliases: other accepted spellings (the action parser matches them too).
        level: spell level (1..8), the club's to set for classic.
        effects: the spell's effects, in the file's order.
        source: the seed line defining the spell (quoted in the rule trail).
        max_casts: how many times one duellist may cast it in one duel, or None (no limit).
            Seed 001: "Un duelliste peut réutiliser un sort autant de fois qu'il le désire au
            cours d'un duel (sauf contre-indication)": the contre-indication *limits* reuse;
            file key ``max_casts``, optional (an integer >= 1). A cast beyond it is
            ``cast_limit`` (fatigue). It never lifts the ban on casting a spell again at the
            same opponent (« formellement interdit »): only a named house rule does
            (:class:`HouseRule`, ``recast_same_opponent``).
    """

    name: str
    aliases: tuple[str, ...]
    level: int
    effects: tuple[Effect, ...]
    source: str
    max_casts: int | None = None

    @cached_property
    def attacks(self) -> bool:
        """False when an effect stops the caster from attacking (shield, counter_spell)."""
        return not any(e.blocks_caster_attack for e in self.effects)


@dataclass(frozen=True)
class HouseRule:
    """A club's variant of a seed rule, declared by name in the ruleset file and shown to the
    players (the guide post, the opening declaration), never a silent switch.

    File shape::

        [house_rules.recast_same_opponent]
        name = "Relance libre"
        description = "Un sort peut être relancé sur un adversaire qu'il a déjà touché."

    Attributes:
        key: the variant (one of :data:`HOUSE_RULES`).
        name: the club's name for it (French, shown to the players).
        description: what it changes (French, shown to the players).
    """

    key: str
    name: str
    description: str


# The variants a club may declare, and the seed sentence each one departs from.
HOUSE_RULES: dict[str, str] = {
    "recast_same_opponent": (
        "seed 001: « à partir du moment où son adversaire est affecté ou directement ciblé par "
        "un sort, il est formellement interdit au lanceur de le réutiliser une seconde fois sur "
        "son adversaire » (the house rule lifts this ban: no reused_spell)"
    ),
}


@dataclass(frozen=True)
class SettingSpec:
    """An engine-specific setting a ruleset file must carry.

    Attributes:
        name: the TOML key.
        kind: ``"int"``, ``"bool"`` or ``"str"``.
        choices: allowed values of a ``str`` setting (empty: any).
        minimum: lowest allowed value of an ``int`` setting, or None.
        help: one line saying what it does (documentation).
    """

    name: str
    kind: Literal["int", "bool", "str"]
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    help: str = ""

    def check(self, value: object) -> SettingValue:
        """Return ``value`` when it fits this spec; raise RuleError(``name``) otherwise."""
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            raise RuleError(self.name, f"must be true or false, got {value!r}")
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise RuleError(self.name, f"must be an integer, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise RuleError(self.name, f"must be >= {self.minimum}, got {value}")
            return value
        if not isinstance(value, str):
            raise RuleError(self.name, f"must be a string, got {value!r}")
        if self.choices and value not in self.choices:
            raise RuleError(self.name, f"must be one of {list(self.choices)}, got {value!r}")
        return value


ENGINE_SETTINGS: dict[str, tuple[SettingSpec, ...]] = {}


def register_engine_settings(engine: str, specs: Sequence[SettingSpec]) -> None:
    """Declare the settings an engine reads from a ruleset file (called by the engine module).

    A second registration under the same name replaces the first.
    """
    ENGINE_SETTINGS[engine] = tuple(specs)


@dataclass(frozen=True)
class Ruleset:
    """A parsed ruleset file.

    Attributes:
        name: the ruleset's name (``DuelState.ruleset``).
        engine: the engine that resolves turns under it (``"classic"``).
        unit: the life total's unit (``"PD"`` classic, ``"PV"`` fatigue).
        duellists: allowed numbers of duellists per duel.
        dice_name, dice_per_post, dice_faces: the dice (classic: "Duel", 2 values, d6).
        fuzzy_threshold, fuzzy_scorer: spell-name matching for the action parser.
        starting_points: year key -> starting points (``"7+"`` covers 7 and above).
        known_levels: year key -> highest known spell level, None = all levels.
        spells: the spellbook, in file order.
        settings: engine-specific settings by name (validated against the engine's specs).
        house_rules: the club's declared variants (:class:`HouseRule`) by key; empty: the
            seed's rules as written.
    """

    name: str
    engine: str
    unit: str
    duellists: tuple[int, ...]
    dice_name: str
    dice_per_post: int
    dice_faces: int
    fuzzy_threshold: int
    fuzzy_scorer: str
    starting_points: Mapping[str, int]
    known_levels: Mapping[str, int | None]
    spells: tuple[Spell, ...]
    settings: Mapping[str, SettingValue] = field(default_factory=dict)
    house_rules: Mapping[str, HouseRule] = field(default_factory=dict)

    def house_rule(self, key: str) -> bool:
        """True when the club declared the house rule ``key`` (:data:`HOUSE_RULES`)."""
        return key in self.house_rules

    @cached_property
    def has_cast_limits(self) -> bool:
        """True when some spell of the book has a ``max_casts``."""
        return any(s.max_casts is not None for s in self.spells)

    @cached_property
    def _spell_index(self) -> dict[str, Spell]:
        """Canonical name -> spell, the first of a name in file order (built once)."""
        index: dict[str, Spell] = {}
        for spell in self.spells:
            index.setdefault(spell.name, spell)
        return index

    def spell(self, name: str) -> Spell:
        """The spell with canonical ``name``. Raises RuleError(``"spells"``) when unknown."""
        spell = self._spell_index.get(name)
        if spell is None:
            raise RuleError("spells", f"no spell named {name!r} in ruleset {self.name!r}")
        return spell

    def has_spell(self, name: str) -> bool:
        """True when ``name`` is a canonical spell name of this ruleset."""
        return name in self._spell_index

    def spellbook_names(self) -> dict[str, tuple[str, ...]]:
        """Canonical name -> accepted aliases, for the action parser's matching."""
        return {s.name: s.aliases for s in self.spells}

    def starting_points_for(self, year: str) -> int:
        """Starting points of a duellist of ``year`` (``"3"``, ``"7"``, ``"7+"``, ``"adult"``).

        Raises RuleError(``"starting_points"``) when no key covers the year.
        """
        return _by_year(self.starting_points, year, "starting_points")

    def max_level_for(self, year: str) -> int | None:
        """Highest spell level known in ``year``; None when all levels are known.

        Raises RuleError(``"known_levels"``) when no key covers the year.
        """
        return _by_year(self.known_levels, year, "known_levels")

    def setting(self, name: str) -> SettingValue:
        """An engine-specific setting. Raises RuleError(``name``) when absent."""
        if name not in self.settings:
            raise RuleError(name, f"missing from ruleset {self.name!r}")
        return self.settings[name]


def _by_year(table: Mapping[str, T], year: str, setting: str) -> T:
    if year in table:
        return table[year]
    if year.isdigit():
        best: tuple[int, T] | None = None
        for key, value in table.items():
            if key.endswith("+") and key[:-1].isdigit():
                floor = int(key[:-1])
                if int(year) >= floor and (best is None or floor > best[0]):
                    best = (floor, value)
        if best is not None:
            return best[1]
    raise RuleError(setting, f"no entry for year {year!r} (keys: {sorted(table)})")


_COMMON_KEYS = (
    "name",
    "engine",
    "unit",
    "duellists",
    "dice_name",
    "dice_per_post",
    "dice_faces",
    "fuzzy_threshold",
    "fuzzy_scorer",
    "starting_points",
    "known_levels",
    "spells",
)


def parse_ruleset(toml_text: str) -> Ruleset:
    """Parse a ruleset file's text into a :class:`Ruleset` (pure: no file access).

    Checks every common setting, every setting the engine registered, each spell and each
    effect (through the effect registry), and that no alias is shared by two spells.

    Raises:
        RuleError: invalid TOML (rule ``"toml"``), a missing, unknown or ill-typed setting,
            an unknown engine, an unknown effect type; ``rule`` names the setting.
    """
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError("toml", str(exc)) from exc
    for key in _COMMON_KEYS:
        if key not in data:
            raise RuleError(key, "missing setting")
    engine = _str(data, "engine")
    specs = ENGINE_SETTINGS.get(engine)
    if specs is None:
        raise RuleError("engine", f"unknown engine {engine!r}; known: {sorted(ENGINE_SETTINGS)}")
    settings: dict[str, SettingValue] = {}
    for spec in specs:
        if spec.name not in data:
            raise RuleError(spec.name, f"missing setting (engine {engine!r})")
        settings[spec.name] = spec.check(data[spec.name])
    allowed = set(_COMMON_KEYS) | {s.name for s in specs} | {"house_rules"}
    for key in data:
        if key not in allowed:
            raise RuleError(key, f"unknown setting for engine {engine!r}")
    duellists = data["duellists"]
    if (
        not isinstance(duellists, list)
        or not duellists
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 2 for n in duellists)
    ):
        raise RuleError("duellists", "must be a list of integers >= 2")
    ruleset = Ruleset(
        name=_str(data, "name"),
        engine=engine,
        unit=_str(data, "unit"),
        duellists=tuple(duellists),
        dice_name=_str(data, "dice_name"),
        dice_per_post=_int(data, "dice_per_post", 1),
        dice_faces=_int(data, "dice_faces", 2),
        fuzzy_threshold=_int(data, "fuzzy_threshold", 0),
        fuzzy_scorer=_str(data, "fuzzy_scorer"),
        starting_points=_starting_points(data["starting_points"]),
        known_levels=_known_levels(data["known_levels"]),
        spells=_spells(data["spells"]),
        settings=settings,
        house_rules=_house_rules(data.get("house_rules", {})),
    )
    if ruleset.fuzzy_threshold > 100:
        raise RuleError("fuzzy_threshold", "must be <= 100")
    return ruleset


def _str(data: Mapping[str, object], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise RuleError(key, f"must be a non-empty string, got {value!r}")
    return value


def _int(data: Mapping[str, object], key: str, minimum: int) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise RuleError(key, f"must be an integer >= {minimum}, got {value!r}")
    return value


def _starting_points(raw: object) -> dict[str, int]:
    if not isinstance(raw, dict) or not raw:
        raise RuleError("starting_points", "must be a table year -> points")
    return {str(k): _points(str(k), v) for k, v in raw.items()}


def _points(year: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RuleError(f"starting_points.{year}", f"must be an integer >= 1, got {value!r}")
    return value


def _known_levels(raw: object) -> dict[str, int | None]:
    if not isinstance(raw, dict) or not raw:
        raise RuleError("known_levels", 'must be a table year -> level or "all"')
    out: dict[str, int | None] = {}
    for year, value in raw.items():
        if value == "all":
            out[year] = None
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[year] = value
        else:
            raise RuleError(f"known_levels.{year}", f'must be a level >= 0 or "all", got {value!r}')
    return out


def _house_rules(raw: object) -> dict[str, HouseRule]:
    if not isinstance(raw, dict):
        raise RuleError("house_rules", "must be a table of [house_rules.<key>] tables")
    out: dict[str, HouseRule] = {}
    for key, entry in raw.items():
        where = f"house_rules.{key}"
        if key not in HOUSE_RULES:
            raise RuleError(where, f"unknown house rule; known: {sorted(HOUSE_RULES)}")
        if not isinstance(entry, dict):
            raise RuleError(
                where,
                "must be a table with a name and a description the players are shown, e.g. "
                f'[{where}] name = "..." description = "..."',
            )
        for field_name in entry:
            if field_name not in ("name", "description"):
                raise RuleError(f"{where}.{field_name}", "unknown field (name, description)")
        out[key] = HouseRule(key, _str(entry, "name"), _str(entry, "description"))
    return out


_SPELL_KEYS = ("name", "aliases", "level", "effects", "source")
_OPTIONAL_SPELL_KEYS = ("max_casts",)
# Spell fields that were removed, with what to write instead.
_REMOVED_SPELL_KEYS = {
    "reusable": (
        "removed: `reusable = true` lifted the ban on casting a spell again at the same "
        "opponent, which seed 001 forbids « formellement »; « sauf contre-indication » limits "
        "reuse instead. Delete the line; to limit a spell to N casts per duel write "
        "`max_casts = N`; a club that wants the same-opponent recast allowed declares it, "
        "named and shown to the players: [house_rules.recast_same_opponent] name = \"...\" "
        'description = "..." (docs/rules-readings.md)'
    ),
}


def _spells(raw: object) -> tuple[Spell, ...]:
    if not isinstance(raw, list) or not raw:
        raise RuleError("spells", "must be a non-empty array of tables [[spells]]")
    spells: list[Spell] = []
    owner: dict[str, str] = {}
    for i, entry in enumerate(raw):
        where = f"spells[{i}]"
        if not isinstance(entry, dict):
            raise RuleError(where, "must be a table")
        for key in entry:
            if key in _REMOVED_SPELL_KEYS:
                raise RuleError(f"{where}.{key}", _REMOVED_SPELL_KEYS[key])
            if key not in _SPELL_KEYS and key not in _OPTIONAL_SPELL_KEYS:
                raise RuleError(f"{where}.{key}", "unknown spell field")
        for key in _SPELL_KEYS:
            if key not in entry:
                raise RuleError(f"{where}.{key}", "missing")
        name = _str(entry, "name")
        aliases = entry["aliases"]
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
            raise RuleError(f"{where}.aliases", "must be a list of non-empty strings")
        effects_raw = entry["effects"]
        if not isinstance(effects_raw, list):
            raise RuleError(f"{where}.effects", "must be an array of tables")
        effects: list[Effect] = []
        for j, eff in enumerate(effects_raw):
            if not isinstance(eff, dict):
                raise RuleError(f"{where}.effects[{j}]", "must be a table")
            effect = effect_from_data(eff, f"{where}.effects[{j}]")
            if getattr(effect, "applies", None) == "target" and getattr(effect, "when", "") == (
                "same_turn"
            ):
                raise RuleError(
                    f"{where}.effects[{j}].when",
                    "a target's effect gated on a landed attack cannot bind the same turn",
                )
            effects.append(effect)
        max_casts = entry.get("max_casts")
        if max_casts is not None and (
            isinstance(max_casts, bool) or not isinstance(max_casts, int) or max_casts < 1
        ):
            raise RuleError(f"{where}.max_casts", f"must be an integer >= 1, got {max_casts!r}")
        spell = Spell(
            name=name,
            aliases=tuple(aliases),
            level=_int(entry, "level", 0),
            effects=tuple(effects),
            source=_str(entry, "source"),
            max_casts=max_casts,
        )
        for label in (name, *spell.aliases):
            key = fold_name(label)
            if key in owner and owner[key] != name:
                raise RuleError(
                    f"{where}.aliases", f"{label!r} is ambiguous: also names {owner[key]!r}"
                )
            owner[key] = name
        spells.append(spell)
    return tuple(spells)


__all__ = [
    "DATA_DIR",
    "ENGINE_SETTINGS",
    "HOUSE_RULES",
    "HouseRule",
    "Ruleset",
    "SettingSpec",
    "SettingValue",
    "Spell",
    "fold_name",
    "parse_ruleset",
    "register_engine_settings",
    "ruleset_path",
]
