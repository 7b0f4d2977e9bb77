"""The fatigue ruleset's 1v1 engine (seed 001 and RULES.md "Ruleset fatigue", fine points).

Duellists: Aurora Vexley (5th year, 300 PV, brutale) and Cassius Thorne (7th year, 400 PV,
sournoise). Each post carries one d6 (its bet die). Test names/docstrings quote the seed 001
sentence (or RULES.md line) they check.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import DuelState, RuleError, TurnOutcome, TurnPost, resolve_turn, ruleset_path
from rules import start_duel as start
from rules.effects import NoAttack
from rules.fatigue import (
    FatigueRuleset,
    NoDodge,
    PostFacts,
    Ward,
    close_without_winner,
    concede,
    count_displayed_lines,
    load_fatigue_ruleset,
    new_fatigue_duel,
    parse_any_ruleset,
    resolve_fatigue_step,
    version_in_force,
)

SEED_TESTS_RULESET = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
"""The spellbook these hand-computed duels were written with (issue 26: the shipped one changed)."""
TEXT = SEED_TESTS_RULESET.read_text(encoding="utf-8")
RS = load_fatigue_ruleset(TEXT)
A = "Aurora Vexley"
C = "Cassius Thorne"
LOW = (1, 2, 3, 4)
HIGH = (3, 4, 5, 6)
R_LOW = (1, 2, 3)
R_HIGH = (4, 5, 6)


def variant(**values: str) -> FatigueRuleset:
    """The shipped ruleset with some scalar settings changed (values written as TOML)."""
    lines = []
    for line in TEXT.splitlines():
        key = line.split("=")[0].strip()
        lines.append(f"{key} = {values[key]}" if key in values and "=" in line else line)
    return load_fatigue_ruleset("\n".join(lines))


def duel(
    year_a: str = "5", year_c: str = "7", types_a: tuple[str, ...] = ("brutale",),
    types_c: tuple[str, ...] = ("sournoise",), rs: FatigueRuleset = RS,
) -> DuelState:  # fmt: skip
    return start(new_fatigue_duel(rs, [(A, year_a, types_a), (C, year_c, types_c)]))


def cast(who: str, pid: int, spell: str | None, bet: tuple[int, ...] | None = HIGH,
         kind: str | None = "cast", text: str | None = None) -> TurnPost:  # fmt: skip
    return TurnPost(who, pid, spell, spell_text=text or spell, kind=kind, bet=bet)


def dodge(who: str, pid: int, bet: tuple[int, ...] | None = HIGH) -> TurnPost:
    return TurnPost(who, pid, None, kind="dodge", bet=bet)


def riposte(who: str, pid: int, spell: str, bet: tuple[int, ...] = R_HIGH) -> TurnPost:
    return TurnPost(who, pid, spell, spell_text=spell, kind="dodge_riposte", bet=bet)


def turn(
    state: DuelState, first: TurnPost, die1: int, second: TurnPost | None, die2: int = 1,
    rs: FatigueRuleset = RS, **kw: object,
) -> tuple[TurnOutcome, TurnOutcome]:  # fmt: skip
    """Play one 1v1 turn: initiative step, then defense step (relaunch when ``second`` is None)."""
    one = resolve_fatigue_step(state, [first], {first.post_id: (die1,)}, ruleset=rs)
    if one.finished:
        return one, one
    posts = [second] if second is not None else []
    dice = {second.post_id: (die2,)} if second is not None else {}
    two = resolve_fatigue_step(one.state, posts, dice, ruleset=rs, **kw)  # type: ignore[arg-type]
    return one, two


def pv(state: DuelState) -> tuple[int, int]:
    return (state.duellist(A).points, state.duellist(C).points)


def trail_values(outcome: TurnOutcome, quantity: str) -> list[object]:
    return [t.value for t in outcome.trail if t.quantity == quantity]


# --- The ruleset file ----------------------------------------------------------------------------


def test_seed001_starting_pv_by_year() -> None:
    """seed 001: "Première année : 100 PV. [...] Septième année : 400 PV. Adultes : 500 PV." """
    expected = {"1": 100, "2": 150, "3": 200, "4": 250, "5": 300, "6": 350, "7": 400, "adult": 500}
    assert {y: RS.starting_points_for(y) for y in expected} == expected
    assert pv(duel()) == (300, 400)


def test_seed001_spell_levels_by_year() -> None:
    """seed 001: "Première année : sorts de niveau 1. [...] Adultes : sorts de niveau
    1,2,3,4,5,6,7 et 8." """
    assert [RS.max_level_for(str(y)) for y in range(1, 8)] == [1, 2, 3, 4, 5, 6, 7]
    assert RS.max_level_for("adult") == 8
    assert {s.level for s in RS.spells} == set(range(1, 9))
    assert len(RS.spells) >= 15


def test_seed001_five_magic_types_with_modifiers_and_owl_text() -> None:
    """seed 001: "Il existe à ce jour 5 types de magie référencés : Brutale [...], Discrète
    [...], Flamboyante [...], Protectrice [...], Sournoise" """
    assert sorted(RS.magic_types) == [
        "brutale",
        "discrete",
        "flamboyante",
        "protectrice",
        "sournoise",
    ]
    assert RS.magic_type("DISCRÈTE").label == "Discrète"
    assert all(m.modifiers and m.owl for m in RS.magic_types.values())


