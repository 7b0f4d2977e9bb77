"""The fatigue 1v1 step's fast path: :func:`rules.fatigue.resolve_fatigue_step` without the
rule trail in the common case (issue 17: "ten times faster engines"; the balance simulator and
the benchmark run it): a started, running 1v1 duel; one initiative post, one defense post, or a
relaunch, none before the start; ``trail=False``; no referee override, waiver, confirmation,
post facts or voided post; no waived violation on the waiting initiative. :func:`resolve_fast`
returns the very outcome of the full resolution (``test_rules_golden_digest.py`` and
``test_rules_fast.py`` compare them), or None for anything else (every input the full
resolution refuses included): the caller then runs it.

Without waivers a violation never changes what a post does, so the waiting initiative read
again at the defense records nothing. Speed: a plan built once per ruleset (:class:`_Plan`).
The rules of :mod:`rules.fatigue.engine`, ``reading``, ``applying``, ``closing``, line for line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Literal, TypeVar

from rules.effects import Effect, NoAttack
from rules.errors import RuleError
from rules.fatigue.context import _JUDGED, _STATUS_SETTING, _bet_text, _facts_of
from rules.fatigue.effects import DamageOverTime, Heal, NoDodge, Ward
from rules.fatigue.reading import has_legal_action
from rules.fatigue.settings import FatigueRuleset, FatigueSettings
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    Modifier,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.ruleset import Ruleset, Spell

_new = object.__new__
T = TypeVar("T")
V = TypeVar("V")
_ACTIONS = (None, "cast", "dodge", "dodge_riposte")
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


@dataclass(frozen=True)
class _Plan:
    """A fatigue ruleset read once (internal). ``rules``: violation code -> (status,
    penalty, proposal) when the club reports it; ``tops``, ``caps``: highest level and
    starting PV by year; ``mods``: :func:`_mods` by (magic types, spell)."""

    rs: FatigueRuleset
    cfg: FatigueSettings
    spells: Mapping[str, _SpellPlan]
    rules: Mapping[str, tuple[str, int, str | None]]
    bets: Mapping[str, tuple[tuple[int, ...], ...]]
    tops: dict[str, int | None]
    caps: dict[str, int]
    mods: dict[tuple[tuple[str, ...], str], _Mods]
    faces: int
    per_post: int
    by_kind: bool


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


_PLANS: dict[int, tuple[FatigueRuleset, _Plan]] = {}


def plan_for(rs: FatigueRuleset) -> _Plan:
    """The ruleset's plan, built on first use (a ruleset is frozen)."""
    cached = _PLANS.get(id(rs))
    if cached is not None and cached[0] is rs:
        return cached[1]
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
    plan = _Plan(rs, cfg, spells, rules, rs.bets, {}, {}, {}, rs.dice_faces, rs.dice_per_post,
                 cfg.effect_identity != "kind_and_source")  # fmt: skip
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


# One read post (internal): (kind, spell plan or None, named, void, bet, die, bet won,
# dodge ok), as :class:`rules.fatigue.context._Read`.
_Read = tuple[
    str | None, _SpellPlan | None, str | None, str | None, tuple[int, ...] | None, int, bool, bool
]


def _by_year(cache: dict[str, V], year: str, read: Callable[[str], V]) -> V:
    """``read(year)``, kept in ``cache`` (the ruleset's levels and PV by year)."""
    if year in cache:
        return cache[year]
    found = cache[year] = read(year)
    return found


def _ignore(name: str, post_id: int, rule: str, evidence: str) -> None:
    """A waiting initiative read again: its violations were recorded at its declaration."""


class _Call:
    """The bookkeeping of one fast step (internal): violations found and penalties."""

    __slots__ = ("plan", "violations", "penalties")

    def __init__(self, plan: _Plan, names: tuple[str, str]) -> None:
        self.plan = plan
        self.violations: list[Violation] = []
        self.penalties = {names[0]: 0, names[1]: 0}

    def violation(self, name: str, post_id: int, rule: str, evidence: str) -> None:
        found = self.plan.rules.get(rule)
        if found is None:
            return
        status, penalty, proposal = found
        self.violations.append(
            _build(Violation, _VIOLATION, name, rule, post_id, evidence, penalty, status, proposal)
        )
        if status == "applied":
            self.penalties[name] += penalty


