"""The classic ruleset's engine (seed 000 and RULES.md "Ruleset classic" with its fine points).

Duellists: Aurora Vexley (5th year, 35 PD) and Cassius Thorne (7th year and above, 50 PD).
Dice are given as (attack, defense) per post, as the seed orders them: "Le premier résultat
constitue l'attaque. Le second résultat, la défense."
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import (
    AttackModifier,
    AttackResult,
    DefenseModifier,
    DuelState,
    Modifier,
    NoAttack,
    RuleError,
    Ruleset,
    TrailEntry,
    TurnOutcome,
    TurnPost,
    Violation,
    new_duel,
    parse_ruleset,
    resolve_turn,
    ruleset_path,
    start_duel,
)
from rules.model import DuellistState

TEXT = ruleset_path("classic").read_text(encoding="utf-8")
RS = parse_ruleset(TEXT)
A = "Aurora Vexley"
C = "Cassius Thorne"

FEU = "Sortilège de Feu"
DESARMEMENT = "Sortilège de Désarmement"
CHATOUILLIS = "Sortilège de Chatouillis"
GLACE = "Sortilège de Glace"
POT = "Maléfice du Pot de Colle"
CONFUSION = "Sortilège de Confusion"
CHANT = "Sortilège de chant"
BOUCLIER = "Charme du Bouclier"
ANTISORT = "Antisort Général"

Spell = str | None


def variant(**settings_: str) -> Ruleset:
    """The shipped ruleset with some settings changed (values written as TOML)."""
    text = TEXT
    for key, value in settings_.items():
        text, count = re.subn(rf"(?m)^{key} = .*$", f"{key} = {value}", text, count=1)
        assert count == 1
    return parse_ruleset(text)


def duel(year_a: str = "5", year_c: str = "7+", ruleset: Ruleset = RS) -> DuelState:
    return start_duel(new_duel(ruleset, [(A, year_a), (C, year_c)]))


def play(
    state: DuelState,
    a: Spell,
    a_dice: tuple[int, int],
    c: Spell,
    c_dice: tuple[int, int],
    *,
    a_text: str | None = None,
    c_text: str | None = None,
    overrides: Mapping[str, int | bool] | None = None,
    waived: tuple[tuple[str, str], ...] = (),
    ruleset: Ruleset = RS,
) -> TurnOutcome:
    """One turn: Aurora posts ``a`` with ``a_dice``, Cassius ``c`` with ``c_dice``."""
    base = 100 * (state.turn + 1)
    posts = [
        TurnPost(A, base + 1, a, spell_text=a_text if a_text is not None else a),
        TurnPost(C, base + 2, c, spell_text=c_text if c_text is not None else c),
    ]
    return resolve_turn(
        state,
        posts,
        {base + 1: a_dice, base + 2: c_dice},
        ruleset=ruleset,
        overrides=overrides,
        waived=waived,
    )


def points(outcome: TurnOutcome) -> tuple[int, int]:
    return outcome.state.duellist(A).points, outcome.state.duellist(C).points


def attack_of(outcome: TurnOutcome, name: str) -> AttackResult:
    return next(r for r in outcome.attacks if r.attacker == name)


def trail_of(outcome: TurnOutcome, quantity: str) -> list[TrailEntry]:
    return [t for t in outcome.trail if t.quantity == quantity]


def rules_of(outcome: TurnOutcome) -> set[str]:
    return {v.rule for v in outcome.violations}


# --- Phase 1: start ---------------------------------------------------------------------------


def test_seed000_starting_pd_in_new_duel() -> None:
    """Seed 000: "Chaque duelliste part [...] avec un nombre de point de défense en fonction de
    son niveau" (5th year 35 PD, "Septième année et +" 50 PD)."""
    state = new_duel(RS, [(A, "5"), (C, "7")], stakes="une chocogrenouille")
    assert [(d.name, d.points) for d in state.duellists] == [(A, 35), (C, 50)]
    assert (state.turn, state.started, state.finished, state.stakes) == (
        0,
        False,
        False,
        "une chocogrenouille",
    )


def test_new_duel_rejects_bad_duellists() -> None:
    with pytest.raises(RuleError) as err:
        new_duel(RS, [(A, "5"), (C, "5"), ("Third", "5")])
    assert err.value.rule == "duellists"
    with pytest.raises(RuleError):
        new_duel(RS, [(A, "5"), (A, "6")])
    with pytest.raises(RuleError) as err:
        new_duel(RS, [(A, "5"), (C, "adult")])
    assert err.value.rule == "starting_points"


def test_seed000_start_is_the_referees_top() -> None:
    """Seed 000: "Aucun sort ne doit être lancé avant le top de l'arbitre"."""
    state = start_duel(new_duel(RS, [(A, "5"), (C, "5")]))
    assert state.started
    with pytest.raises(RuleError):
        start_duel(state)