def test_seed001_bets_per_action() -> None:
    """seed 001: cast and dodge bet "[1,2,3,4] ou [3,4,5,6]", dodge_riposte "[1,2,3] ou
    [4,5,6]"."""
    assert RS.bets == {"cast": (LOW, HIGH), "dodge": (LOW, HIGH), "dodge_riposte": (R_LOW, R_HIGH)}


def test_every_d_is_a_setting_with_its_default() -> None:
    cfg = RS.cfg
    assert (cfg.violation_penalty, cfg.reused_spell_penalty, cfg.dodge_twice_penalty) == (
        20,
        20,
        20,
    )
    assert (cfg.timeout_1v1_hours, cfg.timeout_2v2_hours, cfg.chars_per_line, cfg.min_lines) == (
        36, 48, 100, 10,
    )  # fmt: skip
    assert cfg.short_post == "proposed" and cfg.violations_to_lose == 3
    assert cfg.double_ko == "higher_remaining_wins" and cfg.concession == "opponent_wins"


def test_ruleset_errors_name_the_setting() -> None:
    with pytest.raises(RuleError) as err:
        load_fatigue_ruleset(
            TEXT.replace("dodge_riposte = [[1, 2, 3], [4, 5, 6]]", "dodge_riposte = [[7]]")
        )
    assert err.value.rule == "bets.dodge_riposte"
    with pytest.raises(RuleError) as err:
        load_fatigue_ruleset(TEXT.replace('kind = "damage_flat"', 'kind = "charisma"'))
    assert err.value.rule == "magic_types.flamboyante.modifiers[0].kind"
    with pytest.raises(RuleError) as err:
        variant(short_post='"sometimes"')
    assert err.value.rule == "short_post"
    assert isinstance(parse_any_ruleset(TEXT), FatigueRuleset)
    assert not isinstance(parse_any_ruleset(ruleset_path("classic").read_text()), FatigueRuleset)


def test_magic_types_checked_at_duel_creation() -> None:
    """seed 001: "votre type de magie (2 types maximum ...)" """
    with pytest.raises(RuleError):
        new_fatigue_duel(
            RS, [(A, "5", ("brutale", "discrète", "sournoise")), (C, "7", ("brutale",))]
        )
    with pytest.raises(RuleError):
        new_fatigue_duel(RS, [(A, "5", ("colérique",)), (C, "7", ("brutale",))])


# --- Turn shape ----------------------------------------------------------------------------------


def test_seed001_first_poster_takes_initiative_and_first_declaration_states_its_effects() -> None:
    """seed 001: "Le premier des deux duellistes à poster en début de tour s'octroie le poste
    d'initiative." / "La première déclaration de l'arbitre permet d'établir les éventuels effets
    du poste d'initiative." """
    s = duel()
    one = resolve_fatigue_step(s, [cast(C, 11, "Diffindo")], {11: (4,)}, ruleset=RS)
    assert trail_values(one, "turn.initiative") == [C]
    assert one.attacks[0].void_reason == "pending" and one.attacks[0].attack_value == 35
    assert one.state.pending[0].dice == (4,) and one.state.turn == 0 and one.turn == 1
    assert pv(one.state) == (300, 400)


def test_seed001_second_declaration_ends_the_turn_and_frees_the_initiative() -> None:
    """seed 001: "La deuxième déclaration de l'arbitre permet d'établir les effets des postes
    d'initiative et de défense. Avec elle se termine le tour." """
    one, two = turn(duel(), cast(A, 1, "Diffindo"), 5, cast(C, 2, "Flipendo"), 5)
    assert two.state.turn == 1 and two.state.pending == ()
    # Aurora (brutale: +10 % on attaque) deals 35 + 3; Cassius deals 20.
    assert pv(two.state) == (280, 362)
    # The next turn's initiative may go to either duellist.
    nxt = resolve_fatigue_step(two.state, [cast(C, 3, "Rictusempra")], {3: (2,)}, ruleset=RS)
    assert trail_values(nxt, "turn.initiative") == [C]


def test_seed001_initiative_only_casts() -> None:
    """seed 001: "L'initiative n'offre qu'un choix d'action : 'lancer un sort'." """
    one = resolve_fatigue_step(duel(), [dodge(A, 1)], {1: (3,)}, ruleset=RS)
    assert [v.rule for v in one.violations] == ["initiative_not_cast"]
    assert pv(one.state) == (280, 400)


def test_defense_must_come_from_the_other_duellist() -> None:
    one = resolve_fatigue_step(duel(), [cast(A, 1, "Flipendo")], {1: (3,)}, ruleset=RS)
    with pytest.raises(RuleError) as err:
        resolve_fatigue_step(one.state, [cast(A, 2, "Rictusempra")], {2: (3,)}, ruleset=RS)
    assert err.value.rule == "fatigue.posts"
    with pytest.raises(RuleError) as err:
        resolve_fatigue_step(
            one.state, [cast(C, 2, "Rictusempra")], {2: (3,)}, ruleset=RS, step="initiative"
        )
    assert err.value.rule == "fatigue.step"


# --- Casting and dodging -------------------------------------------------------------------------


def test_seed001_cast_cannot_miss_uncontested() -> None:
    """seed 001: "Lancer un sort : [...] Elle est par défaut inratable" """
    _, two = turn(
        duel(types_a=("discrete",)),
        cast(A, 1, "Flipendo", bet=LOW),
        6,
        cast(C, 2, "Rictusempra"),
        1,
    )
    assert two.attacks[0].landed and two.attacks[0].damage == 20
    assert pv(two.state) == (300 - (15 - 5), 400 - 20)  # Aurora is discrète: -5 taken


