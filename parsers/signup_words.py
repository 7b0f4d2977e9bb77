"""Words of sign-up posts, pure: what is no name, what says "nobody", the duel formats, the
stakes, and the folding every comparison uses (issue 15: "sign-ups read as a person would").
Used by :mod:`parsers.registration`.
"""

from __future__ import annotations

import re
import unicodedata

from parsers.invisible import is_invisible


def fold(text: str) -> str:
    """Accent-free, case-folded text with single spaces and straight apostrophes."""
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'"))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


#: Words that start no partner's name (folded): « contre un », « contre N'IMPORTE QUI »...
NOT_A_NAME = {
    "un", "une", "deux", "trois", "quatre", "le", "la", "les", "l'", "des", "du", "de", "d'",
    "personne", "quiconque", "n'importe", "nimporte", "tout", "tous", "toutes", "toi", "moi",
    "vous", "lui", "elle", "eux", "qui", "mon", "ma", "mes", "ton", "ta", "son", "sa", "plaisir",
    "joie", "grand", "impatience", "adversaire", "partenaire", "coequipier", "coequipiere",
    "aucun", "aucune", "rien", "premier", "premiere", "1", "2", "je", "j'", "il", "on", "nous",
    "bonjour", "bonsoir", "salut", "coucou", "hello", "hey", "yo", "re", "merci", "inscription",
    "enfin", "alors", "sinon", "ok", "oui", "non", "svp", "hum", "euh", "quelqu'un",
    "quelqu'une", "celui", "celle", "au", "hasard", "libre", "inconnu", "inconnue", "?",
}  # fmt: skip
#: A labelled partner value that names nobody: an open request (folded, punctuation stripped).
NOBODY = re.compile(
    r"^(?:aucun|aucune|personne|pas encore|pas encore choisi|pas encore de partenaire|non|none|"
    r"rien|neant|nope|-+|/|\?+|x|n/a|na|a trouver|a definir|libre|ouvert|demande ouverte|"
    r"n'importe qui|le premier venu|la premiere venue|qui veut|qui le veut|pas d'adversaire|"
    r"pas de partenaire|aucun pour l'instant|aucun pour le moment|personne pour l'instant|"
    r"personne pour le moment|pas encore trouve|pas encore trouvee|je cherche|je cherche encore)$"
)
#: Duel formats written in the post (folded): never read as names.
KIND_PHRASES = (
    ("1v1", re.compile(r"\b(?:un|1)\s*(?:contre|vs\.?|v|c|x|versus)\s*(?:un|1)\b")),
    ("2v2", re.compile(r"\b(?:deux|2)\s*(?:contre|vs\.?|v|c|x|versus)\s*(?:deux|2)\b")),
)
KIND_RAW = re.compile(
    r"(?i)\b(?:un|1|deux|2)\s*(?:contre|vs\.?|v|c|x|versus)\s*(?:un|1|deux|2)\b"
)
STAKES = re.compile(r"(?i)\b(?:enjeux?|stakes?)\s*:\s*(?P<stakes>[^\n]*)")
def signup_kind(text: str) -> tuple[str, ...]:
    """The duel formats a post names, in order and without repeats (``"1v1"`` for « un contre
    un », « 1v1 », « 1 vs 1 »; ``"2v2"`` for « deux contre deux », « 2c2 »...).

        >>> signup_kind("Je m'inscris pour un duel en un contre un.")
        ('1v1',)
        >>> signup_kind("DEUX CONTRE DEUX avec Odric")
        ('2v2',)
    """
    folded = fold(text)
    found = sorted(
        (m.start(), kind) for kind, rx in KIND_PHRASES for m in rx.finditer(folded)
    )
    return tuple(dict.fromkeys(kind for _, kind in found))