def _read(
    call: _Call, me: DuellistState, opp: DuellistState, post: TurnPost, die: int,
    role: Literal["initiative", "defense"], record: bool,
) -> _Read | None:  # fmt: skip
    """:func:`rules.fatigue.reading._read` without trail, overrides, facts and waivers; None
    for an input the full resolution refuses."""
    plan = call.plan
    cfg = plan.cfg
    name, pid = me.name, post.post_id
    effects = me.effects
    barred_cast = next((e for e in effects if isinstance(e, NoAttack)), None) if effects else None
    barred_dodge = next((e for e in effects if isinstance(e, NoDodge)), None) if effects else None
    declared = post.kind or ("cast" if (post.spell or post.spell_text) else None)
    if declared not in _ACTIONS:
        return None
    v = call.violation if record else _ignore
    legal = (declared is not None and post.spell is not None) or has_legal_action(  # D1
        me, cfg, can_be_dodging=role == "defense", ruleset=plan.rs, opponents=(opp.name,))
    if declared is None:
        if legal:
            v(name, pid, "no_action", "the post names no action")
        return None, None, post.spell, "no_action", None, die, False, False
    if role == "initiative" and declared != "cast":
        v(name, pid, "initiative_not_cast", f"{declared} as the initiative")
        return None, None, post.spell, "initiative_not_cast", None, die, False, False
    allowed = plan.bets[declared]
    given = None if post.bet is None else tuple(sorted(set(post.bet)))
    bet = given if given is not None and given in allowed else None
    if bet is None and record:
        v(name, pid, "invalid_bet",
          f"{declared}: bet {_bet_text(post.bet)} not in {[list(b) for b in allowed]}")  # fmt: skip
    bet_won = bet is not None and die in bet
    dodge_ok = False
    kind: str | None = declared
    if declared != "cast":
        dodge_ok = True
        if barred_dodge is not None and (declared == "dodge" or cfg.no_dodge_bars_riposte):
            what = f"{barred_dodge.source}'s no_dodge (by {barred_dodge.caster})"
            v(name, pid, "barred_action", f"{declared} under {what}")
            return None, None, post.spell, "barred", None, die, False, False
        counts = declared == "dodge" or cfg.dodge_riposte_counts_as_dodge
        last = me.last_action
        if counts and (
            last == "dodge" or (cfg.dodge_riposte_counts_as_dodge and last == "dodge_riposte")
        ):
            v(name, pid, "dodge_twice", f"{declared} after a dodge last turn")
            dodge_ok = False
            kind = None if declared == "dodge" else declared
        if declared == "dodge":
            return kind, None, None, "dodge", bet, die, bet_won, dodge_ok
    spell_name = post.spell
    if spell_name is None:
        if post.spell_text:
            v(name, pid, "unknown_spell", post.spell_text)
            return kind, None, None, "unknown_spell", bet, die, bet_won, dodge_ok
        if legal:
            v(name, pid, "missing_spell", "no spell in bold")
        return kind, None, None, "missing_spell", bet, die, bet_won, dodge_ok
    sp = plan.spells.get(spell_name)
    if sp is None:
        return None
    if barred_cast is not None:
        what = f"{barred_cast.source}'s no_attack (by {barred_cast.caster})"
        v(name, pid, "barred_action", f"{sp.name} under {what}")
        return kind, None, sp.name, "barred", bet, die, bet_won, dodge_ok
    year = me.year
    top = _by_year(plan.tops, year, plan.rs.max_level_for)
    spell = sp.spell
    if top is not None and spell.level > top:
        v(name, pid, "spell_above_level",
          f"{sp.name} is level {spell.level}, year {year} knows up to {top}")  # fmt: skip
        return kind, None, sp.name, "spell_above_level", bet, die, bet_won, dodge_ok
    if sp.barrable and (sp.name, opp.name) in me.spells_used_on:
        v(name, pid, "reused_spell",
          f"{opp.name} was already affected or targeted by {name}'s {sp.name}")  # fmt: skip
        return kind, None, sp.name, "reused_spell", bet, die, bet_won, dodge_ok
    return kind, sp, sp.name, None, bet, die, bet_won, dodge_ok


