"""Forumactif dates as printed on pages, resolved to aware datetimes.

Forumactif prints dates in the viewer's format and timezone (REPORT.md section 3):
French default ``Dim 29 Déc 2024 - 18:30``, the current year omitted
(``Jeu 2 Jan - 21:47``), relative ``Aujourd'hui à 14:32`` / ``Hier à 23:58``,
one-digit hours (``9:05``), and board-specific custom formats (``05.04.23 17:14``,
read day-month-year). Parsing is delegated to ``dateparser``; this module
NFC-normalises the text (a decomposed « Déc » is « Déc »), strips the weekday (``Mar``
is both *mardi* and *mars*) and the `` - `` separator, and gives a year-less date the
year in which its weekday matches (the one nearest to ``now``), flagging it when no year
does; a year-less date without weekday goes on the most recent date not after ``now``.

Daylight saving time (issue 22): a wall time of the autumn hour that occurs twice (last Sunday
of October, 02:00-03:00 in Europe/Paris) is flagged :data:`DST_REPEATED` and read as its
**first** occurrence (``fold=0``, summer time: the earlier instant, Python's own default),
unless the posts before it on the page prove it is the second: :func:`settle_repeated_hours`
reads it as ``fold=1`` when the earlier reading would put it before a previous post (post ids
ascend with time). A wall time of the spring hour that does not exist is flagged
:data:`DST_SKIPPED` (the page was not shown in ``board_tz``). Flagged dates reach the shell as
``Post.warnings``: nothing orders posts by them silently.

Pure: ``now`` is always passed in; the clock is never read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from parsers.model import Post

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
    r"^\s*(?P<day>lun|mar|mer|jeu|ven|sam|dim|mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?=\d)",
    re.IGNORECASE,
)
#: Weekday prefixes (French, English) -> ``datetime.weekday()``.
_WEEKDAYS = {
    "lun": 0, "mar": 1, "mer": 2, "jeu": 3, "ven": 4, "sam": 5, "dim": 6,
    "mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6,
}  # fmt: skip
#: Years searched around ``now`` for a year-less date's weekday (any date's weekday
#: recurs within 11 years, 29 February aside).
_YEARS_BACK, _YEARS_AHEAD = 11, 1
#: Flags of :class:`ResolvedDate`.
WEEKDAY_MISMATCH = "weekday_mismatch"
AFTER_NOW = "after_now"
#: DST flags of :class:`ResolvedDate` (``dst``).
DST_REPEATED = "dst_repeated"
DST_SKIPPED = "dst_skipped"
_YEAR_RE = re.compile(r"\b\d{4}\b|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")
_RELATIVE_RE = re.compile(r"aujourd|hier|today|yesterday|hoy|ayer", re.IGNORECASE)
_DEFAULT_LANGUAGES = ("fr", "en")


@dataclass(frozen=True)
class ResolvedDate:
    """A displayed date resolved against ``now``.

    ``at``: aware datetime in the board zone, or None when the text is not a date.
    ``flag``: None, or :data:`WEEKDAY_MISMATCH` (a year-less date whose weekday matches no
    year near ``now``: ``at`` is then the most recent such date not after ``now``), or
    :data:`AFTER_NOW` (the weekday puts the date after ``now``: the capture time is
    probably wrong).
    ``dst``: None, or :data:`DST_REPEATED` (the wall time occurs twice: ``at`` is the first
    occurrence, ``fold=0``) or :data:`DST_SKIPPED` (the wall time does not exist in the zone).
    """

    at: datetime | None
    flag: str | None = None
    dst: str | None = None


def _nfc(text: str) -> str:
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def find_date(text: str) -> str | None:
    """The last date-looking substring of ``text`` (e.g. ``"par Invité Dim 2 Mar - 16:40"``).

    Returns the raw substring (NFC), stripped, or None when the text holds no date.
    """
    found = None
    for match in DATE_RE.finditer(_nfc(text)):
        found = match.group(0)
    return found.strip() if found else None


def _normalise(raw: str) -> tuple[str, int | None]:
    """The text for dateparser, and the weekday it named (``datetime.weekday()``) or None."""
    text = _nfc(raw).replace("\xa0", " ").replace("’", "'").strip()
    weekday_match = _WEEKDAY_RE.match(text)
    weekday = _WEEKDAYS[weekday_match.group("day").lower()] if weekday_match else None
    text = _WEEKDAY_RE.sub("", text)
    text = re.sub(r"\s+-\s+", " ", text)
    text = re.sub(r"(\d{1,2})h(\d{2})\b", r"\1:\2", text)
    return re.sub(r"\s+", " ", text), weekday


@lru_cache(maxsize=4096)
def _parse_naive(text: str, base: datetime, languages: tuple[str, ...]) -> datetime | None:
    settings = {
        "RELATIVE_BASE": base,
        "DATE_ORDER": "DMY",
        "PREFER_DATES_FROM": "past",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }
    # Imported on first use: dateparser and its data cost about 4 MiB, which a bot on a
    # phpBB board (dates as ISO attributes) never needs (issue 12, memory).
    import dateparser

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
    """Resolve a displayed Forumactif date (:func:`resolve_forumactif_date` without its flag).

    Args:
        raw: the date as displayed, e.g. ``"Lun 30 Déc 2024 - 9:05"``,
            ``"Aujourd'hui à 14:32"``, ``"Jeu 2 Jan - 21:47"``, ``"05.04.23 17:14"``.
        now: capture time of the page (aware; naive is read as board time).
        board_tz: IANA zone the page was displayed in.
        languages: dateparser language codes to try.

    Returns:
        An aware datetime in ``board_tz`` (seconds 0), or None when ``raw`` is not a date.
    """
    return resolve_forumactif_date(raw, now=now, board_tz=board_tz, languages=languages).at


def resolve_forumactif_date(
    raw: str,
    *,
    now: datetime,
    board_tz: str = "Europe/Paris",
    languages: Sequence[str] = _DEFAULT_LANGUAGES,
) -> ResolvedDate:
    """Resolve a displayed Forumactif date, with a flag when its year is doubtful.

    Same arguments as :func:`parse_forumactif_date`. A date without a year (Forumactif
    omits the current year) gets the year, among ``now``'s year + 1 down to 11 years
    before, in which its weekday matches and that is nearest to ``now`` (« Ven 17 Juin »
    with now = 2025-06-01 -> 2022-06-17, a Friday); flagged :data:`AFTER_NOW` when that
    is after ``now`` (+5 min), :data:`WEEKDAY_MISMATCH` when no year matches. Without a
    weekday: the most recent date not after ``now``.

    Examples:
        >>> from zoneinfo import ZoneInfo
        >>> now = datetime(2025, 6, 1, 12, 0, tzinfo=ZoneInfo("Europe/Paris"))
        >>> resolve_forumactif_date("Ven 17 Juin - 10:00", now=now).at.date()
        datetime.date(2022, 6, 17)
        >>> resolve_forumactif_date("Lun 31 Fév - 10:00", now=now).at is None
        True
    """
    zone = ZoneInfo(board_tz)
    local_now = now.astimezone(zone) if now.tzinfo else now.replace(tzinfo=zone)
    base = local_now.replace(tzinfo=None, microsecond=0)
    text, weekday = _normalise(raw)
    if not text:
        return ResolvedDate(None)
    naive = _parse_naive(text, base, tuple(languages))
    if naive is None:
        return ResolvedDate(None)
    flag: str | None = None
    if not _YEAR_RE.search(text) and not _RELATIVE_RE.search(text):
        limit = base + timedelta(minutes=5)  # clock skew between the board and the capture
        matched = _nearest_with_weekday(naive, base, weekday) if weekday is not None else None
        if matched is not None:
            naive = matched
            flag = AFTER_NOW if matched > limit else None
        else:
            naive = _latest_not_after(naive, limit)
            flag = WEEKDAY_MISMATCH if weekday is not None else None
    return ResolvedDate(naive.replace(tzinfo=zone), flag, _dst_flag(naive, zone))


def _dst_flag(naive: datetime, zone: ZoneInfo) -> str | None:
    """:data:`DST_REPEATED` / :data:`DST_SKIPPED` when the wall time ``naive`` is ambiguous in
    ``zone`` (its two folds have different offsets), else None."""
    first = naive.replace(tzinfo=zone, fold=0)
    if first.utcoffset() == naive.replace(tzinfo=zone, fold=1).utcoffset():
        return None
    back = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    return DST_REPEATED if back == naive else DST_SKIPPED


def settle_repeated_hours(posts: Sequence[Post]) -> list[Post]:
    """``posts`` (page order: ids ascending, so times never go back) with each
    :data:`DST_REPEATED` date read as its second occurrence (``fold=1``) when the first would
    put it before a previous post's time and the second does not; its warning then says so.
    Other posts are returned unchanged.
    """
    out: list[Post] = []
    latest: datetime | None = None  # UTC: aware datetimes of one zone compare by wall time
    for post in posts:
        at = post.posted_at
        repeated = any(DST_REPEATED in w for w in post.warnings)
        if repeated and at is not None and latest is not None:
            second = at.replace(fold=1)
            if at.astimezone(UTC) < latest <= second.astimezone(UTC):
                note = "second occurrence (fold=1): the first is before the previous post"
                warnings = tuple(
                    f"{w}: {note}" if DST_REPEATED in w else w for w in post.warnings
                )
                post = replace(post, posted_at=second, warnings=warnings)
                at = second
        if at is not None:
            utc = at.astimezone(UTC)
            latest = utc if latest is None or utc > latest else latest
        out.append(post)
    return out


def _nearest_with_weekday(value: datetime, base: datetime, weekday: int) -> datetime | None:
    candidates: list[datetime] = []
    for year in range(base.year + _YEARS_AHEAD, base.year - _YEARS_BACK - 1, -1):
        try:
            candidate = value.replace(year=year)
        except ValueError:  # 29 February in a common year
            continue
        if candidate.weekday() == weekday:
            candidates.append(candidate)
    if not candidates:
        return None
    return min(candidates, key=lambda c: abs((c - base).total_seconds()))


def _latest_not_after(value: datetime, limit: datetime) -> datetime:
    for year in range(limit.year, limit.year - 9, -1):
        try:
            candidate = value.replace(year=year)
        except ValueError:  # 29 February in a common year
            continue
        if candidate <= limit:
            return candidate
    return value
