"""Newcomer 6's table findings (issue 26, "Tables a club can read"): ``forumbot simulate``'s
labels and captions (C1), one mirror-cell caption for the CLI and the review page (C2), the
review page's heatmap on the CLI's numbers (C3), docs/balance.md's tables captioned with the
command that reproduces them (C8). Small tables only (a few dozen duels)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from forumbot.cli import main

BOARD = """[board]
url = "http://127.0.0.1:9"
language = "{language}"
[bot]
username = "Hibou"
[storage]
database = "{database}"
"""


def _config(tmp_path: Path, language: str) -> Path:
    path = tmp_path / f"{language}.toml"
    path.write_text(BOARD.format(language=language, database=tmp_path / "bot.db"),
                    encoding="utf-8")  # fmt: skip
    path.chmod(0o600)
    return path


def _simulate(*args: str) -> str:
    result = CliRunner().invoke(main, ["simulate", "--jobs", "1", *args])
    assert result.exit_code == 0, result.output
    return result.output.replace("\u00a0", " ")  # « ATTENTION\u00a0: » as the catalogue has it


@pytest.mark.parametrize("language", ["fr", "en"])
def test_c1_simulate_labels_say_the_magic_types_the_year_the_rounding_and_few_duels(
    tmp_path: Path, language: str
) -> None:
    """« types de magie », « Discrète » (never ``magic_types``, ``discrete``), the year both
    duellists play, 60 duels asked -> 50 played (2 a cell), and 2 duels a cell mean little."""
    out = _simulate("--ruleset", "fatigue", "--magic-types", "--duels", "60",
                    "-c", str(_config(tmp_path, language)))  # fmt: skip
    title, head = out.splitlines()[:2]
    assert head.split() == ["Brutale", "Discrète", "Flamboyante", "Protectrice", "Sournoise"]
    assert "magic_types" not in out and "discrete" not in out
    if language == "fr":
        assert title.endswith("types de magie (les deux duellistes : 5e année)")
        assert "60 duels demandés : 25 cases de 2 duels entiers chacune, donc 50 joués" in out
        assert ("ATTENTION : ce tableau ne veut pas dire grand-chose : 2 duels seulement par "
                "case") in out  # fmt: skip
    else:
        assert title.endswith("magic types (both duellists: year 5)")
        assert "60 duels asked: 25 cells of 2 whole duels each, so 50 played" in out
        assert "WARNING: this table means little: only 2 duels a cell" in out
    rows = out.splitlines()[2:7]
    # « Flamboyante » (11 letters) no longer pushes its row out of line with the header
    assert len({len(line) for line in [head, *rows]}) == 1
    # a whole number a cell (64 cells x 31) says nothing about rounding, nor about few duels
    years = _simulate("--ruleset", "fatigue", "--duels", "1984")
    assert "asked" not in years and "WARNING" not in years


def _plain(text: str) -> str:
    return text.replace("\u00a0", " ").replace("\u202f", " ")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_c2_one_short_mirror_caption_for_the_cli_and_the_review_page(language: str) -> None:
    """The CLI's mirror line is the review page's caption's first part, word for word (one
    catalogue message, MIRROR_NOTE), in two short sentences with the table's own figures."""
    from forumbot.cli.simulate import say, say_n
    from forumbot.i18n import Plural, translate
    from forumbot.web.routes.balance import mirror_note
    from rules.balance import MIRROR_NOTE, Cell, Table, text_table

    keys = ("4", "5")
    cells = {(r, c): Cell(r, c, 40, 20, 19, 1, 0, 400) for r in keys for c in keys}
    table = Table("fatigue", "years", keys, keys, cells)
    assert translate("fr", Plural(*MIRROR_NOTE, 2)) != MIRROR_NOTE[1]  # in the catalogue

    def speak(message: str, *values: object) -> str:  # the CLI's say, in ``language``
        from forumbot.cli._common import set_language

        with click.Context(click.Command("simulate")):
            set_language(language)
            return say(message, *values)

    def speak_n(one: str, many: str, n: int, *values: object) -> str:  # say_n, in ``language``
        from forumbot.cli._common import set_language

        with click.Context(click.Command("simulate")):
            set_language(language)
            return say_n(one, many, n, *values)

    cli = text_table(table, say=speak, say_n=speak_n).splitlines()[-1]
    page = mirror_note(table, language)
    assert page is not None and _plain(page).startswith(_plain(cli))
    assert cli.count(". ") == 1 and cli.endswith(".") and len(cli) < 420  # two sentences
    figures = "With 40 duels a cell" if language == "en" else "Avec 40 duels par case"
    assert figures in cli and "15 points" in cli  # 1.96 * sqrt(0.25 / 40) = 0.155


