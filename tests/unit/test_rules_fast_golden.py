"""The fatigue fast path gives the full resolution's outcome on every step of the hand-computed
(golden) duels, not only on generated play (issue 26: "generate the equality tests from the
golden duels and from generated legal play").

Each golden-duel test of the modules below runs as written, with the engine entry they call
(``resolve_fatigue_step``) wrapped: every step they resolve that the fast path takes (no
referee override, waiver, confirmation, post facts or voided post) is also resolved by
:func:`rules.fatigue.fast.resolve_fast`, and both outcomes must be equal but for the trail.
The golden tests still check their own hand-computed numbers. The generated play is in
``test_rules_fast.py`` (hypothesis).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from rules.fatigue import resolve_fatigue_step
from rules.fatigue.fast import advance_trusted, plan_for, resolve_fast
from rules.model import TurnOutcome
from tests.golden import run_golden

GOLDEN_MODULES = (
    "tests.unit.test_rules_fatigue",
    "tests.unit.test_rules_issue26",
    "tests.unit.test_no_action_spent",
)
_SPECIAL = ("overrides", "waived", "confirmed", "facts", "voided")
_LEGAL_VOIDS = (None, "pending", "dodge", "dodged", "riposte_failed", "no_action")
"""Void reasons of attacks a legal post can give (no violation voided them)."""


def _legal(state: Any, posts: Any, dice: Any, full: TurnOutcome) -> bool:
    """True when the step is one of legal play, as the balance simulator's trusted step takes
    it: at most one post, its action named, a die for it, and nothing voided by a rule."""
    if len(posts) > 1 or full.violations or not state.started:
        return False
    if any(a.void_reason not in _LEGAL_VOIDS for a in full.attacks):
        return False
    if state.pending and not state.pending[0].kind:
        return False
    return all(p.kind and not p.before_start and dice.get(p.post_id) for p in posts)


def _compared(counts: dict[str, int]) -> Callable[..., TurnOutcome]:
    """``resolve_fatigue_step``, also comparing the fast path's outcome on what it takes."""

    def step(state: Any, posts: Any, dice: Any, **kw: Any) -> TurnOutcome:
        full = resolve_fatigue_step(state, posts, dice, **kw)
        if any(kw.get(k) for k in _SPECIAL):
            counts["full only"] += 1
            return full
        fast = resolve_fast(state, posts, dice, kw["ruleset"], kw.get("step"))
        if fast is None:
            counts["full only"] += 1
            return full
        one, two = fast.to_dict(), full.to_dict()
        one.pop("trail")
        two.pop("trail")
        assert one == two, f"fast path differs on turn {full.turn}"
        assert fast.state == full.state and fast.attacks == full.attacks
        counts["compared"] += 1
        if _legal(state, posts, dice, full):  # the simulator's lean trusted step too
            plan = plan_for(kw["ruleset"])
            post = posts[0] if posts else None
            die = dice[post.post_id][0] if post else 0
            assert plan is not None and advance_trusted(plan, state, post, die) == full.state
            counts["trusted"] += 1
        return full

    return step


@pytest.mark.parametrize("name", GOLDEN_MODULES)
def test_fast_path_equals_the_full_engine_on_every_golden_duel_step(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = {"compared": 0, "full only": 0, "trusted": 0}
    run_golden(monkeypatch, name, "resolve_fatigue_step", _compared(counts), optional=True)
    # the golden duels are mostly plain play: many of their steps go through both paths
    assert counts["compared"] >= 5 and counts["trusted"] >= 1, counts
