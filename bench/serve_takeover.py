"""Benchmark, issue 27's second half: N clubs shared by W ``forumbot serve`` workers on
PostgreSQL, and a loop of ``kill -9`` (``python bench/bench_serve.py --pg-workers 2 --kills 30``).

N sandbox phpBB boards run in this process (each on its own port); each club file of the one
serve folder points at one of them, its storage a schema of the PostgreSQL at ``--pg-url``
(default ``$POSTGRES_URL``; ``bash .ci/postgres.sh`` starts one) and the leases in a schema of
their own. W workers run ``forumbot serve --boards DIR --lease-url ... --lease-ttl TTL``.
One classic duel per board is played all along by scripted duellists (both post their turn as
soon as a new declaration of the bot appears; a finished duel is followed by a new one on
that board).

Each kill: a worker is picked at random among the live ones holding clubs, killed with
SIGKILL; **takeover time** of each of its clubs = from the kill to the moment another
worker's ``/healthz`` shows the club ``running`` there with a poll done (read every 0.25 s),
compared with TTL + one poll interval. The killed worker is restarted (same worker id) once
its clubs are taken over, and the loop waits until every club runs somewhere and the
restarted worker holds its share again (the others shed to it) before the next kill.

After the last kill the duellists stop posting, the workers settle (every turn already posted
declared and every declaration published, or ``--settle`` seconds), and the boards are
counted against the databases: **duplicates** (a marker more than once on a board),
**missing** (a declaration the database says is published that its board lacks), **owed**
(a duel not finished whose duellists' last turn never got its declaration), **unrecorded**
(a marker on a board that no published row holds) and **unsettled** (rows still not
published).
"""

from __future__ import annotations

import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
from bench_scale import CONFIG
from crash_test import BOT, PASSWORD_ENV, SPELLS, markers_in, open_duel_topic, post_turn

from forumbot.sandbox import SandboxBoard
from forumbot.storage.engine import split_schema


def with_schema(base: str, schema: str) -> str:
    """``base`` with ``schema=`` set."""
    return f"{base}{'&' if '?' in base else '?'}schema={schema}"


def health(port: int) -> dict[str, Any]:
    """A worker's whole ``/healthz`` answer ({} when it does not answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
            return dict(json.loads(resp.read()))
    except (OSError, ValueError):
        return {}


def running_here(answer: dict[str, Any]) -> set[str]:
    """The clubs a worker's answer shows running there with a poll done."""
    clubs = answer.get("clubs", {})
    return {
        n for n, c in clubs.items()
        if c.get("held_here") and c.get("state") == "running" and c.get("last_poll_at")
    }  # fmt: skip


@dataclass
class Worker:
    """One serve subprocess (restarted under the same id)."""

    name: str
    port: int
    work: Path
    lease_url: str
    ttl_s: float
    proc: subprocess.Popen[bytes] | None = None
    starts: int = 0

    def start(self) -> None:
        env = {**os.environ, PASSWORD_ENV: "pw-bot"}
        env.pop("FORUMBOT_CRASH_POINT", None)
        self.starts += 1
        with open(self.work / f"{self.name}.log", "ab") as log:
            log.write(f"\n===== start {self.starts} =====\n".encode())
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "forumbot", "serve", "--boards",
                 str(self.work / "boards"), "--lease-url", self.lease_url,
                 "--lease-ttl", str(self.ttl_s), "--worker-id", self.name,
                 "--health-port", str(self.port), "--workers", "4"],  # fmt: skip
                cwd=self.work, env=env, stdout=subprocess.DEVNULL, stderr=log,
            )  # fmt: skip

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=60)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.kill()


class Databases:
    """Reads of the clubs' schemas (one connection, autocommit)."""

    def __init__(self, base: str, schemas: list[str]) -> None:
        self.conn = psycopg.connect(split_schema(base)[0], autocommit=True)
        self.schemas = schemas

    def duel_status(self, b: int) -> dict[int, str]:
        try:
            rows = self.conn.execute(f'select topic_id, status from "{self.schemas[b]}".duels')
            return {int(t): str(s) for t, s in rows.fetchall()}
        except psycopg.Error:
            return {}

    def declarations(self, b: int) -> list[tuple[str, str]]:
        try:
            rows = self.conn.execute(
                f'select idempotency_key, status from "{self.schemas[b]}".declarations'
            )
            return [(str(k), str(s)) for k, s in rows.fetchall()]
        except psycopg.Error:
            return []

    def drop(self, names: list[str]) -> None:
        for name in names:
            self.conn.execute(f'drop schema if exists "{name}" cascade')
        self.conn.close()


