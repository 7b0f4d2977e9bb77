"""Benchmark (issue 12): does polling and publishing keep up with N classic duels?

The sandbox phpBB board runs in this process (flood limit off for the bot), N classic duels
are opened in forum 3 and scripted duellists (``crash_test.Duellists``) post both turns as soon
as a new declaration of the bot appears. ``forumbot run`` runs as a subprocess with review
delay 0, poll interval P and publish interval 1 s. Everything is measured from the board's
side (every request it serves is logged with its arrival time) and from ``/proc`` for the bot:

* VmHWM (peak resident memory) and CPU % over the whole run, and CPU % over an idle window
  (every duel finished, nothing to publish);
* requests per poll (``GET viewforum`` + ``GET viewtopic``, divided by the number of listing
  reads) against the ideal: 1 per watched forum + 1 per topic that changed since the previous
  listing read (a turn completed or a declaration posted; at the first read, every topic:
  the bot reads each once to adopt it); requests per idle poll (idle window);
* requests per declaration: ``posting.php`` GET + POST per published declaration (the topic
  re-reads for the bot's marker are counted in the viewtopic figures: the board cannot tell
  which worker sent them);
* completed turn -> published declaration: from the second duellist's post of a turn to the
  bot's declaration of that turn, median and p90, also in multiples of P;
* burst: the N openings become due in the same poll; the time from the first listing read to
  the last opening published.

    python bench/bench_scale.py --duels 3 --poll 5 [--timeout 600]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crash_test import BOT, PASSWORD_ENV, Database, Duellists, markers_in  # noqa: E402

from forumbot.sandbox import SandboxBoard  # noqa: E402

CONFIG = """
[board]
url = "{url}"
platform = "phpbb3"
[bot]
username = "{bot}"
password_env = "{password_env}"
[club]
ruleset = "classic"
review_delay_s = 0
[poll]
poll_interval_s = {poll}
publish_interval_s = 1
flood_interval_s = 0
[storage]
database = "{database}"
backup_keep = 0
[[watch]]
forum_id = 3
"""

TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Served:
    """One request the board served: arrival (monotonic s), method, path, query, status."""

    at: float
    method: str
    path: str
    query: dict[str, str]
    status: int


@dataclass
class Log:
    """What the board saw, appended from its handler threads."""

    served: list[Served] = field(default_factory=list)
    turns: dict[int, list[float]] = field(default_factory=dict)  # topic -> turn completions
    lock: threading.Lock = field(default_factory=threading.Lock)


def instrument(board: SandboxBoard, log: Log) -> None:
    """Record every request the board handles (and its status)."""
    original = board.handle

    def handle(req: Any) -> Any:
        at = time.monotonic()
        resp = original(req)
        with log.lock:
            log.served.append(Served(at, req.method, req.path, dict(req.query), resp.status))
        return resp

    board.handle = handle  # type: ignore[method-assign]


class TimedDuellists(Duellists):
    """The crash test's duellists, recording when each turn is complete (both posted)."""

    def __init__(self, board: SandboxBoard, db: Database, rng: random.Random, log: Log) -> None:
        super().__init__(board, db, rng)
        self.log = log

    def step(self) -> None:
        before = dict(self.answered)
        super().step()
        now = time.monotonic()
        for topic, shown in self.answered.items():
            if shown > before.get(topic, 0):
                with self.log.lock:
                    self.log.turns.setdefault(topic, []).append(now)