def test_seed001_defender_who_casts_cannot_avoid_the_initiative_spell() -> None:
    """seed 001: "'Lancer un sort' : cette action ne pourra pas échouer par défaut, mais le
    duelliste ne pourra, par conséquent, pas éviter l'attaque du poste d'initiative" """
    _, two = turn(duel(), cast(A, 1, "Flipendo"), 1, cast(C, 2, "Diffindo"), 1)
    assert [a.landed for a in two.attacks] == [True, True]


def test_seed001_dodge_succeeds_when_own_bet_won_and_cast_bet_lost() -> None:
    """seed 001: "Esquiver : Cette action permet d'esquiver un sort si celui-ci le permet."
    RULES.md: "Succeeds when its own bet is won **and** the cast's bet is lost [D]" """
    s = duel()
    _, won = turn(s, cast(A, 1, "Diffindo", bet=HIGH), 2, dodge(C, 2, bet=HIGH), 5)
    assert won.attacks[0].void_reason == "dodged" and pv(won.state) == (300, 400)
    _, both_won = turn(s, cast(A, 1, "Diffindo", bet=HIGH), 5, dodge(C, 2, bet=HIGH), 5)
    assert both_won.attacks[0].landed and pv(both_won.state) == (300, 400 - 38)
    _, own_lost = turn(s, cast(A, 1, "Diffindo", bet=HIGH), 2, dodge(C, 2, bet=HIGH), 1)
    assert own_lost.attacks[0].landed


def test_dodge_success_setting_own_won() -> None:
    rs = variant(dodge_success='"own_won"')
    _, two = turn(duel(rs=rs), cast(A, 1, "Diffindo"), 5, dodge(C, 2), 5, rs=rs)
    assert not two.attacks[0].landed


def test_seed001_undodgeable_spell_cannot_be_dodged() -> None:
    """seed 001: "esquiver un sort si celui-ci le permet" (Oppugno is undodgeable)."""
    _, two = turn(duel(), cast(A, 1, "Oppugno"), 2, dodge(C, 2), 5)
    assert two.attacks[0].landed and trail_values(two, f"{C}.dodged") == [False]


def test_seed001_dodge_riposte_avoids_and_lands_the_riposte() -> None:
    """seed 001: "Outre le fait d'esquiver le sort adverse si celui-ci le permet, cette action
    permet par la même occasion de riposter en lançant à son tour un sort." """
    _, two = turn(duel(), cast(A, 1, "Diffindo", bet=HIGH), 1, riposte(C, 2, "Flipendo", R_HIGH), 6)
    assert not two.attacks[0].landed and two.attacks[1].landed
    assert pv(two.state) == (280, 400)


def test_failed_dodge_riposte_lands_the_incoming_spell_and_the_riposte_fails() -> None:
    """RULES.md: "otherwise the incoming spell lands and the riposte fails" """
    _, two = turn(duel(), cast(A, 1, "Diffindo", bet=HIGH), 4, riposte(C, 2, "Flipendo", R_HIGH), 6)
    assert two.attacks[0].landed and not two.attacks[1].landed
    assert two.attacks[1].void_reason == "riposte_failed"
    assert pv(two.state) == (300, 362)


def test_riposte_against_undodgeable_lands_if_its_bet_won() -> None:
    """RULES.md Fine points: "dodge_riposte against a spell that cannot be dodged: the incoming
    spell lands; the riposte lands if the riposte's bet succeeded." """
    _, two = turn(duel(), cast(A, 1, "Oppugno", bet=HIGH), 4, riposte(C, 2, "Flipendo", R_HIGH), 6)
    assert two.attacks[0].landed and two.attacks[1].landed
    rs = variant(riposte_vs_undodgeable='"never"')
    _, never = turn(duel(rs=rs), cast(A, 1, "Oppugno"), 1, riposte(C, 2, "Flipendo"), 6, rs=rs)
    assert not never.attacks[1].landed


def test_seed001_no_dodge_two_turns_in_a_row() -> None:
    """seed 001: "il est interdit d'utiliser cette action deux tours de suite." RULES.md Fine
    points: "A forbidden second dodge fails (as if no dodge), costs 20 PV, and the incoming spell
    lands." """
    _, two = turn(duel(), cast(A, 1, "Flipendo"), 2, dodge(C, 2), 5)
    assert two.state.duellist(C).last_action == "dodge"
    _, again = turn(two.state, cast(A, 3, "Rictusempra"), 2, dodge(C, 4), 5)
    assert [v.rule for v in again.violations] == ["dodge_twice"]
    assert again.attacks[0].landed
    assert pv(again.state) == (300, 400 - 20 - 16)


def test_dodge_riposte_does_not_count_for_dodge_twice() -> None:
    """RULES.md Fine points: "`dodge_twice` concerns dodge only: dodge_riposte does not count"."""
    _, two = turn(duel(), cast(A, 1, "Flipendo"), 2, riposte(C, 2, "Rictusempra"), 5)
    _, nxt = turn(two.state, cast(A, 3, "Diffindo"), 2, dodge(C, 4), 5)
    assert nxt.violations == () and not nxt.attacks[0].landed


