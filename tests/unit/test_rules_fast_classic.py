"""The classic fast path (:mod:`rules.classic_fast`) gives the full resolution's outcome on
generated legal play and on every step of the hand-computed (golden) classic duels (issue 26:
"generate the equality tests from the golden duels and from generated legal play
(hypothesis)"; the fatigue ones are in ``test_rules_fast.py`` and ``test_rules_fast_golden.py``).

Both sides of each comparison run here: :func:`rules.classic_fast.resolve_fast` (what
``trail=False`` runs) and the full resolution with its trail (``resolve_turn``, the referee's
draft). They must agree on everything but the trail.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import TurnPost, new_duel, parse_ruleset, resolve_turn, start_duel
from rules.balance.policies import POLICIES, Policy, classic_post
from rules.classic_fast import resolve_fast
from rules.model import DuelState, TurnOutcome
from tests.golden import run_golden
from tests.unit.test_rules_fast import CLASSIC_TEXT, CLASSIC_VARIANTS, YEARS, _variant

A, C = "Aurora Vexley", "Cassius Thorne"
_RULESETS = {n: parse_ruleset(_variant(CLASSIC_TEXT, ch)) for n, ch in CLASSIC_VARIANTS.items()}


def _equal_but_trail(fast: TurnOutcome, full: TurnOutcome) -> None:
    assert fast.trail == ()
    one, two = fast.to_dict(), full.to_dict()
    one.pop("trail")
    two.pop("trail")
    assert one == two, f"fast path differs on turn {full.turn}"
    assert fast.state == full.state and fast.attacks == full.attacks


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    variant=st.sampled_from(sorted(CLASSIC_VARIANTS)),
    policies=st.tuples(st.sampled_from(POLICIES), st.sampled_from(POLICIES)),
    years=st.tuples(st.sampled_from(YEARS), st.sampled_from(YEARS)),
    swapped=st.booleans(),
)
def test_classic_fast_path_equals_the_full_one_on_generated_legal_play(
    seed: int, variant: str, policies: tuple[Policy, Policy], years: tuple[str, str],
    swapped: bool,
) -> None:  # fmt: skip
    """Hypothesis draws the duels (setting variant, years, policies, dice, the order of the
    two posts); every turn of the balance simulator's legal play (random legal or greedy
    duellists) goes through the fast path and the full resolution, to the end of the duel."""
    rs = _RULESETS[variant]
    rng = random.Random(seed)
    state: DuelState = start_duel(new_duel(rs, [(A, years[0]), (C, years[1])]))
    pid = 0
    turns = 0
    while not state.finished and turns < 60:
        a, c = state.duellists
        posts = [classic_post(rs, a, pid + 1, rng, policies[0]),
                 classic_post(rs, c, pid + 2, rng, policies[1])]  # fmt: skip
        if swapped:
            posts.reverse()
        dice = {p.post_id: (rng.randint(1, 6), rng.randint(1, 6)) for p in posts}
        pid += 2
        fast = resolve_fast(state, posts, dice, rs)
        full = resolve_turn(state, posts, dice, ruleset=rs)
        assert fast is not None  # legal play is the common case the fast path takes
        _equal_but_trail(fast, full)
        state = full.state
        turns += 1
    assert turns > 0


GOLDEN_MODULES = ("tests.unit.test_rules_classic",)


def _compared(counts: dict[str, int]) -> Callable[..., TurnOutcome]:
    """``resolve_turn``, also comparing the fast path's outcome on every turn it takes."""

    def turn(state: Any, posts: Any, dice: Any, **kw: Any) -> TurnOutcome:
        full = resolve_turn(state, posts, dice, **kw)
        if kw.get("overrides") or kw.get("waived"):
            counts["full only"] += 1
            return full
        fast = resolve_fast(state, posts, dice, kw["ruleset"])
        if fast is None:
            counts["full only"] += 1
            return full
        _equal_but_trail(fast, full)
        counts["compared"] += 1
        return full

    return turn


@pytest.mark.parametrize("name", GOLDEN_MODULES)
def test_classic_fast_path_equals_the_full_engine_on_every_golden_duel_turn(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each golden classic test (seed 000's worked examples, RULES.md's readings) runs as
    written, its ``resolve_turn`` wrapped: every turn the fast path takes is resolved by both
    and compared (the golden tests still check their own numbers)."""
    counts = {"compared": 0, "full only": 0}
    run_golden(monkeypatch, name, "resolve_turn", _compared(counts))
    assert counts["compared"] >= 20, counts


def test_fast_path_refuses_what_it_does_not_take() -> None:
    """A post before the start, one post only, or the wrong ruleset: None (the full
    resolution runs, and raises or handles it)."""
    rs = _RULESETS["shipped"]
    state = start_duel(new_duel(rs, [(A, "5"), (C, "5")]))
    spell = rs.spells[0].name
    one = [TurnPost(A, 1, spell, spell_text=spell)]
    assert resolve_fast(state, one, {1: (3, 4)}, rs) is None
    two = [*one, TurnPost(C, 2, spell, spell_text=spell, before_start=True)]
    assert resolve_fast(state, two, {1: (3, 4), 2: (1, 2)}, rs) is None
    other = parse_ruleset(CLASSIC_TEXT.replace('name = "classic"', 'name = "other"', 1))
    both = [*one, TurnPost(C, 2, spell, spell_text=spell)]
    assert other.name != rs.name
    assert resolve_fast(state, both, {1: (3, 4), 2: (1, 2)}, other) is None
    assert resolve_fast(state, both, {1: (3, 4), 2: (1, 2)}, rs) is not None