def proc_stats(pid: int) -> tuple[float, int]:
    """(CPU seconds user+system, VmHWM kB) of ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    hwm = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            hwm = int(line.split()[1])
    return cpu, hwm


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def run(duels: int, poll_s: float, timeout_s: float, idle_s: float, work: Path) -> dict[str, Any]:
    """Run the benchmark in ``work``; returns the figures."""
    import subprocess

    log = Log()
    board = SandboxBoard(flood_interval_s=0, state_path=None)
    board.add_user(BOT, "pw-bot", ignore_flood=True)
    board.add_user("Arbitre", "a")
    instrument(board, log)
    url = board.start()
    db = Database(work / "bench.db")
    players = TimedDuellists(board, db, random.Random(11), log)
    topics = [players.open_duel(i) for i in range(duels)]
    (work / "forumbot.toml").write_text(
        CONFIG.format(
            url=url, bot=BOT, password_env=PASSWORD_ENV, poll=poll_s, database="bench.db"
        ),
        encoding="utf-8",
    )
    env = {**os.environ, PASSWORD_ENV: "pw-bot"}
    players.start()
    started = time.monotonic()
    with open(work / "bot.log", "wb") as err:
        bot = subprocess.Popen(
            [sys.executable, "-m", "forumbot", "run", "-c", str(work / "forumbot.toml")],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    finished_at = None
    idle: dict[str, float] = {}
    try:
        while time.monotonic() - started < timeout_s and bot.poll() is None:
            status = db.duel_status()
            if all(status.get(t) == "finished" for t in topics):
                finished_at = time.monotonic()
                break
            time.sleep(0.5)
        if finished_at is not None and bot.poll() is None:
            time.sleep(2 * poll_s)  # let the last declarations go out
            cpu0, _ = proc_stats(bot.pid)
            t0 = time.monotonic()
            with log.lock:
                n0 = len(log.served)
            time.sleep(idle_s)
            cpu1, _ = proc_stats(bot.pid)
            t1 = time.monotonic()
            with log.lock:
                window = log.served[n0:]
            idle = {
                "cpu_pct": 100 * (cpu1 - cpu0) / (t1 - t0),
                "requests": len(window),
                "polls": sum(1 for s in window if s.path == "/viewforum.php"),
            }
        cpu, hwm = proc_stats(bot.pid) if bot.poll() is None else (0.0, 0)
        wall = time.monotonic() - started
    finally:
        if bot.poll() is None:
            bot.terminate()
        bot.wait(timeout=30)
        players.stop()
        board.stop()

    served = log.served
    bot_id = board.user_id(BOT)
    listing_reads = [s for s in served if s.path == "/viewforum.php" and s.method == "GET"]
    topic_reads = [s for s in served if s.path == "/viewtopic.php" and s.method == "GET"]
    form_gets = [s for s in served if s.path == "/posting.php" and s.method == "GET"]
    posts = [s for s in served if s.path == "/posting.php" and s.method == "POST"]
    declarations = sum(
        len(markers_in(p.text)) for t in topics for p in board.posts(t) if p.poster_id == bot_id
    )
    # ideal per listing read: 1 + topics whose posts changed since the previous listing read
    changes = sorted(at for times in log.turns.values() for at in times)
    decl_times = sorted(s.at for s in posts if s.status in (301, 302, 303))
    events = sorted(changes + decl_times)
    ideal = []
    previous = started
    for index, read in enumerate(listing_reads):
        if index == 0:  # start-up: every topic is new to the bot (each is read to adopt it)
            ideal.append(1 + duels)
        else:
            ideal.append(1 + min(duels, sum(1 for e in events if previous < e <= read.at)))
        previous = read.at
    # turn completion -> declaration: per topic, the k-th completed turn -> the (k+1)-th
    # declaration of that topic (the first one is the opening)
    latencies: list[float] = []
    per_topic_decl: dict[int, list[float]] = {}
    for s in posts:
        if s.status in (301, 302, 303):
            topic = int(s.query.get("t", "0") or 0)
            per_topic_decl.setdefault(topic, []).append(s.at)
    for topic, completed in log.turns.items():
        decl = per_topic_decl.get(topic, [])
        for k, done in enumerate(completed):
            if k + 1 < len(decl):
                latencies.append(decl[k + 1] - done)
    openings = [d[0] for d in per_topic_decl.values() if d]
    burst = (max(openings) - listing_reads[0].at) if openings and listing_reads else float("nan")
    return {
        "duels": duels,
        "poll_s": poll_s,
        "wall_s": wall,
        "finished": finished_at is not None,
        "vmhwm_mib": hwm / 1024,
        "cpu_pct": 100 * cpu / wall if wall else 0.0,
        "idle": idle,
        "listing_reads": len(listing_reads),
        "requests_per_poll": (len(listing_reads) + len(topic_reads)) / max(1, len(listing_reads)),
        "ideal_per_poll": statistics.mean(ideal) if ideal else float("nan"),
        "topic_reads": len(topic_reads),
        "form_gets": len(form_gets),
        "posts": len(posts),
        "declarations": declarations,
        "requests_per_declaration": (len(form_gets) + len(posts)) / max(1, declarations),
        "latency_median_s": statistics.median(latencies) if latencies else float("nan"),
        "latency_p90_s": pct(latencies, 0.9) if latencies else float("nan"),
        "latencies": len(latencies),
        "burst_s": burst,
        "all_requests": len(served),
    }


def table(f: dict[str, Any]) -> list[str]:
    """The figures as a Markdown table with the issue's targets."""
    p = f["poll_s"]
    idle = f["idle"]
    idle_polls = idle.get("polls") or 0
    per_idle = idle["requests"] / idle_polls if idle_polls else float("nan")
    med, p90 = f["latency_median_s"], f["latency_p90_s"]
    rows = [
        ("duels finished", f"{f['finished']} in {f['wall_s']:.0f} s", "yes"),
        ("VmHWM", f"{f['vmhwm_mib']:.1f} MiB", "<= 80 MiB at 30 duels"),
        ("CPU % (whole run)", f"{f['cpu_pct']:.1f} %", "-"),
        ("CPU % (idle window)", f"{idle.get('cpu_pct', float('nan')):.1f} %", "<= 2 %"),
        (
            "requests per poll (listing + topic reads)",
            f"{f['requests_per_poll']:.2f} (ideal {f['ideal_per_poll']:.2f})",
            "= ideal",
        ),
        ("requests per idle poll", f"{per_idle:.2f}", "1"),
        (
            "requests per declaration (form GET + POST)",
            f"{f['requests_per_declaration']:.2f}",
            "<= 2",
        ),
        (
            "completed turn -> declaration, median",
            f"{med:.1f} s = {med / p:.2f} P",
            f"<= P + 3 s = {p + 3:.0f} s",
        ),
        (
            "completed turn -> declaration, p90",
            f"{p90:.1f} s = {p90 / p:.2f} P",
            f"<= 2P + 3 s = {2 * p + 3:.0f} s",
        ),
        (f"burst of {f['duels']} openings", f"{f['burst_s']:.1f} s", "30 in <= 10 s"),
    ]
    out = [
        f"N = {f['duels']}, P = {p} s: {f['declarations']} declarations, {f['latencies']} turn "
        f"latencies, {f['listing_reads']} listing reads, {f['topic_reads']} topic reads, "
        f"{f['form_gets']} form GETs, {f['posts']} POSTs, {f['all_requests']} requests in all",
        "",
        "| figure | measured | target |",
        "|---|---|---|",
    ]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return out


def main() -> None:
    """Command line: ``python bench/bench_scale.py --duels 3 --poll 5``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duels", type=int, default=3)
    parser.add_argument("--poll", type=float, default=5.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--idle", type=float, default=30.0, help="idle window, seconds")
    parser.add_argument("--work", default=None)
    args = parser.parse_args()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="forumbot-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"bench_scale: {args.duels} duels, poll {args.poll} s, in {work}")
    figures = run(args.duels, args.poll, args.timeout, args.idle, work)
    for line in table(figures):
        print(line)


if __name__ == "__main__":
    main()
