"""Ruleset files as data: rules/data/classic.toml, the effect registry, parse errors."""

from __future__ import annotations

import json
import re

import pytest

from rules import (
    EFFECT_TYPES,
    CounterSpell,
    DefenseModifier,
    ExtraDamage,
    NoAttack,
    RuleError,
    Ruleset,
    Shield,
    effect_from_data,
    fold_name,
    parse_ruleset,
    ruleset_path,
)
from rules.classic import CLASSIC_SETTINGS

CLASSIC_TEXT = ruleset_path("classic").read_text(encoding="utf-8")

SEED_SPELLS = (
    "Sortilège de Feu",
    "Sortilège de Désarmement",
    "Sortilège de Chatouillis",
    "Sortilège de Découpe",
    "Sortilège de Glace",
    "Maléfice du Pot de Colle",
    "Sortilège de Confusion",
    "Sortilège de chant",
    "Apparition d'insectes",
    "Charme du Bouclier",
    "Antisort Général",
)


@pytest.fixture(scope="module")
def classic() -> Ruleset:
    return parse_ruleset(CLASSIC_TEXT)


def _without_setting(text: str, key: str) -> str:
    """The file's text with the top-level line ``key = ...`` removed (before any table)."""
    head, sep, tables = text.partition("[starting_points]")
    new, count = re.subn(rf"(?m)^{re.escape(key)} = .*\n", "", head)
    assert count == 1, key
    return new + sep + tables


def _with_setting(text: str, key: str, value: str) -> str:
    head, sep, tables = text.partition("[starting_points]")
    new, count = re.subn(rf"(?m)^{re.escape(key)} = .*$", f"{key} = {value}", head)
    assert count == 1, key
    return new + sep + tables


def test_ruleset_path_builds_the_data_file_path() -> None:
    path = ruleset_path("classic")
    assert path.parts[-3:] == ("rules", "data", "classic.toml")
    assert path.is_file()


@pytest.mark.parametrize("bad", ["", "../classic", "a/b", "classic.toml"])
def test_ruleset_path_rejects_non_plain_names(bad: str) -> None:
    with pytest.raises(RuleError) as err:
        ruleset_path(bad)
    assert err.value.rule == "ruleset.name"


def test_seed000_starting_pd_by_year(classic: Ruleset) -> None:
    """Seed 000: "Première année : 15 PD [...] Septième année et + : 50 PD"."""
    assert classic.unit == "PD"
    expected = {"1": 15, "2": 20, "3": 25, "4": 30, "5": 35, "6": 40, "7+": 50, "7": 50, "9": 50}
    assert {year: classic.starting_points_for(year) for year in expected} == expected
    with pytest.raises(RuleError) as err:
        classic.starting_points_for("adult")
    assert err.value.setting == "starting_points"


def test_rules_md_year_n_knows_levels_1_to_n_and_7plus_knows_all(classic: Ruleset) -> None:
    """RULES.md: "year n knows levels 1..n; [...] classic 7+ knows all"."""
    assert [classic.max_level_for(str(n)) for n in range(1, 7)] == [1, 2, 3, 4, 5, 6]
    assert classic.max_level_for("7+") is None
    assert classic.max_level_for("7") is None


def test_seed000_dice_are_two_duel_d6(classic: Ruleset) -> None:
    """Seed 000: 'devront lancer deux dés "Duel". Ces dés prennent la forme d'un six face.'"""
    assert (classic.dice_name, classic.dice_per_post, classic.dice_faces) == ("Duel", 2, 6)
    assert classic.duellists == (2,)


def test_rules_md_defaults_are_shipped_as_settings(classic: Ruleset) -> None:
    """Every [D] of RULES.md's classic section is a setting with RULES.md's default."""
    assert classic.fuzzy_threshold == 85
    assert classic.fuzzy_scorer == "WRatio"
    assert dict(classic.settings) == {
        "resolution": "simultaneous",
        "tie_rule": "lands",
        "shield_applies": "same_turn",
        "repeated_spell_voids": True,
        "unlisted_spell_proposal": "advantage",
        "unlisted_spell_advantage": 2,
        "unlisted_advantage_turns": 1,
        "unlisted_advantage_damage": True,
        "barred_attacking_spell": "ignored",
        "double_ko": "higher_remaining_wins",
    }


