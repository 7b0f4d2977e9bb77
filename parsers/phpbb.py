"""phpBB 3.x (prosilver) topic page parser: ``viewtopic.php`` HTML -> :class:`TopicPage`.

Built against real phpBB 3.3.15 pages (``fixtures/html/phpbb/``, French and English UI, guest and
logged in). Uses lxml directly (XPath on the parsed tree): a full extraction of a 10-post page
costs about 3-5x a bare ``lxml.html.fromstring`` of the same page (``bench/bench_parse.py``).

Markup relied on (FLOWS.md, "Reading"):
- posts: ``<div id="p<id>" class="post ...">``; author in ``p.author`` (``a.username`` or
  ``a.username-coloured``, ``memberlist.php?...u=<id>``), ``<time datetime="ISO-UTC">``;
- message: ``div.content``; quotes ``<blockquote cite="./viewtopic.php?p=N#pN">`` with a
  ``<cite>`` naming the author and ``data-post-id``; edit notice ``div.notice`` (outside content);
- page: ``<link rel="canonical">``, ``h2.topic-title``, ``div.pagination``, header user menu
  ``#username_logged_in .username``, quick reply ``form#qr_postform``.
"""

from __future__ import annotations

import codecs
import copy
import re
from collections.abc import MutableMapping
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import lxml.etree

from parsers.charset import codec_for_label, detect_charset
from parsers.errors import ParseError, UnknownPageError
from parsers.htmltext import has_class, inner_html, own_bold, own_text
from parsers.model import Edit, Post, Quote, ReplyForm, TopicPage
from parsers.text import collapse_ws, count_lines, fold
from parsers.tree import check_all_parsed, etree_parser, unnest

__all__ = [
    "looks_like_phpbb",
    "parse_display_date",
    "parse_edit_notice",
    "parse_topic_page",
    "raw_post_ids",
]

Element = Any

_POST_ID_RE = re.compile(r"^p(\d+)$")
_USER_ID_RE = re.compile(r"[?&;]u=(\d+)")
_TOPIC_ID_RE = re.compile(r"[?&;]t=(\d+)")
_FORUM_ID_RE = re.compile(r"[?&;]f=(\d+)")
_CITE_POST_RE = re.compile(r"[?&;]p=(\d+)")
_PAGE_OF_RE = re.compile(r"Page\s*(\d+)\s*(?:sur|of|/|de|von|di)\s*(\d+)", re.IGNORECASE)
_EDIT_COUNT_RE = re.compile(r"(\d+)\s*(?:fois|times?)\b", re.IGNORECASE)
_EDIT_BY_RE = re.compile(
    r"(?:Modifi\w+\s+en\s+dernier\s+par|Last\s+edited\s+by|Derni\w+\s+\w+dition\s+par)\s+(.+?)"
    r"\s+(?:le|on)\s",
    re.IGNORECASE,
)
_STYLE_RE = re.compile(rb"styles/([\w.-]+)/theme/")
# A post container in the raw markup: ``<div id="pN" class="post ...">`` (any attribute order);
# the class token is checked in :func:`raw_post_ids`.
_RAW_POST_TAG_RE = re.compile(
    rb"""<div\b[^>]*?\bid\s*=\s*["']?p(\d+)["'\s>][^>]*>?""", re.IGNORECASE
)
_RAW_POST_CLASS_RE = re.compile(rb"""\bclass\s*=\s*["']?(?:[^"'>]*\s)?post(?:[\s"'>]|$)""", re.I)
_WROTE_RE = re.compile(r"\s*(?:a\s+écrit|wrote|a\s+ecrit)\s*:?\s*$", re.IGNORECASE)
_FORUMACTIF_MARKERS = (b'_userdata["tpl_used"]', b"_userdata['tpl_used']", b'_board["Forumotion"]')
_PHPBB_MARKERS = (
    b'id="phpbb"',
    b"phpBB style name",
    b"www.phpbb.com",
    b"phpbb_alert",
    b"/styles/prosilver/",
)

# Cheap ``contains`` filters in XPath, exact class-token checks in Python (has_class).
_POSTS_XPATH = "//div[starts-with(@id, 'p')][contains(@class, 'post')]"
_CONTENT_XPATH = ".//div[contains(@class, 'content')]"
_AUTHOR_XPATH = ".//p[contains(@class, 'author')]"
_PAGINATION_XPATH = "//div[contains(@class, 'pagination')]"
_NOTICE_XPATH = ".//div[contains(@class, 'notice')]"


