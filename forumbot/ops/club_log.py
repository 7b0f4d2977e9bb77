"""The club's name on every log line of ``forumbot serve`` (issue 27).

``forumbot serve`` runs many clubs in one process; a line that does not say which club it is
about is useless to the host. The name is carried by a :class:`contextvars.ContextVar`
(:data:`CLUB`): :func:`club_context` sets it around a club's pass, on the worker thread
running it, so every record made during the pass (the referee's, the forum client's, httpx's)
gets it, without one logger per club.

:class:`ClubLogFilter`, put on the root handlers by :func:`install_club_logging`, copies it
into ``record.club`` (``"-"`` outside any club): the JSON formatter
(:class:`forumbot.ops.logs.JsonFormatter`) writes it as the ``club`` key, and the text format
gets ``[club]`` after the level (:data:`CLUB_TEXT_FORMAT`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

CLUB: ContextVar[str] = ContextVar("forumbot_club", default="-")
"""The name of the club whose pass runs on this thread (``"-"``: none, the serve loop)."""

CLUB_TEXT_FORMAT = "%(asctime)s %(levelname)s [%(club)s] %(name)s: %(message)s"
"""The text log format of ``forumbot serve`` (``forumbot run``'s, with the club)."""


@contextmanager
def club_context(name: str) -> Iterator[None]:
    """Log records made inside the ``with`` block (this thread) carry ``club=name``."""
    token = CLUB.set(name)
    try:
        yield
    finally:
        CLUB.reset(token)


class ClubLogFilter(logging.Filter):
    """Sets ``record.club`` from :data:`CLUB` (a value given with ``extra=`` is kept).
    Never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Add the club's name to ``record``."""
        if not hasattr(record, "club"):
            record.club = CLUB.get()
        return True


def install_club_logging(root: logging.Logger | None = None) -> None:
    """Put :class:`ClubLogFilter` on every handler of ``root`` (default the root logger: a
    handler's filter sees the records of every logger) and give the plain-text handlers
    :data:`CLUB_TEXT_FORMAT`, their time in UTC with its name
    (:class:`forumbot.ops.logs.ZonedFormatter`); JSON handlers keep their formatter
    (``club`` becomes a key). Idempotent; call it again after replacing the root handlers."""
    from forumbot.ops.logs import JsonFormatter, ZonedFormatter

    logger = root if root is not None else logging.getLogger()
    for handler in logger.handlers:
        if not any(isinstance(f, ClubLogFilter) for f in handler.filters):
            handler.addFilter(ClubLogFilter())
        if not isinstance(handler.formatter, JsonFormatter):
            # the clubs may be in several timezones: UTC, said (newcomer check s4, W9)
            handler.setFormatter(ZonedFormatter("UTC", CLUB_TEXT_FORMAT))
