"""JSON log lines: :class:`JsonFormatter` writes one JSON object per log line, with the ``extra=``
fields (``duel``, ``turn``, ``post_ids``...) as keys; :func:`log_decision` logs one decision so."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import IO, Any

_RECORD_ATTRS = frozenset(vars(logging.LogRecord("x", logging.INFO, "x", 0, "x", None, None))) | {
    "message",
    "asctime",
    "taskName",
}



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
