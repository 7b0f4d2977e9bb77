"""Benchmark: turns per second of the classic and fatigue engines, random legal turns, one process.

A classic turn is one :func:`rules.resolve_turn` call (both posts); a fatigue turn is two
:func:`rules.fatigue.resolve_fatigue_step` calls (initiative, then defense). The posts come
from the balance simulator's random legal policy (:mod:`rules.balance.policies`). The duels
are played once to record every call's inputs (state, posts, dice); the timed part replays
the recorded calls in a tight loop, so only the engine is timed (the engines are pure: a
replayed call computes what the played one did). Each engine runs with the trail (what the
referee's draft reads) and without it (``trail=False``: the simulator).

Two clocks: wall time (``perf_counter``) and the process's CPU time (``thread_time``). The
machine is shared, so the CPU figure is the one checked against the targets; both are
printed, with the load average. ``--baseline DIR`` runs the same measurements on the
``rules`` package of another checkout (e.g. ``git archive main | tar -x -C DIR``), before
and after this tree's, and prints the ratios.

Targets (issue 17): >= 50,000 classic turns/s and >= 25,000 fatigue turns/s (without the
trail). ``--simulate`` also times 10,000 classic and 10,000 fatigue duels of the balance simulator
(target <= 3 s of CPU each). The fatigue turns include dodges, ripostes, effects and, one
turn in ten, a relaunch (:data:`RELAUNCH_SHARE`); the play's mix (:func:`fatigue_mix`) is
printed, and play missing one of them counts as a missed target (issue 26). Exit status 1
when a target is missed.

Run: ``python bench/bench_rules.py [--turns 60000] [--seed 1] [--simulate] [--baseline DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# --rules-root DIR (the baseline run) puts another checkout's rules package first
_AT = sys.argv.index("--rules-root") + 1 if "--rules-root" in sys.argv else 0
sys.path.insert(0, sys.argv[_AT] if _AT else str(ROOT))

from rules import parse_ruleset, ruleset_path  # noqa: E402
from rules.fatigue import load_fatigue_ruleset  # noqa: E402

CLASSIC_TARGET = 50_000
FATIGUE_TARGET = 25_000
SIMULATE_TARGET_S = 3.0

Call = tuple[object, list[object], dict[int, tuple[int, ...]]]

RELAUNCH_SHARE = 0.1
"""Share of fatigue turns whose defense never comes (a relaunch step: the initiative spell
resolves undefended), so the measured play is not only the common case (issue 26)."""


def _timed(fn: object, calls: list[Call], rs: object, trail: bool) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to replay ``calls`` through ``fn``."""
    kw = {} if trail else {"trail": False}
    w0, c0 = time.perf_counter(), time.thread_time()
    for state, posts, dice in calls:
        fn(state, posts, dice, ruleset=rs, **kw)  # type: ignore[operator]
    return time.perf_counter() - w0, time.thread_time() - c0


def record_classic(turns: int, seed: int) -> tuple[object, list[Call]]:
    """The classic ruleset and ``turns`` recorded random legal turns."""
    from rules import new_duel, resolve_turn, start_duel
    from rules.balance.policies import classic_random_post

    rs = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    years = list(rs.starting_points)
    calls: list[Call] = []
    pid = 0
    while len(calls) < turns:
        state = start_duel(new_duel(rs, [("A", rng.choice(years)), ("B", rng.choice(years))]))
        while not state.finished and len(calls) < turns:
            posts = []
            dice = {}
            for d in state.duellists:
                pid += 1
                posts.append(classic_random_post(rs, d, pid, rng))
                dice[pid] = (rng.randint(1, 6), rng.randint(1, 6))
            calls.append((state, posts, dice))
            state = resolve_turn(state, posts, dice, ruleset=rs, trail=False).state
    return rs, calls


