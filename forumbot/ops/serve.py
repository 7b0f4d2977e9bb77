"""``forumbot serve --boards DIR``: every club of a folder in one process (issue 27).

Each ``*.toml`` file of DIR is one club (:mod:`forumbot.ops.boards_dir`): its own board, bot
account, SQLite database and run lock, run by a :class:`~forumbot.ops.club_runner.ClubRunner`
through the single-board path of ``forumbot run`` (``bootstrap``, ``Bot.poll``,
``Bot.publish``, the notify pass, the daily backup).

**The worker pool.** :class:`Serve` owns one bounded pool shared by every club: ``workers``
slots (default :data:`DEFAULT_WORKERS`). Each :meth:`Serve.tick` hands the due jobs to free
slots by rank (:meth:`~forumbot.ops.club_runner.ClubRunner.rank`): a club's start and login,
and its jobs until its first poll, first; then stops, polls and kicked publishes, then the
periodic publish, notify and backup passes; within a rank earliest due first (ties: the club
served longest ago first). A poll is never queued behind the other clubs' periodic passes;
those still run in due order among themselves (polls come N / P a second). A club has at most
one job running, so a slow board holds one slot and its next job waits behind every job of its
rank due before it: no club can starve the others, and ``workers`` slow boards at most slow the
rest down (a pass is not cut in the middle: a declaration is never half published). Waits do
not hold a slot: the clubs' clients sleep through :meth:`Serve.pool_sleep` (phpBB's 1 s form
age, a flood wait, a retry's backoff), which frees the slot meanwhile (the pool has
:data:`THREADS_PER_WORKER` threads per slot); a ``Retry-After`` longer than ``inline_wait_s``
pauses that board only and reschedules it; a board down at login is tried again later. What
still holds a slot is a request in flight (bounded by the client's deadline).

**Changes without a restart.** :meth:`Serve.reload` (SIGHUP, or the folder watch every
``watch_interval_s`` seconds when set) reads DIR again: a new file starts its club, a removed
one stops its club cleanly (its running pass finishes, then logout, database closed), a changed
one (content, or just its mtime: ``touch``) restarts only that club. A file that does not load
is refused with its line (in the log and in the health answer); a club already running whose
file becomes invalid keeps running on the configuration it had (the refusal is reported beside
it) until the file is fixed.

**Several workers** (``--lease-url``, :mod:`forumbot.ops.leases`). Several serve processes
with the same folder share one PostgreSQL (each club a schema of the lease database): a club
runs only in the worker holding its lease. Every third of the lease TTL the loop renews its
leases and claims free or lapsed ones up to its fair share (clubs started), stops at once a
club whose lease it lost, and stops cleanly (then releases) the clubs above its share. Each
club's storage is fenced by its lease (:meth:`forumbot.storage.Storage.set_lease_fence`): its
publish claims win only while the lease is held. A clean stop releases every lease.

**Health.** ``GET /healthz`` (and ``/health``) on ``127.0.0.1:<health_port>``: the loop's own
status, and per club its state, last pass, last error and pause reason; ``GET /healthz/<club>``
answers that club alone, with 503 when it is not healthy. The whole-process answer is 200 as
long as the loop runs: one club's trouble must not make a supervisor restart every club.
Under leases each club says its ``holder``; a club another worker runs answers
``leased_elsewhere`` (200), one nobody holds yet ``unleased`` (503).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from forumbot.config import ConfigError
from forumbot.ops.boards_dir import ClubFile, dir_signature, read_boards, sharing_conflicts
from forumbot.ops.club_log import club_context
from forumbot.ops.club_runner import ClubRunner, MakeBot, default_make_bot
from forumbot.ops.leases import Leaser, lease_key, lease_refusal

THREADS_PER_WORKER = 4
"""Threads per worker slot: a job whose client waits (phpBB's 1 s form age, a flood wait, a
retry's backoff) gives its slot back while it sleeps, so the pool has more threads than
slots (each club still runs one job at a time)."""

log = logging.getLogger("forumbot.ops.serve")

DEFAULT_WORKERS = 4
"""Worker threads shared by all clubs (``serve --workers``)."""

DEFAULT_INLINE_WAIT_S = 5.0
"""Longest ``Retry-After`` a club's client waits in place (``serve --inline-wait``), seconds."""

LOOP_STALE_S = 60.0
"""Seconds without a loop tick before the health answer says ``stale`` (503)."""

MAX_IDLE_WAIT_S = 5.0
"""Longest the loop sleeps between two ticks when nothing is due, seconds (a job ending,
a kick or a signal wakes it at once)."""


class InlineExecutor(Executor):
    """Runs each job at once on the calling thread (tests on a fake clock: every step of the
    serve loop is deterministic)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` now; its result or exception in a done future."""
        future: Future[Any] = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            future.set_exception(exc)
        return future


class Serve:
    """The clubs of ``boards_dir`` on one bounded worker pool (module doc).

    Args:
        boards_dir: the folder of club files.
        workers: size of the shared pool (>= 1).
        clock: monotonic seconds (tests: the sandbox's fake clock).
        now: aware UTC datetimes.
        make_bot: wires a club's bot (default :func:`forumbot.app.bootstrap` with the
            client's waits going through :meth:`pool_sleep`).
        executor: runs the jobs (default a ``ThreadPoolExecutor`` of
            ``workers * THREADS_PER_WORKER`` threads; tests: :class:`InlineExecutor`).
        sleep: what :meth:`pool_sleep` waits with (default ``time.sleep``).
        inline_wait_s: see :data:`DEFAULT_INLINE_WAIT_S`.
        watch_interval_s: look at the folder's files every that many seconds and reload when
            one was added, removed or changed (0: only on SIGHUP / :meth:`reload`).
        leases: share the clubs with other workers on PostgreSQL (module doc, "Several
            workers"; :class:`forumbot.ops.leases.Leaser`); None: run every club.

    Raises:
        ValueError: ``workers`` < 1.
    """

    def __init__(
        self,
        boards_dir: str | Path,
        *,
        workers: int = DEFAULT_WORKERS,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        make_bot: MakeBot | None = None,
        executor: Executor | None = None,
        sleep: Callable[[float], None] = time.sleep,
        inline_wait_s: float = DEFAULT_INLINE_WAIT_S,
        watch_interval_s: float = 0.0,
        leases: Leaser | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be at least 1")
        self.boards_dir = Path(boards_dir)
        self.workers = workers
        self._clock = clock
        self._now = now
        self._make_bot: MakeBot = (
            make_bot if make_bot is not None else lambda c: default_make_bot(c, self.pool_sleep)
        )
        self.threads = workers * THREADS_PER_WORKER
        self._executor = (
            executor
            if executor is not None
            else ThreadPoolExecutor(self.threads, thread_name_prefix="forumbot-serve")
        )
        self._sleep = sleep
        self._sleeping = 0
        self.inline_wait_s = inline_wait_s
        self.watch_interval_s = watch_interval_s
        self._lock = threading.RLock()
        self.wakeup = threading.Event()
        self.runners: dict[str, ClubRunner] = {}
        self.refused: dict[str, dict[str, str]] = {}
        self._waiting: dict[str, ClubFile] = {}  # restarts waiting for the old runner to close
        self._in_flight = 0
        self._reload_asked = False
        self._stop_asked = False
        self._last_tick: float | None = None
        self._started_at = now()
        self._signature: tuple[tuple[str, int, int], ...] = ()
        self._next_watch = clock()
        self.leases = leases
        self._files: dict[str, ClubFile] = {}  # the valid clubs of the folder (leases: to run)

    # ------------------------------------------------------------------ reload

    def request_reload(self) -> None:
        """Ask the loop to :meth:`reload` at its next tick (the SIGHUP handler; thread-safe)."""
        self._reload_asked = True
        self.wakeup.set()

    def reload(self) -> dict[str, list[str]]:
        """Read the folder again and apply it (module doc, "Changes without a restart").

        Returns:
            ``{"started", "stopped", "restarted", "refused", "unchanged", "not_held"}``: club
            names (``not_held``: under leases, a club this worker holds no lease of yet).
        """
        report: dict[str, list[str]] = {
            k: [] for k in ("started", "stopped", "restarted", "refused", "unchanged", "not_held")
        }
        self._signature = dir_signature(self.boards_dir)
        try:
            files = read_boards(self.boards_dir)
        except ConfigError as exc:  # the folder itself is gone: keep what runs, say why
            log.error("reload: %s; clubs left as they are", exc)
            return report
        with self._lock:
            self._reload_asked = False
            found = {f.name: f for f in files}
            for name in sorted(set(self.runners) - set(found)):
                self._stop(name, "its file was removed")
                report["stopped"].append(name)
            for name in sorted(set(self._waiting) - set(found)):
                del self._waiting[name]
            running = [n for n in self.runners if n in found]
            conflicts = sharing_conflicts([self._current(f) for f in files], first=running)
            self.refused = {}
            self._files = {}
            for club in files:
                error = club.error or conflicts.get(club.name) or self._lease_refusal(club)
                runner = self.runners.get(club.name)
                if error is None:
                    self._files[club.name] = club
                elif runner is not None:  # it keeps running on the configuration it had
                    self._files[club.name] = runner.club
                if error is not None:
                    self.refused[club.name] = {"file": str(club.path), "error": error}
                    report["refused"].append(club.name)
                    with club_context(club.name):
                        kept = " (the club keeps its running configuration)" if runner else ""
                        log.error("club file refused%s: %s", kept, error)
                    continue
                if runner is None:
                    if club.name not in self._waiting and self._may_run(club):
                        self._start(club)
                        report["started"].append(club.name)
                    elif club.name not in self._waiting:
                        report["not_held"].append(club.name)  # leased elsewhere, or not yet
                    else:
                        self._waiting[club.name] = club
                elif runner.club.fingerprint != club.fingerprint or runner.stopping:
                    if not runner.stopping:
                        self._stop(club.name, "its file changed")
                    self._waiting[club.name] = club
                    report["restarted"].append(club.name)
                else:
                    report["unchanged"].append(club.name)
        log.info(
            "reload of %s: %s",
            self.boards_dir,
            ", ".join(f"{k} {v}" for k, v in report.items() if v) or "no club file",
        )
        self.wakeup.set()
        return report

    def _current(self, club: ClubFile) -> ClubFile:
        """A refused file of a running club counts with the running configuration in the
        sharing checks (it keeps running on it)."""
        runner = self.runners.get(club.name)
        if club.config is None and runner is not None:
            return runner.club
        return club

    def _lease_refusal(self, club: ClubFile) -> str | None:
        """Why a valid club cannot run under this worker's leases (None: it can)."""
        if self.leases is None or club.config is None or self.leases.lease_url is None:
            return None
        why = lease_refusal(club.config, self.leases.lease_url)
        return f"{club.path}: refused: {why}" if why else None

    def _may_run(self, club: ClubFile) -> bool:
        """True when this worker may run ``club`` now (no leases, or its lease is held)."""
        if self.leases is None:
            return True
        assert club.config is not None
        key = lease_key(club.config)
        return key in self.leases.held and key not in self.leases.shedding

    def _start(self, club: ClubFile) -> None:
        with club_context(club.name):
            log.info("club %s: starting from %s", club.name, club.path)
        fence = None
        if self.leases is not None:
            assert club.config is not None
            fence = self.leases.fence(lease_key(club.config))
        self.runners[club.name] = ClubRunner(
            club,
            clock=self._clock,
            now=self._now,
            make_bot=self._make_bot,
            inline_wait_s=self.inline_wait_s,
            wake=self.wakeup.set,
            fence=fence,
        )

    def _stop(self, name: str, why: str) -> None:
        runner = self.runners[name]
        with club_context(name):
            log.info("club %s: stopping (%s) after its running pass", name, why)
        runner.request_stop()

    # ------------------------------------------------------------------ the loop

    def tick(self) -> float | None:
        """One step of the loop: the lease round when due (:meth:`_lease_tick`), reap
        stopped clubs (starting a waiting restart), then hand the due jobs to the free
        workers by :meth:`ClubRunner.rank` (starts and logins, then polls and kicked
        publishes, then periodic passes), each rank earliest due first (ties: the club served
        longest ago). Returns the seconds until the next job is due (None: nothing scheduled)."""
        now_s = self._clock()
        self._last_tick = now_s
        if self._reload_asked:
            self.reload()
        if self.watch_interval_s > 0 and now_s >= self._next_watch:
            self._next_watch = now_s + self.watch_interval_s
            if dir_signature(self.boards_dir) != self._signature:
                log.info("the club folder changed: reloading")
                self.reload()
        due: list[tuple[int, float, float, str, str, ClubRunner]] = []
        with self._lock:
            self._lease_tick(now_s)
            for name, runner in list(self.runners.items()):
                if runner.closed:  # stopped: its file was removed or changed, or its lease
                    del self.runners[name]
                    self._release_if_done(runner)
                    again = self._waiting.pop(name, None) or self._held_again(name)
                    if again is None or not self._may_run(again):
                        continue
                    self._start(again)
                    runner = self.runners[name]
                job = runner.next_job()
                if job is None:
                    continue
                at, what = job
                if at <= now_s:
                    due.append((runner.rank(what), at, runner.last_started, name, what, runner))
            due.sort(key=lambda d: d[:4])
            for *_, what, runner in due[: max(0, self._free_slots())]:
                if runner.claim(what):
                    self._in_flight += 1
                    self._submit(runner, what)
            later: float | None = None  # after the hand-out (an inline job has run already)
            if self.leases is not None:
                later = self.leases.next_due()
            # every slot taken: a job already due waits for one, and a slot that frees (a job
            # ending, a client's wait in pool_sleep) wakes the loop; counting it here made the
            # loop spin, holding the GIL the running jobs need (bench_serve at N = 100)
            full = self._free_slots() <= 0
            now_s = self._clock()
            for runner in self.runners.values():
                job = runner.next_job()
                if job is not None and not (full and job[0] <= now_s):
                    later = job[0] if later is None else min(later, job[0])
        return None if later is None else max(0.0, later - self._clock())

    def _free_slots(self) -> int:
        """Jobs the pool may start now (caller holds ``_lock``): a slot per running job that is
        not waiting in :meth:`pool_sleep`, a thread per job; <= 0 when full."""
        return min(self.workers - (self._in_flight - self._sleeping),
                   self.threads - self._in_flight)  # fmt: skip

    def _lease_tick(self, now_s: float) -> None:
        """The lease round when due (:meth:`forumbot.ops.leases.Leaser.step`): start the
        clubs gained, stop at once the ones lost, stop cleanly the ones shed."""
        if self.leases is None or now_s < self.leases.next_due():
            return
        keys = {lease_key(c.config): n for n, c in self._files.items() if c.config is not None}
        step = self.leases.step(keys, claim=not self._stop_asked)  # stopping: renew only
        for key in sorted(step.lost | step.shed):
            name = keys.get(key)
            if name is None or name not in self.runners:
                if key in step.shed:  # nothing of it runs here: give it back at once
                    self.leases.release(key)
                continue
            why = "its lease was lost (taken over or lapsed)" if key in step.lost else (
                "its lease goes to another worker (fair share)")  # fmt: skip
            if key in step.lost:
                with club_context(name):
                    log.error("club %s: %s: stopping; its claims are fenced", name, why)
            self._stop(name, why)
        if step.gained:
            log.info("leases: claimed %d club(s): %s (holding %d, %d live worker(s))",
                     len(step.gained), ", ".join(sorted(keys[k] for k in step.gained)),
                     len(self.leases.held), self.leases.live)  # fmt: skip
        for key in sorted(step.gained):
            name = keys[key]
            if name not in self.runners and name not in self._waiting:
                self._start(self._files[name])

    def _held_again(self, name: str) -> ClubFile | None:
        """The file of a club stopped for a lost lease and claimed again meanwhile (it
        starts again here); None otherwise."""
        if self.leases is None or self._stop_asked:
            return None
        return self._files.get(name)

    def _release_if_done(self, runner: ClubRunner) -> None:
        """A stopped club's lease is released unless it restarts here (its file changed)."""
        if self.leases is None:
            return
        key = lease_key(runner.config)
        again = self._files.get(runner.name) if runner.name in self._waiting else None
        restarting = again is not None and again.config is not None and (
            lease_key(again.config) == key)  # fmt: skip
        if key in self.leases.held and (not restarting or key in self.leases.shedding):
            self.leases.release(key)

    def _submit(self, runner: ClubRunner, job: str) -> None:
        def done(_future: Future[Any]) -> None:
            with self._lock:
                self._in_flight -= 1
            self.wakeup.set()

        future = self._executor.submit(runner.run, job)
        future.add_done_callback(done)

    def pool_sleep(self, seconds: float) -> None:
        """The clubs' clients wait through this: the job's worker slot is free meanwhile (the
        loop may start another club's job), and taken back, over the bound if need be, when
        the wait ends (a waiting job is never cut: it holds its thread)."""
        with self._lock:
            self._sleeping += 1
        self.wakeup.set()
        try:
            self._sleep(seconds)
        finally:
            with self._lock:
                self._sleeping -= 1

    @property
    def in_flight(self) -> int:
        """Jobs running now (at most ``workers``)."""
        with self._lock:
            return self._in_flight

    def stop_all(self) -> None:
        """Ask every club to stop cleanly (their running passes finish first)."""
        with self._lock:
            self._stop_asked = True
            self._waiting.clear()
            for name in list(self.runners):
                self._stop(name, "serve is stopping")
        self.wakeup.set()

    def serve_forever(self, health_port: int = 0) -> None:
        """Run until SIGTERM/SIGINT: reload on SIGHUP, tick, sleep until the next job is due
        (at most :data:`MAX_IDLE_WAIT_S`; woken by any job's end). On a stop every club
        finishes its pass, logs out and closes its database, then the pool is shut down."""
        from forumbot._lean import limit_malloc_arenas
        from forumbot.ops.health import start_health_server

        limit_malloc_arenas()
        signal.signal(signal.SIGHUP, lambda *_: self.request_reload())

        def stop(signum: int, _frame: Any) -> None:
            log.info("signal %s: stopping every club", signum)
            self.stop_all()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        self.reload()
        server = None
        if health_port:
            server = start_health_server(health_port, self.health, club_status=self.club_health)
        try:
            while True:
                delay = self.tick()
                if self._stop_asked and not self.runners and self.in_flight == 0:
                    break
                self.wakeup.wait(MAX_IDLE_WAIT_S if delay is None else min(delay, MAX_IDLE_WAIT_S))
                self.wakeup.clear()
        finally:
            if server is not None:
                server.close()
            self._executor.shutdown(wait=True)
            if self.leases is not None:
                self.leases.close()
        log.info("forumbot serve stopped")

    # ------------------------------------------------------------------ health

    def health(self) -> dict[str, Any]:
        """The whole answer: ``status`` (``ok``; ``starting`` before the first tick;
        ``stale`` when the loop has not ticked for :data:`LOOP_STALE_S`), ``workers``,
        ``busy`` (jobs running), ``waiting`` (of them, sleeping in a client wait), ``clubs``
        (``{name: ClubRunner.snapshot()}``, a refused file's error as ``config_error``) and
        ``refused`` (``{name: {file, error}}``: files not running)."""
        with self._lock:
            runners = dict(self.runners)
            refused = dict(self.refused)
            busy, waiting = self._in_flight, self._sleeping
            names = sorted(set(runners) | set(self._files))
        clubs: dict[str, Any] = {}
        for name in names:
            entry = self.club_health(name)
            if entry is not None:
                clubs[name] = entry
        if self._last_tick is None:
            status = "starting"
        elif self._clock() - self._last_tick > LOOP_STALE_S:
            status = "stale"
        else:
            status = "ok"
        leases: dict[str, Any] = {}
        if self.leases is not None:
            leases = {"worker": self.leases.holder, "lease_ttl_s": self.leases.ttl_s,
                      "live_workers": self.leases.live, "leases_held": len(self.leases.held),
                      "lease_error": self.leases.last_error}  # fmt: skip
        return {
            "status": status,
            "boards_dir": str(self.boards_dir),
            **leases,
            "workers": self.workers,
            "busy": busy,
            "waiting": waiting,
            "clubs": clubs,
            "refused": {n: r for n, r in sorted(refused.items()) if n not in runners},
        }

    def club_health(self, name: str) -> dict[str, Any] | None:
        """One club's answer (``/healthz/<name>``): its snapshot, a refused file as
        ``{"status": "refused", ...}``; None for an unknown name (404). Under leases, with
        ``holder`` (the worker running it, None: free), ``held_here``, ``lease_epoch``,
        ``lease_live``; a valid club this worker does not run answers ``state``
        ``leased_elsewhere`` (another worker holds it) or ``unleased`` (nobody does yet)."""
        with self._lock:
            runner = self.runners.get(name)
            refused = self.refused.get(name)
            club = self._files.get(name)
        lease: dict[str, Any] = {}
        if self.leases is not None:
            config = runner.config if runner is not None else club.config if club else None
            if config is not None:
                lease = self.leases.describe(lease_key(config))
        if runner is not None:
            entry = {**runner.snapshot(), **lease}
            if refused is not None:
                entry["config_error"] = refused["error"]
            return entry
        if refused is not None:
            return {"state": "refused", "status": "refused", **refused}
        if club is not None and self.leases is not None:
            holder = lease.get("holder")
            elsewhere = holder not in (None, self.leases.holder) and lease["lease_live"]
            state = "leased_elsewhere" if elsewhere else "unleased"
            return {"state": state, "status": state, "file": str(club.path), **lease}
        return None
