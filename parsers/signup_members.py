"""Member lines of a sign-up: one line per duellist (issue 23), pure.

A 2v2 sign-up often gives one line per member of the duo, each with its own details:

- numbered: « Joueur 1 : Nerys Vale, 4e année, brutale » / « Joueur 2 : Ysolde Marr, 4e année,
  discrète » (also « Membre », « Duelliste », « Participant(e) », « (Co)équipier(ère) »,
  « Sorcier(ère) », « Personnage », « Perso », with or without « n° »);
- name first: « Ysolde Marr, 5e année, discrète », « Ysolde Marr (5e année, discrète) »,
  « Ysolde Marr - 5e année - discrète », e.g. under a ``Partenaire :`` line or a free-text
  « Je m'inscris avec Ysolde Marr ».

:func:`member_line` only recognises the shape; :func:`parsers.registration.parse_signup` reads
the details and decides whose line it is (the poster's, the partner's, or nobody's sure).
"""

from __future__ import annotations

import re

from parsers.signup_words import fold, is_name

_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’\-]*"
_NAME = rf"{_CAP}(?:\s+(?:(?:de|du|des|van|von|le|la|d'|di|del)\s+)?{_CAP})*"
_NUMBERED = re.compile(
    r"(?i)^\s*[-*•>]?\s*(?:joueur|joueuse|membre|duelliste|participante?|co[ée]quipi[eè]re?"
    r"|[ée]quipi[eè]re?|sorci[eè]re?|personnage|perso)\s*(?:n°|no|#)?\s*([12])\s*[:.)\-–]\s*(.+)$"
)
_NAME_FIRST = re.compile(rf"^\s*(?:[-*•>]|[12]\s*[.)])?\s*({_NAME})\s*(?:,|\(|\s[-–]\s)\s*(.*)$")


def member_line(line: str) -> tuple[int | None, str, str] | None:
    """``(number, name written first, the whole value)`` for a line shaped like one member's
    details (``number``: 1 or 2 for a numbered line, else None), or None.

        >>> member_line("Joueur 2 : Ysolde Marr, 4e année, discrète")
        (2, 'Ysolde Marr', 'Ysolde Marr, 4e année, discrète')
        >>> member_line("Ysolde Marr (5e année, discrète)")
        (None, 'Ysolde Marr', 'Ysolde Marr (5e année, discrète)')
        >>> member_line("Nom : Nerys Vale") is None
        True
    """
    number: int | None = None
    value = line
    numbered = _NUMBERED.match(line)
    if numbered:
        number, value = int(numbered.group(1)), numbered.group(2).strip()
    m = _NAME_FIRST.match(value)
    if not m or not is_name(m.group(1)) or ":" in m.group(1):
        return None
    name = m.group(1).strip()
    if number is None and len(fold(name).split()) < 2:
        return None  # « Bonjour, ... », « Moi, ... »: a lone capitalised word is no member line
    return number, name, value.strip()


__all__ = ["member_line"]
