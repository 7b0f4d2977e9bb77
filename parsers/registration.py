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

Issue 15: labelled lines always win over free text; a free-text partner (« je défie X ») is
a capitalised name, never a duel format or « un », « personne »... (:mod:`parsers.signup_words`),
marked ``source = "free"`` for the desk to check X is a member; « Partenaire : aucun » is an open
request; :attr:`Signup.doubts` lists what the parser is not sure about; stakes are read anywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from parsers.magic_types import MAGIC_TYPES, parse_magic_types, types_in_free_text
from parsers.model import Post
from parsers.signup_members import member_line
from parsers.signup_words import (
    KIND_RAW,
    STAKES,
    clean_name,
    clean_text,
    find_signup_stakes,
    fold,
    is_name,
    is_nobody,
    label_kind,
    signup_kind,
)

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
    #: ``"label"`` (a ``Partenaire :`` line or block) or ``"free"`` (a free-text phrase such as
    #: « je défie X »: the desk checks that X is a member of the board). Not compared.
    source: str = field(default="label", compare=False)


@dataclass(frozen=True)
class Signup:
    """A valid sign-up.

    Attributes:
        post_id, author: the sign-up post and its author.
        name: the character's name (the author when the post does not say).
        year: ``"1"``..``"7"`` or ``"adult"``.
        magic_types: one or two type keys, in the order written.
        partner: the chosen partner, or None (an open request).
        stakes: the ``Enjeux :`` written in the post (anywhere in a line), or None.
        kind: the duel format the post names (``"1v1"`` for « un contre un », « 1v1 »...,
            ``"2v2"`` for « deux contre deux »...), or None.
        doubts: codes of what the parser is not sure about (``several_partners``,
            ``several_years``, ``open_and_partner``, ``several_kinds``, ``whose_details``:
            « je défie X, 5e année, brutale » without the poster's own details); not empty means a
            referee should read the post before anything is done with it.
    """

    post_id: int
    author: str
    name: str
    year: str
    magic_types: tuple[str, ...]
    partner: Partner | None = None
    stakes: str | None = None
    kind: str | None = None
    doubts: tuple[str, ...] = ()

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


# --- Labels and free text ---------------------------------------------------------------------

_LABEL = re.compile(r"^\s*[-*•>]?\s*([^:]{1,60}?)\s*:\s*(.*)$")
_CAP = r"[A-ZÀ-ÖØ-Þ][\w'’\-]*"
_NAME = rf"({_CAP}(?:\s+(?:(?:de|du|des|van|von|le|la|d'|di|del)\s+)?{_CAP})*)"
# The phrase is matched without regard to case; the name after it must be capitalised (a
# lower-case word is no name: « contre un », « avec plaisir »).
_FREE_PARTNER = re.compile(
    r"(?i:je\s+m'?\s*inscri[st]\s+(?:avec|contre|face\s+[àa])|en\s+(?:duo|binôme|binome|équipe|"
    r"equipe)\s+avec|mon\s+(?:adversaire|partenaire|coéquipier|coequipier)\s+(?:sera|est)|"
    r"ma\s+(?:partenaire|coéquipière|coequipiere)\s+(?:sera|est)|je\s+(?:défie|defie|provoque)|"
    r"j'affronte|face\s+à|contre|avec)\s+" + _NAME
)
_FREE_NAME = re.compile(r"(?i:je\s+m'appelle|je\s+suis|moi\s*,?\s*c'est|moi,?|c'est)\s+" + _NAME)
#: Where a free-text partner's details stop and the poster speaks of themself again.
_BACK_TO_ME = re.compile(r"(?i)\b(?:je\s+suis|moi|j'ai|ma\s+magie|mon\s+type|je\s+m'appelle)\b")
_OPEN = re.compile(
    r"demande\s+ouverte|sans\s+(?:adversaire|partenaire|coequipier)|cherche\s+(?:un\s+|une\s+)?"
    r"(?:adversaire|partenaire|coequipiere?)|n'importe\s+qui|le\s+premier\s+venu|"
    r"la\s+premiere\s+venue|pas\s+(?:encore\s+)?d'(?:adversaire|partenaire|coequipier)"
)


_BARE_YEAR = re.compile(
    r"^(?:(\d{1,2})\s*(?:e|eme|em|er|ere|re|°|ieme)|(premiere|deuxieme|troisieme|quatrieme"
    r"|cinquieme|sixieme|septieme|huitieme|neuvieme))$"
)


