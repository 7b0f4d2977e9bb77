"""``forumbot simulate --jobs`` (issue 26): the duels split over processes, each duel seeded
from (seed, its index), so the table does not depend on the number of processes."""

from __future__ import annotations

import random

from click.testing import CliRunner

from forumbot.cli.simulate import simulate as simulate_command
from forumbot.cli.simulate_jobs import CHUNKS_PER_JOB, chunks, duel_rng, runner
from rules import ruleset_path
from rules.balance import simulate, simulate_magic_types
from rules.balance.duo import simulate_duo
from rules.duo import load_duo_settings
from rules.duo.environment import load_environment
from rules.fatigue import load_fatigue_ruleset

FATIGUE = load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))


def _lengths(table: object) -> dict[tuple[str, str], tuple[int, ...]]:
    return {k: c.lengths for k, c in table.cells.items()}  # type: ignore[attr-defined]


def test_one_process_and_two_give_the_same_tables() -> None:
    one = simulate(FATIGUE, duels=128, run=runner(5, 1))
    two = simulate(FATIGUE, duels=128, run=runner(5, 2))
    assert one == two and _lengths(one) == _lengths(two) and one.duels == 128
    # and the same as duel i drawn from duel_rng(5, i) in this process, without a runner
    assert simulate(FATIGUE, duels=128, rng_of=lambda i: duel_rng(5, i)) == one
    assert simulate(FATIGUE, duels=128, run=runner(6, 2)) != one  # the seed matters
    types_one = simulate_magic_types(FATIGUE, duels=50, run=runner(2, 1))
    assert simulate_magic_types(FATIGUE, duels=50, run=runner(2, 2)) == types_one


def test_a_2v2_table_is_the_same_over_two_processes() -> None:
    data = ruleset_path("fatigue").parent
    settings = load_duo_settings((data / "duo.toml").read_text(encoding="utf-8"))
    envs = [
        load_environment(p.read_text(encoding="utf-8"))
        for p in sorted((data / "environments").glob("*.toml"))
    ]
    years = ("4", "5")
    one = simulate_duo(FATIGUE, envs, settings, duels=8, years=years, run=runner(3, 1))
    two = simulate_duo(FATIGUE, envs, settings, duels=8, years=years, run=runner(3, 2))
    assert one == two and _lengths(one) == _lengths(two) and one.duels == 8


def test_the_command_prints_the_same_table_whatever_the_jobs() -> None:
    cli = CliRunner()
    args = ["--ruleset", "fatigue", "--duels", "64", "--seed", "4"]
    one = cli.invoke(simulate_command, [*args, "--jobs", "1"])
    two = cli.invoke(simulate_command, [*args, "--jobs", "2"])
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert one.output == two.output and "64 duels" in one.output


def test_chunks_cover_the_duels_in_order() -> None:
    assert chunks(10, 2) == [(i, i + 1) for i in range(10)]  # never more chunks than duels
    assert chunks(3, 2) == [(0, 1), (1, 2), (2, 3)]
    assert [b - a for a, b in chunks(100, 2)] == ([3] * 7 + [4]) * 4  # 2 jobs, 32 chunks
    parts = chunks(10_000, 3)
    assert parts[0][0] == 0 and parts[-1][1] == 10_000 and len(parts) == 3 * CHUNKS_PER_JOB
    assert max(b - a for a, b in parts) - min(b - a for a, b in parts) <= 1
    assert all(a[1] == b[0] for a, b in zip(parts, parts[1:], strict=False))


def test_a_duel_draws_the_same_in_every_process() -> None:
    assert duel_rng(1, 7).random() == duel_rng(1, 7).random() != duel_rng(1, 8).random()
    assert duel_rng(1, 7).random() == random.Random("forumbot-simulate:1:7").random()
