"""Noticing a duel that no longer moves: N turns in a row with no PV lost (pure).

Two adults who have used every attack spell on each other may heal themselves forever: every
cast is legal and the duel never ends. RULES.md leaves such a duel to the referee ("the
referee may disqualify"; "Where a referee disagrees with the bot in a given turn, they
override the draft"), so the bot invents no rule: it only *proposes* a close to the referee.

:func:`propose_close` takes the life totals after each closed turn and returns a
:class:`CloseProposal` once the last ``quiet_turns`` turns (a setting; [D] default
:data:`DEFAULT_QUIET_TURNS`) lost no PV; the shell's deadline machinery turns it into a
referee task (see docs/balance.md, "Self-heals forever").

A turn "loses PV" when some duellist ends it with fewer points than they started it with (net:
a heal that outweighs the damage of the same turn is no loss). Works for any ruleset (PD, PV)
and for 2v2 (the four duellists' totals).

A fatigue duel can also be *certain* never to end (issue 26): every damaging spell each
duellist knows has been spent on each opponent (the reuse ban, « il est formellement interdit
au lanceur de le réutiliser une seconde fois sur son adversaire »; a spellbook ``max_casts``),
no lasting damage runs, and only self spells (Protego, Episkey) are left, which may be cast
« autant de fois qu'il le désire ». :func:`propose_exhausted` notices it at once (no turn
count) and proposes the seed's own end to the referee: relaunch, then close with no winner
(seed: « l'arbitre relancera une dernière fois avant de mettre fin au duel »), or the club's
stalemate rule. It never names a winner.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rules.errors import RuleError
from rules.fatigue.context import _base_damage, _targets_opponent
from rules.fatigue.effects import DamageOverTime
from rules.fatigue.settings import FatigueRuleset
from rules.model import DuellistState, DuelState
from rules.ruleset import Spell

DEFAULT_QUIET_TURNS = 8
CLOSE_SOURCE = (
    'RULES.md, Referee and admin: "The referee can edit the text, change any computed number, '
    'add or waive a violation, hold, or publish now." (no rule ends a duel nobody loses PV in: '
    "the referee decides)"
)


@dataclass(frozen=True)
class CloseProposal:
    """A proposal to the referee to close a duel that stopped moving.

    Attributes:
        reason: ``"no_pv_lost"`` (:func:`propose_close`) or ``"spells_exhausted"``
            (:func:`propose_exhausted`: no damaging spell left to anyone).
        turns: turns in a row (the last ones) with no PV lost; >= the setting.
        since_turn: the first turn of that run (1-based turn numbers, as ``DuelState.turn``).
        last_turn: the last turn closed.
        points: duellist -> points after the last turn.
        source: the rule text the proposal rests on (for the task's trail).
    """

    reason: str
    turns: int
    since_turn: int
    last_turn: int
    points: Mapping[str, int] = field(default_factory=dict)
    source: str = CLOSE_SOURCE


EXHAUSTED_SOURCE = (
    "seed 001: « il est formellement interdit au lanceur de le réutiliser une seconde fois sur "
    "son adversaire » (every damaging spell spent) and « l'arbitre relancera une dernière fois "
    "avant de mettre fin au duel » (the seed's end: relaunch, then close with no winner); "
    'RULES.md: "after one more delay with no post the duel closes with no winner, no loser and '
    'no rewards"'
)


def damaging(spell: Spell) -> bool:
    """True when ``spell`` can take PV from an opponent (damage, or lasting damage)."""
    return _base_damage(spell) > 0 or any(
        isinstance(e, DamageOverTime) and getattr(e, "applies", "target") == "target"
        for e in spell.effects
    )


def castable_attacks(
    ruleset: FatigueRuleset, me: DuellistState, opponent: DuellistState
) -> tuple[str, ...]:
    """The damaging spells ``me`` may still cast at ``opponent`` without a violation that
    voids them: known at their year (seed: « Première année : sorts de niveau 1 »...), not
    already spent on that opponent (the reuse ban, unless the club's named house rule
    ``recast_same_opponent``), and not over their spellbook ``max_casts``. Temporary effects
    (no_attack) are ignored: they run out."""
    top = ruleset.max_level_for(me.year)
    recast = ruleset.house_rule("recast_same_opponent")
    out = []
    for s in ruleset.spells:
        if not damaging(s) or (top is not None and s.level > top):
            continue
        if s.max_casts is not None and me.cast_count(s.name) >= s.max_casts:
            continue
        if not recast and _targets_opponent(s) and (s.name, opponent.name) in me.spells_used_on:
            continue
        out.append(s.name)
    return tuple(out)


def propose_exhausted(
    state: DuelState,
    ruleset: FatigueRuleset,
    *,
    sides: Mapping[str, int] | None = None,
    other_damage: bool = False,
) -> CloseProposal | None:
    """A :class:`CloseProposal` (reason ``"spells_exhausted"``) when no duellist still in the
    duel may cast a damaging spell at any opponent still in it and no lasting damage runs:
    the rules leave no way to a winner, however long the duel goes. None otherwise.

    Args:
        state: the duel after a declaration (1v1: two duellists; 2v2: four).
        ruleset: its fatigue ruleset.
        sides: duellist -> side (2v2: the duo's index); None: each duellist its own side.
        other_damage: True when something else can still take PV (2v2: a creature still
            standing, a damaging item): never exhausted then.

    Returns:
        The proposal, ``turns`` 0 and ``since_turn``/``last_turn`` the current turn, or None.
    """
    if state.finished or other_damage:
        return None
    side = dict(sides) if sides is not None else {d.name: i for i, d in enumerate(state.duellists)}
    alive = [d for d in state.duellists if d.points > 0 and not d.disqualified]
    for me in alive:
        if any(isinstance(e, DamageOverTime) for e in me.effects):
            return None
        for opp in alive:
            if side.get(opp.name) != side.get(me.name) and castable_attacks(ruleset, me, opp):
                return None
    return CloseProposal(
        reason="spells_exhausted",
        turns=0,
        since_turn=state.turn,
        last_turn=state.turn,
        points={d.name: d.points for d in state.duellists},
        source=EXHAUSTED_SOURCE,
    )


def points_by_turn(states: Sequence[DuelState]) -> list[dict[str, int]]:
    """Life totals after each turn, from duel states in declaration order.

    ``states`` may hold several states per turn (fatigue 1v1: first and second declarations);
    the last one of each ``turn`` number is kept, and the first entry is the earliest state
    given (usually the start, turn 0). Returns a list ordered by turn.
    """
    by_turn: dict[int, dict[str, int]] = {}
    for s in states:
        by_turn[s.turn] = {d.name: d.points for d in s.duellists}
    return [by_turn[t] for t in sorted(by_turn)]


def turns_without_pv_lost(history: Sequence[Mapping[str, int]]) -> int:
    """How many of the last turns lost no PV.

    Args:
        history: duellist -> points, one mapping per turn boundary, oldest first (entry 0:
            before the first turn counted). Names missing from an entry are ignored there.

    Returns:
        The length of the trailing run of turns in which nobody ended with fewer points than
        they started with (0 when the last turn lost PV, or with fewer than two entries).
    """
    run = 0
    for i in range(len(history) - 1, 0, -1):
        before, after = history[i - 1], history[i]
        if any(after[n] < before[n] for n in after if n in before):
            break
        run += 1
    return run


def propose_close(
    history: Sequence[Mapping[str, int]], *, quiet_turns: int = DEFAULT_QUIET_TURNS
) -> CloseProposal | None:
    """A :class:`CloseProposal` when the last ``quiet_turns`` turns lost no PV, else None.

    Args:
        history: as :func:`turns_without_pv_lost`; the last entry is the duel now. With
            :func:`points_by_turn` the turn numbers start at 0.
        quiet_turns: the setting N (turns, >= 1).

    Raises:
        RuleError: ``quiet_turns`` < 1 (rule ``"stalemate_turns"``).
    """
    if quiet_turns < 1:
        raise RuleError("stalemate_turns", f"must be >= 1, got {quiet_turns}")
    run = turns_without_pv_lost(history)
    if run < quiet_turns:
        return None
    last = len(history) - 1
    return CloseProposal(
        reason="no_pv_lost",
        turns=run,
        since_turn=last - run + 1,
        last_turn=last,
        points=dict(history[-1]),
    )


__all__ = [
    "CLOSE_SOURCE",
    "DEFAULT_QUIET_TURNS",
    "EXHAUSTED_SOURCE",
    "CloseProposal",
    "castable_attacks",
    "damaging",
    "propose_exhausted",
    "points_by_turn",
    "propose_close",
    "turns_without_pv_lost",
]
