"""The fatigue fast path's bookkeeping and close (internal, :mod:`rules.fatigue.fast`): the
violations and penalties of one step, the effects carried into the next turn, heals, and the
new state and outcome (:func:`rules.fatigue.closing._close` without trail and overrides).
Split from ``fast.py`` (the 600-line limit); the rules of ``applying`` and ``closing``, line
for line.
"""

from __future__ import annotations

from rules.effects import Effect
from rules.fatigue.plan import _by_year, _Call, _Plan
from rules.model import AttackResult, DuellistState, DuelState, TurnOutcome, TurnPost, Violation

_new = object.__new__
_set = object.__setattr__  # a frozen result's __dict__: a copy of another's, then changed
# The copies are dict(obj.__dict__), never obj.__dict__.copy(): an instance built by its
# __init__ keeps its attributes inline, and its __dict__, once asked for, is a split-table
# dict whose .copy() is split too; CPython 3.11 specializes no attribute read of an object
# with a split dict, so every later state (each a copy of the one before) would be read
# through the generic lookup. dict() makes a combined table (issue 26: -8.5 % instructions
# per simulated duel, -11.7 % per bench turn).


def _carry(plan: _Plan, me: DuellistState, new: list[Effect]) -> tuple[Effect, ...]:
    """:func:`rules.fatigue.applying._carry` without trail."""
    effects = me.effects
    if not effects and not new:
        return ()
    out: list[Effect] = []
    next_of = plan.next_of
    for e in effects:
        if e.duration > 1:
            found = next_of.get(id(e))
            if found is None or found[0] is not e:
                c = _new(e.__class__)
                d = dict(e.__dict__)
                d["duration"] = e.duration - 1
                _set(c, "__dict__", d)
                if len(next_of) >= 4096:
                    next_of.clear()
                found = next_of[id(e)] = (e, c)  # e kept alive: its id stays its own
            out.append(found[1])
    if not new:
        return tuple(out)
    by_kind = plan.by_kind
    for e in new:
        kind, source = e.kind, e.source
        for i, o in enumerate(out):
            if o.kind == kind and (by_kind or o.source == source):
                if o.duration < e.duration:
                    out[i] = e
                break
        else:
            out.append(e)
    return tuple(out)


def _healed(plan: _Plan, me: DuellistState, after: int, wanted: int) -> int:
    """PV healed: ``wanted``, capped (setting ``heal_cap``), never below 0."""
    if plan.heal_cap_start:
        cap = _by_year(plan.caps, me.year, plan.rs.starting_points_for)
    else:
        cap = after + wanted
    return max(0, min(wanted, cap - after))


_Memory = tuple[str | None, str | None, tuple[tuple[str, str], ...]]


def _updated(
    d: DuellistState, points: int, effects: tuple[Effect, ...],
    violations: list[Violation], memory: _Memory | None,
) -> DuellistState:
    """A copy of ``d`` after the step with its points, effects, its share of ``violations``
    and the step's memory (``memory``: last action, last spell, the spell-on-opponent pair
    used, or None); :func:`_settle` keeps ``d`` itself when nothing changed."""
    up = _new(DuellistState)
    u = dict(d.__dict__)
    _set(up, "__dict__", u)
    u["points"], u["effects"] = points, effects
    if violations:
        u["violations"] = d.violations + tuple(v for v in violations if v.duellist == d.name)
    if memory is not None:
        u["last_action"], u["last_spell"], used = memory
        if used and used[0] not in d.spells_used_on:
            u["spells_used_on"] = d.spells_used_on + used
    return up