@dataclass
class _Fields:
    name: str | None = None
    year_text: str | None = None
    year: str | None = None
    types: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    types_written: bool = False
    doubts: list[str] = field(default_factory=list)
    tail: bool = False  # a free partner's details read after a comma, not in brackets


def _bare_year(chunk: str) -> str | None:
    m = _BARE_YEAR.match(fold(chunk).strip(" ."))
    return _year_from(m.groups()) if m else None


def _inline_details(value: str, target: _Fields, known: Mapping[str, str]) -> None:
    """Read ``"Cassius Thorne, 7e année, sournoise"`` / ``"X (7e année, magie sournoise)"``."""
    inner = " ".join(re.findall(r"\(([^)]*)\)", value))
    outer = re.sub(r"\([^)]*\)", ",", value)
    for chunk in re.split(r",|;| - |\|", outer + "," + inner):
        chunk = chunk.strip(" .")
        if not chunk:
            continue
        year = parse_year(chunk) or _bare_year(chunk)
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

    Labelled lines win over free text: the name, year and types of labelled lines are kept
    whatever free text says, and a ``Partenaire`` line (or block) wins over any free-text
    partner. « Partenaire : aucun / personne / pas encore » is an open request.

    Args:
        post: the post.
        magic_types: type key -> label (the ruleset's ``[magic_types]``; default the seed's five).

    Returns:
        :class:`Signup` (with its ``stakes``, ``kind`` and ``doubts``), or :class:`SignupError`
        with a French message when the year or the magic types are missing or invalid (the
        partner's too, when given).
    """
    text = clean_text(post.text)
    stakes = find_signup_stakes(text)
    kinds = signup_kind(text)
    me, partner, free = _Fields(), _Fields(), _Fields()
    free_partners: list[_Fields] = []
    partner_labelled = partner_open = False
    section = me
    lines = (
        sentence
        for raw in text.splitlines()
        for sentence in re.split(r"(?<=[.!?])\s+(?=\S[^:]{0,40}:)", STAKES.sub("", raw))
    )  # a label after a sentence on the same line (« Un contre un ! Nom : Maelis »)
    members: list[tuple[int | None, _Fields, str]] = []  # one line per duellist (issue 23)
    for line in lines:
        line = line.strip()
        if not line:
            continue
        shaped = member_line(line)
        if shaped is not None:
            member = _Fields()
            _inline_details(shaped[2], member, magic_types)
            if member.year_text is not None or member.types_written:
                member.name = clean_name(shaped[1])
                members.append((shaped[0], member, line))
                continue
        own_seen = me.year_text or free.year_text or any(
            fold(f.name or "") == fold(post.author) for _, f, _ in members)  # fmt: skip
        bare = partner.year_text is None and not partner.types_written and not _LABEL.match(line)
        if section is partner and partner.name and bare and own_seen and not _BACK_TO_ME.search(
                line):  # « Partenaire : Ysolde Marr » then her details alone on the next line
            _inline_details(line, partner, magic_types)
            if partner.year_text is not None or partner.types_written:
                continue
        m = _LABEL.match(line)
        field_, about_partner = label_kind(fold(m.group(1))) if m else (None, False)
        if m and field_ is not None:
            value = m.group(2).strip()
            if field_ == "partner":
                partner_labelled = True
                if value and (is_nobody(value) or not is_name(re.split(r"[,;(]", value)[0])):
                    partner_open, section = True, me
                    continue
                section = partner
                if value:
                    _inline_details(value, partner, magic_types)
                continue
            target = partner if about_partner else section
            if about_partner:
                partner_labelled = True
            if field_ == "name" and value:
                if target is partner and is_nobody(value):
                    partner_open = True
                    continue
                target.name = clean_name(re.sub(r"\s*\(.*\)\s*$", "", value))
                if "(" in value:
                    _inline_details(value[value.index("(") :], target, magic_types)
            elif field_ == "year":
                target.year_text = value
                target.year = parse_year(value, labelled=True)
            elif field_ == "types":
                target.types_written = True
                found, unknown = parse_magic_types(value, magic_types)
                target.types += tuple(t for t in found if t not in target.types)
                target.unknown += unknown
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            _free_line(sentence, free, free_partners, magic_types)
    if members:
        partner_labelled |= _place_members(
            members, post, me, partner, partner_labelled, free, free_partners, magic_types
        )
    doubts = list(free.doubts)
    if len(kinds) > 1:
        doubts.append("several_kinds")
    free_name = free.name
    if free_name and fold(post.author).startswith(fold(free_name) + " "):
        free_name = post.author  # « moi c'est Maelis » from the account Maelis Dunbar
    own = _Fields(
        name=me.name or free_name,
        year_text=me.year_text if me.year_text is not None else free.year_text,
        year=me.year if me.year_text is not None else free.year,
        types=me.types if me.types_written else free.types,
        unknown=me.unknown if me.types_written else free.unknown,
        types_written=me.types_written or free.types_written,
    )
    if me.year_text is not None or me.types_written:
        doubts = [d for d in doubts if d != "several_years" or me.year_text is None]
    chosen: _Fields | None = None
    source = "label"
    if partner_labelled:
        has_details = partner.name or partner.year_text or partner.types_written
        if not partner_open or has_details:
            chosen = partner
    elif free_partners:
        first = free_partners[0]
        if own.year_text is None and not own.types_written and first.tail:
            # « je défie X, 5e année, brutale »: whose year? read as the poster's, and asked
            own.year, own.year_text, own.types, own.types_written = (
                first.year, first.year_text, first.types, first.types_written)  # fmt: skip
            first.year = first.year_text = None
            first.types, first.types_written = (), False
            doubts.append("whose_details")
        names = {fold(f.name or "") for f in free_partners}
        if len(names) > 1:
            doubts.append("several_partners")
        if _OPEN.search(fold(STAKES.sub("", text))):
            doubts.append("open_and_partner")
        chosen, source = free_partners[0], "free"
    result = _build(post, own, chosen, magic_types, source)
    if isinstance(result, SignupError):
        return result
    kind = kinds[0] if len(kinds) == 1 else None
    return replace(result, stakes=stakes, kind=kind, doubts=tuple(dict.fromkeys(doubts)))


def _merge(target: _Fields, found: _Fields) -> None:
    """``found``'s details where ``target`` has none (labelled lines win)."""
    target.name = target.name or found.name
    if target.year_text is None:
        target.year, target.year_text = found.year, found.year_text
    if not target.types_written:
        target.types, target.types_written, target.unknown = (
            found.types, found.types_written, found.unknown)  # fmt: skip


def _place_members(
    members: list[tuple[int | None, _Fields, str]], post: Post, me: _Fields, partner: _Fields,
    partner_labelled: bool, free: _Fields, free_partners: list[_Fields], known: Mapping[str, str],
) -> bool:  # fmt: skip
    """Give each member line (:func:`parsers.signup_members.member_line`) to its duellist: the
    poster's (their account's or ``Nom``'s name), the named partner's (labelled or free text),
    else a numbered line (or any line of a list holding the poster's) names the partner; an
    unnumbered line nobody is named by is read as free text, as before. Ambiguity is a doubt:
    no line is the poster's (``whose_details``), or one names yet another partner
    (``several_partners``). Returns True when a member line gave the partner."""
    mine = {fold(post.author)} | ({fold(me.name)} if me.name else set())
    poster_listed = any(fold(f.name or "") in mine for _, f, _ in members)
    others: list[_Fields] = []
    for number, found, line in members:
        key = fold(found.name or "")
        named = next((f for f in free_partners if fold(f.name or "") == key), None)
        if key in mine:
            _merge(me, found)
        elif partner.name and fold(partner.name) == key:
            _merge(partner, found)
        elif named is not None:
            _merge(named, found)
            named.tail = False
        elif number is not None or poster_listed:  # a list of the duellists, the poster's in it
            others.append(found)
        else:
            for sentence in re.split(r"(?<=[.!?])\s+", line):
                _free_line(sentence, free, free_partners, known)
    if not others:
        return False
    if me.year_text is None and not me.types_written and len(others) == 2:
        _merge(me, others.pop(0))  # « Joueur 1 » is the poster's, most likely: asked
        free.doubts.append("whose_details")
    if partner.name or free_partners or len(others) > 1:
        free.doubts.append("several_partners")
        return False
    _merge(partner, others[0])
    return True


def _free_partner(line: str) -> re.Match[str] | None:
    """The first free-text partner phrase of ``line`` whose name is a name."""
    for m in _FREE_PARTNER.finditer(line):
        if is_name(m.group(1)):
            return m
    return None


def _free_line(
    line: str, me: _Fields, partners: list[_Fields], known: Mapping[str, str]
) -> None:
    scan = KIND_RAW.sub(" ", line)
    m = _free_partner(scan)
    rest = scan
    if m:
        name = clean_name(m.group(1))
        found = _Fields()
        after = scan[m.end() :]
        back = _BACK_TO_ME.search(after)
        details = after[: back.start()] if back else after
        _inline_details(details, found, known)
        found.name = name
        found.tail = bool(re.sub(r"\([^)]*\)", "", details).strip(" .!,;:"))
        partners.append(found)
        rest = scan[: m.start()] + (", " + after[back.start() :] if back else "")
        again = _free_partner(after)  # a second phrase (« avec X ... contre Y »)
        if again is not None:
            partners.append(_Fields(name=clean_name(again.group(1))))
    if _OPEN.search(fold(rest)) and not m and not parse_year(rest):
        return
    n = _FREE_NAME.search(rest)
    if n and me.name is None and is_name(n.group(1)):
        me.name = clean_name(n.group(1))
    year = parse_year(rest)
    if year is None:
        year = next(
            (y for y in (_bare_year(c) for c in re.split(r",|;| - ", rest)) if y is not None),
            None,
        )
    if year is not None:
        if me.year is None:
            me.year, me.year_text = year, rest
        elif me.year != year:
            me.doubts.append("several_years")
    types = types_in_free_text(rest, known)
    if types and not me.types_written:
        me.types += tuple(t for t in types if t not in me.types)
        me.types_written = True
    if me.name is None and not n:
        # "Aurora Vexley, 5e année, brutale": a name first, then details.
        first = re.split(r",|;| - ", rest)[0].strip()
        if (year is not None or types) and re.match(r"^" + _NAME + r"$", first):
            if is_name(first) and fold(first) not in MAGIC_TYPES:
                me.name = clean_name(first)


def _year_error(post: Post, fields: _Fields, prefix: str, who: str) -> SignupError | None:
    year = f"L'année d'études de ton partenaire ({who})" if who else "Ton année d'études"
    if fields.year is None:
        if fields.year_text:
            return SignupError(
                post.post_id,
                f"{prefix}invalid_year",
                f"{year} est illisible (« {fields.year_text} »). Indique une année de 1 à 7, ou "
                "« adulte ».",
            )
        return None
    if fields.year != "adult" and not 1 <= int(fields.year) <= 7:
        return SignupError(
            post.post_id,
            f"{prefix}invalid_year",
            f"{year} est invalide (« {fields.year_text or fields.year} »). Les "
            "années vont de la 1re à la 7e, ou « adulte ».",
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
            f"{f'Le type de magie de ton partenaire ({who})' if who else 'Ton type de magie'} est "
            f"inconnu ({listed}). Types possibles : {choices}.",
        )
    if len(fields.types) > MAX_MAGIC_TYPES:
        listed = ", ".join(known[t].lower() for t in fields.types)
        return SignupError(
            post.post_id,
            f"{prefix}too_many_magic_types",
            "Un duelliste a deux types de magie au maximum, or "
            f"{f'ton partenaire ({who}) en a' if who else 'tu en indiques'} {len(fields.types)} "
            f"({listed}).",
        )
    return None


def _build(
    post: Post,
    me: _Fields,
    partner: _Fields | None,
    known: Mapping[str, str],
    source: str = "label",
) -> Signup | SignupError:
    choices = ", ".join(label.lower() for label in known.values())
    if me.year is None and not me.year_text:
        return SignupError(
            post.post_id,
            "missing_year",
            "Inscription incomplète : il manque ton année d'études (de la 1re à la 7e année, ou "
            "« adulte »).",
        )
    error = _year_error(post, me, "", "") or _types_error(post, me, "", "", known)
    if error is not None:
        return error
    if not me.types:
        return SignupError(
            post.post_id,
            "missing_magic_type",
            f"Inscription incomplète : indique ton type de magie, un ou deux parmi {choices}.",
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
        who = partner.name
        error = _year_error(post, partner, "partner_", who)
        error = error or _types_error(post, partner, "partner_", who, known)
        if error is not None:
            return error
        found_partner = Partner(partner.name, partner.year, partner.types, source)
    assert me.year is not None
    name = me.name or post.author
    if fold(name) == fold(post.author):
        name = post.author  # the account's own spelling (« AURORA VEXLEY », « aurora vexley »)
    return Signup(
        post_id=post.post_id,
        author=post.author,
        name=name,
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
    "find_signup_stakes",
    "fold",
    "parse_magic_types",
    "parse_signup",
    "parse_year",
    "signup_kind",
]
