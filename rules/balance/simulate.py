"""Whole duels between scripted duellists, for every pair of years (and, in fatigue, of magic
types): who wins under a ruleset (issue 17, "the staff's question before they change a rule is
'who wins now?'").

Pure: the rules engines only (``trail=False``), no board, no database; the randomness is the
seeded ``random.Random`` passed in, so the same seed gives the same table. A duel is played
to its end (0 points, three violations) or closed by the referee after ``max_turns`` turns
(the cap: what a referee does with a duel that no longer moves, :mod:`rules.stalemate`).

Each cell (row year, column year) plays ``duels_per_cell`` duels, the policy of each side
drawn from ``policies`` (random legal, greedy). The row duellist is always listed first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from rules.balance.policies import POLICIES, Policy, Rng, classic_post, drawer, fatigue_post
from rules.engine import new_duel, resolve_turn, start_duel
from rules.errors import RuleError
from rules.fast import evolve
from rules.fatigue.engine import new_fatigue_duel, resolve_fatigue_step
from rules.fatigue.fast import advance_trusted
from rules.fatigue.plan import plan_for
from rules.fatigue.settings import FatigueRuleset
from rules.model import DuelState, TurnPost
from rules.ruleset import Ruleset

DEFAULT_MAX_TURNS = 60


def wilson(wins: int, duels: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (``z`` = 1.96: 95 %) of a share ``wins / duels``, as
    (low, high) in 0..1; (0.0, 1.0) when ``duels`` is 0. Unlike "rate ± 2 standard errors"
    it stays inside 0..1 and is honest for small cells and rates near 0 or 1."""
    if duels <= 0:
        return 0.0, 1.0
    p = wins / duels
    z2 = z * z
    centre = (p + z2 / (2 * duels)) / (1 + z2 / duels)
    half = z * math.sqrt(p * (1 - p) / duels + z2 / (4 * duels * duels)) / (1 + z2 / duels)
    return max(0.0, centre - half), min(1.0, centre + half)


MEANINGLESS_CAPPED = 0.2
"""From this share of duels closed at the turn cap (a table's, or a cell's), win rates say
little: the caption says so and the cell shows no rate (issue 26)."""

FEW_DUELS = 30
"""Below this many duels in a cell, the table means little (newcomer 6 C1): a 50 % cell's 95 %
interval spans more than 18 points either way (1.96 * sqrt(0.25 / 30) = 0.179), so chance
alone could make a year look stronger or weaker than the one beside it."""


