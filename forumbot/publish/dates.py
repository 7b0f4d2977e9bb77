"""Dates and times as French players read them, in the board's timezone (issue 25: « avant le
jeudi 3 décembre à 20 h 54 », never « 03/12/2026 19:54 UTC »).

The day and month names come from Babel's CLDR data (``babel.dates.format_datetime``, locale
``fr_FR``; pinned in ``constraints.txt``); the first of the month is written « 1er », as French
typography wants, and the hour « 20 h 54 » (« 9 h 05 »; « 20 h » on the hour). The no-break
spaces of French typography are the renderer's filter's to add, not this module's.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from babel.dates import format_datetime


def board_zone(timezone: str | None) -> ZoneInfo:
    """The board's timezone (an IANA name such as ``"Europe/Paris"``); UTC for an unknown or
    empty name (the config's validation refuses those first)."""
    try:
        return ZoneInfo(timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def french_datetime(when: datetime, timezone: str | None, *, year: bool = False) -> str:
    """``when`` as French words in ``timezone``: ``"jeudi 3 décembre à 20 h 54"`` (with
    ``year``: ``"jeudi 3 décembre 2026 à 20 h 54"``). A naive ``when`` is UTC (the stored
    times are). Pure: no clock read."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    local = when.astimezone(board_zone(timezone))
    weekday = format_datetime(local, "EEEE", tzinfo=local.tzinfo, locale="fr_FR")
    month = format_datetime(local, "MMMM", tzinfo=local.tzinfo, locale="fr_FR")
    day = "1er" if local.day == 1 else str(local.day)
    hour = f"{local.hour} h" if local.minute == 0 else f"{local.hour} h {local.minute:02d}"
    return f"{weekday} {day} {month}{f' {local.year}' if year else ''} à {hour}"


__all__ = ["board_zone", "french_datetime"]
