"""Issue 13: a refused login stops `run` with its exit code, whether it comes in a start-up
pass (raised at once, no SchedulerNotRunningError) or in a job of the running scheduler
(the scheduler stops, run_forever raises it after)."""

from __future__ import annotations

from typing import Any

import pytest

from forumbot.errors import CaptchaRequired, LoginFailed
from forumbot.ops.scheduler import _guard


class FakeScheduler:
    def __init__(self, running: bool) -> None:
        self.running = running
        self.shutdowns = 0

    def shutdown(self, wait: bool = True) -> None:
        if not self.running:
            raise AssertionError("shutdown of a scheduler that is not running")
        self.running = False
        self.shutdowns += 1


def refuse() -> None:
    raise CaptchaRequired("the login form asks for a CAPTCHA")


def test_a_refused_login_in_a_start_up_pass_is_raised() -> None:
    scheduler: Any = FakeScheduler(running=False)
    stopped: list[LoginFailed] = []
    with pytest.raises(CaptchaRequired):
        _guard("publish", refuse, scheduler, stopped)()
    assert scheduler.shutdowns == 0 and stopped == []


def test_a_refused_login_in_a_job_stops_the_scheduler_and_is_kept() -> None:
    scheduler: Any = FakeScheduler(running=True)
    stopped: list[LoginFailed] = []
    _guard("poll", refuse, scheduler, stopped)()
    assert scheduler.shutdowns == 1
    assert len(stopped) == 1 and isinstance(stopped[0], CaptchaRequired)


def test_other_errors_are_logged_and_the_job_survives(caplog: pytest.LogCaptureFixture) -> None:
    def boom() -> None:
        raise RuntimeError("boom")

    scheduler: Any = FakeScheduler(running=False)
    _guard("poll", boom, scheduler, [])()
    assert "poll: failed; will run again" in caplog.text
