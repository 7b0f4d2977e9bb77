"""The last engine gaps of issue 17: each test quotes the RULES.md sentence and the seed's.

1v1 duellists: Aurora Vexley (5th year, brutale) and Cassius Thorne (7th year, sournoise); 2v2:
Aurora & Blaise against Cassius & Dorian, adults, in the shipped « serre » environment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from rules import DuelState, RuleError, TurnPost
from rules import start_duel as start
from rules.duo import (
    DuoPost,
    DuoState,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    resolve_duo_step,
    start_duo,
)
from rules.duo.engine import DuoOutcome
from rules.effects import NoAttack
from rules.fatigue import FatigueRuleset, load_fatigue_ruleset, new_fatigue_duel
from rules.fatigue import resolve_fatigue_step as step1
from rules.stalemate import points_by_turn, propose_close, turns_without_pv_lost

DATA = Path(__file__).resolve().parents[2] / "rules" / "data"
SEED_TESTS_RULESET = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
"""The spellbook these hand-computed duels were written with (issue 26: the shipped one changed)."""
TEXT = SEED_TESTS_RULESET.read_text(encoding="utf-8")
RS = load_fatigue_ruleset(TEXT)
ENV = load_environment((DATA / "environments" / "serre.toml").read_text(encoding="utf-8"))
CFG = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))
A, C = "Aurora Vexley", "Cassius Thorne"
A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"
HIGH = (3, 4, 5, 6)


# --- helpers -------------------------------------------------------------------------------------


def duel1(rs: FatigueRuleset = RS, year_a: str = "5", year_c: str = "7") -> DuelState:
    return start(new_fatigue_duel(rs, [(A, year_a, ("brutale",)), (C, year_c, ("sournoise",))]))


def cast(who: str, pid: int, spell: str | None, kind: str | None = "cast") -> TurnPost:
    return TurnPost(who, pid, spell, spell_text=spell, kind=kind, bet=HIGH)


def with_member(state: DuelState, name: str, **changes: object) -> DuelState:
    members = tuple(
        replace(d, **changes) if d.name == name else d  # type: ignore[arg-type]
        for d in state.duellists
    )
    return replace(state, duellists=members)


def drawer(zones: dict[str, int]) -> Callable[[str, int], int]:
    def draw(label: str, n: int) -> int:
        return zones[label.split(":", 1)[1]] if label.startswith("place:") else 0

    return draw


def duel2(zones: dict[str, int]) -> DuoState:
    duos = [
        [(A1, "adult", ["sournoise"]), (A2, "adult", ["sournoise"])],
        [(B1, "adult", ["sournoise"]), (B2, "adult", ["sournoise"])],
    ]
    return start_duo(new_duo_duel(RS, duos, ENV, drawer(zones)))


def post2(who: str, pid: int, spell: str | None, target: str | None = None,
          kind: str | None = "cast", move: str | None = None) -> DuoPost:  # fmt: skip
    return DuoPost(TurnPost(who, pid, spell, kind=kind, bet=HIGH, target=target), move_to=move)


def step2(state: DuoState, *posts: DuoPost, die: int = 4) -> DuoOutcome:
    return resolve_duo_step(
        state, list(posts), {p.post.post_id: (die,) for p in posts}, ruleset=RS, env=ENV,
        settings=CFG, draw=drawer({}),
    )  # fmt: skip


def pv2(state: DuoState, name: str) -> int:
    return state.duel.duellist(name).points


def barred2(state: DuoState, who: str, last_action: str | None) -> DuoState:
    duel = state.duel
    members = tuple(
        replace(d, effects=(NoAttack(duration=1, source="Stupéfix", caster=B1),),
                last_action=last_action)
        if d.name == who else d
        for d in duel.duellists
    )  # fmt: skip
    return replace(state, duel=replace(duel, duellists=members))


# --- 2v2 double target in a defense post ---------------------------------------------------------


def test_double_target_in_a_defense_post_is_void_one_against_two() -> None:
    """RULES.md: "One duellist in a zone with both opponents: the two may not both target him
    directly in the same turn (`double_target`)"; seed 001: « A2 ne doit pas viser directement
    B1 car déjà visé par A1 »; duo.toml: double_target_effect = "void"."""
    s = duel2({A1: 1, A2: 1, B1: 1, B2: 2})  # B1 alone with A1 and A2
    s = step2(s, post2(B1, 1, "Flipendo", A2)).state  # B1's initiative waits for A2
    o = step2(s, post2(A1, 2, "Flipendo", B1))  # B1 posted: it lands at once
    assert pv2(o.state, B1) == 480
    o = step2(o.state, post2(A2, 3, "Diffindo", B1))  # A2's defense: a cast back at B1
    assert [v.rule for v in o.violations] == ["double_target"]
    assert pv2(o.state, B1) == 480  # Diffindo (35 PV) has no effect
    a2 = next(x for x in o.attacks if x.attacker == A2)
    assert (a2.void_reason, a2.damage, a2.landed) == ("double_target", 0, False)
    # B1's initiative still lands on A2 (a defender who casts cannot avoid it), and the
    # penalty is charged
    assert pv2(o.state, A2) == 500 - 20 - 20
    # a void spell did not target B1: A2 may still cast Diffindo at B1 later
    assert ("Diffindo", B1) not in o.state.duel.duellist(A2).spells_used_on


def test_double_target_in_a_defense_post_is_void_all_four_together() -> None:
    """RULES.md: "All four in one zone: the two members of a duo may not directly target the
    same opponent in the same turn (`double_target`)"; seed 001: « Ne peut pas viser
    directement A1 car déjà visé par B2 »."""
    s = duel2({A1: 0, A2: 0, B1: 0, B2: 0})
    o = step2(s, post2(A1, 1, "Flipendo", B1), post2(B2, 2, "Flipendo", A1))
    assert not o.violations and not o.held
    o = step2(o.state, post2(B1, 3, "Diffindo", A1, move="zone 4"),
              post2(A2, 4, "Rictusempra", B2, move="zone 4"))  # fmt: skip
    assert o.turn_closed
    assert [(v.duellist, v.rule) for v in o.violations] == [(B1, "double_target")]
    assert pv2(o.state, A1) == 500 - 20  # B2's Flipendo only: B1's Diffindo is void
    assert pv2(o.state, B1) == 500 - 20 - 20  # A1's Flipendo lands, and the penalty
    assert next(x for x in o.attacks if x.attacker == B1).void_reason == "double_target"


def test_a_dodge_in_a_defense_post_is_no_direct_target() -> None:
    """seed 001: « A2 [...] peut esquiver s'il est visé »: a plain dodge targets nobody."""
    s = duel2({A1: 1, A2: 1, B1: 1, B2: 2})
    s = step2(s, post2(B1, 1, "Flipendo", A2), die=2).state  # B1's bet [3,4,5,6] lost
    s = step2(s, post2(A1, 2, "Flipendo", B1)).state
    o = step2(s, post2(A2, 3, None, B1, kind="dodge"), die=3)  # A2's bet won
    assert o.violations == () and pv2(o.state, A2) == 500


