"""Newcomer 7's findings about ``forumbot simulate`` (report items 1, 2, 3, 4, 4b, 8, 12):
the plural of « 1 duel », refusals in the board's language, ``--compare``'s title, one name
for the capped share, « classique » in French, French thousands. Small tables only."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main


def _run(tmp_path: Path, language: str, *args: str) -> tuple[int, str]:
    config = tmp_path / f"{language}.toml"
    config.write_text(f'[board]\nlanguage = "{language}"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["simulate", "-c", str(config), "--jobs", "1", *args])
    return result.exit_code, result.output


@pytest.mark.parametrize("language", ["en", "fr"])
def test_1_one_duel_a_cell_is_singular(tmp_path: Path, language: str) -> None:
    """64 classic duels: 49 cells of 1 duel each: « 1 duel », never « 1 duels »."""
    code, out = _run(tmp_path, language, "--duels", "64")
    assert code == 0, out
    assert "1 duels" not in out
    if language == "en":
        wanted = ["49 cells of 1 whole duel each, so 49 played", "only 1 duel a cell",
                  "With 1 duel a cell"]  # fmt: skip
    else:
        wanted = ["49 cases de 1 duel entier chacune, donc 49 joués",
                  "1 duel seulement par case", "Avec 1 duel par case"]  # fmt: skip
    for words in wanted:
        assert words in out, (words, out)


@pytest.mark.parametrize(
    ("args", "french"),
    [
        (["--duels", "1"], "Erreur : il faut au moins 49 duels (un par paire d'années)"),
        (["--duels", "2000000", "--max-duels", "100"],
         "Erreur : --duels 2000000 dépasse --max-duels 100 : cela prendrait environ "),
        (["--ruleset", "nosuch"],
         "Erreur : --ruleset nosuch : ni un fichier ni des règles fournies"),
        (["--compare", "nosuch"],
         "Erreur : --compare nosuch : ni un fichier ni des règles fournies"),
        (["--duels", "10", "--magic-types"], "Erreur : --magic-types demande des règles fatigue"),
    ],
)  # fmt: skip
def test_2_refusals_speak_the_boards_language_and_exit_2(
    tmp_path: Path, args: list[str], french: str
) -> None:
    """simulate's refusals are « Erreur : … » on a French board, « Error: … » otherwise, one
    line (no click usage) and exit 2 (USAGE), as the help says."""
    code, out = _run(tmp_path, "fr", *args)
    assert code == 2 and out.startswith(french) and "Usage:" not in out, out
    code, out = _run(tmp_path, "en", *args)
    assert code == 2 and out.startswith("Error: ") and "Erreur" not in out, out


@pytest.mark.parametrize("language", ["en", "fr"])
def test_4b_compare_title_names_whose_rates_the_cells_show(tmp_path: Path, language: str) -> None:
    """``--compare``: the cells are the compared ruleset's rates and its difference from the
    base's; the title says so (it named the base only). Two rulesets of different rows are
    refused (exit 2), not a KeyError."""
    shipped = Path(__file__).parents[2] / "rules" / "data" / "fatigue.toml"
    other = tmp_path / "autre.toml"
    other.write_text(
        shipped.read_text(encoding="utf-8").replace('name = "fatigue"', 'name = "autre"', 1),
        encoding="utf-8",
    )
    code, out = _run(tmp_path, language, "--ruleset", "fatigue", "--compare", str(other),
                     "--duels", "64")  # fmt: skip
    assert code == 0, out
    title = out.splitlines()[0]
    if language == "en":
        assert title.startswith("fatigue compared with autre — autre's win rate of the row ")
        assert "in brackets autre's minus fatigue's (points)" in title
    else:
        assert (
            " comparé avec autre — victoires de la ligne contre la colonne (%) sous les "
            "règles autre, entre parenthèses l'écart autre moins " in title
        )
    code, out = _run(tmp_path, language, "--ruleset", "classic", "--compare", "fatigue",
                     "--duels", "64")  # fmt: skip
    assert code == 2 and "--compare" in out and "Traceback" not in out, out


@pytest.mark.parametrize("language", ["en", "fr"])
def test_4_one_name_for_the_share_closed_at_the_turn_cap(tmp_path: Path, language: str) -> None:
    """The second table, the summary and the mirror sentence call the capped share by one
    name (« clos au plafond de tours » / « closed at the turn cap », the review page's), the
    second table says draws and capped duels are distinct; English says « minus »."""
    code, out = _run(tmp_path, language, "--ruleset", "fatigue", "--duels", "64")
    assert code == 0, out
    if language == "en":
        name, gone = "closed at the turn cap", ("closed by the referee", "capped at the", " less ")
        assert "draws (ties) / closed at the turn cap" in out
        assert "50 % minus half its draws and duels closed at the turn cap" in out
    else:
        name, gone = "clos au plafond de tours", ("clos par l'arbitre",)
        assert "nuls (égalités) / clos au plafond de tours" in out
    summary = next(line for line in out.splitlines() if " per cell), " in line
                   or " par case), " in line)  # fmt: skip
    assert name in summary, summary
    for old in gone:
        assert old not in out, old


def test_4_the_per_cell_table_says_draws_and_capped_duels_are_distinct() -> None:
    """A table with draws and capped duels: its second table's title says they are two
    distinct shares (a draw is a tie), in English and in French, figures unchanged."""
    from forumbot.i18n import translator
    from rules.balance import Cell, Table, text_table

    keys = ("4", "5")
    cells = {(r, c): Cell(r, c, 10, 4, 4, 1, 1, 100) for r in keys for c in keys}
    table = Table("fatigue", "years", keys, keys, cells)
    english, french = text_table(table), text_table(table, say=translator("fr"))
    assert (
        "fatigue — draws (ties) / closed at the turn cap (%), per cell: two distinct "
        "shares" in english
    )
    assert (
        "nuls (égalités) / clos au plafond de tours (%), par case : deux parts distinctes" in french
    )
    assert english.count("10/10") == french.count("10/10") == 4


def test_8_french_tables_name_the_shipped_ruleset_in_french(tmp_path: Path) -> None:
    """« classique » as doctor says it (the catalogue's RULESET_NAMES), in the title, the
    per-cell title and the summary; English keeps ``classic``; a club file's name as is."""
    code, out = _run(tmp_path, "fr", "--duels", "64")
    assert code == 0 and "classic " not in out and "classic:" not in out, out
    lines = out.splitlines()
    assert lines[0].startswith("classique — victoires de la ligne contre la colonne (%)")
    assert any(line.startswith("classique : 49 duels (1 par case)") for line in lines)
    code, out = _run(tmp_path, "en", "--duels", "64")
    assert code == 0 and out.startswith("classic — win rate of the row side")
    shipped = Path(__file__).parents[2] / "rules" / "data" / "classic.toml"
    mine = tmp_path / "mine.toml"
    text = shipped.read_text(encoding="utf-8")
    assert 'name = "classic"' in text
    mine.write_text(text.replace('name = "classic"', 'name = "maison"', 1), encoding="utf-8")
    code, out = _run(tmp_path, "fr", "--ruleset", str(mine), "--duels", "64")
    assert code == 0 and out.startswith("maison — victoires"), out


def test_12_french_counts_group_their_thousands_not_the_commands(tmp_path: Path) -> None:
    """French summary lines write « 1 984 duels » (a narrow no-break space), the asked line
    « 2 000 duels demandés »; « --duels 1920 » in the advice stays a command; English keeps
    « 1984 »."""
    code, out = _run(tmp_path, "fr", "--ruleset", "fatigue", "--duels", "1000", "--seed", "2")
    assert code == 0, out
    assert "fatigue en un contre un : 960 duels (15 par case)" in out
    assert "1\u202f000 duels demandés : 64 cases de 15 duels entiers chacune, donc 960 joués" in out
    assert "demandez --duels 1920 ou plus" in out and "1\u202f920" not in out
    from rules.balance import Cell, Table, text_table
    from rules.balance.render import Count

    assert f"{Count(1984)}" == "1984" == str(Count(1984))
    keys = ("4", "5")
    cells = {(r, c): Cell(r, c, 2500, 1250, 1250, 0, 0, 25000) for r in keys for c in keys}
    english = text_table(Table("fatigue", "years", keys, keys, cells))
    assert "fatigue: 10000 duels (2500 per cell)" in english


def test_12_the_review_page_groups_french_thousands_too() -> None:
    """The balance page's figures line and source line say « 9 984 duels », « 10 000
    demandés » in French (as the CLI), « 9984 » in English."""
    from forumbot.web.routes.balance import count, source_line, stats_line
    from rules.balance import Cell, Table

    keys = ("4", "5")
    cells = {(r, c): Cell(r, c, 2496, 1200, 1200, 48, 48, 24960) for r in keys for c in keys}
    table = Table("fatigue", "years", keys, keys, cells)
    assert count(10000, "fr") == "10\u202f000" and count(10000, "en") == "10000"
    assert stats_line(table, "fr").startswith("9\u202f984 duels · durée moyenne")
    assert stats_line(table, "en").startswith("9984 duels · mean length")
    assert source_line(table, 10000, "fr").startswith("2\u202f496 duels par case (10\u202f000 ")
