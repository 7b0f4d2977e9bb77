"""Shared text helpers for the parsers: accent/case folding, whitespace, line counting.

Pure functions on ``str``; no I/O.

Examples:
    >>> fold("  Sortilège de FEU ")
    'sortilege de feu'
    >>> fold("Apparition d’insectes")
    "apparition d'insectes"
    >>> non_empty_lines("a\\n\\n  b  \\n ")
    ['a', 'b']
    >>> count_lines("Je salue.\\n\\nLance de givre")
    2
"""

from __future__ import annotations

import re
import unicodedata

__all__ = [
    "collapse_ws",
    "count_lines",
    "fold",
    "non_empty_lines",
    "normalize_spaces",
]

_WS_RE = re.compile(r"\s+")
# Typographic apostrophes and quotes that players and French language packs use.
_APOSTROPHES = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "\u02bc": "'",
        "\u00b4": "'",
        "`": "'",
        "\u00a0": " ",
        "\u202f": " ",
        "\u2009": " ",
    }
)


def normalize_spaces(text: str) -> str:
    """Replace no-break/thin spaces by plain spaces and typographic apostrophes by ``'``.

    French phpBB language packs put U+00A0 before ``:``; players type U+2019 for apostrophes.
    """
    return text.translate(_APOSTROPHES)


def collapse_ws(text: str) -> str:
    """Collapse every run of whitespace (incl. no-break spaces) to one space and strip."""
    return _WS_RE.sub(" ", normalize_spaces(text)).strip()


def fold(text: str) -> str:
    """Accent-fold and case-fold ``text`` for matching, collapsing whitespace.

    RULES.md, "Spell-name matching: rapidfuzz WRatio on accent-folded, case-folded text".
    ``"Œ"``/``"æ"`` are expanded by NFKD where Unicode allows; combining marks are dropped.
    """
    decomposed = unicodedata.normalize("NFKD", normalize_spaces(text).casefold())
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return collapse_ws(stripped.replace("œ", "oe").replace("æ", "ae"))


def non_empty_lines(text: str) -> list[str]:
    """Lines of ``text`` that contain non-blank characters, stripped, in order."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def count_lines(text: str) -> int:
    """Number of non-empty lines of ``text`` (the ``line_count`` of a post)."""
    return len(non_empty_lines(text))
