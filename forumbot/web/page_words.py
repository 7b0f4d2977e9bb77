"""The review page's French for the rules engines' trail entries and attacks, keyed by their
rule code (reader pass after issue 25: C24–C29, C34, C39, C40, T7, W18).

``rules/`` writes its trail in English (pure and English-keyed: ``fatigue.bet``,
``fatigue.damage``, ``duo.creature``...). :class:`PageWords` is the page's :class:`Words` with:

- :meth:`PageWords.entry`: one trail entry (quantity, value, rule, detail, source) in French,
  each detail rendered from its rule code (:data:`DETAILS`: « dé 6, pari [1,2,3,4] perdu »,
  « 74 − 6 (protection) = 68 PV », « 11 lignes affichées, 10 requises »), the other ones through
  :func:`forumbot.web.words.detail_fr`; internal names (``damage_over_time``, ``ward``,
  ``no_attack``, ``damage_percent``) never shown (:data:`EFFECTS`);
- :meth:`PageWords.attack`: one attack of a turn as a sentence, by engine: classic
  « attaque 2 contre défense 3, dévié, 0 PD »; fatigue and 2v2 (no attack or defense dice)
  « Sectumsempra d'Aurora Vexley touche Cassius Thorne : 39 PV (36 de base, magie brutale
  +3) », a spell on its caster « Protego de Cassius Thorne : à partir du tour suivant, pendant
  2 tours, chaque sort qui touche Cassius Thorne lui fait 8 PV de moins »;
- :meth:`PageWords.ruleset`, :meth:`PageWords.winners`, :meth:`PageWords.num` and
  :meth:`PageWords.progress`: « classique », « Vainqueurs : A et B », « −17 », « terminé au
  tour 10 ».

In English the engine's text is shown as stored, as :class:`Words` does. The French is the
staff's catalogue (:mod:`forumbot.i18n`, ``forumbot/i18n/locales/fr/LC_MESSAGES/forumbot.po``),
like the rest of the page: each phrase is an English message here (``_("%s hits %s", ...)``),
typeset and elided by :func:`forumbot.web.i18n.page_translator`; what stays in this module is
the grammar (« de Le » -> « du »), the minus sign and the parsing of the engine's English.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

from forumbot.i18n import N_, RULESET_NAMES, ngettext
from forumbot.publish.labels import year_label
from forumbot.publish.typography import MINUS, NBSP, NNBSP
from forumbot.web.i18n import page_translator
from forumbot.web.words import Words, detail_fr

_ = page_translator("fr")
"""The page's French: a message (English) from the catalogue, typeset, elided, filled."""

EFFECTS: dict[str, str] = {
    "damage_over_time": N_("PV lost each turn"),
    "ward": N_("ward"),
    "no_attack": N_("cannot cast a spell"),
    "no_dodge": N_("cannot dodge"),
    "damage_percent": N_("damage in percent"),
    "damage_flat": N_("extra damage"),
    "damage_taken_flat": N_("extra damage taken"),
    "duration_bonus": N_("longer effects"),
    "heal_flat": N_("extra healing"),
    "heal": N_("a heal"),
    "shield": N_("shield"),
    "counter_spell": N_("counter-spell"),
    "attack_modifier": N_("attack modifier"),
    "defense_modifier": N_("defense modifier"),
}
"""Effect and modifier kinds (``rules/``'s internal names) -> how the page names them
(English; French from the catalogue: :func:`effect_fr`)."""

RULESETS: dict[str, str] = RULESET_NAMES
"""Ruleset names as the page says them (French from the catalogue: :func:`ruleset_fr`)."""


def effect_fr(kind: str) -> str:
    """An effect kind's French name (« perte de PV par tour »), the kind itself if unknown."""
    return _(EFFECTS[kind]) if kind in EFFECTS else kind


def ruleset_fr(name: str) -> str:
    """« classique », « fatigue en un contre un », « deux contre deux »; unknown: as is."""
    return _(RULESETS[name]) if name in RULESETS else name