def test_seed000_spell_list_is_the_spellbook(classic: Ruleset) -> None:
    """Seed 000: "La liste des sorts autorisés lors d'un duel est limitée et est la suivante"."""
    assert tuple(classic.spellbook_names()) == SEED_SPELLS
    for spell in classic.spells:
        assert 1 <= spell.level <= 8
        assert spell.source.startswith("seed 000:")
        assert spell.name in spell.source


def test_seed000_spell_effects_as_data(classic: Ruleset) -> None:
    """Seed 000 spell lines: Feu +2 PD, Pot de Colle -2 defense, Confusion/chant no attack,
    Bouclier +3 and no attack, Antisort cancels and no attack; the others damage only."""
    effects = {s.name: s.effects for s in classic.spells}
    assert effects["Sortilège de Feu"] == (ExtraDamage(amount=2),)
    assert effects["Maléfice du Pot de Colle"] == (
        DefenseModifier(amount=-2, applies="target", when="next_turn"),
    )
    assert effects["Sortilège de Confusion"] == (NoAttack(applies="target", when="next_turn"),)
    assert effects["Sortilège de chant"] == (NoAttack(applies="target", when="next_turn"),)
    assert effects["Charme du Bouclier"] == (Shield(amount=3, applies="caster"),)
    assert effects["Antisort Général"] == (CounterSpell(),)
    damage_only = [n for n, e in effects.items() if not e]
    assert damage_only == [
        "Sortilège de Désarmement",
        "Sortilège de Chatouillis",
        "Sortilège de Découpe",
        "Sortilège de Glace",
        "Apparition d'insectes",
    ]
    attacking = {s.name for s in classic.spells if s.attacks}
    assert attacking == set(SEED_SPELLS) - {"Charme du Bouclier", "Antisort Général"}


def test_aliases_include_short_forms_and_are_unambiguous(classic: Ruleset) -> None:
    names = classic.spellbook_names()
    assert "Bouclier" in names["Charme du Bouclier"]
    assert "Antisort" in names["Antisort Général"]
    assert "Antisort General" in names["Antisort Général"]
    folded: dict[str, str] = {}
    for canonical, aliases in names.items():
        for label in (canonical, *aliases):
            assert folded.setdefault(fold_name(label), canonical) == canonical
    # too short for WRatio's partial matching: "Feu" would swallow "Feudeymon"
    assert "feu" not in folded and "glace" not in folded and "chant" not in folded


def test_ambiguous_alias_is_a_rule_error() -> None:
    text = CLASSIC_TEXT.replace('"Bouclier", "Charme de Bouclier"', '"Bouclier", "Antisort"')
    with pytest.raises(RuleError) as err:
        parse_ruleset(text)
    assert err.value.rule.endswith(".aliases")
    assert "Antisort" in err.value.reason


def test_fold_name_ignores_case_accents_and_spaces() -> None:
    assert fold_name("  Sortilège  de DÉCOUPE ") == "sortilege de decoupe"
    assert fold_name("Apparition d’insectes") == "apparition d'insectes"


def test_unknown_effect_type_names_the_setting() -> None:
    text = CLASSIC_TEXT.replace('{ type = "extra_damage", amount = 2 }', '{ type = "lightning" }')
    with pytest.raises(RuleError) as err:
        parse_ruleset(text)
    assert err.value.setting == "spells[0].effects[0].type"
    assert "lightning" in err.value.reason


def test_effect_with_unknown_field_or_bad_value_is_a_rule_error() -> None:
    with pytest.raises(RuleError) as err:
        effect_from_data({"type": "extra_damage", "amount": 2, "colour": "red"}, "x")
    assert err.value.rule == "x.colour"
    with pytest.raises(RuleError) as err:
        effect_from_data({"type": "extra_damage", "amount": "two"}, "x")
    assert err.value.rule == "x.amount"
    with pytest.raises(RuleError) as err:
        effect_from_data({"type": "extra_damage"}, "x")
    assert err.value.rule == "x.amount"
    with pytest.raises(RuleError) as err:
        effect_from_data({"type": "no_attack", "when": "yesterday"}, "x")
    assert err.value.rule == "x.when"
    with pytest.raises(RuleError) as err:
        effect_from_data({"amount": 1}, "x")
    assert err.value.rule == "x.type"
    with pytest.raises(RuleError):
        effect_from_data({"type": "no_attack", "duration": 0}, "x")


