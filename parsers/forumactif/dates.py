"""Forumactif dates as printed on pages, resolved to aware datetimes.

Forumactif prints dates in the viewer's format and timezone (REPORT.md section 3):
French default ``Dim 29 Déc 2024 - 18:30``, the current year omitted
(``Jeu 2 Jan - 21:47``), relative ``Aujourd'hui à 14:32`` / ``Hier à 23:58``,
one-digit hours (``9:05``), and board-specific custom formats (``05.04.23 17:14``,
read day-month-year). Parsing is delegated to ``dateparser``; this module only
strips the weekday (``Mar`` is both *mardi* and *mars*) and the `` - `` separator,
and places year-less dates on the most recent date not after ``now``.

Pure: ``now`` is always passed in; the clock is never read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

import dateparser

#: The parts of a page text that look like a Forumactif date (last match wins).
DATE_RE = re.compile(
    r"(?:"
    r"(?:Aujourd(?:'|’|&#39;)hui|Hier|Today|Yesterday|Hoy|Ayer)\s+(?:à|at|a\s+las)\s+\d{1,2}[:h]\d{2}"
    r"|(?:(?:Lun|Mar|Mer|Jeu|Ven|Sam|Dim|Mon|Tue|Wed|Thu|Fri|Sat|Sun)\.?\s+)?"
    r"\d{1,2}\s+[^\W\d_]{3,9}\.?(?:\s+\d{4})?\s*(?:-|à|,|at)?\s*\d{1,2}:\d{2}"
    r"|\d{1,2}[./]\d{1,2}[./]\d{2,4}(?:\s*(?:-|à|,)?\s*\d{1,2}:\d{2})?"
    r"|\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}"
    r")",
    re.IGNORECASE,
)
_WEEKDAY_RE = re.compile(
    r"^\s*(?:lun|mar|mer|jeu|ven|sam|dim|mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?=\d)",
    re.IGNORECASE,
)
_YEAR_RE = re.compile(r"\b\d{4}\b|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")
_RELATIVE_RE = re.compile(r"aujourd|hier|today|yesterday|hoy|ayer", re.IGNORECASE)
_DEFAULT_LANGUAGES = ("fr", "en")


def find_date(text: str) -> str | None:
    """The last date-looking substring of ``text`` (e.g. ``"par Invité Dim 2 Mar - 16:40"``).

    Returns the raw substring, stripped, or None when the text holds no date.
    """
    found = None
    for match in DATE_RE.finditer(text):
        found = match.group(0)
    return found.strip() if found else None


def _normalise(raw: str) -> str:
    text = raw.replace("\xa0", " ").replace("’", "'").strip()
    text = _WEEKDAY_RE.sub("", text)
    text = re.sub(r"\s+-\s+", " ", text)
    text = re.sub(r"(\d{1,2})h(\d{2})\b", r"\1:\2", text)
    return re.sub(r"\s+", " ", text)


@lru_cache(maxsize=4096)
def _parse_naive(text: str, base: datetime, languages: tuple[str, ...]) -> datetime | None:
    settings = {
        "RELATIVE_BASE": base,
        "DATE_ORDER": "DMY",
        "PREFER_DATES_FROM": "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    result = dateparser.parse(text, languages=list(languages), settings=settings)
    if result is None:
        return None
    return datetime(
        result.year, result.month, result.day, result.hour, result.minute, result.second
    )


def parse_forumactif_date(
    raw: str,
    *,
    now: datetime,
    board_tz: str = "Europe/Paris",
    languages: Sequence[str] = _DEFAULT_LANGUAGES,
) -> datetime | None:
    """Resolve a displayed Forumactif date.

    Args:
        raw: the date as displayed, e.g. ``"Lun 30 Déc 2024 - 9:05"``,
            ``"Aujourd'hui à 14:32"``, ``"Jeu 2 Jan - 21:47"``, ``"05.04.23 17:14"``.
        now: capture time of the page (aware; naive is read as board time).
        board_tz: IANA zone the page was displayed in.
        languages: dateparser language codes to try.

    Returns:
        An aware datetime in ``board_tz`` (seconds 0), or None when ``raw`` is not a date.
        A date without a year gets the most recent year that puts it not after ``now``
        (README A2: year omitted for the current year).
    """
    zone = ZoneInfo(board_tz)
    local_now = now.astimezone(zone) if now.tzinfo else now.replace(tzinfo=zone)
    base = local_now.replace(tzinfo=None, microsecond=0)
    text = _normalise(raw)
    if not text:
        return None
    naive = _parse_naive(text, base, tuple(languages))
    if naive is None:
        return None
    if not _YEAR_RE.search(text) and not _RELATIVE_RE.search(text):
        naive = _latest_not_after(naive, base)
    return naive.replace(tzinfo=zone)


def _latest_not_after(value: datetime, base: datetime) -> datetime:
    # Tolerate a clock skew of a few minutes between the board and the capture.
    limit = base + timedelta(minutes=5)
    for year in range(limit.year, limit.year - 9, -1):
        try:
            candidate = value.replace(year=year)
        except ValueError:  # 29 February in a common year
            continue
        if candidate <= limit:
            return candidate
    return value