def _apply(
    plan: _Plan, caster: DuellistState, target: DuellistState, read: _Read, landed: bool,
    other_die: int, damage: dict[str, int], heal: dict[str, int],
    new_effects: dict[str, list[Effect]], void_extra: str | None,
) -> AttackResult:  # fmt: skip
    """:func:`rules.fatigue.applying._apply` without trail and overrides."""
    sp = read[1]
    base = sp.base if sp is not None else 0
    attack_mods: tuple[Modifier, ...] = ()
    defense_mods: tuple[Modifier, ...] = ()
    dealt = 0
    applied: list[Effect] = []
    if sp is not None:
        bonuses = _mods(plan, caster.magic_types, sp) if caster.magic_types else None
        if landed and base > 0:
            added = 0
            if bonuses is not None:
                attack_mods, added = bonuses[0], bonuses[1]
            taken = 0
            if target.magic_types:
                taken, defense_mods = _mods(plan, target.magic_types, sp)[4:]
            wards = [e for e in target.effects if isinstance(e, Ward)] if target.effects else ()
            ward = sum(e.amount for e in wards)
            if wards:
                defense_mods += tuple(Modifier(-e.amount, e.source or "ward") for e in wards)
            dealt = max(0, base + added + taken - ward)
            damage[target.name] += dealt
        if landed or not sp.targets:
            if sp.heals:
                bonus = bonuses[2] if bonuses is not None else 0
                heal[caster.name] += sum(h + bonus for h in sp.heals)
            if sp.carried:
                more = bonuses[3] if bonuses is not None else 0
                for e, on_target in sp.carried:
                    if on_target and not landed:
                        continue
                    carried = _new(type(e))
                    d = carried.__dict__
                    d.update(e.__dict__)
                    d.update(duration=max(1, e.duration + more), source=sp.name,
                             caster=caster.name)  # fmt: skip
                    applied.append(carried)
                    new_effects[target.name if on_target else caster.name].append(carried)
    void = read[3]
    if void is None and not landed:
        void = void_extra
    return _build(AttackResult, _ATTACK, caster.name, target.name, read[2], read[5],
                  other_die, defense_mods, 0, landed, dealt, tuple(applied), void, attack_mods,
                  base)  # fmt: skip


def _carry(plan: _Plan, me: DuellistState, new: list[Effect]) -> tuple[Effect, ...]:
    """:func:`rules.fatigue.applying._carry` without trail."""
    out: list[Effect] = []
    for e in me.effects:
        if e.duration > 1:
            c = _new(type(e))
            c.__dict__.update(e.__dict__)
            c.__dict__["duration"] = e.duration - 1
            out.append(c)
    if not new:
        return tuple(out)
    by_kind = plan.by_kind
    for e in new:
        key = (e.kind, None if by_kind else e.source)
        same = next(
            (i for i, o in enumerate(out) if (o.kind, None if by_kind else o.source) == key), None
        )
        if same is None:
            out.append(e)
        elif out[same].duration < e.duration:
            out[same] = e
    return tuple(out)


def resolve_fast(
    state: DuelState, posts: Sequence[TurnPost], dice: Mapping[int, Sequence[int]],
    ruleset: Ruleset, step: str | None = None,
) -> TurnOutcome | None:  # fmt: skip
    """The outcome of a common-case fatigue step without the trail (see the module doc), or
    None when the full resolution must run."""
    if (
        not isinstance(ruleset, FatigueRuleset)
        or ruleset.fatigue is None
        or state.ruleset != ruleset.name
        or state.finished
        or not state.started
        or len(state.duellists) != 2
        or len(posts) > 1 or len(state.pending) > 1
        or ruleset.has_cast_limits  # max_casts: the full engine counts the casts
    ):  # fmt: skip
        return None
    plan = plan_for(ruleset)
    d0, d1 = state.duellists
    n0, n1 = d0.name, d1.name
    faces = plan.faces
    for values in dice.values():
        if len(values) != plan.per_post:
            return None
        for x in values:
            if x.__class__ is not int or not 1 <= x <= faces:
                return None
    post = posts[0] if posts else None
    rolled = 0
    if post is not None:
        given = dice.get(post.post_id)
        if given is None or post.before_start or post.duellist not in (n0, n1):
            return None
        rolled = given[0]
    inferred = "initiative" if not state.pending else "defense" if post else "relaunch"
    if n0 == n1 or (step is not None and step != inferred):
        return None
    call = _Call(plan, (n0, n1))
    try:
        if not state.pending:
            return None if post is None else _initiative(call, state, post, rolled)
        pending = state.pending[0]
        die = pending.dice[0] if pending.dice is not None and len(pending.dice) == 1 else 0
        if die.__class__ is not int or not 1 <= die <= faces or pending.duellist not in (n0, n1):
            return None
        a, d = (d0, d1) if pending.duellist == n0 else (d1, d0)
        pid = pending.post_id
        if (post is not None and post.duellist == a.name) or any(
            v.post_id == pid and v.status == "waived" for v in a.violations
        ):
            return None
        return _resolve(call, state, a, d, pending, die, post, rolled)
    except RuleError:
        return None


