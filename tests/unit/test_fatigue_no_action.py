"""A fatigue defender barred from some or all actions (issue 25, second reader W1).

RULES.md Fine points: "A duellist left with no legal action posts role-play and endures: that
counts as their post, no violation." and "An action forbidden by an effect (casting while
barred, dodging under no_dodge) is ignored"; fatigue.toml ``no_dodge_bars_riposte = true``:
no_dodge bars dodge-riposte too. Seed 001: « un duelliste n'a pas le droit de ne pas agir
pendant un tour, sauf s'il y est contraint. »

The first declaration offers only the actions open to the defender; a defender with none is
told the spell resolves undefended and that the story may still be posted; no bet die is
rolled or printed for him, and the fast engine stays equal to the full one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from forumbot.duels.fatigue import step_context
from forumbot.publish.render import render
from forumbot.publish.typography import plain
from forumbot.storage.records import Duel
from rules import DuelState, RuleError, TurnPost
from rules import start_duel as start
from rules.effects import NoAttack
from rules.fatigue import (
    NoDodge,
    has_legal_action,
    legal_actions,
    load_fatigue_ruleset,
    new_fatigue_duel,
    resolve_fatigue_step,
)
from rules.fatigue.fast import resolve_fast

SHARED = Path(__file__).resolve().parents[2].parent / "shared"

RULESET = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
RS = load_fatigue_ruleset(RULESET.read_text(encoding="utf-8"))
A = "Aurora Vexley"
C = "Cassius Thorne"
BARS = {
    "cast": NoAttack(duration=2, source="Stupéfix", caster=A),
    "dodge": NoDodge(duration=2, source="Levicorpus", caster=A),
}
SEED_001 = "un duelliste n'a pas le droit de ne pas agir pendant un tour, sauf s'il y est contraint"


def barred(*what: str, last_action: str | None = None) -> DuelState:
    """A started duel where Cassius carries the effects barring ``what`` (``cast``, ``dodge``)."""
    s = start(new_fatigue_duel(RS, [(A, "5", ("brutale",)), (C, "7", ("sournoise",))]))
    me = {**s.duellist(C).to_dict(), "effects": [BARS[w].to_dict() for w in what]}
    if last_action is not None:
        me["last_action"] = last_action
    return DuelState.from_dict({**s.to_dict(), "duellists": [s.duellist(A).to_dict(), me]})


def initiative(state: DuelState) -> Any:
    post = TurnPost(A, 1, "Flipendo", spell_text="Flipendo", kind="cast", bet=(3, 4, 5, 6))
    return resolve_fatigue_step(state, [post], {1: (6,)}, ruleset=RS)


def first_declaration(state: DuelState) -> str:
    one = initiative(state)
    inputs = {
        "step": "initiative",
        "state_before": state.to_dict(),
        "posts": [TurnPost(A, 1, "Flipendo", spell_text="Flipendo", kind="cast",
                           bet=(3, 4, 5, 6)).to_dict()],
        "dice": {"1": [6]},
    }  # fmt: skip
    duel = Duel(1, 1, 1, 3, "Duel", "fatigue", "running", state=state.to_dict())
    return plain(render("fatigue_turn.bbcode.j2", step_context(RS, duel, inputs, one, "L'arbitre")))


def test_legal_actions_agree_with_has_legal_action_in_every_combination() -> None:
    """Every bar combination, and a dodge last turn: the offered actions are exactly the legal
    ones, and none is offered exactly when ``has_legal_action`` says so."""
    cases = {
        (): ("cast", "dodge", "dodge_riposte"),
        ("cast",): ("dodge",),
        ("dodge",): ("cast",),  # no_dodge_bars_riposte: the riposte is a dodge too
        ("cast", "dodge"): (),
    }
    for what, expected in cases.items():
        me = barred(*what).duellist(C)
        assert legal_actions(me, RS.cfg, ruleset=RS, opponents=(A,)) == expected
        assert bool(expected) == has_legal_action(
            me, RS.cfg, can_be_dodging=True, ruleset=RS, opponents=(A,)
        )
    # seed 001: no dodge two turns in a row; dodge-riposte does not count as a dodge for it
    me = barred(last_action="dodge").duellist(C)
    assert legal_actions(me, RS.cfg, ruleset=RS, opponents=(A,)) == ("cast", "dodge_riposte")


@pytest.mark.parametrize(
    ("what", "offered", "told"),
    [
        ((), "lancer un sort, esquiver, ou esquiver et riposter.", None),
        (("cast",), ": esquiver.", "ne peut ni lancer de sort ni esquiver et riposter ce tour-ci"
         " (Stupéfix d'Aurora Vexley)"),
        (("dodge",), ": lancer un sort.", "ne peut ni esquiver ni esquiver et riposter ce "
         "tour-ci (Levicorpus d'Aurora Vexley)"),
    ],
)  # fmt: skip
def test_first_declaration_offers_only_the_open_actions(
    what: tuple[str, ...], offered: str, told: str | None
) -> None:
    text = first_declaration(barred(*what))
    line = next(x for x in text.splitlines() if x.startswith(f"À {C} de se défendre"))
    assert line.split(" : ", 1)[1].startswith(offered.lstrip(": ")), line
    if told is None:
        assert "ne peut " not in line
    else:
        assert f"{C} {told}." in line
    assert "pari" not in line


def test_a_defender_with_no_action_is_told_the_spell_resolves_undefended() -> None:
    text = first_declaration(barred("cast", "dodge"))
    assert "de se défendre" not in text and "esquiver, ou esquiver et riposter" not in text
    assert (
        f"{C} ne peut ni lancer de sort (Stupéfix d'Aurora Vexley) ni esquiver (Levicorpus "
        "d'Aurora Vexley) ce tour-ci, ni donc esquiver et riposter : Flipendo d'Aurora Vexley "
        f"sera résolu sans défense. {C} peut poster son récit" in text
    )


def test_no_bet_die_for_a_defender_with_no_action_and_fast_equals_full() -> None:
    """RULES.md: "endures ... no violation"; seed 001 (``SEED_001``): contraint, he posts
    his story and no bet die is rolled."""
    seed = SHARED / "seeds" / "001_f5e723a2211f7363.txt"
    if seed.exists():  # the quote is the seed's own words (../shared/, read in place when present)
        assert SEED_001 in seed.read_text("utf-8")
    one = initiative(barred("cast", "dodge"))
    story = TurnPost(C, 2, None)
    two = resolve_fatigue_step(one.state, [story], {2: ()}, ruleset=RS)
    assert two.violations == () and two.attacks[0].landed
    assert 2 not in two.dice and not [t for t in two.trail if t.quantity.startswith(f"{C}.bet")]
    assert not [t for t in two.trail if t.quantity == f"{C}.die"]
    assert [t.value for t in two.trail if t.quantity == f"{C}.endures"] == [True]
    # The same step without a trail: the fast engine declines the die-less post, the full one
    # answers, identical but for the trail.
    assert resolve_fast(one.state, [story], {2: ()}, RS, None) is None
    quiet = resolve_fatigue_step(one.state, [story], {2: ()}, ruleset=RS, trail=False)
    assert quiet.to_dict() == {**two.to_dict(), "trail": []}
    # A barred action declared anyway is still the barred_action it was, with no die.
    cast = TurnPost(C, 2, "Flipendo", spell_text="Flipendo", kind="cast", bet=(3, 4, 5, 6))
    barred_cast = resolve_fatigue_step(one.state, [cast], {2: ()}, ruleset=RS)
    assert [v.rule for v in barred_cast.violations] == ["barred_action"]


def test_a_die_is_still_required_of_anyone_who_may_act() -> None:
    for what in ((), ("cast",), ("dodge",)):
        one = initiative(barred(*what))
        with pytest.raises(RuleError, match="no die for post 2"):
            resolve_fatigue_step(one.state, [TurnPost(C, 2, None, kind="dodge")], {2: ()},
                                 ruleset=RS)  # fmt: skip
    with pytest.raises(RuleError, match="no die for post 1"):
        resolve_fatigue_step(barred(), [TurnPost(A, 1, "Flipendo", kind="cast")], {1: ()},
                             ruleset=RS)  # fmt: skip


def test_second_declaration_prints_no_die_for_him() -> None:
    state = barred("cast", "dodge")
    one = initiative(state)
    story = TurnPost(C, 2, None)
    two = resolve_fatigue_step(one.state, [story], {2: ()}, ruleset=RS)
    inputs = {
        "step": "defense",
        "state_before": one.state.to_dict(),
        "posts": [story.to_dict()],
        "dice": {"2": []},
    }
    duel = Duel(1, 1, 1, 3, "Duel", "fatigue", "running", state=one.state.to_dict())
    text = plain(render("fatigue_turn.bbcode.j2", step_context(RS, duel, inputs, two, "L'arbitre")))
    mine = [x for x in text.splitlines() if x.startswith(f"- {C}")]
    assert mine[0].endswith(
        "ne pouvait pas agir ce tour-ci : aucun dé n'est lancé pour sa défense."
    )
    assert f"{C} ne pouvait pas agir ce tour-ci : le sort est résolu sans défense." in text
    assert "pari perdu" not in "\n".join(mine) and "aucune action" not in text


def test_a_defender_with_no_action_is_not_told_the_spell_awaits_a_defense() -> None:
    """Seventh reader of issue 25, C4: « Ce pari ne comptera que si l'adversaire esquive » and
    « Le sort attend la défense » were printed above « sera résolu sans défense »."""
    text = first_declaration(barred("cast", "dodge"))
    assert "ne comptera que si" not in text and "attend la défense" not in text
    assert "Ce pari" not in text  # the closing paragraph says he can neither cast nor dodge
    assert (
        f"- {A} lance Flipendo sur {C}, qui ne peut pas se défendre ce tour-ci : le sort sera "
        "résolu sans défense et infligera"
    ) in text
    # barred from dodging only: the bet still decides nothing, the spell awaits his post
    dodge_barred = first_declaration(barred("dodge"))
    assert f"Ce pari ne change rien : {C} ne peut pas esquiver ce tour-ci." in dodge_barred
    assert "Le sort attend la défense" in dodge_barred and "sauf esquive" not in dodge_barred
    free = first_declaration(barred())
    assert "Ce pari ne comptera que si l'adversaire esquive" in free
    assert "Le sort attend la défense" in free and "sauf esquive réussie" in free