def test_seed000_cast_before_start_proposes_disqualification() -> None:
    """Seed 000: "Aucun sort ne doit être lancé avant le top de l'arbitre sous peine de
    disqualification immédiate." The referee confirms."""
    state = new_duel(RS, [(A, "5"), (C, "5")])
    early = [TurnPost(A, 7, FEU, spell_text="Sortilège de Feu", before_start=True)]
    outcome = resolve_turn(state, early, {}, ruleset=RS)
    assert outcome.violations == (
        Violation(A, "cast_before_start", 7, "Sortilège de Feu", 0, "proposed", "disqualification"),
    )
    assert not outcome.finished and outcome.turn == 0 and outcome.attacks == ()
    assert outcome.state.duellist(A).violations == outcome.violations
    assert outcome.state.started is False

    confirmed = resolve_turn(state, early, {}, ruleset=RS, overrides={f"{A}.disqualified": True})
    assert confirmed.finished and confirmed.winner == C and not confirmed.draw
    assert confirmed.violations[0].status == "applied"
    assert confirmed.state.duellist(A).disqualified
    assert any(t.rule == "referee.override" for t in confirmed.trail)

    waived = resolve_turn(state, early, {}, ruleset=RS, waived=[(A, "cast_before_start")])
    assert waived.violations[0].status == "waived"


def test_turn_post_before_the_start_is_refused() -> None:
    state = new_duel(RS, [(A, "5"), (C, "5")])
    with pytest.raises(RuleError) as err:
        resolve_turn(
            state, [TurnPost(A, 1, FEU), TurnPost(C, 2, GLACE)], {1: (1, 1), 2: (1, 1)}, ruleset=RS
        )
    assert err.value.rule == "classic.start"


def test_late_seen_early_post_is_reported_beside_the_turn() -> None:
    """A post made before the top never counts as the duellist's turn post."""
    state = duel()
    posts = [
        TurnPost(A, 5, POT, spell_text=POT, before_start=True),
        TurnPost(A, 11, DESARMEMENT, spell_text=DESARMEMENT),
        TurnPost(C, 12, GLACE, spell_text=GLACE),
    ]
    outcome = resolve_turn(state, posts, {11: (2, 6), 12: (1, 6)}, ruleset=RS)
    assert rules_of(outcome) == {"cast_before_start"}
    assert outcome.turn == 1 and {a.attacker for a in outcome.attacks} == {A, C}


# --- Phase 2: dice, deflection, damage ---------------------------------------------------------


def test_seed000_worked_example_attack_5_vs_defense_3_loses_5_pd() -> None:
    """Seed 000: "le duelliste 1 a jeté un dé d'attaque à 5 alors que son adversaire a essuyé
    un échec avec un dé de défense de 3. Le duelliste 2 perdra alors 5 PD."""
    outcome = play(duel(), DESARMEMENT, (5, 6), CHATOUILLIS, (1, 3))
    hit = attack_of(outcome, A)
    assert (hit.attack_die, hit.defense_die, hit.effective_defense) == (5, 3, 3)
    assert hit.landed and hit.damage == 5
    assert points(outcome) == (35, 45)
    entry = trail_of(outcome, f"{C}.points")[0]
    assert entry.value == 45 and entry.rule == "classic.damage"
    assert "diminue du nombre indiqué sur son dé" in entry.source
    assert entry.detail == "50 - 5 = 45 PD"


def test_seed000_first_die_attacks_second_defends() -> None:
    """Seed 000: "Le premier résultat constitue l'attaque. Le second résultat, la défense."""
    outcome = play(duel(), DESARMEMENT, (2, 5), CHATOUILLIS, (4, 1))
    assert attack_of(outcome, A).attack_die == 2 and attack_of(outcome, A).defense_die == 1
    assert attack_of(outcome, C).attack_die == 4 and attack_of(outcome, C).defense_die == 5
    assert trail_of(outcome, f"{A}.attack.die")[0].value == 2
    assert trail_of(outcome, f"{A}.defense.die")[0].value == 5


def test_seed000_deflected_only_when_defense_strictly_greater() -> None:
    """Seed 000: "Tous les sorts peuvent être déviés par un jet de dé de défense plus puissant
    que l'attaque de l'adversaire." RULES.md: a tie lands [D]."""
    deflected = play(duel(), DESARMEMENT, (4, 1), CHATOUILLIS, (1, 5))
    assert not attack_of(deflected, A).landed and attack_of(deflected, A).damage == 0
    assert points(deflected)[1] == 50
    tie = play(duel(), DESARMEMENT, (4, 1), CHATOUILLIS, (1, 4))
    assert attack_of(tie, A).landed and attack_of(tie, A).damage == 4
    assert "tie lands" in trail_of(tie, f"{A}.attack.landed")[0].detail


def test_tie_rule_deflects_setting() -> None:
    """RULES.md: "a tie lands [D]" - the other reading is a setting."""
    ruleset = variant(tie_rule='"deflects"')
    tie = play(duel(ruleset=ruleset), DESARMEMENT, (4, 1), CHATOUILLIS, (1, 4), ruleset=ruleset)
    assert not attack_of(tie, A).landed and points(tie)[1] == 50


def test_rules_md_turn_resolves_simultaneously() -> None:
    """RULES.md: "the turn resolves simultaneously [D]: each duellist's attack is compared to
    the other's defense of the same turn" - both attacks land in one turn, and a landing Pot de
    Colle does not touch this turn's defense."""
    outcome = play(duel(), POT, (4, 2), GLACE, (5, 4))
    assert attack_of(outcome, A).landed and attack_of(outcome, C).landed
    assert points(outcome) == (30, 46)
    assert attack_of(outcome, A).effective_defense == 4
    assert attack_of(outcome, C).effective_defense == 2
    assert outcome.trail[0].quantity == "duel.resolution"


