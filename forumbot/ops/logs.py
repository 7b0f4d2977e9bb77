"""JSON log lines: :class:`JsonFormatter` writes one JSON object per log line, with the ``extra=``
fields (``duel``, ``turn``, ``post_ids``...) as keys; :func:`log_decision` logs one decision so.

:class:`MaskNotifySecrets` (issue 24 F9) keeps the secrets of notice URLs out of the logs of
the HTTP and Apprise libraries, even at ``-v``: Discord, Slack and most webhooks carry their
token in the URL's path or query, and Apprise logs every URL and payload at DEBUG."""

from __future__ import annotations

import json
import logging
import re
import sys
from collections.abc import Iterable
from datetime import UTC, datetime, tzinfo
from typing import IO, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_RECORD_ATTRS = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {
    "message",
    "asctime",
    "taskName",
}


MASKED = "[masked]"
MASKED_LOGGERS = ("apprise", "httpx", "httpcore", "urllib3", "requests")
"""Loggers (and their children) whose records :class:`MaskNotifySecrets` rewrites."""

_URL = re.compile(
    r"(?P<head>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?:[^\s/'\"@]*@)?(?P<host>[^\s/'\"?#]*)"
    r"(?P<rest>[^\s'\"]*)"
)
_BARE_PATH = re.compile(
    r"(?P<key>(?:\burl: |\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) |target=b?['\"]))"
    r"/[^\s'\")]*"
)
_PAYLOAD = re.compile(r"(?i)\b(payload|body|content|data)\b\s*[:=]")


def mask_urls(text: str) -> str:
    """``text`` with every URL cut to its scheme and host (user, password, path, query and
    fragment become ``[masked]``) and every bare request path masked.

    >>> mask_urls("POST URL: https://discord.com/api/webhooks/1/T0KEN (cert_verify=True)")
    'POST URL: https://discord.com/[masked] (cert_verify=True)'
    >>> mask_urls("Max retries exceeded with url: /hooks/T0KEN (Caused by ...)")
    'Max retries exceeded with url: [masked] (Caused by ...)'
    """

    def url(m: re.Match[str]) -> str:
        rest = m.group("rest") if m.group("rest") in ("", "/") else "/" + MASKED
        return f"{m.group('head')}{m.group('host')}{rest}"

    text = _URL.sub(url, text)
    return _BARE_PATH.sub(lambda m: m.group("key") + MASKED, text)


class MaskNotifySecrets(logging.Filter):
    """A filter for handlers and for the :data:`MASKED_LOGGERS`: records of those loggers keep
    no URL path, query or credentials (:func:`mask_urls`), and a record that carries a payload
    (Apprise's ``... Payload: {...}``) keeps only its first words and the payload's size.
    Other loggers' records pass untouched."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record in place; never drops it."""
        if record.name.split(".", 1)[0] not in MASKED_LOGGERS:
            return True
        message = record.getMessage()
        found = _PAYLOAD.search(message)
        if found is not None:
            dropped = len(message) - found.end()
            message = f"{message[: found.end()]} [{dropped} characters dropped]"
        cleaned = mask_urls(message)
        if cleaned != record.getMessage():
            record.msg, record.args = cleaned, None
        return True


def mask_notify_secrets() -> None:
    """Put :class:`MaskNotifySecrets` on the :data:`MASKED_LOGGERS` and on every root handler
    (a logger's filter misses its children's records; a handler's sees them all). Idempotent;
    call it again after replacing the root handlers."""
    targets: list[logging.Filterer] = [logging.getLogger(n) for n in MASKED_LOGGERS]
    targets += logging.getLogger().handlers
    for target in targets:
        if not any(isinstance(f, MaskNotifySecrets) for f in target.filters):
            target.addFilter(MaskNotifySecrets())


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts`` (ISO 8601 UTC, ms), ``level``, ``logger``, ``msg``,
    every ``extra=`` field under its own key, and ``exc`` (the traceback) when there is one.

    Values that are not JSON types are written with ``str()``. Newlines inside values are
    escaped by JSON, so a record is always exactly one line (journald / docker friendly).
    """

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line (no trailing newline)."""
        data: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRS and not key.startswith("_"):
                data[key] = value
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            data["stack"] = self.formatStack(record.stack_info)
        return json.dumps(data, ensure_ascii=False, default=str)


TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
"""The text log line (``forumbot -v``, ``forumbot run`` without ``log_format = "json"``)."""


class ZonedFormatter(logging.Formatter):
    """Text log lines whose time is in a named timezone and says which (issue 25: the
    commands print the board's times, ``2026-12-01 15:05 CET``; the log printed the machine's
    time without a label): ``2026-12-01 15:05:03,120 CET``."""

    def __init__(self, timezone: str = "UTC", fmt: str = TEXT_FORMAT) -> None:
        super().__init__(fmt)
        try:
            self.zone: tzinfo = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            self.zone = UTC

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        """The record's time in :attr:`zone`, to the millisecond, with the zone's name."""
        when = datetime.fromtimestamp(record.created, self.zone)
        return f"{when:%Y-%m-%d %H:%M:%S},{int(record.msecs):03d} {when:%Z}"


def label_log_times(timezone: str) -> None:
    """Give the root logger's text handlers a :class:`ZonedFormatter` in ``timezone`` (the
    board's, once the config is read); JSON handlers keep their ISO UTC ``ts``, and handlers
    that are not plain stream handlers (a test's log capture) are left alone."""
    for handler in logging.getLogger().handlers:
        if type(handler) is logging.StreamHandler and not isinstance(
            handler.formatter, JsonFormatter
        ):
            handler.setFormatter(ZonedFormatter(timezone))


def configure_json_logging(level: int = logging.INFO, stream: IO[str] | None = None) -> None:
    """Make the root logger write JSON lines (:class:`JsonFormatter`) to ``stream``
    (default standard error), replacing its handlers."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


def log_decision(
    logger: logging.Logger,
    message: str,
    *args: object,
    duel: int,
    turn: int | None = None,
    post_ids: Iterable[int] = (),
    **fields: Any,
) -> None:
    """Log one referee decision at INFO with ``event="decision"``, ``duel``, ``turn`` and
    ``post_ids`` (plus ``fields``) as structured fields; ``message % args`` is the text.

    Raises:
        KeyError: when a field name clashes with a LogRecord attribute (``msg``, ``name``...).
    """
    extra = {"event": "decision", "duel": duel, "turn": turn, "post_ids": list(post_ids)}
    extra.update(fields)
    clash = sorted(set(extra) & _RECORD_ATTRS)
    if clash:
        raise KeyError(f"log field names clash with LogRecord attributes: {clash}")
    logger.info(message, *args, extra=extra)
