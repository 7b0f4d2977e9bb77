"""Who duels whom: read the duellists and their years from a duel topic's title or first post.

A referee (or the registration flow) opens a duel topic; the bot adopts it automatically when
the first post or the title names both duellists with their years, in the forms people write:

>>> find_duellists("Aurora Vexley (5e année) contre Cassius Thorne (4e année)")
(('Aurora Vexley', '5'), ('Cassius Thorne', '4'))
>>> find_duellists("Duel : Odric Fenwick (7ème année) vs Maelis Dunbar (première année)")
(('Odric Fenwick', '7'), ('Maelis Dunbar', '1'))
>>> find_duellists("Aurora Vexley contre Cassius Thorne") is None
True

Years: ``1``..``7`` (digits, ordinals "1re", "2e", "3ème", or words "première" ..
"septième"); "7+"/"adulte" map to ``"7+"``. Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata

_WORDS = {
    "premiere": "1",
    "deuxieme": "2",
    "seconde": "2",
    "troisieme": "3",
    "quatrieme": "4",
    "cinquieme": "5",
    "sixieme": "6",
    "septieme": "7",
}
_YEAR = r"\(\s*(?P<{g}>[^()]{{1,30}}?)\s*\)"
_NAME = r"(?P<{g}>[^\W\d_][\w'’\- .]{{0,60}}?)"
_PAIR = re.compile(
    _NAME.format(g="a")
    + r"\s*"
    + _YEAR.format(g="ya")
    + r"\s*(?:contre|vs\.?|versus|against)\s*"
    + _NAME.format(g="b")
    + r"\s*"
    + _YEAR.format(g="yb"),
    re.IGNORECASE,
)


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def parse_year(text: str) -> str | None:
    """A year of study from free text ("5e année", "cinquième", "7+", "adulte"), or None."""
    folded = _fold(text)
    if "adult" in folded or re.search(r"7[^+\d]{0,12}\+", folded):
        return "7+"
    digits = re.search(r"\b([1-7])\s*(?:e|er|re|ere|eme|ème|th|st|nd|rd)?\b", folded)
    if digits:
        return digits.group(1)
    for word, year in _WORDS.items():
        if word in folded:
            return year
    return None


def _clean_name(name: str) -> str:
    name = re.sub(r"^(?:.*?:\s*)", "", name.strip()) if ":" in name else name.strip()
    return " ".join(name.split())


def find_duellists(text: str) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """The two duellists ``((name, year), (name, year))`` named in ``text``, or None.

    Each line is tried in turn; the first line naming "A (year) contre B (year)" wins.
    """
    for line in text.splitlines() or [text]:
        match = _PAIR.search(line)
        if not match:
            continue
        year_a, year_b = parse_year(match["ya"]), parse_year(match["yb"])
        if year_a is None or year_b is None:
            continue
        name_a, name_b = _clean_name(match["a"]), _clean_name(match["b"])
        if name_a and name_b and name_a.casefold() != name_b.casefold():
            return (name_a, year_a), (name_b, year_b)
    return None


_STAKES = re.compile(
    r"^\s*(?:enjeux?|stakes?)\s*:\s*(?P<stakes>.+?)\s*$", re.IGNORECASE | re.MULTILINE
)


def find_stakes(text: str) -> str | None:
    r"""The stakes agreed by both duellists from an ``Enjeux : ...`` line, or None.

    >>> find_stakes("Aurora (5e année) contre Cassius (4e année)\nEnjeux : 10 gallions")
    '10 gallions'
    >>> find_stakes("Duel amical") is None
    True
    """
    match = _STAKES.search(text)
    if not match:
        return None
    stakes = match["stakes"].strip()
    return None if fold_simple(stakes) in ("aucun", "aucuns", "none", "amical", "-") else stakes


def fold_simple(text: str) -> str:
    """Accent- and case-folded text."""
    return _fold(text).strip()