def record_fatigue(turns: int, seed: int) -> tuple[object, list[Call]]:
    """The fatigue ruleset and the steps of ``turns`` recorded random legal 1v1 turns."""
    from rules import start_duel
    from rules.balance.policies import fatigue_random_post
    from rules.fatigue import new_fatigue_duel, resolve_fatigue_step

    rs = load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))
    rng = random.Random(seed)
    years = list(rs.starting_points)
    types = sorted(rs.magic_types)
    calls: list[Call] = []
    done = 0
    pid = 0
    while done < turns:
        who = [("A", rng.choice(years), (rng.choice(types),)),
               ("B", rng.choice(years), (rng.choice(types),))]  # fmt: skip
        state = start_duel(new_fatigue_duel(rs, who))
        while not state.finished and done < turns:
            first, second = state.duellists if rng.random() < 0.5 else state.duellists[::-1]
            pid += 1
            post = fatigue_random_post(rs, first, second, pid, "initiative", rng)
            die = {pid: (rng.randint(1, 6),)}
            calls.append((state, [post], die))
            one = resolve_fatigue_step(state, [post], die, ruleset=rs, trail=False)
            if one.finished:
                state = one.state
                done += 1
                break
            second = one.state.duellist(second.name)
            first = one.state.duellist(first.name)
            if rng.random() < RELAUNCH_SHARE:  # the defense never came: a relaunch step
                calls.append((one.state, [], {}))
                state = resolve_fatigue_step(one.state, [], {}, ruleset=rs, trail=False).state
                done += 1
                continue
            pid += 1
            post = fatigue_random_post(rs, second, first, pid, "defense", rng)
            die = {pid: (rng.randint(1, 6),)}
            calls.append((one.state, [post], die))
            state = resolve_fatigue_step(one.state, [post], die, ruleset=rs, trail=False).state
            done += 1
    return rs, calls


MIX = ("dodge", "dodge_riposte", "riposte_landed", "dodged", "effects_applied",
       "effects_running", "relaunch", "no_action")  # fmt: skip
"""What the measured fatigue play must include (issue 26: not only the common case)."""


def fatigue_mix(rs: object, calls: list[Call]) -> dict[str, int]:
    """How many of the recorded fatigue steps hold each :data:`MIX` item: dodges and
    dodge_ripostes posted, ripostes that landed, initiative spells dodged, spells that
    applied effects, steps with an effect running, relaunches (no defense), posts with no
    legal action left."""
    from rules.fatigue import resolve_fatigue_step

    mix = dict.fromkeys(MIX, 0)
    for state, posts, dice in calls:
        out = resolve_fatigue_step(state, posts, dice, ruleset=rs, trail=False)  # type: ignore[arg-type]
        if not posts:
            mix["relaunch"] += 1
        for post in posts:
            if post.kind in ("dodge", "dodge_riposte"):
                mix[post.kind] += 1
            if post.kind is None and post.spell is None:
                mix["no_action"] += 1
        for attack in out.attacks:
            mix["dodged"] += attack.void_reason == "dodged"
            mix["effects_applied"] += bool(attack.effects_applied)
        if len(out.attacks) == 2 and posts and posts[0].kind == "dodge_riposte":
            mix["riposte_landed"] += out.attacks[1].landed
        mix["effects_running"] += any(d.effects for d in state.duellists)
    return mix


def bench_classic(turns: int, seed: int, trail: bool) -> float:
    """Classic turns per CPU second over ``turns`` random legal turns."""
    from rules import resolve_turn

    rs, calls = record_classic(turns, seed)
    return len(calls) / _timed(resolve_turn, calls, rs, trail)[1]


def bench_fatigue(turns: int, seed: int, trail: bool) -> float:
    """Fatigue 1v1 turns (initiative + defense) per CPU second over ``turns`` turns."""
    from rules.fatigue import resolve_fatigue_step

    rs, calls = record_fatigue(turns, seed)
    return turns / _timed(resolve_fatigue_step, calls, rs, trail)[1]


def bench_simulate(duels: int, seed: int, name: str = "classic") -> tuple[float, float]:
    """(wall, CPU) seconds for ``duels`` duels of ruleset ``name`` (``classic``, ``fatigue``)
    in the balance simulator (all year pairs, policies included)."""
    from rules.balance import simulate
    from rules.fatigue import parse_any_ruleset

    rs = parse_any_ruleset(ruleset_path(name).read_text(encoding="utf-8"))
    w0, c0 = time.perf_counter(), time.thread_time()
    simulate(rs, duels=duels, rng=random.Random(seed))
    return time.perf_counter() - w0, time.thread_time() - c0


def measure(turns: int, seed: int, with_simulate: bool) -> dict[str, float]:
    """Every figure: ``<engine>.<trail|no_trail>.<wall|cpu>`` turns/s, ``simulate.<clock>`` s."""
    from rules import resolve_turn
    from rules.fatigue import resolve_fatigue_step

    out: dict[str, float] = {}
    for name, record, fn in (
        ("classic", record_classic, resolve_turn),
        ("fatigue", record_fatigue, resolve_fatigue_step),
    ):
        rs, calls = record(turns, seed)
        if name == "fatigue":
            out.update({f"mix.{k}": v for k, v in fatigue_mix(rs, calls).items()})
        for trail in (True, False):
            wall, cpu = _timed(fn, calls, rs, trail)
            key = f"{name}.{'trail' if trail else 'no_trail'}"
            out[f"{key}.wall"] = turns / wall
            out[f"{key}.cpu"] = turns / cpu
        del calls  # the recorded states are not kept alive through the simulate timing
    if with_simulate:
        out["simulate.wall"], out["simulate.cpu"] = bench_simulate(10_000, seed)
        fatigue = bench_simulate(10_000, seed, "fatigue")
        out["simulate_fatigue.wall"], out["simulate_fatigue.cpu"] = fatigue
    return out