def _settle(
    call: _Call, state: DuelState, turn: int, closes_turn: bool, pending: TurnPost | None,
    points: tuple[int, int], effects_next: tuple[tuple[Effect, ...], tuple[Effect, ...]],
    memory: tuple[_Memory, _Memory] | None,
) -> DuelState:  # fmt: skip
    """The state after the step (:func:`rules.fatigue.closing._close` without trail and
    overrides, less the outcome): who is out, the winner or a draw, each duellist's points,
    effects, violations and memory; ``points``, ``effects_next`` and ``memory`` in roster
    order. The balance simulator's step reads only this
    (:func:`rules.fatigue.fast.advance_trusted`)."""
    plan = call.plan
    violations = call.violations
    d0, d1 = state.duellists
    p0, p1 = points
    finished, winner, draw = False, None, False
    if d0.disqualified or d1.disqualified:  # disqualified by the referee
        q0, q1 = d0.disqualified, d1.disqualified
        finished, winner = True, (d1.name if not q1 else d0.name if not q0 else None)
    elif violations or d0.violations or d1.violations or p0 <= 0 or p1 <= 0:
        n0, n1 = d0.name, d1.name
        three0 = three1 = False
        if violations or d0.violations or d1.violations:
            c0 = c1 = 0
            for v in (*d0.violations, *violations):
                c0 += v.status == "applied" and v.duellist == n0
            for v in (*d1.violations, *violations):
                c1 += v.status == "applied" and v.duellist == n1
            three0, three1 = c0 >= plan.to_lose, c1 >= plan.to_lose
        if three0 or three1 or p0 <= 0 or p1 <= 0:
            finished = True
            if three0 or three1:  # three violations, then 0 PV
                out0, out1, tie = three0, three1, plan.both_lose_draw
            else:
                out0, out1, tie = p0 <= 0, p1 <= 0, plan.double_ko_draw
            if out0 != out1:
                winner = n1 if out0 else n0
            elif tie or p0 == p1:
                draw = True
            else:
                winner = n0 if p0 > p1 else n1
    e0, e1 = effects_next
    m0, m1 = (None, None) if memory is None else memory
    # the same frozen state when nothing changed (an initiative step)
    if m0 is None and not violations and p0 == d0.points and e0 is d0.effects:
        up0 = d0
    else:
        up0 = _updated(d0, p0, e0, violations, m0)
    if m1 is None and not violations and p1 == d1.points and e1 is d1.effects:
        up1 = d1
    else:
        up1 = _updated(d1, p1, e1, violations, m1)
    new_state = _new(DuelState)
    s = dict(state.__dict__)
    _set(new_state, "__dict__", s)
    if closes_turn:
        s["turn"] = turn
    s["duellists"] = (up0, up1)
    s["finished"], s["winner"], s["draw"] = finished, winner, draw
    s["pending"] = () if finished or pending is None else (pending,)
    return new_state


def _waiting(state: DuelState, kept: TurnPost) -> DuelState:
    """:func:`_settle` of an initiative step that changed nothing but the waiting post
    ``kept`` (no violation, no penalty, nobody disqualified, both above 0 PV: nobody is
    out, the duellists stay the same objects), without its checks (issue 26)."""
    new_state = _new(DuelState)
    s = dict(state.__dict__)
    _set(new_state, "__dict__", s)
    s["finished"], s["winner"], s["draw"] = False, None, False
    s["pending"] = (kept,)
    return new_state


def _close(
    call: _Call, state: DuelState, turn: int, closes_turn: bool,
    attacks: tuple[AttackResult, ...], dice: dict[int, tuple[int, ...]],
    pending: TurnPost | None, points: tuple[int, int],
    effects_next: tuple[tuple[Effect, ...], tuple[Effect, ...]],
    memory: tuple[_Memory, _Memory] | None, swap: bool = False,
    settled: DuelState | None = None,
) -> TurnOutcome:  # fmt: skip
    """:func:`rules.fatigue.closing._close` without trail and overrides: :func:`_settle`'s
    state and the outcome around it; ``swap``: the outcome's ``effects_next`` names the
    second duellist first (the initiative's caster, as the full engine does); ``settled``:
    that state already built (:func:`_waiting`)."""
    new_state = settled or _settle(
        call, state, turn, closes_turn, pending, points, effects_next, memory
    )
    n0, n1 = state.duellists[0].name, state.duellists[1].name
    e0, e1 = effects_next
    finished = new_state.finished
    pending_at_end: dict[str, tuple[Effect, ...]] = {}
    if finished:
        if e0:
            pending_at_end[n0] = e0
        if e1:
            pending_at_end[n1] = e1
    out = _new(TurnOutcome)
    _set(out, "__dict__", {"turn": turn, "state": new_state, "attacks": attacks,
        "effects_next": {n1: e1, n0: e0} if swap else {n0: e0, n1: e1},
        "violations": tuple(call.violations), "winner": new_state.winner,
        "draw": new_state.draw, "finished": finished, "trail": (),
        "pending_effects_at_end": pending_at_end, "dice": dice})  # fmt: skip
    return out


__all__: list[str] = []
