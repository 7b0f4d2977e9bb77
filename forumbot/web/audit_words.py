"""The review page's audit table and rule-trail sources in French (issue 25: the table showed
raw keys and JSON, « topic_id », « status : draft → published », « duellists : [[…]] »; the
trail's source column quoted RULES.md in English and showed code names).

- :func:`changes_fr`: the ``(field, before, after)`` lines of one audit entry, each field by
  its French name and each value as words (a status by its French name, duellists as
  « Aurora Vexley (5e année, brutale) et Cassius Thorne (7e année) », a duel's duos as
  « A et B contre C et D »); a value that did not exist before has no « avant » (empty).
- :func:`text_changes`: a hand-edited text (« texte modifié ») by the lines that changed,
  each line's before and after cut around its first difference (newcomer5 C2: the row showed
  the same first 120 characters twice).
- :func:`source_fr`: a trail source as a referee reads it: the seed's own French sentence
  (« Règlement du club : « … » »), the club's spellbook line in French, or, for a precision
  RULES.md makes in English, the rule's French name; no code name (``attack_modifier``,
  ``tie_rule``) is left. The stored English stays in the cell's title for staff.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

from forumbot.publish.labels import RULE_NAMES, year_label
from forumbot.web.views import DRAFT_STATUS_FR, DUEL_STATUS_FR, VIOLATION_STATUS_FR

FIELDS_FR: dict[str, str] = {
    "topic_id": "sujet", "status": "état", "duellists": "duellistes", "ruleset": "règles",
    "duos": "duos", "kind": "type de duel", "environment": "décor", "placement": "placement",
    "text": "texte", "overrides": "nombres modifiés", "waived": "infractions levées",
    "role": "rôle", "points": "points", "conceded_by": "abandon de", "reason": "motif",
    "note": "note", "winner": "vainqueur", "winners": "vainqueurs", "turn": "tour",
    "post_id": "message", "published_post_id": "message publié", "by": "par",
    "until": "jusqu'au", "title": "titre", "forum_id": "forum", "year": "année",
    "magic_types": "types de magie", "character": "personnage", "player": "compte",
    "stakes": "enjeux", "referee": "arbitre", "decision": "décision", "penalty": "pénalité",
    "values": "valeurs", "rule": "règle", "duellist": "duelliste",
    "computed": "texte calculé", "differences": "différences",
}  # fmt: skip
# The statuses' French names are the review page's own (forumbot.web.views), plus the
# notices' and tasks' statuses that only the audit table shows.
STATUS_FR: dict[str, str] = {
    **DRAFT_STATUS_FR, **VIOLATION_STATUS_FR, **DUEL_STATUS_FR,
    "pending": "en attente", "done": "faite", "failed": "échec", "sent": "envoyé",
}  # fmt: skip
RULESETS_FR = {"classic": "classique", "fatigue": "fatigue", "duo": "deux contre deux"}
KINDS_FR = {"1v1": "un contre un", "2v2": "deux contre deux"}
ROLES_FR = {"admin": "administrateur", "referee": "arbitre"}


def _names(items: list[str]) -> str:
    if not items:
        return ""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " et " + items[-1]


def _duellist(item: Any) -> str:
    """``["Aurora Vexley", "5", ["brutale"]]`` -> ``Aurora Vexley (5e année, brutale)``."""
    if not isinstance(item, list | tuple) or not item:
        return str(item)
    name, rest = str(item[0]), list(item[1:])
    parts = []
    if rest and rest[0] not in (None, ""):
        parts.append(year_label(str(rest[0])))
    if len(rest) > 1 and rest[1]:
        types = rest[1] if isinstance(rest[1], list) else [rest[1]]
        parts.append(" et ".join(str(t) for t in types))
    return f"{name} ({', '.join(parts)})" if parts else name


def _difference(text: str) -> str:
    """A difference of a text kept against its draft
    (:meth:`forumbot.duels.text_figures.Difference.describe`, stored in English) in French
    through the catalogue (:func:`forumbot.i18n.translate_detail`), or as stored."""
    from forumbot.i18n import translate_detail

    return translate_detail("fr", text) or text


def value_words(field: str, value: Any) -> str:
    """One audit value as words (``""`` for a value that was not there)."""
    if value is None or value == "" or value == [] or value == {}:
        return ""
    if isinstance(value, bool):
        return "oui" if value else "non"
    if field in ("status", "") and isinstance(value, str):  # a bare value: a status change
        return STATUS_FR.get(value, value)
    if field == "rule" and isinstance(value, str):
        return RULE_NAMES.get(value.rsplit(".", 1)[-1], (value,))[0]
    if field == "ruleset" and isinstance(value, str):
        return RULESETS_FR.get(value, value)
    if field == "kind" and isinstance(value, str):
        return KINDS_FR.get(value, value)
    if field == "role" and isinstance(value, str):
        return ROLES_FR.get(value, value)
    if field == "topic_id":
        return f"n° {value}"
    if field == "differences" and isinstance(value, list):  # a text kept with --force
        return " ; ".join(_difference(str(v)) for v in value)
    if field == "duellists" and isinstance(value, list):
        return _names([_duellist(v) for v in value])
    if field == "duos" and isinstance(value, list):
        return " contre ".join(_names([str(n) for n in d]) for d in value if isinstance(d, list))
    if field == "placement" and isinstance(value, list):
        spots = [f"{p[0]} en zone {p[1]}" for p in value if isinstance(p, list) and len(p) > 1]
        return _names(spots) if spots else ""
    if isinstance(value, dict):
        return " ; ".join(f"{k} = {value_words(str(k), v)}" for k, v in value.items())
    if isinstance(value, list):
        return _names([value_words(field, v) for v in value]) if value else ""
    return str(value)


def _environment(key: Any) -> Any:
    """The 2v2 environment ``key`` (its zones' and its own players' names), or None."""
    if not isinstance(key, str) or not key:
        return None
    from forumbot.duels.duo_board import load_env

    try:
        return load_env(key)
    except Exception:  # an unknown or unreadable environment keeps its key
        return None


def _room_words(values: dict[str, Any]) -> dict[str, str]:
    """A 2v2 adoption's environment and placement by the names players read (reader pass
    C32): « La serre enchantée », « Aurora Vexley et Blaise Corvin en zone 2 (Le bassin aux
    nénuphars) », never the data keys (``serre``, ``bassin``) nor a cut-off list."""
    env = _environment(values.get("environment"))
    if env is None:
        return {}
    out = {"environment": str(env.name)}
    placement = values.get("placement")
    if isinstance(placement, list):
        keys = [z.key for z in env.zones]
        by_zone: dict[str, list[str]] = {}
        for p in placement:
            if isinstance(p, list) and len(p) > 1:
                by_zone.setdefault(str(p[1]), []).append(str(p[0]))
        spots = []
        for zone, names in by_zone.items():
            where = (f"en zone {keys.index(zone) + 1} ({env.zone(zone).name})"
                     if zone in keys else f"en zone {zone}")  # fmt: skip
            spots.append(f"{_names(names)} {where}")
        out["placement"] = " ; ".join(spots)
    return out


def changes_fr(before: Any, after: Any, short: Any) -> tuple[tuple[str, str, str], ...]:
    """The audit entry's changes in French: ``(field label, before, after)``, the fields that
    changed only; ``short`` cuts a long value (the table's cell width), except a 2v2's
    placement and environment, written whole by their players' names (:func:`_room_words`)."""
    if isinstance(before, dict) or isinstance(after, dict):
        b = before if isinstance(before, dict) else {}
        a = after if isinstance(after, dict) else {}
        keys = list(dict.fromkeys([*b, *a]))
        room_b, room_a = _room_words(b), _room_words(a)
        if room_a or room_b:
            return tuple(
                (FIELDS_FR.get(k, k.replace("_", " ")),
                 room_b.get(k) or short(value_words(k, b.get(k))),
                 room_a.get(k) or short(value_words(k, a.get(k))))
                for k in keys if b.get(k) != a.get(k)
            )  # fmt: skip
        return tuple(
            (FIELDS_FR.get(k, k.replace("_", " ")), short(value_words(k, b.get(k))),
             short(value_words(k, a.get(k))))
            for k in keys if b.get(k) != a.get(k)
        )  # fmt: skip
    return (("", short(value_words("", before)), short(value_words("", after))),)


# a quote ends at the « " » before « ( », « ; » or the end: an inner « "Duel". » is kept whole
# (reader pass T9: the sentence was cut at « deux dés "Duel »)
_SEED_QUOTE = re.compile(r"seed (\d{3}): \"(.+?)\"(?=\s*(?:\(|$|;))", re.S)
_INNER_QUOTE = re.compile(r"\"([^\"]+)\"")
_SPELLBOOK = re.compile(r"^(\w+)\.toml default spellbook \(club's to set\): (.+)$", re.S)


def source_fr(source: str, rule: str = "") -> str:
    """A trail source in French (module doc); ``""`` for none."""
    text = (source or "").strip()
    if not text:
        return ""
    quotes = [q.strip() for _, q in _SEED_QUOTE.findall(text)]
    if quotes:
        quotes = [_INNER_QUOTE.sub("\u201c\\1\u201d", q) for q in quotes]
        return "Règlement du club : " + " ; ".join(f"« {q} »" for q in quotes)
    spellbook = _SPELLBOOK.match(text)
    if spellbook:
        line = re.sub(r"\blevel (\d+)", r"niveau \1", spellbook.group(2))
        return f"Liste des sorts du club : {line}"
    name = RULE_NAMES.get(rule.rsplit(".", 1)[-1], (None,))[0] if rule else None
    if name:
        return f"Précision des règles de l'arbitrage ({name})"
    return "Précision des règles de l'arbitrage"


__all__ = ["FIELDS_FR", "STATUS_FR", "changes_fr", "source_fr", "value_words"]


TEXT_LINES_SHOWN = 3
"""Changed passages an audit row shows of a text edit; the others are counted
(:func:`text_changes`)."""

_LEAD = 30
"""Characters of a changed line kept before its first difference (:func:`_around`)."""


def is_long_text(before: Any, after: Any, limit: int = 120) -> bool:
    """True when an audit entry's before and after are two different texts, one of them of
    several lines or longer than ``limit`` characters: a text edit, shown by
    :func:`text_changes` (a short value, a name, is shown whole)."""
    if not isinstance(before, str) or not isinstance(after, str) or before == after:
        return False
    return any("\n" in t or len(t) > limit for t in (before, after))


def _around(old: str, new: str) -> tuple[str, str]:
    """Two versions of a passage from a little before their first differing character
    (« …» in front when cut there), so a long line shows what changed, not its start."""
    same = 0
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        same += 1
    start = max(0, same - _LEAD)
    if start == 0:
        return old, new
    start = old.rfind(" ", 0, start) + 1 or start  # at a word's start
    return "…" + old[start:], "…" + new[start:]


def text_changes(
    before: str, after: str, short: Callable[[Any], str], line: Callable[[int], str],
    more: Callable[[int], str],
) -> tuple[tuple[str, str, str], ...]:  # fmt: skip
    """The passages of ``after`` that differ from ``before`` (:mod:`difflib` over lines),
    as audit ``(field, before, after)`` triples: the field names the first line of the
    passage in ``after`` (``line(n)``, 1-based: « ligne 3 »), the values are cut by
    ``short`` after :func:`_around`; a passage only added has « — » before, one only removed
    « — » after. At most :data:`TEXT_LINES_SHOWN` passages, then one triple ``("", "",
    more(k))`` counting the ``k`` left out. Spaces at a line's end and passages of blank
    lines only are no change (as ``drafts edit`` counts them: newcomer 7, #17, showed
    « ligne 21 : — → — » for an added empty line)."""
    old = [ln.rstrip() for ln in before.splitlines()]
    new = [ln.rstrip() for ln in after.splitlines()]
    passages = [
        (j1, "\n".join(old[i1:i2]), "\n".join(new[j1:j2]))
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, False).get_opcodes()
        if tag != "equal" and (any(old[i1:i2]) or any(new[j1:j2]))
    ]
    rows = []
    for first, was, now in passages[:TEXT_LINES_SHOWN]:
        was, now = _around(was, now) if was and now else (was, now)
        rows.append((line(first + 1), short(was) if was else "—", short(now) if now else "—"))
    if len(passages) > TEXT_LINES_SHOWN:
        rows.append(("", "", more(len(passages) - TEXT_LINES_SHOWN)))
    return tuple(rows)
