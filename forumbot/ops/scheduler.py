"""Unattended operation: APScheduler 3 runs the poll and publish jobs.

Job settings, on purpose:

- ``max_instances=1`` and a single worker thread: a slow poll never overlaps the next one
  nor a publish pass (the board sees one bot; the SQLite connection is used serially).
- ``coalesce=True``: after downtime (laptop asleep, server paused) missed runs collapse
  into one run instead of a burst of requests.
- ``misfire_grace_time`` = one interval: a run late by less than that still happens;
  later than that it is skipped (the next one comes soon anyway).

A second ``forumbot run`` on the same database refuses to start:
:func:`forumbot.ops.lock.single_instance` locks the database file itself (any path to it).
"""

from __future__ import annotations

import logging
import signal
from pathlib import Path
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.schedulers.blocking import BlockingScheduler

from forumbot.app import Bot
from forumbot.errors import LoginFailed
from forumbot.ops.backup import backup
from forumbot.ops.health import HealthState, start_health_server, tracked_jobs
from forumbot.ops.lock import AlreadyRunning, single_instance

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
        except Exception:  # the loop survives anything else; next run retries
            log.exception("%s: failed; will run again at the next interval", name)

    return run


def build_scheduler(
    bot: Bot, health: HealthState | None = None, stopped_by: list[LoginFailed] | None = None
) -> BlockingScheduler:
    """The scheduler with the poll, publish and (optional) daily backup jobs (not started).

    ``health`` records each job's outcome for the health endpoint; ``stopped_by`` receives
    the :class:`LoginFailed` that stopped the scheduler, if one did.
    """
    # One worker thread: jobs never run concurrently, so they share one SQLite connection.
    scheduler = BlockingScheduler(timezone="UTC", executors={"default": ThreadPoolExecutor(1)})
    poll_s = bot.config.poll_interval_s
    publish_s = bot.config.publish_interval_s
    poll_job, publish_job = (
        tracked_jobs(bot, health) if health is not None else (bot.poll, bot.publish)
    )
    scheduler.add_job(
        _guard("poll", poll_job, scheduler, stopped_by),
        "interval",
        seconds=poll_s,
        id="poll",
        max_instances=1,
        coalesce=True,
        misfire_grace_time=int(max(1, poll_s)),
    )
    scheduler.add_job(
        _guard("publish", publish_job, scheduler, stopped_by),
        "interval",
        seconds=publish_s,
        id="publish",
        max_instances=1,
        coalesce=True,
        misfire_grace_time=int(max(1, publish_s)),
    )
    if bot.config.backup_keep > 0 and bot.config.database != ":memory:":
        database = bot.config.database

        def daily_backup() -> None:
            path = backup(
                database, Path(database).parent / "backups", bot.now(), keep=bot.config.backup_keep
            )
            log.info("backup written: %s", path)

        # A backup missed while the bot was down runs at start-up within the hour's grace.
        scheduler.add_job(
            _guard("backup", daily_backup, scheduler, stopped_by),
            "cron",
            hour=bot.config.backup_hour_utc,
            minute=0,
            id="backup",
            max_instances=1,
            coalesce=True,
            misfire_grace_time=3600,
        )
    return scheduler


def run_forever(bot: Bot) -> None:
    """Run until SIGINT/SIGTERM. Logs in, then publishes anything left ``publishing`` by a
    crash, polls once, and starts the jobs.

    Raises:
        AlreadyRunning: when another instance runs on the same database.
        LoginFailed: (CaptchaRequired) the board refused the login, at start-up or later (the
            jobs then stop: retrying would lock the account).
        ServerError: the board did not answer the start-up login after every retry.
    """
    with single_instance(bot.config.database):
        health = HealthState(bot.now, stale_after_s=3 * bot.config.poll_interval_s)
        stopped_by: list[LoginFailed] = []
        scheduler = build_scheduler(bot, health, stopped_by)
        bot.client.login()  # a refused login or a silent board ends here, in one line
        server = None
        if bot.config.health_port:
            server = start_health_server(bot.config.health_port, health.snapshot)
            log.info("health endpoint on %s", server.url)

        def stop(signum: int, _frame: Any) -> None:
            log.info("signal %s: stopping", signum)
            if scheduler.running:
                scheduler.shutdown(wait=False)
            else:
                # Still in the start-up passes: leave now. Anything half done is safe to
                # interrupt (a claimed declaration is found by its marker at the next start).
                raise SystemExit(0)

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        log.info(
            "forumbot running: %s, forums %s, poll every %ss",
            bot.config.board_url,
            [w.forum_id for w in bot.config.watch],
            bot.config.poll_interval_s,
        )
        try:
            _guard("publish", bot.publish, scheduler)()
            _guard("poll", bot.poll, scheduler)()
            scheduler.start()
        finally:
            if server is not None:
                server.close()
        if stopped_by:
            raise stopped_by[0]


__all__ = ["AlreadyRunning", "build_scheduler", "run_forever", "single_instance"]
