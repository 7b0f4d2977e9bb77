"""Post -> :class:`Action`: the spell (bold, matched to the spellbook), bet, kind, target, move.

Where each part is read (RULES.md, "Post requirements": "the spell in bold at the end; the bet
at the bottom"):

- spell: the LAST bold text of the post's own content that matches the spellbook
  (quotes, code, signature already removed by the page parser). Matching follows RULES.md
  "Spell-name matching: rapidfuzz WRatio on accent-folded, case-folded text, threshold 85",
  with guards against WRatio's partial matching (see :class:`SpellMatcher`).
- bet, kind (``Action :``), target (``Cible :``) and move (``Déplacement :``) are read only from
  the post's footer: its last ``footer_lines`` non-empty lines (default 6), and only where the
  label starts a line (or a segment of a line split by ``|``, ``;``, `` — ``, `` - ``). A
  referee's rules text such as "(ex. Pari : [1,2]) ou par votre action (Action : esquiver…)" in
  the middle of a post is therefore never taken as an action (Forumactif built thread, post 301).
  When several lines say the same thing, the lowest one wins ("the bet at the bottom").

Examples of single lines, as typed (see :func:`parse_bet_line`, :func:`parse_kind`,
:func:`parse_target_line`, :func:`parse_move_line` for more):

    >>> parse_bet_line("Pari : [3,4,5,6]")
    (3, 4, 5, 6)
    >>> parse_kind("esquiver et riposter")
    'dodge_riposte'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from rapidfuzz import fuzz

from parsers.model import Action, ActionKind, Post
from parsers.text import collapse_ws, fold, non_empty_lines, normalize_spaces

__all__ = [
    "DEFAULT_FOOTER_LINES",
    "SpellMatcher",
    "is_label",
    "parse_action",
    "parse_bet_line",
    "parse_kind",
    "contract_kind",
    "parse_move_line",
    "parse_target_line",
    "split_targets",
]

DEFAULT_FOOTER_LINES = 6
_T = TypeVar("_T")

# ---------------------------------------------------------------------------------------------
# Footer lines: segments, labels
# ---------------------------------------------------------------------------------------------

_SEGMENT_SPLIT_RE = re.compile(r"\s*(?:\||;|•|\s[—–-]\s)\s*")
_LEADING_BULLETS_RE = re.compile(r"^[\s\-—–•*>·_~]+")
_TRAILING_PUNCT_RE = re.compile(r"[\s.!…*_~]+$")

_FACES_SEP = r"(?:\s*(?:,|;|-|/|\+|\s|\bet\b|\band\b)\s*)"
_FACES_LIST_RE = re.compile(rf"^[1-6](?:{_FACES_SEP}[1-6])*$")
_FACES_RUN_RE = re.compile(r"^[1-6]{1,6}$")
_BET_LABEL_RE = re.compile(
    r"^(?:mon\s+)?(?:pari|paris|bet|mise|je\s+parie(?:\s+sur)?)\b\s*:?\s*(.+)$", re.IGNORECASE
)
_TRAILING_BRACKET_RE = re.compile(r"\[([^\[\]]+)\]\s*[.!]*$")
_ACTION_LABEL_RE = re.compile(r"^(?:mon\s+)?(?:action|type\s+d'action)\s*:\s*(.+)$", re.IGNORECASE)
_TARGET_LABEL_RE = re.compile(r"^(?:ma\s+)?(?:cible|target)\s*:\s*(.+)$", re.IGNORECASE)
_MOVE_LABEL_RE = re.compile(
    r"^(?:(?:mon\s+)?d[ée]placement\s*:|se\s+d[ée]placer\s+(?:vers|en|dans)\b\s*:?"
    r"|je\s+me\s+d[ée]place\s+(?:vers|en|dans)\b\s*:?|move(?:\s+to)?\s*:)\s*(.+)$",
    re.IGNORECASE,
)
_PLAIN_KIND_RE = re.compile(
    r"^(?:(?:je|j')\s*)?"
    r"(?:esquive[rs]?|riposte[rs]?|lance[rs]?\s+un\s+sort|dodge|cast(?:\s+a\s+spell)?)"
    r"(?:\s*(?:et|and|&|-|\+)?\s*(?:je\s+)?ripost(?:e|er|es)?)?$"
)
#: Longer than any line :data:`_PLAIN_KIND_RE` accepts ("j'esquive et je riposte !").
_PLAIN_KIND_MAX_CHARS = 60
_SPELL_LABEL_RE = re.compile(
    r"^(?:mon\s+)?(?:sort|sortilege|sortilège|spell|incantation)\s*:\s*", re.IGNORECASE
)
_LABEL_ONLY_RE = re.compile(
    r"^(?:mon\s+|ma\s+)?(?:sort|sortilege|spell|action|cible|target|pari|paris|bet|mise"
    r"|deplacement|move|type d'action|des?|dice|effet|effets|resultat)\s*:?$"
)
_LABEL_WITH_VALUE_RE = re.compile(
    r"^(?:mon\s+|ma\s+)?(?:action|cible|target|pari|paris|bet|mise|deplacement|move)\s*:"
)


def _segments(line: str) -> list[str]:
    """Split a footer line into segments, each stripped of leading bullets."""
    out = []
    for part in _SEGMENT_SPLIT_RE.split(normalize_spaces(line)):
        part = _LEADING_BULLETS_RE.sub("", part).strip()
        if part:
            out.append(part)
    return out


def _faces(value: str, *, min_faces: int) -> tuple[int, ...] | None:
    """Faces from ``3,4,5,6`` / ``[3-4-5-6]`` / ``3456``; None when not a clean list of 1..6."""
    v = _TRAILING_PUNCT_RE.sub("", value.strip())
    if v.startswith("[") and v.endswith("]"):
        v = v[1:-1].strip()
    if _FACES_RUN_RE.match(v):
        digits = [int(c) for c in v]
    elif _FACES_LIST_RE.match(v):
        digits = [int(c) for c in re.findall(r"[1-6]", v)]
    else:
        return None
    faces = tuple(sorted(set(digits)))
    return faces if len(faces) >= min_faces else None


def parse_bet_line(line: str) -> tuple[int, ...] | None:
    """The bet typed on one footer line, as a sorted tuple of distinct faces, or None.

    Labelled bets may name one face; unlabelled ones need at least two (a lone ``5`` is not a
    bet). A bet must be the whole segment, or a ``[...]`` closing the line.

    Examples:
        >>> parse_bet_line("[3,4,5,6]")
        (3, 4, 5, 6)
        >>> parse_bet_line("[3-4-5-6]")
        (3, 4, 5, 6)
        >>> parse_bet_line("3456")
        (3, 4, 5, 6)
        >>> parse_bet_line("Pari : 3,4,5,6")
        (3, 4, 5, 6)
        >>> parse_bet_line("Pari: [1, 2, 3]")
        (1, 2, 3)
        >>> parse_bet_line("pari 4-5-6")
        (4, 5, 6)
        >>> parse_bet_line("Bet: 1 2 3 4")
        (1, 2, 3, 4)
        >>> parse_bet_line("Sortilège de Feu [1,2,3,4]")
        (1, 2, 3, 4)
        >>> parse_bet_line("Action : lancer un sort | Pari : [4,5,6]")
        (4, 5, 6)
        >>> parse_bet_line("[3,4,5,7]") is None
        True
        >>> parse_bet_line("Aurora Vexley : 20 PV") is None
        True
        >>> parse_bet_line("— Terminez par votre pari (ex. Pari : [1,2]) ou par…") is None
        True
    """
    return _bet_in(_segments(line))


def _bet_in(segments: Sequence[str]) -> tuple[int, ...] | None:
    found: tuple[int, ...] | None = None
    for seg in segments:
        labelled = _BET_LABEL_RE.match(seg)
        if labelled:
            faces = _faces(labelled.group(1), min_faces=1)
        else:
            faces = _faces(seg, min_faces=2)
            if faces is None:
                bracket = _TRAILING_BRACKET_RE.search(seg)
                if bracket and "(" not in seg[: bracket.start()]:
                    faces = _faces(bracket.group(1), min_faces=2)
        if faces is not None:
            found = faces  # the last segment of the line wins
    return found


def parse_kind(value: str) -> ActionKind | None:
    """Map what follows ``Action :`` to ``cast`` / ``dodge`` / ``dodge_riposte`` (or None).

    Examples:
        >>> parse_kind("lancer un sort")
        'cast'
        >>> parse_kind("esquiver")
        'dodge'
        >>> parse_kind("Esquive")
        'dodge'
        >>> parse_kind("esquiver et riposter")
        'dodge_riposte'
        >>> parse_kind("esquive-riposte")
        'dodge_riposte'
        >>> parse_kind("riposte")
        'dodge_riposte'
        >>> parse_kind("dodge and riposte")
        'dodge_riposte'
        >>> parse_kind("cast")
        'cast'
        >>> parse_kind("dodge")
        'dodge'
        >>> parse_kind("parer") is None
        True
    """
    return _kind_of_folded(fold(value))


_CAST_WORDS_RE = re.compile(
    r"\b(?:lancer?|lances?|sort|sortilege|cast|casting|attaque[rs]?|attack)\b"
)


def _kind_of_folded(v: str) -> ActionKind | None:
    if "ripost" in v:
        return "dodge_riposte"
    if _DODGE_RE.search(v):
        return "dodge"
    if _CAST_WORDS_RE.search(v):
        return "cast"
    return None


_DODGE_RE = re.compile(r"esquiv|dodge|\bevit")
_DODGE_WORDS_RE = re.compile(r"ripost|esquiv|dodge|\bevit")


def _plain_kind(segment: str) -> ActionKind | None:
    """A footer line that is only an action word ("J'esquive !", "Esquive et riposte")."""
    if len(segment) > _PLAIN_KIND_MAX_CHARS:
        return None  # narrative, not a bare action word: skip the folding
    v = fold(segment)
    v = re.sub(r"[^\w' &+-]+", " ", v)
    v = collapse_ws(v.replace("-", " - ")).replace(" - ", " ")
    return _kind_of_folded(v) if _PLAIN_KIND_RE.match(v) else None


def _clean_value(value: str) -> str | None:
    v = collapse_ws(_TRAILING_PUNCT_RE.sub("", value))
    return v or None


def parse_target_line(line: str) -> str | None:
    """The target of a ``Cible :`` line, as typed, or None.

    Examples:
        >>> parse_target_line("Cible : Cassius Thorne")
        'Cassius Thorne'
        >>> parse_target_line("cible: moi-même.")
        'moi-même'
        >>> parse_target_line("Je vise la cible") is None
        True
    """
    return _target_in(_segments(line))


def _target_in(segments: Sequence[str]) -> str | None:
    found = None
    for seg in segments:
        m = _TARGET_LABEL_RE.match(seg)
        if m:
            found = _clean_value(m.group(1))
    return found


_TARGET_SEPARATORS_RE = re.compile(r"\s*(?:,|;|/|&|\+|\bet\b|\band\b)\s*", re.IGNORECASE)


def split_targets(target: str | None) -> tuple[str, ...]:
    """The names a ``Cible :`` value lists when it lists two or more, in the order written;
    ``()`` for one name or none (a spell has one target: the caller reports them all).

    Examples:
        >>> split_targets("Jules Meyer et Irène Vasseur")
        ('Jules Meyer', 'Irène Vasseur')
        >>> split_targets("Cassius, Dorian & moi")
        ('Cassius', 'Dorian', 'moi')
        >>> split_targets("Cassius Thorne")
        ()
    """
    if not target:
        return ()
    names = tuple(p for p in (s.strip() for s in _TARGET_SEPARATORS_RE.split(target)) if p)
    return names if len(names) > 1 else ()


def parse_move_line(line: str) -> str | None:
    """Where a ``Déplacement :`` / ``Se déplacer vers`` line moves to, as typed, or None.

    Examples:
        >>> parse_move_line("Déplacement : zone 2")
        'zone 2'
        >>> parse_move_line("Deplacement: zone 3")
        'zone 3'
        >>> parse_move_line("Se déplacer vers la zone 1")
        'la zone 1'
        >>> parse_move_line("Move to: zone 4")
        'zone 4'
    """
    return _move_in(_segments(line))


def _move_in(segments: Sequence[str]) -> str | None:
    found = None
    for seg in segments:
        m = _MOVE_LABEL_RE.match(seg)
        if m:
            found = _clean_value(m.group(1))
    return found


def _kind_of_line(line: str) -> ActionKind | None:
    return _kind_in(_segments(line))


def _kind_in(segments: Sequence[str]) -> ActionKind | None:
    found: ActionKind | None = None
    for seg in segments:
        m = _ACTION_LABEL_RE.match(seg)
        kind = parse_kind(m.group(1)) if m else _plain_kind(seg)
        if kind is not None:
            found = kind
    return found


# ---------------------------------------------------------------------------------------------
# Spell matching
# ---------------------------------------------------------------------------------------------

_STOP_WORDS = frozenset({"de", "du", "des", "d", "la", "le", "les", "l", "of", "the", "a", "un"})
# Words that name the kind of spell rather than the spell ("Sortilège de Feu" vs "… de Foudre").
_GENERIC_WORDS = frozenset(
    {
        "sort",
        "sorts",
        "sortilege",
        "sortileges",
        "charme",
        "malefice",
        "enchantement",
        "spell",
        "charm",
        "hex",
        "jinx",
        "curse",
    }
)


def _key(text: str) -> str:
    """Folded text with punctuation turned into spaces (``d'insectes`` -> ``d insectes``)."""
    return collapse_ws(re.sub(r"[^\w]+", " ", fold(text)))


def is_label(bold: str) -> bool:
    """True for a bold text that is a form label, not a spell ("Sort :", "Cible : X", "[1,2]").

    Examples:
        >>> [is_label(b) for b in ["Sort :", "Action :", "Cible : Cassius", "Pari :", "[3,4]"]]
        [True, True, True, True, True]
        >>> is_label("Sortilège de Feu")
        False
    """
    f = fold(bold)
    if _LABEL_ONLY_RE.match(f) or _LABEL_WITH_VALUE_RE.match(f):
        return True
    return parse_bet_line(bold) is not None


@dataclass(frozen=True)
class _Entry:
    canonical: str
    key: str
    distinct: str


MAX_SPELL_CHARS = 200
"""Bold texts longer than this are never matched to a spell (they stay unknown bold)."""


class SpellMatcher:
    """Fuzzy spell-name matcher over one spellbook (canonical name -> aliases).

    A bold text ``q`` matches entry ``c`` (a canonical name or alias, both accent- and
    case-folded, punctuation as spaces) when all hold:

    1. ``fuzz.WRatio(q, c) >= threshold`` (RULES.md: 85);
    2. ``max(fuzz.ratio, fuzz.token_sort_ratio)(q, c) >= ratio_floor`` (default 70): blocks
       WRatio's partial matching of a fragment ("Feu" vs "Sortilège de Feu" scores 90);
    3. the distinctive words agree: ``fuzz.ratio >= distinct_floor`` (default 70) on the words
       left once stop words, generic words ("sortilège", "charme", "maléfice"…) and words
       shared by several spells of the book are removed. "Sortilège de Foudre" vs
       "Sortilège de Feu" (WRatio 86) compares "foudre" with "feu" (44) and is rejected.

    Exact (folded) names and aliases always match. When the two best spells are within
    ``margin`` points of each other the text is ambiguous and matches nothing.
    """

    def __init__(
        self,
        spellbook: Mapping[str, Sequence[str]],
        *,
        threshold: float = 85.0,
        ratio_floor: float = 70.0,
        distinct_floor: float = 70.0,
        margin: float = 3.0,
    ) -> None:
        self.threshold = threshold
        self.ratio_floor = ratio_floor
        self.distinct_floor = distinct_floor
        self.margin = margin
        groups: dict[str, set[str]] = {}
        for canonical, aliases in spellbook.items():
            keys = {_key(canonical), *(_key(a) for a in aliases)}
            groups[canonical] = {k for k in keys if k}
        token_groups: dict[str, int] = {}
        for keys in groups.values():
            for token in {t for k in keys for t in k.split()}:
                token_groups[token] = token_groups.get(token, 0) + 1
        self._common = (
            frozenset(
                t
                for t, n in token_groups.items()
                if n >= 2 or t in _GENERIC_WORDS or t in _STOP_WORDS
            )
            | _GENERIC_WORDS
            | _STOP_WORDS
        )
        self._exact: dict[str, str] = {}
        self._entries: list[_Entry] = []
        for canonical, keys in groups.items():
            for k in sorted(keys):
                self._exact.setdefault(k, canonical)
                self._entries.append(_Entry(canonical, k, self._distinct(k, fuzzy=False)))

    def _distinct(self, key: str, *, fuzzy: bool) -> str:
        words = []
        for token in key.split():
            if len(token) <= 2 or token in self._common:
                continue
            if fuzzy and any(len(c) > 3 and fuzz.ratio(token, c) >= 80 for c in self._common):
                continue
            words.append(token)
        return " ".join(words)

    def scores(self, text: str) -> list[tuple[float, str]]:
        """Accepted (score, canonical) pairs for ``text``, best first, one per canonical."""
        if len(text) > MAX_SPELL_CHARS:
            return []  # no spell name is that long; fuzzy matching it would take seconds
        q = _key(_SPELL_LABEL_RE.sub("", normalize_spaces(text).strip()))
        if not q:
            return []
        if q in self._exact:
            return [(100.0, self._exact[q])]
        q_distinct = self._distinct(q, fuzzy=True)
        best: dict[str, float] = {}
        for entry in self._entries:
            w = fuzz.WRatio(q, entry.key)
            if w < self.threshold:
                continue
            plain = max(fuzz.ratio(q, entry.key), fuzz.token_sort_ratio(q, entry.key))
            if plain < self.ratio_floor:
                continue
            if entry.distinct or q_distinct:
                d = fuzz.ratio(q_distinct, entry.distinct) if q_distinct else 0.0
                if d < self.distinct_floor:
                    continue
            score = float(w)
            if score > best.get(entry.canonical, -1.0):
                best[entry.canonical] = score
        return sorted(((s, c) for c, s in best.items()), key=lambda sc: (-sc[0], sc[1]))

    def match(self, text: str) -> str | None:
        """Canonical spell name for a bold text, or None (no match, or ambiguous).

        Examples:
            >>> m = SpellMatcher({"Sortilège de Feu": [], "Sortilège de Glace": ["Glaciatus"]})
            >>> m.match("sortilege de feu"), m.match("Sortilège de Feux"), m.match("GLACIATUS")
            ('Sortilège de Feu', 'Sortilège de Feu', 'Sortilège de Glace')
            >>> m.match("Feu") is None, m.match("Sortilège de Foudre") is None
            (True, True)
        """
        ranked = self.scores(text)
        if not ranked:
            return None
        if len(ranked) > 1 and ranked[0][0] - ranked[1][0] < self.margin:
            return None
        return ranked[0][1]


# ---------------------------------------------------------------------------------------------
# The action
# ---------------------------------------------------------------------------------------------


def _footer(text: str, footer_lines: int) -> list[str]:
    lines = non_empty_lines(text)
    return lines[-footer_lines:] if footer_lines > 0 else []


def _last(values: Iterable[_T | None]) -> _T | None:
    found: _T | None = None
    for v in values:
        if v is not None:
            found = v
    return found


def contract_kind(post: Post, action: Action) -> ActionKind | None:
    """The ``kind`` of the JSON contract: ``action.kind`` when the post says it, else
    ``"cast"`` for a post that names a spell and has no dodge words anywhere in its own text
    (esquive, riposte, évite, dodge), else None (the consumer must look).

    Examples:
        >>> from parsers.model import Post
        >>> post = Post(1, "A", None, None, None, "Je lance mon sort", ("Expelliarmus",), (), 1)
        >>> contract_kind(post, Action(spell="Expelliarmus"))
        'cast'
        >>> contract_kind(post, Action(spell=None)) is None
        True
    """
    if action.kind is not None:
        return action.kind
    if action.spell is None or _DODGE_WORDS_RE.search(fold(post.text)):  # folded text
        return None
    return "cast"


_MATCHERS: dict[tuple[float, tuple[tuple[str, tuple[str, ...]], ...]], SpellMatcher] = {}


def shared_matcher(spellbook: Mapping[str, Sequence[str]], threshold: float = 85.0) -> SpellMatcher:
    """One :class:`SpellMatcher` per distinct spellbook content and threshold, kept for the
    process (building one indexes every spell and costs more than matching a page's bolds:
    about 2 ms for the classic book, once per duel and poll before issue 27). A matcher is
    never changed once built, so one may serve several threads. At most 16 are kept (the
    17th empties the store)."""
    key = (threshold, tuple((name, tuple(aliases)) for name, aliases in spellbook.items()))
    matcher = _MATCHERS.get(key)
    if matcher is None:
        if len(_MATCHERS) >= 16:
            _MATCHERS.clear()
        matcher = _MATCHERS[key] = SpellMatcher(spellbook, threshold=threshold)
    return matcher


def parse_action(
    post: Post,
    spellbook: Mapping[str, Sequence[str]] | SpellMatcher,
    *,
    threshold: float = 85.0,
    footer_lines: int = DEFAULT_FOOTER_LINES,
) -> Action:
    """Read what a duel post asks for.

    Args:
        post: a parsed post (its ``bold`` and ``text`` are the own content only).
        spellbook: canonical spell name -> aliases, or a prebuilt :class:`SpellMatcher`
            (then ``threshold`` is the matcher's own).
        threshold: WRatio threshold (RULES.md: 85).
        footer_lines: how many last non-empty lines may carry the bet, ``Action :``,
            ``Cible :`` and ``Déplacement :`` lines.

    Returns:
        :class:`Action` with ``spell`` = canonical name of the last bold matching the spellbook,
        ``spell_text`` = that bold (or the last non-label bold when none matched),
        ``unknown_bold`` = non-label bolds that matched no spell, in order, ``bet`` = sorted
        distinct faces 1..6 of the lowest bet line, ``kind`` / ``target`` / ``move_to`` from the
        lowest footer line that says so, else None.
    """
    matcher = (
        spellbook
        if isinstance(spellbook, SpellMatcher)
        else SpellMatcher(spellbook, threshold=threshold)
    )
    spell: str | None = None
    spell_text: str | None = None
    unknown: list[str] = []
    last_plain: str | None = None
    for bold in post.bold:
        if is_label(bold):
            continue
        last_plain = bold
        canonical = matcher.match(bold)
        if canonical is None:
            unknown.append(bold)
        else:
            spell, spell_text = canonical, bold
    if spell_text is None:
        spell_text = last_plain

    segments = [_segments(line) for line in _footer(post.text, footer_lines)]  # split once
    bet = _last(_bet_in(segs) for segs in segments)
    kind: ActionKind | None = _last(_kind_in(segs) for segs in segments)
    target = _last(_target_in(segs) for segs in segments)
    move_to = _last(_move_in(segs) for segs in segments)
    return Action(
        spell=spell,
        spell_text=spell_text,
        unknown_bold=tuple(unknown),
        bet=bet,
        kind=kind,
        target=target,
        move_to=move_to,
        targets=split_targets(target),
    )