# --- No legal action left ------------------------------------------------------------------------


def test_no_legal_action_counts_the_dodge_twice_ban_1v1() -> None:
    """RULES.md: "A duellist left with no legal action posts role-play and endures: that counts
    as their post, no violation"; seed 001: « un duelliste n'a pas le droit de ne pas agir
    pendant un tour, sauf s'il y est contraint ». Barred from casting and having just dodged,
    a second dodge would break « il est interdit d'utiliser cette action deux tours de suite »."""
    barred = NoAttack(duration=1, source="Stupéfix", caster=A)
    s = with_member(duel1(), C, effects=(barred,), last_action="dodge")
    one = step1(s, [cast(A, 1, "Flipendo")], {1: (4,)}, ruleset=RS)
    two = step1(one.state, [TurnPost(C, 2, None)], {2: (2,)}, ruleset=RS)
    assert two.violations == ()
    assert [t.value for t in two.trail if t.quantity == f"{C}.endures"] == [True]
    # not constrained: with a dodge still allowed, posting no action is `no_action`
    free = with_member(duel1(), C, effects=(barred,), last_action="cast")
    one = step1(free, [cast(A, 1, "Flipendo")], {1: (4,)}, ruleset=RS)
    two = step1(one.state, [TurnPost(C, 2, None)], {2: (2,)}, ruleset=RS)
    assert [v.rule for v in two.violations] == ["no_action"]