# --- Effects -------------------------------------------------------------------------------------


def test_seed001_hit_loses_pv_and_keeps_effects_for_their_duration() -> None:
    """seed 001: "Dès lors qu'un duelliste est victime d'un sort, celui perd automatiquement des
    points de vies et reste toujours touché par les effets dudit sortilège" """
    _, two = turn(
        duel(types_a=("discrete",)), cast(A, 1, "Levicorpus"), 5, cast(C, 2, "Flipendo"), 1
    )
    effects = two.state.duellist(C).effects
    # Cassius is sournoise: his entrave spells last longer, not the ones he receives.
    assert [(e.kind, e.duration, e.source, e.caster) for e in effects] == [
        ("no_dodge", 2, "Levicorpus", A)
    ]
    assert pv(two.state) == (300 - (20 - 5), 370)  # Aurora is discrète: -5 taken


def test_effects_start_next_turn_and_never_bind_the_answering_post() -> None:
    """RULES.md Fine points: "a spell's effect starts with the next turn (it never binds the
    post that answers it)". Petrificus (no_dodge) cast at initiative: the defense may dodge."""
    _, two = turn(duel(), cast(A, 1, "Petrificus Totalus", bet=LOW), 6, dodge(C, 2, bet=HIGH), 5)
    assert two.violations == () and not two.attacks[0].landed
    _, hit = turn(duel(), cast(A, 1, "Petrificus Totalus"), 5, cast(C, 2, "Flipendo"), 5)
    # Next turn: Cassius may not dodge (barred_action proposed, the dodge ignored).
    _, nxt = turn(hit.state, cast(A, 3, "Flipendo"), 2, dodge(C, 4), 5)
    assert [(v.rule, v.status) for v in nxt.violations] == [("barred_action", "proposed")]
    assert nxt.attacks[0].landed


def test_effects_expire_after_their_duration() -> None:
    _, hit = turn(duel(), cast(A, 1, "Petrificus Totalus"), 5, cast(C, 2, "Flipendo"), 5)
    assert [e.duration for e in hit.state.duellist(C).effects] == [1]
    _, t2 = turn(hit.state, cast(C, 3, "Rictusempra"), 5, cast(A, 4, "Rictusempra"), 5)
    assert t2.state.duellist(C).effects == ()
    assert trail_values(t2, f"{C}.effects.expired") == ["no_dodge"]


def test_same_effect_does_not_stack_longer_kept_different_effects_stack() -> None:
    """RULES.md Fine points: "The same effect does not stack: the longer remaining duration is
    kept; different effects stack." """
    ward2 = Ward(amount=15, duration=2, source="Protego", caster=A)
    nd = NoDodge(duration=1, source="Petrificus Totalus", caster=C)
    s = duel(types_a=("discrete",))
    s = DuelState.from_dict({**s.to_dict(), "duellists": [
        {**s.duellist(A).to_dict(), "effects": [ward2.to_dict(), nd.to_dict()]},
        s.duellist(C).to_dict(),
    ]})  # fmt: skip
    # Aurora casts Protego again (2 turns): the running Protego (1 left after this turn) does
    # not stack with it: the longer (2) is kept. no_dodge expires.
    _, two = turn(s, cast(A, 1, "Protego"), 3, cast(C, 2, "Flipendo"), 3)
    kinds = [(e.kind, e.duration) for e in two.state.duellist(A).effects]
    assert kinds == [("ward", 2)]
    # Ward running this turn: Flipendo's 20 PV, -5 (discrète), -15 (ward): 0.
    assert pv(two.state) == (300, 400)


def test_ward_reduces_damage_never_below_zero() -> None:
    ward = Ward(amount=35, duration=1, source="Protego Maxima", caster=C)
    s = duel()
    s = DuelState.from_dict({**s.to_dict(), "duellists": [
        s.duellist(A).to_dict(),
        {**s.duellist(C).to_dict(), "effects": [ward.to_dict()]},
    ]})  # fmt: skip
    _, two = turn(s, cast(A, 1, "Flipendo"), 3, cast(C, 2, "Rictusempra"), 3)
    assert two.attacks[0].damage == 0 and pv(two.state)[1] == 400


def test_barred_cast_is_ignored_and_proposed() -> None:
    """RULES.md Fine points: "An action forbidden by an effect (casting while barred [...]) is
    ignored and proposed to the referee as `barred_action` (20 PV if confirmed)." """
    _, hit = turn(duel(), cast(A, 1, "Stupéfix"), 5, cast(C, 2, "Flipendo"), 5)
    assert any(isinstance(e, NoAttack) for e in hit.state.duellist(C).effects)
    one = resolve_fatigue_step(hit.state, [cast(C, 3, "Diffindo")], {3: (5,)}, ruleset=RS)
    assert [(v.rule, v.status) for v in one.violations] == [("barred_action", "proposed")]
    assert one.attacks[0].void_reason == "barred" and pv(one.state) == pv(hit.state)
    confirmed = resolve_fatigue_step(
        hit.state, [cast(C, 3, "Diffindo")], {3: (5,)}, ruleset=RS, confirmed={(C, "barred_action")}
    )
    assert pv(confirmed.state)[1] == pv(hit.state)[1] - 20


