"""Issue 22: the one login of run, check and doctor (forumbot.ops.session.log_in). With an
OutageWait (``run``) an outage is waited out with backoff and bounded lines; a refusal or a
404 is raised at once; without one (``check``, ``doctor``) the outage is raised."""

from __future__ import annotations

import logging

import httpx
import pytest

from forumbot.errors import (
    BoardNotFound,
    BoardPaused,
    BoardUnavailable,
    CaptchaRequired,
    LoginFailed,
    ServerError,
)
from forumbot.ops.session import OutageWait, log_in


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class Client:
    """Raises the queued errors one login at a time, then logs in."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.logins = 0
        self.retry_log_level = logging.INFO
        self.levels: list[int] = []

    def login(self) -> None:
        self.logins += 1
        self.levels.append(self.retry_log_level)
        if self.errors:
            raise self.errors.pop(0)


def wait(time: FakeTime, **kwargs: float | None) -> OutageWait:
    return OutageWait(sleep=time.sleep, clock=time.clock, **kwargs)  # type: ignore[arg-type]


def test_a_long_outage_is_waited_with_backoff_and_few_lines(
    caplog: pytest.LogCaptureFixture,
) -> None:
    time = FakeTime()
    errors = [BoardUnavailable("login page: HTTP 503, challenge page «Just a moment...»")] * 30
    client = Client(*errors, httpx.ConnectError("refused"))
    with caplog.at_level(logging.DEBUG, logger="forumbot.ops.session"):
        assert log_in(client, wait(time, first_s=15, cap_s=600)) == 31  # type: ignore[arg-type]
    assert time.sleeps[:7] == [15, 30, 60, 120, 240, 480, 600] and max(time.sleeps) == 600
    lines = [r for r in caplog.records if r.levelno >= logging.INFO]
    hours = time.now / 3600
    assert len(lines) <= 2 + hours + 1  # first, one reminder an hour, back
    assert "not answering as itself" in lines[0].getMessage()
    assert "the board is back" in lines[-1].getMessage()
    assert set(client.levels) == {logging.DEBUG} and client.retry_log_level == logging.INFO


@pytest.mark.parametrize(
    "refusal",
    [
        LoginFailed("Vous avez indiqué un mot de passe incorrect."),
        LoginFailed("Vous avez été banni de ce forum.", "banned"),
        CaptchaRequired("the login form asks for a CAPTCHA"),
        BoardNotFound("no board at this address: http://x/ answers HTTP 404", "http://x/"),
    ],
)
def test_a_refusal_or_a_wrong_address_is_raised_at_once(refusal: Exception) -> None:
    time = FakeTime()
    client = Client(BoardUnavailable("503"), refusal)
    with pytest.raises(type(refusal)):
        log_in(client, wait(time))  # type: ignore[arg-type]
    assert client.logins == 2 and time.sleeps == [15.0]


def test_without_a_wait_or_past_give_up_the_outage_is_raised() -> None:
    with pytest.raises(BoardUnavailable):
        log_in(Client(BoardUnavailable("503")))  # type: ignore[arg-type]
    time = FakeTime()
    client = Client(*[ServerError("GET /login: HTTP 502")] * 10)
    with pytest.raises(ServerError):
        log_in(client, wait(time, give_up_after_s=100))  # type: ignore[arg-type]
    assert time.sleeps == [15.0, 30.0, 60.0] and client.logins == 4


def test_a_board_pause_is_waited_whole() -> None:
    time = FakeTime()
    client = Client(BoardPaused("Retry-After 300", 300.0, 300.0))
    assert log_in(client, wait(time)) == 1  # type: ignore[arg-type]
    assert time.sleeps == [300.0]
