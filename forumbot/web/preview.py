"""The review page's rendered preview of a draft: the BBCode as a phpBB board shows it (issue 25:
referees read the post players will read, not only its source).

Rendering is the maintained ``bbcode`` library (PyPI ``bbcode``, pinned in ``constraints.txt``):
its parser escapes every character of the text (``escape_html``), keeps only http(s) and
relative links (a ``javascript:`` link is dropped), and sanitises ``[color]``. On top of its
standard tags this module adds phpBB's ``[size=N]`` (a percentage, 1 to 200, as prosilver's
``<span style="font-size:N%; line-height:116%">``) and the quote's author line
(``[quote="Name"]`` → « Name a écrit : »). Player text inside a draft is untrusted: nothing in
it can open an HTML tag or run a script in the referee's browser.
"""

from __future__ import annotations

import html
from typing import Any

import bbcode
from markupsafe import Markup

from forumbot.publish.render import marker_line


def _size(tag: str, value: str, options: dict[str, str], parent: Any, context: Any) -> str:
    raw = (options.get(tag) or next(iter(options), "") or "").strip()
    if not raw.isdigit() or not 1 <= int(raw) <= 200:
        return value  # phpBB refuses a size outside 1..200: the text alone
    return f'<span style="font-size:{int(raw)}%; line-height:116%">{value}</span>'


def _quote(tag: str, value: str, options: dict[str, str], parent: Any, context: Any) -> str:
    who = (options.get(tag) or "").strip().strip('"')
    cite = f"<cite>{html.escape(who)} a écrit :</cite>" if who else ""
    return f"<blockquote><div>{cite}{value}</div></blockquote>"


def _parser() -> bbcode.Parser:
    parser = bbcode.Parser(escape_html=True, replace_links=True, replace_cosmetic=False)
    parser.add_formatter("size", _size)
    parser.add_formatter("quote", _quote, strip=True, swallow_trailing_newline=True)
    return parser


_PARSER = _parser()


def preview_html(text: str, key: str | None = None, platform: str = "phpbb3") -> Markup:
    """``text`` (a draft's BBCode) as HTML the review page may print as is (:class:`Markup`),
    with the marker line the poster appends when ``key`` is given. Pure."""
    source = text.rstrip() + ("\n" + marker_line(key, platform) if key else "")
    return Markup(_PARSER.format(source))  # noqa: S704 (escaped by the parser: module doc)


__all__ = ["preview_html"]
