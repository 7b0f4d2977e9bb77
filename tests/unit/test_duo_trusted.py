"""Issue 26, 2v2 speed: the balance simulator's trusted 2v2 step (:mod:`rules.duo.trusted`)
gives the full engine's outcome (:func:`rules.duo.resolve_duo_step`) on every step it takes,
and leaves to the full engine every step it does not cover.

- Generated play (hypothesis, derandomized; the generator of ``tests/duo_play.py``): seeded
  duels of the greedy and random duellists, both spellbooks, every shipped environment, go
  through the trusted step; each step it takes is also resolved by the full engine on the
  frozen state before it, and the states, the turn's close and the end must be equal.
- Odd posts (unknown spells, no or two targets, creatures, mechanisms, items, bad bets) are
  not the scripted duellists' (``LegalPost``): those steps fall back to the full engine, and
  the counts show that they do.
- The hand-computed 2v2 duels: every step they resolve with no referee decision and no
  violation (legal play) is also run through the trusted step, posts taken as legal play.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules.balance.duo as sim
from rules.balance.duo import play_duo
from rules.balance.simulate import type_combinations
from rules.duo import DuoOutcome, resolve_duo_step
from rules.duo.trusted import LegalPost, TrustedDuo
from rules.fatigue import load_fatigue_ruleset
from tests.duo_play import DATA, ENVS, SETTINGS, SHIPPED, trusted_against_full
from tests.golden import run_golden


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    seed=st.integers(0, 10_000),
    policies=st.sampled_from((("greedy",), ("random",), ("greedy", "random"))),
)
def test_the_trusted_step_gives_the_full_engines_states_on_legal_play(
    seed: int, policies: tuple[str, ...]
) -> None:
    counts = trusted_against_full(seed, 3, 0.0, policies)
    assert counts["compared"] > 20, counts
    assert counts["closed"] > 0, counts
    # legal play is nearly all taken (a cast at a creature, a held second initiative and
    # the 2v2 violations fall back)
    assert counts["fallback"] * 10 <= counts["compared"], counts


@settings(max_examples=6, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000))
def test_odd_posts_fall_back_to_the_full_engine(seed: int) -> None:
    counts = trusted_against_full(seed, 3, 0.25)
    assert counts["compared"] > 0, counts
    assert counts["fallback"] > 0, counts


def test_many_seeded_duels_end_as_the_full_engine_ends_them() -> None:
    counts = trusted_against_full(26, 12)
    assert counts["finished"] >= 6, counts  # duels that end (not only capped ones) compared
    assert counts["fallback"] > 0, counts  # the fallback is reached in plain play too


def test_the_simulator_plays_the_same_duel_through_either_step() -> None:
    types = type_combinations(SHIPPED)
    sides = [[("5", types[0]), ("5", types[-1])], [("6", types[1]), ("4", types[2])]]
    for seed, env in enumerate(ENVS):
        one = play_duo(SHIPPED, env, SETTINGS, sides, ["greedy", "random"] * 2,
                       random.Random(seed), trusted=True)  # fmt: skip
        two = play_duo(SHIPPED, env, SETTINGS, sides, ["greedy", "random"] * 2,
                       random.Random(seed), trusted=False)  # fmt: skip
        assert one == two
        assert one[0].duel.finished


def test_a_spellbook_with_cast_limits_plays_through_the_full_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the 1v1 fast path has no plan for spells with a max_casts: the trusted step would fall
    # back at every step, so the simulator takes the full engine at once
    text = (DATA / "fatigue.toml").read_text(encoding="utf-8")
    limited = load_fatigue_ruleset(text.replace("[[spells]]\n", "[[spells]]\nmax_casts = 2\n", 1))
    assert limited.has_cast_limits
    built: list[object] = []

    class Counted(TrustedDuo):
        def __init__(self, *args: Any) -> None:
            built.append(args)
            super().__init__(*args)

    monkeypatch.setattr(sim, "TrustedDuo", Counted)
    types = type_combinations(limited)
    sides = [[("5", types[0]), ("5", types[-1])], [("5", types[1]), ("5", types[2])]]
    state, turns = play_duo(limited, ENVS[0], SETTINGS, sides, ["greedy"] * 4, random.Random(2))
    assert not built and turns > 0 and state.duel.turn > 0


# -- the hand-computed 2v2 duels ------------------------------------------------------------

GOLDEN_MODULES = (
    "tests.unit.test_duo_rules",
    "tests.unit.test_reader2_duo",
    "tests.unit.test_reader25_duo",
    "tests.unit.test_duo_trail_undefended",
    "tests.unit.test_rules_issue26",
    "tests.unit.test_no_action_spent",
)
_DECISIONS = ("solved", "waived", "confirmed", "facts", "overrides")
_LEGAL_VOIDS = (None, "pending", "dodge", "dodged", "riposte_failed", "no_action")


def _legal(full: DuoOutcome) -> bool:
    """A step of legal play: no violation, no void spell (all four shared the rules)."""
    return not full.violations and all(a.void_reason in _LEGAL_VOIDS for a in full.attacks)


def _compared(counts: dict[str, int]) -> Callable[..., DuoOutcome]:
    """``resolve_duo_step``, also running the trusted step on the legal-play steps."""

    def step(state: Any, posts: Any, dice: Any, **kw: Any) -> DuoOutcome:
        full = resolve_duo_step(state, posts, dice, **kw)
        if any(kw.get(k) for k in _DECISIONS) or not _legal(full):
            counts["full only"] += 1
            return full
        duo = TrustedDuo(state, kw["ruleset"], kw["env"], kw["settings"], kw["draw"])
        legal = [LegalPost(dp.post, dp.move_to, dp.use_item) for dp in posts]
        closed = duo.step(legal, dice)
        if duo.fallbacks:
            counts["fallback"] += 1
            return full
        assert duo.freeze() == full.state
        assert (closed, duo.finished, duo.winners) == (full.turn_closed, full.finished,
                                                       full.winners)  # fmt: skip
        counts["compared"] += 1
        return full

    return step


@pytest.mark.parametrize("name", GOLDEN_MODULES)
def test_the_trusted_step_equals_the_full_engine_on_the_golden_2v2_duels(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = {"compared": 0, "fallback": 0, "full only": 0}
    run_golden(monkeypatch, name, "resolve_duo_step", _compared(counts))
    assert counts["compared"] >= 1, counts
