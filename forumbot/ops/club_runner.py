"""One club under ``forumbot serve`` (issue 27): its bot, its own schedule, pause and state.

A :class:`ClubRunner` wraps the single-board run path of ``forumbot run`` (the same
:func:`forumbot.app.bootstrap`, ``Bot.poll``, ``Bot.publish``, the notify pass, the daily
backup, the run lock :func:`forumbot.ops.lock.single_instance` on its database) but owns no
thread: :class:`forumbot.ops.serve.Serve` asks it which job is due (:meth:`next_job`) and runs
that job on its shared, bounded worker pool (:meth:`run`). A club has at most one job running
at a time, so it holds at most one worker.

Jobs, in the order they win when several are due: ``stop`` (close: logout, database closed,
lock released), ``start`` (take the lock, wire the bot), ``login`` (one attempt), ``publish``,
``poll``, ``notify``, ``backup``. The poll job kicks ``publish`` as soon as a topic's drafts are
committed (``Referee.on_drafted``), like ``forumbot run``'s publish kick. Across clubs the
pool hands out starts and logins first, then polls and kicked publishes (:meth:`ClubRunner.rank`),
then the periodic passes: a turn's poll and its declaration never queue behind the periodic
publish and notify passes of the other clubs.

**Idle publish passes** (issue 27, latency at 100 clubs). A periodic publish pass is skipped
(counted in ``jobs.publish.skipped``) when nothing can be due: the last pass that ran left no
declaration in :data:`IDLE_STATUSES` (so no review delay, claim, queued check or refusal probe
can fall due with time; under a manual review a draft waits for an approval: it does not
count), and the database is unchanged since (:meth:`~forumbot.storage.
publish_rows.PublishRows.change_token`: a draft approved on the review page, another
process's commit or this club's own write changes it), and the clock watch says the same. A
kicked pass always runs. On PostgreSQL the token changes at nearly every pass: passes run.

Nothing of a club waits in place for long:

* a ``Retry-After`` longer than ``inline_wait_s`` pauses the board (the client raises
  :class:`~forumbot.errors.BoardPaused` and records the pause); the jobs of that scope are not
  due before the pause ends (:meth:`next_job`), so a paused board holds no worker;
* a board down at login (5xx, challenge page, network) is tried again with backoff (15 s
  doubling up to 10 min), never slept on;
* a refused login (:class:`~forumbot.errors.LoginFailed`) stops the club (state
  ``login_refused``): retrying would lock the account. It starts again when its file changes.

Any other exception in a job is logged with its traceback, kept as ``last_error`` (state
``failing``), and the job runs again at its next interval; it never reaches the other clubs.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import ExitStack
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import httpx

from forumbot.config import Config, ConfigError
from forumbot.errors import BoardNotFound, LoginFailed, ServerError
from forumbot.ops.backup import daily_backup
from forumbot.ops.health import HealthState, tracked_jobs
from forumbot.ops.lock import AlreadyRunning, single_instance

if TYPE_CHECKING:
    from forumbot.app import Bot
    from forumbot.ops.boards_dir import ClubFile
    from forumbot.storage.leases import Fence

log = logging.getLogger("forumbot.ops.serve")

JOB_ORDER = ("stop", "start", "login", "publish", "poll", "notify", "backup")
"""Jobs of a club, highest priority first (:meth:`ClubRunner.next_job`)."""

PAUSE_SCOPE = {"login": "all", "poll": "all", "publish": "publish", "notify": "publish"}
"""Which board pause (:meth:`forumbot.forums.board_http.BoardHttp.pause_remaining_s`) holds
each job back."""

IDLE_STATUSES = ("draft", "approved", "held", "publishing", "queued")
"""Declaration statuses a publish pass may act on (now or once time passes: a review delay,
a referee's claim, a queued check, a refusal probe); none left: the next passes may be skipped
until the database changes (module doc, "Idle publish passes")."""

FIRST_JOBS = frozenset({"start", "login"})
"""Jobs handed out before every other due job: a club without its bot or session runs nothing
(a club taken over from a dead worker, a new file), and each runs once, briefly. A club's
jobs until its first poll has run go with them (:attr:`ClubRunner.first_pass`): a taken-over
club is read within a few jobs of its claim, not after every running club's passes (issue 27's
takeover bound, TTL + one poll)."""

URGENT_JOBS = frozenset({"poll", "stop"})
"""Jobs ranked before the periodic passes of other clubs (:meth:`ClubRunner.rank`); a kicked
publish is ranked with them."""

TERMINAL = frozenset({"login_refused", "refused", "stopped"})
"""States in which a club runs nothing until its file changes (or is removed)."""

LOGIN_BACKOFF_S = (15.0, 600.0)
"""First and longest wait between two start-up login attempts on a board that is down, s."""

MakeBot = Callable[[Config], "Bot"]
"""Wires a club's bot from its configuration (default :func:`forumbot.app.bootstrap`)."""