# --- Spells -----------------------------------------------------------------------------------


def test_seed000_feu_removes_2_more_pd_when_it_lands() -> None:
    """Seed 000: "Sortilège de Feu (enlève 2 PD supplémentaire si l'attaque réussie)"."""
    landed = play(duel(), FEU, (5, 6), CHATOUILLIS, (1, 3))
    assert attack_of(landed, A).damage == 7 and points(landed)[1] == 43
    extra = trail_of(landed, f"{A}.attack.extra_damage")[0]
    assert extra.value == 2 and "Sortilège de Feu" in extra.source
    missed = play(duel(), FEU, (2, 6), CHATOUILLIS, (1, 3))
    assert attack_of(missed, A).damage == 0 and points(missed)[1] == 50


def test_seed000_pot_de_colle_lowers_next_defense_by_2() -> None:
    """Seed 000: "Maléfice du Pot de Colle (enlève 2 au prochain jet de défense)";
    RULES.md: next turn [D]."""
    first = play(duel(), POT, (4, 6), CHATOUILLIS, (1, 3))
    carried = first.effects_next[C]
    assert carried == (
        DefenseModifier(amount=-2, applies="target", when="next_turn", source=POT, caster=A),
    )
    assert first.state.duellist(C).effects == carried
    second = play(first.state, DESARMEMENT, (4, 6), GLACE, (1, 5))
    hit = attack_of(second, A)
    assert hit.defense_modifiers == (Modifier(-2, POT),)
    assert hit.effective_defense == 3 and hit.landed and hit.damage == 4
    assert second.effects_next[C] == ()  # lasted one turn
    third = play(second.state, POT, (4, 6), CHATOUILLIS, (1, 5))
    assert attack_of(third, A).effective_defense == 5 and not attack_of(third, A).landed


def test_pot_de_colle_deflected_has_no_effect() -> None:
    outcome = play(duel(), POT, (2, 6), CHATOUILLIS, (1, 3))
    assert outcome.effects_next[C] == ()


def test_rules_md_effective_defense_has_no_floor() -> None:
    """RULES.md fine points: "Effective defense has no floor: it is only compared with the
    attack."""
    first = play(duel(), POT, (4, 6), CHATOUILLIS, (1, 3))
    second = play(first.state, DESARMEMENT, (1, 6), GLACE, (1, 1))
    hit = attack_of(second, A)
    assert hit.effective_defense == -1 and hit.landed and hit.damage == 1


@pytest.mark.parametrize("spell", [CONFUSION, CHANT])
def test_seed000_confusion_and_chant_bar_next_attack(spell: str) -> None:
    """Seed 000: "Sortilège de Confusion / de chant (empêche l'adversaire d'attaquer au prochain
    tour)". RULES.md: an attacking spell cast while barred is ignored, with no violation; the
    defense die still counts."""
    first = play(duel(), spell, (5, 6), CHATOUILLIS, (1, 3))
    assert first.effects_next[C] == (
        NoAttack(applies="target", when="next_turn", source=spell, caster=A),
    )
    second = play(first.state, DESARMEMENT, (2, 1), FEU, (6, 4))
    barred = attack_of(second, C)
    assert barred.void_reason == "barred" and not barred.landed and barred.damage == 0
    assert second.violations == ()
    assert points(second)[0] == points(first)[0]
    assert not attack_of(second, A).landed  # Cassius's defense die 4 still counts vs attack 2
    assert trail_of(second, f"{C}.attack.barred")[0].rule == "classic.barred"
    third = play(second.state, GLACE, (1, 5), DESARMEMENT, (6, 4))
    assert attack_of(third, C).landed  # the bar lasted one turn


def test_barred_attacking_spell_violation_setting() -> None:
    ruleset = variant(barred_attacking_spell='"violation"')
    first = play(duel(ruleset=ruleset), CONFUSION, (5, 6), CHATOUILLIS, (1, 3), ruleset=ruleset)
    second = play(first.state, DESARMEMENT, (2, 1), FEU, (6, 4), ruleset=ruleset)
    assert rules_of(second) == {"barred_action"}
    assert attack_of(second, C).void_reason == "barred"


def test_seed000_bouclier_adds_3_to_the_same_posts_defense_and_no_attack() -> None:
    """Seed 000: "Charme du Bouclier (empêche d'attaquer mais ajoute 3 au prochain jet de
    défense)"; RULES.md: shield_applies = same_turn [D]."""
    outcome = play(duel(), DESARMEMENT, (5, 6), BOUCLIER, (6, 2))
    shielded = attack_of(outcome, A)
    assert shielded.defense_modifiers == (Modifier(3, BOUCLIER),)
    assert shielded.effective_defense == 5 and shielded.landed  # 5 vs 5: a tie lands
    own = attack_of(outcome, C)
    assert own.void_reason == "shield" and not own.landed and own.damage == 0
    assert points(outcome) == (35, 45)
    blocked = play(duel(), DESARMEMENT, (5, 6), BOUCLIER, (6, 3))
    assert not attack_of(blocked, A).landed