_MINUS_NUMBER = re.compile(r"(?<![\w.])-(?=\d)")
_SPACED_MINUS = re.compile(r"(?<=\d) - (?=\d)")
_ARTICLE = re.compile(r"\b(de|à|touche|pas|sur) (Les(?= )|Le(?= )|La(?= )|L'(?=\w))")
"""An article starting a name after « de », « à », « touche », « pas », « sur »: « Le », « La »,
« Les » followed by a space, or « L' » (a spell such as « Levicorpus », « Lacarnum Inflamarae »
or « Lumos » starts with no article: reader3, « duvicorpus »)."""


def _minus(text: str) -> str:
    """« −17 », « 12 − 6 » with the minus sign (T7)."""
    return _MINUS_NUMBER.sub(MINUS, _SPACED_MINUS.sub(f" {MINUS} ", text))


def _articles(text: str) -> str:
    """« de Le strangulot » -> « du strangulot », « de La tentacula » -> « de la tentacula »
    (a creature's name starts with its article; C39)."""

    def fix(m: re.Match[str]) -> str:
        word, article = m.group(1), m.group(2)
        if word == "de" and article == "Le":
            return "du"
        if word == "de" and article == "Les":
            return "des"
        if word == "à" and article == "Le":
            return "au"
        if word == "à" and article == "Les":
            return "aux"
        return f"{word} {article.lower()}"

    return _ARTICLE.sub(fix, text)


def _by(spell: str, caster: str) -> str:
    """« Densaugeo de Blaise Corvin », « Stupéfix d'Aurora Vexley » (elided)."""
    return _("%s by %s", spell, caster)


def _terms(pairs: list[tuple[int, str]]) -> str:
    """`` − 6 (protection) + 3 (type de magie du lanceur)`` for the non-zero terms."""
    out = ""
    for value, label in pairs:
        if value:
            out += f" {'+' if value > 0 else MINUS} {abs(value)} ({label})"
    return out


def _turns(n: int) -> str:
    """« 1 tour », « 3 tours » (French plural from 2)."""
    return _("%s turns", n) if abs(n) > 1 else _("%s turn", n)


# -- details by rule code -------------------------------------------------------------------
_DAMAGE = re.compile(
    r"^(?P<spell>.+?): (?P<base>-?\d+) (?P<pct>[+-]\d+) (?P<flat>[+-]\d+) \(caster\) "
    r"(?P<taken>[+-]\d+) \(target\) -(?P<ward>\d+) \(ward\) = (?P<total>-?\d+) PV"
)
_CREATURE_DAMAGE = re.compile(
    r"^(?P<spell>.+?): (?P<base>-?\d+) \+ (?P<magic>-?\d+) \(caster's magic types\) - "
    r"(?P<armour>\d+) \(armour\) = (?P<total>-?\d+) PV on (?P<who>.+?) \((?P<left>-?\d+) PV\)$"
)
_POINTS = re.compile(r"^(?P<start>-?\d+)(?P<rest>(?: [+-] -?\d+ \(\w+\))*) = (?P<total>-?\d+) PV$")
_POINT_TERM = re.compile(r" ([+-]) (-?\d+) \((\w+)\)")
_POINT_LABELS = {"violations": N_("violations"), "spells": N_("spells"),
                 "lasting": N_("lasting effects"), "heal": N_("healing")}  # fmt: skip