def default_make_bot(config: Config, sleep: Callable[[float], None] | None = None) -> Bot:
    """:func:`forumbot.app.bootstrap` with the real adapters (password from the file's
    ``bot.password_env`` / ``bot.password_file``); ``sleep``: the forum client's waits
    (``forumbot serve``: :meth:`forumbot.ops.serve.Serve.pool_sleep`, which frees the
    worker's slot while it waits)."""
    from forumbot.app import bootstrap

    return bootstrap(config, sleep=sleep)


class ClubRunner:
    """One club's state and schedule (module doc). Thread-safe: the serve loop, one worker
    and the health endpoint read and write it under its lock.

    Args:
        club: the club's file, valid (``club.config`` set).
        clock: monotonic seconds, the serve loop's (the clients get the same one in tests).
        now: aware UTC datetimes (health, backup hour).
        make_bot: wires the bot (:data:`MakeBot`).
        inline_wait_s: longest ``Retry-After`` the club's client waits in place, seconds
            (longer: the board is paused and the club rescheduled).
        wake: called when a job ends or a kick comes (wakes the serve loop).
        fence: the club's lease under several workers (:mod:`forumbot.ops.leases`): set on
            its storage at start, so its publish claims win only while the lease is held; a
            run lock still held by the previous holder's session is then waited for (start
            tried again with backoff) instead of refusing the club.
    """

    def __init__(
        self,
        club: ClubFile,
        *,
        clock: Callable[[], float],
        now: Callable[[], datetime],
        make_bot: MakeBot = default_make_bot,
        inline_wait_s: float = 5.0,
        wake: Callable[[], None] = lambda: None,
        fence: Fence | None = None,
    ) -> None:
        assert club.config is not None, "a refused club file is not run"
        self.club = club
        self.name = club.name
        self.config: Config = club.config
        self._clock = clock
        self._now = now
        self._make_bot = make_bot
        self.inline_wait_s = inline_wait_s
        self._wake = wake
        self.fence = fence
        self._lock = threading.RLock()
        self._resources = ExitStack()
        self.bot: Bot | None = None
        self.health: HealthState | None = None
        self._poll: Callable[[], object] | None = None
        self._publish: Callable[[], object] | None = None
        self.state = "starting"
        self.busy = False
        self.stopping = False
        self.last_error: str | None = None
        self.last_pass_at: datetime | None = None
        self.last_started = float("-inf")  # serve clock of the last job start (fairness)
        self.passes = 0
        # per job: [runs, seconds running, seconds started after due (queued), worst lateness]
        self.job_stats: dict[str, list[float]] = {}
        self._claimed_due: float | None = None  # due time of the job claimed (lateness)
        self.skipped: dict[str, int] = {}  # passes of a job skipped: nothing could be due
        self._login_failures = 0
        self._kicked = False
        self._publish_kicked = False  # a kick came since the last publish pass began
        self._idle_token: tuple[object, ...] | None = None  # publish pass skippable while equal
        self._failing: set[str] = set()  # jobs whose last run raised
        self.due: dict[str, float] = {"start": clock()}
        self._first_poll_done = False

    # ------------------------------------------------------------------ schedule

    @property
    def closed(self) -> bool:
        """True once the club holds nothing (no bot, no lock) and runs nothing."""
        with self._lock:
            return self.state == "stopped" and not self.busy

    @property
    def first_pass(self) -> bool:
        """True from the club's start until its first poll has run (whatever its outcome):
        the serve loop hands its jobs out with the starts and logins
        (:data:`FIRST_JOBS`, rank 0 of :meth:`rank`), so a club taken over from a dead worker, or
        a new file, is read at once instead of queueing behind every running club's passes."""
        with self._lock:
            return not self._first_poll_done and self.state != "stopped"

    def pause_remaining_s(self, scope: str = "all") -> float:
        """Seconds the board asked to wait for ``scope`` (0.0: not paused; no bot: 0.0)."""
        client = self.bot.client if self.bot is not None else None
        remaining = getattr(client, "pause_remaining_s", None)
        return float(remaining(scope)) if remaining is not None else 0.0

    def next_job(self) -> tuple[float, str] | None:
        """``(due, job)``: the club's next job and when it is due (serve clock, seconds; a
        paused board's jobs are due when the pause ends); None while a job runs or in a
        terminal state."""
        with self._lock:
            if self.busy or self.state == "stopped":
                return None
            if self.stopping:
                return (float("-inf"), "stop")
            if self.state in TERMINAL:
                return None
            best: tuple[float, str] | None = None
            for rank, job in enumerate(JOB_ORDER):
                if job not in self.due:
                    continue
                at = self.due[job]
                scope = PAUSE_SCOPE.get(job)
                if scope is not None:
                    remaining = self.pause_remaining_s(scope)
                    if remaining > 0:
                        at = max(at, self._clock() + remaining)
                if best is None or (at, rank) < (best[0], JOB_ORDER.index(best[1])):
                    best = (at, job)
            return best

    def claim(self, job: str) -> bool:
        """Mark ``job`` as running (the serve loop, before handing it to a worker); False
        when the club is busy or the job is no longer the one to run."""
        with self._lock:
            if self.busy or self.state == "stopped":
                return False
            self.busy = True
            self.last_started = self._clock()
            self._claimed_due = self.due.get(job)
            return True

    def rank(self, job: str) -> int:
        """Where ``job`` goes in the pool's order (lower first; then earliest due):
        0 start/login (:data:`FIRST_JOBS`) and every job of a club before its first poll
        (:attr:`first_pass`), 1 a stop, a poll or a kicked publish (a turn waits on it), 2 the
        periodic passes (publish, notify, backup)."""
        if job in FIRST_JOBS or self.first_pass:
            return 0
        with self._lock:
            return 1 if job in URGENT_JOBS or (job == "publish" and self._publish_kicked) else 2

    def kick(self) -> None:
        """Publish now (the referee committed drafts): the publish job is due at once."""
        with self._lock:
            self._kicked = True
            self._publish_kicked = True
            if "publish" in self.due and not self.busy:
                self.due["publish"] = min(self.due["publish"], self._clock())
        self._wake()

    def request_stop(self) -> None:
        """Stop cleanly: the running job (if any) finishes, then ``stop`` runs next."""
        with self._lock:
            if self.state == "stopped":
                return
            self.stopping = True
        self._wake()

    # ------------------------------------------------------------------ jobs

    def run(self, job: str) -> None:
        """Run ``job`` (claimed with :meth:`claim`) on this thread; never raises. Reschedules
        it, records the outcome, then wakes the serve loop."""
        from forumbot.ops.club_log import club_context

        try:
            with club_context(self.name):
                self._run(job)
        finally:
            with self._lock:
                self.busy = False
                self.passes += 1
                self.last_pass_at = self._now()
            self._wake()

    def _run(self, job: str) -> None:
        interval = self._interval(job)
        started = self._clock()
        try:
            getattr(self, f"_job_{job}")()
        except LoginFailed as exc:
            log.error("%s: login refused (%s): club stopped; fix its credentials, then "
                      "change its file (or touch it) and reload", job, exc)  # fmt: skip
            self._end("login_refused", f"{job}: login refused ({exc.kind}): {exc.reason}")
            return
        except Exception as exc:  # the club's own failure: logged, never the others'
            self._count(job, started)
            log.exception("%s: failed; will run again at the next interval", job)
            with self._lock:
                self.last_error = f"{job}: {type(exc).__name__}: {exc}"
                self._failing.add(job)
            if job == "start":
                self._close_quietly()
            if job in ("start", "login"):  # no interval of their own: backoff, never a spin
                self._login_failures += job == "login"
                self._retry_later(job)
                return
        else:
            self._count(job, started)
            with self._lock:
                self._failing.discard(job)
                if not self._failing and self.state == "running":
                    self.last_error = None
        with self._lock:
            self._first_poll_done = self._first_poll_done or job == "poll"
            if interval is not None and job in self.due:
                # fixed rate from the job's start; a run later than that is coalesced to now
                self.due[job] = max(started + interval, self._clock())
            if self._kicked and "publish" in self.due:  # drafts committed during the job
                self.due["publish"] = self._clock()
            self._kicked = False

    def _count(self, job: str, started: float) -> None:
        """Adds one run of ``job`` begun at ``started`` (serve clock) to :attr:`job_stats`."""
        late = max(0.0, started - self._claimed_due) if self._claimed_due is not None else 0.0
        with self._lock:
            stats = self.job_stats.setdefault(job, [0, 0.0, 0.0, 0.0])
            stats[0] += 1
            stats[1] += self._clock() - started
            stats[2] += late
            stats[3] = max(stats[3], late)

    def _interval(self, job: str) -> float | None:
        if job == "poll":
            return float(self.config.poll_interval_s)
        if job in ("publish", "notify"):
            return float(self.config.publish_interval_s)
        return None

    def _job_start(self) -> None:
        config = self.config
        try:
            self._resources.enter_context(single_instance(config.database))
            bot = self._make_bot(config)
        except AlreadyRunning as exc:
            if self.fence is None:  # another run on it
                self._close_quietly()
                self._end("refused", f"start: {exc}")
                return
            # leased: the previous holder's session still holds the run lock (it is stopping,
            # or the server has not noticed it died yet): wait for it, never run beside it
            self._close_quietly()
            with self._lock:
                self.last_error = f"start: {exc}"
                self.due["start"] = self._clock() + self.fence.margin_s
            return
        except ConfigError as exc:  # no password, bad URL...
            self._close_quietly()
            self._end("refused", f"start: {exc}")
            return
        self._resources.callback(bot.close)
        if self.fence is not None:
            bot.storage.set_lease_fence(self.fence)
        client: Any = bot.client
        if hasattr(client, "max_inline_wait_s"):  # a long Retry-After pauses, never sleeps
            client.max_inline_wait_s = min(float(client.max_inline_wait_s), self.inline_wait_s)
        drafted = getattr(bot.referee, "on_drafted", None)
        if drafted is not None:
            drafted.append(self.kick)
        health = HealthState(self._now, stale_after_s=3 * config.poll_interval_s)
        poll, publish = tracked_jobs(bot, health)
        with self._lock:
            self.bot, self.health, self._poll, self._publish = bot, health, poll, publish
            self.due.pop("start", None)
            self.due["login"] = self._clock()
            self.state = "starting"
        forums = [w.forum_id for w in config.watch]
        log.info(
            "club started: %s, forums %s, poll every %ss (database %s)",
            config.board_url,
            forums,
            config.poll_interval_s,
            config.database,
        )

    def _job_login(self) -> None:
        assert self.bot is not None
        try:
            self.bot.client.login()
        except BoardNotFound as exc:
            self._end("refused", f"login: {exc}; fix board.url")
            return
        except (ServerError, httpx.TransportError) as exc:
            self._login_failures += 1
            what = f"{type(exc).__name__}: {exc}"
            if self._login_failures == 1:
                log.warning("login: the board is not answering as itself (%s); trying again "
                            "with backoff (other clubs go on)", what)  # fmt: skip
            with self._lock:
                self.state = "waiting_board"
                self.last_error = f"login: {what}"
            self._retry_later("login")
            return
        if self._login_failures:
            log.warning("login: the board is back after %d failed attempts", self._login_failures)
        now_s = self._clock()
        with self._lock:
            self._login_failures = 0
            self.due.pop("login", None)
            self.due.update(publish=now_s, poll=now_s, notify=now_s)
            if self.config.backup_keep > 0 and self.config.database != ":memory:":
                self.due["backup"] = now_s + self._until_backup_hour()
            self.state = "running"
            self.last_error = None

    def _retry_later(self, job: str) -> None:
        first, cap = LOGIN_BACKOFF_S
        failures = max(1, self._login_failures)
        with self._lock:
            self.due[job] = self._clock() + min(cap, first * 2 ** (failures - 1))
            if job == "start":
                self._login_failures += 1

    def _job_publish(self) -> None:
        assert self._publish is not None and self.bot is not None
        with self._lock:
            kicked, self._publish_kicked = self._publish_kicked, False
        rows = getattr(self.bot.storage, "publish_rows", None)
        token = self._publish_token(rows)
        if not kicked and token is not None and token == self._idle_token:
            with self._lock:
                self.skipped["publish"] = self.skipped.get("publish", 0) + 1
            if self.health is not None:  # a pass that found nothing to do (count unchanged)
                self.health.record("publish", ok=True)
            return
        self._idle_token = None
        self._publish()
        token = self._publish_token(rows)  # read before the probe: a later commit changes it
        if rows is not None and token is not None and not rows.any_declaration_in(
            self._idle_statuses()
        ):
            self._idle_token = token

    def _idle_statuses(self) -> tuple[str, ...]:
        """:data:`IDLE_STATUSES`; under ``review_delay_s = "manual"`` without ``draft``: a
        draft there goes only once approved, and an approval is a database change."""
        if self.config.review_delay_s == "manual":
            return tuple(s for s in IDLE_STATUSES if s != "draft")
        return IDLE_STATUSES

    def _publish_token(self, rows: Any) -> tuple[object, ...] | None:
        """What must stay equal for a publish pass to be skipped (module doc): the storage's
        change token and the clock watch's problem; None: the storage has none (never skip)."""
        if rows is None or not hasattr(rows, "change_token"):
            return None
        watch = getattr(self.bot.client if self.bot is not None else None, "clock_watch", None)
        problem = watch.problem() if watch is not None else None
        return (*rows.change_token(), problem)

    def _job_poll(self) -> None:
        assert self._poll is not None
        self._poll()

    def _job_notify(self) -> None:
        assert self.bot is not None
        self.bot.wired_notify().run()

    def _job_backup(self) -> None:
        try:
            path = daily_backup(self.config, self._now())
            log.info("backup written: %s", path)
        finally:
            with self._lock:
                self.due["backup"] = self._clock() + self._until_backup_hour()

    def _until_backup_hour(self) -> float:
        """Seconds until the next ``storage.backup_hour_utc`` o'clock (at least 60 s)."""
        now = self._now()
        at = now.replace(hour=self.config.backup_hour_utc, minute=0, second=0, microsecond=0)
        if at <= now + timedelta(seconds=60):
            at += timedelta(days=1)
        return (at - now).total_seconds()

    def _job_stop(self) -> None:
        from forumbot.ops.scheduler import _logout

        if self.bot is not None:
            _logout(self.bot)
        self._close_quietly()
        with self._lock:
            self.state = "stopped"
            self.stopping = False
            self.due.clear()
        log.info("club stopped")

    def _end(self, state: str, error: str) -> None:
        """A terminal state: nothing runs until the file changes; lock and database freed."""
        self._close_quietly()
        with self._lock:
            self.state = state
            self.last_error = error
            self.due.clear()

    def _close_quietly(self) -> None:
        try:
            self._resources.close()
        except Exception:  # closing a half-wired club: log, go on
            log.exception("closing the club failed")
        self._resources = ExitStack()
        with self._lock:
            self.bot = None

    # ------------------------------------------------------------------ health

    def snapshot(self) -> dict[str, Any]:
        """The club's health: ``state`` (``starting``, ``waiting_board``, ``running``,
        ``paused``, ``failing``, ``stale``, ``login_refused``, ``refused``, ``stopping``,
        ``stopped``), ``status`` (``ok``/``starting`` when healthy), ``file``, ``board``,
        ``last_poll_at``, ``last_publish_at``, ``last_pass_at``, ``pending_drafts``,
        ``last_error``, ``paused_reason`` (None when not paused), ``jobs``: per job run so
        far ``{"runs", "skipped", "busy_s", "late_s", "late_max_s"}`` (``skipped``: of the
        runs, passes skipped as idle, module doc; seconds running in total; seconds between
        due and start, total and worst: time queued behind other jobs)."""
        with self._lock:
            health = self.health.snapshot() if self.health is not None else {}
            state = self.state
            paused = max(self.pause_remaining_s("all"), self.pause_remaining_s("publish"))
            reason = None
            if paused > 0 and state not in TERMINAL:
                scope = "everything" if self.pause_remaining_s("all") > 0 else "posting"
                reason = (f"the board asked to wait (Retry-After): {scope} paused for "
                          f"{paused:.0f} s more")  # fmt: skip
                state = "paused"
            if self.stopping:
                state = "stopping"
            elif state == "running" and self._failing:
                state = "failing"
            elif state == "running" and health.get("status") == "stale":
                state = "stale"
            status = {"running": "ok", "starting": "starting"}.get(state, state)
            if state == "running" and health.get("status") == "failing":
                status = "failing"
            return {
                "state": state,
                "status": status,
                "file": str(self.club.path),
                "board": self.config.board_url,
                "last_poll_at": health.get("last_poll_at"),
                "last_publish_at": health.get("last_publish_at"),
                "last_pass_at": self.last_pass_at.isoformat() if self.last_pass_at else None,
                "pending_drafts": health.get("pending_drafts"),
                "last_error": self.last_error or health.get("last_error"),
                "paused_reason": reason,
                "jobs": {
                    job: {"runs": int(n), "skipped": self.skipped.get(job, 0),
                          "busy_s": round(busy, 3), "late_s": round(late, 3),
                          "late_max_s": round(worst, 3)}  # fmt: skip
                    for job, (n, busy, late, worst) in sorted(self.job_stats.items())
                },
            }
