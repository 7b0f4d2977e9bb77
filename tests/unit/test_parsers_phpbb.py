"""phpBB 3.3.15 prosilver topic pages (real captures in fixtures/html/phpbb) -> TopicPage."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from parsers.errors import ParseError, UnknownPageError
from parsers.model import Edit, Post, Quote, TopicPage
from parsers.phpbb import parse_display_date, parse_topic_page

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
VIEWTOPIC_PAGES = sorted(p.name for p in FIXTURES.glob("viewtopic_*.html"))


def load(name: str) -> TopicPage:
    path = FIXTURES / name
    return parse_topic_page(path.read_bytes(), str(path))


def by_id(page: TopicPage) -> dict[int, Post]:
    return {p.post_id: p for p in page.posts}


# (file, topic_id, page, pages, logged_in_as, post ids, quick reply form present)
PAGE_FACTS = [
    ("viewtopic_t2_page1_fr.html", 2, 1, 3, "Hibou", list(range(2, 12)), True),
    ("viewtopic_t2_page1_en.html", 2, 1, 3, "Odric Fenwick", list(range(2, 12)), True),
    ("viewtopic_t2_page1_guest_fr.html", 2, 1, 3, None, list(range(2, 12)), False),
    ("viewtopic_t2_page2_fr.html", 2, 2, 3, "Hibou", list(range(12, 22)), True),
    ("viewtopic_t2_page2_en.html", 2, 2, 3, "Odric Fenwick", list(range(12, 22)), True),
    ("viewtopic_t2_page3_fr.html", 2, 3, 3, "Hibou", list(range(22, 28)), True),
    ("viewtopic_t2_page3_guest_fr.html", 2, 3, 3, None, list(range(22, 28)), False),
    (
        "viewtopic_t2_page3_after_moderator_edit_fr.html",
        2,
        3,
        3,
        "Hibou",
        list(range(22, 28)),
        True,
    ),
    (
        "viewtopic_t2_page3_after_moderator_edit_fr_again.html",
        2,
        3,
        3,
        "Hibou",
        list(range(22, 28)),
        True,
    ),
    ("viewtopic_by_post_id_fr.html", 2, 2, 3, "Hibou", list(range(12, 22)), True),
    ("viewtopic_edited_post_fr.html", 2, 1, 1, "Aurora Vexley", list(range(2, 8)), True),
    ("viewtopic_t3_inscriptions_guest_fr.html", 3, 1, 1, None, [28, 29, 30, 31], False),
]
NOT_FOUND_PAGES = [
    ("viewtopic_topic_does_not_exist_fr.html", "Le sujet demandé n’existe pas."),
    ("viewtopic_topic_does_not_exist_guest_fr.html", "Le sujet demandé n’existe pas."),
    ("viewtopic_topic_does_not_exist_en.html", "The requested topic does not exist."),
]


def test_every_viewtopic_fixture_is_covered() -> None:
    covered = {row[0] for row in PAGE_FACTS} | {row[0] for row in NOT_FOUND_PAGES}
    assert set(VIEWTOPIC_PAGES) == covered
    assert len(VIEWTOPIC_PAGES) == 15


@pytest.mark.parametrize(
    ("name", "topic_id", "page_no", "pages", "user", "post_ids", "has_form"), PAGE_FACTS
)
def test_page_facts(
    name: str,
    topic_id: int,
    page_no: int,
    pages: int,
    user: str | None,
    post_ids: list[int],
    has_form: bool,
) -> None:
    page = load(name)
    assert page.platform == "phpbb3"
    assert page.version == "prosilver"
    assert (page.topic_id, page.page, page.pages) == (topic_id, page_no, pages)
    assert page.logged_in_as == user
    assert [p.post_id for p in page.posts] == post_ids
    assert page.forum_id == (3 if topic_id == 2 else 4)
    expected_title = (
        "Duel n°1 : Aurora Vexley contre Cassius Thorne"
        if topic_id == 2
        else "Inscriptions pour le duel n°2"
    )
    assert page.title == expected_title
    assert (page.reply_form is not None) == has_form
    for post in page.posts:
        assert post.posted_at is not None and post.posted_at.tzinfo is not None
        assert post.posted_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]
        assert post.line_count == len([ln for ln in post.text.split("\n") if ln.strip()])


def test_authors_of_all_26_posts_of_topic_2_match_the_scenario_log() -> None:
    log = json.loads((FIXTURES / "scenario_log.json").read_text(encoding="utf-8"))
    expected = {
        fact["post_id"]: fact["poster"]
        for fact in log["facts"]["posts"].values()
        if fact["topic_id"] == 2
    }
    assert len(expected) == 26
    seen: dict[int, str] = {}
    for name in (
        "viewtopic_t2_page1_fr.html",
        "viewtopic_t2_page2_fr.html",
        "viewtopic_t2_page3_fr.html",
    ):
        for post in load(name).posts:
            seen[post.post_id] = post.author
    assert seen == expected
    user_ids = {
        "Arbitre": 62,
        "Aurora Vexley": 58,
        "Cassius Thorne": 59,
        "Maelis Dunbar": 60,
        "Odric Fenwick": 61,
        "Hibou": 63,
    }
    for name in ("viewtopic_t2_page1_en.html", "viewtopic_t2_page2_en.html"):
        for post in load(name).posts:
            assert post.author == expected[post.post_id]
            assert post.author_id == user_ids[post.author]


# post id -> (bold of own content, line_count)
BOLD_AND_LINES = {
    2: ((), 11),
    3: (("Lance de givre",), 4),
    4: (("Bouclier de cendres",), 3),
    5: ((), 6),
    6: ((), 1),
    7: (("Tempête d'aiguilles",), 13),
    8: (("Flamme noire",), 3),
    9: ((), 3),
    10: ((), 6),
    11: ((), 1),
    12: (("Miroir de glace",), 3),
    13: (("Pluie de cendres",), 13),
    14: ((), 1),
    15: ((), 2),
    16: ((), 6),
    17: (("Prison de givre",), 3),
    18: (("Souffle du phénix",), 3),
    19: ((), 3),
    20: ((), 2),
    21: ((), 6),
    22: (("Hiver éternel",), 13),
    23: (("Dernier brasier",), 3),
    24: (("Victoire d'Aurora Vexley",), 11),
    25: (("victoire",), 4),
    26: ((), 1),
    27: ((), 1),
}


@pytest.mark.parametrize(
    "name",
    [
        "viewtopic_t2_page1_fr.html",
        "viewtopic_t2_page1_en.html",
        "viewtopic_t2_page2_fr.html",
        "viewtopic_t2_page3_after_moderator_edit_fr.html",
    ],
)
def test_bold_and_line_counts(name: str) -> None:
    for post in load(name).posts:
        assert (post.bold, post.line_count) == BOLD_AND_LINES[post.post_id], post.post_id


def test_quotes_single_multi_and_nested() -> None:
    p1 = by_id(load("viewtopic_t2_page1_fr.html"))
    p2 = by_id(load("viewtopic_t2_page2_fr.html"))
    p3 = by_id(load("viewtopic_t2_page3_fr.html"))
    assert p1[4].quotes == (Quote("Aurora Vexley", 3),)
    assert p1[9].quotes == (Quote("Cassius Thorne", 8),)
    assert p2[14].quotes == (  # two quotes side by side
        Quote("Cassius Thorne", 13),
        Quote("Aurora Vexley", 12),
    )
    assert p2[20].quotes == (
        Quote("Maelis Dunbar", 14),
        Quote("Cassius Thorne", 13, depth=1),  # p14's two quotes, inside the quote of p14
        Quote("Aurora Vexley", 12, depth=1),
    )
    assert p3[27].quotes == (Quote("Arbitre", 24),)
    assert all(not p.quotes for i, p in p1.items() if i not in (4, 9))


def test_quoted_text_and_bold_do_not_leak_into_own_content() -> None:
    posts = by_id(load("viewtopic_t2_page1_fr.html"))
    p4 = posts[4]
    assert p4.text == (
        "Joli début, mais la glace fond vite près de moi.\n"
        "Je fais jaillir un mur de braises entre nous et la lance s'y brise.\n"
        "Sort : Bouclier de cendres"
    )
    assert "Lance de givre" not in p4.html
    assert "<blockquote" not in p4.html
    assert '<strong class="text-strong">Bouclier de cendres</strong>' in p4.html
    p20 = by_id(load("viewtopic_t2_page2_fr.html"))[20]
    assert p20.text == (
        "Noté, Maelis. Le tournant est confirmé.\n"
        "Prison de givre : Cassius perd 6 PV. Souffle du phénix : Aurora perd 4 PV."
    )
    p14 = by_id(load("viewtopic_t2_page2_fr.html"))[14]
    assert p14.text == "Le miroir contre la pluie, c'est le tournant du duel selon moi."
    assert p14.bold == ()


AT_1243 = datetime(2026, 11, 30, 11, 43, tzinfo=UTC)  # displayed 12:43 Europe/Paris
AT_1245 = datetime(2026, 11, 30, 11, 45, tzinfo=UTC)


def test_edits_by_author_and_by_moderator() -> None:
    p1 = by_id(load("viewtopic_t2_page1_fr.html"))
    assert p1[3].edited == Edit(by="Aurora Vexley", count=1, at=AT_1243)
    assert "Modifié" not in p1[3].text
    assert [i for i, p in p1.items() if p.edited] == [3]
    en = by_id(load("viewtopic_t2_page1_en.html"))
    assert en[3].edited == Edit(by="Aurora Vexley", count=1, at=AT_1243)
    p2 = by_id(load("viewtopic_t2_page2_fr.html"))
    assert p2[13].edited == Edit(by="Cassius Thorne", count=1, at=AT_1243)
    assert [i for i, p in p2.items() if p.edited] == [13]
    before = by_id(load("viewtopic_t2_page3_fr.html"))
    after = by_id(load("viewtopic_t2_page3_after_moderator_edit_fr.html"))
    assert before[24].edited is None
    assert after[24].edited == Edit(by="admin", count=1, at=AT_1245)
    assert "Correction du score" not in after[24].text
    assert "Raison" not in after[24].text
    assert after[24].text.endswith("(Score vérifié par l'administration.)")
    assert not before[24].text.endswith("(Score vérifié par l'administration.)")
    edited = by_id(load("viewtopic_edited_post_fr.html"))
    assert edited[3].edited == Edit(by="Aurora Vexley", count=1, at=AT_1243)
    assert edited[3].text.splitlines()[-1] == "(Précision : la lance vise l'épaule gauche.)"


def test_emoji_kept_as_alt_text() -> None:
    p6 = by_id(load("viewtopic_t2_page1_fr.html"))[6]
    assert p6.text == ("Quel début ! 🔥 Je parie sur Aurora, le givre finit toujours par gagner.")
    assert p6.line_count == 1


def test_posted_at_is_the_utc_time_element() -> None:
    posts = by_id(load("viewtopic_t2_page1_fr.html"))
    assert posts[2].posted_at == datetime(2026, 11, 30, 11, 43, 7, tzinfo=UTC)
    assert posts[3].posted_at == datetime(2026, 11, 30, 11, 43, 9, tzinfo=UTC)


def test_french_and_english_ui_give_the_same_posts() -> None:
    for fr_name, en_name in (
        ("viewtopic_t2_page1_fr.html", "viewtopic_t2_page1_en.html"),
        ("viewtopic_t2_page2_fr.html", "viewtopic_t2_page2_en.html"),
    ):
        fr, en = load(fr_name), load(en_name)
        assert [(p.post_id, p.text, p.bold, p.quotes, p.edited) for p in fr.posts] == [
            (p.post_id, p.text, p.bold, p.quotes, p.edited) for p in en.posts
        ]


def test_guest_and_logged_in_pages_give_the_same_posts() -> None:
    for guest, member in (
        ("viewtopic_t2_page1_guest_fr.html", "viewtopic_t2_page1_fr.html"),
        ("viewtopic_t2_page3_guest_fr.html", "viewtopic_t2_page3_fr.html"),
    ):
        assert load(guest).posts == load(member).posts


def test_post_id_lookup_page_is_page_2() -> None:
    page = load("viewtopic_by_post_id_fr.html")
    assert (page.topic_id, page.page, page.pages) == (2, 2, 3)
    assert page.posts == load("viewtopic_t2_page2_fr.html").posts


def test_quick_reply_form_fields() -> None:
    form = load("viewtopic_t2_page3_fr.html").reply_form
    assert form is not None
    assert form.action == "./posting.php?mode=reply&t=2"
    assert form.fields["topic_cur_post_id"] == "27"
    assert form.fields["topic_id"] == "2"
    assert form.fields["forum_id"] == "3"
    assert form.fields["creation_time"] == "1796039107"
    assert form.fields["form_token"] == "8e5312289673dc8e46bba10121186155084151d2"
    assert form.fields["subject"] == "Re: Duel n°1 : Aurora Vexley contre Cassius Thorne"
    assert [name for name, _ in form.items] == [
        "subject",
        "creation_time",
        "form_token",
        "topic_cur_post_id",
        "topic_id",
        "forum_id",
        "attach_sig",
    ]
    # the page fetched right after the first capture only differs by form and cron
    again = load("viewtopic_t2_page3_after_moderator_edit_fr_again.html")
    assert again.posts == load("viewtopic_t2_page3_after_moderator_edit_fr.html").posts


@pytest.mark.parametrize(("name", "message"), NOT_FOUND_PAGES)
def test_topic_does_not_exist_is_a_parse_error(name: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        load(name)
    assert not isinstance(info.value, UnknownPageError)
    assert info.value.reason.startswith("topic does not exist")
    assert message.replace("’", "'") in info.value.reason
    assert info.value.source.endswith(name)


@pytest.mark.parametrize(
    ("name", "section"),
    [
        ("index_guest_fr.html", "section-index"),
        ("viewforum_f3_logged_in_fr.html", "section-viewforum"),
        ("posting_post_review_new_post_en.html", "section-posting"),
    ],
)
def test_other_phpbb_pages_are_unknown_pages(name: str, section: str) -> None:
    with pytest.raises(UnknownPageError) as info:
        load(name)
    assert section in info.value.reason
    assert name in str(info.value)


@pytest.mark.parametrize(
    "html",
    [
        "",
        "   ",
        "just text",
        "<html><body><p>Hello</p></body></html>",
        '<html><head><script>_userdata["tpl_used"] = "prosilver";</script></head>'
        '<body><div id="p301" class="post"><div class="content">x</div></div></body></html>',
    ],
)
def test_non_phpbb_input_raises_unknown_page_naming_the_source(html: str) -> None:
    with pytest.raises(UnknownPageError) as info:
        parse_topic_page(html, source="https://example.invalid/t1")
    assert info.value.source == "https://example.invalid/t1"
    assert "https://example.invalid/t1" in str(info.value)


def test_str_and_bytes_inputs_agree() -> None:
    raw = (FIXTURES / "viewtopic_t2_page2_fr.html").read_bytes()
    assert parse_topic_page(raw) == parse_topic_page(raw.decode("utf-8"))


SYNTHETIC = """<!DOCTYPE html><html><head>
<link href="./styles/prosilver/theme/stylesheet.css?assets_version=1" rel="stylesheet">
</head><body id="phpbb" class="nojs section-viewtopic">
<h2 class="topic-title"><a href="./viewtopic.php?t=7">Duel</a></h2>
<div class="pagination">3 messages &bull; Page <strong>1</strong> sur <strong>1</strong></div>
<div id="p70" class="post has-profile bg2"><div class="inner"><div class="postbody">
<p class="author"><span class="responsive-hide">par <strong>
<span class="username">Ancien membre</span></strong></span>
<time datetime="2026-01-02T10:00:00+00:00">x</time></p>
<div class="content">Intro <b>gras <strong>imbriqué</strong></b><br>
<blockquote class="uncited"><div>cité <strong>Non</strong></div></blockquote>
<div class="codebox"><p>Code : </p><pre><code>&lt;b&gt;<strong>Pas ça</strong></code></pre></div>
Fin<br><br><br>Dernière <strong>Sortilège de Feu</strong>
<img class="postimage" alt="Image" src="x.png">
</div>
<div id="sig70" class="signature"><strong>Signature en gras</strong></div>
</div></div></div>
</body></html>"""


def test_synthetic_post_guest_author_code_signature_uncited_quote() -> None:
    page = parse_topic_page(SYNTHETIC, "synthetic")
    assert (page.topic_id, page.page, page.pages, page.logged_in_as) == (7, 1, 1, None)
    (post,) = page.posts
    assert post.author == "Ancien membre" and post.author_id is None
    assert post.bold == ("gras imbriqué", "Sortilège de Feu")
    assert post.quotes == (Quote(None, None),)
    assert post.text == "Intro gras imbriqué\nFin\n\nDernière Sortilège de Feu"
    assert post.line_count == 3
    assert "Signature" not in post.text and "Pas ça" not in post.text
    assert "<pre>" not in post.html and "<blockquote" not in post.html


def test_post_without_content_is_a_parse_error() -> None:
    broken = SYNTHETIC.replace('<div class="content">', '<div class="contents-missing">')
    with pytest.raises(ParseError, match="p70 has no div.content"):
        parse_topic_page(broken, "synthetic")


@pytest.mark.parametrize(
    ("notice", "expected"),
    [
        (
            "Modifié en dernier par X le mar. 3 févr. 2026 09:05, modifié 2 fois.",
            datetime(2026, 2, 3, 8, 5, tzinfo=UTC),
        ),
        (
            "Last edited by X on Sat 4 Jul 2026 23:30, edited 3 times in total.",
            datetime(2026, 7, 4, 21, 30, tzinfo=UTC),
        ),
        ("Modifié en dernier par X le Aujourd’hui, 12:43, modifié 1 fois.", None),
    ],
)
def test_display_dates_in_the_board_zone(notice: str, expected: datetime | None) -> None:
    assert parse_display_date(notice, ZoneInfo("Europe/Paris")) == expected


def test_edit_time_unknown_without_footer_zone() -> None:
    html = SYNTHETIC.replace(
        '<div id="sig70"',
        '<div class="notice">Modifié en dernier par <a class="username">Ancien membre</a> '
        'le lun. 30 nov. 2026 12:43, modifié 4 fois.</div><div id="sig70"',
    )
    (post,) = parse_topic_page(html, "synthetic").posts
    assert post.edited == Edit(by="Ancien membre", count=4, at=None)
    with_zone = html.replace(
        "</body>",
        '<div id="page-footer"><ul><li>Heures au format <span title="">UTC-05:00</span></li>'
        "</ul></div></body>",
    )
    (post,) = parse_topic_page(with_zone, "synthetic").posts
    assert post.edited == Edit(
        by="Ancien membre", count=4, at=datetime(2026, 11, 30, 17, 43, tzinfo=UTC)
    )


def test_a_page_saved_as_windows_1252_is_decoded_by_its_declared_charset() -> None:
    """A real page re-saved by an editor in windows-1252 (meta charset changed): accents
    survive (phpBB itself always serves UTF-8)."""
    from parsers.phpbb import parse_topic_page as parse

    page = (
        Path(__file__).resolve().parents[2]
        / "fixtures"
        / "html"
        / "phpbb"
        / "viewtopic_t2_page1_fr.html"
    ).read_text(encoding="utf-8")
    page = page.replace('charset="utf-8"', 'charset="windows-1252"')
    data = page.encode("windows-1252", errors="replace")
    utf8 = parse(page)
    cp1252 = parse(data)
    assert [p.author for p in cp1252.posts] == [p.author for p in utf8.posts]
    assert [p.bold for p in cp1252.posts][:3] == [p.bold for p in utf8.posts][:3]
