"""Two-against-two fatigue duels: placement, zones, moves, targets, cadence, creatures, end.

Authority: seed 001 (RULES.md "Ruleset fatigue — duels two against two"). One declaration is
drafted by :func:`resolve_duo_step` for one post, or for two posts when all four duellists
share a zone (seed: "l'arbitre ne postera d'intervention que tous les deux postes"). A turn
ends when every active duellist has posted (seed: "Un tour se termine lorsque tous les
duellistes ont posté").

Exchanges between two duellists reuse the 1v1 engine (:func:`rules.fatigue.resolve_fatigue_step`
on a two-duellist sub-state), so bets, dodges, ripostes, reuse, levels, magic types and wards
are judged exactly as in 1v1 (seed: "Si deux duellistes adverses se retrouvent dans la même
zone, les règles des duels en un contre un s'appliquent"):

- a cast at a duellist who has not posted yet this turn is an *initiative*: checked at once,
  it waits (:class:`~rules.duo.state.PendingAttack`) for that duellist's post, which is their
  *defense* (cast back at the attacker, dodge, dodge_riposte); a defender who casts elsewhere
  cannot avoid it (RULES.md: "a defender who casts cannot avoid the initiative spell");
- a cast at a duellist who already posted this turn resolves at once, undefended;
- a cast at oneself resolves at once (heals, wards); at a creature it hurts the creature; at a
  mechanism it is an attempt the referee judges; at an item it takes the item; at the scenery
  it only counts as the post's action.

Effects start with the next *turn* and lasting damage runs once per turn (effects met in a
sub-resolution are the running ones; new ones wait in ``DuoState.incoming``).

Randomness (placement, rewards) comes from ``draw(label, n) -> 0..n-1`` passed in by the shell
(derived from the duel's secret seed, so it can be recomputed and audited).

Modules (issue 17 split; every name stays importable from here): :mod:`rules.duo.outcome`
(posts, events, outcomes), :mod:`rules.duo.opening` (placement, start, who posts, targets),
:mod:`rules.duo.step` (a step's bookkeeping, overrides, exchanges with the 1v1 engine),
:mod:`rules.duo.world` (rewards, creatures, mechanisms, items, moves), :mod:`rules.duo.turn`
(one post, the end of a turn); this module drafts the declaration.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rules.duo.environment import Environment
from rules.duo.opening import (
    Target,
    expected_posters,
    new_duo_duel,
    place_duellists,
    posts_per_declaration,
    resolve_target,
    start_duo,
)
from rules.duo.outcome import CREATURE_SOURCE, Draw, DuoOutcome, DuoPost, Event
from rules.duo.settings import DuoSettings
from rules.duo.state import DuoState, evolve
from rules.duo.turn import _Step
from rules.errors import RuleError
from rules.fatigue.engine import OverrideValue, PostFacts, _parse_overrides
from rules.fatigue.settings import FatigueRuleset
from rules.model import TurnPost
from rules.trail import OVERRIDE_RULE


def resolve_duo_step(
    state: DuoState,
    posts: Sequence[DuoPost],
    dice: Mapping[int, Sequence[int]],
    *,
    ruleset: FatigueRuleset,
    env: Environment,
    settings: DuoSettings,
    draw: Draw,
    solved: Sequence[tuple[str, str, int]] = (),
    waived: Collection[tuple[str, str]] = (),
    confirmed: Collection[tuple[str, str]] = (),
    facts: Mapping[int, PostFacts] | None = None,
    overrides: Mapping[str, int | bool] | None = None,
    trail: bool = True,
) -> DuoOutcome:
    """Draft one 2v2 declaration (see the module doc).

    Args:
        state: the duel before the declaration (started, not finished).
        posts: the new posts in post order: one, or two when all four share a zone.
        dice: post id -> (d6,) of each post.
        ruleset: the fatigue ruleset (spellbook, bets, penalties).
        env: the duel's environment; settings: ``duo.toml``.
        draw: ``draw(label, n) -> 0..n-1`` (rewards: ``reward:<source>:<post or task id>``).
        solved: ``(mechanism key, duellist, task id)`` the referee judged solved since the
            last declaration (reward drawn in this one).
        waived, confirmed: ``(duellist, violation code)`` referee decisions.
        facts: post id -> :class:`PostFacts` (displayed lines, late edit).
        overrides: the referee's values (RULES.md, Referee and admin: "change any computed
            number"), keys ``"<duellist>.<field>"`` as :func:`rules.fatigue.resolve_fatigue_step`
            takes them: ``die`` (int 1..6: the die of the duellist's post in this step, or of
            their waiting initiative read again), ``bet_won``, ``dodged``, ``landed`` (bool),
            ``damage`` (int PV dealt by the duellist's spell, a creature hit included),
            ``points`` (int PV after the step); and ``"<creature key or name>.points"`` (int PV
            left after the step, 0..its starting PV; 0 leaves it defeated, with no reward
            drawn). Applied where computed, in every exchange of the step that computes them;
            each recorded in ``trail`` as ``"referee.override"`` (computed and set values).
        trail: False: the outcome's ``trail`` holds only the referee's overrides (the balance
            simulator's speed, as :func:`rules.fatigue.resolve_fatigue_step`'s ``trail``).

    Returns:
        A :class:`DuoOutcome`; the turn closes when every active duellist has posted.

    Raises:
        RuleError: not started or finished (``"duo.state"``), a post by an unknown duellist
            (``"duo.posts"``), a missing die (``"fatigue.dice"``), a non-canonical spell, an
            unknown, ill-typed or out-of-range override or one with nothing to apply to in
            this step (``"referee.override"``; a die override out of 1..6: ``"fatigue.dice"``).
    """
    if not state.duel.started or state.duel.finished:
        raise RuleError("duo.state", "the duel is not running")
    parsed = _duo_overrides(overrides or {}, state, env, ruleset, settings)
    posters = {dp.post.duellist for dp in posts}
    step = _Step(state, ruleset, env, settings, draw, waived, confirmed, facts or {}, parsed,
                 posters, trail)  # fmt: skip
    for key, who, task_id in solved:
        step.solve(key, who, task_id)
    together = state.all_together()
    names = state.names()
    held: list[int] = []
    for dp in posts:
        p = dp.post
        if p.duellist not in names:
            raise RuleError("duo.posts", f"post {p.post_id} by unknown {p.duellist!r}")
        if p.post_id not in dice:
            raise RuleError("fatigue.dice", f"no die for post {p.post_id}")
        if together and _second_initiative(step.s, p.duellist, settings):
            held.append(p.post_id)
            step.events.append(Event("initiative_held", p.duellist, None, str(p.post_id)))
            continue
        rolled = step.rolled(p.duellist, tuple(dice[p.post_id]))
        step.post(_rolled(dp, rolled))
        step.dice.setdefault(p.post_id, rolled)
    return _conclude(state, step, parsed, held)


def resolve_duo_silence(
    state: DuoState,
    *,
    ruleset: FatigueRuleset,
    env: Environment,
    settings: DuoSettings,
    draw: Draw,
    waived: Collection[tuple[str, str]] = (),
    confirmed: Collection[tuple[str, str]] = (),
    overrides: Mapping[str, int | bool] | None = None,
) -> DuoOutcome:
    """The 2v2 declaration at a deadline that ran out on a turn under way (issue 26, D6).

    Seed 001: « Si 36h ou 48h [...] après la première déclaration de l'arbitre le second
    duelliste n'a pas posté sa défense, l'arbitre relancera automatiquement le jeu » and the
    duel ends only when « aucun des deux duellistes n'a saisi l'initiative ». RULES.md: "the
    initiative spell resolves undefended and the turn closes"; "A missed deadline is not a
    violation". So each silent duellist (:func:`expected_posters`): every spell waiting on
    them resolves undefended; they pass the turn (no action, no move: they stay in their
    zone; their last action is none, so they may dodge next turn); their duo's move is not
    charged as ``missing_move`` (their silence is no violation); then the turn closes as
    usual (creatures' abilities, lasting effects) and the duel may end. Event ``silent``
    (who; detail ``"aimed"`` when a spell waited on them) for each.

    Args:
        state: the duel at the deadline: started, not finished, someone posted this turn.
        ruleset, env, settings, draw, waived, confirmed, overrides: as
            :func:`resolve_duo_step` (overrides of the undefended exchanges and ``points``).

    Raises:
        RuleError: ``"duo.state"`` when the duel is not running; ``"duo.silence"`` when
            nobody posted this turn (that silence is a relaunch: nobody took the initiative)
            or nobody is expected; ``"referee.override"`` as :func:`resolve_duo_step`.
    """
    if not state.duel.started or state.duel.finished:
        raise RuleError("duo.state", "the duel is not running")
    silent = expected_posters(state)
    if not state.posted or not silent:
        raise RuleError("duo.silence", "nobody posted this turn (a relaunch) or nobody is expected")
    parsed = _duo_overrides(overrides or {}, state, env, ruleset, settings)
    step = _Step(state, ruleset, env, settings, draw, waived, confirmed, {}, parsed, ())
    for name in silent:
        step.silence(name)
    return _conclude(state, step, parsed, [])


def _conclude(
    state: DuoState, step: _Step, parsed: Mapping[tuple[str, str], OverrideValue], held: list[int]
) -> DuoOutcome:
    """Close the turn when nobody is expected any more, settle the referee's numbers, and
    build the :class:`DuoOutcome` of the step."""
    closed = False
    finished, winners, losers, draw_ = step.end()
    if not finished and not expected_posters(step.s):
        step.close_turn()
        closed = True
    step.settle()
    if closed or parsed:  # else nothing changed since the first reading
        finished, winners, losers, draw_ = step.end()
    if not finished and not closed and not expected_posters(step.s):
        step.close_turn()  # the referee's points keep a duo in: the full turn closes
        closed = True
        step.settle()
        finished, winners, losers, draw_ = step.end()
    for unused in sorted(parsed.keys() - step.used) if parsed else ():
        raise RuleError(OVERRIDE_RULE, f"nothing to apply {unused[0]}.{unused[1]} to here")
    s = step.s.freeze()
    if finished:
        s = evolve(
            s,
            duel=evolve(
                s.duel,
                finished=True,
                draw=draw_,
                winner=" & ".join(winners) if winners else None,
            ),
            winners=winners,
            losers=losers,
            pending=(),
        )
    # A spell announced as waiting and answered later in the same step (or by a duel now
    # over) is no longer waiting: its "pending" line goes. A duellist falling to 0 PV in this
    # step is announced once (RULES.md: "a duellist whose PV reach 0 must abandon").
    events = step.events
    if any(e.kind == "pending" for e in events):
        still = {(p.attacker, p.target) for p in s.pending}
        events = [e for e in events if e.kind != "pending" or (e.who, e.target) in still]
    at = -1
    member = step.s.member
    for before in state.duel.duellists:
        after = member(before.name)  # as in ``s`` (a finished duel keeps its members)
        if before.points > 0 >= after.points:
            if at < 0:
                events = list(events)
                at = next((i for i, e in enumerate(events) if e.kind == "turn_closed"),
                          len(events))  # fmt: skip
            events.insert(at, Event("knocked_out", before.name, None, "", after.points))
            at += 1
    out = object.__new__(DuoOutcome)  # the frozen __init__'s fourteen setattr calls skipped
    out.__dict__.update(
        state=s,
        attacks=tuple(step.attacks),
        violations=tuple(step.violations),
        events=tuple(events),
        entered=tuple(step.entered),
        mechanism_attempts=tuple(step.attempts),
        turn_closed=closed,
        finished=finished,
        winners=winners,
        losers=losers,
        draw=draw_,
        trail=tuple(step.trail),
        dice=dict(step.dice),
        held=tuple(held),
    )
    return out


def _rolled(dp: DuoPost, rolled: tuple[int, ...]) -> DuoPost:
    """``evolve(dp, post=evolve(dp.post, dice=rolled))`` (neither class has a
    ``__post_init__``), without its field checks: once per post."""
    post = object.__new__(TurnPost)
    post.__dict__.update(dp.post.__dict__)
    post.__dict__["dice"] = rolled
    new = object.__new__(DuoPost)
    new.__dict__.update(dp.__dict__)
    new.__dict__["post"] = post
    return new


def _second_initiative(state: DuoState, who: str, settings: DuoSettings) -> bool:
    """True when ``who``'s post would be a second initiative of their duo: all four share a
    zone, the turn's initiatives are not all in yet (the first ``posts_per_declaration_together``
    posts of the turn) and their teammate already took one. RULES.md: "then two initiatives
    (one per duo), a declaration, two defenses, a declaration"."""
    if who in state.posted or len(state.posted) >= settings.posts_per_declaration_together:
        return False
    return state.teammate(who) in state.posted


def _duo_overrides(
    overrides: Mapping[str, int | bool],
    state: DuoState,
    env: Environment,
    ruleset: FatigueRuleset,
    settings: DuoSettings,
) -> dict[tuple[str, str], OverrideValue]:
    """Parse the referee's overrides (see :func:`resolve_duo_step`) into ``(duellist or
    creature key, field) -> value``, with the fatigue engine's key parser (case-insensitive).

    Raises:
        RuleError: ``"referee.override"`` for an unknown key, a wrong type, a negative
            ``damage``/``points``, a duellist's PV above the year's starting PV when PV
            rewards cannot exceed it (``pv_reward_above_start = false``), a creature field
            other than ``points``, a creature PV out of 0..its starting PV, or PV given back
            to a creature defeated before this step (its reward was drawn then: reviving it
            would let it be defeated, and rewarded, twice).
    """
    if not overrides:
        return {}
    creature_keys = {c.key: c.key for c in env.creatures}
    creature_keys.update({c.name: c.key for c in env.creatures})
    names = [*state.names(), *(n for n in creature_keys if n not in state.names())]
    subjects = "<duellist>" + (" or <creature key>" if env.creatures else "")
    out: dict[tuple[str, str], OverrideValue] = {}
    for (name, fld), value in _parse_overrides(overrides, names, subjects=subjects).items():
        if name in state.names():
            top = ruleset.starting_points_for(state.duel.duellist(name).year)
            if fld == "points" and not settings.pv_reward_above_start and int(value) > top:
                raise RuleError(
                    OVERRIDE_RULE, f"{name}.points: at most {top} PV (year's start), got {value}"
                )
            out[(name, fld)] = value
            continue
        creature = env.creature(creature_keys[name])
        if fld != "points":
            raise RuleError(
                OVERRIDE_RULE, f"{name}.{fld}: a creature takes only 'points' (its PV left)"
            )
        if not 0 <= int(value) <= creature.pv:
            raise RuleError(
                OVERRIDE_RULE,
                f"{name}.points: {creature.name} has 0..{creature.pv} PV, got {value}",
            )
        if int(value) > 0 and state.creature_pv(creature.key) <= 0:
            raise RuleError(
                OVERRIDE_RULE,
                f"{name}.points: {creature.name} was defeated before this step (its reward is "
                "drawn); it cannot come back",
            )
        out[(creature.key, fld)] = value
    return out


def duo_rewards(state: DuoState, settings: DuoSettings) -> list[tuple[str, str, int]]:
    """End-of-duel rewards ``(duellist, reward, amount)``: winners ``leaderboard_point`` and
    ``galleons`` each, losers a ``chocolate_frog`` each, a draw a frog each (RULES.md: "Winners:
    1 point on the 2v2 leaderboard [D: each] and a purse of 5 G each. Losers: one chocolate
    frog each")."""
    if state.winners:
        out = []
        for n in state.winners:
            out += [
                (n, "leaderboard_point", settings.win_points),
                (n, "galleons", settings.win_galleons),
            ]
        out += [(n, "chocolate_frog", settings.loser_frogs) for n in state.losers]
        return out
    if state.duel.draw:
        return [(n, "chocolate_frog", settings.draw_frogs) for n in state.names()]
    return []


__all__ = [
    "CREATURE_SOURCE",
    "Draw",
    "resolve_duo_silence",
    "DuoOutcome",
    "DuoPost",
    "Event",
    "Target",
    "duo_rewards",
    "expected_posters",
    "new_duo_duel",
    "place_duellists",
    "posts_per_declaration",
    "resolve_duo_step",
    "resolve_target",
    "start_duo",
]