@dataclass(frozen=True)
class Cell:
    """Results of the duels of one row side against one column side.

    Attributes:
        row, col: the sides (a year, or a magic type in a magic-type table).
        duels: duels played; wins / losses: the row side's; draws: exact ties; capped: closed
            by the referee at the turn cap (no winner); turns: total turns played; lengths:
            each duel's turns (not compared).

    ``wins + losses + draws + capped == duels``. In a mirror cell (row == column) both sides
    are alike: the row side is the one listed first, and its win rate is about
    ``(1 - draw_share - capped_share) / 2``, not 50 %.
    """

    row: str
    col: str
    duels: int
    wins: int
    losses: int
    draws: int
    capped: int
    turns: int
    lengths: tuple[int, ...] = field(default=(), compare=False, repr=False)

    @property
    def win_rate(self) -> float:
        """Share of the duels the row side won (0..1)."""
        return self.wins / self.duels if self.duels else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson score interval of :attr:`win_rate` (0..1 each; (0, 1) with no
        duel)."""
        return wilson(self.wins, self.duels)

    @property
    def draw_share(self) -> float:
        """Share of drawn duels (0..1)."""
        return self.draws / self.duels if self.duels else 0.0

    @property
    def capped_share(self) -> float:
        """Share of duels closed at the turn cap, no winner (0..1)."""
        return self.capped / self.duels if self.duels else 0.0


@dataclass(frozen=True)
class Table:
    """A win-rate table: ``cells[(row, col)]``, rows and columns in order."""

    ruleset: str
    kind: str  # "years" or "magic_types"
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: dict[tuple[str, str], Cell]
    year: str | None = None
    """A magic-type table: the year of both duellists (``"5"``); None otherwise."""

    @property
    def duels(self) -> int:
        """Duels in the whole table."""
        return sum(c.duels for c in self.cells.values())

    @property
    def mean_turns(self) -> float:
        """Mean duel length in turns."""
        return sum(c.turns for c in self.cells.values()) / max(1, self.duels)

    @property
    def draw_share(self) -> float:
        """Share of drawn duels (0..1)."""
        return sum(c.draws for c in self.cells.values()) / max(1, self.duels)

    @property
    def capped_share(self) -> float:
        """Share of duels closed by the referee at the turn cap (0..1)."""
        return sum(c.capped for c in self.cells.values()) / max(1, self.duels)

    @property
    def median_turns(self) -> float:
        """Median duel length in turns (every duel of the table; 0 with none)."""
        lengths = sorted(t for c in self.cells.values() for t in c.lengths)
        if not lengths:
            return 0.0
        mid = len(lengths) // 2
        return float(lengths[mid]) if len(lengths) % 2 else (lengths[mid - 1] + lengths[mid]) / 2

    def meaningless(self) -> str | None:
        """Why the table's win rates mean little, or None: ``"capped"`` when at least
        :data:`MEANINGLESS_CAPPED` of its duels hit the turn cap, ``"no_winner"`` when no
        duel had a winner (an all-zero table is no result), ``"empty"`` with no duel."""
        if not self.duels:
            return "empty"
        if not any(c.wins or c.losses for c in self.cells.values()):
            return "no_winner"
        if self.capped_share >= MEANINGLESS_CAPPED:
            return "capped"
        return None

    def few(self) -> int | None:
        """The duels of the table's smallest cell when below :data:`FEW_DUELS` (the table
        means little: its intervals are wide), else None (also with no cell)."""
        counts = [c.duels for c in self.cells.values()]
        least = min(counts, default=FEW_DUELS)
        return least if least < FEW_DUELS else None


def _result(state: DuelState, row: str) -> str:
    if not state.finished:
        return "capped"
    if state.draw:
        return "draw"
    if state.winner is None:
        return "capped"
    return "win" if state.winner == row else "loss"


def play_classic(
    rs: Ruleset,
    years: tuple[str, str],
    policies: tuple[Policy, Policy],
    rng: Rng,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> tuple[DuelState, int]:
    """One classic duel, first side ``"A"`` against ``"B"``; returns (final state, turns)."""
    state = start_duel(new_duel(rs, [("A", years[0]), ("B", years[1])]))
    pid = 0
    turns = 0
    while not state.finished and turns < max_turns:
        a, b = state.duellists
        posts = [
            classic_post(rs, a, pid + 1, rng, policies[0]),
            classic_post(rs, b, pid + 2, rng, policies[1]),
        ]
        dice = {
            pid + 1: (rng.randint(1, 6), rng.randint(1, 6)),
            pid + 2: (rng.randint(1, 6), rng.randint(1, 6)),
        }
        pid += 2
        state = resolve_turn(state, posts, dice, ruleset=rs, trail=False).state
        turns += 1
    return state, turns


def play_fatigue(
    rs: FatigueRuleset,
    sides: tuple[tuple[str, str | tuple[str, ...]], tuple[str, str | tuple[str, ...]]],
    policies: tuple[Policy, Policy],
    rng: Rng,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> tuple[DuelState, int]:
    """One fatigue 1v1 duel; ``sides`` are (year, magic type or types) of ``"A"`` and
    ``"B"``. The initiative goes to either side with even odds each turn (whoever posts
    first)."""
    state = _started(rs, sides)
    below = drawer(rng)  # rng.randint(1, 6) is 1 + below(6): the same draws
    draw = rng.random
    plan = plan_for(rs)
    pid = 0
    turns = 0
    while not state.finished and turns < max_turns:
        # the first poster, by place in the roster (A, B): it stays the same in every state
        i = 0 if draw() < 0.5 else 1
        duellists = state.duellists
        pid += 1
        post = fatigue_post(rs, duellists[i], duellists[1 - i], pid, "initiative", rng,
                            policies[i], below)  # fmt: skip
        die = 1 + below(6)
        after = None if plan is None else advance_trusted(plan, state, post, die)
        state = _full_step(rs, state, post, die) if after is None else after
        turns += 1
        if state.finished:
            break
        duellists = state.duellists
        pid += 1
        post = fatigue_post(rs, duellists[1 - i], duellists[i], pid, "defense", rng,
                            policies[1 - i], below)  # fmt: skip
        die = 1 + below(6)
        after = None if plan is None else advance_trusted(plan, state, post, die)
        state = _full_step(rs, state, post, die) if after is None else after
    return state, turns


_STARTS: dict[tuple[int, str, str, object], tuple[FatigueRuleset, DuelState]] = {}
"""(ruleset id, name, year, magic types) -> (ruleset, the started duel of ``name`` of that year
and types against a "B" or an "A"): the duellists' starting states, read once each."""


