"""Referee overrides of computed numbers in the pure 2v2 engine (rules.duo.resolve_duo_step,
issue 5; RULES.md, Referee and admin: "change any computed number"): same keys as the 1v1
fatigue engine, applied where computed, recorded in the trail, unknown keys refused."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from rules.duo import DuoOutcome, DuoPost, DuoState, resolve_duo_step
from rules.errors import RuleError
from tests.unit.test_duo_rules import A1, A2, B1, B2, CFG, ENV, RS, drawer, duel, post, pv

# issue 26: these duels were written with the spellbook of tests/fixtures/fatigue_seed_tests.toml
pytestmark = pytest.mark.usefixtures("seed_spellbook")


def run(state: DuoState, posts: list[DuoPost], die: int, **kw: Any) -> DuoOutcome:
    return resolve_duo_step(
        state, posts, {p.post.post_id: (die,) for p in posts}, ruleset=RS,  # type: ignore[arg-type]
        env=ENV, settings=CFG, draw=drawer({}), **kw,
    )  # fmt: skip


def overridden(outcome: DuoOutcome) -> list[tuple[str, object, str]]:
    return [
        (t.quantity, t.value, t.detail)  # type: ignore[attr-defined]
        for t in outcome.trail
        if t.rule == "referee.override"  # type: ignore[attr-defined]
    ]


def dodged_initiative() -> tuple[DuoState, DuoPost]:
    """A1's Flipendo waits for B1 (die 2: A1's bet lost); B1's dodge (die 2) wins its bet."""
    s = duel({A1: 0, A2: 1, B1: 0, B2: 1})
    waiting = run(s, [post(A1, 1, "Flipendo", B1)], 2).state
    return waiting, post(B1, 2, None, A1, kind="dodge", bet=(1, 2, 3, 4))


def test_dodged_override_lands_the_waiting_spell_and_is_in_the_trail() -> None:
    waiting, dodge = dodged_initiative()
    plain = run(waiting, [dodge], 2)
    assert pv(plain.state, B1) == 500 and not plain.attacks[0].landed
    forced = run(waiting, [dodge], 2, overrides={f"{B1}.dodged": False})
    assert forced.attacks[0].landed and pv(forced.state, B1) == 500 - forced.attacks[0].damage
    assert forced.attacks[0].damage > 0
    assert overridden(forced) == [(f"{B1}.dodged", False, "computed True, referee set False")]


def test_damage_and_landed_overrides_of_the_attacker() -> None:
    waiting, dodge = dodged_initiative()
    o = run(waiting, [dodge], 2, overrides={f"{A1}.landed": True, f"{A1}.damage": 33})
    assert pv(o.state, B1) == 467
    assert [q for q, _, _ in overridden(o)] == [f"{A1}.landed", f"{A1}.damage"]


def test_die_override_is_kept_in_the_waiting_post_and_reported() -> None:
    s = duel({A1: 0, A2: 1, B1: 0, B2: 1})
    o = run(s, [post(A1, 1, "Flipendo", B1)], 2, overrides={f"{A1}.die": 5})
    assert o.dice == {1: (5,)}
    assert o.state.pending[0].post.dice == (5,)  # the later defense reads the referee's die
    assert overridden(o) == [(f"{A1}.die", 5, "computed 2, referee set 5")]
    # A1's bet [3,4,5,6] now won: B1's dodge (bet won too) no longer dodges by default rules
    after = run(o.state, [post(B1, 2, None, A1, kind="dodge", bet=(1, 2, 3, 4))], 2)
    assert after.attacks[0].landed and pv(after.state, B1) < 500
    with pytest.raises(RuleError) as err:
        run(s, [post(A1, 1, "Flipendo", B1)], 2, overrides={f"{A1}.die": 7})
    assert err.value.rule == "fatigue.dice"


def test_points_of_duellists_and_creatures_and_a_creature_hit() -> None:
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3})  # A1 with the strangulot (40 PV, retaliates 10)
    hit = post(A1, 1, "Flipendo", "le strangulot")
    plain = run(s, [hit], 4)
    assert dict(plain.state.creatures)["strangulot"] == 20 and pv(plain.state, A1) == 490
    o = run(
        s, [hit], 4, overrides={f"{A1}.damage": 7, "strangulot.points": 35, f"{A2}.points": 123}
    )
    assert dict(o.state.creatures)["strangulot"] == 35
    assert pv(o.state, A2) == 123 and pv(o.state, A1) == 490
    assert overridden(o) == [
        (f"{A1}.damage", 7, "computed 20, referee set 7"),
        (f"{A2}.points", 123, "computed 500, referee set 123"),
        ("strangulot.points", 35, "computed 33, referee set 35"),
    ]
    missed = run(s, [hit], 4, overrides={f"{A1}.landed": False})
    assert dict(missed.state.creatures)["strangulot"] == 40
    assert [e.kind for e in missed.events] == ["creature_missed"]
    by_name = run(s, [hit], 4, overrides={"Le strangulot du bassin.points": 0})
    assert dict(by_name.state.creatures)["strangulot"] == 0