def test_shield_applies_next_turn_setting() -> None:
    """RULES.md: "next_turn is the other reading" of the Bouclier's +3."""
    ruleset = variant(shield_applies='"next_turn"')
    first = play(duel(ruleset=ruleset), DESARMEMENT, (5, 6), BOUCLIER, (6, 3), ruleset=ruleset)
    assert attack_of(first, A).effective_defense == 3 and attack_of(first, A).landed
    assert first.effects_next[C] == (
        DefenseModifier(amount=3, applies="caster", when="next_turn", source=BOUCLIER, caster=C),
    )
    second = play(first.state, GLACE, (5, 6), DESARMEMENT, (1, 3), ruleset=ruleset)
    assert attack_of(second, A).effective_defense == 6 and not attack_of(second, A).landed


def test_rules_md_bouclier_works_under_no_attack() -> None:
    """RULES.md fine points: "A duellist barred from attacking may still cast Charme du Bouclier
    or Antisort Général (they do not attack) and gets their effect"."""
    first = play(duel(), CONFUSION, (5, 6), CHATOUILLIS, (1, 3))
    second = play(first.state, DESARMEMENT, (5, 6), BOUCLIER, (6, 3))
    assert attack_of(second, A).effective_defense == 6 and not attack_of(second, A).landed
    assert attack_of(second, C).void_reason == "shield"
    assert second.violations == ()


def test_rules_md_antisort_works_under_no_attack() -> None:
    first = play(duel(), CONFUSION, (5, 6), CHATOUILLIS, (1, 3))
    second = play(first.state, FEU, (6, 1), ANTISORT, (1, 1))
    assert attack_of(second, A).void_reason == "cancelled" and points(second)[1] == points(first)[1]


def test_seed000_antisort_cancels_the_opponents_spell() -> None:
    """Seed 000: "Antisort Général (empêche d'attaquer mais permet d'annuler tout sortilège
    jeté)"; RULES.md: damage and effects [D]."""
    outcome = play(duel(), ANTISORT, (6, 1), FEU, (6, 1))
    cancelled = attack_of(outcome, C)
    assert cancelled.void_reason == "cancelled" and cancelled.damage == 0
    own = attack_of(outcome, A)
    assert own.void_reason == "counter_spell" and own.damage == 0
    assert points(outcome) == (35, 50)
    entry = trail_of(outcome, f"{C}.spell.cancelled")[0]
    assert entry.value is True and "Antisort Général" in entry.source

    no_effect = play(duel(), ANTISORT, (1, 1), CONFUSION, (6, 1))
    assert no_effect.effects_next[A] == ()


def test_rules_md_antisort_cancels_a_bouclier_bonus() -> None:
    outcome = play(duel(), ANTISORT, (6, 1), BOUCLIER, (6, 2))
    assert attack_of(outcome, A).effective_defense == 2  # Bouclier's +3 cancelled
    assert attack_of(outcome, A).damage == 0  # the Antisort caster does not attack


def test_rules_md_antisort_leaves_carried_effects() -> None:
    """RULES.md fine points: "effects carried from earlier turns stay"."""
    first = play(duel(), DESARMEMENT, (1, 6), POT, (6, 1))
    assert first.effects_next[A]
    second = play(first.state, ANTISORT, (1, 4), GLACE, (3, 6))
    assert attack_of(second, C).void_reason == "cancelled"
    assert attack_of(second, C).effective_defense == 2  # Aurora's 4 - 2 (Pot de Colle) stays


def test_rules_md_antisort_vs_antisort_cancel_each_other() -> None:
    """RULES.md fine points: "an Antisort: two Antisorts cancel each other"."""
    outcome = play(duel(), ANTISORT, (6, 1), ANTISORT, (6, 1))
    assert {r.void_reason for r in outcome.attacks} == {"cancelled"}
    assert points(outcome) == (35, 50)
    assert len(trail_of(outcome, f"{A}.spell.cancelled")) == 1
    assert len(trail_of(outcome, f"{C}.spell.cancelled")) == 1


@pytest.mark.parametrize(
    "spell", [DESARMEMENT, CHATOUILLIS, "Sortilège de Découpe", GLACE, "Apparition d'insectes"]
)
def test_rules_md_other_spells_damage_only(spell: str) -> None:
    outcome = play(duel(), spell, (5, 6), CHATOUILLIS, (1, 3))
    assert attack_of(outcome, A).damage == 5 and outcome.effects_next[C] == ()


# --- Violations -------------------------------------------------------------------------------


def test_seed000_repeated_spell_has_no_effect_and_defense_still_counts() -> None:
    """Seed 000: "Il est par ailleurs interdit d'utiliser deux fois de suite le même sortilège."
    RULES.md: no effect, no damage [D]; the post's defense die still counts."""
    first = play(duel(), FEU, (1, 6), CHATOUILLIS, (1, 6))
    second = play(first.state, FEU, (6, 4), GLACE, (3, 1))
    void = attack_of(second, A)
    assert void.void_reason == "repeated_spell" and not void.landed and void.damage == 0
    assert not attack_of(second, C).landed  # Aurora's defense 4 > 3
    assert points(second) == (35, 50)
    (violation,) = second.violations
    assert (violation.rule, violation.status, violation.penalty, violation.post_id) == (
        "repeated_spell",
        "applied",
        0,
        201,
    )
    assert "deux fois de suite" in trail_of(second, f"{A}.violation.repeated_spell")[0].source


