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
    lowered = normalize_spaces(text).casefold()
    if lowered.isascii():
        return _WS_RE.sub(" ", lowered).strip()
    decomposed = unicodedata.normalize("NFKD", lowered)
    # Every combining mark is at U+0300 or above: only those characters need a lookup.
    stripped = _HIGH_RE.sub(_drop_combining, decomposed)
    return _WS_RE.sub(" ", stripped.replace("œ", "oe").replace("æ", "ae")).strip()


_HIGH_RE = re.compile("[^\x00-\u02ff]")


def _drop_combining(match: re.Match[str]) -> str:
    char = match.group()
    return "" if unicodedata.combining(char) else char


def non_empty_lines(text: str) -> list[str]:
    """Lines of ``text`` that contain non-blank characters, stripped, in order."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def count_lines(text: str) -> int:
    """Number of non-empty lines of ``text`` (the ``line_count`` of a post)."""
    return len(non_empty_lines(text))
