"""Issue 16, "read what people and old styles write": bold variants, WHATWG encodings and
dates, on variants of the real captures of both platforms (made here from
``../shared/fixtures``, read in place; skipped when the folder is absent).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from forumbot.publish.typography import plain
from parsers.forumactif import parse_topic_page as parse_forumactif
from parsers.phpbb import parse_topic_page as parse_phpbb

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "fixtures"
PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2025, 3, 4, 15, 0, tzinfo=PARIS)
VERSIONS = ["phpbb2", "phpbb3", "punbb", "invision", "modernbb", "awesomebb"]
PHPBB_PAGE = "phpbb/viewtopic_t2_page3_after_moderator_edit_fr.html"
PHPBB_BOLD = '<strong class="text-strong">Dernier brasier</strong>'
FIRST_WORDS = "Bienvenue à tous"  # start of the first post of the built Forumactif pages
META_RE = re.compile(r"<meta[^>]*charset[^>]*>", re.IGNORECASE)
BOLD_VARIANTS = [
    '<span style="font-weight: bold">{}</span>',
    '<span style="font-weight:700">{}</span>',
    '<span style="color: red; font-weight: bolder">{}</span>',
    "<b>{}</b>",
    "<strong>{}</strong>",
]


def shared_text(relative: str) -> str:
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"shared captures not found at {SHARED} (need {relative})")
    return path.read_text(encoding="utf-8")


def forumactif_page(version: str) -> str:
    return shared_text(f"forumactif/built/{version}/topic_t12_A.html")


def in_first_forumactif_post(page: str, piece: str) -> str:
    at = page.index(FIRST_WORDS, page.index("post--"))
    return page[:at] + piece + page[at:]


@pytest.mark.parametrize("variant", BOLD_VARIANTS)
def test_bold_variants_phpbb(variant: str) -> None:
    page = shared_text(PHPBB_PAGE)
    assert PHPBB_BOLD in page
    post = parse_phpbb(page.replace(PHPBB_BOLD, variant.format("Dernier brasier"))).posts[1]
    assert post.post_id == 23
    assert post.bold == ("Dernier brasier",)


def test_normal_weight_span_is_not_bold_phpbb() -> None:
    page = shared_text(PHPBB_PAGE)
    variant = '<span style="font-weight: normal">Dernier brasier</span>'
    assert parse_phpbb(page.replace(PHPBB_BOLD, variant)).posts[1].bold == ()


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("variant", BOLD_VARIANTS)
def test_bold_variants_forumactif(version: str, variant: str) -> None:
    page = in_first_forumactif_post(forumactif_page(version), variant.format("Sortilège de Feu"))
    post = parse_forumactif(page, now=NOW).posts[0]
    assert post.bold[0] == "Sortilège de Feu"


def _latin1_variant(page: str, label: str | None) -> bytes:
    """The page served in windows-1252, labelled ``label`` (None: no charset at all)."""
    if label is None:
        page = META_RE.sub("", page)
    else:
        page = META_RE.sub(
            f'<meta http-equiv="content-type" content="text/html; charset={label}">', page
        )
    return page.encode("cp1252", errors="xmlcharrefreplace")


@pytest.mark.parametrize("label", ["iso-8859-1", "latin1", "ISO-8859-1", None])
def test_latin1_labels_and_no_charset_read_as_windows_1252_phpbb(label: str | None) -> None:
    page = shared_text(PHPBB_PAGE)
    page = page.replace(PHPBB_BOLD, "« l’ennemi » recule. " + PHPBB_BOLD)
    post = parse_phpbb(_latin1_variant(page, label)).posts[1]
    assert "« l’ennemi » recule." in plain(post.html)  # the text folds ’ to ' (parsers.text)
    assert "« l'ennemi » recule." in plain(post.text)
    assert "\ufffd" not in post.html and "\x92" not in post.html


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("label", ["iso-8859-1", "latin1", None])
def test_latin1_labels_and_no_charset_read_as_windows_1252_forumactif(
    version: str, label: str | None
) -> None:
    page = in_first_forumactif_post(forumactif_page(version), "« l’ennemi » recule.<br />")
    first = parse_forumactif(_latin1_variant(page, label), now=NOW).posts[0]
    assert first.text.startswith("« l’ennemi » recule.\nBienvenue à tous")


@pytest.mark.parametrize("version", VERSIONS)
def test_decomposed_month_still_gives_the_date_forumactif(version: str) -> None:
    page = forumactif_page(version)
    clean = parse_forumactif(page, now=NOW)
    decomposed = page.replace("Déc", unicodedata.normalize("NFD", "Déc"))
    assert decomposed != page
    parsed = parse_forumactif(decomposed, now=NOW)
    assert [p.posted_at for p in parsed.posts] == [p.posted_at for p in clean.posts]
    assert parsed.posts[0].posted_at == datetime(2024, 12, 29, 18, 30, tzinfo=PARIS)


def test_year_less_date_weekday_decides_the_year_forumactif() -> None:
    page = forumactif_page("phpbb3")
    clean = parse_forumactif(page, now=NOW)
    dated = [p for p in clean.posts if p.posted_at is not None and p.posted_at.year == 2025]
    assert dated, "the capture has year-less dates of 2025"
    # The same page read three years later: the weekdays still say 2025.
    later = parse_forumactif(page, now=datetime(2028, 2, 1, 12, 0, tzinfo=PARIS))
    by_id = {p.post_id: p for p in later.posts}
    for post in dated:
        assert by_id[post.post_id].posted_at == post.posted_at
        assert by_id[post.post_id].warnings == ()
