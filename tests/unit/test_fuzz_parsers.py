"""Property tests: the phpBB topic parser and the action parser never crash on hostile input.

Inputs are random pages and real captures (``fixtures/html/phpbb/viewtopic_*.html``) mutated
the ways a live board, a proxy or a player can damage them: truncated downloads, deleted
tags, duplicated posts, quotes nested 30 deep, a 1 MB post, broken tags and entities, odd
Unicode (RTL marks, zero-width joiners, combining accents, emoji). The only exception allowed
out of :func:`parsers.phpbb.parse_topic_page` is :class:`parsers.errors.ParseError`;
:func:`parsers.action.parse_action` must never raise on a parsed post.

Set ``FORUMBOT_FUZZ_EXAMPLES`` (default 50) for a longer run.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from parsers.action import SpellMatcher, parse_action
from parsers.errors import ParseError
from parsers.model import Post, TopicPage
from parsers.phpbb import parse_topic_page
from rules import parse_ruleset, ruleset_path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
PAGES = {p.name: p.read_text(encoding="utf-8") for p in sorted(FIXTURES.glob("viewtopic_*.html"))}
TOPIC_PAGES = sorted(n for n in PAGES if "does_not_exist" not in n)
SPELLBOOK = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8")).spellbook_names()
MATCHER = SpellMatcher(SPELLBOOK)

# ~50 examples keep the suite fast; FORUMBOT_FUZZ_EXAMPLES=2000 for a deep run.
FAST = settings(
    max_examples=int(os.environ.get("FORUMBOT_FUZZ_EXAMPLES", "50")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

ODD_UNICODE = [
    "\u200f",  # right-to-left mark
    "\u202e",  # right-to-left override
    "\u2066",  # left-to-right isolate
    "\u200b",  # zero-width space
    "\u200d",  # zero-width joiner
    "\ufeff",  # byte order mark / zero-width no-break space
    "\u0301\u0301\u0336",  # combining acute x2, combining long stroke
    "e\u0301",  # decomposed é
    "🧙\u200d♂️",  # emoji ZWJ sequence
    "🪄✨",
    "\U0001f600" * 20,
    "ﬁ",  # ligature
    "Ａｕｒｏｒａ",  # fullwidth letters
    "Аurora",  # Cyrillic А
    "\u00a0\u2009\u202f",  # no-break / thin spaces
    "\x00",
    "\x1b[31m",
    "\r\n\r",
]
BROKEN = [
    "<div",
    "</div></div></div>",
    "</blockquote>",
    "<blockquote>",
    "<strong><em>",
    "</strong>",
    "<!--",
    "-->",
    "<![CDATA[",
    "]]>",
    "&#xD800;",
    "&#0;",
    "&#99999999;",
    "&amp",
    "&",
    "<",
    ">",
    "<script>",
    '<time datetime="not a date">',
    '<time datetime="9999-99-99T99:99:99+00:00">',
    '<div id="p99999999999999999999999" class="post">',
    '<div id="p0" class="post"><div class="content"></div></div>',
    '<a href="./memberlist.php?mode=viewprofile&amp;u=-1" class="username">',
    '<div class="pagination">Page 9 sur 2</div>',
    '<div class="pagination">Page 0 sur 0</div>',
    '<link rel="canonical" href="viewtopic.php?t=99999999999999999999">',
    "<h2 class=\"topic-title\"><a href='viewtopic.php?t=abc'>",
]

_TAG_RE = re.compile(r"<[^<>]+>")
_POST_START_RE = re.compile(r'<div id="p\d+" class="post[^"]*">')
_CONTENT_RE = re.compile(r'<div class="content">')

Mutation = Callable[[str, st.DataObject], str]


def _position(html: str, data: st.DataObject) -> int:
    return data.draw(st.integers(0, len(html)), label="position")


def truncate(html: str, data: st.DataObject) -> str:
    return html[: _position(html, data)]


def delete_tags(html: str, data: st.DataObject) -> str:
    tags = list(_TAG_RE.finditer(html))
    if not tags:
        return html
    chosen = data.draw(
        st.sets(st.integers(0, len(tags) - 1), min_size=1, max_size=40), label="tags"
    )
    out, last = [], 0
    for i in sorted(chosen):
        out.append(html[last : tags[i].start()])
        last = tags[i].end()
    out.append(html[last:])
    return "".join(out)


def duplicate_post(html: str, data: st.DataObject) -> str:
    starts = [m.start() for m in _POST_START_RE.finditer(html)]
    if len(starts) < 2:
        return html
    i = data.draw(st.integers(0, len(starts) - 2), label="post")
    block = html[starts[i] : starts[i + 1]]
    copies = data.draw(st.integers(1, 3), label="copies")
    return html[: starts[i + 1]] + block * copies + html[starts[i + 1] :]


def nest_quotes(html: str, data: st.DataObject) -> str:
    depth = data.draw(st.integers(25, 30), label="depth")
    quote = (
        '<blockquote cite="./viewtopic.php?p=3#p3"><div><cite>Aurora Vexley a écrit :</cite>'
        * depth
        + "<strong>Sortilège de Feu</strong>"
        + "</div></blockquote>" * depth
    )
    matches = list(_CONTENT_RE.finditer(html))
    if not matches:
        return html + quote
    at = data.draw(st.sampled_from(matches), label="content").end()
    return html[:at] + quote + html[at:]


MEGABYTE_LINE = "Je lance le sort, <strong>Sortilège de Feu</strong> !<br>\n"


def with_megabyte_post(html: str) -> str:
    """The first post's content replaced by 1 MB of text and bold, ending with a bet."""
    body = MEGABYTE_LINE * (1_048_576 // len(MEGABYTE_LINE) + 1) + "Pari : [3,4]<br>\n"
    return re.sub(
        r'(<div class="content">).*?(</div>)',
        lambda m: m.group(1) + body + m.group(2),
        html,
        count=1,
        flags=re.S,
    )


def big_post(html: str, data: st.DataObject) -> str:
    """1 MB of plain text in a post (the many-bold megabyte post is its own test: fuzzy
    matching 13 000 bolds costs about a second)."""
    line = "Je trace un cercle de givre, ﬁn et précis 🪄\u200d !<br>\n"
    body = line * (1_048_576 // len(line.encode("utf-8")) + 1) + "<strong>Sortilège de Feu</strong>"
    matches = list(_CONTENT_RE.finditer(html))
    if not matches:
        return html + body
    at = data.draw(st.sampled_from(matches), label="content").end()
    return html[:at] + body + html[at:]


def insert_broken(html: str, data: st.DataObject) -> str:
    for _ in range(data.draw(st.integers(1, 8), label="count")):
        fragment = data.draw(st.sampled_from(BROKEN), label="fragment")
        at = _position(html, data)
        html = html[:at] + fragment + html[at:]
    return html


def insert_unicode(html: str, data: st.DataObject) -> str:
    pieces = st.one_of(st.sampled_from(ODD_UNICODE), st.text(min_size=1, max_size=20))
    for _ in range(data.draw(st.integers(1, 10), label="count")):
        at = _position(html, data)
        html = html[:at] + data.draw(pieces, label="text") + html[at:]
    return html


def unicode_in_names(html: str, data: st.DataObject) -> str:
    """Odd Unicode inside user names and bold text (where the parser reads values)."""
    odd = data.draw(st.sampled_from(ODD_UNICODE), label="odd")
    html = re.sub(r'(class="username(?:-coloured)?"[^>]*>)', r"\1" + odd.replace("\\", ""), html)
    return html.replace("<strong>", "<strong>" + odd)


MUTATIONS: list[Mutation] = [
    truncate,
    delete_tags,
    duplicate_post,
    nest_quotes,
    insert_broken,
    insert_unicode,
    unicode_in_names,
]


def parse_or_parse_error(html: str | bytes, source: str) -> TopicPage | None:
    """The property: a TopicPage, or ParseError (returned as None); anything else fails."""
    try:
        page = parse_topic_page(html, source=source)
    except ParseError as exc:
        event(f"ParseError: {type(exc).__name__}")
        return None
    event("parsed" if page.posts else "parsed, no post")
    return page


def check_actions(page: TopicPage | None) -> None:
    if page is None:
        return
    for post in page.posts:
        action = parse_action(post, MATCHER)
        assert action.spell is None or action.spell in SPELLBOOK
        assert action.bet is None or set(action.bet) <= {1, 2, 3, 4, 5, 6}


@FAST
@given(
    name=st.sampled_from(TOPIC_PAGES),
    mutations=st.lists(st.sampled_from(MUTATIONS), min_size=1, max_size=4),
    as_bytes=st.booleans(),
    one_in_eight=st.integers(0, 7),
    data=st.data(),
)
def test_mutated_real_pages_parse_or_raise_parse_error(
    name: str, mutations: list[Mutation], as_bytes: bool, one_in_eight: int, data: st.DataObject
) -> None:
    html = PAGES[name]
    if one_in_eight == 0:  # a 1 MB post in about one example in eight (each costs ~0.5 s)
        mutations = [big_post, *mutations]
    for mutate in mutations:
        html = mutate(html, data)
    # bytes cut anywhere (even inside a UTF-8 sequence) when truncation comes last
    raw: str | bytes = html.encode("utf-8") if as_bytes else html
    if as_bytes and data.draw(st.booleans(), label="cut bytes"):
        assert isinstance(raw, bytes)
        raw = raw[: data.draw(st.integers(0, len(raw)), label="byte cut")]
    check_actions(parse_or_parse_error(raw, name))


@FAST
@given(blob=st.binary(max_size=4000), prefix=st.sampled_from([b"", b'<html id="phpbb">']))
def test_random_bytes_parse_or_raise_parse_error(blob: bytes, prefix: bytes) -> None:
    check_actions(parse_or_parse_error(prefix + blob, "<random>"))


@FAST
@given(
    posts=st.lists(
        st.tuples(
            st.integers(0, 10**12),
            st.text(max_size=40),
            st.text(max_size=300),
            st.lists(st.text(max_size=60), max_size=4),
        ),
        max_size=5,
    )
)
def test_random_phpbb_shaped_pages(posts: list[tuple[int, str, str, list[str]]]) -> None:
    """Well-formed markup, random values: ids, names, text and bold from any Unicode."""

    def esc(text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    body = "".join(
        f'<div id="p{pid}" class="post bg2"><div class="postbody"><p class="author">'
        f'<a href="./memberlist.php?mode=viewprofile&amp;u=7" class="username">{esc(author)}</a>'
        f'<time datetime="2026-11-30T11:00:00+00:00">x</time></p>'
        f'<div class="content">{esc(text)}'
        + "".join(f"<br><strong>{esc(b)}</strong>" for b in bold)
        + "</div></div></div>"
        for pid, author, text, bold in posts
    )
    html = f'<html id="phpbb"><body class="section-viewtopic">{body}</body></html>'
    check_actions(parse_or_parse_error(html, "<generated>"))


def test_one_megabyte_post_parses_and_reads_its_action() -> None:
    name = "viewtopic_t2_page1_fr.html"
    page = parse_topic_page(with_megabyte_post(PAGES[name]), source=name)
    biggest = max(page.posts, key=lambda p: len(p.text))
    assert biggest.post_id == page.posts[0].post_id
    assert len(biggest.html.encode("utf-8")) > 1_000_000 and len(biggest.bold) > 10_000
    action = parse_action(biggest, MATCHER)
    assert action.spell == "Sortilège de Feu"
    assert action.bet == (3, 4)


@FAST
@given(
    text=st.text(max_size=3000),
    bold=st.lists(st.text(max_size=200), max_size=6),
    footer=st.lists(
        st.sampled_from(
            [
                "Pari : [3,4,5,6]",
                "Pari : [",
                "Pari : [7,8,9]",
                "Pari : 1-2-3-4-5-6-7",
                "Action : esquiver et riposter",
                "Action :",
                "Cible : \u202eemordnilaP",
                "Déplacement : ",
                "|||;;;— — —",
                "Pari : ［3,4］",
            ]
        ),
        max_size=6,
    ),
)
def test_action_parser_never_raises_on_any_post(
    text: str, bold: list[str], footer: list[str]
) -> None:
    full = "\n".join([text, *footer])
    post = Post(
        post_id=1,
        author="x",
        author_id=None,
        posted_at=datetime(2026, 11, 30, tzinfo=UTC),
        edited=None,
        text=full,
        bold=tuple(bold),
        quotes=(),
        line_count=len(full.splitlines()),
    )
    action = parse_action(post, MATCHER)
    assert action.bet is None or set(action.bet) <= {1, 2, 3, 4, 5, 6}
    assert action.spell is None or action.spell in SPELLBOOK
