"""Internal reason codes as people read them: one French sentence per code, in one place.

The flows and the club store short English codes where a draft is held or a task opened
(``declarations.last_error``, ``referee_tasks.kind``): ``missing_dice: waiting for the forum's
dice`` (:data:`forumbot.duels.flow.MISSING_DICE`), ``late_edit: edited after its dice (posts
12, 13): referee decides`` (:data:`forumbot.duels.dice_edits.HOLD_PREFIX`),
``cast_before_start: referee decides`` (:mod:`forumbot.duels.opening`)... They are data and
stay as stored; a notice (:mod:`forumbot.notify.items`) or the review page
(:mod:`forumbot.web.words`) shows them through :func:`reason_fr` and :func:`task_kind_fr`,
which never show a raw code: an unknown one reads :data:`UNKNOWN_REASON_FR` (the stored text
stays on the review page, in a ``title``, for the referee who wants it).

:func:`turn_label` numbers turns the way players do: the opening (turn 0, kind ``opening``) is
« ouverture », never « tour 0 ».
"""

from __future__ import annotations

import re

#: ``code`` -> (pattern over the whole stored text, French sentence; ``\\1``... are the
#: pattern's groups). The code is the text before the first ``:`` (or the whole text).
HOLD_REASONS_FR: dict[str, tuple[str, str]] = {
    "missing_dice": (
        r"missing_dice\b.*",
        "un message n'a pas encore les dés du forum : le bot attend qu'ils apparaissent",
    ),
    "late_edit": (
        r"late_edit\b[^(]*(?:\(posts ([\d, ]+)\))?.*",
        "un message a été modifié après ses dés (messages \\1) : l'arbitre décide",
    ),
    "cast_before_start": (
        r"cast_before_start\b.*",
        "un sort a été lancé avant le top de départ : l'arbitre décide",
    ),
    "inputs changed after the referee edited the text": (
        r"inputs changed after the referee edited the text.*",
        "les messages du tour ont changé après que l'arbitre a réécrit le texte : "
        "il doit relire le brouillon",
    ),
    "topic moved": (
        r"topic moved\b:? *(\d+)? *-> *(\d+)?.*",
        "le sujet du duel a été déplacé ou fusionné (sujet \\1 → sujet \\2) : le duel est suspendu",
    ),
    "topic gone": (
        r"topic gone\b.*",
        "le sujet du duel est introuvable ou illisible pour le bot : le duel est suspendu",
    ),
    "refused": (
        r"refused\b:? *(.*)",
        "le forum a refusé la déclaration (« \\1 ») : elle attend l'arbitre ou la "
        "réouverture du sujet",
    ),
    "cancelled": (r"cancelled\b.*", "brouillon annulé (le duel a changé depuis)"),
    "dropped": (r"dropped\b.*", "brouillon abandonné par l'arbitrage"),
}

#: What a referee task is about, as a notice says it (``referee_tasks.kind``).
TASK_KINDS_FR: dict[str, str] = {
    "owl_question": "un hibou de duelliste demandant des détails",
    "mechanism": "un mécanisme à juger",
    "signup_unsure": "une inscription à relire",
    "stalemate": "un duel où personne ne perd de PV : le clore ?",
    "topic_moved": "un sujet de duel déplacé ou fusionné",
    "notice_failed": "une notification que le bot n'a pas pu préparer",
    "turn_dropped": "un brouillon de tour abandonné : le duel attend l'arbitre",
    "late_edit": "un message modifié après la déclaration de son tour",
    "erratum_stale": "un erratum publié après le tour suivant, non appliqué",
    "topic_gone": "un sujet de duel introuvable : le duel est suspendu",
    "topic_followed": "un sujet de duel déplacé : le bot le suit",
    "publish_queued": "une déclaration en attente d'un modérateur du forum",
    "publish_refused": "une déclaration refusée par le forum (sujet verrouillé ?)",
    "publish_mismatch": "une autre version de la déclaration est déjà sur le forum",
    "owl_queued": "un hibou en attente d'un modérateur du forum",
    "owl_refused": "un hibou refusé par le forum (boîte pleine ?)",
    "clock_skew": "l'horloge du bot ne s'accorde plus avec le forum : rien ne part tout seul",
    "concession_unknown": "un abandon sur le forum inconnu de la base : à clore à la main",
}

