"""Benchmark (issue 27): the bot's own CPU per job of one club, as ``forumbot serve`` runs it.

One sandbox phpBB board runs in this process (its request threads are not counted); the
club's bot is wired as ``forumbot serve`` wires it (:func:`forumbot.app.bootstrap`, a SQLite
file, the health tracking of :func:`forumbot.ops.health.tracked_jobs`). K classic duels are
opened and scripted duellists post both spells of a turn as soon as a new declaration shows.
Each round: one poll, then ``--ticks`` publish + notify passes (P = 30 s and a publish
interval of 1 s make 30 of them per poll interval); ``--turns`` turns per duel, then
``--idle`` rounds where nothing changes.

CPU is the calling thread's (``time.thread_time``: the sandbox's threads and other processes
do not count), in ms, per job: poll passes of a round where a turn was played ("busy"), poll
passes where nothing changed ("idle"), publish and notify passes. ``--profile FILE`` writes
a cProfile of every job (``python -m pstats FILE``), or with ``--profile-only NAME`` of
the passes of that job but its first one (template compiling, adoption).

    python bench/bench_club_cpu.py [--duels 3] [--turns 3] [--ticks 30] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import cProfile
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import CONFIG  # noqa: E402
from crash_test import (  # noqa: E402
    BOT,
    PASSWORD_ENV,
    SPELLS,
    declarations_shown,
    open_duel_topic,
    post_turn,
)

from forumbot.app import bootstrap, utc_now  # noqa: E402
from forumbot.config.loading import parse_config  # noqa: E402
from forumbot.ops.health import HealthState, tracked_jobs  # noqa: E402
from forumbot.sandbox import SandboxBoard  # noqa: E402


class Timer:
    """Thread CPU per job name (ms), optionally under one cProfile."""

    def __init__(self, profiler: cProfile.Profile | None, only: str | None = None) -> None:
        self.ms: dict[str, list[float]] = {}
        self.profiler = profiler
        self.only = only  # profile only the jobs whose name starts so (and not the first)

    def run(self, name: str, job: Callable[[], object]) -> None:
        """Run ``job`` once and record its CPU under ``name``."""
        profiler = self.profiler
        if self.only is not None and (not name.startswith(self.only) or name not in self.ms):
            profiler = None
        if profiler is not None:
            profiler.enable()
        start = time.thread_time()
        job()
        spent = (time.thread_time() - start) * 1000
        if profiler is not None:
            profiler.disable()
        self.ms.setdefault(name, []).append(spent)

    def line(self, name: str) -> str:
        """``name: n passes, median / mean / total ms``."""
        values = self.ms.get(name, [])
        if not values:
            return f"{name:12} no pass"
        return (f"{name:12} {len(values):4d} passes, median {statistics.median(values):7.2f} ms, "
                f"mean {statistics.mean(values):7.2f} ms, total {sum(values):8.1f} ms")  # fmt: skip


def main() -> None:
    """Command line (module doc)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duels", type=int, default=3)
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--ticks", type=int, default=30, help="publish passes per poll")
    parser.add_argument("--idle", type=int, default=5, help="rounds after the last turn")
    parser.add_argument("--profile", help="write a cProfile of every job to this file")
    parser.add_argument("--profile-only", help="profile only the jobs named so ('poll busy', "
                        "'publish', ...), each but its first pass")  # fmt: skip
    args = parser.parse_args()
    board = SandboxBoard(flood_interval_s=0, state_path=None)
    board.add_user(BOT, "pw-bot", ignore_flood=True)
    board.add_user("Arbitre", "a")
    url = board.start()
    work = Path(tempfile.mkdtemp(prefix="forumbot-cpu-"))
    text = CONFIG.format(url=url, bot=BOT, password_env=PASSWORD_ENV, poll=30,
                         database=str(work / "club.db"))  # fmt: skip
    bot = bootstrap(parse_config(text, work), password="pw-bot")
    poll, publish = tracked_jobs(bot, HealthState(utc_now, stale_after_s=90))
    bot.client.login()
    pairs = {}
    for d in range(args.duels):
        a, c = f"Duelliste {2 * d}", f"Duelliste {2 * d + 1}"
        pairs[open_duel_topic(board, a, c, d)] = (a, c)
    answered = dict.fromkeys(pairs, 0)
    timer = Timer(cProfile.Profile(time.thread_time) if args.profile else None, args.profile_only)
    rounds = 0
    busy = True
    idle_left = args.idle
    while idle_left > 0:
        rounds += 1
        timer.run("poll busy" if busy else "poll idle", poll)
        for _ in range(args.ticks):
            timer.run("publish", publish)
            timer.run("notify", bot.wired_notify().run)
        busy = False
        for topic, (a, c) in pairs.items():
            shown = declarations_shown(board, topic)
            if shown > answered[topic] and answered[topic] < args.turns:
                answered[topic] = shown
                for who in (a, c):
                    post_turn(board, topic, who, SPELLS[(shown + len(who)) % len(SPELLS)])
                busy = True
        if not busy:  # no new declaration this round: nothing more will come
            idle_left -= 1
    shown = sum(declarations_shown(board, t) for t in pairs)
    print(f"{args.duels} duels, {args.turns} turns, {rounds} rounds, {shown} declarations "
          f"(expected {args.duels * (args.turns + 1)})")  # fmt: skip
    for name in ("poll busy", "poll idle", "publish", "notify"):
        print(timer.line(name))
    total = sum(sum(v) for v in timer.ms.values())
    print(f"all jobs: {total:.0f} ms of CPU")
    if timer.profiler is not None:
        timer.profiler.dump_stats(args.profile)
    bot.close()
    board.stop()


if __name__ == "__main__":
    main()