def test_points_override_decides_the_end() -> None:
    s = duel({A1: 0, A2: 1, B1: 0, B2: 1})
    low = replace_points(s, {B1: 0, B2: 5})
    o = run(low, [post(A1, 1, "Flipendo", B2)], 4)
    assert not o.finished  # B2 has not posted: the spell waits
    o = run(low, [post(A1, 1, "Flipendo", B2)], 4, overrides={f"{B2}.points": 0})
    assert o.finished and o.winners == (A1, A2) and not o.state.pending
    down = replace_points(s, {B1: 0, B2: 0})
    assert run(down, [post(A1, 1, "Flipendo", "le décor")], 4).finished
    kept = run(down, [post(A1, 1, "Flipendo", "le décor")], 4, overrides={f"{B2}.points": 9})
    assert not kept.finished and pv(kept.state, B2) == 9


def replace_points(s: DuoState, points: dict[str, int]) -> DuoState:
    members = tuple(replace(d, points=points.get(d.name, d.points)) for d in s.duel.duellists)
    return replace(s, duel=replace(s.duel, duellists=members))


@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({f"{A1}.luck": 3}, "unknown override key"),
        ({"Nobody.points": 3}, "unknown override key"),
        ({f"{A1}.landed": 3}, "true or false"),
        ({f"{A1}.points": True}, "an integer"),
        ({f"{B2}.dodged": True}, "nothing to apply"),  # B2 has no post and nothing waits
        ({"strangulot.damage": 3}, "only 'points'"),
        ({"strangulot.points": 41}, "0..40 PV"),
    ],
)
def test_bad_overrides_are_refused(overrides: dict[str, int | bool], words: str) -> None:
    s = duel({A1: 0, A2: 1, B1: 0, B2: 1})
    with pytest.raises(RuleError, match=words) as err:
        run(s, [post(A1, 1, "Flipendo", B1)], 2, overrides=overrides)
    assert err.value.rule == "referee.override"


# -- values the referee cannot set (found by a break-it pass) ---------------------------------
@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({f"{A1}.damage": -50}, "cannot be negative"),
        ({f"{A1}.points": -999}, "cannot be negative"),
        ({"strangulot.points": 41}, "0..40 PV"),
        ({"strangulot.landed": True}, "takes only 'points'"),
    ],
)
def test_out_of_range_values_are_refused(overrides: dict[str, Any], words: str) -> None:
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3})
    with pytest.raises(RuleError, match=words):
        run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4, overrides=overrides)


def test_keys_are_case_insensitive_and_the_error_names_creatures() -> None:
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3})
    o = run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4,
            overrides={"STRANGULOT.points": 3, f"{A2.upper()}.points": 450})  # fmt: skip
    assert dict(o.state.creatures)["strangulot"] == 3 and pv(o.state, A2) == 450
    with pytest.raises(RuleError, match="no duellist or creature 'Nobody'; the duellists and "
                       "creatures: .*'strangulot'"):  # fmt: skip
        run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4, overrides={"Nobody.points": 3})
    with pytest.raises(RuleError, match="no duellist or creature 'STRANGULOTT' \\(did you mean "
                       "'strangulot'\\?\\)"):  # fmt: skip
        run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4, overrides={"STRANGULOTT.points": 3})


def test_pv_above_the_start_only_when_rewards_may_exceed_it() -> None:
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3})
    hit = [post(A1, 1, "Flipendo", "le strangulot")]
    assert pv(run(s, hit, 4, overrides={f"{A1}.points": 520}).state, A1) == 520
    capped = replace(CFG, pv_reward_above_start=False)
    with pytest.raises(RuleError, match="at most 500 PV"):
        resolve_duo_step(s, hit, {1: (4,)}, ruleset=RS, env=ENV, settings=capped,  # type: ignore[arg-type]
                         draw=drawer({}), overrides={f"{A1}.points": 520})  # fmt: skip


def test_a_creature_defeated_earlier_cannot_be_revived_for_a_second_reward() -> None:
    s = duel({A1: 1, A2: 1, B1: 2, B2: 3})
    killed = run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4,
                 overrides={f"{A1}.damage": 40})  # fmt: skip
    assert dict(killed.state.creatures)["strangulot"] == 0
    assert [e.kind for e in killed.events].count("reward") == 1
    with pytest.raises(RuleError, match="defeated before this step"):
        run(killed.state, [post(A2, 2, "Flipendo", "le décor")], 4,
            overrides={"strangulot.points": 40})  # fmt: skip
    # nor within the step that defeats it (the reward is drawn): the hit's numbers are set
    with pytest.raises(RuleError, match="defeated in this step"):
        run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4,
            overrides={f"{A1}.damage": 40, "strangulot.points": 5})  # fmt: skip
    kept = run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4,
               overrides={f"{A1}.damage": 35})  # fmt: skip
    assert dict(kept.state.creatures)["strangulot"] == 5
    assert "reward" not in [e.kind for e in kept.events]


def test_a_creature_put_at_0_by_the_referee_is_out_and_announced_without_reward() -> None:
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3})
    o = run(s, [post(A1, 1, "Flipendo", "le strangulot")], 4,
            overrides={"strangulot.points": 0})  # fmt: skip
    assert dict(o.state.creatures)["strangulot"] == 0
    assert ("strangulot", "") in o.state.defeated
    kinds = [e.kind for e in o.events]
    assert "creature_down" in kinds and "reward" not in kinds
    # no reward later either: the creature is out
    later = run(o.state, [post(A2, 2, "Flipendo", "le décor")], 4)
    assert "reward" not in [e.kind for e in later.events]