def test_no_legal_action_endures_without_violation() -> None:
    """RULES.md Fine points: "A duellist left with no legal action posts role-play and endures:
    that counts as their post, no violation." """
    _, hit = turn(duel(), cast(A, 1, "Stupéfix"), 5, cast(C, 2, "Flipendo"), 5)
    one = resolve_fatigue_step(hit.state, [TurnPost(C, 3, None)], {3: (2,)}, ruleset=RS)
    assert one.violations == () and trail_values(one, f"{C}.endures") == [True]


def test_seed001_must_act_every_turn() -> None:
    """seed 001: "un duelliste n'a pas le droit de ne pas agir pendant un tour, sauf s'il y est
    contraint." """
    _, two = turn(duel(), cast(A, 1, "Flipendo"), 2, TurnPost(C, 2, None), 5)
    assert [v.rule for v in two.violations] == ["no_action"]
    assert pv(two.state) == (300, 400 - 20 - 22)  # no_action, then Flipendo (brutale +10 %)


def test_damage_over_time_and_heal() -> None:
    _, burn = turn(
        duel(types_a=("discrete",)), cast(A, 1, "Incendio"), 5, cast(C, 2, "Rictusempra"), 5
    )
    assert pv(burn.state) == (290, 380)
    _, t2 = turn(burn.state, cast(C, 3, "Rictusempra", bet=LOW), 5, cast(A, 4, "Flipendo"), 5)
    # Rictusempra reused by Cassius on Aurora: reused_spell (first declaration). Incendio
    # burns Cassius 5 more PV at this turn's close.
    assert [v.rule for v in t2.state.duellist(C).violations] == ["reused_spell"]
    assert pv(t2.state) == (290, 380 - 20 - 20 - 5)
    assert trail_values(t2, f"{C}.damage_over_time") == [5]


@pytest.mark.parametrize(("before", "after", "healed"), [(150, 160, 25), (195, 200, 20)])
def test_heal_capped_at_starting_pv(before: int, after: int, healed: int) -> None:
    """Episkey heals the caster 25 PV, never above the year's starting PV (setting heal_cap)."""
    data = duel(year_a="3").to_dict()
    data["duellists"][0]["points"] = before
    s = DuelState.from_dict(data)
    _, two = turn(s, cast(A, 1, "Episkey"), 3, cast(C, 2, "Rictusempra"), 3)
    assert trail_values(two, f"{A}.heal") == [healed]
    assert pv(two.state)[0] == after


def test_magic_type_modifiers_recorded_in_trail() -> None:
    """seed 001: "l'utilisation de certains sorts et leurs résultats seront parfois différents
    selon le type de magie du duelliste" """
    _, two = turn(
        duel(types_a=("flamboyante",)),
        cast(A, 1, "Confringo"),
        3,
        cast(C, 2, "Flipendo"),
        3,
    )
    assert pv(two.state)[1] == 400  # 5th year: Confringo (level 6) is above level
    adult = duel(year_a="adult", types_a=("flamboyante", "brutale"))
    _, fire = turn(adult, cast(A, 1, "Confringo"), 3, cast(C, 2, "Flipendo"), 3)
    assert fire.attacks[0].damage == 65
    mods = [t for t in fire.trail if t.rule == "fatigue.magic_type"]
    assert mods and all("magic" not in t.detail or t.source for t in mods)
    _, discrete = turn(
        duel(types_c=("discrete",)), cast(A, 1, "Flipendo"), 3, cast(C, 2, "Flipendo"), 3
    )
    assert discrete.attacks[0].damage == 20 + 2 - 5


def test_sournoise_entrave_effects_last_longer() -> None:
    _, two = turn(duel(), cast(C, 1, "Petrificus Totalus", bet=LOW), 3, cast(A, 2, "Flipendo"), 3)
    assert [(e.kind, e.duration) for e in two.state.duellist(A).effects] == [("no_dodge", 2)]


# --- Violations ----------------------------------------------------------------------------------


def test_seed001_reused_spell_costs_20_and_has_no_effect() -> None:
    """seed 001: "à partir du moment où son adversaire est affecté ou directement ciblé par un
    sort, il est formellement interdit au lanceur de le réutiliser une seconde fois sur son
    adversaire. [...] l'arbitre fera perdre 20 PV supplémentaires" """
    _, t1 = turn(duel(), cast(A, 1, "Flipendo"), 3, cast(C, 2, "Rictusempra"), 3)
    one = resolve_fatigue_step(t1.state, [cast(A, 3, "Flipendo")], {3: (3,)}, ruleset=RS)
    assert [(v.rule, v.penalty, v.status) for v in one.violations] == [
        ("reused_spell", 20, "applied")
    ]
    assert pv(one.state)[0] == pv(t1.state)[0] - 20
    two = resolve_fatigue_step(one.state, [cast(C, 4, "Diffindo")], {4: (3,)}, ruleset=RS)
    assert not two.attacks[0].landed and two.attacks[0].void_reason == "reused_spell"
    assert two.violations == ()  # not counted twice


def test_reuse_binds_the_caster_only() -> None:
    """RULES.md Fine points: "The rule binds the caster only: the opponent may cast the same
    spell back." """
    _, t1 = turn(duel(), cast(A, 1, "Flipendo"), 3, cast(C, 2, "Flipendo"), 3)
    assert t1.violations == () and [a.landed for a in t1.attacks] == [True, True]