_LINES = re.compile(r"^(\d+) displayed lines \(at (\d+) characters\), (\d+) needed$")
_BET = re.compile(r"^die (\d+), bet (\[[^\]]*\])$")
_CAST = re.compile(r"^level (\d+), year (\w+)$")
_PENDING = re.compile(r"^if it lands on (.+?): (\d+) PV before modifiers; (can|cannot) be dodged$")
_MAGIC = re.compile(r"^(\w+): (\w+) (-?\d+) on ([\w*]+) \((.+?): (.+)\)$")
_LANDS = re.compile(r"^(.+?) lands on (.+)$")
_HITS = re.compile(r"^(.+?) hits (.+)$")
_SELF = re.compile(r"^(.+?) acts on its caster$")
_DEFENDER_CAST = re.compile(r"^(.+?): a cast cannot miss by default; both spells land$")
_NEXT = re.compile(r"^(.+?) by (.+?): (\d+) turn\(s\) from next turn$")
_RUNNING = re.compile(r"^(.+?) \(by (.+?)\) still running$")
_EXPIRED = re.compile(r"^(\w+) from (.+?) ran its last turn$")
_RELAUNCH = re.compile(r"^no defense post from (.+?) in time: (.+?)'s spell resolves undefended$")
# 2v2 (rules.duo.step, issue 25 reader2 W5): no defense while no deadline passed; a cast
# after the turn's first post
_PLAYED = re.compile(r"^(.+?) already played this turn: the spell resolves undefended$")
_OUT = re.compile(r"^(.+?) is out of the fight: the spell resolves undefended$")
_OTHER = re.compile(r"^(.+?)'s post answered another spell: this one resolves undefended$")
_SELF_CAST = re.compile(r"^(.+?)'s spell acts on its caster: no defense$")
_TURN_POST = re.compile(r"^post (\d+); (.+?) has the initiative \(post (\d+)\)$")
_REUSED = re.compile(
    r"^(?:post (\d+): )?(.+?) was already affected or targeted by (.+?)'s (.+?)(?:; (-\d+) PV)?$"
)
_RUNNING_VALUE = re.compile(r"(\w+) \((.+?), (\d+)\)")


def _damage(d: str) -> str | None:
    m = _DAMAGE.match(d)
    if m is None:
        return None
    base, total = int(m["base"]), int(m["total"])
    ward = -int(m["ward"])
    raw = base + int(m["pct"]) + int(m["flat"]) + int(m["taken"]) + ward
    terms = _terms(
        [(int(m["pct"]) + int(m["flat"]), _("caster's magic type")),
         (int(m["taken"]), _("target's magic type")), (ward, effect_fr("ward"))]
    )  # fmt: skip
    clamp = f" ({_('never below 0')})" if raw < 0 <= total else ""
    return f"{m['spell']}{NBSP}: {base}{terms} = {total} PV{clamp}"


def _creature_damage(d: str) -> str | None:
    m = _CREATURE_DAMAGE.match(d)
    if m is None:
        return None
    terms = _terms([(int(m["magic"]), _("caster's magic types")),
                    (-int(m["armour"]), _("armour"))])  # fmt: skip
    return _("%s: %s%s = %s PV on %s (%s PV left)",
             m["spell"], m["base"], terms, m["total"], m["who"], m["left"])  # fmt: skip


def _points(d: str, spells_by: list[Any] | None = None) -> str | None:
    m = _POINTS.match(d)
    if m is None:
        return None
    pairs = []
    for sign, value, label in _POINT_TERM.findall(m["rest"]):
        amount = int(value) * (1 if sign == "+" else -1)
        named = _(_POINT_LABELS[label]) if label in _POINT_LABELS else label
        if label == "spells" and spells_by:
            named = ", ".join(_by(spell, caster) for spell, caster in spells_by)
        pairs.append((amount, named))
    terms = _terms(pairs)
    if not terms:
        return _("%s PV, unchanged", m["start"])
    return f"{m['start']}{terms} = {m['total']} PV"