@dataclass
class Duellists:
    """One duel at a time per board, answered as declarations appear (module doc)."""

    boards: list[SandboxBoard]
    dbs: Databases
    rng: random.Random = field(default_factory=lambda: random.Random(27))
    topics: dict[int, list[int]] = field(default_factory=dict)  # board -> its duel topics
    answered: dict[tuple[int, int], int] = field(default_factory=dict)
    pairs: dict[tuple[int, int], tuple[str, str]] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _numbers: int = 0

    def open(self, b: int) -> None:
        self._numbers += 1
        a, c = f"Duelliste {b}-{self._numbers}a", f"Duelliste {b}-{self._numbers}b"
        topic = open_duel_topic(self.boards[b], a, c, self._numbers)
        self.topics.setdefault(b, []).append(topic)
        self.pairs[(b, topic)] = (a, c)

    def shown(self, b: int, topic: int) -> int:
        bot = self.boards[b].user_id(BOT)
        return sum(len(markers_in(p.text)) for p in self.boards[b].posts(topic)
                   if p.poster_id == bot)  # fmt: skip

    def step(self, open_new: bool) -> None:
        for b in range(len(self.boards)):
            status = self.dbs.duel_status(b)
            topic = self.topics[b][-1]
            if status.get(topic) == "finished":
                if open_new:
                    self.open(b)
                continue
            shown = self.shown(b, topic)
            if shown > self.answered.get((b, topic), 0):
                self.answered[(b, topic)] = shown
                for who in self.pairs[(b, topic)]:
                    post_turn(self.boards[b], topic, who, self.rng.choice(SPELLS))

    def owed(self) -> int:
        """Duels whose duellists posted a turn the bot has not declared yet (not finished)."""
        count = 0
        for (b, topic), done in self.answered.items():
            if self.dbs.duel_status(b).get(topic) != "finished" and self.shown(b, topic) <= done:
                count += 1
        return count

    def run(self, keep_opening: threading.Event) -> threading.Thread:
        def loop() -> None:
            while not self._stop.wait(0.3):
                try:
                    self.step(open_new=keep_opening.is_set())
                except Exception as exc:  # a read while a worker dies: try again
                    print(f"duellists: {type(exc).__name__}: {exc}", file=sys.stderr)

        thread = threading.Thread(target=loop, name="duellists", daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        self._stop.set()


def wait_until(check: Any, timeout_s: float, what: str) -> float:
    """Poll ``check()`` every 0.25 s; the monotonic time it first held. Raises SystemExit
    after ``timeout_s`` (a bound on failure, never a measurement)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return time.monotonic()
        time.sleep(0.25)
    raise SystemExit(f"timed out after {timeout_s:.0f} s waiting for {what}")


def run_takeovers(
    n: int, workers: int, kills: int, poll_s: float, ttl_s: float, settle_s: float,
    pg_url: str, work: Path, seed: int = 27,
) -> dict[str, Any]:  # fmt: skip
    """The kill loop (module doc) in ``work``; returns the figures."""
    from bench_serve import free_port

    run_id = uuid.uuid4().hex[:8]
    schemas = [f"bench_{run_id}_c{i}" for i in range(n)]
    lease_schema = f"bench_{run_id}_leases"
    lease_url = with_schema(pg_url, lease_schema)
    boards, urls = [], []
    for _ in range(n):
        board = SandboxBoard(flood_interval_s=0, state_path=None)
        board.add_user(BOT, "pw-bot", ignore_flood=True)
        board.add_user("Arbitre", "a")
        urls.append(board.start())
        boards.append(board)
    folder = work / "boards"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        path = folder / f"club{i}.toml"
        path.write_text(CONFIG.format(url=urls[i], bot=BOT, password_env=PASSWORD_ENV,
                                      poll=poll_s, database=with_schema(pg_url, schemas[i])),
                        encoding="utf-8")  # fmt: skip
        path.chmod(0o600)
    names = {f"club{i}" for i in range(n)}
    pool = [Worker(f"w{k + 1}", free_port(), work, lease_url, ttl_s) for k in range(workers)]
    dbs = Databases(pg_url, schemas)
    rng = random.Random(seed)
    duellists = Duellists(boards, dbs)
    keep_opening = threading.Event()
    keep_opening.set()
    takeovers: list[float] = []
    per_kill: list[dict[str, Any]] = []
    figures: dict[str, Any] = {"boards": n, "pg_workers": workers, "kills": kills,
                               "poll_s": poll_s, "ttl_s": ttl_s}  # fmt: skip

    def everywhere() -> dict[str, str]:
        out: dict[str, str] = {}
        for w in pool:
            if w.alive():
                for club in running_here(health(w.port)):
                    out[club] = w.name
        return out

    def balanced() -> bool:
        where = everywhere()
        counts = Counter(where.values())
        share = -(-n // workers)  # ceil
        return set(where) == names and all(counts[w.name] >= min(1, n) and
                                           counts[w.name] <= share + 1 for w in pool)  # fmt: skip

    began = time.monotonic()
    try:
        for w in pool:
            w.start()
        wait_until(balanced, 120 + 10 * n, "every club running, shared by the workers")
        for b in range(n):
            duellists.open(b)
        player = duellists.run(keep_opening)
        for k in range(kills):
            where = everywhere()
            victim = rng.choice([w for w in pool if w.name in where.values()])
            clubs = {c for c, w in where.items() if w == victim.name}
            victim.kill()
            killed_at = time.monotonic()
            taken: dict[str, float] = {}

            def taken_over(
                clubs: set[str] = clubs, taken: dict[str, float] = taken, at: float = killed_at
            ) -> bool:
                now_s = time.monotonic()
                for club in everywhere():
                    if club in clubs and club not in taken:
                        taken[club] = now_s - at
                return set(taken) == clubs

            wait_until(taken_over, 10 * ttl_s + 120, f"the takeover after kill {k + 1}")
            takeovers.extend(taken.values())
            per_kill.append({"victim": victim.name, "clubs": len(clubs),
                             "max_s": max(taken.values()) if taken else 0.0})  # fmt: skip
            print(f"kill {k + 1}/{kills}: {victim.name} ({len(clubs)} clubs) taken over in "
                  f"max {per_kill[-1]['max_s']:.1f} s", flush=True)  # fmt: skip
            victim.start()
            wait_until(balanced, 10 * ttl_s + 120, f"the share again after kill {k + 1}")
        keep_opening.clear()
        figures["loop_s"] = time.monotonic() - began
        duellists.stop()  # no new turn; the workers declare the turns already posted
        player.join(timeout=10)
        settled = time.monotonic() + settle_s
        while time.monotonic() < settled:  # the last turns declared, every row published
            rows = [s for b in range(n) for _, s in dbs.declarations(b)]
            if duellists.owed() == 0 and all(s == "published" for s in rows):
                break
            time.sleep(1)
    except BaseException:  # a timeout (SystemExit) or ^C: leave no schema behind
        for w in pool:
            w.stop()
        dbs.drop([*schemas, lease_schema])
        raise
    finally:
        for w in pool:
            w.stop()
        for board in boards:
            board.stop()
    duplicates = missing = unrecorded = unsettled = declarations = 0
    for b in range(n):
        rows = dbs.declarations(b)
        published = {k for k, s in rows if s == "published"}
        unsettled += sum(1 for _, s in rows if s != "published")
        on_board: Counter[str] = Counter()
        bot = boards[b].user_id(BOT)
        for topic in duellists.topics.get(b, []):
            for post in boards[b].posts(topic):
                if post.poster_id == bot:
                    on_board.update(markers_in(post.text))
        declarations += sum(on_board.values())
        duplicates += sum(c - 1 for c in on_board.values() if c > 1)
        missing += len(published - set(on_board))
        unrecorded += len(set(on_board) - published)
    owed = duellists.owed()
    dbs.drop([*schemas, lease_schema])
    figures.update(
        takeovers=len(takeovers),
        takeover_max_s=max(takeovers) if takeovers else float("nan"),
        takeover_median_s=statistics.median(takeovers) if takeovers else float("nan"),
        per_kill=per_kill, duplicates=duplicates, missing=missing, owed=owed,
        unrecorded=unrecorded,
        unsettled=unsettled, declarations=declarations,
        duels=sum(len(t) for t in duellists.topics.values()),
    )  # fmt: skip
    return figures


def takeover_table(f: dict[str, Any]) -> list[str]:
    """The figures as a Markdown table with the issue's targets."""
    bound = f["ttl_s"] + f["poll_s"]
    worst = max((k["max_s"] for k in f["per_kill"]), default=float("nan"))
    rows = [
        ("kills (SIGKILL, the killed worker restarted)", f"{f['kills']}", "30"),
        ("club takeovers measured", f"{f['takeovers']}", "-"),
        ("takeover, median", f"{f['takeover_median_s']:.1f} s", f"<= TTL + P = {bound:.0f} s"),
        ("takeover, max", f"{worst:.1f} s", f"<= TTL + P = {bound:.0f} s"),
        ("declarations on the boards", f"{f['declarations']} in {f['duels']} duels", "-"),
        ("duplicates", f"{f['duplicates']}", "0"),
        ("missing (a published row not on its board)", f"{f['missing']}", "0"),
        ("turns posted but never declared (duel not finished)", f"{f['owed']}", "0"),
        ("unrecorded (on a board, not a published row)", f"{f['unrecorded']}", "0"),
        ("unsettled (rows not published at the end)", f"{f['unsettled']}", "0"),
    ]
    out = [
        f"N = {f['boards']} clubs, {f['pg_workers']} serve workers on PostgreSQL, lease TTL "
        f"{f['ttl_s']} s, P = {f['poll_s']} s, {f['kills']} kills in {f['loop_s']:.0f} s",
        "",
        "| figure | measured | target |",
        "|---|---|---|",
    ]
    return out + [f"| {a} | {b} | {c} |" for a, b, c in rows]


__all__ = ["run_takeovers", "takeover_table"]