def test_rules_md_repeated_spell_compares_with_previous_whatever_became_of_it() -> None:
    """RULES.md fine points: compares with the spell named in the previous post, "whatever became
    of it (cancelled, barred, void)"."""
    first = play(duel(), CONFUSION, (6, 6), CHATOUILLIS, (1, 3))
    barred = play(first.state, DESARMEMENT, (1, 6), FEU, (6, 6))
    assert attack_of(barred, C).void_reason == "barred"
    again = play(barred.state, GLACE, (1, 6), FEU, (6, 1))
    assert attack_of(again, C).void_reason == "repeated_spell"
    cancelled = play(duel(), ANTISORT, (1, 6), GLACE, (6, 6))
    after = play(cancelled.state, DESARMEMENT, (1, 1), GLACE, (6, 6))
    assert attack_of(after, C).void_reason == "repeated_spell"


def test_repeated_bouclier_gives_no_bonus_and_still_no_attack() -> None:
    """RULES.md fine points: "A void Charme du Bouclier [...] gives no bonus [...] and its caster
    still does not attack that turn."""
    first = play(duel(), DESARMEMENT, (1, 6), BOUCLIER, (1, 6))
    second = play(first.state, GLACE, (5, 6), BOUCLIER, (6, 3))
    assert attack_of(second, A).effective_defense == 3 and attack_of(second, A).landed
    assert attack_of(second, C).void_reason == "repeated_spell" and attack_of(second, C).damage == 0


def test_repeated_spell_waived_by_referee_works() -> None:
    first = play(duel(), FEU, (1, 6), CHATOUILLIS, (1, 6))
    second = play(first.state, FEU, (6, 4), GLACE, (3, 1), waived=((A, "repeated_spell"),))
    assert attack_of(second, A).damage == 8
    assert second.violations[0].status == "waived"


def test_seed000_unlisted_spell_gives_opponent_next_attack_advantage_used() -> None:
    """Seed 000: "Tout sortilège utilisé et ne faisant pas partie de cette liste donnera un
    avantage à l'adversaire"; RULES.md draft: +2 to the opponent's next attack die, damage too."""
    first = play(duel(), None, (6, 2), CHATOUILLIS, (1, 6), a_text="Avada Kedavra")
    void = attack_of(first, A)
    assert void.void_reason == "unlisted_spell" and void.damage == 0
    (violation,) = first.violations
    assert (violation.rule, violation.status, violation.evidence) == (
        "unlisted_spell",
        "proposed",
        "Avada Kedavra",
    )
    assert violation.proposal == "advantage: +2 to the opponent's next attack die, for damage too"
    assert first.effects_next[C] == (
        AttackModifier(amount=2, affects_damage=True, source="unlisted_spell", caster=A),
    )
    second = play(first.state, GLACE, (1, 4), DESARMEMENT, (3, 6))
    used = attack_of(second, C)
    assert used.attack_modifiers == (Modifier(2, "unlisted_spell"),)
    assert used.landed and used.damage == 5  # 3 + 2 vs defense 4, damage too
    assert points(second)[0] == 30
    third = play(second.state, DESARMEMENT, (1, 6), GLACE, (3, 1))
    assert attack_of(third, C).attack_modifiers == () and not attack_of(third, C).landed


def test_rules_md_unlisted_advantage_lost_if_opponent_does_not_attack() -> None:
    """RULES.md fine points: "it is lost if they do not attack then"."""
    first = play(duel(), None, (6, 1), CHATOUILLIS, (1, 6), a_text="Avada Kedavra")
    second = play(first.state, GLACE, (1, 6), BOUCLIER, (6, 6))
    assert attack_of(second, C).damage == 0
    assert trail_of(second, f"{C}.attack.modifier")[0].value == 0
    assert "lost" in trail_of(second, f"{C}.attack.modifier")[0].detail
    assert second.effects_next[C] == ()


def test_unlisted_spell_referee_disqualifies_instead() -> None:
    """Seed 000: "[...] voire entraînera la disqualification immédiate du duelliste"."""
    outcome = play(
        duel(),
        None,
        (6, 1),
        CHATOUILLIS,
        (1, 6),
        a_text="Avada Kedavra",
        overrides={f"{A}.disqualified": True},
    )
    assert outcome.finished and outcome.winner == C
    assert outcome.violations[0].status == "applied"


def test_unlisted_spell_waived_attacks_as_damage_only() -> None:
    outcome = play(
        duel(),
        None,
        (5, 1),
        CHATOUILLIS,
        (1, 3),
        a_text="Sortilège d'Éternuement",
        waived=((A, "unlisted_spell"),),
    )
    assert attack_of(outcome, A).damage == 5 and outcome.effects_next[C] == ()


def test_unlisted_spell_disqualification_proposal_setting() -> None:
    ruleset = variant(unlisted_spell_proposal='"disqualification"')
    outcome = play(
        duel(ruleset=ruleset), None, (6, 1), CHATOUILLIS, (1, 6), a_text="Avada", ruleset=ruleset
    )
    assert outcome.violations[0].proposal == "disqualification"
    assert outcome.effects_next[C] == ()