def _initiative(call: _Call, state: DuelState, post: TurnPost, rolled: int) -> TurnOutcome | None:
    d0, d1 = state.duellists
    me, opp = (d0, d1) if post.duellist == d0.name else (d1, d0)
    read = _read(call, me, opp, post, rolled, "initiative", True)
    if read is None:
        return None
    sp = read[1]
    void = read[3] or ("pending" if sp is not None else "no_action")
    attack = _build(AttackResult, _ATTACK, me.name, opp.name, read[2], read[5], 0, (), 0, False,
                    0, (), void, (), sp.base if sp is not None else 0)  # fmt: skip
    kept = _new(TurnPost)
    kept.__dict__.update(post.__dict__)
    kept.__dict__["dice"] = (rolled,)
    pen = call.penalties
    points = {d0.name: d0.points - pen[d0.name], d1.name: d1.points - pen[d1.name]}
    effects = {d0.name: d0.effects, d1.name: d1.effects}
    return _close(call, state, state.turn + 1, False, (attack,), {post.post_id: (rolled,)},
                  kept, points, effects, None)  # fmt: skip


def _resolve(
    call: _Call, state: DuelState, a: DuellistState, d: DuellistState, init_post: TurnPost,
    init_die: int, defense_post: TurnPost | None, defense_die: int,
) -> TurnOutcome | None:  # fmt: skip
    """:func:`rules.fatigue.engine._resolve` without trail, overrides and waivers."""
    plan = call.plan
    cfg = plan.cfg
    an, dn = a.name, d.name
    init = _read(call, a, d, init_post, init_die, "initiative", False)
    if init is None:
        return None
    dfn: _Read | None = None
    if defense_post is not None:
        dfn = _read(call, d, a, defense_post, defense_die, "defense", True)
        if dfn is None:
            return None
    init_sp = init[1]
    targets = init_sp is not None and init_sp.targets
    dodgeable = init_sp is None or not init_sp.undodgeable
    dodged = riposte_landed = False
    if dfn is not None and dfn[0] in ("dodge", "dodge_riposte"):
        d_won = dfn[6]
        cond = d_won and (not init[6] or cfg.dodge_success == "own_won")
        if targets and dfn[7]:
            dodged = cond if dodgeable else False
        if dfn[0] == "dodge_riposte" and dfn[1] is not None:
            if targets and not dodgeable:
                setting = cfg.riposte_vs_undodgeable
                riposte_landed = d_won if setting == "own_bet_won" else cond and setting != "never"
            else:
                riposte_landed = cond and dfn[7]
    damage, heal = {an: 0, dn: 0}, {an: 0, dn: 0}
    new_effects: dict[str, list[Effect]] = {an: [], dn: []}
    used_a: list[tuple[str, str]] = []
    used_d: list[tuple[str, str]] = []
    init_landed = False
    if init_sp is not None:
        init_landed = not dodged if targets else True
        if targets and (init_landed or (dodged and cfg.reuse_counts_dodged)):
            used_a.append((init_sp.name, dn))
    dodge_void = "dodged" if dodged and not init_landed else None
    attacks = [_apply(plan, a, d, init, init_landed, dfn[5] if dfn else 0, damage, heal,
                      new_effects, dodge_void)]  # fmt: skip
    if dfn is not None:
        d_landed = False
        void_extra: str | None = None
        dsp, dkind = dfn[1], dfn[0]
        if dsp is not None and dkind == "cast":
            d_landed = True
            if dsp.targets:
                used_d.append((dsp.name, an))
        elif dsp is not None and dkind == "dodge_riposte":
            d_landed = riposte_landed
            if not d_landed:
                void_extra = "riposte_failed"
            elif dsp.targets:
                used_d.append((dsp.name, an))
        elif dkind == "dodge":
            void_extra = "dodge"
        attacks.append(
            _apply(plan, d, a, dfn, d_landed, init[5], damage, heal, new_effects, void_extra)
        )
    points: dict[str, int] = {}
    pen = call.penalties
    for me in (a, d):
        name = me.name
        dot = sum(e.amount for e in me.effects if isinstance(e, DamageOverTime))
        after = me.points - pen[name] - damage[name] - dot
        healed = 0
        wanted = heal[name]
        if wanted > 0:
            cap = (
                _by_year(plan.caps, me.year, plan.rs.starting_points_for)
                if cfg.heal_cap == "starting_points"
                else after + wanted
            )
            healed = max(0, min(wanted, cap - after))
        points[name] = after + healed
    effects_next = {an: _carry(plan, a, new_effects[an]), dn: _carry(plan, d, new_effects[dn])}
    d_action = None if dfn is None or not (dfn[7] or dfn[0] == "cast") else dfn[0]
    memory = {
        an: (init[0], init_post.spell, used_a),
        dn: (d_action, defense_post.spell if defense_post else d.last_spell, used_d),
    }
    dice_used = {init_post.post_id: (init_die,)}
    if defense_post is not None:
        dice_used[defense_post.post_id] = (defense_die,)
    return _close(call, state, state.turn + 1, True, tuple(attacks), dice_used, None, points,
                  effects_next, memory)  # fmt: skip


