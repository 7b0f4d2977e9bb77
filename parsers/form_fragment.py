"""One form's markup cut out of a page, so that a form is parsed alone (issue 23: the owls'
compose forms are a tenth of their page). Pure: no I/O."""

from __future__ import annotations

import re

from bs4 import UnicodeDammit


def form_markup(html: str | bytes, form_id: str) -> str | None:
    """The markup of the first ``<form id=form_id>`` up to its ``</form>`` (forms do not
    nest), decoded as ``parsers.phpbb_forms._page_root`` decodes (``UnicodeDammit``); None
    when the page has no such tag, or when it may sit in an unclosed comment, script or
    textarea (the whole page is then parsed). Parsing the form alone reads the same fields
    as parsing the page, a tenth of the work (the owls' compose forms; issue 23)."""
    text = html if isinstance(html, str) else UnicodeDammit(html).unicode_markup
    if not text:
        return None
    found = re.search(
        r"<form\b[^>]*?\sid\s*=\s*([\"']?)" + re.escape(form_id) + r"\1(?=[\s/>])", text, re.I
    )
    if found is None:
        return None
    before = text[: found.start()].lower()
    for opening, closing in (("<!--", "-->"), ("<script", "</script"), ("<textarea", "</textarea")):
        if before.rfind(opening) > before.rfind(closing):
            return None
    end = text.lower().find("</form", found.end())
    return text[found.start() :] if end < 0 else text[found.start() : end] + "</form>"
