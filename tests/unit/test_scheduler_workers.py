"""The scheduler's workers (issue 12): poll and publish on separate executors with separate
database connections, a missed run logged and caught up, a board pause skipping only the jobs
of its scope and logged once when it ends. Nothing is started and nothing waits."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from apscheduler.events import EVENT_JOB_MISSED, JobExecutionEvent

from forumbot.app import bootstrap
from forumbot.config import Config, WatchedForum
from forumbot.ops.scheduler import (
    PauseGate,
    PublishKick,
    build_scheduler,
    catch_up_missed,
    publishing_bot,
)


def make_bot(tmp_path: Path, database: str | None = None) -> Any:
    config = Config(
        board_url="http://127.0.0.1:9",
        platform="phpbb3",
        username="Hibou",
        database=database if database is not None else str(tmp_path / "bot.db"),
        watch=(WatchedForum(3),),
        poll_interval_s=5,
        publish_interval_s=1,
        backup_keep=0,
    )
    return bootstrap(
        config, password="pw", transport=httpx.MockTransport(lambda r: httpx.Response(500))
    )


def test_poll_and_publish_run_on_separate_workers_and_connections(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    publisher = publishing_bot(bot)
    assert publisher is not bot and publisher.storage.db.conn is not bot.storage.db.conn
    assert publisher.client is bot.client and publisher.storage.path == bot.storage.path
    scheduler = build_scheduler(bot, None, publisher)
    jobs = {job.id: job for job in scheduler.get_jobs()}
    assert jobs["poll"].executor == "default" and jobs["publish"].executor == "publish"
    assert jobs["poll"].misfire_grace_time == 5 and jobs["poll"].coalesce
    publisher.storage.close()
    bot.close()


def test_an_in_memory_database_keeps_one_worker(tmp_path: Path) -> None:
    bot = make_bot(tmp_path, ":memory:")
    assert publishing_bot(bot) is bot
    jobs = {job.id: job for job in build_scheduler(bot).get_jobs()}
    assert jobs["publish"].executor == "default"


class FakeJob:
    def __init__(self) -> None:
        self.changes: list[dict[str, Any]] = []

    def modify(self, **changes: Any) -> None:
        self.changes.append(changes)


class FakeScheduler:
    def __init__(self) -> None:
        self.job = FakeJob()

    def get_job(self, job_id: str) -> FakeJob | None:
        return self.job if job_id == "publish" else None


def test_a_missed_run_is_logged_and_caught_up_now(caplog: pytest.LogCaptureFixture) -> None:
    now = datetime(2026, 11, 30, 12, 0, 10, tzinfo=UTC)
    fake = FakeScheduler()
    listener = catch_up_missed(fake, lambda: now)  # type: ignore[arg-type]
    event = JobExecutionEvent(EVENT_JOB_MISSED, "publish", "default", now - timedelta(seconds=4))
    with caplog.at_level(logging.WARNING, "forumbot.ops.scheduler"):
        listener(event)
    assert fake.job.changes == [{"next_run_time": now}]
    (line,) = caplog.messages
    assert "publish" in line and "missed" in line and "4 s late" in line


class PausableClient:
    def __init__(self) -> None:
        self.remaining = {"all": 0.0, "publish": 0.0}

    def pause_remaining_s(self, scope: str = "all") -> float:
        return self.remaining[scope]


def test_a_pause_skips_only_its_scope_and_says_once_when_it_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    client = PausableClient()
    runs: list[str] = []
    poll = PauseGate(client, "all", "poll").wrap(lambda: runs.append("poll"))
    publish = PauseGate(client, "publish", "publish").wrap(lambda: runs.append("publish"))
    client.remaining["publish"] = 30.0  # a refused post (or a flood pause): publishing only
    with caplog.at_level(logging.INFO, "forumbot.ops.scheduler"):
        for _ in range(3):
            poll()
            publish()
        client.remaining["publish"] = 0.0
        publish()
        publish()
    assert runs == ["poll", "poll", "poll", "publish", "publish"]
    assert caplog.messages == [
        "publish: board paused (Retry-After): skipped for 30 s",
        "publish: board pause over: running again",
    ]


def test_a_client_without_pauses_is_never_gated() -> None:
    runs: list[int] = []
    PauseGate(object(), "all", "poll").wrap(lambda: runs.append(1))()
    assert runs == [1]


class RunningScheduler(FakeScheduler):
    running = True


def test_a_kick_moves_the_publish_run_to_now() -> None:
    kick = PublishKick()
    kick.scheduler = RunningScheduler()  # type: ignore[assignment]
    kick.kick()
    (change,) = kick.scheduler.job.changes  # type: ignore[union-attr]
    assert abs((change["next_run_time"] - datetime.now(UTC)).total_seconds()) < 60


def test_a_kick_during_a_pass_runs_exactly_one_more_pass_and_none_after() -> None:
    kick = PublishKick()
    kick.scheduler = RunningScheduler()  # type: ignore[assignment]
    passes: list[int] = []

    def publish() -> None:
        passes.append(len(passes))
        if len(passes) == 1:  # drafts committed while this pass runs: two kicks, one pass
            kick.kick()
            kick.kick()

    job = kick.wrap(publish)
    job()
    assert passes == [0, 1]
    assert kick.scheduler.job.changes == []  # type: ignore[union-attr]
    kick.kick()  # no pass running: the scheduler runs it
    assert len(kick.scheduler.job.changes) == 1  # type: ignore[union-attr]


def test_a_failing_pass_leaves_the_kick_ready_for_the_next_one() -> None:
    kick = PublishKick()
    kick.scheduler = RunningScheduler()  # type: ignore[assignment]

    def publish() -> None:
        raise RuntimeError("board down")

    with pytest.raises(RuntimeError):
        kick.wrap(publish)()
    kick.kick()
    assert len(kick.scheduler.job.changes) == 1  # type: ignore[union-attr]


def test_the_referee_kicks_the_publisher_of_a_real_scheduler(tmp_path: Path) -> None:
    bot = make_bot(tmp_path)
    publisher = publishing_bot(bot)
    build_scheduler(bot, None, publisher)
    assert len(bot.referee.on_drafted) == 1  # the kick; the scheduler is not started: no-op
    bot.referee.on_drafted[0]()
    publisher.storage.close()
    bot.close()


def test_a_run_skipped_while_the_previous_runs_is_not_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bot = make_bot(tmp_path, ":memory:")
    build_scheduler(bot)
    with caplog.at_level(logging.WARNING, "apscheduler.scheduler"):
        logging.getLogger("apscheduler.scheduler").warning(
            'Execution of job "publish" skipped: maximum number of running instances reached (1)'
        )
        logging.getLogger("apscheduler.scheduler").warning("Scheduler started")
    assert caplog.messages == ["Scheduler started"]


def test_the_first_publish_pass_runs_when_the_scheduler_starts(tmp_path: Path) -> None:
    """A newcomer's finding: what the start-up poll drafted waited a whole publish interval
    (its kicks came before the scheduler ran); the publish job's first run is the start."""
    bot = make_bot(tmp_path, ":memory:")
    before = datetime.now(UTC)
    job = {job.id: job for job in build_scheduler(bot).get_jobs()}["publish"]
    assert before <= job.next_run_time <= datetime.now(UTC)


def test_a_one_off_client_keeps_no_session_file(tmp_path: Path) -> None:
    """``check`` beside a running bot neither reads nor rewrites its cookie jar (a
    newcomer's finding)."""
    from forumbot.app import make_client

    config = Config(
        board_url="http://127.0.0.1:9", platform="phpbb3", username="Hibou",
        database=str(tmp_path / "bot.db"), watch=(WatchedForum(3),),
    )  # fmt: skip
    assert make_client(config, "pw").cookie_file is not None  # type: ignore[attr-defined]
    one_off = make_client(config, "pw", keep_session=False)
    assert one_off.cookie_file is None  # type: ignore[attr-defined]