def test_target_effect_on_the_same_turn_is_refused() -> None:
    """Under simultaneous resolution a landed attack cannot change the same turn's defense."""
    text = CLASSIC_TEXT.replace(
        'amount = -2, applies = "target", when = "next_turn"',
        'amount = -2, applies = "target", when = "same_turn"',
    )
    with pytest.raises(RuleError) as err:
        parse_ruleset(text)
    assert err.value.rule == "spells[5].effects[0].when"


@pytest.mark.parametrize(
    "data",
    [
        {"type": "extra_damage", "amount": 2},
        {"type": "defense_modifier", "amount": -2, "applies": "target", "when": "next_turn"},
        {"type": "attack_modifier", "amount": 2, "affects_damage": False, "duration": 3},
        {"type": "no_attack", "source": "Sortilège de Confusion", "caster": "Aurora"},
        {"type": "shield", "amount": 3},
        {"type": "counter_spell"},
    ],
)
def test_effect_registry_round_trips(data: dict[str, object]) -> None:
    effect = effect_from_data(data)
    again = effect_from_data(json.loads(json.dumps(effect.to_dict())))
    assert again == effect
    assert type(again) is EFFECT_TYPES[str(data["type"])]
    for key, value in data.items():
        assert effect.to_dict()[key] == value


@pytest.mark.parametrize(
    "key",
    [
        "name",
        "engine",
        "unit",
        "duellists",
        "dice_name",
        "dice_per_post",
        "dice_faces",
        "fuzzy_threshold",
        "fuzzy_scorer",
        *[spec.name for spec in CLASSIC_SETTINGS],
    ],
)
def test_missing_setting_names_it(key: str) -> None:
    with pytest.raises(RuleError) as err:
        parse_ruleset(_without_setting(CLASSIC_TEXT, key))
    assert err.value.setting == key


@pytest.mark.parametrize("table", ["starting_points", "known_levels"])
def test_missing_table_names_it(table: str) -> None:
    text = CLASSIC_TEXT.replace(f"[{table}]", "[unused_table]")
    with pytest.raises(RuleError) as err:
        parse_ruleset(text)
    assert err.value.setting == table


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("tie_rule", '"maybe"'),
        ("shield_applies", '"yesterday"'),
        ("repeated_spell_voids", '"yes"'),
        ("unlisted_spell_advantage", "-1"),
        ("double_ko", '"both_lose"'),
        ("resolution", '"sequential"'),
        ("dice_faces", "1"),
        ("fuzzy_threshold", "101"),
        ("duellists", "[1]"),
    ],
)
def test_bad_setting_value_names_it(key: str, value: str) -> None:
    with pytest.raises(RuleError) as err:
        parse_ruleset(_with_setting(CLASSIC_TEXT, key, value))
    assert err.value.setting == key


def test_other_documented_readings_parse() -> None:
    text = _with_setting(CLASSIC_TEXT, "tie_rule", '"deflects"')
    text = _with_setting(text, "shield_applies", '"next_turn"')
    ruleset = parse_ruleset(text)
    assert ruleset.settings["tie_rule"] == "deflects"
    assert ruleset.settings["shield_applies"] == "next_turn"


def test_unknown_setting_invalid_toml_and_unknown_engine() -> None:
    with pytest.raises(RuleError) as err:
        parse_ruleset("tie_rulle = 'lands'\n" + CLASSIC_TEXT)
    assert err.value.setting == "tie_rulle"
    with pytest.raises(RuleError) as err:
        parse_ruleset(CLASSIC_TEXT + "\n[[[broken")
    assert err.value.setting == "toml"
    with pytest.raises(RuleError) as err:
        parse_ruleset(_with_setting(CLASSIC_TEXT, "engine", '"chess"'))
    assert err.value.setting == "engine"


def test_setting_accessor_names_missing_setting(classic: Ruleset) -> None:
    assert classic.setting("tie_rule") == "lands"
    with pytest.raises(RuleError) as err:
        classic.setting("no_such_setting")
    assert err.value.setting == "no_such_setting"
    with pytest.raises(RuleError):
        classic.spell("Avada Kedavra")
