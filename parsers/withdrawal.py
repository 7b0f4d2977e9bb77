"""Withdrawals in a registration thread (issue 23 soak): « Je retire mon inscription »,
« Je me désiste », « Désinscription », « J'annule ma demande », « finalement je ne participe
plus ».

Pure: :func:`find_withdrawal` reads a post's own text (quotes already removed by the page
parser, :class:`parsers.model.Post`), folded like :func:`parsers.registration.fold` (case,
accents, apostrophes and spacing ignored). :func:`classify_withdrawal` decides, **[D]**:

- a clear withdrawal phrase and no readable sign-up in the same post -> ``"withdrawal"``;
- a clear phrase *and* a readable sign-up (name, year, magic type) -> ``"unsure"``: it may
  withdraw one sign-up and post another, or quote an old text; a referee decides (the desk's
  ``signup_unsure`` task path);
- no clear phrase (« je retire ce que j'ai dit », « je ne me désiste pas », « sans
  désinscription ») -> None: the post is read as a sign-up as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from parsers.registration import fold

_WHAT = r"(?:inscription|demande|candidature|participation|fiche)"
_MINE = r"(?:mon|ma|mes)"
#: Clear withdrawal phrases, on folded text (``fold``: lower case, no accents).
PHRASES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern))
    for name, pattern in (
        ("retire", rf"\bje (?:me )?retire {_MINE} {_WHAT}\b"),
        ("retirez", rf"\b(?:retirez|supprimez|annulez|enlevez)(?:-moi| moi| {_MINE} {_WHAT})\b"),
        ("desiste", r"\bje me desiste\b"),
        ("desistement", r"(?:^|[^a-z])desistement\b"),
        ("desinscription", r"(?:^|[^a-z])desinscri(?:ption|s|re|t|vez|s-moi|vez-moi)?\b"),
        ("annule", rf"\bj ?'? ?annule {_MINE} {_WHAT}\b"),
        (
            "ne_participe_plus",
            r"\bje ne (?:participe|participerai|jouerai|serai|peux|pourrai)"
            r"(?: finalement)? (?:plus|pas finalement)\b",
        ),
    )
)
#: Words just before a phrase that deny it (« pas de désinscription », « sans désistement »).
_DENIED = re.compile(r"(?:\bpas d ?'? ?|\bpas de |\bsans |\baucune? |\bne me )$")


@dataclass(frozen=True)
class Withdrawal:
    """A withdrawal phrase found in a post.

    Attributes:
        phrase: which phrase (a key of :data:`PHRASES`: ``"desiste"``, ``"annule"``...).
        excerpt: the matched folded words, for logs and the referee task.
    """

    phrase: str
    excerpt: str


def find_withdrawal(text: str) -> Withdrawal | None:
    """The first clear withdrawal phrase in a post's own ``text`` (any line), or None. A
    phrase preceded by a denial (« pas de », « sans », « aucune ») does not count."""
    folded = re.sub(r"[’`´]", "'", fold(text))
    folded = re.sub(r"[ \t]+", " ", folded)
    for line in folded.splitlines():
        for name, pattern in PHRASES:
            for m in pattern.finditer(line):
                if _DENIED.search(line[: m.start()].rstrip() + " "):
                    continue
                return Withdrawal(name, m.group(0).strip())
    return None


def classify_withdrawal(
    text: str, *, signup_readable: bool
) -> tuple[Literal["withdrawal", "unsure"], Withdrawal] | None:
    """Whether a registration post withdraws its author's sign-up (see module docstring).

    Args:
        text: the post's own text (:attr:`parsers.model.Post.text`).
        signup_readable: :func:`parsers.registration.parse_signup` read a whole sign-up in
            the same post (a :class:`parsers.registration.Signup`, not an error).

    Returns:
        ``("withdrawal", w)``, ``("unsure", w)`` (phrase and sign-up fields together: a
        referee decides), or None (no clear phrase: not a withdrawal).
    """
    found = find_withdrawal(text)
    if found is None:
        return None
    return ("unsure" if signup_readable else "withdrawal"), found


__all__ = ["PHRASES", "Withdrawal", "classify_withdrawal", "find_withdrawal"]