def looks_like_phpbb(html: str | bytes) -> bool:
    """True when ``html`` carries phpBB 3 markup (and no Forumactif script data)."""
    data = _to_bytes(html)
    if any(m in data for m in _FORUMACTIF_MARKERS):
        return False
    return any(m in data for m in _PHPBB_MARKERS)


_META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset=["']?([A-Za-z0-9_-]+)""", re.IGNORECASE)


def _to_bytes(html: str | bytes) -> bytes:
    """UTF-8 bytes of the page: phpBB 3 always serves UTF-8 (the fastest path), but a page
    saved by a browser or an editor may declare another charset in its ``<meta>`` (read per
    WHATWG: ``iso-8859-1``/``latin1`` are windows-1252) or none at all (then detected:
    :func:`parsers.charset.detect_charset`); it is re-encoded to UTF-8 first."""
    if isinstance(html, str):
        return html.encode("utf-8")
    declared = _META_CHARSET_RE.search(html[:4096])
    if declared:
        codec = codec_for_label(declared.group(1).decode("ascii"))
        if codec is None or codec == "utf-8":
            return html
    else:
        if html.startswith(codecs.BOM_UTF8):
            return html[len(codecs.BOM_UTF8) :]
        codec = detect_charset(html)
        if codec == "utf-8":
            return html
    return html.decode(codec, errors="replace").encode("utf-8")


def raw_post_ids(data: bytes) -> list[int]:
    """Ids of the ``<div id="pN" class="post">`` start tags of the raw page, in order."""
    found: dict[int, None] = {}
    for match in _RAW_POST_TAG_RE.finditer(data):
        if _RAW_POST_CLASS_RE.search(match.group(0)):
            found.setdefault(int(match.group(1)), None)
    return list(found)


def _text(el: Element) -> str:
    """Whitespace-collapsed text content of an element."""
    return collapse_ws("".join(el.itertext()))


def _int_or_none(pattern: re.Pattern[str], value: str | None) -> int | None:
    if not value:
        return None
    m = pattern.search(value)
    return int(m.group(1)) if m else None


_MONTHS = {
    "jan": 1,
    "fev": 2,
    "feb": 2,
    "mar": 3,
    "avr": 4,
    "apr": 4,
    "mai": 5,
    "may": 5,
    "juin": 6,
    "jun": 6,
    "juil": 7,
    "jul": 7,
    "aou": 8,
    "aug": 8,
    "sep": 9,
    "oct": 10,
    "nov": 11,
    "dec": 12,
}
_DISPLAY_DATE_RE = re.compile(
    r"\b(\d{1,2})\s+([a-z]{3,9})\.?\s+(\d{4}),?\s+(?:a\s+)?(\d{1,2}):(\d{2})\b"
)
_UTC_OFFSET_RE = re.compile(r"UTC\s*([+-])(\d{1,2}):?(\d{2})?")


def parse_display_date(text: str, zone: tzinfo) -> datetime | None:
    """A date as phpBB displays it with the default format ``D j M Y H:i``, read in ``zone``.

    Returns an aware UTC datetime, or None when ``text`` holds no such date (e.g. a board
    using relative dates such as "Aujourd’hui").

    Examples:
        >>> from datetime import timezone, timedelta
        >>> parse_display_date("le lun. 30 nov. 2026 12:43, modifié", timezone(timedelta(hours=1)))
        datetime.datetime(2026, 11, 30, 11, 43, tzinfo=datetime.timezone.utc)
        >>> parse_display_date("on Mon 30 Nov 2026 12:43, edited", timezone.utc)
        datetime.datetime(2026, 11, 30, 12, 43, tzinfo=datetime.timezone.utc)
    """
    m = _DISPLAY_DATE_RE.search(fold(text))
    if m is None:
        return None
    word = m.group(2)
    month = _MONTHS.get(word[:4]) or _MONTHS.get(word[:3])
    if month is None:
        return None
    try:
        local = datetime(
            int(m.group(3)), month, int(m.group(1)), int(m.group(4)), int(m.group(5)), tzinfo=zone
        )
    except ValueError:
        return None
    return local.astimezone(UTC)


def _board_zone(root: Element) -> tzinfo | None:
    """The zone of displayed dates, from the footer ``<span title="Europe/Paris">UTC+01:00``."""
    for span in root.xpath("//div[@id='page-footer']//li/span[@title]"):
        name = str(span.get("title") or "")
        if "/" in name or name == "UTC":
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                pass
        m = _UTC_OFFSET_RE.search(_text(span))
        if m:
            minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
            return timezone(timedelta(minutes=minutes if m.group(1) == "+" else -minutes))
    return None


