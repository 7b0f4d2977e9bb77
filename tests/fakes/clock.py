"""A fake clock a sandbox board and the bot share, so sandbox duels cost no real seconds.

The board reads it as its ``clock`` (epoch seconds: form ages, flood limits, post times); the
bot's forum client gets its ``sleep`` and ``clock`` (``bootstrap(sleep=..., clock=...)``), so
the client's minimum form age (phpBB ``check_form_key``: a form younger than 1 s is refused)
and its flood waits move the fake time instead of the wall clock; the bot's ``now`` is
:meth:`SandboxClock.utc`. Only sleeps (and the test, by :meth:`SandboxClock.advance`) move it.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta


class SandboxClock:
    """Epoch seconds (float) from ``start`` (default: the real time when made, so dates on
    the board's pages read as they did on the wall clock); thread-safe."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start.timestamp() if start is not None else time.time()
        self.sleeps: list[float] = []
        self._lock = threading.Lock()

    def __call__(self) -> float:
        """The current fake time, epoch seconds."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Advance by ``seconds`` (negative counts as 0) at once; the wait is recorded."""
        with self._lock:
            self.sleeps.append(seconds)
            self.now += max(0.0, seconds)

    def advance(self, delta: timedelta) -> None:
        """The test moves time on (e.g. past a deadline)."""
        with self._lock:
            self.now += delta.total_seconds()

    def utc(self) -> datetime:
        """The current fake time as an aware UTC datetime (the bot's ``now``)."""
        return datetime.fromtimestamp(self.now, UTC)


class Clock:
    """The bot's ``now`` for tests without a board: 2026-11-30 12:00 UTC (aware), moved only by
    :meth:`advance` (seconds)."""

    def __init__(self) -> None:
        self.t = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)
