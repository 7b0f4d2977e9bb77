"""Which forum software served a page: ``"phpbb3"`` or ``"forumactif"``.

Forumactif (Forumotion) pages carry script data ``_userdata["tpl_used"]`` and ``_board[...]``,
whatever their display version — including its "phpBB3"/prosilver look-alike, so Forumactif is
checked first. Real phpBB 3 pages carry prosilver markup (``<body id="phpbb">``, the
"phpBB style name" comment, ``styles/<style>/theme`` assets, ``phpbb_alert``) and the footer
"Powered by / Propulsé par / Développé par phpBB".
"""

from __future__ import annotations

import re

from parsers.errors import UnknownPageError
from parsers.model import Platform

__all__ = ["detect_platform"]

_FORUMACTIF_RE = re.compile(
    rb"""_userdata\s*\[\s*["']tpl_used["']\s*\]|_board\s*\[\s*["']Forumotion["']\s*\]"""
)
_PHPBB_RE = re.compile(
    rb"""<body[^>]*\bid=["']phpbb["']"""
    rb"|phpBB style name"
    rb"|(?:Powered by|Propuls\xc3\xa9 par|D\xc3\xa9velopp\xc3\xa9 par)\s*<a[^>]*>\s*phpBB"
    rb"|\./styles/[\w.-]+/theme/stylesheet\.css\?assets_version="
    rb"|\bphpbb_alert\b",
    re.IGNORECASE,
)


def detect_platform(html: str | bytes, source: str = "<html>") -> Platform:
    """Return ``"phpbb3"`` or ``"forumactif"`` for a page body.

    Args:
        html: the page (``str``, or ``bytes`` as served; only ASCII markers are searched).
        source: what is inspected, for the error message.

    Raises:
        UnknownPageError: neither platform's markers are present.

    Examples:
        >>> detect_platform('<script>_userdata["tpl_used"] = "modernbb";</script>')
        'forumactif'
        >>> detect_platform('<body id="phpbb" class="nojs section-viewtopic">')
        'phpbb3'
    """
    data = html.encode("utf-8") if isinstance(html, str) else html
    if _FORUMACTIF_RE.search(data):
        return "forumactif"
    if _PHPBB_RE.search(data):
        return "phpbb3"
    raise UnknownPageError("neither a phpBB 3 nor a Forumactif page", source)
