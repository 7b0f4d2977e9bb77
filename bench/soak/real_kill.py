"""A real ``kill -9`` in the soak (``--real-kills K``): the in-process bot hands over to a real
bot process (this file run as a program: the same :func:`forumbot.app.bootstrap` wiring as
``forumbot run``, its poll and publish jobs in a loop) that talks to the sandbox board over
its HTTP server on 127.0.0.1, and the soak SIGKILLs that process:

- ``before`` / ``after``: when the board receives the process's n-th write (a ``posting.php``
  or PM ``ucp.php`` POST; n drawn from 1-3), the board's request handler (its server thread)
  sends SIGKILL to the process either before it handles the request (the board never took
  it) or after (the board took it; the process dies before it reads the answer, let alone
  records it);
- ``idle``: the process made fewer writes in its cycles; it is killed while it waits.

The process's SQLite connection is left as a killed process leaves it (WAL, an open
transaction rolled back at the next open); the in-process bot is then bootstrapped again on
the same database and must recover (markers looked for, nothing posted twice, nothing lost).

Time: while the process runs, the soak's fake clock moves at :data:`SPEED` times the wall
clock (the board checks a form's age on it), and the process's own clock sleeps for real at
the same rate. Each real kill costs a process start (about 2 CPU seconds) and a few wall
seconds.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from soak.world import World

SPEED = 100.0
"""Fake seconds per wall second while the real process runs."""
CYCLES = 8
"""Poll + publish cycles of the real process (:data:`GAP_S` apart) before it is killed idle."""
GAP_S = 120.0
"""Fake seconds between two cycles of the real process (8 cycles: past a 10-minute review
delay, so a draft waiting when it starts is published by it)."""
WALL_LIMIT_S = 60.0
"""The longest the soak waits for the real process before killing it anyway."""
CONFIG_FILE = "forumbot.toml"
DONE_FILE = "real-kill-cycles.done"
"""Written by the real process once its cycles are done (it is then killed idle)."""


@dataclass
class RealKill:
    """The kill armed in the board's request handler: at the ``countdown``-th write of
    process ``pid``, ``when`` (``before`` / ``after``) the board handles it."""

    pid: int
    countdown: int
    when: str
    fired: str | None = None

    def on_request(self, method: str, path: str, query: dict[str, Any]) -> str | None:
        """``"before"`` / ``"after"`` when this request is the one to die on, else None."""
        if self.fired is not None or method != "POST":
            return None
        write = path.endswith("posting.php") or (
            path.endswith("ucp.php") and query.get("i") == "pm")  # fmt: skip
        if not write:
            return None
        self.countdown -= 1
        if self.countdown > 0:
            return None
        self.fired = self.when
        return self.when

    def kill(self) -> None:
        """SIGKILL the process (it may be gone already)."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def writes_waiting(world: World) -> bool:
    """True when the bot has something to post soon: a draft or an approved declaration, an
    owl or a club post not sent yet (the real process then dies mid-write, not idle)."""
    assert world.bot is not None
    db = world.bot.storage.db
    return any(db.execute(sql).fetchone()[0] for sql in (
        "select count(*) from declarations where status in ('draft', 'approved')",
        "select count(*) from owls where status in ('pending', 'sending')",
    ))  # fmt: skip


def run_real_kill(world: World, rng: random.Random) -> str:
    """Hand the bot over to a real process, SIGKILL it (module doc), start the in-process
    bot again. Returns how it died: ``before``, ``after`` or ``idle``."""
    assert world.bot is not None and world.board.base_url
    world.bot.close()
    world.bot = None
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(root / "bench"), env.get("PYTHONPATH", "")])
    seed = world.seed * 104729 + world.kills
    with (world.folder / "real-kills.log").open("a", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, __file__, str(world.folder), repr(world.clock()), str(seed)],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
    plan = RealKill(proc.pid, rng.randint(1, 3), rng.choice(("before", "after")))
    world.real_kill = plan
    started = time.monotonic()
    try:
        done = world.folder / DONE_FILE
        done.unlink(missing_ok=True)
        while (proc.poll() is None and not done.exists()
               and time.monotonic() - started < WALL_LIMIT_S):  # fmt: skip
            time.sleep(0.05)
            world.clock.sleep(SPEED * 0.05)
        plan.kill()  # idle (or past the limit): killed while it waits
        proc.wait()
    finally:
        world.real_kill = None
    how = plan.fired or "idle"
    world.killed_for_real(how)
    return how


class PacedClock:
    """The real process's clock: epoch seconds from ``start``; :meth:`sleep` waits for real,
    :data:`SPEED` times faster (the soak's clock moves at that rate meanwhile)."""

    def __init__(self, start: float) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass (``seconds / SPEED`` of real waiting)."""
        seconds = max(0.0, seconds)
        time.sleep(seconds / SPEED)
        self.now += seconds

    def utc(self) -> datetime:
        """The clock as an aware UTC datetime."""
        return datetime.fromtimestamp(self.now, UTC)


def child_main(argv: list[str]) -> int:
    """The real bot process: ``real_kill.py FOLDER START_EPOCH SEED``. Runs :data:`CYCLES`
    poll + publish cycles on the soak's configuration (``FOLDER/forumbot.toml``), then waits
    for its SIGKILL. The notify job does not run here (notices are counted where they arrive,
    in the soak's process)."""
    from forumbot.app import bootstrap
    from forumbot.config import parse_config
    from soak.world import BOT_PASSWORD

    folder, start, seed = Path(argv[0]), float(argv[1]), int(argv[2])
    config = parse_config((folder / CONFIG_FILE).read_text(encoding="utf-8"), folder)
    clock = PacedClock(start)
    bot = bootstrap(
        config, password=BOT_PASSWORD, now=clock.utc, rng=random.Random(seed),
        sleep=clock.sleep, clock=clock,
    )  # fmt: skip
    for _ in range(CYCLES):
        for job in (bot.poll, bot.publish):
            try:
                print(f"{job.__name__}: {job()}", flush=True)
            except Exception as exc:  # noqa: BLE001 - as the scheduler's guard: next cycle
                print(f"{job.__name__} failed: {type(exc).__name__}: {exc}", flush=True)
        clock.sleep(GAP_S)
    (folder / DONE_FILE).write_text("done\n", encoding="utf-8")
    time.sleep(WALL_LIMIT_S)  # killed while it waits
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
