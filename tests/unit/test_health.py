"""forumbot.ops.health: the /health endpoint and the job-fed HealthState."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from forumbot.errors import ServerError
from forumbot.ops.health import HealthServer, HealthState, start_health_server, tracked_jobs

T0 = datetime(2026, 11, 30, 11, 45, 7, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via a proxy


def get(url: str) -> tuple[int, dict[str, Any], str]:
    try:
        with DIRECT.open(url, timeout=5) as resp:
            return resp.status, json.loads(resp.read()), resp.headers["Content-Type"]
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), exc.headers["Content-Type"]


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[HealthServer] = []

    def start(status_fn: Any) -> HealthServer:
        server = start_health_server(0, status_fn)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


def test_health_answers_json_on_loopback(serve: Any) -> None:
    clock = FakeClock()
    state = HealthState(clock, stale_after_s=360)
    server = serve(state.snapshot)
    assert server.host == "127.0.0.1" and server.port > 0
    code, body, ctype = get(server.url)
    assert code == 200 and ctype.startswith("application/json")
    assert body == {
        "status": "starting",
        "last_poll_at": None,
        "last_publish_at": None,
        "pending_drafts": None,
        "last_error": None,
    }
    clock.advance(30)
    state.record("poll", ok=True, pending_drafts=2)
    clock.advance(15)
    state.record("publish", ok=True, pending_drafts=1)
    code, body, _ = get(server.url)
    assert code == 200
    assert body["status"] == "ok"
    assert body["last_poll_at"] == "2026-11-30T11:45:37+00:00"
    assert body["last_publish_at"] == "2026-11-30T11:45:52+00:00"
    assert body["pending_drafts"] == 1


def test_health_stale_and_failing_answer_503(serve: Any) -> None:
    clock = FakeClock()
    state = HealthState(clock, stale_after_s=360)
    server = serve(state.snapshot)
    state.record("poll", ok=True)
    clock.advance(361)
    code, body, _ = get(server.url)
    assert (code, body["status"]) == (503, "stale")
    state.record("poll", ok=False, error="ServerError: GET viewforum.php?f=3: HTTP 503")
    code, body, _ = get(server.url)
    assert (code, body["status"]) == (503, "failing")
    assert body["last_error"] == "poll: ServerError: GET viewforum.php?f=3: HTTP 503"
    state.record("poll", ok=True)
    code, body, _ = get(server.url)
    assert (code, body["status"], body["last_error"]) == (200, "ok", None)


def test_never_polled_becomes_stale() -> None:
    clock = FakeClock()
    state = HealthState(clock, stale_after_s=60)
    assert state.snapshot()["status"] == "starting"
    clock.advance(61)
    assert state.snapshot()["status"] == "stale"


def test_unknown_paths_404_and_broken_status_500(serve: Any) -> None:
    def broken() -> dict[str, Any]:
        raise RuntimeError("database locked")

    server = serve(broken)
    code, body, _ = get(f"http://127.0.0.1:{server.port}/admin")
    assert code == 404 and "error" in body
    code, body, _ = get(server.url)
    assert (code, body) == (500, {"status": "error", "error": "RuntimeError"})


def test_close_releases_the_port() -> None:
    server = start_health_server(0, lambda: {"status": "ok"})
    port = server.port
    server.close()
    again = start_health_server(port, lambda: {"status": "ok"})
    try:
        assert again.port == port
    finally:
        again.close()


# -- tracked jobs ----------------------------------------------------------------------------


@dataclass
class FakeStorage:
    pending: int = 0
    asked: list[tuple[str, ...]] = field(default_factory=list)

    def declarations(self, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        self.asked.append(statuses)
        return [{"id": i} for i in range(self.pending)]


@dataclass
class FakeConfig:
    watch: tuple[int, ...] = (3, 4)


@dataclass
class FakeBot:
    storage: FakeStorage
    config: FakeConfig = field(default_factory=FakeConfig)
    reports: list[str] = field(default_factory=list)
    fail_with: Exception | None = None

    def poll(self) -> list[str]:
        if self.fail_with is not None:
            raise self.fail_with
        return self.reports

    def publish(self) -> list[int]:
        self.storage.pending = 0
        return [101]


def test_tracked_jobs_record_polls_publishes_and_pending_drafts() -> None:
    clock = FakeClock()
    state = HealthState(clock, stale_after_s=360)
    bot = FakeBot(FakeStorage(pending=2), reports=["forum 3", "forum 4"])
    poll, publish = tracked_jobs(bot, state)  # type: ignore[arg-type]
    assert poll() == ["forum 3", "forum 4"]
    snap = state.snapshot()
    assert (snap["status"], snap["pending_drafts"]) == ("ok", 2)
    assert bot.storage.asked[-1] == ("draft", "approved", "held", "publishing")
    clock.advance(15)
    assert publish() == [101]
    snap = state.snapshot()
    assert snap["pending_drafts"] == 0
    assert snap["last_publish_at"] == "2026-11-30T11:45:22+00:00"


def test_tracked_poll_fails_when_a_forum_is_unreadable_or_it_raises() -> None:
    clock = FakeClock()
    state = HealthState(clock, stale_after_s=360)
    bot = FakeBot(FakeStorage(), reports=["forum 3"])  # forum 4 failed: Bot.poll skipped it
    poll, _ = tracked_jobs(bot, state)  # type: ignore[arg-type]
    poll()
    snap = state.snapshot()
    assert snap["status"] == "failing" and snap["last_error"] == "poll: a watched forum failed"
    bot.fail_with = ServerError("GET viewforum.php?f=3: HTTP 503 after retries")
    with pytest.raises(ServerError):  # re-raised: the scheduler's guard still sees it
        poll()
    assert state.snapshot()["last_error"] == (
        "poll: ServerError: GET viewforum.php?f=3: HTTP 503 after retries"
    )
    bot.fail_with = None
    bot.reports = ["forum 3", "forum 4"]
    poll()
    assert state.snapshot()["status"] == "ok"
