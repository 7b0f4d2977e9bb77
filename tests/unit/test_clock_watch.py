"""The clock is watched while running (issue 24 F7): a jump or skew of the local clock against
the board's ``Date`` header pauses publication by review delay, with one warning and a referee
task, until the clocks agree again (then one line, the task closed)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from email.utils import format_datetime

import httpx
import pytest

from forumbot.duels.publication import publish_due
from forumbot.forums.clock_watch import ClockWatch
from forumbot.forums.phpbb import PhpbbClient
from forumbot.publish.clock_pause import TASK_KIND, delay_paused
from tests.unit.web_scenario import Scenario, build


class Mono:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def board_answer(board_ts: float) -> httpx.Response:
    """One board answer through an ``httpx.MockTransport``, its ``Date`` at ``board_ts``."""
    date = format_datetime(datetime.fromtimestamp(board_ts, UTC), usegmt=True)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"Date": date}, text="<html></html>")

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        return client.get("https://board.test/forum/")


def test_skew_and_jump_are_seen_and_clear_when_the_clocks_agree() -> None:
    wall = [1_800_000_000.0]
    mono = Mono()
    watch = ClockWatch(120, wall=lambda: wall[0], monotonic=mono)
    watch.observe(board_answer(wall[0] - 3).headers["date"])
    assert watch.problem() is None
    wall[0] += 7200  # the local clock jumps +2 h; 60 s really passed
    mono.t += 60
    watch.observe(None)  # an answer without Date: the jump alone is seen
    assert "jumped +7140 s" in (watch.problem() or "")
    watch.observe(board_answer(wall[0] - 7200).headers["date"])
    assert "7200 s ahead of the board's Date" in (watch.problem() or "")
    wall[0] -= 7200  # NTP sets it right
    watch.observe(board_answer(wall[0]).headers["date"])
    assert watch.problem() is None
    wall[0] -= 500  # behind
    mono.t += 1
    watch.observe(board_answer(wall[0] + 501).headers["date"])
    assert "501 s behind" in (watch.problem() or "")


def test_the_forum_client_feeds_every_answer_to_its_watch() -> None:
    wall = [1_800_000_000.0]
    mono = Mono()

    def board(request: httpx.Request) -> httpx.Response:
        stamp = format_datetime(
            __import__("datetime").datetime.fromtimestamp(
                wall[0] - 7200, __import__("datetime").UTC
            ),
            usegmt=True,
        )
        return httpx.Response(200, headers={"Date": stamp}, text="<html></html>")

    client = PhpbbClient(
        "https://board.test/forum", "Hibou", "pw", transport=httpx.MockTransport(board),
        sleep=lambda s: None, clock=mono,
    )  # fmt: skip
    client.clock_watch = ClockWatch(120, wall=lambda: wall[0], monotonic=mono)  # type: ignore[attr-defined]
    client._exchange("GET", "https://board.test/forum/index.php", follow_redirects=False)
    assert "7200 s ahead" in (client.clock_watch.problem() or "")  # type: ignore[attr-defined]


def test_a_jump_mid_run_pauses_publication_by_delay_until_the_clocks_agree(
    caplog: pytest.LogCaptureFixture,
) -> None:
    s: Scenario = build(review_delay_s=600)
    mono = Mono()
    wall = lambda: s.clock().timestamp()  # noqa: E731 (the bot's now)
    watch = ClockWatch(120, wall=wall, monotonic=mono)
    s.forum.clock_watch = watch  # type: ignore[attr-defined]
    board_ts = wall()
    watch.observe(board_answer(board_ts).headers["date"])
    s.clock.advance(7200)  # +2 h on the local clock, 1 s after the draft was made
    mono.t += 1
    board_ts += 1
    watch.observe(board_answer(board_ts).headers["date"])
    with caplog.at_level(logging.INFO, logger="forumbot.publish"):
        assert publish_due(s.storage, s.forum, s.clock) == []
        assert publish_due(s.storage, s.forum, s.clock) == []  # still paused, no new warning
    assert s.storage.declaration(s.draft_id)["status"] == "draft"
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "publication by review delay paused" in warnings[0].getMessage()
    tasks = list(s.storage.db["referee_tasks"].rows_where("kind = ?", [TASK_KIND]))
    assert len(tasks) == 1 and tasks[0]["status"] == "open" and "7199 s ahead" in tasks[0]["note"]
    # an approved declaration still goes: a referee decided, not the clock
    s.storage.db["declarations"].update(s.draft_id, {"status": "approved"})
    assert len(publish_due(s.storage, s.forum, s.clock)) == 1
    assert delay_paused(s.storage)
    # the clock is set right: the next answer agrees, one line, the task closed
    caplog.clear()
    s.clock.advance(-7200 + 60)
    mono.t += 60
    board_ts += 60
    watch.observe(board_answer(board_ts).headers["date"])
    with caplog.at_level(logging.INFO, logger="forumbot.publish"):
        publish_due(s.storage, s.forum, s.clock)
    assert [r.getMessage() for r in caplog.records if "clock" in r.getMessage()] == [
        "clock: the local clock agrees with the board again: publication by delay resumes"
    ]
    assert not delay_paused(s.storage)
    task = s.storage.db["referee_tasks"].get(tasks[0]["id"])
    assert task["status"] == "done" and task["done_by"] == "forumbot"
