"""Start-up guards of ``forumbot run`` and ``forumbot web`` (issue 14).

- :func:`check_clock`: the local clock must agree with the board's ``Date`` header, as
  ``forumbot doctor`` checks it: review delays and publish times are compared with the local
  clock, so a clock two hours ahead publishes a draft before its referee had the time to read
  it. A skew beyond the limit refuses the start (:class:`ClockSkewError`); a board that cannot
  be reached, or that sends no readable ``Date``, only logs a warning (the bot retries the
  board anyway, and the page works without it).
- :func:`check_filesystem`: a database on a network filesystem (NFS, CIFS/SMB, sshfs, 9p...)
  is warned about (WAL does not work there: :mod:`forumbot.ops.filesystem`); the start goes on.
- :func:`quiet_logs`: ``-v`` (DEBUG) logs never show cookies or session ids: httpcore and
  httpx stay at WARNING, and every root handler redacts ``Cookie`` / ``Set-Cookie`` values,
  ``sid=...`` parameters and the review page's session cookie from any record; the records
  of Apprise, httpx, httpcore and urllib3 keep no URL path, query or payload
  (:class:`forumbot.ops.logs.MaskNotifySecrets`, issue 24 F9).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING

from forumbot.ops.filesystem import PROC_MOUNTS, network_filesystem_warning
from forumbot.ops.logs import mask_notify_secrets

if TYPE_CHECKING:  # not at import: every command imports this module for quiet_logs
    import httpx

    from forumbot.config import Config

log = logging.getLogger("forumbot.startup")

MAX_CLOCK_SKEW_S = 120.0
"""Seconds the local clock may differ from the board's ``Date`` header (as doctor's
``DEFAULT_MAX_CLOCK_SKEW_S``)."""

CLOCK_TIMEOUT_S = 10.0
"""Seconds the start-up clock check waits for the board."""


class ClockSkewError(Exception):
    """The local clock disagrees with the board's by more than the limit.

    Attributes:
        skew_s: local minus board, in seconds (positive: the local clock is ahead).
        limit_s: the limit in seconds.
    """

    def __init__(self, skew_s: float, limit_s: float) -> None:
        where = "ahead of" if skew_s > 0 else "behind"
        super().__init__(
            f"local clock {abs(skew_s):.0f} s {where} the board (limit {limit_s:.0f} s): "
            "refusing to start; fix NTP (timedatectl set-ntp true), then check with "
            "forumbot doctor"
        )
        self.skew_s = skew_s
        self.limit_s = limit_s


@dataclass(frozen=True)
class ClockReport:
    """What the start-up clock check found when it let the start go on.

    Attributes:
        skew_s: local minus board in seconds, or None when not compared.
        note: one line for the log.
    """

    skew_s: float | None
    note: str


def check_clock(
    config: Config,
    *,
    transport: httpx.BaseTransport | None = None,
    now: Callable[[], datetime] | None = None,
    max_skew_s: float = MAX_CLOCK_SKEW_S,
    timeout_s: float = CLOCK_TIMEOUT_S,
) -> ClockReport:
    """Compare the local clock with the ``Date`` header of ``GET <board.url>/``.

    Args:
        config: the bot's configuration (``board.url``).
        transport: httpx transport (tests); None = the network.
        now: the local clock, aware (default: the real UTC clock).
        max_skew_s: seconds of disagreement allowed.
        timeout_s: seconds to wait for the board.

    Returns:
        a :class:`ClockReport` (also logged): within the limit, or not compared.

    Raises:
        ClockSkewError: the clocks differ by more than ``max_skew_s``.
    """
    import httpx

    from forumbot.forums.tls import verify_for

    clock = now or (lambda: datetime.now(UTC))
    try:
        with httpx.Client(
            transport=transport, timeout=timeout_s, verify=verify_for(transport)
        ) as client:
            response = client.get(config.board_url + "/")
        header = response.headers.get("date")
    except httpx.HTTPError as exc:
        report = ClockReport(None, f"clock not compared: board unreachable ({type(exc).__name__})")
        log.warning(report.note)
        return report
    local = clock()
    board = _parse_date(header)
    if board is None:
        report = ClockReport(None, f"clock not compared: no readable Date header ({header!r})")
        log.warning(report.note)
        return report
    skew = (local - board).total_seconds()
    if abs(skew) > max_skew_s:
        raise ClockSkewError(skew, max_skew_s)
    report = ClockReport(skew, f"clock within {abs(skew):.0f} s of the board")
    log.info(report.note)
    return report


def check_filesystem(config: Config, mounts: str | Path = PROC_MOUNTS) -> str | None:
    """Log one warning when ``storage.database``'s folder is on a network filesystem (read
    from ``mounts``, default ``/proc/mounts``); returns that line, or None."""
    warning = network_filesystem_warning(config.database, mounts)
    if warning is not None:
        log.warning(warning)
    return warning


def _parse_date(header: str | None) -> datetime | None:
    if not header:
        return None
    try:
        value = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


# -- quiet logs ---------------------------------------------------------------------------
REDACTED = "[redacted]"
_SECRETS = (
    # header values: "Set-Cookie: a=b; Path=/", (b'Set-Cookie', b'a=b'), 'cookie': 'a=b'
    re.compile(
        r"""(?P<key>(?:set-)?cookie['"]?\s*(?:[:=,]\s*|\)?,\s*)b?['"]?)(?P<value>[^'"\r\n]+)""",
        re.IGNORECASE,
    ),
    # phpBB's sid in URLs and forms, and the review page's session cookie
    re.compile(r"(?P<key>\b(?:[a-z0-9_]*_)?sid=)(?P<value>[A-Za-z0-9_\-]+)", re.IGNORECASE),
    re.compile(r"(?P<key>\bforumbot_session=)(?P<value>[^;\s'\"]+)"),
)
NOISY_LOGGERS = ("httpcore", "httpx", "hpack", "urllib3", "multipart")


def redact(text: str) -> str:
    """``text`` with cookie values and session ids replaced by ``[redacted]``.

    >>> redact("(b'Set-Cookie', b'phpbb3_sid=0123abcd; path=/')")
    "(b'Set-Cookie', b'[redacted]')"
    >>> redact("GET /viewtopic.php?t=7&sid=0123abcd")
    'GET /viewtopic.php?t=7&sid=[redacted]'
    """
    for pattern in _SECRETS:
        text = pattern.sub(lambda m: m.group("key") + REDACTED, text)
    return text


class RedactSecrets(logging.Filter):
    """A handler filter that rewrites each record's message through :func:`redact`."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def quiet_logs() -> None:
    """Keep cookies and session ids out of the logs at every level (module docstring).
    Idempotent; call it again after replacing the root handlers (JSON logging)."""
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactSecrets) for f in handler.filters):
            handler.addFilter(RedactSecrets())
    mask_notify_secrets()  # no webhook token nor payload from Apprise / httpx (issue 24 F9)