def test_c3_the_review_page_shows_the_clis_tables_and_no_all_zero_result() -> None:
    """The page's tables are ``forumbot simulate``'s (the same duels, each from its own
    generator: the command it prints gives the same cells), in French with « % » and the
    ruleset's labels; a table with no winner shows no rate at all, a few-duel one says so."""
    import xml.etree.ElementTree as ET

    from forumbot.web.balance import BalanceCache, command
    from forumbot.web.routes.balance import caption, heatmap
    from rules.balance import Cell, Table, text_table

    tables = BalanceCache(duels=100).tables("fatigue")
    assert tables.magic_types is not None
    for table, labels in ((tables.years, {}), (tables.magic_types, tables.labels)):
        line = command("fatigue", table, 100, 1)
        cli = _simulate(*line.split()[2:]).splitlines()
        page = text_table(table, labels=labels).splitlines()
        rows = len(table.rows) + 2  # title, header, rows
        assert cli[:rows] == page[:rows] and len(page) > rows
    svg = str(heatmap(tables.magic_types, "fr", tables))
    texts = " ".join(ET.fromstring(svg).itertext())
    assert "Discrète" in texts and "\u202f%" in texts and "magie contre magie, 5e année" in texts
    assert "4 duels seulement par case" in (caption(tables.magic_types, "fr") or "")
    keys = ("4", "5")  # every duel a draw: 0 % everywhere would read as a result
    drawn = Table("fatigue", "years", keys, keys,
                  {(r, c): Cell(r, c, 40, 0, 0, 40, 0, 400) for r in keys for c in keys})
    shown = str(heatmap(drawn, "fr", tables))
    assert ">0\u202f%</text>" not in shown and shown.count(">—</text>") == 4
    assert "ne veut rien dire" in (caption(drawn, "fr") or "")


def test_c8_every_table_of_docs_balance_has_a_caption_and_its_command() -> None:
    """docs/balance.md: each table (a fenced block of ``forumbot simulate`` output) follows a
    caption « **Table N: what it is** … Reproduce with: `forumbot simulate …` »; a caption that
    says « these figures exactly » names the duels its table played, in today's format."""
    import re

    doc = (Path(__file__).resolve().parents[2] / "docs" / "balance.md").read_text("utf-8")
    blocks = re.findall(r"((?:[^\n]+\n)+)\n```\n(.*?)```", doc, flags=re.S)
    tables = [(caption, body) for caption, body in blocks if "win rate of the row side" in body]
    assert len(tables) >= 13
    numbers = []
    for caption, body in tables:
        words = " ".join(caption.split())
        found = re.match(r"\*\*Tables? (\d+)", words)
        assert found and "Reproduce with: `" in words, words[:80]
        numbers.append(int(found.group(1)))
        assert re.search(r"`(?:git show [^`]+`, then `)?forumbot simulate [^`]*--seed 1`", words)
        if "these figures exactly" in words:
            duels = re.search(r"--duels (\d+)", words)
            assert duels is not None
            played = re.search(r": (\d+) duels \(", body)
            assert played is not None and int(played.group(1)) <= int(duels.group(1))
            assert "Mirror cells (row = column: same" in body  # today's wording
    assert numbers == sorted(numbers) and numbers[0] == 1
