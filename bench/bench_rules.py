"""Benchmark: turns per second of the classic and fatigue engines, random legal turns, one process.

A classic turn is one :func:`rules.resolve_turn` call (both posts); a fatigue turn is two
:func:`rules.fatigue.resolve_fatigue_step` calls (initiative, then defense). The posts come
from the balance simulator's random legal policy (:mod:`rules.balance.policies`), generated
outside the timed calls; only the engine calls are timed. Each engine runs with the trail
(what the referee's draft reads) and without it (``trail=False``: the simulator).

Targets (issue 17): >= 50,000 classic turns/s and >= 25,000 fatigue turns/s (without the
trail). ``--simulate`` also times 10,000 classic duels of the balance simulator (target <= 3 s).
Exit status 1 when a target is missed.

Run: ``python bench/bench_rules.py [--turns 60000] [--seed 1] [--simulate]``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules import parse_ruleset, ruleset_path  # noqa: E402
from rules.fatigue import load_fatigue_ruleset  # noqa: E402

CLASSIC_TARGET = 50_000
FATIGUE_TARGET = 25_000
SIMULATE_TARGET_S = 3.0


def bench_classic(turns: int, seed: int, trail: bool) -> float:
    """Classic turns per second over ``turns`` random legal turns."""
    from rules import new_duel, resolve_turn, start_duel
    from rules.balance.policies import classic_random_post

    rs = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    years = list(rs.starting_points)
    spent = 0.0
    done = 0
    pid = 0
    kw = {} if trail else {"trail": False}
    while done < turns:
        state = start_duel(new_duel(rs, [("A", rng.choice(years)), ("B", rng.choice(years))]))
        while not state.finished and done < turns:
            posts = []
            dice = {}
            for d in state.duellists:
                pid += 1
                posts.append(classic_random_post(rs, d, pid, rng))
                dice[pid] = (rng.randint(1, 6), rng.randint(1, 6))
            t0 = time.perf_counter()
            state = resolve_turn(state, posts, dice, ruleset=rs, **kw).state
            spent += time.perf_counter() - t0
            done += 1
    return done / spent


def bench_fatigue(turns: int, seed: int, trail: bool) -> float:
    """Fatigue 1v1 turns (initiative + defense) per second over ``turns`` random legal turns."""
    from rules import start_duel
    from rules.balance.policies import fatigue_random_post
    from rules.fatigue import new_fatigue_duel, resolve_fatigue_step

    rs = load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    years = list(rs.starting_points)
    types = sorted(rs.magic_types)
    spent = 0.0
    done = 0
    pid = 0
    kw = {} if trail else {"trail": False}
    while done < turns:
        who = [("A", rng.choice(years), (rng.choice(types),)),
               ("B", rng.choice(years), (rng.choice(types),))]  # fmt: skip
        state = start_duel(new_fatigue_duel(rs, who))
        while not state.finished and done < turns:
            first, second = state.duellists if rng.random() < 0.5 else state.duellists[::-1]
            pid += 1
            post = fatigue_random_post(rs, first, second, pid, "initiative", rng)
            die = {pid: (rng.randint(1, 6),)}
            t0 = time.perf_counter()
            one = resolve_fatigue_step(state, [post], die, ruleset=rs, **kw)
            spent += time.perf_counter() - t0
            if one.finished:
                state = one.state
                done += 1
                break
            second = one.state.duellist(second.name)
            first = one.state.duellist(first.name)
            pid += 1
            post = fatigue_random_post(rs, second, first, pid, "defense", rng)
            die = {pid: (rng.randint(1, 6),)}
            t0 = time.perf_counter()
            state = resolve_fatigue_step(one.state, [post], die, ruleset=rs, **kw).state
            spent += time.perf_counter() - t0
            done += 1
    return done / spent


def bench_simulate(duels: int, seed: int) -> float:
    """Seconds for ``duels`` classic duels of the balance simulator (all year pairs)."""
    from rules.balance import simulate

    rs = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    simulate(rs, duels=duels, rng=random.Random(seed))
    return time.perf_counter() - t0


def main() -> int:
    """Print turns/s per engine (with and without the trail); 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=60_000, help="turns per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--simulate", action="store_true", help="also time 10,000 duels")
    args = parser.parse_args()
    ok = True
    for name, fn, target in (
        ("classic", bench_classic, CLASSIC_TARGET),
        ("fatigue", bench_fatigue, FATIGUE_TARGET),
    ):
        with_trail = fn(args.turns, args.seed, True)
        without = fn(args.turns, args.seed, False)
        hit = without >= target
        ok &= hit
        print(
            f"{name:8} {with_trail:10,.0f} turns/s with trail {without:10,.0f} turns/s without"
            f"  (target >= {target:,} without: {'ok' if hit else 'MISSED'})"
        )
    if args.simulate:
        seconds = bench_simulate(10_000, args.seed)
        hit = seconds <= SIMULATE_TARGET_S
        ok &= hit
        print(f"simulate 10,000 classic duels: {seconds:.2f} s (target <= {SIMULATE_TARGET_S} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
