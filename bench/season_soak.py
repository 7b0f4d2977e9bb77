"""The season soak (issue 23): ``python bench/season_soak.py --seed N --players 40 --weeks 8``.

A whole club season on the sandbox board, on a fake clock, with the real bot (see
``bench/soak/``): sign-ups in the corpus' phrasings in a 1v1 and a 2v2 thread (duos one line
per member, or alone; ``--duo-share`` of them in the 2v2 one), duels of both kinds played to
the end with silent players, concessions, late edits and posts before the top, referees
approving, editing, dropping and claiming, moderators locking and moving topics (when the
sandbox can), restarts, simulated ``kill -9`` in the middle of writes (and, with
``--real-kills K``, real SIGKILLs of a bot process mid-write), a restore of the last nightly
backup and board outages. Prints one line per seed and exits 1 when any invariant is violated
(listed below the line).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from soak.duos import DUO_SHARE  # noqa: E402
from soak.season import run_seed  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the seeds; returns the exit status (1: a violation)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="first seed")
    parser.add_argument("--seeds", type=int, default=1, help="how many seeds from --seed")
    parser.add_argument("--players", type=int, default=40)
    parser.add_argument("--weeks", type=float, default=8)
    parser.add_argument("--drain-days", type=float, default=28.0,
                        help="days after the sign-ups close for the duels to end")
    parser.add_argument("--http", action="store_true",
                        help="serve the board on 127.0.0.1 (default: in-process transport)")
    parser.add_argument("--real-kills", type=int, default=0, metavar="K",
                        help="SIGKILL a real bot process K times per seed (board served on "
                        "127.0.0.1; about 2 CPU s each)")
    parser.add_argument("--duo-share", type=float, default=DUO_SHARE,
                        help="share of the sign-ups posted in the 2v2 thread")
    parser.add_argument("--verbose", action="store_true", help="the bot's log lines")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if args.verbose else logging.CRITICAL)
    status = 0
    for seed in range(args.seed, args.seed + args.seeds):
        started, cpu = time.monotonic(), time.process_time()
        progress = (lambda line: print(f"  {line}", flush=True)) if args.verbose else None
        summary = run_seed(
            seed, args.players, args.weeks, progress=progress, drain_days=args.drain_days,
            http=args.http, real_kills=args.real_kills, duo_share=args.duo_share,
        )
        print(f"{summary.line()} wall_s={time.monotonic() - started:.0f} "
              f"cpu_s={time.process_time() - cpu:.0f}", flush=True)
        for problem in summary.violations:
            print(f"  violation: {problem}", flush=True)
        status = status or (1 if summary.violations else 0)
    return status


if __name__ == "__main__":
    sys.exit(main())
