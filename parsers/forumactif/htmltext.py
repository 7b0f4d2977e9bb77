"""Own-content extraction from a Forumactif message slot (lxml elements).

Rules (fixtures README section 2): *own content* is the message slot minus
``<blockquote>`` subtrees, the signature, code boxes and the edit line; lines are
split at ``<br>`` and block-element boundaries; images contribute no text; bold is
the text of every outermost bold element of the own content (``<strong>``, ``<b>``, or a
``font-weight: bold``/``700`` style: :func:`is_bold`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeAlias

from lxml import etree

#: an ``lxml.etree`` element (lxml ships no type stubs in this environment).
Element: TypeAlias = Any
SkipPredicate = Callable[[Element], bool]

BLOCK_TAGS = frozenset(
    "address article aside blockquote center dd details div dl dt fieldset figure footer "
    "form h1 h2 h3 h4 h5 h6 header hr li main nav ol p pre section summary table tbody "
    "thead tfoot tr td th ul".split()
)
INLINE_TAGS = frozenset(
    "a abbr b big cite code em font i label mark q s small span strike strong sub sup u".split()
)
_IGNORED_TAGS = frozenset({"script", "style", "noscript", "template", "textarea", "select"})
_WS_RE = re.compile(r"\s+")
_ENTER, _LEAVE, _TEXT = 0, 1, 2
_BOLD_STYLE_RE = re.compile(r"font-weight\s*:\s*(?:bold(?:er)?|[6-9]00)\b", re.IGNORECASE)


def is_bold(el: Element, tag: str | None = None) -> bool:
    """``<b>``, ``<strong>``, or an element styled ``font-weight: bold`` / ``bolder`` /
    ``600``-``900`` (phpBB 3.0 and many Forumactif styles render BBCode ``[b]`` as
    ``<span style="font-weight: bold">``)."""
    name = tag_of(el) if tag is None else tag
    if name in ("strong", "b"):
        return True
    style = el.get("style")
    return bool(style) and _BOLD_STYLE_RE.search(style) is not None


_STRING = etree.XPath("string()")


def text_content(el: Element) -> str:
    """All text under ``el`` (comments left out), like ``lxml.html``'s ``text_content()``
    but for plain ``lxml.etree`` elements (the parser builds those: no Python class lookup
    per element)."""
    return str(_STRING(el))


def drop_tree(el: Element) -> None:
    """Remove ``el`` and its subtree, keeping its tail text in place (``lxml.html``'s
    ``drop_tree`` for plain ``lxml.etree`` elements)."""
    parent = el.getparent()
    if parent is None:
        return
    if el.tail:
        previous = el.getprevious()
        if previous is None:
            parent.text = (parent.text or "") + el.tail
        else:
            previous.tail = (previous.tail or "") + el.tail
    parent.remove(el)


def squash(text: str) -> str:
    """Collapse runs of whitespace (incl. NBSP) to one space and strip."""
    return _WS_RE.sub(" ", text).strip()


def tag_of(el: object) -> str:
    """Lower-case tag name, or ``""`` for comments / processing instructions."""
    tag = getattr(el, "tag", None)
    return tag.lower() if isinstance(tag, str) else ""


def class_tokens(el: Element) -> list[str]:
    """The element's class names."""
    return (el.get("class") or "").split()


def has_class(name: str) -> str:
    """XPath predicate body testing the class token ``name``."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


@dataclass
class Line:
    """One displayed line: its text and the images shown on it."""

    text: str = ""
    images: list[Element] = field(default_factory=list)


@dataclass
class Extracted:
    """Result of :func:`extract`: displayed lines and bold texts, in document order."""

    lines: list[Line]
    bold: list[str]
    skipped: bool = False  # whether ``skip`` left out some subtree

    def texts(self) -> list[str]:
        """Whitespace-normalised text of every line (blank lines included)."""
        return [squash(line.text) for line in self.lines]


class _Builder:
    def __init__(self) -> None:
        self.lines: list[Line] = [Line()]
        self.bold: list[str] = []
        self.skipped = False
        self._bold_buf: list[str] | None = None

    def text(self, value: str | None) -> None:
        if value:
            self.lines[-1].text += value
            if self._bold_buf is not None:
                self._bold_buf.append(value)

    def newline(self) -> None:
        if self.lines[-1].text or self.lines[-1].images:
            self.lines.append(Line())
        elif len(self.lines) > 1 and (self.lines[-2].text or self.lines[-2].images):
            self.lines.append(Line())  # keep one blank line (``<br /><br />``)
        if self._bold_buf is not None:
            self._bold_buf.append(" ")

    def walk(self, root: Element, skip: SkipPredicate) -> None:
        """Add ``root``'s subtree (not its tail). Iterative: pages nest up to 2048 levels
        (``huge_tree``), beyond Python's recursion limit."""
        stack: list[tuple[int, Any]] = [(_ENTER, root)]
        while stack:
            op, item = stack.pop()
            if op == _TEXT:
                self.text(item)
                continue
            if op == _LEAVE:
                block, starts_bold = item
                if starts_bold and self._bold_buf is not None:
                    value = squash("".join(self._bold_buf))
                    self._bold_buf = None
                    if value:
                        self.bold.append(value)
                if block:
                    self.newline()
                continue
            el = item
            tag = tag_of(el)
            if not tag or tag in _IGNORED_TAGS:
                continue
            block = tag in BLOCK_TAGS
            if skip(el):
                self.skipped = True
                if block:
                    self.newline()
                continue
            if tag == "br":
                self.newline()
                continue
            if tag == "img":
                self.lines[-1].images.append(el)
                continue
            if block:
                self.newline()
            starts_bold = self._bold_buf is None and is_bold(el, tag)
            if starts_bold:
                self._bold_buf = []
            self.text(el.text)
            stack.append((_LEAVE, (block, starts_bold)))
            for child in reversed(el):
                stack.append((_TEXT, child.tail))
                stack.append((_ENTER, child))