def parse_edit_notice(notice: Element, zone: tzinfo | None = None) -> Edit | None:
    """Read a phpBB ``div.notice`` edit line into :class:`Edit`, or None if it is not one.

    Handles "Modifié en dernier par X le …, modifié N fois." and "Last edited by X on …, edited
    N time(s) in total." The moderator's reason (``<strong>Raison :</strong> <em>…</em>``) is
    ignored. ``at`` (UTC, minute precision) is read from the displayed date when the board's
    zone is known, else None.
    """
    text = _text(notice)
    count_m = _EDIT_COUNT_RE.search(text)
    if count_m is None:
        return None
    links = notice.xpath(".//a[contains(@class, 'username')]")
    if links:
        by = _text(links[0])
    else:
        by_m = _EDIT_BY_RE.search(text)
        if by_m is None:
            return None
        by = by_m.group(1)
    at = parse_display_date(text, zone) if zone is not None else None
    return Edit(by=by, count=int(count_m.group(1)), at=at)


def _quote_of(blockquote: Element, content: Element) -> Quote:
    cites = blockquote.xpath("./div/cite | ./cite")
    author: str | None = None
    post_id: int | None = None
    if cites:
        cite = cites[0]
        links = cite.xpath("./a[contains(@href, 'memberlist.php')]")
        if links:
            author = _text(links[0]) or None
        else:
            head = cite.text or ""
            author = collapse_ws(_WROTE_RE.sub("", head)) or None
        ids = cite.xpath(".//a/@data-post-id")
        if ids and str(ids[0]).isdigit():
            post_id = int(ids[0])
    if post_id is None:
        post_id = _int_or_none(_CITE_POST_RE, blockquote.get("cite"))
    depth = 0
    for ancestor in blockquote.iterancestors():
        if ancestor is content:
            break
        if ancestor.tag == "blockquote":
            depth += 1
    return Quote(author=author, post_id=post_id, depth=depth)


def _parse_post(div: Element, post_id: int, source: str, zone: tzinfo | None) -> Post:
    contents = [el for el in div.xpath(_CONTENT_XPATH) if has_class(el, "content")]
    if not contents:
        raise ParseError(f"post p{post_id} has no div.content", source)
    content = contents[0]

    author_ps = [el for el in div.xpath(_AUTHOR_XPATH) if has_class(el, "author")]
    author = ""
    author_id: int | None = None
    posted_at: datetime | None = None
    if author_ps:
        author_p = author_ps[0]
        names = author_p.xpath(
            ".//a[contains(@class, 'username')] | .//span[contains(@class, 'username')]"
        )
        if names:
            author = _text(names[0])
            author_id = _int_or_none(_USER_ID_RE, names[0].get("href"))
        times = author_p.xpath(".//time/@datetime")
        if times:
            try:
                posted_at = datetime.fromisoformat(str(times[0])).astimezone(UTC)
            except ValueError as exc:
                raise ParseError(f"post p{post_id}: bad time {times[0]!r}", source) from exc
    if not author:
        # Profile column fallback (dl.postprofile).
        names = div.xpath(".//dl[contains(@class, 'postprofile')]//*[contains(@class, 'username')]")
        if names:
            author = _text(names[0])
            author_id = _int_or_none(_USER_ID_RE, names[0].get("href"))
    if not author:
        raise ParseError(f"post p{post_id} has no author", source)

    edited: Edit | None = None
    for notice in (el for el in div.xpath(_NOTICE_XPATH) if has_class(el, "notice")):
        edited = parse_edit_notice(notice, zone)
        if edited is not None:
            break

    text = own_text(content)
    # prosilver viewtopic_body.html: S_POST_UNAPPROVED -> <p class="post-notice unapproved">
    unapproved = any(
        has_class(el, "unapproved") for el in div.xpath(".//p[contains(@class, 'post-notice')]")
    )
    return Post(
        post_id=post_id,
        author=author,
        author_id=author_id,
        posted_at=posted_at,
        edited=edited,
        text=text,
        bold=own_bold(content),
        quotes=tuple(_quote_of(bq, content) for bq in content.iter("blockquote")),
        line_count=count_lines(text),
        html=inner_html(content),
        unapproved=unapproved,
    )