def _detail_by_rule(rule: str, quantity: str, value: Any, d: str) -> str | None:
    """The French of a fatigue / 2v2 trail detail from its rule code, or None (then the
    phrase table of :func:`detail_fr` is used)."""
    code = rule.rsplit(".", 1)[-1]
    if code == "short_post" and (m := _LINES.match(d)):
        return _("%s lines counted (at %s characters a line), %s needed", m[1], m[2], m[3])
    if code == "bet" and (m := _BET.match(d)):
        if value:
            return _("die %s, bet %s won", m[1], m[2])
        return _("die %s, bet %s lost", m[1], m[2])
    if (m := _CAST.match(d)) is not None:
        return _("level %s, %s", m[1], year_label(m[2]))
    if (m := _PENDING.match(d)) is not None:
        dodge = _("can be dodged") if m[3] == "can" else _("cannot be dodged")
        return _("if it lands on %s: %s PV before modifiers; %s", m[1], m[2], dodge)
    if code == "magic_type" and (m := _MAGIC.match(d)):
        kind = m[2]
        amount = f"{int(m[3]):+d}"
        what = {"damage_percent": _("%s %% damage", amount), "damage_flat": f"{amount} PV",
                "damage_taken_flat": _("%s PV taken", amount),
                "duration_bonus": _(ngettext("%s turn of effect", "%s turns of effect",
                                             abs(int(m[3]))), amount),
                "heal_flat": _("%s PV healed", amount)}.get(kind)  # fmt: skip
        what = what or effect_fr(kind)
        family = _("every spell") if m[4] == "*" else _("the spells of the family « %s »", m[4])
        return _("%s magic: %s on %s (%s is one of them)", m[1], what, family, m[5])
    if (m := _SELF.match(d)) is not None:
        return _("%s acts on its caster", m[1])
    if (m := _LANDS.match(d)) or (m := _HITS.match(d)):
        return _("%s hits %s", m[1], m[2])
    if (m := _DEFENDER_CAST.match(d)) is not None:
        return _("%s: a cast spell does not miss by default; both spells land", m[1])
    if (m := _NEXT.match(d)) is not None:
        return _("%s, for %s from the next one", _by(m[1], m[2]), _turns(int(m[3])))
    if (m := _RUNNING.match(d)) is not None:
        return _("%s, still active", _by(m[1], m[2]))
    if (m := _EXPIRED.match(d)) is not None:
        return _("effect « %s » of %s over, its last turn played", effect_fr(m[1]), m[2])
    if (m := _RELAUNCH.match(d)) is not None:
        return _("no defense from %s in time: the spell of %s is resolved undefended", m[1], m[2])
    if (m := _PLAYED.match(d)) is not None:
        return _("%s already played this turn: the spell is resolved undefended", m[1])
    if (m := _OUT.match(d)) is not None:
        return _("%s is out of the fight: the spell is resolved undefended", m[1])
    if (m := _OTHER.match(d)) is not None:
        return _("the post of %s answered another spell: this one is resolved undefended", m[1])
    if (m := _SELF_CAST.match(d)) is not None:
        return _("the spell of %s acts on its caster: no defense", m[1])
    if (m := _TURN_POST.match(d)) is not None:
        return _("post %s, %s has the initiative (post no. %s)", m[1], m[2], m[3])
    if (m := _REUSED.match(d)) is not None:
        post = f"{_('post %s', m[1])}{NBSP}: " if m[1] else ""
        cost = f"{NBSP}; {MINUS}{m[5][1:]} PV" if m[5] else ""
        return post + _("%s already hit or targeted %s", _by(m[4], m[3]), m[2]) + cost
    return (_damage(d) or _creature_damage(d) or _points(d)) if d else None


def trail_detail_fr(entry: dict[str, Any]) -> str:
    """One trail entry's detail in French (module doc); an entry with ``spells_by`` (the
    ``(spell, caster)`` pairs that hit, :func:`forumbot.web.views.duo_points_trail`) names
    them in its points line."""
    d = str(entry.get("detail") or "")
    rule = str(entry.get("rule") or "")
    spells_by = entry.get("spells_by")
    done = _points(d, spells_by) if spells_by else None
    if done is None:
        done = _detail_by_rule(rule, str(entry.get("quantity") or ""), entry.get("value"), d)
    text = done if done is not None else detail_fr(d)
    if len(re.findall(r"\s:", text)) > 1:  # one colon a sentence: « message 106, … »
        text = re.sub(r"^message (\d+)\s: ", r"message \1, ", text)
    return _minus(_articles(text))


def _none_value(t: dict[str, Any]) -> str:
    """A trail value of None (a post that named no action, or a duellist who could not act:
    ``<name>.action`` is None) as a word, never « None » (issue 25, reader4 C1); empty for any
    other value."""
    if t.get("value") is not None:
        return ""
    if str(t.get("quantity") or "").endswith(".action"):
        return _("no action")
    return _("none")