def test_seed000_spell_above_level_is_only_a_flag() -> None:
    """Seed 000: "vous pouvez connaître un peu plus de sortilège que votre niveau si vous êtes
    rat de bibliothèque" - a flag for the referee, never applied."""
    outcome = play(duel(year_a="1"), FEU, (5, 6), ANTISORT, (6, 3), c_text=None)
    flags = [v for v in outcome.violations if v.rule == "spell_above_level"]
    assert [(v.duellist, v.status, v.penalty) for v in flags] == [(A, "proposed", 0)]
    assert attack_of(outcome, A).void_reason == "cancelled"  # the flag changes nothing
    assert [v.rule for v in outcome.violations if v.duellist == C] == []  # 7+ knows all
    works = play(duel(year_a="1"), FEU, (5, 6), DESARMEMENT, (1, 3))
    assert attack_of(works, A).damage == 7


def test_post_without_spell_is_a_missing_spell_note() -> None:
    """RULES.md: the spell is written in bold at the end of the post [D for classic]."""
    outcome = play(duel(), None, (6, 5), GLACE, (4, 1), a_text="")
    own = attack_of(outcome, A)
    assert own.void_reason == "missing_spell" and own.damage == 0
    assert not attack_of(outcome, C).landed  # defense 5 still counts
    assert [(v.rule, v.status) for v in outcome.violations] == [("missing_spell", "proposed")]
    assert outcome.state.duellist(A).last_spell is None


# --- End ----------------------------------------------------------------------------------------


def _at(state: DuelState, a: int, c: int) -> DuelState:
    return DuelState.from_dict(
        {
            **state.to_dict(),
            "duellists": [
                {**state.duellists[0].to_dict(), "points": a},
                {**state.duellists[1].to_dict(), "points": c},
            ],
        }
    )


def test_seed000_duel_ends_at_0_pd() -> None:
    """Seed 000: "Le duel se termine lorsque l'un des deux duelliste arrive à 0 PD"."""
    outcome = play(_at(duel(), 5, 50), DESARMEMENT, (1, 1), GLACE, (5, 1))
    assert points(outcome) == (0, 49)
    assert outcome.finished and outcome.winner == C and not outcome.draw
    assert outcome.state.finished and outcome.state.winner == C
    with pytest.raises(RuleError):
        play(outcome.state, GLACE, (1, 1), DESARMEMENT, (1, 1))


def test_rules_md_double_ko_higher_remaining_wins() -> None:
    """RULES.md: "Both at 0 or below in the same turn: the higher remaining PD wins (PD are not
    clamped at 0)"."""
    outcome = play(_at(duel(), 3, 2), DESARMEMENT, (5, 1), GLACE, (4, 1))
    assert points(outcome) == (-1, -3)
    assert outcome.finished and outcome.winner == A and not outcome.draw
    assert trail_of(outcome, "duel.finished")[0].rule == "classic.double_ko"


def test_rules_md_double_ko_exact_tie_is_a_draw() -> None:
    """RULES.md: "an exact tie is a draw [D]"."""
    outcome = play(_at(duel(), 3, 3), DESARMEMENT, (5, 1), GLACE, (5, 1))
    assert points(outcome) == (-2, -2)
    assert outcome.finished and outcome.draw and outcome.winner is None
    assert outcome.state.draw


def test_double_ko_draw_setting() -> None:
    ruleset = variant(double_ko='"draw"')
    outcome = play(
        _at(duel(ruleset=ruleset), 3, 2), DESARMEMENT, (5, 1), GLACE, (4, 1), ruleset=ruleset
    )
    assert outcome.draw and outcome.winner is None


def test_rules_md_pending_effects_listed_at_the_end() -> None:
    """RULES.md fine points: "Effects still pending when the duel ends are listed in the final
    declaration, nothing more."""
    outcome = play(_at(duel(), 35, 4), CONFUSION, (5, 6), CHATOUILLIS, (1, 3))
    assert outcome.finished and outcome.winner == A
    assert outcome.pending_effects_at_end == {
        C: (NoAttack(applies="target", when="next_turn", source=CONFUSION, caster=A),)
    }
    running = play(duel(), CONFUSION, (5, 6), CHATOUILLIS, (1, 3))
    assert running.pending_effects_at_end == {}


# --- Referee overrides and waivers --------------------------------------------------------------


def test_override_points_follows_through_to_the_winner() -> None:
    """RULES.md: "The referee can [...] change any computed number"."""
    outcome = play(duel(), DESARMEMENT, (5, 6), CHATOUILLIS, (1, 3), overrides={f"{C}.points": 0})
    assert points(outcome) == (35, 0)
    assert outcome.finished and outcome.winner == A
    override = [t for t in outcome.trail if t.rule == "referee.override"]
    assert [(t.quantity, t.value) for t in override] == [(f"{C}.points", 0)]
    assert "computed 45" in override[0].detail


def test_override_landed_and_damage_flow_into_pd_and_winner() -> None:
    state = _at(duel(), 35, 6)
    computed = play(state, DESARMEMENT, (5, 6), CHATOUILLIS, (1, 6))
    assert not attack_of(computed, A).landed and not computed.finished
    forced = play(state, DESARMEMENT, (5, 6), CHATOUILLIS, (1, 6), overrides={f"{A}.landed": True})
    assert attack_of(forced, A).landed and attack_of(forced, A).damage == 5
    assert points(forced)[1] == 1 and not forced.finished
    harder = play(
        state,
        DESARMEMENT,
        (5, 6),
        CHATOUILLIS,
        (1, 6),
        overrides={f"{A}.landed": True, f"{A}.damage": 9},
    )
    assert points(harder)[1] == -3 and harder.finished and harder.winner == A
    softer = play(state, FEU, (5, 6), CHATOUILLIS, (1, 3), overrides={f"{A}.landed": False})
    assert points(softer)[1] == 6 and softer.effects_next[C] == ()


