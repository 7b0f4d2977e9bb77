"""Forumactif topic page -> :class:`parsers.model.TopicPage`.

Order of evidence: the JSON-LD ``DiscussionForumPosting`` (post ids, authors, exact
dates, page count), then the display version's markup (``versions.VERSIONS``) for
what JSON-LD lacks (bold, quotes, signature, edit line, dice images), then the
theme-independent strategies of :mod:`parsers.forumactif.generic` for boards whose
admins customised the templates.

Dice appear on the Game Master's post and are attached to the roller's post: the
Game Master's post (author in ``gm_names`` or id in ``gm_ids``) carrying a dice
result gets ``is_dice_post=True``, ``dice`` and ``dice_roller``; the same
:class:`DiceRoll` values are also put in ``dice`` of the roller's post, the nearest
preceding post on the page by the member named in the result. When the roller's post
is on the previous page only the Game Master's post carries them.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from lxml import etree

from parsers.errors import UnknownPageError
from parsers.forumactif.dates import (
    DATE_RE,
    find_date,
    parse_forumactif_date,
    resolve_forumactif_date,
    settle_repeated_hours,
)
from parsers.forumactif.dice import DEFAULT_DICE_ACTIONS, find_dice_block
from parsers.forumactif.encoding import decode_html, page_codec
from parsers.forumactif.forms import find_reply_form
from parsers.forumactif.generic import (
    contains_text,
    find_containers_by,
    is_ancestor,
    never_skip,
    quote_skip,
    raw_container_ids,
    slot_by_class,
    slot_by_text,
)
from parsers.forumactif.htmltext import (
    Element,
    SkipPredicate,
    class_tokens,
    compiled,
    drop_tree,
    extract,
    squash,
    tag_of,
    text_content,
    text_excluding,
    text_outside_quotes,
)
from parsers.forumactif.jsonld import ANONYMOUS, LdPost, LdTopic, parse_jsonld
from parsers.forumactif.userdata import logged_in_username, parse_board, parse_userdata
from parsers.forumactif.versions import DOM_SIGNALS, VERSIONS, VersionSpec
from parsers.model import DiceRoll, Edit, Post, Quote, TopicPage
from parsers.tree import check_all_parsed, html_parser, unnest, utf8_html_parser

DEFAULT_GM_NAMES: tuple[str, ...] = ("Maître du Jeu", "Game Master", "Maitre du jeu")
#: Name Forumactif displays for guests and deleted accounts.
DEFAULT_GUEST_NAME = "Invité"

_USER_HREF_RE = re.compile(r"^(?:https?://[^/]+)?/u(\d+)(?:[-/?#]|$)")
_EDIT_RE = re.compile(
    r"(?:Dernière édition par|Derniere edition par)\s+(?P<by>.+?)\s+le\s+(?P<at>.+?)\s*,\s*"
    r"édité\s+(?P<count>\d+)\s+fois"
    r"|Last edited by\s+(?P<by_en>.+?)\s+on\s+(?P<at_en>.+?)\s*;\s*edited\s+(?P<count_en>\d+)"
    r"\s+times?\s+in\s+total",
    re.IGNORECASE,
)
_EDIT_HINT_RE = re.compile(r"derni\S+\s+\S*dition\s+par|last\s+edited\s+by", re.IGNORECASE)
_PAGE_OF_RE = re.compile(
    r"Page\s*<strong>\s*(\d+)\s*</strong>\s*(?:sur|of|de|di|von)\s*<strong>\s*(\d+)\s*</strong>",
    re.IGNORECASE,
)
_PER_PAGE_RE = re.compile(r"start\s*=\s*\(\s*start\s*-\s*1\s*\)\s*\*\s*(\d+)")
_CANONICAL_START_RE = re.compile(r"/t\d+p(\d+)-")
_TOPIC_HREF_RE = re.compile(r"/t(\d+)(?:p\d+)?-")
_QUOTE_CITE_RE = re.compile(
    r"^\s*(?P<name>.*?)\s*(?:a écrit|wrote|escribió|ha scritto|escreveu|schrieb)\s*:?\s*$",
    re.IGNORECASE,
)
_SIG_CLASSES = frozenset({"signature_div", "post-signature", "sig-content", "signature"})
_SIG_ID_RE = re.compile(r"^sig\d+$")
_CODE_CLASSES = frozenset({"codebox", "codemain", "code"})


def _fold(text: str) -> str:
    return squash(text).casefold()


def _is_signature(el: Element) -> bool:
    return bool(_SIG_CLASSES.intersection(class_tokens(el))) or bool(
        _SIG_ID_RE.match(el.get("id") or "")
    )


def _own_skip(el: Element) -> bool:
    tag = tag_of(el)
    if tag in ("blockquote", "pre"):
        return True
    return _is_signature(el) or bool(_CODE_CLASSES.intersection(class_tokens(el)))


def _detect_version(tree: Element, html: str, userdata: dict[str, str | int | float]) -> str | None:
    value = userdata.get("tpl_used") or parse_board(html).get("tpl_version")
    if value:
        return str(value)
    for tpl, xpath in DOM_SIGNALS:
        if compiled(xpath)(tree):
            return tpl
    return None


def _first_text(container: Element, xpaths: Sequence[str]) -> tuple[str | None, Element | None]:
    for xpath in xpaths:
        for el in compiled(xpath)(container):
            text = squash(text_content(el))
            if text:
                return text, el
    return None, None


def _user_id_in(el: Element) -> int | None:
    """``/uN`` of the first profile link in or around the author element."""
    for link in [*el.iter("a"), *el.iterancestors("a")]:
        match = _USER_HREF_RE.match(link.get("href") or "")
        if match:
            return int(match.group(1))
    return None


def _generic_author(container: Element, slot: Element) -> tuple[str | None, int | None]:
    for link in container.iter("a"):
        match = _USER_HREF_RE.match(link.get("href") or "")
        if match is None or "mentiontag" in class_tokens(link):
            continue
        if link is slot or any(a is slot for a in link.iterancestors()):
            continue
        name = squash(text_content(link))
        if name:
            return name, int(match.group(1))
    return None, None


def _find_slot(container: Element, spec: VersionSpec | None, ld_text: str | None) -> Element | None:
    if spec is not None:
        found = compiled(spec.message)(container)
        if found:
            return found[0]
    by_class = slot_by_class(container)
    by_text = slot_by_text(container, ld_text, never_skip) if ld_text else None
    if by_class is not None and (not ld_text or contains_text(by_class, ld_text, quote_skip)):
        # A class such as "postbody" may name the whole post (title, author line, message):
        # when the JSON-LD text sits in a smaller element inside it, that one is the message.
        if by_text is not None and is_ancestor(by_class, by_text):
            return by_text
        return by_class
    if by_text is not None:
        return by_text
    return by_class


def _quotes(slot: Element) -> tuple[Quote, ...]:
    """Every quote of the message outside the signature, in document order, with its
    nesting depth (0 = top-level), as on phpBB; author and post id from its own ``<cite>``."""
    quotes: list[Quote] = []
    for block in slot.iter("blockquote"):
        depth = 0
        in_signature = False
        for ancestor in block.iterancestors():
            if ancestor is slot:
                break
            if tag_of(ancestor) == "blockquote":
                depth += 1
            elif _is_signature(ancestor):
                in_signature = True
                break
        if in_signature:
            continue
        author: str | None = None
        post_id: int | None = None
        cites = [
            cite
            for cite in block.iter("cite")
            if next(cite.iterancestors("blockquote"), None) is block
        ]
        if cites:
            match = _QUOTE_CITE_RE.match(squash(text_content(cites[0])))
            author = (match.group("name") if match else squash(text_content(cites[0]))) or None
            for link in cites[0].iter("a"):
                id_match = re.search(r"(?:#|[?&]p=)p?(\d+)", link.get("href") or "")
                if id_match:
                    post_id = int(id_match.group(1))
        quotes.append(Quote(author=author, post_id=post_id, depth=depth))
    return tuple(quotes)


def _own_html(slot: Element, skip: SkipPredicate, skipped: bool = True) -> str:
    """The slot's HTML without its skipped subtrees (copied only when ``skipped``: the
    extraction met some)."""
    if not skipped:
        return str(etree.tostring(slot, encoding="unicode", with_tail=False))
    clone = copy.deepcopy(slot)
    for el in list(clone.iter()):
        if el is not clone and tag_of(el) and skip(el) and el.getparent() is not None:
            drop_tree(el)
    return str(etree.tostring(clone, encoding="unicode", with_tail=False))


def _join_lines(lines: Sequence[str]) -> str:
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


class _Context:
    def __init__(
        self,
        source: str,
        now: datetime,
        board_tz: str,
        gm_names: Sequence[str],
        gm_ids: Sequence[int],
        dice_actions: Sequence[str],
        dice_names: Sequence[str] | None,
        guest_name: str,
    ) -> None:
        self.source = source
        self.now = now
        self.board_tz = board_tz
        self.zone = ZoneInfo(board_tz)
        self.gm_names = {_fold(n) for n in gm_names}
        self.gm_ids = set(gm_ids)
        self.dice_actions = dice_actions
        self.dice_names = dice_names
        self.guest_name = guest_name

    def date(self, raw: str | None) -> datetime | None:
        if not raw:
            return None
        return parse_forumactif_date(raw, now=self.now, board_tz=self.board_tz)

    def posted_date(self, raw: str | None, warnings: list[str]) -> datetime | None:
        """:meth:`date`, adding a warning when the resolved year is doubtful."""
        if not raw:
            return None
        resolved = resolve_forumactif_date(raw, now=self.now, board_tz=self.board_tz)
        for flag in (resolved.flag, resolved.dst):
            if flag is not None:
                warnings.append(f"posted_at: {flag} ({raw!r})")
        return resolved.at


def _chrome_inside(container: Element, slot: Element, spec: VersionSpec | None) -> set[Element]:
    """The version's date and author elements that sit inside the message slot (left there by
    an unclosed tag in the post), to be skipped as header text."""
    if spec is None:
        return set()
    return set(compiled(" | ".join((spec.date, *spec.author)))(slot))


#: Containers sampled to check that a version's selectors fit the page.
_SPEC_SAMPLE = 3


def _spec_fits_container(spec: VersionSpec, container: Element) -> bool:
    """The version's message, author and date slots all exist in ``container``, the date slot
    holds a date, and neither the author nor the date is inside the message (header text
    must never be read as post text)."""
    messages = compiled(spec.message)(container)
    if not messages:
        return False
    message = messages[0]

    def outside(el: Element) -> bool:
        return el is not message and not is_ancestor(message, el)

    _name, author_el = _first_text(container, spec.author)
    if author_el is None or not outside(author_el):
        return False
    return any(
        outside(el) and find_date(text_outside_quotes(el)) is not None
        for el in compiled(spec.date)(container)
    )


def _spec_from_markup(containers: Sequence[Element], declared: str | None) -> VersionSpec | None:
    """The display version whose selectors fit the page's post markup, or None (generic).

    ``declared`` (``tpl_used``) is tried first; then every other version, since a board may
    keep one version's templates while ``tpl_used`` names another (copied templates, a
    version switch half done). A version fits when its slots fit at least 2 of the first
    :data:`_SPEC_SAMPLE` containers (all of them when fewer).
    """
    sample = containers[:_SPEC_SAMPLE]
    needed = min(2, len(sample))
    order = [VERSIONS[declared]] if declared in VERSIONS else []
    order += [spec for tpl, spec in VERSIONS.items() if tpl != declared]
    for spec in order:
        if sum(_spec_fits_container(spec, c) for c in sample) >= needed:
            return spec
    return None


def _parse_post(
    ctx: _Context,
    post_id: int,
    container: Element,
    spec: VersionSpec | None,
    ld_post: LdPost | None,
) -> Post:
    ld_text = ld_post.text if ld_post is not None else None
    slot = _find_slot(container, spec, ld_text)
    if slot is None:
        raise UnknownPageError(f"post {post_id}: no message slot found", ctx.source)

    # Author: the version's slot, then JSON-LD, then the first profile link.
    author: str | None = None
    author_id: int | None = None
    if spec is not None:
        author, author_el = _first_text(container, spec.author)
        if author_el is not None:
            author_id = _user_id_in(author_el)
    if author is None and ld_post is not None and ld_post.author not in (None, ANONYMOUS):
        author, author_id = ld_post.author, ld_post.author_id
    if author is None:
        author, author_id = _generic_author(container, slot)
    if author is None:
        author, author_id = ctx.guest_name, None

    # Date: exact JSON-LD date, else the displayed one.
    warnings: list[str] = []
    posted_at: datetime | None = None
    if ld_post is not None and ld_post.published is not None:
        posted_at = ld_post.published.astimezone(ctx.zone)
    if posted_at is None and spec is not None:
        _text, date_el = _first_text(container, (spec.date,))
        if date_el is not None:
            posted_at = ctx.posted_date(find_date(text_outside_quotes(date_el)), warnings)
    if posted_at is None:
        outside = text_excluding(container, lambda el: el is slot or quote_skip(el))
        raw = next((m.group(0) for m in DATE_RE.finditer(outside) if ":" in m.group(0)), None)
        posted_at = ctx.posted_date(raw, warnings)

    # Edit notice: anywhere in the container outside quotes.
    edited: Edit | None = None
    container_text = text_outside_quotes(container)
    has_edit = ("dition" in container_text or "dited" in container_text) and (
        _EDIT_HINT_RE.search(container_text) is not None
    )  # substring tests first: the regex has no literal prefix to scan for
    for match in _EDIT_RE.finditer(squash(container_text) if has_edit else ""):
        by = match.group("by") or match.group("by_en")
        count = match.group("count") or match.group("count_en")
        at_raw = match.group("at") or match.group("at_en")
        edited = Edit(by=squash(by), count=int(count), at=ctx.date(at_raw))

    # Header/footer pieces of the version (date, author) that broken HTML pushed inside the
    # message slot are never post text.
    chrome = _chrome_inside(container, slot, spec)
    own_skip: SkipPredicate = (lambda el: el in chrome or _own_skip(el)) if chrome else _own_skip
    extracted = extract(slot, own_skip)
    lines, bold = extracted.lines, extracted.bold
    if has_edit:  # AwesomeBB prints the edit line inside the message slot
        lines = [line for line in lines if not _EDIT_RE.search(squash(line.text))]
        bold = [b for b in bold if not _EDIT_RE.search(b)]
    block = find_dice_block(lines, actions=ctx.dice_actions, dice_names=ctx.dice_names)
    is_gm = _fold(author) in ctx.gm_names or (author_id is not None and author_id in ctx.gm_ids)
    dice: tuple[DiceRoll, ...] = ()
    roller: str | None = None
    if block is not None and is_gm:
        dice, roller = block.rolls, block.roller
    elif block is not None:
        lines = lines[: block.start] + lines[block.end :]  # a dice block not posted by the GM
    texts = [squash(line.text) for line in lines]
    return Post(
        post_id=post_id,
        author=author,
        author_id=author_id,
        posted_at=posted_at,
        edited=edited,
        text=_join_lines(texts),
        bold=tuple(bold),
        quotes=_quotes(slot),
        line_count=sum(1 for t in texts if t),
        dice=dice,
        is_dice_post=block is not None and is_gm,
        html=_own_html(slot, own_skip, extracted.skipped),
        dice_roller=roller,
        warnings=tuple(warnings),
    )


def _attach_dice(posts: list[Post]) -> list[Post]:
    result = list(posts)
    for index, post in enumerate(posts):
        if not post.is_dice_post or post.dice_roller is None:
            continue
        wanted = _fold(post.dice_roller)
        for back in range(index - 1, -1, -1):
            target = result[back]
            if not target.is_dice_post and _fold(target.author) == wanted:
                result[back] = replace(
                    target,
                    dice=target.dice + post.dice,
                    dice_post_ids=(*target.dice_post_ids, post.post_id),
                )
                break
    return result


def _page_numbers(html: str, tree: Element, ld: LdTopic | None) -> tuple[int, int]:
    page_of = _PAGE_OF_RE.search(html)
    pages = ld.pages if ld is not None and ld.pages else None
    if page_of is not None:
        page = int(page_of.group(1))
        pages = pages or int(page_of.group(2))
        return page, max(pages, page)
    page = 1
    canonical = tree.xpath("//link[@rel='canonical']/@href")
    per_page_match = _PER_PAGE_RE.search(html)
    per_page = int(per_page_match.group(1)) if per_page_match else 0
    if per_page <= 0:
        return page, pages or 1
    if canonical:
        start = _CANONICAL_START_RE.search(str(canonical[0]))
        if start is not None:
            page = int(start.group(1)) // per_page + 1
    if pages is None:
        starts = [
            int(m.group(1))
            for m in _CANONICAL_START_RE.finditer(
                " ".join(str(href) for href in tree.xpath("//a/@href"))
            )
        ]
        pages = max(starts) // per_page + 1 if starts else 1
    return page, max(pages, page)


def _not_topic_reason(tree: Element, userdata: dict[str, str | int | float]) -> str:
    if not userdata:
        return "not a Forumactif page (no _userdata script) and no post containers"
    if tree.xpath("//form[contains(@action, '/post')]//textarea[@name='message']") and tree.xpath(
        "//select[starts-with(@name, 'post_dice_')] | //input[@name='mode']"
    ):
        return "posting form page (no post--ID containers), not a topic page"
    return "no post containers found (post--ID classes, #pID anchors, JSON-LD post ids)"


def parse_topic_page(
    html: str | bytes,
    source: str = "<html>",
    *,
    now: datetime,
    board_tz: str = "Europe/Paris",
    gm_names: Sequence[str] = DEFAULT_GM_NAMES,
    gm_ids: Sequence[int] = (),
    dice_actions: Sequence[str] = DEFAULT_DICE_ACTIONS,
    dice_names: Sequence[str] | None = None,
    guest_name: str = DEFAULT_GUEST_NAME,
    encoding: str | None = None,
) -> TopicPage:
    """Parse one Forumactif topic page, any of the six display versions.

    Args:
        html: the page; bytes are decoded per ``encoding`` / ``<meta charset>``
            (pre-2008 boards serve windows-1252).
        source: name of the page (file name or URL), used in errors.
        now: capture time, to resolve relative and year-less dates.
        board_tz: IANA zone dates are displayed in (naive page dates are read in it).
        gm_names / gm_ids: the Game Master account(s) posting dice results.
        dice_actions: accepted dice action labels (``Lancer des dés``, ``Lancer de dés``).
        dice_names: only keep these dice (None: all).
        guest_name: name to give a post whose author cannot be read (Forumactif shows
            guests and deleted accounts as ``Invité``).
        encoding: charset of ``html`` bytes from the HTTP header, when known.

    Returns:
        A :class:`TopicPage` (platform ``"forumactif"``, ``version`` = ``tpl_used``)
        with one :class:`Post` per post container, in page order.

    The display version is ``tpl_used`` when its selectors fit the post markup, else the
    version whose selectors do (``TopicPage.version`` names the one read). Post containers
    nested in another one by broken HTML are lifted out first.

    Raises:
        UnknownPageError: the page has no post container (index, posting form,
            non-Forumactif page), or a post's message cannot be located, or "page not
            understood": ``tpl_used`` names a version, no version's selectors fit the markup
            and there is no JSON-LD to locate the posts' text.
        ParseError: a post container of the raw markup (``class="post--ID"`` / ``id="pID"``)
            did not become a post (e.g. nesting deeper than libxml2's 2048 levels).
    """
    utf8: bytes | None = None
    if isinstance(html, bytes) and page_codec(html, encoding) == "utf-8":
        utf8 = html[3:] if html.startswith(b"\xef\xbb\xbf") else html
        try:
            text = utf8.decode("utf-8")
        except UnicodeDecodeError:
            utf8, text = None, decode_html(html, encoding)
    else:
        text = decode_html(html, encoding)
    try:
        if not text.strip():
            tree = None
        elif utf8 is not None:  # valid UTF-8 bytes: lxml parses them faster than the str
            tree = etree.fromstring(utf8, parser=utf8_html_parser())
        else:
            tree = etree.fromstring(text, parser=html_parser())
    except (etree.ParserError, ValueError) as exc:
        raise UnknownPageError(f"unreadable HTML: {exc}", source) from exc
    if tree is None:
        raise UnknownPageError("unreadable HTML: Document is empty", source)
    userdata = parse_userdata(text)
    version = _detect_version(tree, text, userdata)
    ld = parse_jsonld(tree)
    strategy, containers = find_containers_by(tree, ld.comments.keys() if ld is not None else ())
    if not containers:
        raise UnknownPageError(_not_topic_reason(tree, userdata), source)
    unnest([el for _post_id, el in containers])  # an unclosed <div> nests the next posts
    spec = _spec_from_markup([el for _post_id, el in containers], version)
    if spec is not None:
        version = spec.tpl_used  # the markup wins over a stale or copied tpl_used
    elif version in VERSIONS and ld is None:
        raise UnknownPageError(
            f"page not understood: tpl_used names {version!r} but its post markup matches "
            "no display version, and the page has no JSON-LD to locate the posts' text",
            source,
        )
    ctx = _Context(source, now, board_tz, gm_names, gm_ids, dice_actions, dice_names, guest_name)
    posts: list[Post] = []
    for index, (post_id, container) in enumerate(containers):
        ld_post = ld.comments.get(post_id) if ld is not None else None
        if ld_post is None and ld is not None and index == 0 and ld.first is not None:
            ld_post = ld.first  # topic-level entry: first post's author and text, no date
        posts.append(_parse_post(ctx, post_id, container, spec, ld_post))
    expected_ids = raw_container_ids(strategy or "", text)
    if expected_ids is not None:
        what = "class post--N" if strategy == "class" else 'id="pN"'
        check_all_parsed(expected_ids, (post.post_id for post in posts), source, what)
    posts = settle_repeated_hours(_attach_dice(posts))

    reply_form = find_reply_form(tree)
    topic_id = ld.topic_id if ld is not None else None
    if topic_id is None and reply_form is not None and reply_form.fields.get("t", "").isdigit():
        topic_id = int(reply_form.fields["t"])
    if topic_id is None:
        for href in tree.xpath(
            "//link[@rel='canonical']/@href | //meta[@property='og:url']/@content"
        ):
            match = _TOPIC_HREF_RE.search(str(href))
            if match:
                topic_id = int(match.group(1))
                break
    title = ld.title if ld is not None else None
    if title is None:
        og = tree.xpath("//meta[@property='og:title']/@content")
        title = squash(str(og[0])) if og else (squash(tree.findtext(".//title") or "") or None)
    page, pages = _page_numbers(text, tree, ld)
    return TopicPage(
        platform="forumactif",
        topic_id=topic_id,
        page=page,
        pages=pages,
        logged_in_as=logged_in_username(userdata),
        posts=tuple(posts),
        title=title,
        forum_id=ld.forum_id if ld is not None else None,
        version=version,
        reply_form=reply_form,
    )
