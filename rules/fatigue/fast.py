"""The fatigue 1v1 step's fast path: :func:`rules.fatigue.resolve_fatigue_step` without the
rule trail in the common case (issue 17: "ten times faster engines"; the balance simulator and
the benchmark run it): a started, running 1v1 duel; one initiative post, one defense post, or a
relaunch, none before the start; ``trail=False``; no referee override, waiver, confirmation,
post facts or voided post; no waived violation on the waiting initiative. :func:`resolve_fast`
returns the very outcome of the full resolution (``test_rules_golden_digest.py`` and
``test_rules_fast.py`` compare them), or None for anything else (every input the full
resolution refuses included): the caller then runs it.

Without waivers a violation never changes what a post does, so the waiting initiative read
again at the defense records nothing. Speed: a plan built once per ruleset
(:mod:`rules.fatigue.plan`).
The rules of :mod:`rules.fatigue.engine`, ``reading``, ``applying``, ``closing``, line for line
(the bookkeeping and the close: :mod:`rules.fatigue.fast_close`). ``trusted=True`` (the
balance simulator's legal play only) reads each post as posted and looks for no violation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, overload

from rules.effects import Effect, NoAttack
from rules.errors import RuleError
from rules.fatigue.context import _bet_text
from rules.fatigue.effects import NoDodge, Ward
from rules.fatigue.fast_close import _carry, _close, _healed, _settle, _waiting
from rules.fatigue.plan import (
    _PLANS,
    _bet,
    _by_year,
    _Call,
    _first,
    _lasting,
    _mods,
    _Plan,
    _SpellPlan,
    plan_for,
)
from rules.fatigue.reading import has_legal_action
from rules.fatigue.settings import FatigueRuleset
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    Modifier,
    TurnOutcome,
    TurnPost,
)
from rules.ruleset import Ruleset

_new = object.__new__
_set = object.__setattr__  # a frozen result's __dict__: a copy of another's, then changed
# (a copy by dict(obj.__dict__), not .copy(): see rules/fatigue/fast_close.py)
_ACTIONS = (None, "cast", "dodge", "dodge_riposte")
# One read post (internal): (kind, spell plan or None, named, void, bet, die, bet won,
# dodge ok), as :class:`rules.fatigue.context._Read`.
_Read = tuple[
    str | None, _SpellPlan | None, str | None, str | None, tuple[int, ...] | None, int, bool, bool
]


def _ignore(name: str, post_id: int, rule: str, evidence: str) -> None:
    """A waiting initiative read again: its violations were recorded at its declaration."""


def _legal(plan: _Plan, me: DuellistState, opp: DuellistState, role: str) -> bool:
    """:func:`rules.fatigue.reading.has_legal_action` for ``me`` against ``opp``."""
    return has_legal_action(me, plan.cfg, can_be_dodging=role == "defense", ruleset=plan.rs,
                            opponents=(opp.name,))  # fmt: skip


def _read(
    call: _Call, me: DuellistState, opp: DuellistState, post: TurnPost, die: int,
    role: Literal["initiative", "defense"], record: bool,
) -> _Read | None:  # fmt: skip
    """:func:`rules.fatigue.reading._read` without trail, overrides, facts and waivers; None
    for an input the full resolution refuses. Whether ``me`` had a legal action at all is
    asked only where it decides something (a post naming no action or no spell)."""
    plan = call.plan
    name = me.name
    spell_name = post.spell
    declared = post.kind or ("cast" if (spell_name or post.spell_text) else None)
    if declared is None:
        if record and _legal(plan, me, opp, role):  # D1
            call.violation(name, post.post_id, "no_action", "the post names no action")
        return None, None, spell_name, "no_action", None, die, False, False
    if declared not in _ACTIONS:
        return None
    v = call.violation if record else _ignore
    if declared != "cast" and role == "initiative":
        v(name, post.post_id, "initiative_not_cast", f"{declared} as the initiative")
        return None, None, spell_name, "initiative_not_cast", None, die, False, False
    try:  # the bet as read before (:func:`_bet`, inlined: a call less per post)
        bet = plan.bets_read[(declared, post.bet)]
    except (KeyError, TypeError):
        bet = _bet(plan, declared, post.bet)
    if bet is None and record:
        allowed = plan.bets[declared]
        v(name, post.post_id, "invalid_bet",
          f"{declared}: bet {_bet_text(post.bet)} not in {[list(b) for b in allowed]}")  # fmt: skip
    bet_won = bet is not None and die in bet
    dodge_ok = False
    kind: str | None = declared
    effects = me.effects
    if declared != "cast":
        dodge_ok = True
        if effects and (declared == "dodge" or plan.no_dodge_bars_riposte):
            barred_dodge = _first(effects, NoDodge)
            if barred_dodge is not None:
                what = f"{barred_dodge.source}'s no_dodge (by {barred_dodge.caster})"
                v(name, post.post_id, "barred_action", f"{declared} under {what}")
                return None, None, spell_name, "barred", None, die, False, False
        last = me.last_action
        if last is not None:
            rc = plan.riposte_counts
            twice = last == "dodge" or (rc and last == "dodge_riposte")
            if twice and (declared == "dodge" or rc):
                v(name, post.post_id, "dodge_twice", f"{declared} after a dodge last turn")
                dodge_ok = False
                kind = None if declared == "dodge" else declared
        if declared == "dodge":
            return kind, None, None, "dodge", bet, die, bet_won, dodge_ok
    if spell_name is None:
        if post.spell_text:
            v(name, post.post_id, "unknown_spell", post.spell_text)
            return kind, None, None, "unknown_spell", bet, die, bet_won, dodge_ok
        if record and _legal(plan, me, opp, role):
            v(name, post.post_id, "missing_spell", "no spell in bold")
        return kind, None, None, "missing_spell", bet, die, bet_won, dodge_ok
    sp = plan.spells.get(spell_name)
    if sp is None:
        return None
    if effects:
        barred_cast = _first(effects, NoAttack)
        if barred_cast is not None:
            what = f"{barred_cast.source}'s no_attack (by {barred_cast.caster})"
            v(name, post.post_id, "barred_action", f"{sp.name} under {what}")
            return kind, None, sp.name, "barred", bet, die, bet_won, dodge_ok
    year = me.year
    tops = plan.tops
    top = tops[year] if year in tops else _by_year(tops, year, plan.rs.max_level_for)
    level = sp.spell.level
    if top is not None and level > top:
        v(name, post.post_id, "spell_above_level",
          f"{sp.name} is level {level}, year {year} knows up to {top}")  # fmt: skip
        return kind, None, sp.name, "spell_above_level", bet, die, bet_won, dodge_ok
    if sp.barrable and me.spells_used_on and (sp.name, opp.name) in me.spells_used_on:
        v(name, post.post_id, "reused_spell",
          f"{opp.name} was already affected or targeted by {name}'s {sp.name}")  # fmt: skip
        return kind, None, sp.name, "reused_spell", bet, die, bet_won, dodge_ok
    return kind, sp, sp.name, None, bet, die, bet_won, dodge_ok


def _apply(
    plan: _Plan, caster: DuellistState, target: DuellistState, read: _Read, landed: bool,
    other_die: int, damage: dict[str, int], heal: dict[str, int],
    new_effects: dict[str, list[Effect]], void_extra: str | None, lean: bool = False,
) -> AttackResult | None:  # fmt: skip
    """:func:`rules.fatigue.applying._apply` without trail and overrides: adds to
    ``damage``, ``heal`` and ``new_effects``; the attack's result, or None when ``lean``
    (nobody reads it: the balance simulator's step, :func:`advance_trusted`)."""
    sp = read[1]
    attack_mods: tuple[Modifier, ...] = ()
    defense_mods: tuple[Modifier, ...] = ()
    dealt = 0
    base = 0
    applied: tuple[Effect, ...] = ()
    if sp is not None:
        base = sp.base
        types = caster.magic_types
        bonuses = None
        if types:
            bonuses = plan.mods.get((types, sp.name)) or _mods(plan, types, sp)
        if landed and base > 0:
            added = 0
            if bonuses is not None:
                attack_mods, added = bonuses[0], bonuses[1]
            taken = 0
            types = target.magic_types
            if types:
                hurt = plan.mods.get((types, sp.name)) or _mods(plan, types, sp)
                taken, defense_mods = hurt[4], hurt[5]
            ward = 0
            if target.effects:
                for e in target.effects:
                    if isinstance(e, Ward):
                        ward += e.amount
                        if not lean:
                            defense_mods += (Modifier(-e.amount, e.source or "ward"),)
            dealt = base + added + taken - ward
            if dealt < 0:
                dealt = 0
            damage[target.name] += dealt
        if landed or not sp.targets:
            if sp.heals:
                bonus = bonuses[2] if bonuses is not None else 0
                heal[caster.name] += sum(sp.heals) + bonus * len(sp.heals)
            if sp.carried:
                more = bonuses[3] if bonuses is not None else 0
                ready = plan.made.get((sp.name, more, caster.name)) or _made(
                    plan, sp, more, caster.name
                )
                made: list[Effect] = []
                for carried, on_target in ready:
                    if on_target and not landed:
                        continue
                    made.append(carried)
                    new_effects[target.name if on_target else caster.name].append(carried)
                applied = tuple(made)
    if lean:
        return None
    void = read[3]
    if void is None and not landed:
        void = void_extra
    out = _new(AttackResult)
    _set(out, "__dict__", {"attacker": caster.name, "defender": target.name, "spell": read[2],
        "attack_die": read[5], "defense_die": other_die, "defense_modifiers": defense_mods,
        "effective_defense": 0, "landed": landed, "damage": dealt, "effects_applied": applied,
        "void_reason": void, "attack_modifiers": attack_mods, "attack_value": base})  # fmt: skip
    return out


def _made(
    plan: _Plan, sp: _SpellPlan, more: int, caster: str
) -> tuple[tuple[Effect, bool], ...]:
    """The lasting effects ``sp`` cast by ``caster`` leaves, each with its duration bonus
    ``more`` (never below 1 turn) and True when its target bears it: built once per
    (spell, bonus, caster) and kept in ``plan.made`` (frozen values, shared)."""
    out = []
    for e, on_target in sp.carried:
        carried = _new(e.__class__)
        d = dict(e.__dict__)
        d["duration"] = max(1, e.duration + more)
        d["source"], d["caster"] = sp.name, caster
        _set(carried, "__dict__", d)
        out.append((carried, on_target))
    if len(plan.made) >= 4096:
        plan.made.clear()
    found = plan.made[(sp.name, more, caster)] = tuple(out)
    return found


def resolve_fast(
    state: DuelState, posts: Sequence[TurnPost], dice: Mapping[int, Sequence[int]],
    ruleset: Ruleset, step: str | None = None, *, trusted: bool = False,
) -> TurnOutcome | None:  # fmt: skip
    """The outcome of a common-case fatigue step without the trail (see the module doc), or
    None when the full resolution must run.

    ``trusted``: the caller vouches that the step is one of a legal play: a started 1v1 duel,
    a post by the duellist whose turn it is, one d6 value for it, and a post that breaks no
    rule (the balance simulator's scripted duellists, :mod:`rules.balance.policies`, which
    post only legal actions, spells and bets, and no action only when none is legal). No
    violation is then looked for and the dice are not checked again (issue 26: the simulator
    pays for no re-validation). The live bot never sets it; ``test_rules_fast.py`` checks
    that both give the full resolution's outcome on generated legal play."""
    cached = _PLANS.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        plan = cached[1]
    elif isinstance(ruleset, FatigueRuleset):
        plan = plan_for(ruleset)
    else:
        return None
    if trusted and plan is not None and not state.finished:
        return _trusted(plan, state, posts[0] if posts else None, dice)
    if (
        plan is None
        or state.ruleset != plan.name
        or state.finished
        or not state.started
        or len(posts) > 1
    ):
        return None
    duellists = state.duellists
    if len(duellists) != 2:
        return None
    d0, d1 = duellists
    n0, n1 = d0.name, d1.name
    faces = plan.faces
    for values in dice.values():
        if len(values) != plan.per_post:
            return None
        for x in values:
            if x.__class__ is not int or not 1 <= x <= faces:
                return None
    pending_posts = state.pending
    rolled = 0
    if posts:
        post: TurnPost | None = posts[0]
        assert post is not None
        given = dice.get(post.post_id)
        if given is None or post.before_start or (post.duellist != n0 and post.duellist != n1):
            return None
        rolled = given[0]
        if step is not None and step != ("defense" if pending_posts else "initiative"):
            return None
    else:
        post = None
        if step is not None and step != "relaunch":
            return None
    if n0 == n1:
        return None
    call = _Call(plan)
    try:
        if not pending_posts:
            if post is None:
                return None
            return _initiative(call, state, post, rolled)  # type: ignore[return-value]
        if len(pending_posts) > 1:
            return None
        pending = pending_posts[0]
        pdice = pending.dice
        die = pdice[0] if pdice is not None and len(pdice) == 1 else 0
        if die.__class__ is not int or not 1 <= die <= faces:
            return None
        if pending.duellist == n0:
            a, d = d0, d1
        elif pending.duellist == n1:
            a, d = d1, d0
        else:
            return None
        if post is not None and post.duellist == a.name:
            return None
        if a.violations:
            pid = pending.post_id
            if any(v.post_id == pid and v.status == "waived" for v in a.violations):
                return None
        return _resolve(call, state, a, d, pending, die, post, rolled)  # type: ignore[return-value]
    except RuleError:
        return None


_Reader = Callable[
    [_Call, DuellistState, DuellistState, TurnPost, int, Literal["initiative", "defense"], bool],
    _Read | None,
]


def _initiative(
    call: _Call, state: DuelState, post: TurnPost, rolled: int, reader: _Reader | None = None,
    lean: bool = False,
) -> TurnOutcome | DuelState | None:  # fmt: skip
    """The initiative step: its outcome, or only the next state when ``lean``; None when
    the full resolution must run."""
    d0, d1 = state.duellists
    me, opp = (d0, d1) if post.duellist == d0.name else (d1, d0)
    read = (reader or _read)(call, me, opp, post, rolled, "initiative", True)
    if read is None:
        return None
    kept = _new(TurnPost)
    k = dict(post.__dict__)
    k["dice"] = (rolled,)
    _set(kept, "__dict__", k)
    call.plan.last_initiative = (kept, me.effects, me.last_action, me.spells_used_on, me.year,
                                 opp.name, read)  # fmt: skip
    settled = None
    if call.penalties is None:
        points = (d0.points, d1.points)
        if (
            not call.violations and not d0.violations and not d1.violations
            and not d0.disqualified and not d1.disqualified and points[0] > 0 and points[1] > 0
        ):  # fmt: skip
            settled = _waiting(state, kept)  # what _settle gives: nobody out, nothing changed
            if lean:
                return settled
    else:
        points = (d0.points - call.penalty(d0.name), d1.points - call.penalty(d1.name))
    if lean:
        return _settle(call, state, state.turn + 1, False, kept, points,
                       (d0.effects, d1.effects), None)  # fmt: skip
    sp = read[1]
    void = read[3] or ("pending" if sp is not None else "no_action")
    attack = _new(AttackResult)
    _set(attack, "__dict__", {"attacker": me.name, "defender": opp.name, "spell": read[2],
        "attack_die": read[5], "defense_die": 0, "defense_modifiers": (), "effective_defense": 0,
        "landed": False, "damage": 0, "effects_applied": (), "void_reason": void,
        "attack_modifiers": (), "attack_value": sp.base if sp is not None else 0})  # fmt: skip
    return _close(call, state, state.turn + 1, False, (attack,), {post.post_id: (rolled,)},
                  kept, points, (d0.effects, d1.effects), None, settled=settled)  # fmt: skip


def _resolve(
    call: _Call, state: DuelState, a: DuellistState, d: DuellistState, init_post: TurnPost,
    init_die: int, defense_post: TurnPost | None, defense_die: int, reader: _Reader | None = None,
    lean: bool = False,
) -> TurnOutcome | DuelState | None:  # fmt: skip
    """:func:`rules.fatigue.engine._resolve` without trail, overrides and waivers: the
    outcome, or only the next state when ``lean``; None when the full resolution must run."""
    plan = call.plan
    read = reader or _read
    an, dn = a.name, d.name
    memo = plan.last_initiative
    if (
        memo is not None
        and memo[0] is init_post
        and memo[1] is a.effects
        and memo[2] == a.last_action
        and memo[3] is a.spells_used_on
        and memo[4] == a.year
        and memo[5] == dn
        and memo[6][5] == init_die  # type: ignore[index]
    ):
        init: _Read | None = memo[6]  # type: ignore[assignment]
    else:
        init = read(call, a, d, init_post, init_die, "initiative", False)
    if init is None:
        return None
    dfn: _Read | None = None
    if defense_post is not None:
        dfn = read(call, d, a, defense_post, defense_die, "defense", True)
        if dfn is None:
            return None
    init_sp = init[1]
    targets = init_sp is not None and init_sp.targets
    dodged = riposte_landed = False
    if dfn is not None and (dfn[0] == "dodge" or dfn[0] == "dodge_riposte"):
        dodgeable = init_sp is None or not init_sp.undodgeable
        d_won = dfn[6]
        cond = d_won and (not init[6] or plan.own_won)
        if targets and dfn[7]:
            dodged = cond if dodgeable else False
        if dfn[0] == "dodge_riposte" and dfn[1] is not None:
            if targets and not dodgeable:
                setting = plan.riposte_vs_undodgeable
                riposte_landed = d_won if setting == "own_bet_won" else cond and setting != "never"
            else:
                riposte_landed = cond and dfn[7]
    damage, heal = {an: 0, dn: 0}, {an: 0, dn: 0}
    new_effects: dict[str, list[Effect]] = {an: [], dn: []}
    used_a: tuple[tuple[str, str], ...] = ()
    used_d: tuple[tuple[str, str], ...] = ()
    init_landed = False
    if init_sp is not None:
        init_landed = not dodged if targets else True
        if targets and (init_landed or (dodged and plan.reuse_counts_dodged)):
            used_a = ((init_sp.name, dn),)
    dodge_void = "dodged" if dodged and not init_landed else None
    first = _apply(plan, a, d, init, init_landed, dfn[5] if dfn else 0, damage, heal,
                   new_effects, dodge_void, lean)  # fmt: skip
    if dfn is not None:
        d_landed = False
        void_extra: str | None = None
        dsp, dkind = dfn[1], dfn[0]
        if dsp is not None and dkind == "cast":
            d_landed = True
            if dsp.targets:
                used_d = ((dsp.name, an),)
        elif dsp is not None and dkind == "dodge_riposte":
            d_landed = riposte_landed
            if not d_landed:
                void_extra = "riposte_failed"
            elif dsp.targets:
                used_d = ((dsp.name, an),)
        elif dkind == "dodge":
            void_extra = "dodge"
        second = _apply(plan, d, a, dfn, d_landed, init[5], damage, heal, new_effects, void_extra,
                        lean)  # fmt: skip
    after_a = a.points - damage[an]
    after_d = d.points - damage[dn]
    if call.penalties is not None:
        after_a -= call.penalty(an)
        after_d -= call.penalty(dn)
    if a.effects:
        after_a -= _lasting(a.effects)
    if d.effects:
        after_d -= _lasting(d.effects)
    wanted = heal[an]
    if wanted > 0:
        after_a += _healed(plan, a, after_a, wanted)
    wanted = heal[dn]
    if wanted > 0:
        after_d += _healed(plan, d, after_d, wanted)
    eff_a, eff_d = _carry(plan, a, new_effects[an]), _carry(plan, d, new_effects[dn])
    d_action = None if dfn is None or not (dfn[7] or dfn[0] == "cast") else dfn[0]
    mem_a = (init[0], init_post.spell, used_a)
    mem_d = (d_action, defense_post.spell if defense_post else d.last_spell, used_d)
    if lean:
        if a is state.duellists[0]:
            return _settle(call, state, state.turn + 1, True, None, (after_a, after_d),
                           (eff_a, eff_d), (mem_a, mem_d))  # fmt: skip
        return _settle(call, state, state.turn + 1, True, None, (after_d, after_a),
                       (eff_d, eff_a), (mem_d, mem_a))  # fmt: skip
    attacks: tuple[AttackResult, ...] = (first,) if dfn is None else (first, second)  # type: ignore[assignment]
    dice_used: dict[int, tuple[int, ...]] = {init_post.post_id: (init_die,)}
    if defense_post is not None:
        dice_used[defense_post.post_id] = (defense_die,)
    if a is state.duellists[0]:
        return _close(call, state, state.turn + 1, True, attacks, dice_used, None,
                      (after_a, after_d), (eff_a, eff_d), (mem_a, mem_d))  # fmt: skip
    return _close(call, state, state.turn + 1, True, attacks, dice_used, None, (after_d, after_a),
                  (eff_d, eff_a), (mem_d, mem_a), True)  # fmt: skip


def _trusted(
    plan: _Plan, state: DuelState, post: TurnPost | None, dice: Mapping[int, Sequence[int]]
) -> TurnOutcome | None:
    """:func:`resolve_fast` of a trusted step (legal play: no violation to look for)."""
    rolled = 0
    if post is not None:
        given = dice.get(post.post_id)
        if not given:  # no die: a post with no legal action (W1), the full resolution's case
            return None
        rolled = given[0]
    return resolve_trusted(plan, state, post, rolled)


def resolve_trusted(
    plan: _Plan, state: DuelState, post: TurnPost | None, rolled: int
) -> TurnOutcome | None:
    """:func:`resolve_fast` with ``trusted=True`` for a running duel, called with the plan
    (:func:`rules.fatigue.plan.plan_for`, not None) and the post's one die ``rolled`` (any
    value for a relaunch, ``post`` None) instead of the ``posts`` and ``dice`` to look up:
    the balance simulator's step (issue 26: what a simulated step costs is the rules, not
    the call). None when the full resolution must run (a relaunch before any initiative)."""
    return advance_trusted(plan, state, post, rolled, False)


@overload
def advance_trusted(
    plan: _Plan, state: DuelState, post: TurnPost | None, rolled: int
) -> DuelState | None: ...


@overload
def advance_trusted(
    plan: _Plan, state: DuelState, post: TurnPost | None, rolled: int, lean: Literal[False]
) -> TurnOutcome | None: ...


def advance_trusted(
    plan: _Plan, state: DuelState, post: TurnPost | None, rolled: int, lean: bool = True
) -> TurnOutcome | DuelState | None:
    """``resolve_trusted(plan, state, post, rolled).state`` without the rest of the outcome
    (no attack results, dice or effects maps are built: the balance simulator reads only the
    next state, issue 26), or None where :func:`resolve_trusted` gives None. The same
    arguments and the same rules (the same code with the results left out; ``lean=False``
    is :func:`resolve_trusted`); ``test_rules_fast.py`` and ``test_rules_fast_golden.py``
    check its state against the full resolution's on generated legal play and on the golden
    duels' legal steps."""
    call = plan.trusted_call
    pending_posts = state.pending
    if not pending_posts:
        if post is None:
            return None
        return _initiative(call, state, post, rolled, _read_legal, lean)
    pending = pending_posts[0]
    d0, d1 = state.duellists
    a, d = (d0, d1) if pending.duellist == d0.name else (d1, d0)
    if not pending.dice:
        return None
    return _resolve(call, state, a, d, pending, pending.dice[0], post, rolled, _read_legal, lean)


def _read_legal(
    call: _Call, me: DuellistState, opp: DuellistState, post: TurnPost, die: int,
    role: Literal["initiative", "defense"], record: bool,
) -> _Read:  # fmt: skip
    """:func:`_read` of a legal post (a trusted step): its action, spell and bet as posted."""
    kind = post.kind
    if kind is None:
        return None, None, post.spell, "no_action", None, die, False, False
    bet = post.bet
    won = bet is not None and die in bet
    if kind == "dodge":
        return kind, None, None, "dodge", bet, die, won, True
    sp = call.plan.spells[post.spell]  # type: ignore[index]
    return kind, sp, sp.name, None, bet, die, won, kind != "cast"


__all__ = ["advance_trusted", "plan_for", "resolve_fast", "resolve_trusted"]
