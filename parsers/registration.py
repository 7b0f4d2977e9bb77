"""Sign-up post -> :class:`Signup` (or a French :class:`SignupError`), pure.

Seed 001: "Afin de participer à un duel quel qu'il soit, il vous suffit de poster dans le sujet
d'inscription correspondant au type de duel voulu. Vous devrez y indiquer votre nom, votre année
d'étude et votre type de magie (2 types maximum ; [...]), ainsi que ceux de votre partenaire si
vous en avez déjà choisi un." RULES.md: a sign-up gives "name, year, magic type(s) (two at most)
and, if chosen, the partner's name, year and magic type (1v1: the opponent; 2v2: the teammate)".

Forgiving of how people write: labelled lines (``Nom :``, ``Année :``, ``Type de magie :``,
``Partenaire :`` and their variants, a partner block after a ``Partenaire`` line), free text
(``Je m'inscris avec X``, ``en 5e année``, ``cinquième année``, ``adulte``), accents, case and
small typos in magic types (``brutal``, ``Discret``, ``flamboyant``, ``protecteur``,
``sournoisse``). The name defaults to the post's author (accounts are characters).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass

from rapidfuzz import fuzz

from parsers.model import Post

MAGIC_TYPES: dict[str, str] = {
    "brutale": "Brutale",
    "discrete": "Discrète",
    "flamboyante": "Flamboyante",
    "protectrice": "Protectrice",
    "sournoise": "Sournoise",
}
# Other spellings people use (masculine forms), by type key.
_TYPE_FORMS: dict[str, tuple[str, ...]] = {
    "brutale": ("brutale", "brutal", "brutales"),
    "discrete": ("discrete", "discret", "discretes"),
    "flamboyante": ("flamboyante", "flamboyant", "flamboyance"),
    "protectrice": ("protectrice", "protecteur", "protectrices", "protection"),
    "sournoise": ("sournoise", "sournois", "sournoises"),
}
MAX_MAGIC_TYPES = 2
_YEAR_WORDS = {
    "premiere": "1",
    "premier": "1",
    "deuxieme": "2",
    "seconde": "2",
    "second": "2",
    "troisieme": "3",
    "quatrieme": "4",
    "cinquieme": "5",
    "sixieme": "6",
    "septieme": "7",
    "huitieme": "8",
    "neuvieme": "9",
}
_FILLERS = {
    "magie", "type", "types", "de", "du", "la", "le", "ma", "mon", "est", "sont", "plutot",
    "un", "une", "peu", "tres", "et", "ou", "mais", "aussi", "principalement", "surtout",
    "tendance", "a", "dominante", "secondaire", "je", "suis", "il", "elle", "sa", "son",
}  # fmt: skip


@dataclass(frozen=True)
class Partner:
    """The partner named in a sign-up (1v1: the opponent; 2v2: the teammate).

    Attributes:
        name: the character's name.
        year: ``"1"``..``"7"`` or ``"adult"``, or None when not given.
        magic_types: type keys (``"brutale"``, ``"discrete"``...), possibly empty.
    """

    name: str
    year: str | None = None
    magic_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class Signup:
    """A valid sign-up.

    Attributes:
        post_id, author: the sign-up post and its author.
        name: the character's name (the author when the post does not say).
        year: ``"1"``..``"7"`` or ``"adult"``.
        magic_types: one or two type keys, in the order written.
        partner: the chosen partner, or None (an open request).
    """

    post_id: int
    author: str
    name: str
    year: str
    magic_types: tuple[str, ...]
    partner: Partner | None = None

    @property
    def is_open_request(self) -> bool:
        """True when no partner is named (seed 001: "faire une demande ouverte")."""
        return self.partner is None


@dataclass(frozen=True)
class SignupError:
    """An invalid sign-up, with the French message the bot answers with.

    Attributes:
        post_id: the post.
        code: ``missing_year``, ``invalid_year``, ``missing_magic_type``,
            ``too_many_magic_types``, ``unknown_magic_type``, or the same prefixed with
            ``partner_`` for the partner's details.
        message: French, addressed to the player.
    """

    post_id: int
    code: str
    message: str


def fold(text: str) -> str:
    """Accent-free, case-folded text with single spaces and straight apostrophes."""
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'"))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


# --- Years ----------------------------------------------------------------------------------------

_ORDINAL = r"(\d{1,2})\s*(?:e|eme|em|er|ere|re|nd|nde|°|ieme)?"
_YEAR_IN_TEXT = re.compile(
    rf"(?:\b{_ORDINAL}\s+annees?\b|\bannees?\s*(?:d'etudes?\s*)?:?\s*{_ORDINAL}\b"
    r"|\b(premiere|premier|deuxieme|seconde|second|troisieme|quatrieme|cinquieme|sixieme"
    r"|septieme|huitieme|neuvieme)\s+annee\b|\b(adultes?|adult)\b)"
)
_YEAR_VALUE = re.compile(rf"^\s*{_ORDINAL}\b|\b(adultes?|adult)\b")


def _year_from(match_groups: tuple[str | None, ...]) -> str | None:
    for g in match_groups:
        if g is None:
            continue
        if g.isdigit():
            return str(int(g))
        if g.startswith("adult"):
            return "adult"
        if g in _YEAR_WORDS:
            return _YEAR_WORDS[g]
    return None


def parse_year(text: str, *, labelled: bool = False) -> str | None:
    """The year written in ``text``: ``"1"``..``"9"`` as written (validated later), ``"adult"``,
    or None. A labelled value (``Année : 5``) may be a bare number or word; free text needs
    ``année`` next to it (``en 5e année``, ``cinquième année``) or ``adulte``.

        >>> parse_year("5ème année")
        '5'
        >>> parse_year("Cinquième", labelled=True)
        '5'
        >>> parse_year("Adulte (professeur)")
        'adult'
        >>> parse_year("j'ai 15 ans") is None
        True
    """
    folded = fold(text)
    m = _YEAR_IN_TEXT.search(folded)
    if m:
        return _year_from(m.groups())
    if labelled:
        m = _YEAR_VALUE.search(folded)
        if m:
            return _year_from(m.groups())
        for word in re.findall(r"[a-z]+", folded):
            if word in _YEAR_WORDS:
                return _YEAR_WORDS[word]
    return None


# --- Magic types ----------------------------------------------------------------------------------


def _match_type(word: str, known: Mapping[str, str]) -> str | None:
    best: tuple[float, str] | None = None
    for key in known:
        forms = _TYPE_FORMS.get(key, (fold(key), fold(known[key])))
        for form in forms:
            score = 100.0 if word == form else fuzz.ratio(word, form)
            if score >= 80 and (best is None or score > best[0]):
                best = (score, key)
    return best[1] if best else None


def parse_magic_types(
    text: str, known: Mapping[str, str] = MAGIC_TYPES
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Magic types in a labelled value: (type keys in order, chunks that name no type).

    Chunks are split on commas, ``et``, ``/``, ``&``, ``+``, ``;``; brackets are ignored.

        >>> parse_magic_types("Brutale et discrète")
        (('brutale', 'discrete'), ())
        >>> parse_magic_types("sournois / Protecteur")
        (('sournoise', 'protectrice'), ())
        >>> parse_magic_types("colérique")
        ((), ('colérique',))
    """
    cleaned = re.sub(r"\([^)]*\)", " ", text)
    chunks = re.split(r",|;|/|&|\+|\bet\b|\band\b|\bou\b| - ", cleaned, flags=re.IGNORECASE)
    found: list[str] = []
    unknown: list[str] = []
    for chunk in chunks:
        words = [w for w in re.findall(r"[a-z]+", fold(chunk)) if w not in _FILLERS]
        if not words:
            continue
        keys = [k for k in (_match_type(w, known) for w in words) if k is not None]
        if keys:
            for key in keys:
                if key not in found:
                    found.append(key)
        else:
            unknown.append(chunk.strip(" .!:-"))
    return tuple(found), tuple(unknown)


