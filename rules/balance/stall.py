"""Does a ruleset's spellbook let its duels end? A quick, bounded simulation for
``forumbot check`` (issue 26: "A club's own spellbook that stalls gets a warning from
`forumbot check` ("in simulation, 40 % of 5th-year mirror duels cannot end") before its
first duel").

Pure: the balance simulator (:mod:`rules.balance.simulate`) plays ``duels`` mirror duels per
year (the duels most likely to stall: the reuse ban, « il est formellement interdit au lanceur
de le réutiliser une seconde fois sur son adversaire », makes the spells a duellist knows a
finite stock of damage) and ``duels`` duels of each year against the year above; a pairing
whose share of duels closed at the turn cap reaches ``threshold`` is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.balance.policies import POLICIES, Rng
from rules.balance.simulate import (
    DEFAULT_MAX_TURNS,
    play_classic,
    play_fatigue,
    type_combinations,
)
from rules.fatigue.settings import FatigueRuleset
from rules.ruleset import Ruleset

STALL_DUELS = 20
"""Duels per pairing in :func:`stall_warnings` (8 years: 300 duels, about a second)."""

STALL_THRESHOLD = 0.1
"""From this share of duels closed at the turn cap, a pairing is reported."""


@dataclass(frozen=True)
class Stall:
    """A pairing whose simulated duels often cannot end.

    Attributes:
        row, col: the years (``row == col``: a mirror pairing).
        duels: duels played; capped: those closed at the turn cap (no winner).
        max_turns: the cap.
        duo: True for 2v2 duels (duos of two duellists of each year:
            :func:`rules.balance.duo.duo_stall_warnings`).
    """

    row: str
    col: str
    duels: int
    capped: int
    max_turns: int
    duo: bool = False

    @property
    def share(self) -> float:
        """Share of capped duels (0..1)."""
        return self.capped / self.duels if self.duels else 0.0

    def message(self) -> str:
        """One English line for the staff (``forumbot check``)."""
        kind = " 2v2" if self.duo else ""
        who = (
            f"{_year(self.row)} mirror{kind} duels"
            if self.row == self.col
            else f"{_year(self.row)} against {_year(self.col)}{kind} duels"
        )
        return (
            f"in simulation, {100 * self.share:.0f} % of {who} cannot end "
            f"(closed at the {self.max_turns}-turn cap with no winner)"
        )


def _year(key: str) -> str:
    if not key.isdigit():
        return key
    return key + {"1": "st", "2": "nd", "3": "rd"}.get(key, "th") + "-year"


def stall_warnings(
    rs: Ruleset,
    rng: Rng,
    *,
    duels: int = STALL_DUELS,
    threshold: float = STALL_THRESHOLD,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> list[Stall]:
    """The pairings (each year against itself and against the year above) whose share of
    simulated duels closed at the turn cap is at least ``threshold``, worst first; each side's
    policy drawn from the simulator's (random legal, greedy), fatigue magic types drawn per
    duel. ``duels`` per pairing bounds the work."""
    years = list(rs.starting_points)
    pairs = [(y, y) for y in years] + list(zip(years[1:], years[:-1], strict=True))
    combos = type_combinations(rs) if isinstance(rs, FatigueRuleset) else []
    found = []
    for row, col in pairs:
        capped = 0
        for _ in range(duels):
            pol = (rng.choice(POLICIES), rng.choice(POLICIES))
            if isinstance(rs, FatigueRuleset):
                sides = ((row, rng.choice(combos)), (col, rng.choice(combos)))
                state, _turns = play_fatigue(rs, sides, pol, rng, max_turns)
            else:
                state, _turns = play_classic(rs, (row, col), pol, rng, max_turns)
            capped += not state.finished or (state.winner is None and not state.draw)
        if duels and capped / duels >= threshold:
            found.append(Stall(row, col, duels, capped, max_turns))
    return sorted(found, key=lambda s: -s.share)


__all__ = ["STALL_DUELS", "STALL_THRESHOLD", "Stall", "stall_warnings"]