def _is_post_count(el: Element) -> bool:
    """True for prosilver's ``<dd class="profile-posts"><strong>Messages :</strong> <a
    href="./search.php?author_id=N&sr=posts">12</a></dd>`` holding nothing else (its
    descendants are class-less ``strong`` and ``a`` elements): the author's post count."""
    return el.tag == "dd" and has_class(el, "profile-posts") and all(
        child.tag in ("strong", "a") and child.get("class") is None
        for child in el.iterdescendants()
    )


def _memo_key(div: Element) -> bytes:
    """The post container's markup as :func:`_parse_post` reads it: without the two parts of
    a post's markup that change when nothing of the post did (issue 27: every post of an
    author who posted since was parsed again at each read), the author's post count
    (:func:`_is_post_count`: emptied) and the container's own ``class`` (prosilver adds
    ``online`` while the author is online). :func:`_parse_post` reads neither: it reads the
    container's ``div.content``, ``p.author``, edit notice, ``p.post-notice`` and, as a
    fallback, the ``username`` element of ``dl.postprofile``, none of which can lie in a
    post count holding only class-less ``strong`` and ``a`` elements. The parse tree is
    left as it is (a copy is changed)."""
    counts = [el for el in div.iter("dd") if _is_post_count(el)]
    if not counts and div.get("class") is None:
        return bytes(lxml.etree.tostring(div, with_tail=False))
    bare = copy.deepcopy(div)
    bare.attrib.pop("class", None)
    for el in [el for el in bare.iter("dd") if _is_post_count(el)]:
        el.clear(keep_tail=True)
    return bytes(lxml.etree.tostring(bare, with_tail=False))


def _post_of(
    div: Element, source: str, zone: tzinfo | None, memo: MutableMapping[bytes, Post] | None
) -> Post:
    """:func:`_parse_post` of one post container, through ``memo`` when given (the post's
    markup and the zone are the key: :func:`_parse_post` reads nothing else)."""
    post_id = int(_POST_ID_RE.match(div.get("id")).group(1))  # type: ignore[union-attr]
    if memo is None:
        return _parse_post(div, post_id, source, zone)
    key = _memo_key(div) + repr(zone).encode()
    post = memo.get(key)
    if post is None:
        post = memo[key] = _parse_post(div, post_id, source, zone)
    return post


def _page_numbers(root: Element) -> tuple[int, int] | None:
    for pag in (el for el in root.xpath(_PAGINATION_XPATH) if has_class(el, "pagination")):
        m = _PAGE_OF_RE.search(_text(pag))
        if m:
            return int(m.group(1)), int(m.group(2))
        numbers: list[int] = []
        current: int | None = None
        for li in pag.xpath("./ul/li"):
            label = _text(li)
            if not label.isdigit():
                continue
            numbers.append(int(label))
            if has_class(li, "active"):
                current = int(label)
        if numbers and current is not None:
            return current, max(numbers)
    return None


def _reply_form(root: Element) -> ReplyForm | None:
    """The quick-reply form: its action, hidden fields and the prefilled ``subject``."""
    forms = root.xpath("//form[@id='qr_postform']")
    if not forms:
        return None
    form = forms[0]
    items: list[tuple[str, str]] = []
    for inp in form.xpath(".//input[@name]"):
        kind = (inp.get("type") or "text").lower()
        if kind == "hidden" or (kind == "text" and inp.get("name") == "subject"):
            items.append((str(inp.get("name")), str(inp.get("value") or "")))
    return ReplyForm(action=form.get("action") or "", fields=dict(items), items=tuple(items))


def _message_panel(root: Element) -> str | None:
    panels = root.xpath("//div[@id='message']")
    if not panels:
        return None
    paras = panels[0].xpath(".//p")
    text = " ".join(_text(p) for p in paras) if paras else ""
    return text or _text(panels[0])


def _first(values: list[Any]) -> str | None:
    return str(values[0]) if values else None


