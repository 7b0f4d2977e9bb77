"""Public JSON contract (page_to_json), the parse_page dispatcher and platform detection."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from parsers.contract import page_to_json, parse_page
from parsers.detect import detect_platform
from parsers.errors import ParseError, UnknownPageError
from parsers.model import DiceRoll, Post, TopicPage

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "html" / "phpbb"
FORUMACTIF_DIRS = (
    ROOT / "fixtures" / "html" / "forumactif",
    ROOT.parent / "shared" / "fixtures" / "forumactif",
)

SPELLBOOK = {"Lance de givre": [], "Bouclier de cendres": [], "Sortilège de Feu": ["Incendio"]}
POST_KEYS = {
    "post_id",
    "author",
    "author_id",
    "posted_at",
    "edited",
    "text",
    "bold",
    "quotes",
    "line_count",
    "dice",
    "action",
}


def read(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def test_page_to_json_shape_and_values() -> None:
    page = parse_page(read("viewtopic_t2_page1_fr.html"), source="page1")
    data = page_to_json(page, SPELLBOOK)
    assert set(data) == {"platform", "topic_id", "page", "pages", "logged_in_as", "posts"}
    assert (data["platform"], data["topic_id"], data["page"], data["pages"]) == ("phpbb3", 2, 1, 3)
    assert data["logged_in_as"] == "Hibou"
    posts: list[dict[str, Any]] = data["posts"]  # type: ignore[assignment]
    assert [p["post_id"] for p in posts] == list(range(2, 12))
    for post in posts:
        assert set(post) == POST_KEYS
        assert set(post["action"]) == {"spell", "bet", "kind", "target", "move_to"}
    p3, p4 = posts[1], posts[2]
    assert p3["author"] == "Aurora Vexley" and p3["author_id"] == 58
    assert p3["posted_at"] == "2026-11-30T11:43:09+00:00"
    assert datetime.fromisoformat(p3["posted_at"]).utcoffset() is not None
    assert p3["edited"] == {"by": "Aurora Vexley", "count": 1}
    assert p3["bold"] == ["Lance de givre"]
    assert p3["line_count"] == 4
    assert p3["dice"] == []
    assert p3["action"] == {
        "spell": "Lance de givre",
        "bet": None,
        "kind": "cast",  # names a spell, no dodge word (issue 16)
        "target": None,
        "move_to": None,
    }
    assert p4["quotes"] == [{"author": "Aurora Vexley", "post_id": 3, "depth": 0}]
    assert p4["action"]["spell"] == "Bouclier de cendres"
    assert p4["edited"] is None
    # the whole thing is JSON
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data


def test_page_to_json_without_spellbook_still_reads_bets() -> None:
    post = Post(
        post_id=9,
        author="Éloïse",
        author_id=14,
        posted_at=datetime(2025, 1, 2, 20, 47, tzinfo=UTC),
        edited=None,
        text="Récit.\nSortilège de Feu\nPari : [3,4,5,6]",
        bold=("Sortilège de Feu",),
        quotes=(),
        line_count=3,
        dice=(DiceRoll("Dé du Duel", (5,)),),
    )
    page = TopicPage(
        platform="forumactif", topic_id=12, page=1, pages=2, logged_in_as=None, posts=(post,)
    )
    (out,) = page_to_json(page, None)["posts"]  # type: ignore[misc]
    assert out["dice"] == [{"name": "Dé du Duel", "values": [5]}]
    assert out["action"] == {
        "spell": None,
        "bet": [3, 4, 5, 6],
        "kind": None,
        "target": None,
        "move_to": None,
    }
    assert out["posted_at"] == "2025-01-02T20:47:00+00:00"
    with_book = page_to_json(page, SPELLBOOK)["posts"][0]  # type: ignore[index]
    assert with_book["action"]["spell"] == "Sortilège de Feu"


@pytest.mark.parametrize("platform", ["auto", "phpbb3"])
def test_parse_page_phpbb(platform: str) -> None:
    page = parse_page(read("viewtopic_t2_page2_fr.html"), platform, source="p2")
    assert page.platform == "phpbb3"
    assert [p.post_id for p in page.posts][:2] == [12, 13]


def test_parse_page_404_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="topic does not exist"):
        parse_page(read("viewtopic_topic_does_not_exist_en.html"), source="t9999")


def test_parse_page_unknown_platform_name() -> None:
    with pytest.raises(UnknownPageError, match="unknown platform 'smf'"):
        parse_page(read("viewtopic_t2_page2_fr.html"), "smf", source="x")


FA_PAGE = '<html><head><script>_userdata["tpl_used"] = "modernbb";</script></head></html>'


def test_parse_page_forumactif_uses_injected_parser_with_its_options() -> None:
    calls: list[dict[str, Any]] = []
    result = TopicPage(
        platform="forumactif", topic_id=12, page=1, pages=1, logged_in_as=None, posts=()
    )

    def fake(
        html: str | bytes, source: str = "<html>", *, now: datetime, board_tz: str = "UTC"
    ) -> TopicPage:
        calls.append({"html": html, "source": source, "now": now, "board_tz": board_tz})
        return result

    now = datetime(2025, 3, 4, 14, 0, tzinfo=UTC)
    got = parse_page(FA_PAGE, source="fa", forumactif_parser=fake, now=now, timezone="Europe/Paris")
    assert got is result
    assert calls == [{"html": FA_PAGE, "source": "fa", "now": now, "board_tz": "Europe/Paris"}]
    with pytest.raises(ParseError, match="needs now"):
        parse_page(FA_PAGE, source="fa", forumactif_parser=fake)


def test_parse_page_forumactif_without_parser_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "parsers.forumactif", None)
    with pytest.raises(UnknownPageError, match="Forumactif parser is not available") as info:
        parse_page(FA_PAGE, source="fa-page")
    assert info.value.source == "fa-page"


# -- detect_platform ----------------------------------------------------------------------------


# every captured phpBB page with a body (302 answers have none)
PHPBB_PAGES = sorted(p.name for p in FIXTURES.glob("*.html") if p.stat().st_size > 0)


def test_phpbb_pages_include_more_than_topics() -> None:
    assert {"viewtopic_t2_page1_fr.html", "index_guest_fr.html"} <= set(PHPBB_PAGES)


@pytest.mark.parametrize("name", PHPBB_PAGES)
def test_detect_every_real_phpbb_page(name: str) -> None:
    assert detect_platform(read(name)) == "phpbb3"
    assert detect_platform(read(name).decode("utf-8")) == "phpbb3"


def _forumactif_pages() -> list[Path]:
    for folder in FORUMACTIF_DIRS:
        pages = sorted(folder.glob("**/*.html"))
        pages = [p for p in pages if "templates" not in p.parts]
        if pages:
            return pages
    return []


@pytest.mark.skipif(not _forumactif_pages(), reason="no Forumactif page fixtures found")
def test_detect_real_forumactif_pages_including_their_prosilver_look_alike() -> None:
    pages = _forumactif_pages()
    versions = set()
    for path in pages:
        data = path.read_bytes()
        assert detect_platform(data) == "forumactif", path
        if b'"prosilver"' in data:
            versions.add("prosilver")
    assert "prosilver" in versions  # the phpBB3 display version is still Forumactif


@pytest.mark.parametrize(
    ("html", "platform"),
    [
        (FA_PAGE, "forumactif"),
        ("<script>_board['Forumotion'] = 1;</script>", "forumactif"),
        ('<body id="phpbb" class="nojs notouch section-viewtopic ltr ">', "phpbb3"),
        ('<span>Propulsé par <a href="https://www.phpbb.com/">phpBB</a>&reg;</span>', "phpbb3"),
        ('<span>Powered by <a href="https://www.phpbb.com/">phpBB</a></span>', "phpbb3"),
        ("<!--\n\tphpBB style name: prosilver\n-->", "phpbb3"),
    ],
)
def test_detect_markers(html: str, platform: str) -> None:
    assert detect_platform(html) == platform


@pytest.mark.parametrize("html", ["", "<html><body><p>Hello phpBB fans</p></body></html>", b"\x00"])
def test_detect_unknown(html: str | bytes) -> None:
    with pytest.raises(UnknownPageError, match="neither a phpBB 3 nor a Forumactif page"):
        detect_platform(html, "somewhere")