def _types_in_free_text(text: str, known: Mapping[str, str]) -> tuple[str, ...]:
    """Types named in a free-text line (exact forms only: no typo tolerance here)."""
    out: list[str] = []
    for word in re.findall(r"[a-z]+", fold(text)):
        for key in known:
            if word in _TYPE_FORMS.get(key, (fold(key),)) and word != "protection":
                if key not in out:
                    out.append(key)
    return tuple(out)


# --- Labels and free text ---------------------------------------------------------------------

_LABEL = re.compile(r"^\s*[-*•>]?\s*([^:]{1,60}?)\s*:\s*(.*)$")
_NAME_LABELS = (
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
_YEAR_LABELS = ("annee", "annees", "annee d'etude", "annee d'etudes", "niveau", "classe", "age")
_TYPE_LABELS = (
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
_PARTNER_LABELS = (
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
_PARTNER_SUFFIX = re.compile(
    r"\s+(?:du|de la|de mon|de ma|de l'|de l)\s*'?\s*(partenaire|adversaire|coequipiere?|binome"
    r"|opposant)$"
)
_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’\-]*"
_NAME = rf"({_CAP}(?:\s+(?:(?:de|du|des|van|von|le|la|d'|di|del)\s+)?{_CAP})*)"
_FREE_PARTNER = re.compile(
    r"(?:je\s+m'?\s*inscri[st]\s+(?:avec|contre|face\s+[àa])|en\s+(?:duo|binôme|binome|équipe|"
    r"equipe)\s+avec|mon\s+(?:adversaire|partenaire|coéquipier|coequipier)\s+(?:sera|est)|"
    r"ma\s+(?:partenaire|coéquipière|coequipiere)\s+(?:sera|est)|je\s+(?:défie|defie|provoque)|"
    r"j'affronte|face\s+à|contre)\s+" + _NAME,
    re.IGNORECASE,
)
_FREE_NAME = re.compile(r"(?:je\s+m'appelle|je\s+suis|moi,?)\s+" + _NAME)
_OPEN = re.compile(
    r"demande\s+ouverte|sans\s+(?:adversaire|partenaire)|cherche\s+(?:un\s+)?adversaire"
)


def _label_kind(label: str) -> tuple[str | None, bool]:
    """(field, about the partner) for a folded label."""
    partner = False
    m = _PARTNER_SUFFIX.search(label)
    if m:
        partner = True
        label = label[: m.start()].strip()
    label = label.strip(" -*•")
    if label in _PARTNER_LABELS:
        return "partner", True
    if label in _NAME_LABELS:
        return "name", partner
    if label in _YEAR_LABELS or label.startswith("annee"):
        return "year", partner
    if label in _TYPE_LABELS or label.startswith("type"):
        return "types", partner
    return None, partner


@dataclass
class _Fields:
    name: str | None = None
    year_text: str | None = None
    year: str | None = None
    types: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    types_written: bool = False


def _inline_details(value: str, target: _Fields, known: Mapping[str, str]) -> None:
    """Read ``"Cassius Thorne, 7e année, sournoise"`` / ``"X (7e année, magie sournoise)"``."""
    inner = " ".join(re.findall(r"\(([^)]*)\)", value))
    outer = re.sub(r"\([^)]*\)", ",", value)
    for chunk in re.split(r",|;| - |\|", outer + "," + inner):
        chunk = chunk.strip(" .")
        if not chunk:
            continue
        year = parse_year(chunk)
        if year is not None:
            target.year, target.year_text = year, chunk
            continue
        types, unknown = parse_magic_types(chunk, known)
        if types:
            target.types += tuple(t for t in types if t not in target.types)
            target.types_written = True
            continue
        if target.name is None and re.match(r"^" + _NAME + r"$", chunk):
            target.name = chunk
        elif target.name is None:
            m = re.search(_NAME, chunk)
            if m:
                target.name = m.group(1)


def parse_signup(
    post: Post, *, magic_types: Mapping[str, str] = MAGIC_TYPES
) -> Signup | SignupError:
    """Read a sign-up post (its own ``text``, quotes and signature already removed).

    Args:
        post: the post.
        magic_types: type key -> label (the ruleset's ``[magic_types]``; default the seed's five).

    Returns:
        :class:`Signup`, or :class:`SignupError` with a French message when the year or the
        magic types are missing or invalid (the partner's too, when given).
    """
    me, partner = _Fields(), _Fields()
    partner_named = False
    section = me
    for raw in post.text.splitlines():
        line = raw.strip()
        if not line:
            continue
        m = _LABEL.match(line)
        field, about_partner = _label_kind(fold(m.group(1))) if m else (None, False)
        if m and field is not None:
            value = m.group(2).strip()
            if field == "partner":
                partner_named = True
                section = partner
                if value:
                    _inline_details(value, partner, magic_types)
                continue
            target = partner if about_partner else section
            if about_partner:
                partner_named = True
            if field == "name" and value:
                target.name = re.sub(r"\s*\(.*\)\s*$", "", value).strip()
                if "(" in value:
                    _inline_details(value[value.index("(") :], target, magic_types)
            elif field == "year":
                target.year_text = value
                target.year = parse_year(value, labelled=True)
            elif field == "types":
                target.types_written = True
                found, unknown = parse_magic_types(value, magic_types)
                target.types += tuple(t for t in found if t not in target.types)
                target.unknown += unknown
            continue
        _free_line(line, me, partner, magic_types)
        if partner.name is not None:
            partner_named = True
    return _build(post, me, partner if partner_named else None, magic_types)


def _free_line(line: str, me: _Fields, partner: _Fields, known: Mapping[str, str]) -> None:
    m = _FREE_PARTNER.search(line)
    rest = line
    if m and partner.name is None:
        partner.name = m.group(1).strip()
        rest = line[: m.start()]
        after = line[m.end() :]
        _inline_details(after, partner, known)
        partner.name = m.group(1).strip()
    if _OPEN.search(fold(rest)) and not m:
        return
    n = _FREE_NAME.search(rest)
    if n and me.name is None:
        me.name = n.group(1).strip()
    if me.year is None:
        year = parse_year(rest)
        if year is not None:
            me.year, me.year_text = year, rest
    types = _types_in_free_text(rest, known)
    if types and not me.types_written:
        me.types += tuple(t for t in types if t not in me.types)
        me.types_written = True
    if me.name is None and not n:
        # "Aurora Vexley, 5e année, brutale": a name first, then details.
        first = re.split(r",|;| - ", rest)[0].strip()
        if ((year is not None if me.year_text == rest else False) or types) and re.match(
            r"^" + _NAME + r"$", first
        ):
            me.name = first


def _year_error(post: Post, fields: _Fields, prefix: str, who: str) -> SignupError | None:
    if fields.year is None:
        if fields.year_text:
            return SignupError(
                post.post_id,
                f"{prefix}invalid_year",
                f"{who}année d'étude illisible : « {fields.year_text} ». Indique une année de 1 "
                "à 7, ou « adulte ».",
            )
        return None
    if fields.year != "adult" and not 1 <= int(fields.year) <= 7:
        return SignupError(
            post.post_id,
            f"{prefix}invalid_year",
            f"{who}année d'étude invalide : « {fields.year_text or fields.year} ». Les années vont"
            " de la 1re à la 7e, ou « adulte ».",
        )
    return None


def _types_error(
    post: Post, fields: _Fields, prefix: str, who: str, known: Mapping[str, str]
) -> SignupError | None:
    choices = ", ".join(label.lower() for label in known.values())
    if fields.unknown:
        listed = ", ".join(f"« {u} »" for u in fields.unknown)
        return SignupError(
            post.post_id,
            f"{prefix}unknown_magic_type",
            f"{who}type de magie inconnu : {listed}. Types possibles : {choices}.",
        )
    if len(fields.types) > MAX_MAGIC_TYPES:
        listed = ", ".join(known[t].lower() for t in fields.types)
        return SignupError(
            post.post_id,
            f"{prefix}too_many_magic_types",
            f"{who}deux types de magie au maximum : {len(fields.types)} indiqués ({listed}).",
        )
    return None


def _build(
    post: Post, me: _Fields, partner: _Fields | None, known: Mapping[str, str]
) -> Signup | SignupError:
    choices = ", ".join(label.lower() for label in known.values())
    if me.year is None and not me.year_text:
        return SignupError(
            post.post_id,
            "missing_year",
            "Inscription incomplète : il manque ton année d'étude (de la 1re à la 7e année, ou "
            "« adulte »).",
        )
    error = _year_error(post, me, "", "Inscription : ")
    if error is not None:
        return error
    error = _types_error(post, me, "", "Inscription : ", known)
    if error is not None:
        return error
    if not me.types:
        return SignupError(
            post.post_id,
            "missing_magic_type",
            f"Inscription incomplète : indique ton type de magie (un ou deux parmi : {choices}).",
        )
    found_partner: Partner | None = None
    if partner is not None:
        if not partner.name:
            return SignupError(
                post.post_id,
                "partner_missing_name",
                "Inscription : indique le nom de ton partenaire, ou retire la ligne "
                "« Partenaire ».",
            )
        who = f"Partenaire ({partner.name}) : "
        error = _year_error(post, partner, "partner_", who) or _types_error(
            post, partner, "partner_", who, known
        )
        if error is not None:
            return error
        found_partner = Partner(partner.name, partner.year, partner.types)
    assert me.year is not None
    return Signup(
        post_id=post.post_id,
        author=post.author,
        name=me.name or post.author,
        year=me.year,
        magic_types=me.types,
        partner=found_partner,
    )


__all__ = [
    "MAGIC_TYPES",
    "MAX_MAGIC_TYPES",
    "Partner",
    "Signup",
    "SignupError",
    "fold",
    "parse_magic_types",
    "parse_signup",
    "parse_year",
]