def parse_topic_page(
    html: str | bytes, source: str = "<html>", memo: MutableMapping[bytes, Post] | None = None
) -> TopicPage:
    """Parse a phpBB 3.x prosilver ``viewtopic.php`` page.

    Args:
        html: the response body (``bytes`` are decoded as UTF-8, phpBB's only charset).
        source: what is parsed (file name or URL), used in error messages.
        memo: posts already parsed, by their post container's markup (and the board's time
            zone): a post whose markup is unchanged since an earlier read (the edit watch
            re-reads every running duel) is taken from it instead of being parsed again; the
            posts parsed now are added. The caller owns (and bounds) it; None: no memo.

    Returns:
        A :class:`TopicPage` with ``platform="phpbb3"``, ``version`` = the style name
        (``"prosilver"``), page facts and one :class:`Post` per ``div.post`` in page order.
        ``posted_at`` is the ``<time datetime>`` value, aware, in UTC.

    Raises:
        UnknownPageError: the page is not a phpBB page, or a phpBB page that is not a topic
            (board index, forum view, posting form…), or a Forumactif page.
        ParseError: a phpBB topic page without posts (e.g. HTTP 404 "Le sujet demandé n’existe
            pas." / "The requested topic does not exist."), with the forum's message as reason;
            or a post missing its content or author; or a page where a post container of the
            raw markup (``<div id="pN" class="post">``) did not become a post (e.g. nesting
            deeper than libxml2's 2048 levels), never a silently short list.
    """
    data = _to_bytes(html)
    if any(m in data for m in _FORUMACTIF_MARKERS):
        raise UnknownPageError(
            "this is a Forumactif page, not phpBB (use parsers.forumactif)", source
        )
    if not data.strip():
        raise UnknownPageError("empty page, not a phpBB topic page", source)
    root = lxml.etree.fromstring(data, parser=etree_parser())
    if root is None:
        raise UnknownPageError("not HTML (no element)", source)

    is_phpbb = any(m in data for m in _PHPBB_MARKERS)
    bodies = root.xpath("//body")
    body_class = (bodies[0].get("class") or "") if bodies else ""
    section = next((c for c in body_class.split() if c.startswith("section-")), None)

    post_divs = [
        d
        for d in root.xpath(_POSTS_XPATH)
        if has_class(d, "post") and _POST_ID_RE.match(d.get("id") or "")
    ]
    if not is_phpbb and not post_divs:
        raise UnknownPageError("not a phpBB page (no prosilver markup, no posts)", source)
    if section is not None and section != "section-viewtopic":
        raise UnknownPageError(f"phpBB page but not a topic page ({section})", source)
    if not post_divs:
        message = _message_panel(root)
        if message is None:
            raise ParseError("phpBB topic page without any post", source)
        folded = message.casefold()
        if "existe pas" in folded or "does not exist" in folded:
            raise ParseError(f"topic does not exist (forum says: {message!r})", source)
        raise ParseError(f"topic page without posts (forum says: {message!r})", source)

    unnest(post_divs)  # an unclosed <div> in a post nests the next posts inside it
    zone = _board_zone(root)
    posts = tuple(_post_of(div, source, zone, memo) for div in post_divs)
    check_all_parsed(
        raw_post_ids(data), (p.post_id for p in posts), source, '<div id="pN" class="post">'
    )

    canonical = _first(root.xpath("//link[@rel='canonical']/@href"))
    title_links = root.xpath("//h2[contains(@class, 'topic-title')]/a")
    topic_id = _int_or_none(_TOPIC_ID_RE, canonical)
    if topic_id is None and title_links:
        topic_id = _int_or_none(_TOPIC_ID_RE, title_links[0].get("href"))
    if topic_id is None:
        hidden = root.xpath("//input[@name='t' or @name='topic_id']/@value")
        topic_id = int(hidden[0]) if hidden and str(hidden[0]).isdigit() else None
    title = _text(title_links[0]) if title_links else None

    crumbs = root.xpath("//span[@data-forum-id]/@data-forum-id")
    forum_id = int(crumbs[-1]) if crumbs and str(crumbs[-1]).isdigit() else None
    if forum_id is None:
        hidden = root.xpath("//input[@name='forum_id' or @name='f']/@value")
        forum_id = int(hidden[0]) if hidden and str(hidden[0]).isdigit() else None

    numbers = _page_numbers(root)
    page, pages = numbers if numbers is not None else (1, 1)

    users = root.xpath("//*[@id='username_logged_in']//*[contains(@class, 'username')]")
    logged_in_as = _text(users[0]) if users else None

    style = _STYLE_RE.search(data)
    return TopicPage(
        platform="phpbb3",
        topic_id=topic_id,
        page=page,
        pages=pages,
        logged_in_as=logged_in_as or None,
        posts=posts,
        title=title,
        forum_id=forum_id,
        version=style.group(1).decode("ascii", "replace") if style else "prosilver",
        reply_form=_reply_form(root),
    )
