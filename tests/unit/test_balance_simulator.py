"""The balance simulator (issue 17): scripted duels, tables, comparison, CSV, SVG, CLI."""

from __future__ import annotations

import csv
import io
import random
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from forumbot.cli.simulate import simulate as simulate_command
from rules import parse_ruleset, ruleset_path
from rules.balance import (
    compare,
    csv_text,
    play_classic,
    simulate,
    simulate_magic_types,
    svg_heatmap,
    text_table,
)
from rules.balance.policies import classic_post, fatigue_post
from rules.errors import RuleError
from rules.fatigue import load_fatigue_ruleset

CLASSIC_TEXT = ruleset_path("classic").read_text(encoding="utf-8")
CLASSIC = parse_ruleset(CLASSIC_TEXT)
FATIGUE = load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))


def test_the_same_seed_gives_the_same_table_and_every_duel_is_counted() -> None:
    one = simulate(CLASSIC, duels=490, rng=random.Random(3))
    two = simulate(CLASSIC, duels=490, rng=random.Random(3))
    assert one == two and one.duels == 490 and len(one.cells) == 49
    for cell in one.cells.values():
        assert cell.wins + cell.losses + cell.draws + cell.capped == cell.duels == 10
    # mirrored cells are complementary on average: the row side's wins are the column's losses
    assert sum(c.wins for c in one.cells.values()) > 0
    assert simulate(CLASSIC, duels=490, rng=random.Random(4)) != one


def test_policies_write_only_legal_posts() -> None:
    """Simulated duels measure the rules, not violations: no violation is ever recorded."""
    rng = random.Random(5)
    for _ in range(30):
        state, turns = play_classic(CLASSIC, ("3", "7+"), ("random", "greedy"), rng)
        assert turns >= 1
        assert all(v.rule == "spell_above_level" for d in state.duellists for v in d.violations)
    table = simulate_magic_types(FATIGUE, duels=250, rng=random.Random(5))
    assert table.rows == tuple(sorted(FATIGUE.magic_types))
    # greedy classic picks the best expected damage: Sortilège de Feu (+2 PD) when it can
    a = play_classic(CLASSIC, ("7+", "7+"), ("greedy", "greedy"), rng)[0].duellists[0]
    post = classic_post(CLASSIC, a.__class__(a.name, "7+", 50), 1, rng, "greedy")
    assert post.spell == "Sortilège de Feu"
    me = a.__class__("A", "adult", 500, magic_types=("brutale",))
    opp = a.__class__("B", "adult", 500, magic_types=("brutale",))
    best = fatigue_post(FATIGUE, me, opp, 1, "initiative", rng, "greedy")
    top = max(sum(getattr(e, "amount", 0) for e in s.effects if e.kind == "pv_damage")
              for s in FATIGUE.spells)  # fmt: skip
    assert best.kind == "cast"
    assert sum(e.amount for e in FATIGUE.spell(best.spell or "").effects
               if e.kind == "pv_damage") == top  # type: ignore[attr-defined]  # fmt: skip


def test_compare_csv_and_text_show_percentage_point_differences() -> None:
    harsher = parse_ruleset(CLASSIC_TEXT.replace('tie_rule = "lands"', 'tie_rule = "deflects"'))
    a = simulate(CLASSIC, duels=490, rng=random.Random(1))
    b = simulate(harsher, duels=490, rng=random.Random(1))
    diff = compare(a, b)
    cell = ("5", "5")
    assert diff[cell] == round(100 * (b.cells[cell].win_rate - a.cells[cell].win_rate), 1)
    rows = list(csv.DictReader(io.StringIO(csv_text(a, b))))
    assert len(rows) == 49 and float(rows[0]["diff_points"]) == diff[("1", "1")]
    text = text_table(a, b)
    assert "mean length" in text and "closed at the turn cap" in text and "compared" in text
    with pytest.raises(RuleError):
        simulate(CLASSIC, duels=10, rng=random.Random(1))


def test_svg_heatmap_is_well_formed_with_one_square_per_pair() -> None:
    table = simulate(CLASSIC, duels=49, rng=random.Random(2))
    svg = svg_heatmap(table)
    root = ElementTree.fromstring(svg)
    rects = root.findall("{http://www.w3.org/2000/svg}rect")
    assert len(rects) == 49 and "<script" not in svg


def test_cli_simulate_prints_the_table_compares_and_writes_csv(tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    text = CLASSIC_TEXT.replace("unlisted_spell_advantage = 2", "unlisted_spell_advantage = 3")
    other.write_text(text, encoding="utf-8")
    out = tmp_path / "t.csv"
    result = CliRunner().invoke(
        simulate_command,
        ["--duels", "98", "--seed", "3", "--compare", str(other), "--csv", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "win rate of the row side" in result.output and out.read_text().startswith("ruleset,")
    once = CliRunner().invoke(simulate_command, ["--duels", "98", "--seed", "3"])
    twice = CliRunner().invoke(simulate_command, ["--duels", "98", "--seed", "3"])
    assert once.exit_code == 0 and once.output == twice.output  # same seed, same table
    bad = CliRunner().invoke(simulate_command, ["--duels", "3"])
    assert bad.exit_code != 0 and "at least 49 duels" in bad.output