def _baseline(root: str, turns: int, seed: int, with_simulate: bool) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--rules-root", root, "--json", "--turns", str(turns),
           "--seed", str(seed)] + (["--simulate"] if with_simulate else [])  # fmt: skip
    env = dict(os.environ, PYTHONPATH=root)
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if not done.stdout.strip():
        raise SystemExit(f"baseline run failed: {done.stderr[-2000:]}")
    return dict(json.loads(done.stdout))


def main() -> int:
    """Print turns/s per engine (with and without the trail); 1 when a target is missed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=60_000, help="turns per measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--simulate", action="store_true", help="also time 10,000 duels")
    parser.add_argument("--baseline", metavar="DIR", help="checkout to compare with")
    parser.add_argument("--rules-root", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(measure(args.turns, args.seed, args.simulate)))
        return 0
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
    base: list[dict[str, float]] = []
    if args.baseline:
        base.append(_baseline(args.baseline, args.turns, args.seed, args.simulate))
    now = measure(args.turns, args.seed, args.simulate)
    if args.baseline:
        base.append(_baseline(args.baseline, args.turns, args.seed, args.simulate))
    base = [{k: v for k, v in b.items() if not k.startswith("mix.")} for b in base]
    best = {k: max(b[k] for b in base) for k in base[0]} if base else {}
    best.update({k: min(b[k] for b in base) for k in base[0] if k.startswith("simulate")}
                if base else {})  # fmt: skip
    ok = True
    for name, target in (("classic", CLASSIC_TARGET), ("fatigue", FATIGUE_TARGET)):
        hit = now[f"{name}.no_trail.cpu"] >= target
        ok &= hit
        print(
            f"{name:8} with trail {now[f'{name}.trail.cpu']:9,.0f} turns/s CPU"
            f" ({now[f'{name}.trail.wall']:9,.0f} wall);"
            f" without {now[f'{name}.no_trail.cpu']:9,.0f} turns/s CPU"
            f" ({now[f'{name}.no_trail.wall']:9,.0f} wall)"
            f"  target >= {target:,} without: {'ok' if hit else 'MISSED'}"
        )
        if best:
            print(
                f"{'':8} baseline (best of 2): with trail {best[f'{name}.trail.cpu']:9,.0f},"
                f" without {best[f'{name}.no_trail.cpu']:9,.0f} turns/s CPU; ratio"
                f" x{now[f'{name}.trail.cpu'] / best[f'{name}.trail.cpu']:.2f} with trail,"
                f" x{now[f'{name}.no_trail.cpu'] / best[f'{name}.no_trail.cpu']:.2f} without"
            )
    mix = {k: int(now[f"mix.{k}"]) for k in MIX}
    varied = all(mix.values())
    ok &= varied
    print(f"fatigue play ({args.turns:,} turns): "
          + ", ".join(f"{k} {v:,}" for k, v in mix.items())
          + ("" if varied else "  MISSING: the play is only the common case"))  # fmt: skip
    if args.simulate:
        hit = now["simulate.cpu"] <= SIMULATE_TARGET_S
        ok &= hit
        print(
            f"simulate 10,000 classic duels: {now['simulate.cpu']:.2f} s CPU"
            f" ({now['simulate.wall']:.2f} s wall; target <= {SIMULATE_TARGET_S} s)"
            + (f"; baseline {best['simulate.cpu']:.2f} s CPU,"
               f" x{best['simulate.cpu'] / now['simulate.cpu']:.2f}" if best else "")
        )  # fmt: skip
        hit = now["simulate_fatigue.cpu"] <= SIMULATE_TARGET_S
        ok &= hit
        print(
            f"simulate 10,000 fatigue duels: {now['simulate_fatigue.cpu']:.2f} s CPU"
            f" ({now['simulate_fatigue.wall']:.2f} s wall; target <= {SIMULATE_TARGET_S} s)"
            + (f"; baseline {best['simulate_fatigue.cpu']:.2f} s CPU,"
               f" x{best['simulate_fatigue.cpu'] / now['simulate_fatigue.cpu']:.2f}"
               if best else "")
        )  # fmt: skip
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
