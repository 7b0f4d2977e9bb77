"""Who duels whom, from a duel topic's title or first post (parsers.duel_setup)."""

from __future__ import annotations

import doctest

import pytest

import parsers.duel_setup as duel_setup
from parsers.duel_setup import find_duellists, find_stakes, parse_year


def test_docstring_examples() -> None:
    assert doctest.testmod(duel_setup).failed == 0


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "Les adversaires : Aurora Vexley (5e année) contre Cassius Thorne (4e année).",
            (("Aurora Vexley", "5"), ("Cassius Thorne", "4")),
        ),
        (
            "Duel n°3 : Séraphine d'Aubépine (1re année) vs Théodric Vermillon (2ème année)",
            (("Séraphine d'Aubépine", "1"), ("Théodric Vermillon", "2")),
        ),
        (
            "Odric Fenwick (septième année) contre Maelis Dunbar (adulte)",
            (("Odric Fenwick", "7"), ("Maelis Dunbar", "7+")),
        ),
        ("Aurora Vexley (école du Givre) contre Cassius Thorne (école des Cendres)", None),
        ("Aurora contre Aurora (3e année)", None),
    ],
)
def test_find_duellists(line: str, expected: object) -> None:
    assert find_duellists(line) == expected


def test_the_real_board_opening_post_names_no_years() -> None:
    """The real phpBB duel n°1 (fixtures) names schools, not years: not adopted automatically."""
    text = (
        "Les adversaires : Aurora Vexley (école du Givre) contre "
        "Cassius Thorne (école des Cendres)."
    )
    assert find_duellists(text) is None


@pytest.mark.parametrize(
    ("raw", "year"),
    [
        ("5e année", "5"),
        ("1re", "1"),
        ("troisième année", "3"),
        ("7e année et +", "7+"),
        ("Adulte", "7+"),
        ("école du Givre", None),
    ],
)
def test_parse_year(raw: str, year: str | None) -> None:
    assert parse_year(raw) == year


def test_find_stakes() -> None:
    assert find_stakes("Enjeux : une plume de phénix") == "une plume de phénix"
    assert find_stakes("Enjeu: aucun") is None
    assert find_stakes("pas d'enjeu ici") is None
