"""The text of a phpBB private message page (``ucp.php?i=pm&mode=view&p=N``). Pure: no I/O."""

from __future__ import annotations

from typing import Any

import lxml.etree

from parsers.phpbb_forms import _has_class, _page_root

_PM_CONTENT = lxml.etree.XPath(f"//div[{_has_class('postbody')}]//div[{_has_class('content')}]")
_NO_TEXT_TAGS = frozenset({"script", "style", "template"})


def parse_pm_message_text(html: str | bytes) -> str | None:
    """Text of the message shown by ``ucp.php?i=pm&mode=view&p=N`` (first ``div.content``
    inside a ``div.postbody``), one line per displayed line, or None when the page shows no
    message. Each ``<br>`` is a newline; comments, scripts and styles give no text (what
    BeautifulSoup's ``get_text`` gave, read with lxml: the owl outbox search reads up to
    100 PMs after every restart)."""
    root = _page_root(html)
    nodes = _PM_CONTENT(root) if root is not None else []
    if not nodes:
        return None
    out: list[str] = []
    _text_with_breaks(nodes[0], out)
    # prosilver writes "<br>" followed by a newline: one displayed line break each.
    return "".join(out).replace("\n\n", "\n").strip()


def _text_with_breaks(el: Any, out: list[str]) -> None:
    """Append the text of ``el``'s subtree to ``out`` (``<br>``: ``"\n"``; the tails of
    comments and scripts count, their own text does not)."""
    if el.text and el.tag not in _NO_TEXT_TAGS:
        out.append(el.text)
    for child in el:
        if child.tag == "br":
            out.append("\n")
        elif isinstance(child.tag, str):
            _text_with_breaks(child, out)
        if child.tail:
            out.append(child.tail)
