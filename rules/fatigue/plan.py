"""The plan of a fatigue ruleset for the fast path (:mod:`rules.fatigue.fast`): what a step
reads of the ruleset, read once per ruleset object (issue 26, "the per-ruleset plan is
shared"): spells with their base damage, family, dodgeability and lasting effects; the
statuses and penalties of the violations the club reports; the settings as plain attributes;
allowed bets, levels and starting PV by year; magic-type modifiers by (types, spell). Also
the small helpers that build frozen results without their ``__init__``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import TypeVar

from rules.effects import Effect, NoAttack
from rules.fatigue.context import _JUDGED, _STATUS_SETTING, _facts_of
from rules.fatigue.effects import DamageOverTime, Heal, NoDodge, Ward
from rules.fatigue.settings import FatigueRuleset
from rules.model import AttackResult, Modifier, TurnOutcome, Violation
from rules.ruleset import Spell

_new = object.__new__
T = TypeVar("T")
V = TypeVar("V")
E = TypeVar("E", bound=Effect)
_RULES = ("no_action", "missing_spell", "initiative_not_cast", "invalid_bet", "barred_action",
          "dodge_twice", "unknown_spell", "spell_above_level", "reused_spell")  # fmt: skip
_ATTACK = tuple(f.name for f in fields(AttackResult))
_VIOLATION = tuple(f.name for f in fields(Violation))
_OUTCOME = tuple(f.name for f in fields(TurnOutcome))


def _build(cls: type[T], names: tuple[str, ...], *values: object) -> T:
    """An instance of the frozen dataclass ``cls`` with its fields ``names`` set to
    ``values`` in order, without the ``__init__`` round trip (the values are known valid)."""
    obj = _new(cls)
    obj.__dict__.update(zip(names, values, strict=True))
    return obj


@dataclass(frozen=True)
class _SpellPlan:
    """One spell read once (internal). ``carried``: (spellbook effect, True when the target
    bears it) for each lasting effect; ``heals``: each ``heal`` effect's amount."""

    spell: Spell
    name: str
    base: int
    family: str | None
    undodgeable: bool
    targets: bool
    barrable: bool
    heals: tuple[int, ...]
    carried: tuple[tuple[Effect, bool], ...]


# (caster's modifiers, PV they add, heal bonus, duration bonus, target's PV taken, target's
# modifiers) of a spell and the magic types of its caster or of its target.
_Mods = tuple[tuple[Modifier, ...], int, int, int, int, tuple[Modifier, ...]]


class _Plan:
    """A fatigue ruleset read once (internal). ``rules``: violation code -> (status,
    penalty, proposal) when the club reports it; ``tops``, ``caps``: highest level and
    starting PV by year; ``mods``: :func:`_mods` by (magic types, spell); ``bets_read``:
    (action, bet as posted) -> the allowed bet it is, or None; the settings the steps read,
    as plain attributes."""

    __slots__ = ("rs", "cfg", "name", "spells", "rules", "bets", "bets_read", "tops", "caps",
                 "mods", "faces", "per_post", "by_kind", "own_won", "reuse_counts_dodged",
                 "riposte_counts", "no_dodge_bars_riposte", "riposte_vs_undodgeable",
                 "heal_cap_start", "to_lose", "both_lose_draw", "double_ko_draw",
                 "last_initiative", "trusted_call", "made", "next_of")  # fmt: skip

    def __init__(self, rs: FatigueRuleset, spells: Mapping[str, _SpellPlan],
                 rules: Mapping[str, tuple[str, int, str | None]]) -> None:  # fmt: skip
        cfg = rs.cfg
        self.rs, self.cfg, self.name = rs, cfg, rs.name
        self.spells, self.rules, self.bets = spells, rules, rs.bets
        self.bets_read: dict[tuple[str, object], tuple[int, ...] | None] = {}
        self.tops: dict[str, int | None] = {}
        self.caps: dict[str, int] = {}
        self.mods: dict[tuple[tuple[str, ...], str], _Mods] = {}
        self.faces, self.per_post = rs.dice_faces, rs.dice_per_post
        self.by_kind = cfg.effect_identity != "kind_and_source"
        self.own_won = cfg.dodge_success == "own_won"
        self.reuse_counts_dodged = cfg.reuse_counts_dodged
        self.riposte_counts = cfg.dodge_riposte_counts_as_dodge
        self.no_dodge_bars_riposte = cfg.no_dodge_bars_riposte
        self.riposte_vs_undodgeable = cfg.riposte_vs_undodgeable
        self.heal_cap_start = cfg.heal_cap == "starting_points"
        self.to_lose = cfg.violations_to_lose
        self.both_lose_draw = cfg.both_lose_by_violations == "draw"
        self.double_ko_draw = cfg.double_ko == "draw"
        # the last initiative read: (kept post, caster's effects, last action, spells used,
        # year, opponent, read); its defense step reuses the read when nothing it depends on
        # changed (the very objects: a waiting post is read again with the same result)
        self.last_initiative: tuple[object, ...] | None = None
        # the bookkeeping of every trusted step (legal play records no violation, so its
        # list stays empty and one object serves them all)
        self.trusted_call = _Call(self)
        # the lasting effects a spell leaves: (spell, duration bonus, caster) -> (effect,
        # True when the target bears it) for each, and a running effect's id -> (it, the
        # same one turn later): frozen values, built once and shared by every duel
        self.made: dict[tuple[str, int, str], tuple[tuple[Effect, bool], ...]] = {}
        self.next_of: dict[int, tuple[Effect, Effect]] = {}


