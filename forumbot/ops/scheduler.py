"""Unattended operation: APScheduler 3 runs the poll and publish jobs.

Job settings, on purpose (issue 12):

- **two workers**: the poll job runs on the ``default`` executor, the publish job on its own
  ``publish`` executor (one thread each), so a poll that overruns never makes the publish run
  wait or be dropped, and a flood-limit wait while publishing never stops reading. The
  publish worker has its own SQLite connection (:func:`publishing_bot`); both share the forum
  client (httpx is thread-safe; the client serialises logins). An in-memory database cannot be
  shared between connections: it keeps one worker.
- ``max_instances=1``: a slow poll never overlaps the next poll.
- ``coalesce=True``: after downtime missed runs collapse into one run, not a burst.
- ``misfire_grace_time`` = one interval; a run later than that is *missed*: logged once
  (``EVENT_JOB_MISSED``) and caught up at once (the job's next run is moved to now).
- **publish kick** (:class:`PublishKick`): the referee calls it as soon as a topic's drafts
  are committed, mid-poll; the publish job then runs at once (or, when a pass is running,
  once more right after it) instead of waiting for its next interval. The interval stays
  the fallback (a draft that becomes due by its review delay, an approval on the review
  page).
- a run skipped because the previous one is still running (a publish pass waiting for a
  form's minimum age, a long poll) is normal under load: it is logged at DEBUG, not as a
  warning every second (the run that was running catches up: coalesce).
- **board pauses**: when the client says the board asked to pause (``Retry-After`` longer than
  it waits in place, :class:`forumbot.errors.BoardPaused`), the jobs of that scope are skipped
  until then (a read refusal pauses both jobs, a post refusal only publishing) and one line
  says when the board is used again (:class:`PauseGate`).

A second ``forumbot run`` on the same database refuses to start:
:func:`forumbot.ops.lock.single_instance` locks the database file itself (any path to it).
A clean stop (SIGTERM/SIGINT) waits for the running jobs, then logs the bot out
(``client.close(logout=True)``).
"""

from __future__ import annotations

import dataclasses
import logging
import signal
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobExecutionEvent
from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler

from forumbot._lean import limit_malloc_arenas
from forumbot.app import Bot
from forumbot.errors import BoardPaused, LoginFailed
from forumbot.ops.backup import daily_backup
from forumbot.ops.health import HealthState, start_health_server, tracked_jobs
from forumbot.ops.lock import AlreadyRunning, single_instance
from forumbot.ops.session import OutageWait, log_in
from forumbot.storage import open_storage

log = logging.getLogger("forumbot.ops.scheduler")


def _guard(
    name: str, job: Any, scheduler: BlockingScheduler, stopped_by: list[LoginFailed] | None = None
) -> Any:
    """``job`` wrapped for the scheduler: a refused login stops the scheduler (recorded in
    ``stopped_by``, re-raised by :func:`run_forever`) or, before it runs, is raised at once;
    any other error is logged and the job runs again at its next interval."""

    def run() -> None:
        try:
            job()
        except LoginFailed as exc:
            if not scheduler.running:
                raise  # a start-up pass: run_forever's caller reports it
            log.error("%s: login refused (%s): stopping; fix the credentials", name, exc)
            if stopped_by is not None:
                stopped_by.append(exc)
            scheduler.shutdown(wait=False)
        except BoardPaused as exc:  # one line: the gate skips the job until the pause ends
            log.warning("%s: %s", name, exc)
        except Exception:  # the loop survives anything else; next run retries
            log.exception("%s: failed; will run again at the next interval", name)

    return run


class PauseGate:
    """Skips a job while the board is paused for its scope; logs once when it resumes.

    Args:
        client: the forum client; its ``pause_remaining_s(scope) -> float`` (seconds, 0.0
            when not paused) is asked before each run (a client without it is never paused).
        scope: ``"all"`` (the poll job) or ``"publish"``.
        name: the job's name for the log lines.
    """

    def __init__(self, client: object, scope: str, name: str) -> None:
        self._remaining: Callable[[str], float] | None = getattr(client, "pause_remaining_s", None)
        self.scope = scope
        self.name = name
        self.paused = False

    def wrap(self, job: Callable[[], Any]) -> Callable[[], None]:
        """``job`` run only when the board is not paused for this scope."""

        def run() -> None:
            remaining = self._remaining(self.scope) if self._remaining is not None else 0.0
            if remaining > 0:
                if not self.paused:
                    log.warning(
                        "%s: board paused (Retry-After): skipped for %.0f s", self.name, remaining
                    )
                self.paused = True
                return
            if self.paused:
                log.info("%s: board pause over: running again", self.name)
                self.paused = False
            job()

        return run


