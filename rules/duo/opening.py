"""Opening a 2v2 duel (placement, start), who posts next, and reading a ``Cible :`` line.

Split out of ``rules.duo.engine`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rules.duo.environment import Environment, fold
from rules.duo.outcome import Draw
from rules.duo.settings import DuoSettings
from rules.duo.state import DuoState
from rules.errors import RuleError
from rules.fatigue.settings import FatigueRuleset
from rules.model import DuellistState, DuelState


def place_duellists(
    names: Sequence[str], env: Environment, draw: Draw
) -> tuple[tuple[str, str], ...]:
    """Random starting zones, each duellist drawn independently and uniformly among the four
    zones (RULES.md: "placed at random [D: uniform, teammates may share a zone]").

    ``draw(f"place:{name}", 4)`` gives the zone index (0..3) of each duellist.
    """
    out = []
    for name in names:
        index = draw(f"place:{name}", len(env.zones))
        if not 0 <= index < len(env.zones):
            raise RuleError("duo.draw", f"draw gave {index} for {len(env.zones)} zones")
        out.append((name, env.zones[index].key))
    return tuple(out)


def new_duo_duel(
    ruleset: FatigueRuleset,
    duos: Sequence[Sequence[tuple[str, str, Sequence[str]]]],
    env: Environment,
    draw: Draw,
    stakes: str | None = None,
) -> DuoState:
    """A 2v2 duel not yet started: four duellists at the starting PV of their year, placed at
    random, the environment's creatures at full PV and its items in place.

    Args:
        duos: two duos of two ``(name, year, magic types)``.
        draw: see the module doc (placement labels ``place:<name>``).

    Raises:
        RuleError: not two duos of two distinct names (``"duo.duos"``), a bad year or magic
            types (as :func:`rules.fatigue.new_fatigue_duel`).
    """
    flat = [d for duo in duos for d in duo]
    if len(duos) != 2 or any(len(d) != 2 for d in duos) or len({d[0] for d in flat}) != 4:
        raise RuleError("duo.duos", "two duos of two different duellists")
    members = []
    for name, year, types in flat:
        keys = tuple(dict.fromkeys(ruleset.magic_type(t).key for t in types))
        if not 1 <= len(keys) <= 2:
            raise RuleError("magic_types", f"{name}: one or two magic types, got {list(types)}")
        members.append(
            DuellistState(name, year, ruleset.starting_points_for(year), magic_types=keys)
        )
    duel = DuelState(ruleset=ruleset.name, turn=0, started=False, duellists=tuple(members),
                     stakes=stakes)  # fmt: skip
    names = [m.name for m in members]
    return DuoState(
        duel=duel,
        environment=env.key,
        duos=((names[0], names[1]), (names[2], names[3])),
        positions=place_duellists(names, env, draw),
        creatures=tuple((c.key, c.pv) for c in env.creatures),
        items_left=tuple(i.key for i in env.items),
    )


def start_duo(state: DuoState) -> DuoState:
    """The opening declaration is out: the duel starts. Raises RuleError if already started."""
    if state.duel.started:
        raise RuleError("start", "the duel has already started")
    return replace(state, duel=replace(state.duel, started=True))


def posts_per_declaration(state: DuoState, settings: DuoSettings) -> int:
    """1, or ``posts_per_declaration_together`` (2) when all four share a zone (seed 001:
    "Si les quatre duellistes se retrouvent dans la même zone, l'arbitre ne postera
    d'intervention que tous les deux postes")."""
    return settings.posts_per_declaration_together if state.all_together() else 1


def expected_posters(state: DuoState) -> tuple[str, ...]:
    """Active duellists who have not posted yet this turn."""
    return tuple(n for n in state.active_names() if n not in state.posted)


# --- Targets -------------------------------------------------------------------------------------

_SELF = ("moi", "moi meme", "lui meme", "elle meme", "soi", "soi meme", "self")


@dataclass(frozen=True)
class Target:
    """What a ``Cible :`` line names: ``kind`` in ``duellist``, ``self``, ``creature``,
    ``mechanism``, ``item``, ``scenery``, ``none``, ``several`` (two or more named: ``key``
    lists them, comma-separated); ``key`` the name or key."""

    kind: str
    key: str | None = None


_SEPARATORS = re.compile(r"\s*(?:,|;|/|&|\+|\bet\b|\band\b)\s*")


def resolve_target(text: str | None, caster: str, state: DuoState, env: Environment) -> Target:
    """Read a ``Cible :`` line: a duellist (full name or first name), oneself, a creature, a
    mechanism or an item of the environment, else the scenery (RULES.md: "cast on any
    target (opponent, teammate, self, creature, scenery)"). None gives ``Target("none")``.

    A line naming two or more of them (« Cible : Jules Meyer et Irène Vasseur », or a comma,
    « & », « / ») gives ``Target("several", "<name>, <name>")`` in the order written: one
    spell has one target, so the engine resolves nothing for it and proposes
    ``missing_target`` to the referee (issue 26, D2; docs/rules-readings.md)."""
    if text is None or not text.strip():
        return Target("none")
    names = state.names()
    key = (text, caster, names, id(env))
    found = _TARGETS.get(key)
    if found is not None and found[0] is env:
        return found[1]
    target = _read_target(text, caster, names, env)
    if len(_TARGETS) >= 4096:
        _TARGETS.clear()
    _TARGETS[key] = (env, target)
    return target


_TARGETS: dict[tuple[str, str, tuple[str, ...], int], tuple[Environment, Target]] = {}
"""(line, caster, the duel's names, id(environment)) -> (environment, its :class:`Target`):
a line is read once per duel (an environment is frozen; issue 26, the same lines at every
post of a simulated duel)."""


def _read_target(text: str, caster: str, names: tuple[str, ...], env: Environment) -> Target:
    """:func:`resolve_target` of a non-blank line, the duel's duellists ``names``."""
    pieces = [p for p in _SEPARATORS.split(fold(text)) if p]
    if len(pieces) > 1:
        found: list[str] = []
        for piece in pieces:
            one = _resolve_one(piece, caster, names, env)
            label = caster if one.kind == "self" else one.key
            if one.kind not in ("scenery", "none") and label is not None and label not in found:
                found.append(label)
        if len(found) > 1:
            return Target("several", ", ".join(found))
    return _resolve_one(fold(text), caster, names, env, raw=text.strip())


def _resolve_one(
    t: str, caster: str, names: tuple[str, ...], env: Environment, raw: str | None = None
) -> Target:
    """One folded name -> its :class:`Target` (see :func:`resolve_target`)."""
    if t in _SELF or t == fold(caster):
        return Target("self")
    for name in names:
        full = fold(name)
        if t == full or t == full.split()[0] or full in t:
            return Target("self") if name == caster else Target("duellist", name)
    for kind, entries in (
        ("creature", env.creatures),
        ("mechanism", env.mechanisms),
        ("item", env.items),
    ):
        for e in entries:
            names = (fold(e.name), fold(e.key))
            if t in names or any(n in t for n in names) or (len(t) >= 4 and t in names[0]):
                return Target(kind, e.key)
    return Target("scenery", raw if raw is not None else t)