def test_dodged_spell_did_target_failed_riposte_did_not() -> None:
    """RULES.md Fine points: "a dodged spell did directly target its target; a riposte that
    failed, or a void spell, did not." """
    _, t1 = turn(duel(), cast(A, 1, "Diffindo"), 2, riposte(C, 2, "Flipendo", R_LOW), 5)
    assert (("Diffindo", C) in t1.state.duellist(A).spells_used_on) is True
    assert t1.state.duellist(C).spells_used_on == ()
    _, t2 = turn(t1.state, cast(C, 3, "Flipendo"), 3, cast(A, 4, "Rictusempra"), 3)
    assert t2.violations == ()


def test_waived_reused_spell_works_normally() -> None:
    _, t1 = turn(duel(), cast(A, 1, "Flipendo"), 3, cast(C, 2, "Rictusempra"), 3)
    one = resolve_fatigue_step(
        t1.state, [cast(A, 3, "Flipendo")], {3: (3,)}, ruleset=RS, waived={(A, "reused_spell")}
    )
    assert one.violations[0].status == "waived" and pv(one.state) == pv(t1.state)
    two = resolve_fatigue_step(
        one.state, [cast(C, 4, "Rictusempra", bet=LOW)], {4: (3,)}, ruleset=RS
    )
    assert two.attacks[0].landed


def test_spell_above_level_no_effect_costs_20() -> None:
    """RULES.md Fine points: "A spell above the caster's level has no effect and costs 20 PV." """
    one = resolve_fatigue_step(duel(year_a="1"), [cast(A, 1, "Diffindo")], {1: (3,)}, ruleset=RS)
    assert [(v.rule, v.status) for v in one.violations] == [("spell_above_level", "applied")]
    assert one.state.duellist(A).points == 80
    two = resolve_fatigue_step(one.state, [cast(C, 2, "Flipendo")], {2: (3,)}, ruleset=RS)
    assert not two.attacks[0].landed and two.state.duellist(C).spells_used_on == (("Flipendo", A),)
    assert two.state.duellist(A).spells_used_on == ()


def test_seed001_any_other_violation_costs_20() -> None:
    """seed 001: "Si une règle, quelle qu'elle soit, du règlement officiel du club de duels n'est
    pas respectée, le fautif se verra retirer 20 PV." (a bet outside the allowed ones)"""
    one = resolve_fatigue_step(duel(), [cast(A, 1, "Flipendo", bet=(1, 2))], {1: (1,)}, ruleset=RS)
    assert [(v.rule, v.penalty) for v in one.violations] == [("invalid_bet", 20)]
    assert pv(one.state) == (280, 400)
    assert trail_values(one, f"{A}.bet_won") == [False]


def test_unknown_spell_is_proposed() -> None:
    """RULES.md Common: "Bold text that matches nothing is an `unknown_spell` for the referee"."""
    one = resolve_fatigue_step(
        duel(), [cast(A, 1, None, text="Avada Kedavra")], {1: (3,)}, ruleset=RS
    )
    assert [(v.rule, v.status) for v in one.violations] == [("unknown_spell", "proposed")]
    assert pv(one.state) == (300, 400)


def test_seed001_three_violations_lose_the_duel() -> None:
    """seed 001: "Si un duelliste ne respecte pas les différents points du règlement officiel,
    et ce à trois reprises lors du duel, son adversaire sera automatiquement désigné
    vainqueur." """
    s = duel(year_a="1")
    for i, pid in enumerate((1, 3, 5)):
        one = resolve_fatigue_step(s, [cast(A, pid, "Bombarda Maxima")], {pid: (3,)}, ruleset=RS)
        if i == 2:
            assert one.finished and one.winner == C
            assert trail_values(one, "duel.finished") == [True]
            return
        silent = cast(C, pid + 1, None, text=None, kind=None)
        two = resolve_fatigue_step(
            one.state, [silent], {pid + 1: (3,)}, ruleset=RS, waived={(C, "no_action")}
        )
        s = two.state
    raise AssertionError("the third violation must end the duel")


def test_both_at_three_violations_in_one_declaration_is_a_draw() -> None:
    """RULES.md Fine points: "both reaching three in the same declaration is a draw." The
    referee confirms the initiative's proposed short_post at the second declaration while the
    defense post breaks a rule too."""
    s = duel()
    v = {"duellist": A, "rule": "invalid_bet", "post_id": 0, "evidence": "x", "penalty": 20,
         "status": "applied", "proposal": None}  # fmt: skip
    data = s.to_dict()
    data["duellists"][0]["violations"] = [v, v]
    data["duellists"][1]["violations"] = [{**v, "duellist": C}, {**v, "duellist": C}]
    s = DuelState.from_dict(data)
    one = resolve_fatigue_step(
        s, [cast(A, 1, "Flipendo")], {1: (3,)}, ruleset=RS, facts={1: PostFacts(lines=3)}
    )
    assert not one.finished and one.violations[0].status == "proposed"
    two = resolve_fatigue_step(
        one.state, [cast(C, 2, "Flipendo", bet=(6,))], {2: (3,)}, ruleset=RS,
        confirmed={(A, "short_post")},
    )  # fmt: skip
    assert two.finished and two.draw and two.winner is None
    assert [x.status for x in two.state.duellist(A).violations if x.rule == "short_post"] == [
        "applied"
    ]