def _started(
    rs: FatigueRuleset, sides: tuple[tuple[str, str | tuple[str, ...]], ...]
) -> DuelState:
    """``start_duel(new_fatigue_duel(rs, [("A", year, types), ("B", year, types)]))`` of
    ``sides`` = ((year, type or types) of A, of B): a duellist's starting state depends only
    on its name, year and types, so each is built once (frozen: shared by every duel) and the
    duel is that of A with B's state put in. Raises RuleError as :func:`new_fatigue_duel`."""
    (ya, ta), (yb, tb) = sides
    key_a, key_b = (id(rs), "A", ya, ta), (id(rs), "B", yb, tb)
    got_a, got_b = _STARTS.get(key_a), _STARTS.get(key_b)
    if got_a is None or got_a[0] is not rs or got_b is None or got_b[0] is not rs:
        state = start_duel(new_fatigue_duel(rs, [
            ("A", ya, (ta,) if isinstance(ta, str) else ta),
            ("B", yb, (tb,) if isinstance(tb, str) else tb),
        ]))  # fmt: skip
        # the same values in combined-table dicts (evolve's): read fast by every duel
        state = evolve(state, duellists=tuple(evolve(d) for d in state.duellists))
        if len(_STARTS) >= 4096:
            _STARTS.clear()
        _STARTS[key_a] = _STARTS[key_b] = (rs, state)
        return state
    return evolve(got_a[1], duellists=(got_a[1].duellists[0], got_b[1].duellists[1]))


def _full_step(rs: FatigueRuleset, state: DuelState, post: TurnPost, die: int) -> DuelState:
    """The state after one step of a simulated fatigue duel that the trusted fast path
    (legal play; only the next state built, :func:`advance_trusted`) leaves to the full
    resolution."""
    return resolve_fatigue_step(
        state, [post], {post.post_id: (die,)}, ruleset=rs, trail=False
    ).state


def _cell(row: str, col: str, results: Sequence[tuple[str, int]]) -> Cell:
    return Cell(
        row=row,
        col=col,
        duels=len(results),
        wins=sum(1 for r, _ in results if r == "win"),
        losses=sum(1 for r, _ in results if r == "loss"),
        draws=sum(1 for r, _ in results if r == "draw"),
        capped=sum(1 for r, _ in results if r == "capped"),
        turns=sum(t for _, t in results),
        lengths=tuple(t for _, t in results),
    )


def _policies(rng: Rng, policies: Sequence[Policy]) -> tuple[Policy, Policy]:
    return (rng.choice(policies), rng.choice(policies))


def type_combinations(rs: FatigueRuleset) -> list[tuple[str, ...]]:
    """Every magic-type combination a duellist may have: one type, or two (RULES.md: "Magic
    type: one or two of the five"), sorted: 15 with the five shipped types."""
    keys = sorted(rs.magic_types)
    return [(k,) for k in keys] + [(a, b) for i, a in enumerate(keys) for b in keys[i + 1 :]]


_COMBINATIONS: dict[int, tuple[FatigueRuleset, list[tuple[str, ...]]]] = {}
"""id(ruleset) -> (ruleset, its :func:`type_combinations`): read once per ruleset (a duel
of the table draws from them)."""


def _combinations(rs: FatigueRuleset) -> list[tuple[str, ...]]:
    found = _COMBINATIONS.get(id(rs))
    if found is None or found[0] is not rs:
        if len(_COMBINATIONS) >= 64:
            _COMBINATIONS.clear()
        found = _COMBINATIONS[id(rs)] = (rs, type_combinations(rs))
    return found[1]


Outcome = tuple[str, int]
"""One simulated duel: (``"win"``, ``"loss"``, ``"draw"`` or ``"capped"`` for the row side,
turns played)."""

Duel = Callable[[str, str, Rng], Outcome]
"""One duel of a table's cell: (row side, column side, its draws) -> :data:`Outcome`."""

Run = Callable[[Duel, Sequence[tuple[str, str]]], Sequence[Outcome]]
"""Plays a table's duels: (one duel, every duel's (row, column) in table order) -> their
outcomes in that order. The caller seeds duel ``i`` from (seed, ``i``) itself (the CLI's
parallel run, ``forumbot/cli/simulate_jobs.py``: the same outcomes whatever the processes)."""


def year_duel(
    rs: Ruleset, policies: Sequence[Policy], max_turns: int, row: str, col: str, rng: Rng
) -> Outcome:
    """One duel of :func:`simulate`'s cell (``row``, ``col``): policies, then (fatigue) one
    magic-type combination per duellist, drawn from ``rng``, then the duel."""
    pol = _policies(rng, policies)
    if isinstance(rs, FatigueRuleset):
        types = _combinations(rs)
        sides = ((row, rng.choice(types)), (col, rng.choice(types)))
        state, turns = play_fatigue(rs, sides, pol, rng, max_turns)
    else:
        state, turns = play_classic(rs, (row, col), pol, rng, max_turns)
    return _result(state, "A"), turns


