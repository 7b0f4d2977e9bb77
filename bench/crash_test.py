"""Crash test: SIGKILL ``forumbot run`` at random moments, restart it, count declarations.

The sandbox phpBB board runs in a thread of this process and persists its state to a JSON file
(``state_path``); ``forumbot run`` runs as a subprocess (poll and publish every second, review
delay 0) and refereees a set of duels while scripted duellists answer every declaration they see
on the board. Each *run* starts the bot and kills it with SIGKILL:

* ``random``: after a random delay (``--min-delay`` .. ``--max-delay`` seconds);
* ``before_post`` / ``after_post``: with ``FORUMBOT_CRASH_POINT`` set, the bot kills itself on
  the publish path, just before the reply POST or just after it (before the row is marked
  published); if it has not reached that point within ``--point-timeout`` seconds it is killed
  anyway (counted as ``point_timeout``).

When a duel finishes while runs remain, a new duel topic is opened so every run has work. After
the last run, one clean run (no kill) drives the open duels to their end (or until
``--final-timeout``) and is stopped with SIGTERM. Then the board is counted:

* **duplicates**: extra copies of a declaration marker (``forumbot·<key>``) on the board;
* **missing**: declarations the bot's database says are published but the board lacks;
* **unrecorded**: markers on the board that are not a published row of the database;
* **stuck**: rows still ``publishing`` after the clean run;
* **owls** (private messages): counted the same way when the database has an ``owls`` table;
  otherwise the number of PMs the bot sent is printed (the classic flow sends none).

    python bench/crash_test.py --runs 100 [--duels 3 --seed 7]
    python bench/crash_test.py --restore --runs 60

``--restore`` (issue 22): between runs, while the bot is dead, the database is backed up at
random (``forumbot.ops.backup.backup``, ``--backup-share`` of the gaps) and an older backup is
restored at random (``forumbot.ops.backup.restore``, ``--restore-share`` of the gaps), so the
bot restarts on a database that has forgotten declarations it already posted. The same
counts apply: 0 duplicates, 0 missing, 0 unrecorded (every marker on the board is a published
row again once the clean run has read the topics).

Exit status 0 when duplicates, missing, unrecorded and stuck are all 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from forumbot.sandbox import SandboxBoard

BOT = "Hibou"
PASSWORD_ENV = "FORUMBOT_CRASH_PASSWORD"
MARKER = "forumbot·"
# ``forumbot·<key>·`` (render.marker_text; the closing ``·`` makes it a whole token). Up to
# the closing ``·`` a key may hold spaces (old reminder keys ``…-owl17-Rosalind Vexley``);
# without a closing ``·`` it stops at the first space.
MARKER_RE = re.compile(r"forumbot·(?:([^\s·\[\]]+(?: [^\s·\[\]]+){0,3})·|([^\s·\[\]]+))")
CRASH_POINTS = ("before_post", "after_post")
SPELLS = ("Sortilège de Désarmement", "Sortilège de Chatouillis", "Sortilège du Saucisson")
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
poll_interval_s = 1
publish_interval_s = 1
flood_interval_s = 1
[storage]
{storage}
[[watch]]
forum_id = 3
"""


