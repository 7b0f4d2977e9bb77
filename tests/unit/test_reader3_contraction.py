"""« de » / « à » + article contraction binds articles only (issue 25, third reader): « de Le
strangulot » -> « du strangulot », but a spell or a name that merely starts with Le/Les/La
(« Levicorpus », « Lestrange », « Lacarnum Inflamarae ») keeps its « de » (it read
« duvicorpus », « dustrange »)."""

from __future__ import annotations

import pytest

from forumbot.i18n import translator
from forumbot.publish.render import make_environment, of_name
from forumbot.web.page_words import PageWords, trail_value_fr


def words() -> PageWords:
    return PageWords("fr", "Europe/Paris", translator("fr"))


def test_a_dodged_spell_keeps_de_before_a_caster_named_lestrange() -> None:
    attack = {"attacker": "Lestrange Noir", "defender": "Aurora Vexley", "spell": "Levicorpus",
              "landed": False, "void_reason": "dodged"}  # fmt: skip
    expected = "Aurora Vexley esquive Levicorpus de Lestrange Noir"
    assert words().attack(attack, "fatigue", "PV") == expected


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("Levicorpus", "Lumos de Cassius Thorne ne touche pas Levicorpus"),
        ("Lacarnum", "Lumos de Cassius Thorne ne touche pas Lacarnum"),
        ("Le strangulot", "Lumos de Cassius Thorne ne touche pas le strangulot"),
        ("Les lierres", "Lumos de Cassius Thorne ne touche pas les lierres"),
        ("La tentacula", "Lumos de Cassius Thorne ne touche pas la tentacula"),
        ("L'esprit", "Lumos de Cassius Thorne ne touche pas l'esprit"),
    ],
)
def test_an_article_is_lowered_only_when_it_is_one(target: str, expected: str) -> None:
    attack = {"attacker": "Cassius Thorne", "defender": target, "spell": "Lumos", "landed": False}
    assert words().attack(attack, "fatigue", "PV") == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("effet de Levicorpus", "effet de Levicorpus"),
        ("effet de Lestrange", "effet de Lestrange"),
        ("effet de Le strangulot", "effet du strangulot"),
        ("effet de Les lierres", "effet des lierres"),
        ("à Les lierres", "aux lierres"),
        ("à Le strangulot", "au strangulot"),
        ("à Levicorpus", "à Levicorpus"),
        ("de La tentacula", "de la tentacula"),
        ("de L'esprit", "de l'esprit"),
    ],
)
def test_the_trail_value_contracts_articles_only(value: str, expected: str) -> None:
    assert trail_value_fr(value) == expected


@pytest.mark.parametrize(
    ("name", "of", "to", "inline"),
    [
        ("Levicorpus", "de Levicorpus", "à Levicorpus", "Levicorpus"),
        ("Lestrange", "de Lestrange", "à Lestrange", "Lestrange"),
        ("Lacarnum Inflamarae", "de Lacarnum Inflamarae", "à Lacarnum Inflamarae",
         "Lacarnum Inflamarae"),
        ("Lumos", "de Lumos", "à Lumos", "Lumos"),
        ("Le strangulot", "du strangulot", "au strangulot", "le strangulot"),
        ("Les lierres", "des lierres", "aux lierres", "les lierres"),
        ("La tentacula", "de la tentacula", "à la tentacula", "la tentacula"),
        ("L'esprit", "de l'esprit", "à l'esprit", "l'esprit"),
    ],
)
def test_the_renderer_filters_contract_articles_only(
    name: str, of: str, to: str, inline: str
) -> None:
    env = make_environment("fr")
    assert of_name(name) == of
    assert env.filters["to"](name) == to
    assert env.filters["inline"](name) == inline
