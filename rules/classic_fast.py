"""The classic turn's fast path: the common case of :func:`rules.classic.resolve_classic_turn`
without the rule trail (issue 17: "ten times faster engines"; the balance simulator and the
benchmark run it).

The common case is a started, running duel, exactly one post per duellist, none before the
start, no referee overrides or waivers, ``trail=False``. :func:`resolve_fast` returns the very
outcome the full resolution gives (the golden digest test and ``tests/unit/test_rules_fast.py``
compare them), or None for anything else (including every input the full resolution refuses),
and the caller then runs the full resolution, which raises the error or handles the case.

Speed comes from a per-ruleset plan (:class:`_Plan`, built once per ruleset object): each
spell's attack flag, counter-spell flag, same-turn defense modifiers, extra damage and the
effects it carries into the next turn, already read from its effect list; known levels by
year; the settings. The rules are those of :mod:`rules.classic` (seed 000), line for line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rules.classic_settings import UNLISTED_PROPOSAL, UNLISTED_SOURCE, ClassicSettings
from rules.effects import (
    AttackModifier,
    CounterSpell,
    DefenseModifier,
    Effect,
    ExtraDamage,
    NoAttack,
    Shield,
)
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
_set = object.__setattr__  # a frozen result's __dict__, set whole
T = TypeVar("T")


@dataclass(frozen=True)
class _SpellPlan:
    """One spell read once (internal): what :func:`rules.classic._attack` and
    :func:`rules.classic._defense_modifiers` derive from its effects on every cast.

    ``carried``: (template with ``source`` set, skipped when the attack misses) for each
    effect carried into the next turn; the caster is set per cast.
    """

    spell: Spell
    attacks: bool
    counter: bool
    same_turn_defense: tuple[Modifier, ...]
    extra_damage: int
    carried: tuple[tuple[Effect, bool], ...]


@dataclass(frozen=True)
class _Plan:
    """A classic ruleset read once (internal)."""

    cfg: ClassicSettings
    spells: Mapping[str, _SpellPlan]
    tops: dict[str, int | None]
    unlisted_proposal: str
    tie_lands: bool
    faces: int
    per_post: int


def _spell_plan(spell: Spell, cfg: ClassicSettings) -> _SpellPlan:
    same: list[Modifier] = []
    carried: list[tuple[Effect, bool]] = []
    extra = 0
    for e in spell.effects:
        if isinstance(e, Shield) and cfg.shield_applies == "same_turn":
            same.append(Modifier(e.amount, spell.name))
        elif isinstance(e, DefenseModifier) and e.applies == "caster" and e.when == "same_turn":
            same.append(Modifier(e.amount, spell.name))
        if isinstance(e, ExtraDamage):
            extra += e.amount
        if isinstance(e, Shield) and cfg.shield_applies == "next_turn":
            template: Effect = DefenseModifier(
                amount=e.amount,
                applies="caster",
                when="next_turn",
                duration=e.duration,
                source=spell.name,
            )
            carried.append((template, False))
        elif isinstance(e, DefenseModifier | AttackModifier | NoAttack) and e.when == "next_turn":
            carried.append((_evolve(e, source=spell.name), spell.attacks))
    return _SpellPlan(
        spell=spell,
        attacks=spell.attacks,
        counter=any(isinstance(e, CounterSpell) for e in spell.effects),
        same_turn_defense=tuple(same),
        extra_damage=extra,
        carried=tuple(carried),
    )


_PLANS: dict[int, tuple[Ruleset, _Plan]] = {}


def plan_for(ruleset: Ruleset) -> _Plan:
    """The ruleset's plan, built on first use (a ruleset is frozen). Raises RuleError as
    :meth:`ClassicSettings.from_ruleset` does."""
    cached = _PLANS.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        return cached[1]
    cfg = ClassicSettings.from_ruleset(ruleset)
    spells: dict[str, _SpellPlan] = {}
    for spell in ruleset.spells:
        if spell.name not in spells:
            spells[spell.name] = _spell_plan(spell, cfg)
    damage = ", for damage too" if cfg.unlisted_advantage_damage else ""
    plan = _Plan(
        cfg=cfg,
        spells=spells,
        tops={},
        unlisted_proposal=(
            UNLISTED_PROPOSAL.format(n=cfg.unlisted_spell_advantage, damage=damage)
            if cfg.unlisted_spell_proposal == "advantage"
            else "disqualification"
        ),
        tie_lands=cfg.tie_rule == "lands",
        faces=ruleset.dice_faces,
        per_post=ruleset.dice_per_post,
    )
    if len(_PLANS) >= 64:
        _PLANS.clear()
    _PLANS[id(ruleset)] = (ruleset, plan)
    return plan


def _evolve(obj: Effect, **changes: object) -> Effect:
    new = _copy(obj)
    new.__dict__.update(changes)
    return new


def _violation(
    who: str, rule: str, post_id: int, evidence: str, proposal: str | None, status: str
) -> Violation:
    v = _new(Violation)
    _set(v, "__dict__", {"duellist": who, "rule": rule, "post_id": post_id,
                         "evidence": evidence, "penalty": 0, "status": status,
                         "proposal": proposal})  # fmt: skip
    return v


# One read post (internal): (spell plan or None, void reason or None, attack die, defense die).
_Read = tuple[_SpellPlan | None, str | None, int, int]


def _read(
    plan: _Plan, ruleset: Ruleset, me: DuellistState, post: TurnPost, a: int, d: int,
    violations: list[Violation],
) -> _Read | None:  # fmt: skip
    """:func:`rules.classic_reading._read_cast` without trail, overrides and waivers; None
    for a spell that is not a canonical name (the full resolution raises)."""
    cfg = plan.cfg
    sp: _SpellPlan | None = None
    void: str | None = None
    name = post.spell
    if name is None:
        if not post.spell_text:
            void = "missing_spell"
            violations.append(
                _violation(
                    me.name,
                    "missing_spell",
                    post.post_id,
                    "no spell in bold",
                    "no attack this turn; the defense die counts",
                    "proposed",
                )  # fmt: skip
            )
        else:
            violations.append(
                _violation(
                    me.name,
                    "unlisted_spell",
                    post.post_id,
                    post.spell_text,
                    plan.unlisted_proposal,
                    "proposed",
                )  # fmt: skip
            )
            void = "unlisted_spell"
    else:
        sp = plan.spells.get(name)
        if sp is None:
            return None
        if name == me.last_spell:
            voids = cfg.repeated_spell_voids
            violations.append(
                _violation(
                    me.name,
                    "repeated_spell",
                    post.post_id,
                    f"{name} twice in a row",
                    "no effect, no damage; the defense die counts" if voids else "flag only",
                    "applied" if voids else "proposed",
                )  # fmt: skip
            )
            if voids:
                void = "repeated_spell"
        tops = plan.tops
        year = me.year
        if year in tops:
            top = tops[year]
        else:
            top = tops[year] = ruleset.max_level_for(year)
        spell = sp.spell
        if top is not None and spell.level > top:
            violations.append(
                _violation(
                    me.name,
                    "spell_above_level",
                    post.post_id,
                    f"{spell.name} is level {spell.level}, year {year} knows up to {top}",
                    "flag only: a well-read duellist may know a little more (fair play)",
                    "proposed",
                )  # fmt: skip
            )
        if void is None and sp.attacks and me.effects:
            if any(isinstance(e, NoAttack) for e in me.effects):
                if cfg.barred_attacking_spell == "violation":
                    violations.append(
                        _violation(
                            me.name,
                            "barred_action",
                            post.post_id,
                            spell.name,
                            "the spell is ignored",
                            "proposed",
                        )  # fmt: skip
                    )
                void = "barred"
    return sp, void, a, d


def _defense(me: DuellistState, r: _Read, cancelled: bool) -> tuple[int, tuple[Modifier, ...]]:
    sp, void, _, d = r
    mods: tuple[Modifier, ...] = ()
    if me.effects:
        mods = tuple(
            Modifier(e.amount, e.source or e.kind)
            for e in me.effects
            if isinstance(e, DefenseModifier)
        )
    if sp is not None and void is None and not cancelled and sp.same_turn_defense:
        mods = mods + sp.same_turn_defense
    if not mods:
        return d, mods
    return d + sum(m.amount for m in mods), mods


def _attack(
    plan: _Plan,
    me: DuellistState,
    r: _Read,
    cancelled: bool,
    defender: str,
    defense_die: int,
    defense: tuple[int, tuple[Modifier, ...]],
) -> AttackResult:
    """:func:`rules.classic._attack` without trail and overrides."""
    sp, cast_void, a, _ = r
    effective = sp is not None and cast_void is None
    attacking = effective and sp is not None and sp.attacks and not cancelled
    if cast_void is not None:
        void: str | None = cast_void
    elif cancelled:
        void = "cancelled"
    elif sp is not None and not sp.attacks:
        void = "counter_spell" if sp.counter else "shield"
    else:
        void = None
    attack_value = a
    damage_bonus = 0
    attack_mods: tuple[Modifier, ...] = ()
    if me.effects:
        boosts = [e for e in me.effects if isinstance(e, AttackModifier)]
        if boosts:
            attack_mods = tuple(Modifier(e.amount, e.source or e.kind) for e in boosts)
            attack_value = a + sum(e.amount for e in boosts)
            damage_bonus = sum(e.amount for e in boosts if e.affects_damage)
    effective_defense = defense[0]
    landed = attacking and (
        attack_value >= effective_defense if plan.tie_lands else attack_value > effective_defense
    )
    damage = 0
    if landed:
        assert sp is not None
        damage = a + damage_bonus + sp.extra_damage
    applied: list[Effect] = []
    name = me.name
    if effective and not cancelled:
        assert sp is not None
        for template, gated in sp.carried:
            if gated and not landed:
                continue
            applied.append(_evolve(template, caster=name))
    if cast_void == "unlisted_spell":
        cfg = plan.cfg
        if cfg.unlisted_spell_proposal == "advantage" and cfg.unlisted_spell_advantage > 0:
            applied.append(
                AttackModifier(
                    amount=cfg.unlisted_spell_advantage,
                    affects_damage=cfg.unlisted_advantage_damage,
                    applies="target",
                    when="next_turn",
                    duration=cfg.unlisted_advantage_turns,
                    source=UNLISTED_SOURCE,
                    caster=name,
                )
            )
    result = _new(AttackResult)
    _set(result, "__dict__", {
        "attacker": name, "defender": defender,
        "spell": sp.spell.name if sp is not None else None, "attack_die": a,
        "defense_die": defense_die, "defense_modifiers": defense[1],
        "effective_defense": effective_defense, "landed": landed, "damage": damage,
        "effects_applied": tuple(applied), "void_reason": void,
        "attack_modifiers": attack_mods if attacking else (),
        "attack_value": attack_value if attacking else a,
    })  # fmt: skip
    return result


def _dice_ok(dice: Mapping[int, Sequence[int]], plan: _Plan) -> bool:
    faces, per_post = plan.faces, plan.per_post
    for values in dice.values():
        if len(values) != per_post:
            return False
        for v in values:
            if v.__class__ is not int or not 1 <= v <= faces:
                return False
    return True


def resolve_fast(
    state: DuelState, posts: Sequence[TurnPost], dice: Mapping[int, Sequence[int]], ruleset: Ruleset
) -> TurnOutcome | None:
    """The outcome of a common-case classic turn without the trail (see the module doc), or
    None when the full resolution must run."""
    if (
        state.ruleset != ruleset.name
        or state.finished
        or not state.started
        or len(state.duellists) != 2
        or len(posts) != 2
        or ruleset.engine != "classic"
        or ruleset.dice_per_post < 2
    ):
        return None
    plan = plan_for(ruleset)
    d0, d1 = state.duellists
    p0, p1 = posts
    if p0.duellist != d0.name:
        p0, p1 = p1, p0
    if (
        p0.duellist != d0.name
        or p1.duellist != d1.name
        or p0.before_start
        or p1.before_start
        or not _dice_ok(dice, plan)
    ):
        return None
    v0 = dice.get(p0.post_id)
    v1 = dice.get(p1.post_id)
    if v0 is None or v1 is None:
        return None
    violations: list[Violation] = []
    r0 = _read(plan, ruleset, d0, p0, v0[0], v0[1], violations)
    if r0 is None:
        return None
    r1 = _read(plan, ruleset, d1, p1, v1[0], v1[1], violations)
    if r1 is None:
        return None
    eff0 = r0[0] is not None and r0[1] is None
    eff1 = r1[0] is not None and r1[1] is None
    c0 = eff0 and eff1 and r1[0] is not None and r1[0].counter
    c1 = eff1 and eff0 and r0[0] is not None and r0[0].counter
    def0 = _defense(d0, r0, c0)
    def1 = _defense(d1, r1, c1)
    n0, n1 = d0.name, d1.name
    a0 = _attack(plan, d0, r0, c0, n1, r1[3], def1)
    a1 = _attack(plan, d1, r1, c1, n0, r0[3], def0)
    new0: list[Effect] = []
    new1: list[Effect] = []
    for att, mine, theirs in ((a0, new0, new1), (a1, new1, new0)):
        for e in att.effects_applied:
            (theirs if getattr(e, "applies", "target") == "target" else mine).append(e)
    pts0 = d0.points - a1.damage
    pts1 = d1.points - a0.damage
    eff_next0 = _carry(d0.effects) + tuple(new0)
    eff_next1 = _carry(d1.effects) + tuple(new1)
    return _close(
        state, plan, (a0, a1), (p0, p1), (pts0, pts1), (eff_next0, eff_next1), violations,
        {p0.post_id: tuple(v0), p1.post_id: tuple(v1)},
    )  # fmt: skip


def _carry(effects: tuple[Effect, ...]) -> tuple[Effect, ...]:
    if not effects:
        return effects
    return tuple(_evolve(e, duration=e.duration - 1) for e in effects if e.duration > 1)


def _close(
    state: DuelState,
    plan: _Plan,
    attacks: tuple[AttackResult, AttackResult],
    posts: tuple[TurnPost, TurnPost],
    points: tuple[int, int],
    effects_next: tuple[tuple[Effect, ...], tuple[Effect, ...]],
    violations: list[Violation],
    dice: dict[int, tuple[int, ...]],
) -> TurnOutcome:
    """:func:`rules.classic._close` without trail and overrides."""
    d0, d1 = state.duellists
    n0, n1 = d0.name, d1.name
    q0, q1 = d0.disqualified, d1.disqualified
    if q0 or q1:
        dq = {n0: q0, n1: q1}
        violations = [
            _evolve_violation(v)
            if dq[v.duellist]
            and v.status == "proposed"
            and v.rule in ("cast_before_start", "unlisted_spell")
            else v
            for v in violations
        ]
    finished, winner, draw = False, None, False
    pts0, pts1 = points
    if q0 or q1:
        finished = True
        winner = n1 if not q1 else n0 if not q0 else None
    elif pts0 <= 0 or pts1 <= 0:
        finished = True
        if pts0 > 0:
            winner = n0
        elif pts1 > 0:
            winner = n1
        elif plan.cfg.double_ko == "draw" or pts0 == pts1:
            draw = True
        else:
            winner = n0 if pts0 > pts1 else n1
    pending: dict[str, tuple[Effect, ...]] = {}
    if finished:
        if effects_next[0]:
            pending[n0] = effects_next[0]
        if effects_next[1]:
            pending[n1] = effects_next[1]
    viol0 = d0.violations
    viol1 = d1.violations
    if violations:
        viol0 = viol0 + tuple(v for v in violations if v.duellist == n0)
        viol1 = viol1 + tuple(v for v in violations if v.duellist == n1)
    p0, p1 = posts
    new0 = _copy(d0)
    u = new0.__dict__
    u["points"], u["effects"], u["last_spell"] = pts0, effects_next[0], p0.spell
    u["violations"], u["disqualified"] = viol0, q0
    new1 = _copy(d1)
    u = new1.__dict__
    u["points"], u["effects"], u["last_spell"] = pts1, effects_next[1], p1.spell
    u["violations"], u["disqualified"] = viol1, q1
    turn = state.turn + 1
    new_state = _copy(state)
    u = new_state.__dict__
    u["turn"], u["duellists"] = turn, (new0, new1)
    u["finished"], u["winner"], u["draw"] = finished, winner, draw
    outcome = _new(TurnOutcome)
    _set(outcome, "__dict__", {
        "turn": turn, "state": new_state, "attacks": attacks,
        "effects_next": {n0: effects_next[0], n1: effects_next[1]},
        "violations": tuple(violations), "winner": winner, "draw": draw,
        "finished": finished, "trail": (), "pending_effects_at_end": pending, "dice": dice,
    })  # fmt: skip
    return outcome


def _copy(obj: T) -> T:
    """A copy of the frozen dataclass instance ``obj`` whose ``__dict__`` the caller then
    changes (one dict copy, no ``__init__``)."""
    new = _new(obj.__class__)
    _set(new, "__dict__", dict(obj.__dict__))  # combined, not split: rules/fast.py
    return new


def _evolve_violation(v: Violation) -> Violation:
    new = _copy(v)
    new.__dict__["status"] = "applied"
    return new


__all__ = ["plan_for", "resolve_fast"]
