"""Environments of two-against-two duels: the club's data files (docs/environments.md).

Seed 001: "La salle en question se divise en 4 zones d'une vingtaine de mètre carré chacune
[...] L'environnement de la salle changera d'un duel à l'autre et sera peuplé de créatures."
"Vaincre une créature ou résoudre un mécanisme présent dans l'environnement fait remporter une
récompense aléatoire au duelliste (gallions, PV, PA, friandises ou points au sablier). Divers
objets utilisables au cours du duel peuvent également être trouvés dans l'environnement."

An environment is a TOML text (``rules/data/environments/<key>.toml``) read by
:func:`load_environment` into frozen values. Pure: no file access here.
"""

from __future__ import annotations

import tomllib
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rules.errors import RuleError

REWARD_KINDS = ("galleons", "pv", "pa", "sweets", "house_points")
ABILITY_KINDS = ("retaliate", "armour", "aura", "regenerate")
ITEM_EFFECTS = ("heal", "ward", "damage")
ZONES = 4


@lru_cache(maxsize=4096)
def fold(text: str) -> str:
    """Case-, accent- and space-insensitive form of ``text`` (for matching names; cached:
    the 2v2 engine folds the same names at every post)."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    return " ".join(plain.replace("'", " ").replace("’", " ").split())


@dataclass(frozen=True)
class RewardEntry:
    """One line of a reward table: ``amount`` of ``kind`` (see :data:`REWARD_KINDS`: galleons
    in G, pv in PV, pa, sweets, house_points), drawn with probability weight/total."""

    kind: str
    amount: int
    weight: int = 1


def pick_reward(table: Sequence[RewardEntry], roll: int) -> RewardEntry:
    """The entry of ``table`` a draw ``roll`` in ``0..total weight - 1`` selects (entries in
    file order, each covering ``weight`` values).

    Raises:
        RuleError: ``"duo.draw"`` for an empty table or a roll out of range.
    """
    total = sum(r.weight for r in table)
    if not 0 <= roll < total:
        raise RuleError("duo.draw", f"draw gave {roll} for {total}")
    for entry in table:
        if roll < entry.weight:
            return entry
        roll -= entry.weight
    raise RuleError("duo.draw", f"draw gave {roll} for {total}")  # unreachable: weights >= 1


@dataclass(frozen=True)
class Zone:
    """One of the four zones: ``owl`` is sent by owl to whoever enters it; ``details`` is what
    the referee may add when a duellist asks by owl."""

    key: str
    name: str
    owl: str
    details: str


@dataclass(frozen=True)
class Ability:
    """A creature's one unique ability. ``kind`` (:data:`ABILITY_KINDS`):

    - ``retaliate``: a duellist whose spell hits the creature without defeating it loses
      ``amount`` PV;
    - ``armour``: each spell hitting the creature deals ``amount`` PV less (never below 0);
    - ``aura``: at each end of turn every active duellist in its zone loses ``amount`` PV;
    - ``regenerate``: at each end of turn it recovers ``amount`` PV (never above its start).
    """

    name: str
    kind: str
    amount: int
    text: str


@dataclass(frozen=True)
class Creature:
    """A creature of the room: PV at the start, zone, ability, reward table."""

    key: str
    name: str
    zone: str
    pv: int
    ability: Ability
    rewards: tuple[RewardEntry, ...]


@dataclass(frozen=True)
class Mechanism:
    """A mechanism: ``solution`` says how it is solved (the referee judges an attempt)."""

    key: str
    name: str
    zone: str
    solution: str
    rewards: tuple[RewardEntry, ...]


@dataclass(frozen=True)
class Item:
    """An item lying in ``zone`` (``found``: where exactly), taken by targeting it.

    ``effect`` (:data:`ITEM_EFFECTS`): ``heal`` (the user recovers ``amount`` PV, capped at the
    starting PV), ``ward`` (spells landing on the user deal ``amount`` PV less for
    ``duration`` turns from the next turn), ``damage`` (the user's target loses ``amount`` PV).
    """

    key: str
    name: str
    zone: str
    found: str
    effect: str
    amount: int
    duration: int = 1
    text: str = ""


@dataclass(frozen=True)
class Environment:
    """A 2v2 room: description, exactly four zones, creatures, mechanisms, items."""

    key: str
    name: str
    description: str
    zones: tuple[Zone, ...]
    creatures: tuple[Creature, ...] = ()
    mechanisms: tuple[Mechanism, ...] = ()
    items: tuple[Item, ...] = ()

    def zone(self, key: str) -> Zone:
        """The zone ``key``. Raises RuleError (``"environment.zone"``) when unknown."""
        for z in self.zones:
            if z.key == key:
                return z
        raise RuleError("environment.zone", f"no zone {key!r}")

    def find_zone(self, text: str) -> Zone | None:
        """The zone a ``Déplacement :`` line names: its number (``"zone 2"``, ``"2"``), key or
        name (accents and case ignored; a name contained in the text counts), else None.
        Read once per environment and line (an environment is frozen; the 2v2 engine reads
        a move at every post)."""
        key = (id(self), text)
        found = _FOUND_ZONES.get(key)
        if found is not None and found[0] is self:
            return found[1]
        zone = self._find_zone(text)
        if len(_FOUND_ZONES) >= 4096:
            _FOUND_ZONES.clear()
        _FOUND_ZONES[key] = (self, zone)
        return zone

    def _find_zone(self, text: str) -> Zone | None:
        folded = fold(text)
        digits = [w for w in folded.replace("zone", " ").split() if w.isdigit()]
        if len(digits) == 1 and 1 <= int(digits[0]) <= len(self.zones):
            return self.zones[int(digits[0]) - 1]
        for z in self.zones:
            if folded in (fold(z.key), fold(z.name)):
                return z
        for z in sorted(self.zones, key=lambda z: -len(z.name)):
            if fold(z.name) in folded or (len(folded) >= 4 and folded in fold(z.name)):
                return z
        return None

    def zone_number(self, key: str) -> int:
        """1-based number of zone ``key``."""
        return [z.key for z in self.zones].index(key) + 1

    def creature(self, key: str) -> Creature:
        """The creature ``key``. Raises RuleError (``"environment.creature"``)."""
        for c in self.creatures:
            if c.key == key:
                return c
        raise RuleError("environment.creature", f"no creature {key!r}")

    def mechanism(self, key: str) -> Mechanism:
        """The mechanism ``key``. Raises RuleError (``"environment.mechanism"``)."""
        for m in self.mechanisms:
            if m.key == key:
                return m
        raise RuleError("environment.mechanism", f"no mechanism {key!r}")

    def item(self, key: str) -> Item:
        """The item ``key``. Raises RuleError (``"environment.item"``)."""
        for i in self.items:
            if i.key == key:
                return i
        raise RuleError("environment.item", f"no item {key!r}")


def _str(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RuleError(f"{where}.{key}", "a non-empty string is required")
    return value.strip()


def _int(
    data: Mapping[str, Any], key: str, where: str, *, low: int = 0, default: Any = None
) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RuleError(f"{where}.{key}", f"an integer >= {low} is required, got {value!r}")
    return value


def _rewards(raw: Any, where: str) -> tuple[RewardEntry, ...]:
    if not isinstance(raw, list) or not raw:
        raise RuleError(where, "a non-empty list of {kind, amount, weight} tables is required")
    out = []
    for i, r in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(r, dict):
            raise RuleError(at, "a table is required")
        kind = _str(r, "kind", at)
        if kind not in REWARD_KINDS:
            raise RuleError(f"{at}.kind", f"one of {list(REWARD_KINDS)}, got {kind!r}")
        out.append(
            RewardEntry(kind, _int(r, "amount", at, low=1), _int(r, "weight", at, low=1, default=1))
        )
    return tuple(out)


def _list(data: Mapping[str, Any], key: str) -> Sequence[Mapping[str, Any]]:
    raw = data.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise RuleError(key, "a list of tables ([[...]]) is required")
    return raw


def load_environment(toml_text: str) -> Environment:
    """Parse an environment file (format: docs/environments.md).

    Raises:
        RuleError: invalid TOML (``"toml"``), not exactly four zones (``"zones"``), a missing
            or bad field (``"<section>[i].<field>"``), a duplicate key (``"keys"``), a
            creature, mechanism or item in an unknown zone (``"<section>[i].zone"``), an
            unknown ability, reward kind or item effect.
    """
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError("toml", str(exc)) from exc
    zones_raw = _list(data, "zones")
    if len(zones_raw) != ZONES:
        raise RuleError("zones", f"exactly {ZONES} zones (seed 001), got {len(zones_raw)}")
    zones = tuple(
        Zone(
            _str(z, "key", f"zones[{i}]"),
            _str(z, "name", f"zones[{i}]"),
            _str(z, "owl", f"zones[{i}]"),
            _str(z, "details", f"zones[{i}]"),
        )
        for i, z in enumerate(zones_raw)
    )
    zone_keys = {z.key for z in zones}

    def zone_of(entry: Mapping[str, Any], where: str) -> str:
        key = _str(entry, "zone", where)
        if key not in zone_keys:
            raise RuleError(f"{where}.zone", f"unknown zone {key!r}")
        return key

    creatures = []
    for i, c in enumerate(_list(data, "creatures")):
        at = f"creatures[{i}]"
        ab = c.get("ability")
        if not isinstance(ab, dict):
            raise RuleError(f"{at}.ability", "a table {name, kind, amount, text} is required")
        kind = _str(ab, "kind", f"{at}.ability")
        if kind not in ABILITY_KINDS:
            raise RuleError(f"{at}.ability.kind", f"one of {list(ABILITY_KINDS)}, got {kind!r}")
        ability = Ability(
            _str(ab, "name", f"{at}.ability"),
            kind,
            _int(ab, "amount", f"{at}.ability", low=1),
            _str(ab, "text", f"{at}.ability"),
        )
        creatures.append(
            Creature(
                _str(c, "key", at),
                _str(c, "name", at),
                zone_of(c, at),
                _int(c, "pv", at, low=1),
                ability,
                _rewards(c.get("rewards"), f"{at}.rewards"),
            )
        )
    mechanisms = [
        Mechanism(
            _str(m, "key", f"mechanisms[{i}]"),
            _str(m, "name", f"mechanisms[{i}]"),
            zone_of(m, f"mechanisms[{i}]"),
            _str(m, "solution", f"mechanisms[{i}]"),
            _rewards(m.get("rewards"), f"mechanisms[{i}].rewards"),
        )
        for i, m in enumerate(_list(data, "mechanisms"))
    ]
    items = []
    for i, it in enumerate(_list(data, "items")):
        at = f"items[{i}]"
        effect = _str(it, "effect", at)
        if effect not in ITEM_EFFECTS:
            raise RuleError(f"{at}.effect", f"one of {list(ITEM_EFFECTS)}, got {effect!r}")
        items.append(
            Item(
                _str(it, "key", at),
                _str(it, "name", at),
                zone_of(it, at),
                _str(it, "found", at),
                effect,
                _int(it, "amount", at, low=1),
                _int(it, "duration", at, low=1, default=1),
                str(it.get("text", "")),
            )
        )
    keys = [z.key for z in zones] + [c.key for c in creatures]
    keys += [m.key for m in mechanisms] + [i.key for i in items]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise RuleError("keys", f"duplicate keys {dupes}")
    return Environment(
        key=_str(data, "key", "environment"),
        name=_str(data, "name", "environment"),
        description=_str(data, "description", "environment"),
        zones=zones,
        creatures=tuple(creatures),
        mechanisms=tuple(mechanisms),
        items=tuple(items),
    )


_FOUND_ZONES: dict[tuple[int, str], tuple[Environment, Zone | None]] = {}
"""(id(environment), ``Déplacement :`` line) -> (environment, the zone
:meth:`Environment.find_zone` reads in it)."""

__all__ = [
    "pick_reward",
    "ABILITY_KINDS",
    "ITEM_EFFECTS",
    "REWARD_KINDS",
    "Ability",
    "Creature",
    "Environment",
    "Item",
    "Mechanism",
    "RewardEntry",
    "Zone",
    "fold",
    "load_environment",
]
