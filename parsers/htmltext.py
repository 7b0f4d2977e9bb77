"""Turn a post's message element (lxml) into its own text, bold texts and inner HTML.

"Own content" = the message minus quotes (``<blockquote>``), code blocks (``div.codebox``,
``<pre>``, ``<code>``), signatures (``.signature``), edit notices (``.notice``), scripts and
styles. RULES.md: "Bold text inside quotes, code blocks, signatures or the forum's dice block
never counts."

Rendering rules (what a reader sees, one string per displayed line):
- ``<br>`` ends the current line (two ``<br>`` in a row give an empty line);
- block elements (div, p, li, headings, tables, removed quotes) start and end a line without
  adding empty lines;
- source newlines and runs of spaces are one space (HTML whitespace collapsing);
- ``<img>`` with class ``emoji``/``smilies`` contributes its ``alt`` text; other images nothing.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable
from typing import Any

import lxml.etree

from parsers.text import collapse_ws

__all__ = [
    "BLOCK_TAGS",
    "SKIPPED_TAGS",
    "has_class",
    "is_bold",
    "inner_html",
    "own_bold",
    "own_text",
]

# lxml elements are untyped (``ignore_missing_imports``); this alias documents intent.
Element = Any

BLOCK_TAGS = frozenset(
    {
        "address",
        "article",
        "aside",
        "blockquote",
        "center",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figure",
        "footer",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "td",
        "th",
        "thead",
        "tr",
        "ul",
    }
)
SKIPPED_TAGS = frozenset({"blockquote", "pre", "code", "script", "style", "noscript", "template"})
SKIPPED_CLASSES = ("codebox", "signature", "notice")
BOLD_TAGS = frozenset({"strong", "b"})
EMOJI_CLASSES = ("emoji", "smilies", "smiley")


_BOLD_STYLE_RE = re.compile(r"font-weight\s*:\s*(?:bold(?:er)?|[6-9]00)\b", re.IGNORECASE)


def is_bold(el: Element) -> bool:
    """``<strong>``, ``<b>``, or an element styled ``font-weight: bold``/``bolder``/``600``+."""
    if el.tag in BOLD_TAGS:
        return True
    style = el.get("style")
    return bool(style) and _BOLD_STYLE_RE.search(style) is not None


def has_class(el: Element, name: str) -> bool:
    """True when ``el``'s ``class`` attribute lists ``name``."""
    classes = el.get("class")
    return bool(classes) and name in classes.split()


def _is_skipped(el: Element) -> bool:
    tag = el.tag
    if not isinstance(tag, str):  # comments, processing instructions
        return True
    if tag in SKIPPED_TAGS:
        return True
    classes = el.get("class")
    if classes:
        parts = classes.split()
        return any(c in parts for c in SKIPPED_CLASSES)
    return False


class _LineBuilder:
    """Accumulates text pieces into displayed lines."""

    __slots__ = ("lines", "current")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.current: list[str] = []

    def add(self, piece: str) -> None:
        if piece:
            self.current.append(piece)

    def hard_break(self) -> None:
        self.lines.append(collapse_ws("".join(self.current)))
        self.current = []

    def soft_break(self) -> None:
        line = collapse_ws("".join(self.current))
        if line:
            self.lines.append(line)
        self.current = []

    def result(self) -> list[str]:
        self.soft_break()
        lines = self.lines
        start, end = 0, len(lines)
        while start < end and not lines[start]:
            start += 1
        while end > start and not lines[end - 1]:
            end -= 1
        out: list[str] = []
        for line in lines[start:end]:
            if not line and out and not out[-1]:
                continue  # at most one empty line in a row
            out.append(line)
        return out


_ENTER, _LEAVE_BLOCK, _LEAVE_INLINE = 0, 1, 2
_BREAKING_SKIPS = BLOCK_TAGS | {"blockquote", "pre"}


def _walk(root: Element, builder: _LineBuilder) -> None:
    """Add ``root``'s content (its text and children, not its tail) to ``builder``.

    Iterative, since pages may nest up to 2048 levels (``huge_tree``), beyond Python's
    recursion limit. A child's tail is added once the child is left."""
    if root.text:
        builder.add(root.text)
    stack: list[tuple[int, Element]] = [(_ENTER, child) for child in reversed(root)]
    while stack:
        op, child = stack.pop()
        if op != _ENTER:
            if op == _LEAVE_BLOCK:
                builder.soft_break()
            if child.tail:
                builder.add(child.tail)
            continue
        tag = child.tag
        if _is_skipped(child):
            if isinstance(tag, str) and (tag in _BREAKING_SKIPS or has_class(child, "codebox")):
                builder.soft_break()
        elif tag == "br":
            builder.hard_break()
        elif tag == "img":
            if any(has_class(child, c) for c in EMOJI_CLASSES):
                builder.add(child.get("alt") or "")
        else:
            if tag in BLOCK_TAGS:
                builder.soft_break()
                stack.append((_LEAVE_BLOCK, child))
            else:
                stack.append((_LEAVE_INLINE, child))
            if child.text:
                builder.add(child.text)
            stack.extend((_ENTER, grandchild) for grandchild in reversed(child))
            continue
        if child.tail:
            builder.add(child.tail)


def own_text(content: Element) -> str:
    """The displayed own text of ``content`` (see module doc), lines joined by ``\\n``.

    Leading/trailing empty lines are dropped and runs of empty lines are kept as one.
    """
    builder = _LineBuilder()
    _walk(content, builder)
    return "\n".join(builder.result())


def _iter_own(el: Element, stop: Callable[[Element], bool]) -> Iterable[Element]:
    """Outermost descendants of ``el`` where ``stop`` holds, outside skipped subtrees, in
    document order (iterative: see :func:`_walk`)."""
    stack = list(reversed(el))
    while stack:
        child = stack.pop()
        if _is_skipped(child):
            continue
        if stop(child):
            yield child
            continue
        stack.extend(reversed(child))


def _element_text(el: Element) -> str:
    builder = _LineBuilder()
    _walk(el, builder)
    return " ".join(line for line in builder.result() if line)


def own_bold(content: Element) -> tuple[str, ...]:
    """Texts of the outermost bold elements of the own content, in document order.

    Bold = ``<strong>``, ``<b>``, or a ``font-weight: bold`` / ``bolder`` / ``600``-``900``
    style (phpBB 3.0 and many styles render ``[b]`` as ``<span style="font-weight: bold">``).

    Bold inside quotes, code blocks, signatures and notices is not counted; empty bold is skipped.
    """
    texts = (_element_text(el) for el in _iter_own(content, is_bold))
    return tuple(t for t in texts if t)


def inner_html(el: Element, *, own_only: bool = True) -> str:
    """Inner HTML of ``el`` as a string; with ``own_only`` the skipped subtrees are left out.

    The tails of removed children are kept, so the text around a quote stays.
    """
    parts: list[str] = [html.escape(el.text, quote=False) if el.text else ""]
    for child in el:
        if own_only and _is_skipped(child):
            if child.tail:
                parts.append(html.escape(child.tail, quote=False))
            continue
        parts.append(lxml.etree.tostring(child, encoding="unicode", method="html", with_tail=True))
    return "".join(parts)