def extract(root: Element, skip: SkipPredicate) -> Extracted:
    """Lines and bold of ``root``'s content, leaving out subtrees where ``skip`` is true.

    ``root``'s own tail is not part of its content. Linear in the size of ``root``.
    """
    builder = _Builder()
    builder.text(root.text)
    for child in root:
        builder.walk(child, skip)
        builder.text(child.tail)
    return Extracted(lines=builder.lines, bold=builder.bold, skipped=builder.skipped)


def iter_text_nodes(root: Element, skip: SkipPredicate) -> Iterator[tuple[str, Element]]:
    """``(text, owner)`` for every text node under ``root`` in document order.

    ``owner`` is the element whose content holds the text (the parent for a tail).
    Subtrees where ``skip`` is true, scripts and styles are left out.
    """
    stack: list[tuple[Element, bool]] = [(root, False)]
    while stack:
        el, is_tail_marker = stack.pop()
        if is_tail_marker:
            parent = el.getparent()
            if el.tail and parent is not None:
                yield el.tail, parent
            continue
        tag = tag_of(el)
        if el is not root:
            stack.append((el, True))
        if not tag or tag in _IGNORED_TAGS or (el is not root and skip(el)):
            continue
        if el.text:
            yield el.text, el
        for child in reversed(list(el)):
            stack.append((child, False))


_IGNORED_TAGS_SORTED = tuple(sorted(_IGNORED_TAGS))
_SKIPPED_TAGS = ("blockquote", *_IGNORED_TAGS_SORTED)


def _holds(root: Element, tags: tuple[str, ...]) -> bool:
    """Whether a descendant of ``root`` (not ``root`` itself) has one of ``tags``."""
    return any(el is not root for el in root.iter(*tags))


def _is_blockquote(el: Element) -> bool:
    return tag_of(el) == "blockquote"


def text_outside_quotes(root: Element) -> str:
    """All text of ``root`` except ``<blockquote>`` subtrees, scripts and styles: the same as
    ``text_excluding(root, lambda el: el.tag == "blockquote")``, with a C-speed path
    (``itertext``) for the usual element that holds none of them."""
    if not _holds(root, _SKIPPED_TAGS):
        return "".join(root.itertext())
    return text_excluding(root, _is_blockquote)


_TEXT_NODES = etree.XPath(".//text()")


def text_nodes(root: Element) -> list[tuple[str, Element]]:
    """:func:`iter_text_nodes` without a skip predicate, as a list; one XPath (lxml "smart"
    strings know their element) when ``root`` holds no script, style or form control."""
    if _holds(root, _IGNORED_TAGS_SORTED):
        return list(iter_text_nodes(root, lambda el: False))
    found: list[tuple[str, Element]] = []
    for value in _TEXT_NODES(root):
        owner = value.getparent()
        if value.is_tail:
            owner = owner.getparent()
        if owner is not None:
            found.append((str(value), owner))
    return found


@lru_cache(maxsize=256)
def compiled(xpath: str) -> Any:
    """``etree.XPath(xpath)``, compiled once (``el.xpath(str)`` compiles at every call)."""
    return etree.XPath(xpath)


def text_excluding(root: Element, skip: SkipPredicate) -> str:
    """All text of ``root`` (tails of children included) except skipped subtrees."""
    return "".join(text for text, _owner in iter_text_nodes(root, skip))