@dataclass
class CrashFigures:
    """What a crash test did and found.

    Attributes:
        runs: bot starts that ended in a SIGKILL (the clean final run is not counted).
        kills: SIGKILLs by kind: ``random``, ``before_post``, ``after_post``, ``point_timeout``.
        declarations: distinct declaration markers on the board.
        published_rows: declarations the bot's database marks ``published``.
        duplicates: extra copies of a marker on the board (sum of count - 1).
        missing: published rows whose marker is not on the board.
        unrecorded: markers on the board with no published row.
        stuck: rows left ``publishing`` (declarations) or ``sending`` (owls) after the clean
            run.
        pending: drafts not yet published when the clean run ended (0 when it was clean).
        duels_opened, duels_finished: duel topics opened and finished.
        cut_requests: HTTP requests whose connection a kill cut (the board saw a reset).
        owls_table: whether the bot's database has an ``owls`` table.
        owls_sent, owl_duplicates, owls_missing, owls_unrecorded: owls counted on the board
            (PMs from the bot) against the ``owls`` rows marked ``sent``.
        final_clean: the clean run reached quiescence before its timeout.
        elapsed_s: wall-clock seconds of the whole test.
        backups, restores: database backups taken and older backups restored (``--restore``).
        mismatch_tasks: ``publish_mismatch`` referee tasks (a declaration found on the board
            with other numbers than the restored database's draft).
    """

    runs: int = 0
    kills: Counter[str] = field(default_factory=Counter)
    declarations: int = 0
    published_rows: int = 0
    duplicates: int = 0
    missing: int = 0
    unrecorded: int = 0
    stuck: int = 0
    pending: int = 0
    duels_opened: int = 0
    duels_finished: int = 0
    cut_requests: int = 0
    owls_table: bool = False
    owls_sent: int = 0
    owl_duplicates: int = 0
    owls_missing: int = 0
    owls_unrecorded: int = 0
    final_clean: bool = False
    elapsed_s: float = 0.0
    backups: int = 0
    restores: int = 0
    mismatch_tasks: int = 0

    @property
    def ok(self) -> bool:
        """True when nothing was duplicated, lost, unrecorded or left stuck."""
        return not (
            self.duplicates
            or self.missing
            or self.unrecorded
            or self.stuck
            or self.owl_duplicates
            or self.owls_missing
            or self.owls_unrecorded
        )

    def lines(self) -> list[str]:
        """The figures as printable lines."""
        kills = ", ".join(f"{k} {v}" for k, v in sorted(self.kills.items())) or "none"
        out = [
            f"runs (SIGKILLed starts): {self.runs}",
            f"kills: {kills}",
            f"duels: {self.duels_opened} opened, {self.duels_finished} finished",
            f"requests cut by a kill (connection reset seen by the board): {self.cut_requests}",
            f"declarations on the board: {self.declarations} "
            f"(published rows in the database: {self.published_rows})",
            f"duplicates: {self.duplicates}",
            f"missing: {self.missing}",
            f"unrecorded markers: {self.unrecorded}",
            f"left publishing after the clean run: {self.stuck}",
            f"drafts still pending after the clean run: {self.pending}",
        ]
        if self.owls_table:
            out.append(
                f"owls: {self.owls_sent} on the board, {self.owl_duplicates} duplicates, "
                f"{self.owls_missing} missing, {self.owls_unrecorded} unrecorded"
                + (
                    " (the bot sent none: the classic flow sends no owls)"
                    if not self.owls_sent
                    else ""
                )
            )
        else:
            out.append(
                f"owls: no owls table in the bot's database; PMs sent by the bot: "
                f"{self.owls_sent} (the classic flow sends none)"
            )
        if self.backups or self.restores:
            out.append(
                f"restore mode: {self.backups} backups taken, {self.restores} older backups "
                f"restored; referee tasks for a differing version on the board: "
                f"{self.mismatch_tasks}"
            )
        out.append(f"final clean run reached quiescence: {self.final_clean}")
        out.append(f"time: {self.elapsed_s:.0f} s")
        out.append("RESULT: " + ("OK" if self.ok else "FAILED"))
        return out


def markers_in(text: str) -> list[str]:
    """Idempotency keys of the ``forumbot·<key>`` markers in a post's BBCode text."""
    return [closed or bare for closed, bare in MARKER_RE.findall(text)]


class Database:
    """Read-only peeks into the bot's SQLite file, or its PostgreSQL schema when ``url`` is
    given (``--storage-url``, issue 27); tolerates absence and locks."""

    def __init__(self, path: Path, url: str | None = None) -> None:
        self.path = path
        self.url = url

    def _pg_rows(self, sql: str, args: tuple[object, ...]) -> list[tuple[object, ...]]:
        import psycopg

        from forumbot.storage.engine import connect_pg

        try:
            raw = connect_pg(self.url or "")
        except Exception:
            return []
        try:
            return list(raw.execute(sql.replace("?", "%s"), args).fetchall())
        except psycopg.Error:
            return []
        finally:
            raw.close()

    def rows(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        """Rows of ``sql``; [] when the file or table does not exist yet or is locked."""
        if self.url:
            return self._pg_rows(sql, args)
        if not self.path.exists():
            return []
        try:
            con = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=5)
        except sqlite3.OperationalError:
            return []
        try:
            return con.execute(sql, args).fetchall()
        except sqlite3.OperationalError:
            return []
        finally:
            con.close()

    def duel_status(self) -> dict[int, str]:
        """Topic id -> duel status."""
        return {int(t): str(s) for t, s in self.rows("select topic_id, status from duels")}  # type: ignore[call-overload]

    def has_table(self, name: str) -> bool:
        """True when the bot's database has table ``name``."""
        if self.url:
            found = "select 1 from information_schema.tables where table_schema = "
            return bool(self.rows(found + "current_schema() and table_name = ?", (name,)))
        return bool(
            self.rows("select 1 from sqlite_master where type = 'table' and name = ?", (name,))
        )