def type_duel(
    rs: FatigueRuleset, year: str, policies: Sequence[Policy], max_turns: int, row: str,
    col: str, rng: Rng,
) -> Outcome:  # fmt: skip
    """One duel of :func:`simulate_magic_types`' cell (type ``row``, type ``col``)."""
    pol = _policies(rng, policies)
    state, turns = play_fatigue(rs, ((year, row), (year, col)), pol, rng, max_turns)
    return _result(state, "A"), turns


def per_cell(keys: Sequence[str], duels: int, what: str = "years") -> int:
    """Duels per cell of a ``keys`` x ``keys`` table of ``duels`` duels. Raises RuleError
    (``"simulate"``) below one per cell."""
    per = duels // (len(keys) ** 2)
    if per < 1:
        raise RuleError("simulate", f"at least {len(keys) ** 2} duels (one per pair of {what})")
    return per


def play_table(
    duel: Duel, keys: Sequence[str], per: int, rng: Rng | None = None,
    rng_of: Callable[[int], Rng] | None = None, run: Run | None = None,
) -> dict[tuple[str, str], Cell]:  # fmt: skip
    """The cells of a table: ``per`` duels for each (row, column) of ``keys`` in order,
    each drawn from the one stream ``rng``, or duel ``i`` (0-based, table order) from
    ``rng_of(i)``, or played by ``run`` (which seeds them). Raises RuleError without any."""
    jobs = [(row, col) for row in keys for col in keys for _ in range(per)]
    if run is not None:
        outcomes = list(run(duel, jobs))
    elif rng_of is not None:
        outcomes = [duel(row, col, rng_of(i)) for i, (row, col) in enumerate(jobs)]
    elif rng is not None:
        outcomes = [duel(row, col, rng) for row, col in jobs]
    else:
        raise RuleError("simulate", "no randomness given (rng, rng_of or run)")
    cells: dict[tuple[str, str], Cell] = {}
    for n, (row, col) in enumerate(jobs[::per]):
        cells[(row, col)] = _cell(row, col, outcomes[n * per : (n + 1) * per])
    return cells


def simulate(
    rs: Ruleset,
    *,
    duels: int,
    rng: Rng | None = None,
    policies: Sequence[Policy] = POLICIES,
    max_turns: int = DEFAULT_MAX_TURNS,
    years: Sequence[str] | None = None,
    rng_of: Callable[[int], Rng] | None = None,
    run: Run | None = None,
) -> Table:
    """Year against year: ``duels`` duels spread evenly over every (row, column) pair of years.

    Fatigue duellists get one or two magic types drawn at random for each duel (one of the
    :func:`type_combinations`, all equally likely: a duellist of one year is not the same
    duellist twice, issue 26). The draws: one stream ``rng`` for every duel, or duel ``i``'s
    own ``rng_of(i)``, or ``run`` (:func:`play_table`). Raises RuleError (``"simulate"``)
    when ``duels`` is smaller than the number of cells.
    """
    keys = tuple(years or rs.starting_points)
    per = per_cell(keys, duels)
    duel = partial(year_duel, rs, tuple(policies), max_turns)
    return Table(rs.name, "years", keys, keys, play_table(duel, keys, per, rng, rng_of, run))


def simulate_magic_types(
    rs: FatigueRuleset,
    *,
    duels: int,
    rng: Rng | None = None,
    year: str = "5",
    policies: Sequence[Policy] = POLICIES,
    max_turns: int = DEFAULT_MAX_TURNS,
    rng_of: Callable[[int], Rng] | None = None,
    run: Run | None = None,
) -> Table:
    """Fatigue, magic type against magic type (both duellists of ``year``); the draws as in
    :func:`simulate`."""
    keys = tuple(sorted(rs.magic_types))
    per = per_cell(keys, duels, "types")
    duel = partial(type_duel, rs, year, tuple(policies), max_turns)
    cells = play_table(duel, keys, per, rng, rng_of, run)
    return Table(rs.name, "magic_types", keys, keys, cells, year=year)


def compare(a: Table, b: Table) -> dict[tuple[str, str], float]:
    """Win-rate differences ``b - a`` in percentage points, per cell both tables share."""
    return {
        k: round(100 * (b.cells[k].win_rate - a.cells[k].win_rate), 1)
        for k in a.cells
        if k in b.cells
    }


__all__ = [
    "DEFAULT_MAX_TURNS",
    "FEW_DUELS",
    "MEANINGLESS_CAPPED",
    "Cell",
    "Duel",
    "Outcome",
    "Run",
    "Table",
    "compare",
    "per_cell",
    "play_table",
    "play_classic",
    "play_fatigue",
    "simulate",
    "simulate_magic_types",
    "type_combinations",
    "type_duel",
    "wilson",
    "year_duel",
]
