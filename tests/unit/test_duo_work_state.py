"""Issue 26, 2v2 speed: the 2v2 step changes a :class:`rules.duo.state.WorkState` in place
instead of a frozen copy per change. Hypothesis draws simulated 2v2 duels (tests/duo_play.py:
legal play of the greedy and random duellists and odd posts, both spellbooks, every shipped
environment) and checks, on every state they pass through (mid-turn ones included: posts in,
spells waiting), that the working state answers every lookup as the frozen state does, gives
the same state back, and that its changes are those ``evolve`` makes; and that the same
duels give the same outcomes with the trail on and off (the digests of
test_duo_digest.py pin them to the engine before this work)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.duo import DuoOutcome
from rules.duo.state import DuoState, WorkState, evolve
from tests.duo_play import duo_outcomes

duels = st.builds(
    duo_outcomes,
    seed=st.integers(0, 10_000),
    duels=st.just(2),
    trail=st.just(False),
    odd_share=st.sampled_from((0.0, 0.2)),
    policies=st.sampled_from((("greedy",), ("random",), ("greedy", "random"))),
)


def _lookups(s: DuoState) -> tuple[object, ...]:
    names = s.names()
    zones = sorted({z for _, z in s.positions})
    return (
        s.duel, names, s.active_names(), s.all_together(),
        tuple((n, s.zone_of(n), s.duo_of(n), s.teammate(n), s.opponents(n), s.active(n))
              for n in names),
        tuple((z, s.in_zone(z)) for z in zones),
        tuple((k, s.creature_pv(k)) for k, _ in s.creatures),
    )  # fmt: skip


@settings(max_examples=40, deadline=None, derandomize=True)
@given(duels)
def test_the_working_state_answers_and_changes_as_the_frozen_state(
    outcomes: list[DuoOutcome],
) -> None:
    assert outcomes
    for out in outcomes:
        frozen = out.state
        work = WorkState(frozen)
        assert work.freeze() == frozen
        assert _lookups(work) == _lookups(frozen)
        # a change of each kind the step makes: a duellist's PV, a move, the turn's posts
        first, *rest = frozen.duel.duellists
        hurt = evolve(first, points=first.points - 7)
        there = frozen.positions[-1][1]
        moved = tuple((n, there if n == first.name else z) for n, z in frozen.positions)
        expected = replace(
            frozen,
            duel=replace(frozen.duel, duellists=(hurt, *rest)),
            positions=moved,
            posted=(*frozen.posted, first.name),
        )
        work.put(hurt)
        work.update(positions=moved, posted=(*frozen.posted, first.name))
        assert work.freeze() == expected
        assert type(work.freeze()) is DuoState
        assert set(vars(work.freeze())) == set(DuoState.__dataclass_fields__)  # nothing leaks
        assert _lookups(work) == _lookups(expected)
        work.update(duel=frozen.duel)  # a whole duel given back: its members with it
        assert work.member(first.name) == first


@settings(max_examples=15, deadline=None, derandomize=True)
@given(seed=st.integers(0, 10_000), odd=st.sampled_from((0.0, 0.2)))
def test_the_trail_changes_no_outcome(seed: int, odd: float) -> None:
    on = duo_outcomes(seed, 2, True, odd)
    off = duo_outcomes(seed, 2, False, odd)
    assert len(on) == len(off)
    for with_trail, without in zip(on, off, strict=True):
        assert not without.trail
        assert replace(with_trail, trail=()) == without