def open_duel_topic(board: SandboxBoard, a: str, b: str, number: int) -> int:
    """Create duellists ``a`` and ``b`` and a classic duel topic for them in forum 3 (the
    opening post names their years); returns the topic id."""
    for name in (a, b):
        board.add_user(name, "x")
    return board.create_topic(
        3,
        "Arbitre",
        f"Duel n°{number} : {a} contre {b}",
        f"Les adversaires : {a} (2e année) contre {b} (3e année).",
    )


def declarations_shown(board: SandboxBoard, topic: int) -> int:
    """How many bot markers the topic shows (one per published declaration)."""
    bot = board.user_id(BOT)
    return sum(len(markers_in(p.text)) for p in board.posts(topic) if p.poster_id == bot)


def post_turn(board: SandboxBoard, topic: int, who: str, spell: str) -> None:
    """``who``'s scripted turn: a salute line, a flourish line, the bold spell."""
    board.post_reply(topic, who, f"{who} salue.\nPuis lève sa baguette.\n[b]{spell}[/b]")


class Duellists:
    """Scripted duellists: in every duel topic, when a new bot declaration appears on the
    board (and the bot's database does not say the duel is finished), both duellists post
    their turn (a salute line, a flourish line, a bold spell)."""

    def __init__(self, board: SandboxBoard, db: Database, rng: random.Random) -> None:
        self.board = board
        self.db = db
        self.rng = rng
        self.pairs: dict[int, tuple[str, str]] = {}
        self.answered: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def open_duel(self, number: int) -> int:
        """Create two duellists and a duel topic for them; returns the topic id."""
        a, b = f"Duelliste {2 * number}", f"Duelliste {2 * number + 1}"
        topic = open_duel_topic(self.board, a, b, number)
        with self._lock:
            self.pairs[topic] = (a, b)
        return topic

    def step(self) -> None:
        """Answer every declaration that appeared since the last step."""
        status = self.db.duel_status()
        with self._lock:
            pairs = dict(self.pairs)
        for topic, (a, b) in pairs.items():
            if status.get(topic) == "finished":
                continue
            shown = declarations_shown(self.board, topic)
            if shown > self.answered.get(topic, 0):
                self.answered[topic] = shown
                for who in (a, b):
                    post_turn(self.board, topic, who, self.rng.choice(SPELLS))

    def start(self) -> None:
        """Answer in a background thread every 0.2 s."""
        self._stop.clear()

        def loop() -> None:
            while not self._stop.wait(0.2):
                self.step()

        self._thread = threading.Thread(target=loop, name="duellists", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop answering."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None


def start_bot(work: Path, crash_point: str | None) -> subprocess.Popen[bytes]:
    """``python -m forumbot run`` in ``work`` (stderr appended to ``bot.log``)."""
    env = {**os.environ, PASSWORD_ENV: "pw-bot"}
    env.pop("FORUMBOT_CRASH_POINT", None)
    if crash_point:
        env["FORUMBOT_CRASH_POINT"] = crash_point
    with open(work / "bot.log", "ab") as log:
        log.write(f"\n===== start (crash point: {crash_point}) =====\n".encode())
        return subprocess.Popen(
            [sys.executable, "-m", "forumbot", "run", "-c", str(work / "forumbot.toml")],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )


def kill(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL ``proc`` (if still alive) and reap it."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)


def count_board(board: SandboxBoard, topics: list[int]) -> Counter[str]:
    """Declaration markers in the bot's posts of ``topics``: key -> copies."""
    bot_id = board.user_id(BOT)
    counts: Counter[str] = Counter()
    for topic in topics:
        for post in board.posts(topic):
            if post.poster_id == bot_id:
                counts.update(markers_in(post.text))
    return counts


def quiescent(db: Database, topics: list[int]) -> bool:
    """Every duel finished and nothing left to publish."""
    status = db.duel_status()
    if not topics or any(status.get(t) != "finished" for t in topics):
        return False
    pending = db.rows(
        "select count(*) from declarations where status in ('publishing', 'draft', 'approved')"
    )
    return bool(pending) and pending[0][0] == 0


def run_crash_test(
    runs: int,
    work: Path,
    *,
    duels: int = 3,
    seed: int = 7,
    point_share: float = 0.6,
    min_delay_s: float = 0.3,
    max_delay_s: float = 4.0,
    point_timeout_s: float = 12.0,
    final_timeout_s: float = 240.0,
    backup_share: float = 0.0,
    restore_share: float = 0.0,
    say: Callable[[str], None] = print,
    storage_url: str | None = None,
) -> CrashFigures:
    """Run the crash test in directory ``work``; returns the figures (see module docstring).

    ``point_share`` of the runs use a crash point (alternating ``before_post`` and
    ``after_post`` at random), the rest a random delay. Before a run (the bot dead),
    ``backup_share`` of the time the database is backed up and ``restore_share`` of the time
    an older backup (one at random) is restored. ``say`` receives progress lines.
    ``storage_url``: the bot's database is that PostgreSQL URL (a schema of its own; no
    backups there) instead of ``crash.db``.
    """
    from datetime import UTC, datetime

    from forumbot.ops.backup import backup, restore

    started = time.monotonic()
    rng = random.Random(seed)
    work.mkdir(parents=True, exist_ok=True)
    figures = CrashFigures()
    board = SandboxBoard(flood_interval_s=0, state_path=work / "board.json")
    board.add_user(BOT, "pw-bot", ignore_flood=True)
    board.add_user("Arbitre", "a")
    url = board.start()
    server = board._server  # a kill mid-request resets the connection: count it, quietly
    if server is not None:

        def cut(request: object, client_address: object) -> None:
            figures.cut_requests += 1

        server.handle_error = cut  # type: ignore[method-assign]
    db = Database(work / "crash.db", storage_url)
    players = Duellists(board, db, random.Random(seed + 1))
    topics = [players.open_duel(i) for i in range(duels)]
    (work / "forumbot.toml").write_text(
        CONFIG.format(url=url, bot=BOT, password_env=PASSWORD_ENV, storage=(
            f'url = "{storage_url}"\nbackup_keep = 0' if storage_url else 'database = "crash.db"'
        )), encoding="utf-8"
    )
    replaced: set[int] = set()
    saved: list[Path] = []
    players.start()
    try:
        for run in range(runs):
            database = work / "crash.db"
            if database.exists() and rng.random() < backup_share:
                saved.append(backup(database, work / "backups" / f"run{run:03d}",
                                    datetime.now(UTC)))  # fmt: skip
                figures.backups += 1
            if saved and rng.random() < restore_share:
                older = rng.choice(saved)
                restore(older, database, now=datetime.now(UTC))
                figures.restores += 1
                say(f"  run {run + 1}: restored {older.parent.name}")
            status = db.duel_status()
            for topic in list(topics):
                if status.get(topic) == "finished" and topic not in replaced:
                    replaced.add(topic)
                    topics.append(players.open_duel(len(topics)))
            point = rng.choice(CRASH_POINTS) if rng.random() < point_share else None
            bot = start_bot(work, point)
            if point is None:
                time.sleep(rng.uniform(min_delay_s, max_delay_s))
                kind = "random"
                kill(bot)
            else:
                try:
                    code = bot.wait(timeout=point_timeout_s)
                    kind = point if code == -signal.SIGKILL else f"exit {code}"
                except subprocess.TimeoutExpired:
                    kind = "point_timeout"
                    kill(bot)
            figures.kills[kind] += 1
            figures.runs += 1
            if (run + 1) % 10 == 0:
                say(f"  run {run + 1}/{runs}: kills so far {dict(figures.kills)}")
        # the clean run: no kill; duellists keep answering until every duel is over
        bot = start_bot(work, None)
        try:
            deadline = time.monotonic() + final_timeout_s
            while time.monotonic() < deadline and bot.poll() is None:
                if quiescent(db, topics):
                    figures.final_clean = True
                    break
                time.sleep(0.5)
        finally:
            if bot.poll() is None:
                bot.terminate()
            bot.wait(timeout=30)
    finally:
        players.stop()
        board.stop()

    counts = count_board(board, topics)
    published = {
        str(k)
        for (k,) in db.rows("select idempotency_key from declarations where status = 'published'")
    }
    figures.declarations = len(counts)
    figures.published_rows = len(published)
    figures.duplicates = sum(n - 1 for n in counts.values() if n > 1)
    figures.missing = len(published - set(counts))
    figures.unrecorded = len(set(counts) - published)
    stuck = db.rows("select count(*) from declarations where status = 'publishing'")
    figures.stuck = int(stuck[0][0]) if stuck else 0  # type: ignore[call-overload]
    pending = db.rows("select count(*) from declarations where status in ('draft', 'approved')")
    figures.pending = int(pending[0][0]) if pending else 0  # type: ignore[call-overload]
    status = db.duel_status()
    figures.duels_opened = len(topics)
    figures.duels_finished = sum(1 for t in topics if status.get(t) == "finished")
    owls_on_board = Counter(
        key
        for pm in board.pms()
        if pm.author_id == board.user_id(BOT)
        for key in markers_in(pm.text)
    )
    figures.owls_sent = sum(1 for pm in board.pms() if pm.author_id == board.user_id(BOT))
    figures.owls_table = db.has_table("owls")
    if figures.owls_table:
        sent = {
            str(k) for (k,) in db.rows("select idempotency_key from owls where status = 'sent'")
        }
        figures.owl_duplicates = sum(n - 1 for n in owls_on_board.values() if n > 1)
        figures.owls_missing = len(sent - set(owls_on_board))
        figures.owls_unrecorded = len(set(owls_on_board) - sent)
        sending = db.rows("select count(*) from owls where status = 'sending'")
        figures.stuck += int(sending[0][0]) if sending else 0  # type: ignore[call-overload]
    tasks = db.rows("select count(*) from referee_tasks where kind = 'publish_mismatch'")
    figures.mismatch_tasks = int(tasks[0][0]) if tasks else 0  # type: ignore[call-overload]
    figures.elapsed_s = time.monotonic() - started
    (work / "figures.json").write_text(
        json.dumps({**figures.__dict__, "kills": dict(figures.kills)}, indent=1), encoding="utf-8"
    )
    return figures


def main() -> None:
    """Command line: ``python bench/crash_test.py --runs 100``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--duels", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--point-share", type=float, default=0.6)
    parser.add_argument("--min-delay", type=float, default=0.3)
    parser.add_argument("--max-delay", type=float, default=4.0)
    parser.add_argument("--point-timeout", type=float, default=12.0)
    parser.add_argument("--final-timeout", type=float, default=240.0)
    parser.add_argument("--work", default=None, help="directory (default: a new temp dir)")
    parser.add_argument(
        "--restore", action="store_true",
        help="back the database up and restore older backups between runs (issue 22)",
    )  # fmt: skip
    parser.add_argument("--backup-share", type=float, default=0.3)
    parser.add_argument(
        "--storage-url", default=None,
        help="run the bot on this PostgreSQL database (postgresql://...?schema=NAME; issue 27)",
    )  # fmt: skip
    parser.add_argument("--restore-share", type=float, default=0.25)
    args = parser.parse_args()
    if args.storage_url and args.restore:
        parser.error("--restore copies SQLite files: not with --storage-url")
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="forumbot-crash-"))
    mode = " (restore mode)" if args.restore else ""
    mode += f" on {args.storage_url}" if args.storage_url else ""
    print(f"crash test{mode}: {args.runs} runs, {args.duels} duels, seed {args.seed}, in {work}")
    figures = run_crash_test(
        args.runs,
        work,
        duels=args.duels,
        seed=args.seed,
        point_share=args.point_share,
        min_delay_s=args.min_delay,
        max_delay_s=args.max_delay,
        point_timeout_s=args.point_timeout,
        final_timeout_s=args.final_timeout,
        backup_share=args.backup_share if args.restore else 0.0,
        restore_share=args.restore_share if args.restore else 0.0,
        storage_url=args.storage_url,
    )
    for line in figures.lines():
        print(line)
    sys.exit(0 if figures.ok else 1)


if __name__ == "__main__":
    main()