def test_override_dice_are_used_downstream() -> None:
    outcome = play(
        duel(),
        DESARMEMENT,
        (2, 6),
        CHATOUILLIS,
        (1, 5),
        overrides={f"{A}.attack_die": 6, f"{C}.defense_die": 1},
    )
    hit = attack_of(outcome, A)
    assert (hit.attack_die, hit.effective_defense, hit.damage) == (6, 1, 6)
    assert outcome.dice == {101: (2, 6), 102: (1, 5)}  # the rolls as rolled
    with pytest.raises(RuleError):
        play(duel(), DESARMEMENT, (2, 6), CHATOUILLIS, (1, 5), overrides={f"{A}.attack_die": 7})


def test_override_disqualified_ends_the_duel() -> None:
    """Seed 000: "[...] ou si l'arbitre disqualifie l'un des deux adversaires"."""
    outcome = play(
        duel(), DESARMEMENT, (5, 6), CHATOUILLIS, (1, 3), overrides={f"{C}.disqualified": True}
    )
    assert outcome.finished and outcome.winner == A and outcome.state.duellist(C).disqualified


@pytest.mark.parametrize(
    "overrides",
    [
        {"Nobody.points": 3},
        {f"{A}.mana": 3},
        {"points": 3},
        {f"{A}.landed": 1},
        {f"{A}.damage": True},
    ],
)
def test_unknown_or_ill_typed_override_is_a_rule_error(overrides: dict[str, int | bool]) -> None:
    with pytest.raises(RuleError) as err:
        play(duel(), DESARMEMENT, (5, 6), CHATOUILLIS, (1, 3), overrides=overrides)
    assert err.value.rule == "referee.override"


# --- Input errors -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "dice",
    [
        {101: (0, 3), 102: (1, 1)},
        {101: (7, 3), 102: (1, 1)},
        {101: (3,), 102: (1, 1)},
        {101: (1, 1)},
    ],
)
def test_bad_dice_are_rule_errors(dice: dict[int, tuple[int, ...]]) -> None:
    posts = [TurnPost(A, 101, GLACE), TurnPost(C, 102, FEU)]
    with pytest.raises(RuleError) as err:
        resolve_turn(duel(), posts, dice, ruleset=RS)
    assert err.value.rule == "classic.dice"


@pytest.mark.parametrize(
    "posts",
    [
        [TurnPost(A, 101, GLACE)],
        [TurnPost(A, 101, GLACE), TurnPost(A, 102, FEU)],
        [TurnPost(A, 101, GLACE), TurnPost("Nobody", 102, FEU)],
    ],
)
def test_turn_needs_one_post_per_duellist(posts: list[TurnPost]) -> None:
    with pytest.raises(RuleError):
        resolve_turn(duel(), posts, {101: (1, 1), 102: (1, 1)}, ruleset=RS)


def test_non_canonical_spell_and_wrong_ruleset_are_rule_errors() -> None:
    with pytest.raises(RuleError) as err:
        play(duel(), "Feu", (1, 1), GLACE, (1, 1))
    assert err.value.rule == "spells"
    other = parse_ruleset(TEXT.replace('name = "classic"', 'name = "classic-club"', 1))
    with pytest.raises(RuleError) as err:
        play(duel(), GLACE, (1, 1), FEU, (1, 1), ruleset=other)
    assert err.value.rule == "ruleset"


# --- Trail and serialization --------------------------------------------------------------------


def test_trail_names_a_rule_and_a_source_for_every_number() -> None:
    first = play(duel(), POT, (6, 2), BOUCLIER, (6, 2))
    assert first.effects_next[C]
    outcome = play(first.state, FEU, (4, 2), CONFUSION, (3, 1))
    quantities = {t.quantity for t in outcome.trail}
    for name in (A, C):
        for q in (
            "attack.die",
            "defense.die",
            "defense.effective",
            "attack.landed",
            "attack.damage",
        ):
            assert f"{name}.{q}" in quantities
        assert f"{name}.points" in quantities
    assert "duel.finished" in quantities
    assert f"{C}.defense.modifier" in quantities  # the Pot de Colle's -2
    assert f"{A}.attack.value" in quantities
    for entry in outcome.trail:
        assert entry.rule and entry.source
        assert entry.rule.startswith(("classic.", "referee."))
    landed = trail_of(outcome, f"{A}.attack.landed")[0]
    assert "plus puissant que l'attaque" in landed.source


