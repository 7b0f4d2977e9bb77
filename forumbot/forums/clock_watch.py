"""The clock watched while running (issue 24 F7): review delays and publish times are read on
the local clock, so a clock that jumps mid-run (+2 h) publishes a draft long before its
referee could read it. The start-up check (:func:`forumbot.ops.startup.check_clock`) is not
enough: every answer of the board is compared here.

:class:`ClockWatch` is fed the ``Date`` header of every board response by the forum client
(:class:`forumbot.forums.board_http.BoardHttp`) and finds two things:

- a *skew*: the local wall clock differs from the board's ``Date`` by more than
  ``max_skew_s`` (the answer's travel time is far below it; ``Date`` has 1 s resolution);
- a *jump*: between two answers the wall clock moved more (or less) than the monotonic clock
  by more than ``max_skew_s`` (someone set the clock, a VM resumed). A jump holds until a
  later ``Date`` agrees with the local clock again.

It only reads clocks and headers; what a problem does (pause automatic publication, one
warning, a referee task) is :mod:`forumbot.publish.clock_pause`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

DEFAULT_MAX_CLOCK_SKEW_S = 120.0
"""Default of ``poll.max_clock_skew_s`` (as the start-up check's ``MAX_CLOCK_SKEW_S``)."""


def board_time(date_header: str | None) -> float | None:
    """The POSIX time of an HTTP ``Date`` header (RFC 9110 IMF-fixdate and the obsolete
    forms ``email.utils`` reads), or None when absent or unreadable. Pure.

    >>> board_time("Tue, 01 Dec 2026 10:00:00 GMT")
    1796119200.0
    >>> board_time("soon") is None
    True
    """
    if not date_header:
        return None
    try:
        value = parsedate_to_datetime(date_header)
    except (TypeError, ValueError, IndexError):
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


class ClockWatch:
    """Watches the local clock against the board's answers (module docstring). Thread-safe.

    Args:
        max_skew_s: seconds of skew or jump tolerated (``poll.max_clock_skew_s``).
        wall: the local wall clock, POSIX seconds (the bot's ``now``).
        monotonic: a monotonic clock, seconds (the forum client's clock).
    """

    def __init__(
        self,
        max_skew_s: float,
        wall: Callable[[], float],
        monotonic: Callable[[], float],
    ) -> None:
        self.max_skew_s = max_skew_s
        self._wall = wall
        self._monotonic = monotonic
        self._lock = threading.Lock()
        self._last: tuple[float, float] | None = None
        self._skew_s: float | None = None
        self._jump_s: float | None = None

    def observe(self, date_header: str | None) -> None:
        """Take one board answer's ``Date`` header (None: the answer had none)."""
        with self._lock:
            wall, mono = self._wall(), self._monotonic()
            if self._last is not None:
                jump = (wall - self._last[0]) - (mono - self._last[1])
                if abs(jump) > self.max_skew_s:
                    self._jump_s = jump
            self._last = (wall, mono)
            board = board_time(date_header)
            if board is None:
                return
            self._skew_s = wall - board
            if abs(self._skew_s) <= self.max_skew_s:
                self._jump_s = None  # the clocks agree again

    def problem(self) -> str | None:
        """One English line when the clocks disagree now (skew or unconfirmed jump), else
        None."""
        with self._lock:
            skew, jump = self._skew_s, self._jump_s
        if skew is not None and abs(skew) > self.max_skew_s:
            where = "ahead of" if skew > 0 else "behind"
            return (
                f"local clock {abs(skew):.0f} s {where} the board's Date header "
                f"(limit {self.max_skew_s:.0f} s)"
            )
        if jump is not None:
            return (
                f"the local clock jumped {jump:+.0f} s between two board answers (wall clock "
                f"against monotonic clock; limit {self.max_skew_s:.0f} s), not yet confirmed "
                "by the board's Date header"
            )
        return None


def attach_clock_watch(
    client: object, max_skew_s: float, now: Callable[[], datetime] | None = None
) -> ClockWatch:
    """Give ``client`` (a forum client using :class:`~forumbot.forums.board_http.BoardHttp`,
    or a fake) a :class:`ClockWatch` as ``client.clock_watch``; its wall clock is ``now``
    (default the real UTC clock), its monotonic clock the client's own ``_clock``."""
    import time

    wall_now = now or (lambda: datetime.now(UTC))
    mono = getattr(client, "_clock", None) or time.monotonic
    watch = ClockWatch(max_skew_s, wall=lambda: wall_now().timestamp(), monotonic=mono)
    client.clock_watch = watch  # type: ignore[attr-defined]
    return watch
