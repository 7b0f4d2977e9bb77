"""Issue 26: balance tables a club can read, and a spellbook that stalls is told before its
first duel.

"Each cell prints its count or a confidence interval, and the share of draws and capped duels.
Mirror cells are explained. The review page's heatmap uses the same numbers, in French, with
« % », readable headers, and no all-zero table presented as a result. The caption says when a
table means nothing."
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from forumbot.cli.simulate import simulate as simulate_command
from forumbot.ops.check import ruleset_warnings
from forumbot.web.balance import BalanceTables
from forumbot.web.routes.balance import caption, heatmap, labels_for
from rules import ruleset_path
from rules.balance import Cell, Table, stall_warnings, text_table, wilson
from rules.fatigue import load_fatigue_ruleset

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
SHIPPED = load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))
STALLING = load_fatigue_ruleset(FIXTURE.read_text(encoding="utf-8"))


def test_wilson_interval() -> None:
    lo, hi = wilson(8, 10)
    assert round(lo, 3) == 0.490 and round(hi, 3) == 0.943  # the textbook values
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0 and wilson(0, 0) == (0.0, 1.0)


def _table(capped: int, wins: int = 3) -> Table:
    keys = ("5", "adult")
    cells = {
        (r, c): Cell(r, c, duels=10, wins=wins if capped < 10 else 0,
                     losses=10 - capped - (wins if capped < 10 else 0), draws=0,
                     capped=capped, turns=100)
        for r in keys for c in keys
    }  # fmt: skip
    return Table("fatigue", "years", keys, keys, cells)


def test_text_table_prints_intervals_draws_capped_and_the_mirror_note() -> None:
    text = text_table(_table(capped=1))
    assert "30 (11-60)" in text  # 3 of 10 won: the Wilson interval
    assert "draws (ties) / closed at the turn cap" in text and "0/10" in text
    assert "Mirror cells (row = column: same year)" in text
    # 10 duels a cell are few (newcomer 6 C1): the one warning says so, none says "nothing"
    (warning,) = [line for line in text.splitlines() if line.startswith("WARNING")]
    assert warning.startswith("WARNING: this table means little: only 10 duels a cell")
    # chance's spread is the table's own (newcomer after issue 25: it always said 20 duels)
    assert "With 10 duels a cell, chance alone moves a cell by up to 31 points" in text
    stalled = text_table(_table(capped=10))
    assert "capped" in stalled.split("\n")[2]  # no rate for a cell whose duels all stalled
    assert "WARNING: this table means nothing: no duel had a winner" in stalled
    half = text_table(_table(capped=3))
    assert "WARNING: this table means little: 30 % of its duels were closed" in half


def test_heatmap_in_french_with_readable_headers_and_a_caption() -> None:
    keys = ("brutale", "discrete")
    cells = {(r, c): Cell(r, c, 10, 6, 3, 1, 0, 90) for r in keys for c in keys}
    types = Table("fatigue", "magic_types", keys, keys, cells)
    years = _table(capped=0)
    tables = BalanceTables("fatigue", "fatigue", years, types,
                           {k: SHIPPED.magic_types[k].label for k in keys})  # fmt: skip
    svg = str(heatmap(types, "fr", tables))
    texts = " ".join(ET.fromstring(svg).itertext())
    assert "Discrète" in texts and "discrete" not in texts  # labels, never raw keys
    assert "60\u202f%" in texts  # « % » after each rate
    assert "intervalle à 95\u202f%" in svg and "nuls 10\u202f%" in svg  # the tooltip
    assert labels_for(tables, years, "fr") == {"5": "5e", "adult": "adulte"}
    assert labels_for(tables, years, "en") == {"5": "5th", "adult": "adult"}
    years_svg = " ".join(ET.fromstring(str(heatmap(years, "fr", tables))).itertext())
    assert "adulte" in years_svg and "adult " not in years_svg + " "
    # 10 duels a square are few (newcomer 6 C1/C3); 40 a square, nothing to say
    assert "10 duels seulement par case" in (caption(years, "fr") or "")
    enough = {k: Cell(*k, duels=40, wins=12, losses=28, draws=0, capped=0, turns=400)
              for k in years.cells}  # fmt: skip
    assert caption(Table("fatigue", "years", years.rows, years.cols, enough), "fr") is None
    stalled = _table(capped=10)
    words = caption(stalled, "fr")
    assert words is not None and "ne veut rien dire" in words
    shown = str(heatmap(stalled, "fr", tables))
    assert "ne veut rien dire" in shown and ">—</text>" in shown
    assert not re.search(r">\d+\u202f%</text>", shown)  # no all-zero table shown as rates
    assert "40\u202f% des duels ont été clos au plafond" in (caption(_table(capped=4), "fr") or "")


def test_stalling_spellbook_is_reported_by_check() -> None:
    """The issue-17 spellbook: « in simulation, 100 % of 5th-year mirror duels cannot end »."""
    stalls = stall_warnings(STALLING, random.Random(0), duels=6)
    messages = [s.message() for s in stalls]
    assert any(m.startswith("in simulation, 100 % of 5th-year mirror duels cannot end")
               for m in messages)  # fmt: skip
    assert stall_warnings(SHIPPED, random.Random(0), duels=6) == []
    lines = ruleset_warnings([str(FIXTURE), "fatigue", str(FIXTURE), "nowhere"])
    assert lines and all(line.startswith(f"warning: ruleset {FIXTURE}:") for line in lines[:-1])
    assert lines[-1].startswith("next step: ")  # one for the one ruleset that stalls


def test_simulate_takes_a_ruleset_name_as_well_as_a_path() -> None:
    by_name = CliRunner().invoke(simulate_command, ["--ruleset", "fatigue", "--duels", "64"])
    by_path = CliRunner().invoke(
        simulate_command, ["--ruleset", str(ruleset_path("fatigue")), "--duels", "64"]
    )
    assert by_name.exit_code == 0, by_name.output
    assert by_name.output == by_path.output and "fatigue — win rate" in by_name.output
    bad = CliRunner().invoke(simulate_command, ["--ruleset", "nowhere", "--duels", "64"])
    assert bad.exit_code == 2 and "neither a file nor a shipped ruleset" in bad.output