def find_signup_stakes(text: str) -> str | None:
    """The stakes of a sign-up: the text after the first ``Enjeux :`` (or ``Enjeu :``),
    anywhere in a line, to the end of that line; None when there is none or it says there is
    none (« aucun », « amical »...).

        >>> find_signup_stakes("Aurora, 5e année, brutale. Enjeux : 10 gallions")
        '10 gallions'
        >>> find_signup_stakes("Enjeux : aucun") is None
        True
    """
    m = STAKES.search(text)
    if m is None:
        return None
    stakes = m["stakes"].strip(" .;")
    if fold(stakes).strip(" !.") in ("", "aucun", "aucuns", "aucune", "none", "amical", "-",
                                     "rien", "pas d'enjeux", "pas d'enjeu", "sans"):
        return None
    return stakes


def clean_text(text: str) -> str:
    """Emoji, symbols and invisible characters removed (``°`` kept: « 5° année »); what renders
    as nothing (:func:`parsers.invisible.is_invisible`, Hangul fillers included) is dropped."""
    out = []
    for c in text:
        cat = unicodedata.category(c)
        if c == "°" or c == "\n":
            out.append(c)
        elif c not in "\t\r" and is_invisible(c):
            continue
        elif cat in ("So", "Sk", "Cs", "Co", "Cf", "Cc") or 0xFE00 <= ord(c) <= 0xFE0F:
            out.append(" " if cat != "Cf" else "")
        else:
            out.append(c)
    return "".join(out)


def clean_name(name: str) -> str:
    """A name as written, without surrounding punctuation; ALL CAPS made Title Case."""
    name = " ".join(name.strip(" .,;:!?*-\"«»()[]").split())
    if name.isupper() and len(name) > 2:
        name = name.title()
    return name


def is_nobody(value: str) -> bool:
    """True when a labelled partner value names nobody (« aucun », « pas encore »...)."""
    return bool(NOBODY.match(fold(value).strip(" .!,;()")))


def is_name(candidate: str) -> bool:
    """False for what starts no partner's name (« un », « N'IMPORTE QUI », « personne »...)."""
    words = fold(candidate).split()
    return bool(words) and words[0] not in NOT_A_NAME and fold(candidate) not in NOT_A_NAME


NAME_LABELS = (
    "nom",
    "prenom",
    "prenom et nom",
    "nom et prenom",
    "nom prenom",
    "prenom nom",
    "nom du personnage",
    "personnage",
    "identite",
    "duelliste",
    "pseudo",
    "nom complet",
)
YEAR_LABELS = ("annee", "annees", "annee d'etude", "annee d'etudes", "niveau", "classe", "age")
TYPE_LABELS = (
    "type",
    "types",
    "type de magie",
    "types de magie",
    "type(s) de magie",
    "type(s)",
    "magie",
    "type magique",
    "types magiques",
)
PARTNER_LABELS = (
    "partenaire",
    "adversaire",
    "coequipier",
    "coequipiere",
    "binome",
    "mon adversaire",
    "mon partenaire",
    "ma partenaire",
    "avec",
    "contre",
    "opposant",
    "adversaire choisi",
    "partenaire choisi",
)
PARTNER_SUFFIX = re.compile(
    r"\s+(?:du|de la|de mon|de ma|de l'|de l)\s*'?\s*(partenaire|adversaire|coequipiere?|binome"
    r"|opposant)$"
)


def label_kind(label: str) -> tuple[str | None, bool]:
    """``(field, about the partner)`` for a folded label: field ``"partner"``, ``"name"``,
    ``"year"``, ``"types"`` or None (« nom du partenaire » is ``("name", True)``)."""
    partner = False
    m = PARTNER_SUFFIX.search(label)
    if m:
        partner = True
        label = label[: m.start()].strip()
    label = label.strip(" -*•")
    if label in PARTNER_LABELS:
        return "partner", True
    if label in NAME_LABELS:
        return "name", partner
    if label in YEAR_LABELS or label.startswith("annee"):
        return "year", partner
    if label in TYPE_LABELS or label.startswith("type"):
        return "types", partner
    return None, partner


__all__ = [
    "KIND_PHRASES",
    "KIND_RAW",
    "NOBODY",
    "NOT_A_NAME",
    "STAKES",
    "clean_name",
    "clean_text",
    "find_signup_stakes",
    "fold",
    "is_name",
    "is_nobody",
    "label_kind",
    "signup_kind",
]