def _close(
    call: _Call, state: DuelState, turn: int, closes_turn: bool,
    attacks: tuple[AttackResult, ...], dice: Mapping[int, tuple[int, ...]],
    pending: TurnPost | None, points: dict[str, int],
    effects_next: dict[str, tuple[Effect, ...]],
    memory: Mapping[str, tuple[str | None, str | None, list[tuple[str, str]]]] | None,
) -> TurnOutcome:  # fmt: skip
    """:func:`rules.fatigue.closing._close` without trail and overrides."""
    cfg = call.plan.cfg
    violations = call.violations
    d0, d1 = state.duellists
    n0, n1 = d0.name, d1.name
    p0, p1 = points[n0], points[n1]
    q0, q1 = d0.disqualified, d1.disqualified
    finished, winner, draw = False, None, False
    if q0 or q1:  # disqualified by the referee
        finished, winner = True, (n1 if not q1 else n0 if not q0 else None)
    else:
        c0 = c1 = 0
        for v in (*d0.violations, *violations):
            c0 += v.status == "applied" and v.duellist == n0
        for v in (*d1.violations, *violations):
            c1 += v.status == "applied" and v.duellist == n1
        three0, three1 = c0 >= cfg.violations_to_lose, c1 >= cfg.violations_to_lose
        if three0 or three1 or p0 <= 0 or p1 <= 0:
            finished = True
            if three0 or three1:  # three violations, then 0 PV
                out0, out1, tie = three0, three1, cfg.both_lose_by_violations == "draw"
            else:
                out0, out1, tie = p0 <= 0, p1 <= 0, cfg.double_ko == "draw"
            if out0 != out1:
                winner = n1 if out0 else n0
            elif tie or p0 == p1:
                draw = True
            else:
                winner = n0 if p0 > p1 else n1
    e0, e1 = effects_next[n0], effects_next[n1]
    pending_at_end = {n: e for n, e in ((n0, e0), (n1, e1)) if e} if finished else {}
    new: list[DuellistState] = []
    for old, pts, eff in ((d0, p0, e0), (d1, p1, e1)):
        name = old.name
        mine = old.violations
        if violations:
            mine = mine + tuple(v for v in violations if v.duellist == name)
        up = _new(DuellistState)
        u = up.__dict__
        u.update(old.__dict__)
        u.update(points=pts, effects=eff, violations=mine)
        if memory is not None:
            action, spell, used = memory[name]
            u["last_action"] = action
            u["last_spell"] = spell
            if used:
                had = old.spells_used_on
                u["spells_used_on"] = had + tuple(p for p in used if p not in had)
        new.append(up)
    new_state = _new(DuelState)
    s = new_state.__dict__
    s.update(state.__dict__)
    s.update(
        turn=turn if closes_turn else state.turn, duellists=tuple(new), finished=finished,
        winner=winner, draw=draw, pending=() if finished or pending is None else (pending,),
    )  # fmt: skip
    return _build(TurnOutcome, _OUTCOME, turn, new_state, attacks, effects_next,
                  tuple(violations), winner, draw, finished, (), pending_at_end, dice)  # fmt: skip


__all__ = ["plan_for", "resolve_fast"]