def trail_value_fr(value: Any) -> str:
    """A trail value: effect kinds by their French names, « A → B », the minus sign."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, str):
        if value in EFFECTS:
            return effect_fr(value)
        text = _RUNNING_VALUE.sub(
            lambda m: f"{effect_fr(m[1])} ({m[2]}, {_turns(int(m[3]))})",
            value,
        )
        text = text.replace(" -> ", " → ")
        from forumbot.web.words import value_fr

        return _articles(value_fr(text))
    return _minus(str(value))


class PageWords(Words):
    """The page's :class:`Words` with the trail, attacks and duel words by rule code (module
    doc). Same arguments as :class:`Words`; ``spell_text(ruleset, spell)`` (optional) gives
    a spell's French effect text for a trail source (the guide's wording)."""

    def __init__(
        self,
        language: str,
        timezone: str,
        translate: Callable[..., str],
        spell_text: Callable[[str, str], str | None] | None = None,
    ) -> None:
        super().__init__(language, timezone, translate)
        self._spell_text = spell_text

    # -- trail ------------------------------------------------------------------------------
    def entry(self, t: dict[str, Any], names: tuple[str, ...] = ()) -> dict[str, str]:
        """One trail entry for the table: ``quantity``, ``value``, ``rule``, ``detail`` and
        ``source`` as shown (French or the stored English)."""
        if not self.french:
            return {"quantity": str(t.get("quantity") or ""), "value": self.value(t.get("value")),
                    "rule": self.rule(t.get("rule")), "detail": str(t.get("detail") or ""),
                    "source": str(t.get("source") or "")}  # fmt: skip
        quantity = self.quantity(t.get("quantity"), names)
        rule = self.rule(t.get("rule"))
        if str(t.get("quantity") or "").endswith(".lines"):
            rule = _("post length")  # the count is shown long enough or not (C28)
        return {
            "quantity": _articles(quantity),
            "value": _none_value(t) or trail_value_fr(t.get("value")),
            "rule": rule,
            "detail": trail_detail_fr(t),
            "source": self.source(t.get("source"), t.get("rule")),
        }

    def detail(self, text: object) -> str:
        """A detail or violation evidence (no rule code known): French, minus signs."""
        if not self.french:
            return str(text or "")
        return trail_detail_fr({"detail": str(text or "")})

    def source(self, source: object, rule: object = "") -> str:
        """A trail source in French; a spellbook line by the guide's French effect text."""
        text = super().source(source, rule)
        if not self.french:
            return text
        m = re.match(r"^Liste des sorts du club[ \u00a0]: (.+?), niveau (\d+)", text)
        book = re.match(r"^(\w+)\.toml default spellbook", str(source or ""))
        if m and book and self._spell_text is not None:
            effects = self._spell_text(book[1], m[1])
            if effects:
                return _("Club's spell list: %s, level %s, %s", m[1], m[2], effects)
        return _minus(text)

    def audit(self, entry: dict[str, Any]) -> Any:
        """An audit row (:meth:`Words.audit`) with « n° 3 » in French (T6)."""
        row = super().audit(entry)
        if not self.french:
            return row
        return dataclasses.replace(row, target=_NUMERO.sub("n°" + NBSP, row.target))

    # -- attacks ----------------------------------------------------------------------------
    def attack(self, a: dict[str, Any], engine: str = "classic", unit: str = "") -> str:
        """One attack of a turn as a sentence (module doc); ``engine`` is the ruleset's
        engine (``classic`` or ``fatigue``, 2v2 included)."""
        if engine != "fatigue":
            return self._classic_attack(a, unit)
        return self._fatigue_attack(a, unit)

    def _classic_attack(self, a: dict[str, Any], unit: str) -> str:
        head = f"{a.get('attacker')} → {a.get('defender')}"
        if a.get("spell"):
            head += f" ({a['spell']})"
        if a.get("void_reason"):
            if self.french:
                return _("%s: no attack (%s)", head, self.rule(a["void_reason"]))
            return f"{head}: no attack ({self.rule(a['void_reason'])})"
        attack = a.get("attack_value") or a.get("attack_die")
        defense = a.get("effective_defense")
        if self.french:
            result = _("lands") if a.get("landed") else _("deflected")
            damage = self.num(a.get("damage"))
            return _("%s: attack %s against defense %s, %s, %s %s", head, self.num(attack),
                     self.num(defense), result, damage, unit).rstrip()  # fmt: skip
        result = "lands" if a.get("landed") else "deflected"
        text = f"{head}: attack {attack} vs defense {defense}, {result}, {a.get('damage')} {unit}"
        return text.rstrip()

    def _fatigue_attack(self, a: dict[str, Any], unit: str) -> str:
        spell = str(a.get("spell") or "")
        caster, target = str(a.get("attacker")), str(a.get("defender"))
        if not self.french:
            state = "void" if a.get("void_reason") else ("lands" if a.get("landed") else "misses")
            return f"{spell} by {caster} on {target}: {state}, {a.get('damage')} {unit}".rstrip()
        who = _by(spell, caster)
        if a.get("void_reason") == "pending":  # a fatigue initiative, before the defense
            return _articles(_("%s aims at %s: resolved with the defense", who, target))
        if a.get("void_reason") == "dodge" and not spell:  # the post was a dodge
            return _("%s chooses to dodge rather than cast a spell", caster)
        if a.get("void_reason") == "dodged":
            return _articles(_("%s dodges %s", target, who))
        if a.get("void_reason") == "no_action" or (a.get("void_reason") and not spell):
            blockers = ", ".join(str(b) for b in a.get("blocked_by") or [])
            if blockers:
                return _("%s could not act (%s)", caster, blockers)
            return _("%s could not act", caster)
        if a.get("void_reason"):
            return _articles(
                _("%s on %s has no effect (%s)", who, target, self.rule(a["void_reason"]))
            )
        effects = [self._effect(e, caster, target, unit) for e in a.get("effects_applied") or []]
        effects = [e for e in effects if e]
        base = int(a.get("attack_value") or 0)
        damage = int(a.get("damage") or 0)
        if not a.get("landed"):
            return _articles(_("%s misses %s", who, target))
        if base == 0 and damage == 0 and effects:
            return _articles(f"{who}{NBSP}: " + f"{NNBSP}; ".join(effects))
        parts = [_("%s base", base)]
        for m in list(a.get("attack_modifiers") or []) + list(a.get("defense_modifiers") or []):
            amount = int(m.get("amount") or 0)
            if amount:
                source = str(m.get("source") or "")
                label = _("%s magic", source[6:]) if source.startswith("magic:") else source
                parts.append(f"{label} {self.num(amount, signed=True)}")
        if damage == 0 and base > 0:
            parts.append(_("never below 0"))
        detail = f" ({', '.join(parts)})" if len(parts) > 1 else ""
        text = _("%s hits %s: %s %s%s", who, target, damage, unit, detail)
        if effects:
            text += f"{NNBSP}; " + f"{NNBSP}; ".join(effects)
        return _articles(text)

    def _effect(self, e: dict[str, Any], caster: str, target: str, unit: str) -> str:
        bearer = caster if e.get("applies") == "caster" else target
        turns = int(e.get("duration") or 0)
        during = _("for %s", _turns(turns)) if turns else ""
        amount = int(e.get("amount") or 0)
        kind = str(e.get("type") or "")
        if kind == "ward":
            return _("from the next turn, %s, each spell that hits %s does %s %s less to them",
                     during, bearer, amount, unit)  # fmt: skip
        if kind == "damage_over_time":
            return _("from the next turn, %s, %s loses %s %s a turn", during, bearer, amount, unit)
        if kind in ("no_attack", "no_dodge"):  # third reader after issue 25: the duration counts
            if turns > 1:
                return _("%s %s during the next %s turns", bearer, effect_fr(kind), turns)
            return _("%s %s at the next turn", bearer, effect_fr(kind))
        if kind == "heal":
            return _("%s gets back %s %s", bearer, amount, unit)
        return effect_fr(kind) if kind in EFFECTS else _("an effect the referee describes")

    # -- duel words -------------------------------------------------------------------------
    def roller(self, source: object) -> str:
        """Who rolled a die (C33): « l'arbitre (bot) », « le forum »; English as stored."""
        raw = str(source or "")
        if not self.french:
            return raw
        return {"bot": _("the referee (bot)"), "forum": _("the forum")}.get(raw, raw)

    def task_subject(self, subject: object) -> str:
        """A referee task's subject in one sentence (C36): « Aurora Vexley tente : le
        cadran » -> « Aurora Vexley tente d'actionner le cadran »."""
        raw = str(subject or "")
        if not self.french:
            return raw
        m = re.match(r"^(.+?) tente : (.+)$", raw)  # the engine's own French subject
        return _("%s tries to work %s", m[1], m[2]) if m else raw

    def unit(self, ruleset: object) -> str:
        """The points' unit of a ruleset (« PD », « PV »); ``""`` when it does not load."""
        return _unit(str(ruleset or ""))

    def balance(self, b: dict[str, Any], unit: str = "") -> str:
        """A duellist's points line of a turn as the declarations print it (issue 25, reader4
        W4): « 119 − 42 (Confringo d'Aurora Vexley) − 6 (Sectumsempra d'Aurora Vexley, effet en
        cours) = 71 PV »; the total alone when nothing changed. ``b``: an item of
        :func:`forumbot.web.history.declared_turns`' ``balance``; the labels are the
        declarations' own French words."""
        end = f"{self.num(b.get('end'))} {unit}".rstrip()
        changes = list(b.get("changes") or [])
        if not changes:
            return end
        parts = [self.num(b.get("start"))]
        for c in changes:
            amount = int(c.get("amount") or 0)
            sign = (MINUS if self.french else "-") if amount < 0 else "+"
            parts.append(f"{sign} {abs(amount)} ({c.get('label')})")
        return " ".join(parts) + f" = {end}"

    def num(self, value: object, signed: bool = False) -> str:
        """A number as the page prints it: « −17 » (U+2212), ``signed``: « +3 »."""
        try:
            n = int(str(value))
        except (TypeError, ValueError):
            return str(value if value is not None else "")
        if n < 0:
            return f"{MINUS}{-n}" if self.french else str(n)
        return f"+{n}" if signed and n > 0 else str(n)

    def ruleset(self, name: object) -> str:
        """« classique », « fatigue en un contre un », « deux contre deux » (C30)."""
        raw = str(name or "")
        return ruleset_fr(raw) if self.french else raw

    def winners(self, winner: object) -> str:
        """« Vainqueur : A » or « Vainqueurs : A et B » (a duo is stored « A & B »; C31)."""
        names = [n.strip() for n in str(winner or "").split(" & ") if n.strip()]
        if not self.french:
            return f"Winner{'s' if len(names) > 1 else ''}: {' & '.join(names)}"
        if len(names) == 1:
            return _("Winner: %s", names[0])
        return _("Winners: %s and %s", ", ".join(names[:-1]), names[-1])

    def progress(self, status: object, turn: object) -> str:
        """A duel's turn in the duels list (beside its status): « tour 3 en cours » while
        running, « tour 10, le dernier » when finished (the last turn players read, not the
        count of complete turns; W20, C44)."""
        n = int(str(turn or 0))
        if status == "finished":
            return _("turn %s, the last", n) if self.french else f"turn {n}, the last"
        if status == "running":
            return _("turn %s under way", n + 1) if self.french else f"turn {n + 1} under way"
        return self.turn(n) if n else ""


__all__ = [
    "EFFECTS", "RULESETS", "PageWords", "effect_fr", "ruleset_fr",
    "trail_detail_fr", "trail_value_fr",
]  # fmt: skip


@functools.lru_cache(maxsize=16)
def _unit(ruleset: str) -> str:
    from forumbot.rulesets import load_ruleset

    try:
        return str(load_ruleset(ruleset).unit) if ruleset else ""
    except Exception:  # an unreadable ruleset only loses the unit
        return ""


@functools.lru_cache(maxsize=256)
def guide_spell_text(ruleset: str, spell: str) -> str | None:
    """A spell's effects as the players' guide writes them (:func:`forumbot.publish.guide.
    effect_fr`), joined by commas; None when the ruleset or the spell is unknown (C25)."""
    from forumbot.publish.guide import effect_fr
    from forumbot.rulesets import load_ruleset

    try:
        rs = load_ruleset(ruleset)
    except Exception:  # an unreadable ruleset only loses the French effect text
        return None
    for s in rs.spells:
        if s.name == spell:
            effects = [str(e) for e in (effect_fr(x, rs) for x in s.effects) if e]
            return ", ".join(effects) or None
    return None


_NUMERO = re.compile(r"\bn°[ \u202f]*(?=%s|\d)")