class PublishKick:
    """Wakes the publish job when drafts were just written (module doc, "publish kick").

    :meth:`wrap` wraps the publish job: while a pass runs, :meth:`kick` asks for one more pass
    right after it (a draft written during the pass may have missed its query); otherwise it
    moves the job's next run to now. ``scheduler`` is set by :func:`build_scheduler`.
    """

    def __init__(self, job_id: str = "publish") -> None:
        self.job_id = job_id
        self.scheduler: BaseScheduler | None = None
        self._lock = threading.Lock()
        self._running = False
        self._again = False

    def wrap(self, job: Callable[[], Any]) -> Callable[[], None]:
        """``job`` run once, then again as long as kicks came in during the last pass."""

        def run() -> None:
            with self._lock:
                self._running = True
                self._again = False
            try:
                while True:
                    job()
                    with self._lock:
                        if not self._again:
                            return
                        self._again = False
            finally:
                with self._lock:
                    self._running = False

        return run

    def kick(self) -> None:
        """Run the publish job now (or once more after the running pass). Thread-safe."""
        with self._lock:
            if self._running:
                self._again = True
                return
        scheduler = self.scheduler
        if scheduler is None or not scheduler.running:
            return
        job = scheduler.get_job(self.job_id)
        if job is not None:
            job.modify(next_run_time=datetime.now(UTC))


def _log_overlap(event: JobExecutionEvent) -> None:
    log.debug("%s: previous run still running; this run skipped", event.job_id)


