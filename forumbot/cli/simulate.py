"""``forumbot simulate``: balance tables of a ruleset (issue 17), from the pure simulator.

Registered by the CLI group (``forumbot/cli.py``): ``cli.add_command(simulate)``.
"""

from __future__ import annotations

import random
from pathlib import Path

import click

from rules import ruleset_path
from rules.balance import csv_text, simulate_magic_types, text_table
from rules.balance import simulate as run_simulation
from rules.fatigue import FatigueRuleset, parse_any_ruleset


@click.command("simulate")
@click.option(
    "--ruleset",
    "ruleset_file",
    type=click.Path(exists=True, dir_okay=False),
    help="ruleset TOML file (default: the shipped classic ruleset)",
)
@click.option("--duels", type=click.IntRange(min=1), default=10_000, show_default=True)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--compare",
    "other_file",
    type=click.Path(exists=True, dir_okay=False),
    help="a second ruleset file: its table side by side, differences in points",
)
@click.option(
    "--csv",
    "csv_file",
    type=click.Path(dir_okay=False, writable=True),
    help="write the raw table(s) as CSV to this file",
)
@click.option("--magic-types", is_flag=True, help="fatigue: magic type against magic type")
def simulate(ruleset_file: str | None, duels: int, seed: int, other_file: str | None,
             csv_file: str | None, magic_types: bool) -> None:  # fmt: skip
    """Play scripted duels (random legal and greedy duellists) for every pair of years and
    print who wins: win rates, mean length, draws, duels closed by the referee."""
    from rules.errors import RuleError

    try:
        rulesets = [parse_any_ruleset(Path(f).read_text(encoding="utf-8")) if f else
                    parse_any_ruleset(ruleset_path("classic").read_text(encoding="utf-8"))
                    for f in (ruleset_file, *((other_file,) if other_file else ()))]  # fmt: skip
        tables = []
        for rs in rulesets:
            rng = random.Random(seed)  # the same draws for both rulesets
            if magic_types:
                if not isinstance(rs, FatigueRuleset):
                    raise click.UsageError("--magic-types needs a fatigue ruleset")
                tables.append(simulate_magic_types(rs, duels=duels, rng=rng))
            else:
                tables.append(run_simulation(rs, duels=duels, rng=rng))
    except RuleError as exc:
        raise click.ClickException(str(exc)) from exc
    other = tables[1] if len(tables) > 1 else None
    click.echo(text_table(tables[0], other), nl=False)
    if csv_file:
        Path(csv_file).write_text(csv_text(tables[0], other), encoding="utf-8")
        click.echo(f"CSV written to {csv_file}")


__all__ = ["simulate"]


COMMANDS = (simulate,)
