"""Tree building shared by both platforms' topic parsers: deep pages, broken nesting, and the
check that every post container of the raw page became a post.

Three failure modes of real pages that used to lose posts silently (issue 16):

- **deep nesting**: libxml2 stops building the tree past 256 nested elements unless
  ``huge_tree`` is set (then 2048); a post with player HTML nesting ~240 elements made every
  later post vanish. :func:`html_parser` sets ``huge_tree``.
- **broken nesting**: an unclosed ``<div>`` in a signature makes the following posts children
  of that post, which then "owns" their text and edit notice. :func:`unnest` lifts every post
  container nested in another one out, right after it, in page order.
- **anything else**: :func:`check_all_parsed` compares the post ids found by a regex on the
  raw markup with the ids of the posts parsed, and raises :class:`ParseError` on a mismatch
  (never a silently short list).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from typing import Any

import lxml.etree

from parsers.errors import ParseError

__all__ = ["check_all_parsed", "etree_parser", "html_parser", "unnest", "utf8_html_parser"]

Element = Any

_LOCAL = threading.local()


def html_parser() -> Any:
    """An ``lxml.etree.HTMLParser(huge_tree=True)`` for text input, one per thread (parsers
    are not thread-safe and costly to build per call). Plain ``lxml.etree`` elements: no
    Python element-class lookup per node as with ``lxml.html``."""
    parser = getattr(_LOCAL, "html", None)
    if parser is None:
        parser = lxml.etree.HTMLParser(huge_tree=True)
        _LOCAL.html = parser
    return parser


def utf8_html_parser() -> Any:
    """An ``lxml.etree.HTMLParser(encoding="utf-8", huge_tree=True)``, one per thread: UTF-8
    bytes parse faster than the same page as ``str``."""
    parser = getattr(_LOCAL, "utf8", None)
    if parser is None:
        parser = lxml.etree.HTMLParser(encoding="utf-8", huge_tree=True)
        _LOCAL.utf8 = parser
    return parser


def etree_parser() -> Any:
    """An ``lxml.etree.HTMLParser(encoding="utf-8", huge_tree=True)``, one per thread (the
    phpBB parser feeds UTF-8 bytes and plain ``lxml.etree`` elements)."""
    parser = getattr(_LOCAL, "etree", None)
    if parser is None:
        parser = lxml.etree.HTMLParser(encoding="utf-8", huge_tree=True)
        _LOCAL.etree = parser
    return parser


def _move_tail(el: Element) -> None:
    """Leave ``el``'s tail text where it was before ``el`` moves (lxml moves tails along)."""
    tail = el.tail
    if not tail:
        return
    el.tail = None
    previous = el.getprevious()
    if previous is not None:
        previous.tail = (previous.tail or "") + tail
    else:
        parent = el.getparent()
        if parent is not None:
            parent.text = (parent.text or "") + tail


def unnest(containers: Sequence[Element]) -> int:
    """Lift post containers nested inside another container out of it, in place.

    ``containers`` are the page's post containers in document order. A container that has
    another container among its ancestors (the earlier post's HTML left an element open) is
    moved right after the previously placed container, so the page becomes a flat sequence
    again and each post keeps only its own text, signature and edit notice. Returns how many
    containers were moved (0 on well-formed pages, which are left untouched).
    """
    members = set(containers)
    moved = 0
    last: Element | None = None
    for el in containers:
        nested = any(a in members for a in el.iterancestors())
        if nested and last is not None:
            _move_tail(el)
            last.addnext(el)
            el.tail = "\n"
            moved += 1
        last = el
    return moved


def check_all_parsed(
    raw_ids: Iterable[int], parsed_ids: Iterable[int], source: str, what: str
) -> None:
    """Raise :class:`ParseError` when a post id of the raw markup has no parsed post.

    Args:
        raw_ids: post ids found by a regex on the raw page (``what`` says which markup).
        parsed_ids: ids of the posts the parser returned.
        source: the page's name, for the error.
        what: the container markup counted, e.g. ``'<div id="pN" class="post">'``.

    Raises:
        ParseError: reason ``"N post containers (...) but M posts parsed; lost: [...]"``.
    """
    raw = list(dict.fromkeys(raw_ids))
    parsed = set(parsed_ids)
    lost = [post_id for post_id in raw if post_id not in parsed]
    if lost:
        raise ParseError(
            f"{len(raw)} post containers ({what}) but {len(parsed)} posts parsed; "
            f"lost: {lost[:10]}",
            source,
        )
