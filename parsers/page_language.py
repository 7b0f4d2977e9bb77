"""The language a board serves its pages in, read from the page's root element (issue 25:
« ``board.language``, default from the board »).

Both platforms write it on ``<html>``:

- phpBB 3 (prosilver, ``overall_header.html``): ``<html dir="ltr" lang="fr">``, from the
  board's default language pack (``S_USER_LANG``); the fixtures' real French pages say
  ``lang="fr"``, the English ones ``lang="en-gb"``.
- Forumactif: every display version's default template writes ``lang="{L_LANG_HTML}"`` (and
  ``xml:lang`` on the XHTML ones), filled with the board's language: the real pages of the
  fixtures say ``lang="fr"`` (a French AwesomeBB board) and ``lang="es"`` (a Spanish prosilver
  Foroactivo board); the pages built from the other versions' templates assume the same
  filling.

The value is a BCP 47 tag; only its primary language subtag is kept (``"en-gb"`` -> ``"en"``),
checked by Babel's :func:`babel.core.parse_locale`. A template placeholder left unfilled
(``{L_LANG_HTML}``), an empty or malformed value, or no ``<html>`` element give None.
"""

from __future__ import annotations

import re

import lxml.etree
import lxml.html
from babel.core import parse_locale

__all__ = ["HEAD_CHARS", "page_language"]

HEAD_CHARS = 65_536
"""How much of the page is parsed: the ``<html>`` start tag comes before the head and body
(after a doctype and comments), so the rest of a long topic page is not read."""

_XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_LANGUAGE = re.compile(r"[a-z]{2,3}")


def page_language(html: str) -> str | None:
    """The primary language subtag of the page's ``<html lang>`` (or ``xml:lang``).

    Args:
        html: the page's text as served (a whole page or its beginning; only the first
            :data:`HEAD_CHARS` characters are parsed).

    Returns:
        A lowercase ISO 639 code (``"fr"``, ``"en"``, ``"es"``), or None when the page does
        not say (module doc). Never raises for a page it cannot read: that is None too.
    """
    head = html[:HEAD_CHARS]
    if not head.strip():
        return None
    try:
        root = lxml.html.document_fromstring(head.encode("utf-8", "replace"))
    except (lxml.etree.ParserError, ValueError):
        return None
    if root.tag != "html":
        return None
    for raw in (root.get("lang"), root.get(_XML_LANG), root.get("xml:lang")):
        value = (raw or "").strip().replace("-", "_")
        if not value:
            continue
        try:
            language = parse_locale(value)[0].lower()
        except ValueError:  # « {L_LANG_HTML} », « fr FR »...
            continue
        if _LANGUAGE.fullmatch(language):
            return language
    return None
