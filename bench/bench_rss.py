"""Benchmark (c): peak RSS of ``forumbot run`` refereeing 3 sandbox duels to the end.

The sandbox board runs in this process; ``forumbot run`` runs as a subprocess (poll and
publish every second, review delay 0); scripted duellists answer each declaration. The peak
resident set size is read from ``/proc/<pid>/status`` (VmHWM) just before the bot is stopped.

    python bench/bench_rss.py [--duels 3]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from forumbot.sandbox import SandboxBoard

CONFIG = """
[board]
url = "{url}"
platform = "phpbb3"
[bot]
username = "Hibou"
password_env = "FORUMBOT_BENCH_PASSWORD"
[club]
ruleset = "classic"
review_delay_s = 0
[poll]
poll_interval_s = 1
publish_interval_s = 1
flood_interval_s = 1
[storage]
database = "bench.db"
[[watch]]
forum_id = 3
"""
SPELLS = ["Sortilège de Désarmement", "Sortilège de Chatouillis"]


def vm_hwm_kib(pid: int) -> int:
    text = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"VmHWM:\s+(\d+) kB", text)
    return int(match.group(1)) if match else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duels", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    rng = random.Random(3)
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw", ignore_flood=True)
    board.add_user("Arbitre", "a")
    pairs = [(f"Duelliste {2 * i}", f"Duelliste {2 * i + 1}") for i in range(args.duels)]
    for a, b in pairs:
        board.add_user(a, "x")
        board.add_user(b, "x")
    url = board.start()
    topics = [
        board.create_topic(
            3, "Arbitre", f"Duel {i}", f"Les adversaires : {a} (1re année) contre {b} (1re année)."
        )
        for i, (a, b) in enumerate(pairs)
    ]
    work = Path(tempfile.mkdtemp(prefix="forumbot-bench-"))
    (work / "forumbot.toml").write_text(CONFIG.format(url=url), encoding="utf-8")
    env = {**os.environ, "FORUMBOT_BENCH_PASSWORD": "pw"}
    bot = subprocess.Popen(
        [sys.executable, "-m", "forumbot", "run", "-c", "forumbot.toml"],
        cwd=work,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    answered: dict[int, int] = {}
    peak = 0
    started = time.monotonic()
    try:
        while time.monotonic() - started < args.timeout:
            peak = max(peak, vm_hwm_kib(bot.pid))
            time.sleep(0.3)
            if not (work / "bench.db").exists():
                continue
            con = sqlite3.connect(work / "bench.db", timeout=10)
            try:
                rows = con.execute("select topic_id, status from duels").fetchall()
                published = dict(
                    con.execute(
                        "select d.topic_id, count(*) from declarations x join duels d "
                        "on d.id = x.duel_id where x.status = 'published' group by d.topic_id"
                    ).fetchall()
                )
            except sqlite3.OperationalError:
                continue
            finally:
                con.close()
            status = dict(rows)
            if rows and all(status.get(t) == "finished" for t in topics):
                break
            for topic, (a, b) in zip(topics, pairs, strict=True):
                count = published.get(topic, 0)
                if status.get(topic) == "running" and count > answered.get(topic, 0):
                    answered[topic] = count
                    for who in (a, b):
                        board.post_reply(
                            topic, who, f"{who} attaque.\nAvec aplomb.\n[b]{rng.choice(SPELLS)}[/b]"
                        )
        peak = max(peak, vm_hwm_kib(bot.pid))
    finally:
        bot.terminate()
        bot.wait(timeout=30)
        board.stop()
    elapsed = time.monotonic() - started
    print(
        f"duels: {args.duels}, all finished: {len(answered) == args.duels}, "
        f"declarations answered: {sum(answered.values())}, {elapsed:.0f} s"
    )
    print(f"peak RSS of forumbot run: {peak / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
