"""French Forumactif dates -> aware datetimes (parsers.forumactif.dates)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from parsers.forumactif.dates import (
    AFTER_NOW,
    DST_REPEATED,
    DST_SKIPPED,
    WEEKDAY_MISMATCH,
    find_date,
    parse_forumactif_date,
    resolve_forumactif_date,
    settle_repeated_hours,
)
from parsers.model import Post

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2025, 3, 4, 15, 0, tzinfo=PARIS)  # a Tuesday


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Aujourd'hui à 14:32", datetime(2025, 3, 4, 14, 32)),
        ("Aujourd’hui à 0:05", datetime(2025, 3, 4, 0, 5)),
        ("Hier à 23:58", datetime(2025, 3, 3, 23, 58)),
        ("Lun 3 Mar - 14:32", datetime(2025, 3, 3, 14, 32)),
        ("Dim 29 Déc 2024 - 18:30", datetime(2024, 12, 29, 18, 30)),
        ("Lun 30 Déc 2024 - 9:05", datetime(2024, 12, 30, 9, 5)),
        ("Jeu 2 Jan - 21:47", datetime(2025, 1, 2, 21, 47)),
        ("Mar 26 Mar 2013 - 10:01", datetime(2013, 3, 26, 10, 1)),
        # Year-less: the year whose weekday matches, nearest to now (issue 16).
        ("Ven 28 Juil - 23:04", datetime(2023, 7, 28, 23, 4)),  # 28 Jul 2024 was a Sunday
        ("Mer 5 Mar - 10:00", datetime(2025, 3, 5, 10, 0)),  # flagged after_now
        ("5 Mar - 10:00", datetime(2024, 3, 5, 10, 0)),  # no weekday: latest not after now
        ("Jeu 1 Aoû 2024 - 12:00", datetime(2024, 8, 1, 12, 0)),
        ("Mer 5 Fév 2025 - 8:00", datetime(2025, 2, 5, 8, 0)),
        ("Sam 29 Fév - 10:00", datetime(2020, 2, 29, 10, 0)),  # 29 Feb 2024 was a Thursday
        ("05.04.23 17:14", datetime(2023, 4, 5, 17, 14)),
        ("06.04.23 9:41", datetime(2023, 4, 6, 9, 41)),
        ("Wed 29 Jul 2015 - 15:51", datetime(2015, 7, 29, 15, 51)),
        ("Today at 9:00", datetime(2025, 3, 4, 9, 0)),
    ],
)
def test_parse_forumactif_date(raw: str, expected: datetime) -> None:
    result = parse_forumactif_date(raw, now=NOW, board_tz="Europe/Paris")
    assert result == expected.replace(tzinfo=PARIS)
    assert result is not None and result.tzinfo is not None


def test_now_in_another_zone_is_converted_to_board_time() -> None:
    now_utc = datetime(2025, 3, 4, 23, 30, tzinfo=ZoneInfo("UTC"))  # already 5 March in Paris
    result = parse_forumactif_date("Aujourd'hui à 0:10", now=now_utc)
    assert result == datetime(2025, 3, 5, 0, 10, tzinfo=PARIS)


def test_board_timezone_is_attached() -> None:
    result = parse_forumactif_date("Dim 29 Déc 2024 - 18:30", now=NOW, board_tz="America/Montreal")
    assert result == datetime(2024, 12, 29, 18, 30, tzinfo=ZoneInfo("America/Montreal"))


@pytest.mark.parametrize("raw", ["", "pas une date", "Invité"])
def test_not_a_date(raw: str) -> None:
    assert parse_forumactif_date(raw, now=NOW) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("par Invité Dim 2 Mar - 16:40", "Dim 2 Mar - 16:40"),
        ("Sujet: Re: Duel officiel : Éloïse   Sam 4 Jan - 11:20", "Sam 4 Jan - 11:20"),
        ("#10 Re: Duel Aujourd'hui à 14:32", "Aujourd'hui à 14:32"),
        ("05.04.23 17:14", "05.04.23 17:14"),
        ("aucune date ici", None),
    ],
)
def test_find_date(text: str, expected: str | None) -> None:
    assert find_date(text) == expected


def test_decomposed_accents_are_nfc_normalised() -> None:
    decomposed = "Dim 29 De\u0301c 2024 - 18:30"
    assert find_date("par Invité " + decomposed) == "Dim 29 Déc 2024 - 18:30"
    assert parse_forumactif_date(decomposed, now=NOW) == datetime(
        2024, 12, 29, 18, 30, tzinfo=PARIS
    )


def test_year_less_date_takes_the_year_its_weekday_matches() -> None:
    now = datetime(2025, 6, 1, 12, 0, tzinfo=PARIS)
    resolved = resolve_forumactif_date("Ven 17 Juin - 10:00", now=now)
    assert resolved.at == datetime(2022, 6, 17, 10, 0, tzinfo=PARIS)
    assert resolved.at is not None and resolved.at.weekday() == 4  # a Friday, not 2024's Monday
    assert resolved.flag is None
    assert resolve_forumactif_date("Mer 5 Mar - 10:00", now=NOW).flag == AFTER_NOW
    assert resolve_forumactif_date("Jeu 2 Jan - 21:47", now=NOW).flag is None


def test_year_less_date_whose_weekday_matches_no_year_is_flagged() -> None:
    # 29 February fell on a Tuesday in none of the leap years 2014-2026.
    resolved = resolve_forumactif_date("Mar 29 Fév - 10:00", now=NOW)
    assert resolved.flag == WEEKDAY_MISMATCH
    assert resolved.at == datetime(2024, 2, 29, 10, 0, tzinfo=PARIS)


# -- daylight saving time (issue 22) -----------------------------------------------------

OCTOBER = datetime(2024, 10, 28, 12, 0, tzinfo=PARIS)  # the day after the autumn change


def test_a_date_in_the_repeated_autumn_hour_is_flagged_and_read_as_its_first_occurrence() -> None:
    resolved = resolve_forumactif_date("Dim 27 Oct 2024 - 2:30", now=OCTOBER)
    assert resolved.dst == DST_REPEATED and resolved.flag is None
    assert resolved.at is not None and resolved.at.fold == 0
    assert resolved.at.utcoffset() == timedelta(hours=2)  # summer time: the earlier instant
    assert resolved.at.astimezone(UTC) == datetime(2024, 10, 27, 0, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("raw", "dst"),
    [
        ("Dim 27 Oct 2024 - 1:59", None),
        ("Dim 27 Oct 2024 - 2:00", DST_REPEATED),
        ("Dim 27 Oct 2024 - 2:59", DST_REPEATED),
        ("Dim 27 Oct 2024 - 3:00", None),
        ("Dim 31 Mar 2024 - 2:30", DST_SKIPPED),  # does not exist: not shown in Europe/Paris
        ("Lun 30 Déc 2024 - 9:05", None),
    ],
)
def test_only_the_changing_hours_are_flagged(raw: str, dst: str | None) -> None:
    assert resolve_forumactif_date(raw, now=OCTOBER).dst == dst


def post(post_id: int, raw: str) -> Post:
    resolved = resolve_forumactif_date(raw, now=OCTOBER)
    flags = [f"posted_at: {f} ({raw!r})" for f in (resolved.flag, resolved.dst) if f]
    return Post(
        post_id, "Aurora Vexley", None, resolved.at, None, "x", (), (), 1, warnings=tuple(flags)
    )


def test_the_posts_before_a_repeated_hour_tell_its_second_occurrence() -> None:
    posts = [
        post(1, "Dim 27 Oct 2024 - 1:50"),
        post(2, "Dim 27 Oct 2024 - 2:40"),  # summer time (nothing says otherwise)
        post(3, "Dim 27 Oct 2024 - 2:10"),  # before post 2 in summer time: the winter 2:10
        post(4, "Dim 27 Oct 2024 - 2:20"),  # after the winter 2:10: winter too
        post(5, "Dim 27 Oct 2024 - 3:05"),
    ]
    settled = settle_repeated_hours(posts)
    utc = [p.posted_at.astimezone(UTC).strftime("%H:%M") for p in settled if p.posted_at]
    assert utc == ["23:50", "00:40", "01:10", "01:20", "02:05"]
    assert [p.posted_at.fold for p in settled if p.posted_at] == [0, 0, 1, 1, 0]
    assert settled[1].warnings == posts[1].warnings  # still flagged: nothing proves the fold
    assert "second occurrence (fold=1)" in settled[2].warnings[0]
    assert all(any(DST_REPEATED in w for w in p.warnings) for p in settled[1:4])
    assert settle_repeated_hours(posts[:1]) == posts[:1]
