"""The rules engine's words on the page, in the page's language (issue 14).

``rules/`` writes its trail and violation evidence in English, with rule ids such as
``classic.repeated_spell`` (they are data, kept as stored). The page shows them through
:class:`Words`: in French (the default) the rule ids get French names, the trail's
quantities and details and the violation evidence are translated phrase by phrase
(:data:`PHRASES_FR`, every sentence ``rules/classic.py``, ``rules/fatigue/engine.py`` and
``rules/duo/engine.py`` write), void reasons such as ``shield`` read "bouclier", times are
shown in the board's timezone, and the audit log is a table (who, when, what, before → after).
In English the engine's own text is shown as stored, with readable rule names.

The raw rule id stays in the ``title`` of each name, so a referee can look it up. The same
holds for a held draft's reason (``last_error``: :meth:`Words.reason`, the French sentence of
:func:`forumbot.publish.reasons.reason_fr`, the one the notices use) and for turns
(:meth:`Words.turn`: the opening is « ouverture », never « tour 0 »).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from forumbot.i18n import N_, ngettext
from forumbot.publish.labels import RULE_NAMES, year_label  # shared with the notices
from forumbot.publish.reasons import reason_fr, task_kind_fr, turn_label  # idem (issue 23)
from forumbot.publish.typography import typeset
from forumbot.web.audit_words import changes_fr, is_long_text, source_fr, text_changes
from forumbot.web.draft_state import draft_state


def _last_part(rule_id: str) -> str:
    return rule_id.rsplit(".", 1)[-1]


# -- trail quantities: the part after "<name>." -> French ------------------------------------
QUANTITIES_FR: dict[str, str] = {
    "attack.die": "dé d'attaque",
    "defense.die": "dé de défense",
    "attack.value": "valeur d'attaque",
    "attack.modifier": "modificateur d'attaque",
    "attack.landed": "attaque touche",
    "attack.barred": "attaque interdite",
    "attack.damage": "dégâts infligés",
    "attack.extra_damage": "dégâts supplémentaires",
    "defense.effective": "défense effective",
    "defense.modifier": "modificateur de défense",
    "spell": "sort",
    "spell.cancelled": "sort annulé",
    "spell.pending": "sort en attente",
    "points": "points",
    "effects_next": "effet au tour suivant",
    "effects.expired": "effet terminé",
    "effects.merged": "effets fusionnés",
    "effects_pending": "effets en cours",
    "effects_running": "effets en cours",
    "die": "dé",
    "action": "action",
    "bet_won": "pari gagné",
    "dodged": "esquive",
    "landed": "touche",
    "riposte.landed": "riposte touche",
    "damage": "dégâts",
    "damage.modifier": "modificateur de dégâts",
    "damage.ward": "protection",
    "damage_over_time": "dégâts sur la durée",
    "heal": "soin",
    "heal.spell": "soin du sort",
    "endures": "subit",
    "barred": "action interdite",
    "lines": "lignes",
    "spells_used_on": "sorts déjà lancés sur",
    "resolution": "résolution",
    "finished": "duel terminé",
    "winner": "vainqueur",
    "draw": "égalité",
    "initiative": "initiative",
    "defense": "défense",
    "relaunch": "relance",
}
PREFIXES_FR = {"duel": "duel", "turn": "tour"}

VALUES_FR: dict[str, str] = {
    "simultaneous": "simultanée",
    "applied": "appliquée",
    "proposed": "proposée",
    "waived": "levée",
    "off": "désactivée",
    "none": "aucun",
    "cast": "lancer un sort",
    "dodge": "esquiver",
    "dodge_riposte": "esquiver et riposter",
}

# -- details and evidence: English phrase -> French, applied in order ------------------------
_NAME = r"(?P<{0}>[^:;,()\s][^:;,()]*?)"


def _n(group: str) -> str:
    return _NAME.format(group)


PHRASES_FR: tuple[tuple[str, str], ...] = (
    # classic (rules/classic.py)
    (r"post (\d+), first die", r"message \1, premier dé"),
    (r"post (\d+), second die", r"message \1, second dé"),
    (
        rf"{_n('a')}'s effective defense (-?\d+) vs attack (-?\d+): ",
        r"défense effective \2 de \g<a> contre attaque \3, ",
    ),
    (r"equal: the tie lands", "à égalité, le sort touche"),
    (r"equal: the tie is deflected", "à égalité, le sort est dévié"),
    (r"strictly greater: deflected", "défense plus forte, le sort est dévié"),
    (r"lower: lands", "défense plus faible, le sort touche"),
    (rf"{_n('s')} twice in a row", r"\g<s> deux fois de suite"),
    (r"; proposal: ", " ; proposition : "),
    (
        r"no effect, no damage; the defense die counts",
        "sans effet ni dégâts ; le dé de défense compte",
    ),
    (
        r"no attack this turn; the defense die counts",
        "pas d'attaque ce tour ; le dé de défense compte",
    ),
    (r"no attack this turn", "pas d'attaque ce tour"),
    (r"in the list of allowed spells", "dans la liste des sorts autorisés"),
    (r"no landed attack, no PD lost", "aucune attaque n'a touché, aucun PD perdu"),
    (r"attack die (\d+)", r"dé d'attaque \1"),
    (r"no spell in bold", "aucun sort en gras"),
    (
        rf"{_n('s')} is level (\d+), year (\d+) knows up to (\d+)",
        r"\g<s> est de niveau \2 ; une \3e année connaît jusqu'au niveau \4",
    ),
    (
        r"flag only: a well-read duellist may know a little more \(fair play\)",
        "signalé seulement : un duelliste cultivé peut en savoir un peu plus (fair-play)",
    ),
    (r"flag only", "signalé seulement"),
    (r"the spell is ignored", "le sort est ignoré"),
    (
        rf"{_n('s')} \(by {_n('c')}\) forbids attacking this turn",
        r"\g<s> (par \g<c>) interdit d'attaquer ce tour",
    ),
    (r"carried from the previous turn: ", "reporté du tour précédent : "),
    (r"shield on the same post's defense", "bouclier sur la défense du même message"),
    (r"caster's own defense, same turn", "défense du lanceur, même tour"),
    (rf"advantage given by {_n('c')}'s ", r"avantage donné par \g<c> : "),
    (rf"; lost: {_n('a')} does not attack this turn", r" ; perdu : \g<a> n'attaque pas ce tour"),
    (
        rf"proposed advantage for {_n('a')}: ([+-]\d+) to the next attack die",
        r"avantage proposé pour \g<a> : \2 au prochain dé d'attaque",
    ),
    (
        r"advantage: \+(\d+) to the opponent's next attack die",
        r"avantage : +\1 au prochain dé d'attaque de l'adversaire",
    ),
    (r", (?:for )?damage too", ", aux dégâts aussi"),
    (r"([+-]\d+) advantage", r"\1 d'avantage"),
    (
        rf"{_n('a')}'s {_n('s')} cancels {_n('b')}'s spell of this turn",
        r"\g<s> de \g<a> annule le sort de \g<b> ce tour",
    ),
    (rf"{_n('k')} from {_n('s')} ran its last turn", r"\g<k> (\g<s>) a fini son dernier tour"),
    (r"both at 0 or below: ", "tous deux à 0 ou moins : "),
    (r"disqualified: ", "disqualifié(s) : "),
    (rf"{_n('a')} at (-?\d+) PD", r"\g<a> à \2 PD"),
    (r"^(-?\d+) (PD|PV), unchanged$", r"\1 \2, sans changement"),
    (rf"{_n('s')} landed", r"\g<s> a touché"),
    # fatigue (rules/fatigue/engine.py)
    (rf"{_n('a')}'s bet ([^()]+?) won \(die (\d+)\)", r"pari de \g<a> \2 gagné (dé \3)"),
    (rf"{_n('a')}'s bet ([^()]+?) lost \(die (\d+)\)", r"pari de \g<a> \2 perdu (dé \3)"),
    (r"level (\d+), year (\d+)", r"niveau \1, \2e année"),
    (rf"{_n('a')} concedes", r"\g<a> abandonne"),
    (r"no post after the last relaunch", "aucun message après la dernière relance"),
    (r"no legal action left", "plus aucune action permise"),
    (rf"{_n('s')} did not land", r"\g<s> n'a pas touché"),
    (
        rf"{_n('a')} may not cast {_n('s')} on {_n('b')} again",
        r"\g<a> ne peut plus lancer \g<s> sur \g<b>",
    ),
    (r"(\d+) turn\(s\) from next turn", r"\1 tour(s) à partir du prochain"),
    (r"\(([+-]\d+) magic type\)", r"(\1 type de magie)"),
    (r"magic type", "type de magie"),
    (rf"{_n('s')} still running", r"\g<s> toujours actif"),
    (r"the referee's decision", "décision de l'arbitre"),
    (r"^ignored$", "ignoré"),
    # 2v2 (rules/duo/engine.py)
    (rf"{_n('s')} hits {_n('c')}$", r"\g<s> touche \g<c>"),
    (r"\(armour\)", "(armure)"),
    (r" PV on ", " PV sur "),
    (r"already defeated", "déjà vaincue"),
    (r"not in the caster's zone", "pas dans la zone du lanceur"),
    (
        rf"{_n('v')} is alone in the zone with {_n('a')} and {_n('b')}",
        r"dans la zone, il n'y a que \g<v>, \g<a> et \g<b>",
    ),
    (r"all four share a zone", "les quatre partagent une zone"),
    (rf"; {_n('a')} already targeted {_n('v')} this turn", r" ; \g<a> a déjà visé \g<v> ce tour"),
    (
        r"no 'Cible :' line and (\d+) opponents in reach",
        r"pas de ligne « Cible : » et \1 adversaires à portée",
    ),
    (r"a move with no other action", "un déplacement sans autre action"),
    (r"'Déplacement : (.+)' names no zone", r"« Déplacement : \1 » ne nomme aucune zone"),
    (rf"{_n('a')} already moved this turn", r"\g<a> avait déjà fait son déplacement ce tour-ci"),
    (
        rf"nobody of {_n('a')} & {_n('b')} moved this turn",
        r"ni \g<a> ni \g<b> ne s'est déplacé ce tour",
    ),
    (r"already solved", "déjà résolu"),
    (r"^not here$", "pas ici"),
    # the referee's overrides (rules/trail.py) and common pieces
    (r"computed (.+?), referee set (.+)$", r"calculé \1, fixé par l'arbitre à \2"),
    (r"\bpost (\d+)\b", r"message \1"),
    (r"\bvoid: ", "annulé : "),
    (r"\bby ", "par "),
    (r"(?<! ): ", " : "),
    (r"(?<! ); ", " ; "),
    (r"\b([Dd])e (?=[AEIOUYÂÉÈÊÎÔaeiouyâéèêîô])", r"\1'"),  # de Aurora -> d'Aurora
)
_COMPILED = tuple((re.compile(p), r) for p, r in PHRASES_FR)
_VOID_AFTER = re.compile(r"(annulé : |pas d'attaque ce tour \()([a-z_]+)")
_BOOLS = re.compile(r"\b(True|False)\b")


def detail_fr(text: str) -> str:
    """French of one trail detail or violation evidence written by ``rules/``.

    >>> detail_fr("Cassius Thorne's effective defense 4 vs attack 4: equal: the tie lands")
    "défense effective 4 de Cassius Thorne contre attaque 4, à égalité, le sort touche"
    >>> detail_fr("Aurora Vexley's bet 3-4 won (die 3); Cassius Thorne's bet 5 lost (die 2)")
    "pari d'Aurora Vexley 3-4 gagné (dé 3) ; pari de Cassius Thorne 5 perdu (dé 2)"
    >>> detail_fr("post 106: Sortilège de Désarmement twice in a row")
    'message 106 : Sortilège de Désarmement deux fois de suite'
    """
    for pattern, replacement in _COMPILED:
        text = pattern.sub(replacement, text)
    text = _VOID_AFTER.sub(lambda m: m.group(1) + rule_name(m.group(2), "fr"), text)
    return _BOOLS.sub(lambda m: "oui" if m.group(1) == "True" else "non", text)


def rule_name(rule_id: str, language: str) -> str:
    """A rule id (``classic.repeated_spell``) or void reason (``shield``) as a name.

    >>> rule_name("classic.repeated_spell", "fr"), rule_name("shield", "en")
    ('sort répété', 'shield')
    """
    names = RULE_NAMES.get(rule_id) or RULE_NAMES.get(_last_part(rule_id))
    if names is None:
        spell = rule_id.split(".")
        if len(spell) == 3 and spell[1] == "spell" and spell[2] in RULE_NAMES:
            names = RULE_NAMES[spell[2]]
    if names is not None:
        return names[0] if language == "fr" else names[1]
    return _last_part(rule_id).replace("_", " ")


def quantity_fr(quantity: str, known_names: tuple[str, ...] = ()) -> str:
    """``"Cassius Thorne.attack.die"`` -> ``"Cassius Thorne : dé d'attaque"``; a
    ``<name>.violation.<rule>`` names the rule in French."""
    for name in sorted(known_names, key=len, reverse=True):
        if quantity.startswith(name + "."):
            who, what = name, quantity[len(name) + 1 :]
            break
    else:
        who, _, what = quantity.partition(".")
    if what.startswith("violation."):
        return f"{who} : infraction « {rule_name(what[len('violation.') :], 'fr')} »"
    label = QUANTITIES_FR.get(what)
    if label is None:
        return quantity
    return f"{PREFIXES_FR.get(who, who)} : {label}"


def value_fr(value: object) -> str:
    """A trail value as the French page shows it (oui / non, French status names)."""
    if isinstance(value, bool):
        return "oui" if value else "non"
    if isinstance(value, str):
        return VALUES_FR.get(value, value)
    return str(value)


# -- audit log -------------------------------------------------------------------------------
# Audit actions and targets by their names on the page: English messages of the catalogue
# (forumbot.i18n), translated by the page's ``_``.
ACTIONS: dict[str, str] = {
    "duel.adopt": N_("duel adopted"),
    "duel.assign_referee": N_("referee assigned"),
    "duel.unassign_referee": N_("referee removed"),
    "declaration.publish": N_("declaration published"),
    "draft.edit_text": N_("text edited"),
    "draft.force_text": N_("text kept against the draft's numbers (--force)"),
    "draft.set_numbers": N_("number changed"),
    "draft.waive": N_("violation waived"),
    "draft.unwaive": N_("violation restored"),
    "draft.approved": N_("draft approved"),
    "draft.held": N_("draft held"),
    "draft.draft": N_("back to draft"),
    "draft.cancel": N_("draft cancelled"),
    "violation.confirm": N_("violation confirmed"),
    "violation.dismiss": N_("violation dismissed"),
    "violation.confirmed.state": N_("duel's state recomputed (violation confirmed)"),
    "violation.dismissed.state": N_("duel's state recomputed (violation dismissed)"),
    "user.add": N_("account created"),
    "user.password": N_("password changed"),
    "profile.set": N_("profile set"),
    "owl.reminder": N_("reminder owl"),
}
TARGETS: dict[str, str] = {
    "duel": N_("Duel #%s"),
    "declaration": N_("Declaration #%s"),
    "violation": N_("Violation #%s"),
    "user": N_("Account %s"),
    "task": N_("Task #%s"),
}


@dataclass(frozen=True)
class AuditRow:
    """One readable audit line.

    Attributes:
        when: the time in the board's timezone; who: the actor; what: the action's name
        (raw id in ``action``); target: what it applies to; changes: ``(field, before,
        after)`` triples, the field empty when the value is not a table.
    """

    when: str
    who: str
    what: str
    action: str
    target: str
    changes: tuple[tuple[str, str, str], ...]


def _short(value: Any, limit: int = 120) -> str:
    if value is None:
        return "—"
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _changes(before: Any, after: Any) -> tuple[tuple[str, str, str], ...]:
    if isinstance(before, dict) or isinstance(after, dict):
        b = before if isinstance(before, dict) else {}
        a = after if isinstance(after, dict) else {}
        keys = list(dict.fromkeys([*b, *a]))
        return tuple((k, _short(b.get(k)), _short(a.get(k))) for k in keys if b.get(k) != a.get(k))
    return (("", _short(before), _short(after)),)


class Words:
    """What the templates call to show engine output, times and audit lines
    (``w.rule(...)``, ``w.detail(...)``, ``w.when(...)``...) for one language and timezone.
    In French, its sentences get the posts' typography
    (:func:`forumbot.publish.typography.typeset`).

    Args:
        language: ``"fr"`` or ``"en"``.
        timezone: the board's IANA timezone (``board.timezone``); unknown names fall back
            to UTC.
        translate: the page's ``_`` (English message -> the page's language).
    """

    def __init__(self, language: str, timezone: str, translate: Callable[..., str]) -> None:
        self.language = language
        try:
            self.zone: ZoneInfo = ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            self.zone = ZoneInfo("UTC")
        self._ = translate

    @property
    def french(self) -> bool:
        return self.language == "fr"

    @property
    def colon(self) -> str:
        """The colon between a label and a value in a template: « \u00a0: » in French (the
        posts' typography), « : » in English."""
        return "\u00a0:" if self.french else ":"

    def rule(self, rule_id: object) -> str:
        """A rule id or void reason as a name (:func:`rule_name`)."""
        return rule_name(str(rule_id or ""), self.language)

    def detail(self, text: object) -> str:
        """A trail detail or violation evidence: French, or the engine's English."""
        raw = str(text or "")
        return typeset(detail_fr(raw)) if self.french else raw

    def quantity(self, quantity: object, names: tuple[str, ...] = ()) -> str:
        """A trail quantity (:func:`quantity_fr` in French)."""
        raw = str(quantity or "")
        return typeset(quantity_fr(raw, names)) if self.french else raw

    def value(self, value: object) -> str:
        """A trail value (:func:`value_fr` in French)."""
        if self.french:
            return value_fr(value)
        return ("yes" if value else "no") if isinstance(value, bool) else str(value)

    def reason(self, text: object) -> str:
        """A stored reason code (a held draft's ``last_error``): its French sentence
        (:func:`forumbot.publish.reasons.reason_fr`, never the raw code), or as stored in
        English."""
        raw = str(text or "")
        return typeset(reason_fr(raw)) if self.french else raw

    def task_kind(self, kind: object) -> str:
        """What a referee task is about, in French (as the notices say it)."""
        return task_kind_fr(str(kind or "")) if self.french else str(kind or "")

    def turn(self, turn: object, kind: object = None) -> str:
        """A turn as players name it: « ouverture » for the opening (turn 0), « tour 3 »;
        English: ``opening`` / ``turn 3``."""
        label = turn_label(turn if isinstance(turn, int | str) else None, str(kind or ""))
        if self.french:
            return label
        return label.replace("ouverture", "opening").replace("tour ", "turn ")

    def when(self, stamp: object) -> str:
        """An ISO 8601 time (aware; naive taken as UTC) in the board's timezone:
        ``30/11/2026 13:00 (CET)`` / ``2026-11-30 13:00 (CET)``; other text as given."""
        if not stamp:
            return ""
        try:
            moment = datetime.fromisoformat(str(stamp))
        except ValueError:
            return str(stamp)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=ZoneInfo("UTC"))
        local = moment.astimezone(self.zone)
        shape = "%d/%m/%Y %H:%M" if self.french else "%Y-%m-%d %H:%M"
        return f"{local:{shape}} ({local:%Z})"

    def draft_state(self, status: object, version: object) -> str:
        """« brouillon approuvé, version 2 » (:func:`forumbot.web.draft_state.draft_state`,
        what the command line prints too)."""
        return draft_state(str(status or ""), int(str(version or 1)), self._)

    def audit(self, entry: dict[str, Any]) -> AuditRow:
        """One ``audit_log`` row as a readable line (:class:`AuditRow`)."""
        _ = self._
        action = str(entry.get("action", ""))
        if action in ACTIONS:
            what = _(ACTIONS[action])
        elif action.startswith("task."):
            what = _("task: %s", action[5:])
        elif action.startswith("deadline."):
            what = _("deadline: %s", action[9:])
        else:
            what = action
        kind, _colon, ident = str(entry.get("target", "")).partition(":")
        target = _(TARGETS[kind], ident) if kind in TARGETS else str(entry.get("target", ""))
        before, after = (_loads(entry.get("before")), _loads(entry.get("after")))
        if is_long_text(before, after):  # a text edit: the lines that changed (newcomer5 C2)
            changes = text_changes(
                before, after, _short, lambda n: _("line %s", n),
                lambda k: _(ngettext("and %s other changed passage",
                                     "and %s other changed passages", k), k),
            )  # fmt: skip
        elif self.french:  # the field's French name; the values as written (names, stakes)
            changes = tuple(
                (typeset(field), old, new) for field, old, new in changes_fr(before, after, _short)
            )
        else:
            changes = _changes(before, after)
        return AuditRow(
            when=self.when(entry.get("at")),
            who=str(entry.get("actor", "")),
            what=what,
            action=action,
            target=target,
            changes=changes,
        )

    def source(self, source: object, rule: object = "") -> str:
        """A trail source: in French the seed's quote or a French label, never RULES.md's
        English nor a code name (:func:`forumbot.web.audit_words.source_fr`)."""
        raw = str(source or "")
        return typeset(source_fr(raw, str(rule or ""))) if self.french else raw

    def year(self, year: object) -> str:
        """A duellist's year as players say it: « 5e année », « adulte »; English ``year 5``."""
        raw = str(year or "")
        if not raw:
            return ""
        if self.french:
            return year_label(raw)
        return "adult" if raw == "adult" else f"year {raw}"


def _loads(raw: Any) -> Any:
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