def test_no_legal_action_counts_the_dodge_twice_ban_2v2() -> None:
    """RULES.md (same sentence) in 2v2: the barred duellist aimed at, who dodged last turn,
    posts role-play and the duo's move: neither ``move_alone`` nor ``no_action``."""
    s = duel2({A1: 0, A2: 0, B1: 0, B2: 2})
    s = step2(s, post2(B1, 1, "Flipendo", A1)).state  # A1 is aimed at
    stuck = barred2(s, A1, "dodge")
    o = step2(stuck, post2(A1, 2, None, None, kind=None, move="zone 3"))
    assert [v.rule for v in o.violations] == []
    assert "move" in [e.kind for e in o.events]
    # with a dodge still allowed the move alone is reported
    free = barred2(s, A1, "cast")
    o = step2(free, post2(A1, 2, None, None, kind=None, move="zone 3"))
    assert "move_alone" in [v.rule for v in o.violations]


# --- One initiative per duo ----------------------------------------------------------------------


def test_one_initiative_per_duo_when_all_four_share_a_zone() -> None:
    """RULES.md: "except when all four stand in the same zone: then two initiatives (one per
    duo), a declaration, two defenses, a declaration"; seed 001: « Initiative 1 : A1 vise B1 /
    Initiative 2 : B2 vise A1 ». The second initiative from one duo is held for the referee."""
    s = duel2({A1: 2, A2: 2, B1: 2, B2: 2})
    o = step2(s, post2(A1, 1, "Flipendo", B1), post2(A2, 2, "Flipendo", B2))
    assert o.held == (2,)
    assert [(p.attacker, p.target) for p in o.state.pending] == [(A1, B1)]
    assert o.state.posted == (A1,) and pv2(o.state, B2) == 500
    assert [(e.kind, e.who, e.detail) for e in o.events if e.kind == "initiative_held"] == [
        ("initiative_held", A2, "2")
    ]
    assert 2 not in o.dice
    # the other duo's initiative is taken normally (at A2, who has not posted: it waits);
    # A2 is still expected this turn
    o = step2(o.state, post2(B2, 3, "Flipendo", A2))
    assert o.held == () and A2 not in o.state.posted
    assert {(p.attacker, p.target) for p in o.state.pending} == {(A1, B1), (B2, A2)}


# --- « sauf contre-indication » ------------------------------------------------------------------


def test_the_old_reusable_key_is_refused_with_what_to_write_instead() -> None:
    """Issue 26: `reusable = true` lifted the ban seed 001 states « formellement » (« il est
    formellement interdit au lanceur de le réutiliser une seconde fois sur son adversaire »);
    RULES.md: "a spell may be cast again and again unless the spellbook says otherwise". An
    old ruleset using it does not load silently: the error names the replacements
    (tests/unit/test_rules_issue26.py covers ``max_casts`` and the house rule)."""
    old = 'name = "Flipendo"\n'
    assert old in TEXT
    with pytest.raises(RuleError) as err:
        load_fatigue_ruleset(TEXT.replace(old, f"{old}reusable = true\n", 1))
    assert err.value.rule.endswith(".reusable")
    assert "max_casts" in str(err.value) and "house_rules.recast_same_opponent" in str(err.value)


# --- Self-heals forever: N turns with no PV lost -------------------------------------------------


def test_n_turns_with_no_pv_lost_proposes_a_close_to_the_referee() -> None:
    """The 2v2 demo's « no winner after 30 turns »: two adults healing themselves forever.
    RULES.md leaves it to the referee ("Where a referee disagrees with the bot in a given turn,
    they override the draft"): the engine only counts the turns and proposes, never decides."""
    s = duel1(year_a="adult", year_c="adult")
    states = [s]
    pid = 0
    for _ in range(5):
        pid += 2
        one = step1(s, [cast(A, pid, "Episkey")], {pid: (4,)}, ruleset=RS)
        two = step1(one.state, [cast(C, pid + 1, "Episkey")], {pid + 1: (4,)}, ruleset=RS)
        states += [one.state, two.state]
        s = two.state
    history = points_by_turn(states)
    assert len(history) == 6 and turns_without_pv_lost(history) == 5
    assert propose_close(history, quiet_turns=6) is None
    proposal = propose_close(history, quiet_turns=5)
    assert proposal is not None
    assert (proposal.reason, proposal.turns, proposal.since_turn, proposal.last_turn) == (
        "no_pv_lost", 5, 1, 5,
    )  # fmt: skip
    assert proposal.points == {A: 500, C: 500}
    # a turn that loses PV resets the count; a net heal is no loss
    assert turns_without_pv_lost([{A: 10}, {A: 8}, {A: 9}, {A: 9}]) == 2
    assert turns_without_pv_lost([{A: 10}, {A: 12}, {A: 11}]) == 0
    with pytest.raises(RuleError):
        propose_close(history, quiet_turns=0)
