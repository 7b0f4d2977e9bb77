"""Closing a fatigue step (seed 001): penalties, three violations, 0 PV, the new state and the
outcome; and the ends without a resolution (concession, no post after the last relaunch).

Split out of ``rules.fatigue.engine`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules.effects import Effect
from rules.errors import RuleError
from rules.fast import evolve
from rules.fatigue.context import (  # noqa: F401
    _Ctx,
    _fatigue_ruleset,
    _opponent,
)
from rules.fatigue.settings import FatigueRuleset
from rules.fatigue.sources import FATIGUE_SOURCES
from rules.model import (
    AttackResult,
    DuelState,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.ruleset import Ruleset
from rules.trail import OVERRIDE_RULE, TrailBuilder


def _close(
    ctx: _Ctx,
    turn: int,
    closes_turn: bool,
    attacks: tuple[AttackResult, ...],
    dice: Mapping[int, tuple[int, ...]],
    pending: TurnPost | None,
    *,
    points: Mapping[str, int] | None = None,
    effects_next: Mapping[str, tuple[Effect, ...]] | None = None,
    memory: Mapping[str, tuple[str | None, str | None, list[tuple[str, str]]]] | None = None,
    casts: Mapping[str, Sequence[str]] | None = None,
) -> TurnOutcome:
    """Penalties (when not computed yet), the end of the duel, the new state and outcome."""
    state, trail, cfg = ctx.state, ctx.trail, ctx.cfg
    for key in ctx.overrides if ctx.strict_overrides else ():
        if key not in ctx.used_overrides and key[1] not in ("points", "disqualified"):
            raise RuleError("referee.override", f"nothing to apply {key[0]}.{key[1]} to here")
    names = [d.name for d in state.duellists]
    if points is None:
        pts: dict[str, int] = {}
        for d in state.duellists:
            computed = d.points - ctx.penalties[d.name]
            if trail.on:
                trail.add(
                    f"{d.name}.points",
                    computed,
                    "fatigue.violation" if ctx.penalties[d.name] else "fatigue.first_declaration",
                    f"{d.points} - {ctx.penalties[d.name]} (violations) = {computed} PV",
                )
            pts[d.name] = int(ctx.override(d.name, "points", computed))
        points = pts
    if effects_next is None:
        effects_next = {d.name: d.effects for d in state.duellists}

    counts = {
        d.name: sum(
            1
            for v in (
                *(x for x in d.violations if (x.duellist, x.post_id, x.rule) not in ctx.replaced),
                *ctx.violations,
            )
            if v.duellist == d.name and v.status == "applied"
        )
        for d in state.duellists
    }
    finished, winner, draw = False, None, False
    # RULES.md, Referee and admin: the referee may disqualify (override "<name>.disqualified")
    disqualified = {
        d.name: bool(ctx.override(d.name, "disqualified", d.disqualified)) for d in state.duellists
    }
    out = [n for n in names if disqualified[n]]
    three = [n for n in names if counts[n] >= cfg.violations_to_lose]
    down = [n for n in names if points[n] <= 0]
    if out:
        finished = True
        rest = [n for n in names if not disqualified[n]]
        winner = rest[0] if len(rest) == 1 else None
        if trail.on:
            trail.add("duel.finished", True, OVERRIDE_RULE, f"disqualified: {', '.join(out)}")
    elif three:
        finished = True
        detail = ", ".join(f"{n}: {counts[n]} violations" for n in names)
        if len(three) == 1:
            winner = next(n for n in names if n not in three)
        elif cfg.both_lose_by_violations == "draw" or points[names[0]] == points[names[1]]:
            draw = True
        else:
            winner = max(names, key=lambda n: points[n])
        if trail.on:
            trail.add("duel.finished", True, "fatigue.three_violations", detail)
    elif down:
        finished = True
        detail = ", ".join(f"{n} {points[n]} PV" for n in names)
        if len(down) == 1:
            winner = next(n for n in names if n not in down)
            if trail.on:
                trail.add("duel.finished", True, "fatigue.end", detail)
        else:
            if cfg.double_ko == "draw" or points[names[0]] == points[names[1]]:
                draw = True
            else:
                winner = max(names, key=lambda n: points[n])
            if trail.on:
                trail.add("duel.finished", True, "fatigue.double_ko", detail)
    else:
        if trail.on:
            trail.add(
                "duel.finished",
                False,
                "fatigue.end",
                ", ".join(f"{n} {points[n]} PV" for n in names),
            )
    if finished:
        rule = (
            OVERRIDE_RULE
            if out
            else "fatigue.three_violations"
            if three
            else "fatigue.double_ko"
            if len(down) > 1
            else ("fatigue.end")
        )
        if trail.on:
            trail.add("duel.winner", winner, rule)
        if trail.on:
            trail.add("duel.draw", draw, rule)
    pending_at_end: dict[str, tuple[Effect, ...]] = {}
    for n in names:
        if effects_next[n]:
            if trail.on:
                trail.add(
                    f"{n}.effects_running",
                    ", ".join(f"{e.kind} ({e.source}, {e.duration})" for e in effects_next[n]),
                    "fatigue.effects_pending",
                )
            if finished:
                pending_at_end[n] = effects_next[n]

    by_duellist: dict[str, list[Violation]] = {n: [] for n in names}
    for v in ctx.violations:
        by_duellist[v.duellist].append(v)
    duellists = []
    for d in state.duellists:
        updated = evolve(
            d,
            points=points[d.name],
            disqualified=disqualified[d.name],
            effects=effects_next[d.name],
            violations=tuple(
                v for v in d.violations if (v.duellist, v.post_id, v.rule) not in ctx.replaced
            )
            + tuple(by_duellist[d.name]),
        )
        if memory is not None:
            action, spell, used = memory[d.name]
            updated = evolve(
                updated,
                last_action=action,
                last_spell=spell,
                spells_used_on=updated.spells_used_on
                + tuple(p for p in used if p not in updated.spells_used_on),
            )
            for pair in used:
                if trail.on:
                    trail.add(
                        f"{d.name}.spells_used_on",
                        f"{pair[0]} -> {pair[1]}",
                        "fatigue.reuse_memory",
                        f"{d.name} may not cast {pair[0]} on {pair[1]} again",
                    )
        for spell in (casts or {}).get(d.name, ()):
            counted = dict(updated.casts)
            counted[spell] = counted.get(spell, 0) + 1
            updated = evolve(updated, casts=tuple(counted.items()))
        duellists.append(updated)
    new_state = evolve(
        state,
        turn=turn if closes_turn else state.turn,
        duellists=tuple(duellists),
        finished=finished,
        winner=winner,
        draw=draw,
        pending=() if finished or pending is None else (pending,),
    )
    return TurnOutcome(
        turn=turn,
        state=new_state,
        attacks=attacks,
        effects_next=dict(effects_next),
        violations=tuple(ctx.violations),
        winner=winner,
        draw=draw,
        finished=finished,
        trail=trail.entries(),
        pending_effects_at_end=pending_at_end,
        dice=dict(dice),
    )


def concede(state: DuelState, duellist: str, *, ruleset: Ruleset) -> TurnOutcome:
    """``duellist`` concedes: the opponent wins (setting ``concession``: ``"opponent_wins"``) or
    the duel ends with no winner (``"no_winner"``). RULES.md: "conceding also gives the
    opponent the win [D]".

    Raises:
        RuleError: finished duel (``"fatigue.end"``), unknown duellist (``"duellist"``).
    """
    rs = _fatigue_ruleset(ruleset)
    if state.finished:
        raise RuleError("fatigue.end", "the duel is already over")
    me = state.duellist(duellist)
    other = _opponent(state, me.name)
    winner = other.name if rs.cfg.concession == "opponent_wins" else None
    return _ended(state, rs, winner, "fatigue.concession", f"{me.name} concedes")


def close_without_winner(state: DuelState, *, ruleset: Ruleset) -> TurnOutcome:
    """The last relaunch brought no post: the duel closes with no winner, no loser and no
    rewards (RULES.md [D]; seed 001: "l'arbitre relancera une dernière fois avant de mettre fin
    au duel").

    Raises:
        RuleError: finished duel (``"fatigue.end"``).
    """
    rs = _fatigue_ruleset(ruleset)
    if state.finished:
        raise RuleError("fatigue.end", "the duel is already over")
    return _ended(state, rs, None, "fatigue.abandoned", "no post after the last relaunch")


def _ended(
    state: DuelState, rs: FatigueRuleset, winner: str | None, rule: str, detail: str
) -> TurnOutcome:
    trail = TrailBuilder(FATIGUE_SOURCES)
    if trail.on:
        trail.add("duel.finished", True, rule, detail)
    if trail.on:
        trail.add("duel.winner", winner, rule)
    if trail.on:
        trail.add("duel.draw", False, rule)
    new_state = evolve(state, finished=True, winner=winner, draw=False, pending=())
    pending = {d.name: d.effects for d in state.duellists if d.effects}
    del rs
    return TurnOutcome(
        turn=state.turn,
        state=new_state,
        attacks=(),
        effects_next={d.name: d.effects for d in state.duellists},
        violations=(),
        winner=winner,
        draw=False,
        finished=True,
        trail=trail.entries(),
        pending_effects_at_end=pending,
    )