UNKNOWN_REASON_FR = "le bot ne peut pas décider seul (le détail est sur la page de relecture)"
"""What a person reads for a code nobody translated yet (never the code itself)."""

UNKNOWN_TASK_FR = "une tâche d'arbitrage"
"""A task of a kind :data:`TASK_KINDS_FR` does not know yet."""

_COMPILED = {code: (re.compile(p, re.S), fr) for code, (p, fr) in HOLD_REASONS_FR.items()}
_CODE = re.compile(r"^\s*([A-Za-z_][A-Za-z_ ]*?)\s*(?::|->|$)")
_PUBLISH_ERROR = re.compile(r"^[A-Z][A-Za-z]*(?:Error|Failed|Denied|Limited|Expired|Invalid)\b")


def reason_code(text: str | None) -> str:
    """The code of a stored reason: ``"late_edit: edited..."`` -> ``"late_edit"`` ("" when
    there is none)."""
    found = _CODE.match(text or "")
    return found.group(1).strip() if found else ""


def reason_fr(text: str | None) -> str:
    """The French sentence of a stored reason (``declarations.last_error``); "" for none.

    A known code gets its sentence (:data:`HOLD_REASONS_FR`, its numbers filled in); a
    publishing error (``ForumError: ...``) reads « le forum a refusé ou n'a pas répondu »;
    anything else :data:`UNKNOWN_REASON_FR`. Never the raw code.

    >>> reason_fr("cast_before_start: referee decides")
    "un sort a été lancé avant le top de départ : l'arbitre décide"
    >>> reason_fr("late_edit: edited after its dice (posts 12, 14): referee decides")
    "un message a été modifié après ses dés (messages 12, 14) : l'arbitre décide"
    """
    raw = (text or "").strip()
    if not raw:
        return ""
    code = reason_code(raw)
    found = _COMPILED.get(code)
    if found is not None:
        pattern, french = found
        match = pattern.match(raw)
        if match is not None:
            groups = [g.strip() if g else "?" for g in match.groups()]
            out = french
            for i, value in enumerate(groups, 1):
                out = out.replace(f"\\{i}", value)
            return out.replace(" (messages ?)", "").replace("sujet ? → sujet ?", "autre sujet")
    if _PUBLISH_ERROR.match(raw):
        return "la dernière publication a échoué : le forum a refusé ou n'a pas répondu"
    return UNKNOWN_REASON_FR


def task_kind_fr(kind: str | None) -> str:
    """What a referee task of ``kind`` is about, in French (never the raw kind)."""
    return TASK_KINDS_FR.get(str(kind or ""), UNKNOWN_TASK_FR)


def turn_label(turn: int | str | None, kind: str | None = None) -> str:
    """A turn as players name it: the opening (kind ``opening``, or turn 0) is « ouverture »,
    turn 3 « tour 3 »; "" when there is no turn.

    >>> turn_label(0), turn_label(3, "turn"), turn_label(0, "opening"), turn_label(None)
    ('ouverture', 'tour 3', 'ouverture', '')
    """
    if kind == "opening":
        return "ouverture"
    if turn is None or turn == "":
        return ""
    try:
        number = int(turn)
    except (TypeError, ValueError):
        return ""
    return "ouverture" if number == 0 else f"tour {number}"


__all__ = [
    "HOLD_REASONS_FR",
    "TASK_KINDS_FR",
    "UNKNOWN_REASON_FR",
    "UNKNOWN_TASK_FR",
    "reason_code",
    "reason_fr",
    "task_kind_fr",
    "turn_label",
]
