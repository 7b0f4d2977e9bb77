"""Theme-independent strategies for customised Forumactif templates.

Admins may rewrite the post loop entirely (the real AwesomeBB page uses ``pab_*``
classes). What survives (REPORT.md section 2): class ``post--{ID}``, an element
``id="{ID}"`` / ``id="p{ID}"``, and the JSON-LD. This module finds post containers
from those, and the message slot by class-name hints or by locating the JSON-LD
text of the post inside the container.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from lxml import etree

from parsers.forumactif.htmltext import (
    INLINE_TAGS,
    Element,
    SkipPredicate,
    class_tokens,
    iter_text_nodes,
    tag_of,
    text_nodes,
    text_outside_quotes,
)

_POST_CLASS_RE = re.compile(r"^post--(\d+)$")
_P_ID_RE = re.compile(r"^(?:p|post-?)(\d+)$")
_SLOT_CLASS_RE = re.compile(
    r"(?:^|[-_])(?:post[-_]?(?:body|content|message|entry|text|msg)|entry[-_]content"
    r"|message[-_]?(?:body|content))(?:$|[-_])",
    re.IGNORECASE,
)
_WITH_CLASS = etree.XPath(".//*[@class]")


def never_skip(el: Element) -> bool:
    """Skip predicate that skips nothing; :func:`slot_by_text` then reads every text node
    with one XPath instead of a Python walk."""
    return False


def quote_skip(el: Element) -> bool:
    """Skip predicate for ``<blockquote>`` subtrees; :func:`contains_text` then reads the
    text with :func:`text_outside_quotes` (C-speed) instead of a Python walk."""
    return tag_of(el) == "blockquote"


def _by_post_class(tree: Element) -> list[tuple[int, Element]]:
    found: dict[int, Element] = {}
    for el in tree.xpath("//*[contains(@class, 'post--')]"):
        for token in class_tokens(el):
            match = _POST_CLASS_RE.match(token)
            if match and int(match.group(1)) > 0:
                found.setdefault(int(match.group(1)), el)
    return list(found.items())


def _climb(anchors: Sequence[tuple[int, Element]]) -> list[tuple[int, Element]]:
    """For each anchor, its highest ancestor holding no other anchor (below ``<body>``)."""
    counts: dict[Element, int] = {}
    for _post_id, anchor in anchors:
        for ancestor in anchor.iterancestors():
            counts[ancestor] = counts.get(ancestor, 0) + 1
    result: list[tuple[int, Element]] = []
    for post_id, anchor in anchors:
        el = anchor
        while True:
            parent = el.getparent()
            if parent is None or tag_of(parent) in ("body", "html") or counts.get(parent, 0) > 1:
                break
            el = parent
        result.append((post_id, el))
    return result


_RAW_POST_CLASS_RE = re.compile(r"post--([1-9]\d*)(?![\w-])")  # literal first: fast scan
_IN_CLASS_VALUE_RE = re.compile(r"""\bclass\s*=\s*["'][^"'<>]*$""", re.IGNORECASE)
_RAW_POST_ID_RE = re.compile(r"""\bid\s*=\s*["'](?:p|post-?)(\d+)["']""")


def raw_container_ids(strategy: str, html: str) -> list[int] | None:
    """Post ids of the containers in the raw markup, for a :func:`find_containers_by`
    strategy (``"class"``: a ``post--ID`` token inside a tag's ``class`` value; ``"id"``:
    ``id="pID"`` / ``id="post-ID"``), in order, deduplicated; None for other strategies.
    Used to check that no container was lost by the tree builder."""
    found: dict[int, None] = {}
    if strategy == "class":
        for match in _RAW_POST_CLASS_RE.finditer(html):
            start = match.start()
            if start and (html[start - 1].isalnum() or html[start - 1] in "_-"):
                continue  # part of a longer class name
            tag_start = html.rfind("<", 0, start)
            if tag_start < 0 or html.rfind(">", tag_start, start) >= 0:
                continue  # not inside a tag
            if _IN_CLASS_VALUE_RE.search(html, tag_start, start) is None:
                continue
            found.setdefault(int(match.group(1)), None)
    elif strategy == "id":
        for match in _RAW_POST_ID_RE.finditer(html):
            found.setdefault(int(match.group(1)), None)
    else:
        return None
    return list(found)


def find_containers(tree: Element, known_ids: Iterable[int] = ()) -> list[tuple[int, Element]]:
    """``(post_id, container)`` in page order, or ``[]`` (see :func:`find_containers_by`)."""
    return find_containers_by(tree, known_ids)[1]


def find_containers_by(
    tree: Element, known_ids: Iterable[int] = ()
) -> tuple[str | None, list[tuple[int, Element]]]:
    """``(strategy, [(post_id, container), ...])`` in page order; ``(None, [])`` when none.

    ``strategy`` is ``"class"``, ``"id"`` or ``"numeric"`` (see :func:`raw_container_ids`).

    Tried in order: class ``post--ID`` (``post--0`` excluded, first element kept per
    id: phpBB2 has two rows per post); elements ``id="pID"`` / ``id="post-ID"``;
    elements with a numeric ``id`` when some of them are ``known_ids`` (JSON-LD post
    ids). For the two id strategies the container
    is the anchor's highest ancestor holding no other post's anchor.
    """
    by_class = _by_post_class(tree)
    if by_class:
        return "class", by_class
    anchors: dict[int, Element] = {}
    for el in tree.xpath("//*[starts-with(@id, 'p')]"):
        match = _P_ID_RE.match(el.get("id", ""))
        if match:
            anchors.setdefault(int(match.group(1)), el)
    strategy = "id"
    if not anchors:
        strategy = "numeric"
        numeric = [el for el in tree.xpath("//*[@id]") if el.get("id", "").isdigit()]
        wanted = {str(i) for i in known_ids}
        if wanted & {el.get("id") for el in numeric}:
            # The page follows Forumactif's ``id="{ID}"`` convention: take every
            # numeric id (the first post of page 1 is not among JSON-LD comments).
            for el in numeric:
                anchors.setdefault(int(el.get("id")), el)
    if not anchors:
        return None, []
    return strategy, _climb(list(anchors.items()))


def slot_by_class(container: Element) -> Element | None:
    """The innermost descendant whose class looks like a message body, or None."""
    candidates = [
        el
        for el in _WITH_CLASS(container)
        if any(_SLOT_CLASS_RE.search(t) for t in class_tokens(el))
    ]
    for el in candidates:
        if not any(other is not el and is_ancestor(el, other) for other in candidates):
            return el
    return None


def is_ancestor(ancestor: Element, el: Element) -> bool:
    return any(a is ancestor for a in el.iterancestors())


def _compact(text: str) -> str:
    return "".join(text.split())  # every Unicode space removed, faster than a regex


def contains_text(el: Element, text: str, skip: SkipPredicate) -> bool:
    """Whether the first non-blank line of ``text`` (whitespace ignored) is inside ``el``."""
    lines = [_compact(line) for line in text.splitlines() if _compact(line)]
    if not lines:
        return False
    if skip is quote_skip:
        haystack = _compact(text_outside_quotes(el))
    else:
        haystack = _compact("".join(t for t, _ in iter_text_nodes(el, skip)))
    return lines[0][:40] in haystack


def slot_by_text(container: Element, text: str, skip: SkipPredicate) -> Element | None:
    """Locate ``text`` (JSON-LD plain text of the post) in ``container``.

    Returns the lowest common ancestor of the text nodes holding the start of the
    first line and the end of the last line (lifted out of inline elements), or None.
    Whitespace is ignored; linear in the container size.
    """
    lines = [_compact(line) for line in text.splitlines() if _compact(line)]
    if not lines:
        return None
    pieces: list[tuple[int, Element]] = []
    buffer: list[str] = []
    offset = 0
    nodes = text_nodes(container) if skip is never_skip else iter_text_nodes(container, skip)
    for value, owner in nodes:
        compact = _compact(value)
        if compact:
            pieces.append((offset, owner))
            buffer.append(compact)
            offset += len(compact)
    haystack = "".join(buffer)
    start_at = -1
    for line in lines[:3]:
        start_at = haystack.find(line[:40])
        if start_at >= 0:
            break
    if start_at < 0:
        return None
    end_at = -1
    for line in reversed(lines[-3:]):
        tail = line[-40:]
        found = haystack.rfind(tail)
        if found >= start_at:
            end_at = found + len(tail) - 1
            break
    if end_at < 0:
        end_at = start_at
    first = _owner_at(pieces, start_at)
    last = _owner_at(pieces, end_at)
    node = _common_ancestor(first, last)
    while tag_of(node) in INLINE_TAGS and node.getparent() is not None and node is not container:
        node = node.getparent()
    return node


def _owner_at(pieces: Sequence[tuple[int, Element]], offset: int) -> Element:
    low, high = 0, len(pieces) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if pieces[middle][0] <= offset:
            low = middle
        else:
            high = middle - 1
    return pieces[low][1]


def _common_ancestor(a: Element, b: Element) -> Element:
    chain = [a, *a.iterancestors()]
    members = set(chain)
    for el in [b, *b.iterancestors()]:
        if el in members:
            return el
    return chain[-1]