def test_short_post_proposed_not_applied_and_late_edit() -> None:
    """seed 001: "Chaque post doit, au minimum, faire 10 lignes." RULES.md: "A short post is
    proposed to the referee as `short_post`, not applied automatically [D]." """
    one = resolve_fatigue_step(
        duel(), [cast(A, 1, "Flipendo")], {1: (3,)}, ruleset=RS,
        facts={1: PostFacts(lines=6, late_edit=True)},
    )  # fmt: skip
    assert [(v.rule, v.status) for v in one.violations] == [
        ("short_post", "proposed"), ("late_edit", "proposed")
    ]  # fmt: skip
    assert pv(one.state) == (300, 400)


def test_cast_before_start() -> None:
    """RULES.md: "nothing before the referee's start. A spell before it is `cast_before_start`"."""
    s = new_fatigue_duel(RS, [(A, "5", ("brutale",)), (C, "7", ("sournoise",))])
    early = TurnPost(A, 1, "Flipendo", "Flipendo", "cast", HIGH, before_start=True)
    out = resolve_fatigue_step(s, [early], {}, ruleset=RS)
    assert [v.rule for v in out.violations] == ["cast_before_start"] and pv(out.state) == (280, 400)
    with pytest.raises(RuleError):
        resolve_fatigue_step(s, [cast(A, 2, "Flipendo")], {2: (3,)}, ruleset=RS)


# --- End of the duel -----------------------------------------------------------------------------


def test_seed001_pv_zero_ends_the_duel_even_at_first_declaration() -> None:
    """seed 001: "Pour gagner un duel, il suffit de faire tomber les points de fatigue de son
    adversaire à 0 pour l'obliger à abandonner." RULES.md: "even a first declaration" """
    s = duel(year_a="1")
    data = s.to_dict()
    data["duellists"][0]["points"] = 15
    one = resolve_fatigue_step(
        DuelState.from_dict(data), [cast(A, 1, "Diffindo")], {1: (3,)}, ruleset=RS
    )
    assert one.finished and one.winner == C and one.state.pending == ()


def test_double_ko_more_pv_left_wins_tie_draws() -> None:
    """RULES.md: "Both at 0 in one declaration: the one with more PV left wins, a tie is a draw
    [D]." """
    data = duel(types_a=("discrete",), types_c=("discrete",)).to_dict()
    data["duellists"][0]["points"] = 10
    data["duellists"][1]["points"] = 5
    s = DuelState.from_dict(data)
    _, two = turn(s, cast(A, 1, "Flipendo"), 3, cast(C, 2, "Flipendo"), 3)
    assert pv(two.state) == (-5, -10) and two.winner == A
    data["duellists"][1]["points"] = 10
    _, tie = turn(DuelState.from_dict(data), cast(A, 1, "Flipendo"), 3, cast(C, 2, "Flipendo"), 3)
    assert tie.draw and tie.winner is None


def test_concession_and_abandoned_duel() -> None:
    """RULES.md: "conceding also gives the opponent the win [D]"; "the duel closes with no
    winner, no loser and no rewards [D]" """
    assert concede(duel(), A, ruleset=RS).winner == C
    closed = close_without_winner(duel(), ruleset=RS)
    assert closed.finished and closed.winner is None and not closed.draw


def test_relaunch_resolves_initiative_undefended() -> None:
    """seed 001: "l'arbitre relancera automatiquement le jeu en invitant l'autre duelliste à
    poster un autre sort." RULES.md: "the initiative spell resolves undefended and the turn
    closes [D]" """
    one, two = turn(duel(), cast(A, 1, "Diffindo"), 3, None)
    assert two.state.turn == 1 and pv(two.state) == (300, 362)
    assert trail_values(two, "turn.relaunch") == [True]
    assert two.state.duellist(C).last_action is None


# --- Overrides, dice, trail ----------------------------------------------------------------------


def test_overrides_apply_where_computed() -> None:
    one = resolve_fatigue_step(duel(), [cast(A, 1, "Diffindo")], {1: (3,)}, ruleset=RS)
    two = resolve_fatigue_step(
        one.state, [dodge(C, 2)], {2: (5,)}, ruleset=RS, overrides={f"{C}.dodged": False,
                                                                   f"{A}.damage": 10},
    )  # fmt: skip
    assert pv(two.state) == (300, 390)
    assert [t.rule for t in two.trail].count("referee.override") == 2
    with pytest.raises(RuleError) as err:
        resolve_fatigue_step(
            one.state, [dodge(C, 2)], {2: (5,)}, ruleset=RS, overrides={"X.points": 3}
        )
    assert err.value.rule == "referee.override"


def test_dice_outside_one_to_six_rejected() -> None:
    for bad in (0, 7, -1):
        with pytest.raises(RuleError) as err:
            resolve_fatigue_step(duel(), [cast(A, 1, "Flipendo")], {1: (bad,)}, ruleset=RS)
        assert err.value.rule == "fatigue.dice"
    with pytest.raises(RuleError):
        resolve_fatigue_step(duel(), [cast(A, 1, "Flipendo")], {1: (3, 4)}, ruleset=RS)


def test_trail_has_a_rule_and_source_for_every_number_and_round_trips() -> None:
    one, two = turn(duel(), cast(A, 1, "Levicorpus"), 5, riposte(C, 2, "Flipendo"), 2)
    for out in (one, two):
        assert all(t.rule and t.source for t in out.trail)
        assert TurnOutcome.from_dict(json.loads(json.dumps(out.to_dict()))) == out
    assert DuelState.from_dict(json.loads(json.dumps(one.state.to_dict()))) == one.state