def test_round_trips_through_json() -> None:
    first = play(duel(), None, (6, 1), POT, (6, 1), a_text="Avada Kedavra")
    second = play(first.state, CONFUSION, (4, 2), BOUCLIER, (2, 3), overrides={f"{C}.damage": 1})
    for outcome in (first, second):
        again = TurnOutcome.from_dict(json.loads(json.dumps(outcome.to_dict())))
        assert again == outcome
        for attack in outcome.attacks:
            assert AttackResult.from_dict(json.loads(json.dumps(attack.to_dict()))) == attack
        for violation in outcome.violations:
            assert Violation.from_dict(json.loads(json.dumps(violation.to_dict()))) == violation
        for entry in outcome.trail:
            assert TrailEntry.from_dict(json.loads(json.dumps(entry.to_dict()))) == entry
    state = second.state
    assert DuelState.from_dict(json.loads(json.dumps(state.to_dict()))) == state
    for d in state.duellists:
        assert DuellistState.from_dict(json.loads(json.dumps(d.to_dict()))) == d
    post = TurnPost(A, 9, None, spell_text="Avada", kind="cast", bet=(1, 2), target="Cassius")
    assert TurnPost.from_dict(json.loads(json.dumps(post.to_dict()))) == post


def test_from_dict_missing_field_is_a_rule_error() -> None:
    data = duel().to_dict()
    del data["turn"]
    with pytest.raises(RuleError) as err:
        DuelState.from_dict(data)
    assert err.value.rule == "DuelState.turn"


# --- Properties ---------------------------------------------------------------------------------

SPELL_NAMES = [s.name for s in RS.spells]
post_choice = st.one_of(
    st.sampled_from(SPELL_NAMES).map(lambda s: (s, s)),
    st.just((None, "Avada Kedavra")),
    st.just((None, None)),
)
die = st.integers(min_value=1, max_value=6)
turn_input = st.tuples(post_choice, st.tuples(die, die), post_choice, st.tuples(die, die))


@settings(max_examples=150, deadline=None)
@given(st.lists(turn_input, min_size=1, max_size=40), st.sampled_from(["1", "3", "7+"]))
def test_property_pd_never_increase_and_landed_attacks_end_the_duel(
    turns: list[tuple[tuple[Spell, Spell], tuple[int, int], tuple[Spell, Spell], tuple[int, int]]],
    year: str,
) -> None:
    """PD never increase; every landed attack removes at least 1 PD, so a duel whose duellists
    keep landing attacks ends within (sum of starting PD - 1) landed attacks."""
    state = duel(year_a=year, year_c="2")
    budget = sum(d.points for d in state.duellists)
    landed = 0
    for (a, a_text), a_dice, (c, c_text), c_dice in turns:
        if state.finished:
            break
        before = points_of(state)
        outcome = play(state, a, a_dice, c, c_text=c_text or "", a_text=a_text or "", c_dice=c_dice)
        after = points_of(outcome.state)
        assert all(x <= y for x, y in zip(after, before, strict=True))
        landed += sum(1 for r in outcome.attacks if r.landed)
        assert all(r.damage >= 1 for r in outcome.attacks if r.landed)
        if not outcome.finished:
            assert landed <= budget - 2
        state = outcome.state


def points_of(state: DuelState) -> tuple[int, ...]:
    return tuple(d.points for d in state.duellists)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from([s for s in SPELL_NAMES if RS.spell(s).attacks]), min_size=60, max_size=60
    )
)
def test_property_duel_of_random_spells_ends_when_someone_attacks(spells: list[str]) -> None:
    """With attack 6 / defense 1 every attacking post lands; Aurora (always attacking, any spell
    but the previous one) ends the duel within 50 PD / (6 per hit) turns, shields or not."""
    state = duel(year_a="7+", year_c="7+")
    previous: str | None = None
    turns = 0
    for spell in spells:
        if state.finished:
            break
        mine = spell if spell != previous else GLACE if spell != GLACE else FEU
        outcome = play(state, mine, (6, 1), BOUCLIER if turns % 2 else ANTISORT, (1, 1))
        previous = mine
        turns += 1
        state = outcome.state
    assert state.finished and state.winner == A
    assert turns <= 2 * 9  # the Antisort turns cancel; the Bouclier turns land (6 vs 1 + 3)


@settings(max_examples=100, deadline=None)
@given(st.integers().filter(lambda v: not 1 <= v <= 6), st.booleans())
def test_property_only_dice_values_1_to_6_are_accepted(value: int, attack: bool) -> None:
    dice = (value, 3) if attack else (3, value)
    with pytest.raises(RuleError) as err:
        play(duel(), GLACE, dice, FEU, (1, 1))
    assert err.value.rule == "classic.dice"


def test_unlisted_advantage_without_damage_setting() -> None:
    """RULES.md: "+2 to the opponent's next attack die, for damage too [D]" - a setting."""
    ruleset = variant(unlisted_advantage_damage="false")
    first = play(
        duel(ruleset=ruleset), None, (6, 2), CHATOUILLIS, (1, 6), a_text="Avada", ruleset=ruleset
    )
    assert first.violations[0].proposal == "advantage: +2 to the opponent's next attack die"
    second = play(first.state, GLACE, (1, 4), DESARMEMENT, (3, 6), ruleset=ruleset)
    used = attack_of(second, C)
    assert used.attack_value == 5 and used.landed and used.damage == 3


def test_resolve_turn_needs_a_registered_engine() -> None:
    with pytest.raises(RuleError) as err:
        play(duel(), GLACE, (1, 1), FEU, (1, 1), ruleset=replace(RS, engine="fatigue-draft"))
    assert err.value.rule == "engine"
