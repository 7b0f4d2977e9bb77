"""Duel lifecycle, generic over rulesets: create, start, and resolve turns through the engine
registered for the ruleset (``Ruleset.engine``).

Seed 000, Phase 1: "Les duellistes doivent se faire face au centre de la table de duel. [...]
Aucun sort ne doit être lancé avant le top de l'arbitre".
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from rules.classic import resolve_classic_turn
from rules.errors import RuleError
from rules.fast import evolve
from rules.model import DuellistState, DuelState, TurnOutcome, TurnPost
from rules.ruleset import Ruleset


class TurnResolver(Protocol):
    """Signature of an engine's turn resolution (see :func:`resolve_turn`)."""

    def __call__(
        self,
        state: DuelState,
        posts: Sequence[TurnPost],
        dice: Mapping[int, Sequence[int]],
        *,
        ruleset: Ruleset,
        overrides: Mapping[str, int | bool] | None = None,
        waived: Collection[tuple[str, str]] = (),
        trail: bool = True,
    ) -> TurnOutcome: ...


ENGINES: dict[str, TurnResolver] = {"classic": resolve_classic_turn}


def register_engine(name: str, resolver: TurnResolver) -> None:
    """Make :func:`resolve_turn` dispatch rulesets whose ``engine`` is ``name`` to ``resolver``."""
    ENGINES[name] = resolver


def new_duel(
    ruleset: Ruleset, duellists: Sequence[tuple[str, str]], stakes: str | None = None
) -> DuelState:
    """A duel not yet started: each duellist at the starting points of their year.

    Args:
        ruleset: the parsed ruleset.
        duellists: (name, year) pairs, e.g. ``[("Aurora Vexley", "5"), ("Cassius Thorne", "7+")]``.
        stakes: the stakes agreed by both, or None for a friendly duel (seed 000: "tout enjeu
            accepté par les deux partis doit être respecté en fin de duel").

    Returns:
        ``DuelState(turn=0, started=False)``; points in ``ruleset.unit`` (seed 000: "Chaque
        duelliste part, en effet, avec un nombre de point de défense en fonction de son niveau").

    Raises:
        RuleError: a count of duellists the ruleset does not allow (``"duellists"``), an empty
            or repeated name (``"duellists"``), a year with no starting points
            (``"starting_points"``).
    """
    if len(duellists) not in ruleset.duellists:
        raise RuleError(
            "duellists", f"{len(duellists)} duellists; ruleset allows {list(ruleset.duellists)}"
        )
    names = [name for name, _ in duellists]
    if any(not n.strip() for n in names) or len(set(names)) != len(names):
        raise RuleError("duellists", f"names must be non-empty and distinct: {names}")
    return DuelState(
        ruleset=ruleset.name,
        turn=0,
        started=False,
        duellists=tuple(
            DuellistState(name=name, year=year, points=ruleset.starting_points_for(year))
            for name, year in duellists
        ),
        stakes=stakes,
    )


def start_duel(state: DuelState) -> DuelState:
    """The referee's opening declaration gives the start ("top"): spells count from now.

    Raises:
        RuleError: already started or finished (rule ``"start"``).
    """
    if state.started or state.finished:
        raise RuleError("start", "the duel has already started or is over")
    return evolve(state, started=True)  # DuelState has no __post_init__ check


def resolve_turn(
    state: DuelState,
    posts: Sequence[TurnPost],
    dice: Mapping[int, Sequence[int]],
    *,
    ruleset: Ruleset,
    overrides: Mapping[str, int | bool] | None = None,
    waived: Collection[tuple[str, str]] = (),
    trail: bool = True,
) -> TurnOutcome:
    """Resolve a turn with the engine registered for ``ruleset.engine``.

    Classic: :func:`rules.classic.resolve_classic_turn`.

    ``dice`` maps post id -> die values (classic: (attack, defense), d6). ``overrides`` and
    ``waived`` are the referee's corrections; see the engine's documentation. ``trail=False``
    (nobody reads it: the balance simulator) gives an outcome with an empty ``trail`` and
    otherwise identical, faster.

    Raises:
        RuleError: no engine registered under ``ruleset.engine`` (``"engine"``), or the
            engine's own errors.
    """
    resolver = ENGINES.get(ruleset.engine)
    if resolver is None:
        raise RuleError("engine", f"no engine registered as {ruleset.engine!r}")
    if trail:
        return resolver(state, posts, dice, ruleset=ruleset, overrides=overrides, waived=waived)
    return resolver(
        state, posts, dice, ruleset=ruleset, overrides=overrides, waived=waived, trail=False
    )
