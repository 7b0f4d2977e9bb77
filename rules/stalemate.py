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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from rules.errors import RuleError
from rules.model import DuelState

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
        reason: ``"no_pv_lost"``.
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
    "CloseProposal",
    "points_by_turn",
    "propose_close",
    "turns_without_pv_lost",
]