class _Call:
    """The bookkeeping of one fast step (internal): violations found and penalties (PV by
    duellist, only once one is applied)."""

    __slots__ = ("plan", "violations", "penalties")

    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.violations: list[Violation] = []
        self.penalties: dict[str, int] | None = None

    def violation(self, name: str, post_id: int, rule: str, evidence: str) -> None:
        found = self.plan.rules.get(rule)
        if found is None:
            return
        status, penalty, proposal = found
        self.violations.append(
            _build(Violation, _VIOLATION, name, rule, post_id, evidence, penalty, status, proposal)
        )
        if status == "applied":
            if self.penalties is None:
                self.penalties = {}
            self.penalties[name] = self.penalties.get(name, 0) + penalty

    def penalty(self, name: str) -> int:
        """PV of the violations applied to ``name`` in this step."""
        return 0 if self.penalties is None else self.penalties.get(name, 0)


def _spell_plan(spell: Spell, recast_allowed: bool = False) -> _SpellPlan:
    _, base, family, undodgeable, targets = _facts_of(spell)
    carried = tuple(
        (e, getattr(e, "applies", "target") == "target")
        for e in spell.effects
        if isinstance(e, NoDodge | NoAttack | DamageOverTime | Ward)
    )
    heals = tuple(e.amount for e in spell.effects if isinstance(e, Heal))
    return _SpellPlan(spell, spell.name, base, family, undodgeable, targets,
                      not recast_allowed and targets, heals, carried)  # fmt: skip


_PLANS: dict[int, tuple[FatigueRuleset, _Plan | None]] = {}


def plan_for(rs: FatigueRuleset) -> _Plan | None:
    """The ruleset's plan, built on first use (a ruleset is frozen); None for a ruleset the
    fast path does not run (no settings, or spells with a ``max_casts``: the full engine
    counts the casts)."""
    cached = _PLANS.get(id(rs))
    if cached is not None and cached[0] is rs:
        return cached[1]
    plan: _Plan | None = None
    if rs.fatigue is not None and not rs.has_cast_limits:
        cfg = rs.cfg
        spells: dict[str, _SpellPlan] = {}
        for spell in rs.spells:
            if spell.name not in spells:
                spells[spell.name] = _spell_plan(spell, rs.house_rule("recast_same_opponent"))
        rules: dict[str, tuple[str, int, str | None]] = {}
        for rule in _RULES:
            setting = _STATUS_SETTING.get(rule, rule)
            status = cfg.status(setting) if setting in _JUDGED else "applied"
            if status != "off":
                penalty = cfg.penalty(rule)
                rules[rule] = (status, penalty, f"-{penalty} PV" if status == "proposed" else None)
        plan = _Plan(rs, spells, rules)
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(rs)] = (rs, plan)
    return plan


def _mods(plan: _Plan, types: tuple[str, ...], sp: _SpellPlan) -> _Mods:
    """The magic-type modifiers of :func:`rules.fatigue.applying._apply` for ``sp`` and a
    caster (or target) of ``types``, in file order."""
    key = (types, sp.name)
    found = plan.mods.get(key)
    if found is not None:
        return found
    family, base = sp.family, sp.base
    mods: list[Modifier] = []
    hurt: list[Modifier] = []
    added = heal = duration = taken = 0
    for t in types:
        mtype = plan.rs.magic_type(t)
        for m in mtype.modifiers:
            if not m.concerns(family):
                continue
            if m.kind in ("damage_percent", "damage_flat"):
                amount = base * m.value // 100 if m.kind == "damage_percent" else m.value
                added += amount
                mods.append(Modifier(amount, f"magic:{mtype.key}"))
            elif m.kind == "heal_flat":
                heal += m.value
            elif m.kind == "duration_bonus":
                duration += m.value
            elif m.kind == "damage_taken_flat":
                taken += m.value
                hurt.append(Modifier(m.value, f"magic:{mtype.key}"))
    found = (tuple(mods), added, heal, duration, taken, tuple(hurt))
    if len(plan.mods) >= 4096:
        plan.mods.clear()
    plan.mods[key] = found
    return found


def _by_year(cache: dict[str, V], year: str, read: Callable[[str], V]) -> V:
    """``read(year)``, kept in ``cache`` (the ruleset's levels and PV by year)."""
    if year in cache:
        return cache[year]
    found = cache[year] = read(year)
    return found


def _bet(plan: _Plan, declared: str, raw: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The allowed bet ``raw`` is (its faces sorted, repeats dropped), or None (read once per
    action and bet as posted)."""
    key = (declared, raw)
    try:
        return plan.bets_read[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable bet: read it every time
        key = None  # type: ignore[assignment]
    given = None if raw is None else tuple(sorted(set(raw)))
    bet = given if given is not None and given in plan.bets[declared] else None
    if key is not None:
        if len(plan.bets_read) >= 4096:
            plan.bets_read.clear()
        plan.bets_read[key] = bet
    return bet


def _first(effects: tuple[Effect, ...], kind: type[E]) -> E | None:
    """The first running effect of class ``kind``, or None."""
    for e in effects:
        if isinstance(e, kind):
            return e
    return None


def _lasting(effects: tuple[Effect, ...]) -> int:
    """PV the running ``damage_over_time`` effects take this turn."""
    total = 0
    for e in effects:
        if isinstance(e, DamageOverTime):
            total += e.amount
    return total


__all__ = ["plan_for"]