def test_generic_resolve_turn_dispatches_to_fatigue() -> None:
    one = resolve_turn(duel(), [cast(A, 1, "Flipendo")], {1: (3,)}, ruleset=RS)
    two = resolve_turn(one.state, [cast(C, 2, "Flipendo")], {2: (3,)}, ruleset=RS)
    assert two.state.turn == 1


# --- Post helpers --------------------------------------------------------------------------------


def test_count_displayed_lines_excludes_quotes_signature_dice_edit_and_footer() -> None:
    """RULES.md: "at least 10 lines as displayed (non-blank lines, long lines wrapped at
    `chars_per_line`, excluding quotes, signature, dice block, edit note and the action
    footer)" """
    text = "\n".join(
        ["[quote=Cassius]Tu vas voir ![/quote]", "Aurora lève sa baguette.", "", "x" * 250,
         "> citation", "Le membre 'Aurora' a effectué l'action suivante : Lancer des dés",
         "Dernière édition par Aurora le Lun 3 Mar - 12:00, édité 1 fois", "**Flipendo**",
         "Pari : [3,4,5,6]", "Action : lancer un sort", "_________________", "Signature longue"]
    )  # fmt: skip
    # "Aurora lève..." (1) + 250 chars (3) + "**Flipendo**" (1) = 5
    assert count_displayed_lines(text, 100) == 5
    assert count_displayed_lines(text, 50) == 1 + 5 + 1


def test_late_edit_keeps_the_version_in_force() -> None:
    """seed 001: "L'édition d'un poste est autorisée dans le cas seul où personne n'a encore
    posté après le post concerné." """
    t0 = datetime(2025, 1, 1, tzinfo=UTC)
    versions = [(t0, "v1"), (t0 + timedelta(hours=1), "v2"), (t0 + timedelta(hours=5), "v3")]
    got = version_in_force(versions, t0 + timedelta(hours=2))
    assert (got.index, got.text, got.late_edit) == (1, "v2", True)
    assert version_in_force(versions, None).text == "v3"
    assert not version_in_force(versions, t0 + timedelta(hours=6)).late_edit


# --- Properties ----------------------------------------------------------------------------------

SPELLS = [s.name for s in RS.spells]
action = st.one_of(
    st.tuples(st.just("cast"), st.sampled_from(SPELLS), st.sampled_from([LOW, HIGH])),
    st.tuples(st.just("dodge"), st.none(), st.sampled_from([LOW, HIGH])),
    st.tuples(st.just("dodge_riposte"), st.sampled_from(SPELLS), st.sampled_from([R_LOW, R_HIGH])),
)
die = st.integers(min_value=1, max_value=6)


def _post(who: str, pid: int, act: tuple[str, str | None, tuple[int, ...]]) -> TurnPost:
    kind, spell, bet = act
    return TurnPost(who, pid, spell, spell_text=spell, kind=kind, bet=bet)


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.sampled_from(SPELLS), st.sampled_from([LOW, HIGH]), die,
                  action, die),
        min_size=1, max_size=30,
    ),
    st.sampled_from(["1", "4", "adult"]),
)  # fmt: skip
def test_property_pv_never_increase_without_a_rule(turns: list, year: str) -> None:  # type: ignore[type-arg]
    """PV only rise through a heal recorded in the trail."""
    state = duel(year_a=year, types_a=("protectrice",))
    pid = 0
    for first_is_a, spell, bet, d1, act, d2 in turns:
        if state.finished:
            break
        first, second = (A, C) if first_is_a else (C, A)
        pid += 2
        one, two = turn(state, cast(first, pid, spell, bet), d1, _post(second, pid + 1, act), d2)
        for before, out in ((state, one), (one.state, two)):
            for name in (A, C):
                if out.state.duellist(name).points > before.duellist(name).points:
                    heals = trail_values(out, f"{name}.heal")
                    assert heals and all(isinstance(h, int) and h > 0 for h in heals)
        state = two.state


# 200-turn scripts are big inputs: Hypothesis's "generation is slow" check depends on the
# machine's load, so it is off (no test may depend on timing); 25 scripts suffice here.
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(st.tuples(action, die, action, die), min_size=200, max_size=200))
def test_property_duel_of_random_legal_posts_always_ends(turns: list) -> None:  # type: ignore[type-arg]
    """With legal posts the duel ends: spells cost PV and each spell may hit its target once,
    so violations (20 PV) or damage run the PV down."""
    state = duel(year_a="adult", year_c="adult")
    pid = 0
    for a1, d1, a2, d2 in turns:
        if state.finished:
            break
        pid += 2
        kind, spell, bet = a1
        first = cast(
            A if pid % 4 else C, pid, spell or "Flipendo", HIGH if bet in (R_HIGH,) else LOW
        )
        second_who = C if first.duellist == A else A
        _, two = turn(state, first, d1, _post(second_who, pid + 1, a2), d2)
        assert two.state.turn == state.turn + 1 or two.finished
        state = two.state
    assert state.finished


@given(st.integers().filter(lambda v: not 1 <= v <= 6))
def test_property_dice_outside_1_to_6_rejected(value: int) -> None:
    with pytest.raises(RuleError):
        resolve_fatigue_step(duel(), [cast(A, 1, "Flipendo")], {1: (value,)}, ruleset=RS)