class _SkippedRunFilter(logging.Filter):
    """Drops APScheduler's warning for a run skipped while the previous one still runs (logged
    at DEBUG by :func:`_log_overlap` instead)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "maximum number of running instances reached" not in record.getMessage()


def catch_up_missed(scheduler: BaseScheduler, now: Callable[[], datetime]) -> Callable[..., None]:
    """A listener for ``EVENT_JOB_MISSED``: logs the missed run once and moves the job's next
    run to ``now()`` (caught up at once, coalesced with any other missed run)."""

    def listener(event: JobExecutionEvent) -> None:
        late = (now() - event.scheduled_run_time).total_seconds()
        log.warning(
            "%s: run of %s missed (%.0f s late, beyond its grace time): running it now",
            event.job_id,
            event.scheduled_run_time.isoformat(),
            late,
        )
        job = scheduler.get_job(event.job_id)
        if job is not None:
            job.modify(next_run_time=now())

    return listener


def publishing_bot(bot: Bot) -> Bot:
    """The bot the publish worker uses: ``bot`` with its own connection to the same database
    file (the poll worker keeps ``bot.storage``); ``bot`` itself for ``":memory:"``."""
    if bot.config.database == ":memory:" or bot.storage.path == ":memory:":
        return bot
    return dataclasses.replace(bot, storage=open_storage(bot.storage.path))


def build_scheduler(
    bot: Bot,
    health: HealthState | None = None,
    publisher: Bot | None = None,
    stopped_by: list[LoginFailed] | None = None,
) -> BlockingScheduler:
    """The scheduler with the poll, publish and (optional) daily backup jobs (not started).

    ``publisher`` is the bot of the publish worker (:func:`publishing_bot`; default ``bot``,
    and then both jobs share ONE worker thread: they use one SQLite connection). ``health``
    records each job's outcome for the health endpoint; ``stopped_by`` receives the
    :class:`LoginFailed` that stopped the scheduler, if one did.
    """
    pub = publisher if publisher is not None else bot
    separate = pub is not bot
    executors = {"default": ThreadPoolExecutor(1)}
    if separate:
        executors["publish"] = ThreadPoolExecutor(1)
    scheduler = BlockingScheduler(timezone="UTC", executors=executors)
    scheduler.add_listener(catch_up_missed(scheduler, lambda: datetime.now(UTC)), EVENT_JOB_MISSED)
    scheduler.add_listener(_log_overlap, EVENT_JOB_MAX_INSTANCES)
    apscheduler_log = logging.getLogger("apscheduler.scheduler")
    if not any(isinstance(f, _SkippedRunFilter) for f in apscheduler_log.filters):
        apscheduler_log.addFilter(_SkippedRunFilter())
    kick = PublishKick()
    kick.scheduler = scheduler
    drafted = getattr(getattr(bot, "referee", None), "on_drafted", None)
    if drafted is not None:
        drafted.append(kick.kick)
    poll_s = bot.config.poll_interval_s
    publish_s = bot.config.publish_interval_s
    poll_job, publish_job = (
        tracked_jobs(bot, health, pub) if health is not None else (bot.poll, pub.publish)
    )
    scheduler.add_job(
        _guard("poll", PauseGate(bot.client, "all", "poll").wrap(poll_job), scheduler, stopped_by),
        "interval",
        seconds=poll_s,
        id="poll",
        max_instances=1,
        coalesce=True,
        misfire_grace_time=int(max(1, poll_s)),
    )
    scheduler.add_job(
        _guard(
            "publish",
            PauseGate(pub.client, "publish", "publish").wrap(kick.wrap(publish_job)),
            scheduler,
            stopped_by,
        ),
        "interval",
        seconds=publish_s,
        id="publish",
        # first run at once when the scheduler starts: what the start-up poll drafted goes
        # out now, not one publish interval later (its kicks came before the start)
        next_run_time=datetime.now(UTC),
        executor="publish" if separate else "default",
        max_instances=1,
        coalesce=True,
        misfire_grace_time=int(max(1, publish_s)),
    )
    # Notices to referees and admins (issue 18): on the poll worker (it shares the bot's
    # connection and client); a board pause on posting holds it back like the publisher.
    notify = bot.wired_notify()
    scheduler.add_job(
        _guard(
            "notify", PauseGate(bot.client, "publish", "notify").wrap(notify.run), scheduler,
            stopped_by,
        ),  # fmt: skip
        "interval",
        seconds=publish_s,
        id="notify",
        max_instances=1,
        coalesce=True,
        misfire_grace_time=int(max(1, publish_s)),
    )
    if bot.config.backup_keep > 0 and bot.config.database != ":memory:":

        def the_daily_backup() -> None:
            path = daily_backup(bot.config, bot.now())  # a file copy, or pg_dump (issue 27)
            log.info("backup written: %s", path)

        # A backup missed while the bot was down runs at start-up within the hour's grace.
        scheduler.add_job(
            _guard("backup", the_daily_backup, scheduler, stopped_by),
            "cron",
            hour=bot.config.backup_hour_utc,
            minute=0,
            id="backup",
            max_instances=1,
            coalesce=True,
            misfire_grace_time=3600,
        )
    return scheduler


def run_forever(bot: Bot, outage_wait: OutageWait | None = None) -> None:
    """Run until SIGINT/SIGTERM. Logs in (waiting out an outage: ``outage_wait``, default
    :class:`~forumbot.ops.session.OutageWait`), then publishes anything left ``publishing``
    by a crash, polls once, and starts the jobs. On a clean stop: waits for the running jobs,
    logs out (``client.close(logout=True)``) and closes the publish worker's database
    connection. A board that answers with a challenge, a maintenance page or a 5xx at
    start-up is waited for (one warning, one line when it is back); SIGTERM stops the wait.

    Raises:
        AlreadyRunning: when another instance runs on the same database.
        LoginFailed: (CaptchaRequired) the board refused the login, at start-up or later (the
            jobs then stop: retrying would lock the account).
        BoardNotFound: the login page answers 404 (``board.url`` is wrong).
        ServerError: the board did not answer the start-up login within
            ``outage_wait.give_up_after_s`` (never, by default).
    """
    limit_malloc_arenas()  # before the worker threads: 2 malloc arenas, not one per thread
    with single_instance(bot.config.database):
        health = HealthState(bot.now, stale_after_s=3 * bot.config.poll_interval_s)
        stopped_by: list[LoginFailed] = []
        publisher = publishing_bot(bot)
        scheduler = build_scheduler(bot, health, publisher, stopped_by)

        def stop(signum: int, _frame: Any) -> None:
            log.info("signal %s: stopping", signum)
            if scheduler.running:
                scheduler.shutdown(wait=False)
            else:
                # Still in the start-up login or passes: leave now. Anything half done is safe
                # to interrupt (a claimed declaration is found by its marker at the next start).
                raise SystemExit(0)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        # the one login of run, check and doctor: a refusal or a 404 ends here, in one line
        log_in(bot.client, outage_wait if outage_wait is not None else OutageWait())
        server = None
        if bot.config.health_port:
            server = start_health_server(bot.config.health_port, health.snapshot)
            log.info("health endpoint on %s", server.url)

        log.info(
            "forumbot running: %s, forums %s, poll every %ss",
            bot.config.board_url,
            [w.forum_id for w in bot.config.watch],
            bot.config.poll_interval_s,
        )
        try:
            _guard("publish", publisher.publish, scheduler)()
            _guard("poll", bot.poll, scheduler)()
            _guard("notify", bot.wired_notify().run, scheduler)()
            scheduler.start()
            for executor in scheduler._executors.values():  # let running jobs finish
                executor.shutdown(wait=True)
        finally:
            if server is not None:
                server.close()
            _logout(bot)
            if publisher is not bot:
                publisher.storage.close()
        if stopped_by:
            raise stopped_by[0]


def _logout(bot: Bot) -> None:
    """Log the bot out on a clean stop (clients without ``close(logout=...)``: plain close)."""
    close = getattr(bot.client, "close", None)
    if close is None:
        return
    try:
        close(logout=True)
    except TypeError:
        close()
    except Exception as exc:  # stopping anyway
        log.warning("logout on stop failed: %s", exc)


__all__ = ["AlreadyRunning", "PublishKick", "build_scheduler", "run_forever", "single_instance"]
