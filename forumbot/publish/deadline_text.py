"""Deadlines as French players read them: « avant le jeudi 3 décembre à 20 h 54 » (issue 25).

A ruleset with a deadline (fatigue: ``timeout_1v1_hours``, 36 h; two against two:
``timeout_2v2_hours``, 48 h, counted from the declaration's publication, RULES.md) gives
it in every post that waits for players, as a date and time in the board's timezone
(``board.timezone``), not as « 36 h ».

A draft is rendered before it is published (the review delay), so :func:`fill_deadline`
dates it from the planned publication; when it goes out, :func:`redate` moves the printed
date to the real publication time (the deadline the bot then enforces,
:mod:`forumbot.duels.deadlines`). The minute printed is the deadline's, rounded down: a post
sent before it is always in time.

The words come from :mod:`forumbot.publish.dates` (Babel's French day and month names, « 1er »
for the first day of a month, « 20 h 54 » or « 20 h » on the hour); this module adds the year
only when it differs from the reference time's, and no-break spaces inside the time.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.publish import dates

DEFAULT_TIMEZONE = "Europe/Paris"
"""``board.timezone``'s default (forumbot.config.schema)."""
_NBSP = "\u00a0"


def french_datetime(at: datetime, timezone: str, *, reference: datetime | None = None) -> str:
    """``at`` (aware) in ``timezone`` as « jeudi 3 décembre à 20 h 54 » (« 2027 » added
    after the month when its year differs from ``reference``'s, default ``at``'s own), with
    no-break spaces inside the time. The words are :func:`forumbot.publish.dates.french_datetime`'s
    (Babel's French names), the one formatter of dates players read.

    Raises:
        zoneinfo.ZoneInfoNotFoundError: for an unknown timezone name.
        ValueError: for a naive ``at``.
    """
    if at.tzinfo is None:
        raise ValueError("french_datetime needs an aware datetime")
    zone = ZoneInfo(timezone)  # raises for an unknown name, unlike dates.board_zone
    year = at.astimezone(zone).year != (reference or at).astimezone(zone).year
    words = dates.french_datetime(at, timezone, year=year)
    head, _, time = words.rpartition(" à ")
    return f"{head} à {time.replace(' ', _NBSP)}"


def deadline_phrase(start: datetime, hours: int, timezone: str) -> str:
    """« avant le jeudi 3 décembre à 20 h 54 »: ``hours`` after ``start``, rounded down to
    the minute, in ``timezone``."""
    due = (start + timedelta(hours=hours)).replace(second=0, microsecond=0)
    return f"avant le {french_datetime(due, timezone, reference=start)}"


def fill_deadline(context: dict[str, Any]) -> None:
    """Give a template context with ``hours`` (its ruleset's deadline) a ``deadline``
    phrase, in place, when it has none: from ``planned_at`` (ISO, the draft's planned
    publication; default now) in ``timezone`` (default :data:`DEFAULT_TIMEZONE`). The
    values used are kept in the context (``planned_at``, ``timezone``) for :func:`redate`."""
    if "hours" not in context or context.get("deadline"):
        return
    planned = context.get("planned_at")
    start = datetime.fromisoformat(planned) if planned else datetime.now(UTC)
    if start.tzinfo is None:
        start = start.replace(tzinfo=UTC)
    timezone = str(context.get("timezone") or DEFAULT_TIMEZONE)
    context["planned_at"] = start.isoformat()
    context["timezone"] = timezone
    context["deadline"] = deadline_phrase(start, int(context["hours"]), timezone)


def redate(text: str, context: dict[str, Any] | None, published_at: datetime) -> str:
    """``text`` with its planned deadline phrase (``context["deadline"]``) replaced by the
    one counted from ``published_at``; ``text`` unchanged when the context has no deadline or
    the referee's text no longer holds the phrase."""
    if not context or not context.get("deadline") or "hours" not in context:
        return text
    old = str(context["deadline"])
    timezone = str(context.get("timezone") or DEFAULT_TIMEZONE)
    new = deadline_phrase(published_at, int(context["hours"]), timezone)
    return text.replace(old, new) if old in text else text


__all__ = ["deadline_phrase", "fill_deadline", "french_datetime", "redate"]
