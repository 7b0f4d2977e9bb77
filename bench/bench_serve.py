"""Benchmark (issue 27): N clubs under one ``forumbot serve`` (SQLite, one process).

N sandbox phpBB boards run in this process, each on its own port (flood limit off for the
bot); each club file of the serve folder points at one of them (its own database).
``forumbot serve --boards DIR`` runs as a subprocess (review delay 0, poll interval P, publish
interval ``--publish`` seconds, default the shipped 15 s: a turn's declaration goes out by the
poll's publish kick, not by the publish interval; ``--workers W``). Three phases, in one
serve process:

1. **one idle club** (no duel): VmHWM once it has polled;
2. **N idle clubs**: the other N-1 files are added and SIGHUP sent; VmHWM once every club has
   polled (read from ``/healthz``) and two more polls have passed. Per added idle club:
   (VmHWM 2 - VmHWM 1) / (N - 1);
3. **K duels per club**: K classic duels are opened on every board; scripted duellists post
   both spells of a turn as soon as a new declaration of the bot appears, for ``--turns``
   turns. Measured from the boards' side (every request is logged with its arrival time):
   completed turn -> declaration latency (median, p90), requests per poll (listing + topic
   reads per listing read) against the ideal (1 + the topics that changed since the previous
   listing read of that board), VmHWM total at the end, and duplicates (a marker twice).
   Where the serve's time went comes from its ``/healthz`` at the end: per job (poll,
   publish, notify) the runs, the mean time running and the mean and worst time a due job
   waited for a worker (:meth:`forumbot.ops.club_runner.ClubRunner.snapshot`, ``jobs``).

    python bench/bench_serve.py --boards 10 --duels-per-board 3 [--poll 30 --workers 4]

Issue 27's second half, ``--pg-workers 2 --kills 30`` (bench/serve_takeover.py): the clubs
shared by that many serve workers on PostgreSQL (``--pg-url``, default ``$POSTGRES_URL``;
leases of ``--lease-ttl`` seconds), ``kill -9`` of one worker or the other ``--kills`` times
(the killed one restarted), the takeover time per club against TTL + one poll, and
duplicates / missing on the boards:

    python bench/bench_serve.py --boards 20 --pg-workers 2 --kills 30 --poll 5 --lease-ttl 10
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scale import CONFIG, Log, instrument, pct, proc_stats  # noqa: E402
from crash_test import (
    BOT,
    PASSWORD_ENV,
    SPELLS,
    declarations_shown,
    markers_in,
    open_duel_topic,
    post_turn,
)  # noqa: E402

from forumbot.sandbox import SandboxBoard  # noqa: E402


class Players:
    """Scripted duellists of every board: when a new bot declaration appears in a duel topic,
    both duellists post their turn (``turns`` times per duel); each completion is timed."""

    def __init__(self, boards: list[SandboxBoard], logs: list[Log], turns: int) -> None:
        self.boards, self.logs, self.turns = boards, logs, turns
        self.pairs: dict[tuple[int, int], tuple[str, str]] = {}
        self.answered: dict[tuple[int, int], int] = {}
        self.rng = random.Random(11)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def open_duels(self, per_board: int) -> None:
        for b, board in enumerate(self.boards):
            for d in range(per_board):
                a, c = f"Duelliste {b}-{2 * d}", f"Duelliste {b}-{2 * d + 1}"
                topic = open_duel_topic(board, a, c, d)
                self.pairs[(b, topic)] = (a, c)

    def shown(self, b: int, topic: int) -> int:
        return declarations_shown(self.boards[b], topic)

    def step(self) -> None:
        for (b, topic), (a, c) in self.pairs.items():
            shown = self.shown(b, topic)
            done = self.answered.get((b, topic), 0)
            if shown > done and done < self.turns:
                self.answered[(b, topic)] = shown
                for who in (a, c):
                    post_turn(self.boards[b], topic, who, self.rng.choice(SPELLS))
                with self.logs[b].lock:
                    self.logs[b].turns.setdefault(topic, []).append(time.monotonic())

    def finished(self) -> bool:
        return all(self.shown(b, t) >= self.turns + 1 for (b, t) in self.pairs)

    def start(self) -> None:
        def loop() -> None:
            while not self._stop.wait(0.2):
                self.step()

        self._thread = threading.Thread(target=loop, name="players", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)


def health(port: int) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as resp:
            return dict(json.loads(resp.read()))
    except OSError:
        return {}
    except ValueError:
        return {}


def wait_polled(port: int, names: list[str], timeout_s: float, proc: Any) -> None:
    """Until every club of ``names`` has polled once (its ``last_poll_at`` set)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and proc.poll() is None:
        clubs = health(port).get("clubs", {})
        if all(clubs.get(n, {}).get("last_poll_at") for n in names):
            return
        time.sleep(0.5)
    raise SystemExit(f"clubs not all polled within {timeout_s:.0f} s (see the serve log)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def board_figures(log: Log, topics: int, bot_id: int) -> dict[str, Any]:
    """One board's requests per poll, its ideal, and its turn -> declaration latencies."""
    served = list(log.served)
    listing = [s for s in served if s.path == "/viewforum.php" and s.method == "GET"]
    reads = [s for s in served if s.path == "/viewtopic.php" and s.method == "GET"]
    posts = [s for s in served if s.path == "/posting.php" and s.method == "POST"]
    declared = [s for s in posts if s.status in (301, 302, 303)]
    events = sorted([at for times in log.turns.values() for at in times] + [s.at for s in declared])
    ideal: list[int] = []
    previous = None
    for read in listing:
        if previous is None:
            ideal.append(1 + topics)  # the first read after the duels opened: each read once
        else:
            ideal.append(1 + min(topics, sum(1 for e in events if previous < e <= read.at)))
        previous = read.at
    per_topic: dict[int, list[float]] = {}
    for s in declared:
        per_topic.setdefault(int(s.query.get("t", "0") or 0), []).append(s.at)
    latencies = []
    for topic, completed in log.turns.items():
        decl = per_topic.get(topic, [])
        for k, done in enumerate(completed):
            if k + 1 < len(decl):
                latencies.append(decl[k + 1] - done)
    return {"listing": len(listing), "reads": len(reads), "ideal": ideal, "lat": latencies}


def club_config(url: str, poll_s: float, publish_s: float, database: str) -> str:
    """One club file's text: bench_scale's ``CONFIG`` with the publish interval ``publish_s``."""
    text = CONFIG.format(url=url, bot=BOT, password_env=PASSWORD_ENV, poll=poll_s,
                         database=database)  # fmt: skip
    assert "publish_interval_s = 1\n" in text, "bench_scale.CONFIG changed"
    return text.replace("publish_interval_s = 1\n", f"publish_interval_s = {publish_s:g}\n")


def job_figures(answer: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Per job over every club of a ``/healthz`` answer: runs, passes skipped as idle, mean
    milliseconds running, mean and worst seconds waited after due (module doc)."""
    total: dict[str, list[float]] = {}
    for club in answer.get("clubs", {}).values():
        for job, s in (club.get("jobs") or {}).items():
            t = total.setdefault(job, [0, 0, 0.0, 0.0, 0.0])
            t[0] += s["runs"]
            t[1] += s.get("skipped", 0)
            t[2] += s["busy_s"]
            t[3] += s["late_s"]
            t[4] = max(t[4], s["late_max_s"])
    return {
        job: {"runs": n, "skipped": skipped, "busy_ms": 1000 * busy / max(1, n),
              "late_s": late / max(1, n), "late_max_s": worst}  # fmt: skip
        for job, (n, skipped, busy, late, worst) in sorted(total.items())
    }


def run(
    n: int, k: int, poll_s: float, workers: int, turns: int, work: Path, publish_s: float = 15.0
) -> dict[str, Any]:
    """The three phases (module doc) in ``work``; returns the figures."""
    boards, logs, urls = [], [], []
    for _ in range(n):
        board = SandboxBoard(flood_interval_s=0, state_path=None)
        board.add_user(BOT, "pw-bot", ignore_flood=True)
        board.add_user("Arbitre", "a")
        log = Log()
        instrument(board, log)
        urls.append(board.start())
        boards.append(board)
        logs.append(log)
    folder = work / "boards"
    folder.mkdir(parents=True, exist_ok=True)

    def add_club(i: int) -> None:
        path = folder / f"club{i}.toml"
        text = club_config(urls[i], poll_s, publish_s, f"club{i}.db")
        path.write_text(text, encoding="utf-8")
        path.chmod(0o600)

    add_club(0)
    port = free_port()
    env = {**os.environ, PASSWORD_ENV: "pw-bot"}
    err = open(work / "serve.log", "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(
        [sys.executable, "-m", "forumbot", "serve", "--boards", str(folder),
         "--workers", str(workers), "--health-port", str(port)],  # fmt: skip
        cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=err,
    )  # fmt: skip
    players = Players(boards, logs, turns)
    figures: dict[str, Any] = {"boards": n, "duels_per_board": k, "poll_s": poll_s,
                               "publish_s": publish_s, "workers": workers,
                               "turns": turns}  # fmt: skip
    try:
        wait_polled(port, ["club0"], 120, proc)
        time.sleep(2 * poll_s)
        figures["hwm_one_idle_kib"] = proc_stats(proc.pid)[1]
        for i in range(1, n):
            add_club(i)
        started = time.monotonic()
        proc.send_signal(signal.SIGHUP)
        wait_polled(port, [f"club{i}" for i in range(n)], 60 + 10 * n, proc)
        figures["all_started_s"] = time.monotonic() - started
        time.sleep(2 * poll_s)
        figures["hwm_idle_kib"] = proc_stats(proc.pid)[1]
        for log in logs:  # phase 3 is measured from here
            with log.lock:
                log.served.clear()
        players.open_duels(k)
        players.start()
        began = time.monotonic()
        timeout = 120 + (turns + 2) * 3 * poll_s + 2 * n
        while time.monotonic() - began < timeout and proc.poll() is None:
            if players.finished():
                break
            time.sleep(1)
        figures["duels_s"] = time.monotonic() - began
        figures["finished"] = players.finished()
        time.sleep(2)
        cpu, figures["hwm_total_kib"] = proc_stats(proc.pid)
        figures["cpu_s"] = cpu
        figures["jobs"] = job_figures(health(port))
    finally:
        players.stop()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                proc.kill()
        err.close()
        for board in boards:
            board.stop()
    per_board = [board_figures(logs[i], k, boards[i].user_id(BOT)) for i in range(n)]
    latencies = [x for f in per_board for x in f["lat"]]
    ideal = [x for f in per_board for x in f["ideal"]]
    listing = sum(f["listing"] for f in per_board)
    duplicates = 0
    for (b, topic) in players.pairs:
        keys = [m for p in boards[b].posts(topic) for m in markers_in(p.text)]
        duplicates += len(keys) - len(set(keys))
    figures.update(
        latencies=len(latencies),
        latency_median_s=statistics.median(latencies) if latencies else float("nan"),
        latency_p90_s=pct(latencies, 0.9) if latencies else float("nan"),
        requests_per_poll=(listing + sum(f["reads"] for f in per_board)) / max(1, listing),
        ideal_per_poll=statistics.mean(ideal) if ideal else float("nan"),
        listing_reads=listing,
        duplicates=duplicates,
        declarations=sum(players.shown(b, t) for (b, t) in players.pairs),
    )
    return figures


def table(f: dict[str, Any]) -> list[str]:
    """The figures as a Markdown table with the issue's targets."""
    n, p = f["boards"], f["poll_s"]
    one, idle, total = (f[x] / 1024 for x in ("hwm_one_idle_kib", "hwm_idle_kib", "hwm_total_kib"))
    per_idle = (idle - one) / (n - 1) if n > 1 else float("nan")
    med, p90 = f["latency_median_s"], f["latency_p90_s"]
    rows = [
        ("duels played", f"{f['finished']} ({f['declarations']} declarations, "
         f"{f['duplicates']} duplicates) in {f['duels_s']:.0f} s", "all, 0 duplicates"),
        ("VmHWM, 1 idle club", f"{one:.1f} MiB", "-"),
        (f"VmHWM, {n} idle clubs", f"{idle:.1f} MiB", "-"),
        ("VmHWM per added idle club", f"{per_idle:.2f} MiB", "<= 2 MiB"),
        (f"VmHWM total ({n} clubs x {f['duels_per_board']} duels)", f"{total:.1f} MiB",
         "<= 300 MiB at N = 100"),
        (f"{n - 1} clubs added by SIGHUP: all polled after", f"{f['all_started_s']:.1f} s", "-"),
        ("completed turn -> declaration, median", f"{med:.1f} s", f"<= P + 3 s = {p + 3:.0f} s"),
        ("completed turn -> declaration, p90", f"{p90:.1f} s", f"<= 2P + 3 s = {2 * p + 3:.0f} s"),
        ("requests per poll (listing + topic reads)",
         f"{f['requests_per_poll']:.2f} (ideal {f['ideal_per_poll']:.2f})", "= ideal"),
    ]  # fmt: skip
    out = [
        f"N = {n} clubs, K = {f['duels_per_board']} duels each, {f['turns']} turns, P = {p} s, "
        f"publish interval {f['publish_s']:g} s, {f['workers']} workers: {f['latencies']} turn "
        f"latencies, {f['listing_reads']} listing reads, serve CPU {f['cpu_s']:.0f} s",
        "",
        "| figure | measured | target |",
        "|---|---|---|",
    ]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    out += ["", "| serve job | runs (skipped idle) | mean running | mean wait after due | "
            "worst wait |", "|---|---|---|---|---|"]  # fmt: skip
    for job, j in f.get("jobs", {}).items():
        out.append(f"| {job} | {j['runs']} ({j['skipped']}) | {j['busy_ms']:.1f} ms | "
                   f"{j['late_s']:.2f} s | {j['late_max_s']:.1f} s |")  # fmt: skip
    return out


def main() -> None:
    """Command line: ``python bench/bench_serve.py --boards 10 --duels-per-board 3``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=10)
    parser.add_argument("--duels-per-board", type=int, default=3)
    parser.add_argument("--poll", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--publish", type=float, default=15.0,
                        help="publish interval of every club, s (default: the shipped 15)")
    parser.add_argument("--turns", type=int, default=3, help="turns played in each duel")
    parser.add_argument("--work", default=None)
    parser.add_argument("--pg-workers", type=int, default=0,
                        help="serve workers sharing the clubs on PostgreSQL (0: one process)")
    parser.add_argument("--kills", type=int, default=30, help="kill -9s of a worker")
    parser.add_argument("--lease-ttl", type=float, default=30.0, help="lease TTL, seconds")
    parser.add_argument("--pg-url", default=os.environ.get("POSTGRES_URL"))
    parser.add_argument("--settle", type=float, default=300.0,
                        help="longest wait for every declaration published at the end, s")
    args = parser.parse_args()
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="forumbot-serve-"))
    work.mkdir(parents=True, exist_ok=True)
    if args.pg_workers:
        from serve_takeover import run_takeovers, takeover_table

        if not args.pg_url:
            raise SystemExit("--pg-workers needs --pg-url or $POSTGRES_URL (bash .ci/postgres.sh)")
        print(f"bench_serve: {args.boards} clubs, {args.pg_workers} workers on PostgreSQL, "
              f"{args.kills} kills, poll {args.poll} s, lease TTL {args.lease_ttl} s, in {work}",
              flush=True)  # fmt: skip
        found = run_takeovers(args.boards, args.pg_workers, args.kills, args.poll,
                              args.lease_ttl, args.settle, args.pg_url, work)  # fmt: skip
        for line in takeover_table(found):
            print(line)
        return
    print(f"bench_serve: {args.boards} clubs x {args.duels_per_board} duels, poll {args.poll} s, "
          f"in {work}", flush=True)  # fmt: skip
    figures = run(args.boards, args.duels_per_board, args.poll, args.workers, args.turns, work,
                  args.publish)  # fmt: skip
    for line in table(figures):
        print(line)


if __name__ == "__main__":
    main()
