"""The review page's French for the rules engines' trail entries and attacks, keyed by their
rule code (reader pass after issue 25: C24–C29, C34, C39, C40, T7, W18).

``rules/`` writes its trail in English (pure and English-keyed: ``fatigue.bet``,
``fatigue.damage``, ``duo.creature``...). :class:`PageWords` is the page's :class:`Words` with:

- :meth:`PageWords.entry`: one trail entry (quantity, value, rule, detail, source) in French,
  each detail rendered from its rule code (:data:`DETAILS`: « dé 6, pari [1,2,3,4] perdu »,
  « 74 − 6 (protection) = 68 PV », « 11 lignes affichées, 10 requises »), the other ones through
  :func:`forumbot.web.words.detail_fr`; internal names (``damage_over_time``, ``ward``,
  ``no_attack``, ``damage_percent``) never shown (:data:`EFFECTS_FR`);
- :meth:`PageWords.attack`: one attack of a turn as a sentence, by engine: classic
  « attaque 2 contre défense 3, dévié, 0 PD »; fatigue and 2v2 (no attack or defense dice)
  « Sectumsempra d'Aurora Vexley touche Cassius Thorne : 39 PV (36 de base, magie brutale
  +3) », a spell on its caster « Protego de Cassius Thorne : à partir du tour suivant, pendant
  2 tours, chaque sort qui touche Cassius Thorne lui fait 8 PV de moins »;
- :meth:`PageWords.ruleset`, :meth:`PageWords.winners`, :meth:`PageWords.num` and
  :meth:`PageWords.progress`: « classique », « Vainqueurs : A et B », « −17 », « terminé au
  tour 10 ».

In English the engine's text is shown as stored, as :class:`Words` does.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

from forumbot.publish.labels import year_label
from forumbot.publish.typography import MINUS, NBSP
from forumbot.web.words import Words, detail_fr

EFFECTS_FR: dict[str, str] = {
    "damage_over_time": "perte de PV par tour",
    "ward": "protection",
    "no_attack": "ne peut pas lancer de sort",
    "no_dodge": "ne peut pas esquiver",
    "damage_percent": "dégâts en pourcentage",
    "damage_flat": "dégâts en plus",
    "damage_taken_flat": "dégâts reçus en plus",
    "duration_bonus": "effets plus longs",
    "heal_flat": "soins en plus",
    "heal": "soin",
    "shield": "bouclier",
    "counter_spell": "antisort",
    "attack_modifier": "modificateur d'attaque",
    "defense_modifier": "modificateur de défense",
}
"""Effect and modifier kinds (``rules/``'s internal names) as the page names them."""

RULESETS_FR = {"classic": "classique", "fatigue": "fatigue en un contre un",
               "duo": "deux contre deux"}  # fmt: skip

_MINUS_NUMBER = re.compile(r"(?<![\w.])-(?=\d)")
_SPACED_MINUS = re.compile(r"(?<=\d) - (?=\d)")
_ARTICLE = re.compile(r"\b(de|à|touche|sur) (Le|La|Les|L')(?=[ \w])")


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


def _de(name: str) -> str:
    """« de Cassius », « d'Aurora » (elision before a vowel)."""
    return f"d'{name}" if name[:1].lower() in "aeiouyâéèêîô" else f"de {name}"


def _terms(pairs: list[tuple[int, str]]) -> str:
    """`` − 6 (protection) + 3 (type de magie du lanceur)`` for the non-zero terms."""
    out = ""
    for value, label in pairs:
        if value:
            out += f" {'+' if value > 0 else MINUS} {abs(value)} ({label})"
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if abs(n) > 1 else ''}"


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
_POINT_LABELS = {"violations": "infractions", "spells": "sorts", "lasting": "effets durables",
                 "heal": "soins"}  # fmt: skip
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
_UNDEFENDED = {
    re.compile(r"^(.+?) already played this turn: the spell resolves undefended$"):
        "{0} a déjà joué ce tour-ci\u00a0: le sort est résolu sans défense",
    re.compile(r"^(.+?) is out of the fight: the spell resolves undefended$"):
        "{0} est hors de combat\u00a0: le sort est résolu sans défense",
    re.compile(r"^(.+?)'s post answered another spell: this one resolves undefended$"):
        "le message {0:de} répondait à un autre sort\u00a0: celui-ci est résolu sans défense",
    re.compile(r"^(.+?)'s spell acts on its caster: no defense$"):
        "le sort {0:de} agit sur son lanceur\u00a0: pas de défense",
}  # fmt: skip
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
        [(int(m["pct"]) + int(m["flat"]), "type de magie du lanceur"),
         (int(m["taken"]), "type de magie de la cible"), (ward, "protection")]
    )  # fmt: skip
    clamp = " (jamais moins de 0)" if raw < 0 <= total else ""
    return f"{m['spell']}{NBSP}: {base}{terms} = {total} PV{clamp}"


def _creature_damage(d: str) -> str | None:
    m = _CREATURE_DAMAGE.match(d)
    if m is None:
        return None
    terms = _terms([(int(m["magic"]), "types de magie du lanceur"),
                    (-int(m["armour"]), "armure")])  # fmt: skip
    return (f"{m['spell']}{NBSP}: {m['base']}{terms} = {m['total']} PV sur {m['who']} "
            f"({m['left']} PV restants)")  # fmt: skip


def _points(d: str) -> str | None:
    m = _POINTS.match(d)
    if m is None:
        return None
    pairs = []
    for sign, value, label in _POINT_TERM.findall(m["rest"]):
        amount = int(value) * (1 if sign == "+" else -1)
        pairs.append((amount, _POINT_LABELS.get(label, label)))
    terms = _terms(pairs)
    if not terms:
        return f"{m['start']} PV, sans changement"
    return f"{m['start']}{terms} = {m['total']} PV"


def _detail_by_rule(rule: str, quantity: str, value: Any, d: str) -> str | None:
    """The French of a fatigue / 2v2 trail detail from its rule code, or None (then the
    phrase table of :func:`detail_fr` is used)."""
    code = rule.rsplit(".", 1)[-1]
    if code == "short_post" and (m := _LINES.match(d)):
        return (f"{m[1]} lignes affichées (à {m[2]} caractères par ligne), "
                f"{m[3]} requises")  # fmt: skip
    if code == "bet" and (m := _BET.match(d)):
        return f"dé {m[1]}, pari {m[2]} {'gagné' if value else 'perdu'}"
    if (m := _CAST.match(d)) is not None:
        year = m[2]
        return f"niveau {m[1]}, {year_label(year)}"
    if (m := _PENDING.match(d)) is not None:
        dodge = "peut être esquivé" if m[3] == "can" else "ne peut pas être esquivé"
        return f"s'il touche {m[1]}{NBSP}: {m[2]} PV avant modificateurs{NBSP}; {dodge}"
    if code == "magic_type" and (m := _MAGIC.match(d)):
        kind = m[2]
        amount = int(m[3])
        what = {"damage_percent": f"{amount:+d} % de dégâts", "damage_flat": f"{amount:+d} PV",
                "damage_taken_flat": f"{amount:+d} PV reçus",
                "duration_bonus": f"{amount:+d} tour(s) d'effet",
                "heal_flat": f"{amount:+d} PV soignés"}.get(kind)  # fmt: skip
        what = what or EFFECTS_FR.get(kind, kind)
        family = "tous les sorts" if m[4] == "*" else f"les sorts de la famille « {m[4]} »"
        return f"magie {m[1]}{NBSP}: {what} sur {family} ({m[5]} en fait partie)"
    if (m := _SELF.match(d)) is not None:
        return f"{m[1]} agit sur son lanceur"
    if (m := _LANDS.match(d)) or (m := _HITS.match(d)):
        return f"{m[1]} touche {m[2]}"
    if (m := _DEFENDER_CAST.match(d)) is not None:
        return (f"{m[1]}{NBSP}: un sort lancé ne manque pas sa cible par défaut{NBSP}; "
                "les deux sorts touchent")  # fmt: skip
    if (m := _NEXT.match(d)) is not None:
        return f"{m[1]} {_de(m[2])}, pendant {_plural(int(m[3]), 'tour')} à partir du suivant"
    if (m := _RUNNING.match(d)) is not None:
        return f"{m[1]} {_de(m[2])}, toujours actif"
    if (m := _EXPIRED.match(d)) is not None:
        return f"effet « {EFFECTS_FR.get(m[1], m[1])} » de {m[2]} terminé, son dernier tour joué"
    if (m := _RELAUNCH.match(d)) is not None:
        return (f"pas de défense {_de(m[1])} à temps{NBSP}: le sort {_de(m[2])} est résolu "
                "sans défense")  # fmt: skip
    for pattern, french in _UNDEFENDED.items():
        if (m := pattern.match(d)) is not None:
            name = m[1]
            return french.replace("{0:de}", _de(name)).replace("{0}", name)
    if (m := _TURN_POST.match(d)) is not None:
        return f"message {m[1]}, {m[2]} a l'initiative (message n°{NBSP}{m[3]})"
    if (m := _REUSED.match(d)) is not None:
        post = f"message {m[1]}{NBSP}: " if m[1] else ""
        cost = f"{NBSP}; {MINUS}{m[5][1:]} PV" if m[5] else ""
        return f"{post}{m[4]} {_de(m[3])} a déjà touché ou visé {m[2]}{cost}"
    return (_damage(d) or _creature_damage(d) or _points(d)) if d else None


def trail_detail_fr(entry: dict[str, Any]) -> str:
    """One trail entry's detail in French (module doc)."""
    d = str(entry.get("detail") or "")
    rule = str(entry.get("rule") or "")
    done = _detail_by_rule(rule, str(entry.get("quantity") or ""), entry.get("value"), d)
    text = done if done is not None else detail_fr(d)
    text = text.replace("égalité : l'égalité touche", "à égalité, le sort touche")
    text = text.replace("égalité : l'égalité est déviée", "à égalité, le sort est dévié")
    text = re.sub(r"strictement supérieure : déviée", "défense plus forte, le sort est dévié", text)
    text = re.sub(r"inférieure : touche", "défense plus faible, le sort touche", text)
    text = re.sub(
        r"défense effective (de |d')(.+?) (-?\d+) contre attaque (-?\d+) : ",
        lambda m: f"défense effective {m[3]} {m[1]}{m[2]} contre attaque {m[4]}, ",
        text,
    )
    if len(re.findall(r"\s:", text)) > 1:  # one colon a sentence: « message 106, … »
        text = re.sub(r"^message (\d+)\s: ", r"message \1, ", text)
    return _minus(_articles(text))


def trail_value_fr(value: Any) -> str:
    """A trail value: effect kinds by their French names, « A → B », the minus sign."""
    if isinstance(value, bool):
        return "oui" if value else "non"
    if isinstance(value, str):
        if value in EFFECTS_FR:
            return EFFECTS_FR[value]
        text = _RUNNING_VALUE.sub(
            lambda m: f"{EFFECTS_FR.get(m[1], m[1])} ({m[2]}, {_plural(int(m[3]), 'tour')})",
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
        quantity = quantity.replace(" : violation « ", " : infraction « ")
        rule = self.rule(t.get("rule"))
        if str(t.get("quantity") or "").endswith(".lines"):
            rule = "longueur du message"  # the count is shown long enough or not (C28)
        return {
            "quantity": _articles(quantity),
            "value": trail_value_fr(t.get("value")),
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
                return f"Liste des sorts du club{NBSP}: {m[1]}, niveau {m[2]}, {effects}"
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
                return f"{head}{NBSP}: sans attaque ({self.rule(a['void_reason'])})"
            return f"{head}: no attack ({self.rule(a['void_reason'])})"
        attack = a.get("attack_value") or a.get("attack_die")
        defense = a.get("effective_defense")
        if self.french:
            result = "touche" if a.get("landed") else "dévié"
            damage = self.num(a.get("damage"))
            return (f"{head}{NBSP}: attaque {self.num(attack)} contre défense "
                    f"{self.num(defense)}, {result}, {damage} {unit}").rstrip()  # fmt: skip
        result = "lands" if a.get("landed") else "deflected"
        text = f"{head}: attack {attack} vs defense {defense}, {result}, {a.get('damage')} {unit}"
        return text.rstrip()

    def _fatigue_attack(self, a: dict[str, Any], unit: str) -> str:
        spell = str(a.get("spell") or "")
        caster, target = str(a.get("attacker")), str(a.get("defender"))
        if not self.french:
            state = "void" if a.get("void_reason") else ("lands" if a.get("landed") else "misses")
            return f"{spell} by {caster} on {target}: {state}, {a.get('damage')} {unit}".rstrip()
        who = f"{spell} {_de(caster)}"
        if a.get("void_reason") == "pending":  # a fatigue initiative, before the defense
            return _articles(f"{who} vise {target}{NBSP}: résolu avec la défense")
        if a.get("void_reason"):
            return _articles(f"{who} sur {target} est sans effet ({self.rule(a['void_reason'])})")
        effects = [self._effect(e, caster, target, unit) for e in a.get("effects_applied") or []]
        effects = [e for e in effects if e]
        base = int(a.get("attack_value") or 0)
        damage = int(a.get("damage") or 0)
        if not a.get("landed"):
            return _articles(f"{who} ne touche pas {target}")
        if base == 0 and damage == 0 and effects:
            return _articles(f"{who}{NBSP}: " + f"{NBSP}; ".join(effects))
        parts = [f"{base} de base"]
        for m in list(a.get("attack_modifiers") or []) + list(a.get("defense_modifiers") or []):
            amount = int(m.get("amount") or 0)
            if amount:
                source = str(m.get("source") or "")
                label = f"magie {source[6:]}" if source.startswith("magic:") else source
                parts.append(f"{label} {self.num(amount, signed=True)}")
        if damage == 0 and base > 0:
            parts.append("jamais moins de 0")
        detail = f" ({', '.join(parts)})" if len(parts) > 1 else ""
        text = f"{who} touche {target}{NBSP}: {damage} {unit}{detail}"
        if effects:
            text += f"{NBSP}; " + f"{NBSP}; ".join(effects)
        return _articles(text)

    def _effect(self, e: dict[str, Any], caster: str, target: str, unit: str) -> str:
        bearer = caster if e.get("applies") == "caster" else target
        turns = int(e.get("duration") or 0)
        during = f"pendant {_plural(turns, 'tour')}" if turns else ""
        amount = int(e.get("amount") or 0)
        kind = str(e.get("type") or "")
        if kind == "ward":
            return (f"à partir du tour suivant, {during}, chaque sort qui touche {bearer} lui "
                    f"fait {amount} {unit} de moins")  # fmt: skip
        if kind == "damage_over_time":
            return f"à partir du tour suivant, {during}, {bearer} perd {amount} {unit} par tour"
        if kind in ("no_attack", "no_dodge"):
            return f"{bearer} {EFFECTS_FR[kind]} au tour suivant"
        if kind == "heal":
            return f"{bearer} regagne {amount} {unit}"
        return EFFECTS_FR.get(kind, "effet décrit par l'arbitre")

    # -- duel words -------------------------------------------------------------------------
    def roller(self, source: object) -> str:
        """Who rolled a die (C33): « l'arbitre (bot) », « le forum »; English as stored."""
        raw = str(source or "")
        if not self.french:
            return raw
        return {"bot": "l'arbitre (bot)", "forum": "le forum"}.get(raw, raw)

    def task_subject(self, subject: object) -> str:
        """A referee task's subject in one sentence (C36): « Aurora Vexley tente : le
        cadran » -> « Aurora Vexley tente d'actionner le cadran »."""
        raw = str(subject or "")
        if not self.french:
            return raw
        return re.sub(r"^(.+?) tente : (.+)$", r"\1 tente d'actionner \2", raw)

    def unit(self, ruleset: object) -> str:
        """The points' unit of a ruleset (« PD », « PV »); ``""`` when it does not load."""
        return _unit(str(ruleset or ""))

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
        return RULESETS_FR.get(raw, raw) if self.french else raw

    def winners(self, winner: object) -> str:
        """« Vainqueur : A » or « Vainqueurs : A et B » (a duo is stored « A & B »; C31)."""
        names = [n.strip() for n in str(winner or "").split(" & ") if n.strip()]
        if not self.french:
            return f"Winner{'s' if len(names) > 1 else ''}: {' & '.join(names)}"
        label = "Vainqueurs" if len(names) > 1 else "Vainqueur"
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " et " + names[-1]
        return f"{label}{NBSP}: {joined}"

    def progress(self, status: object, turn: object) -> str:
        """A duel's turn in the duels list (beside its status): « tour 3 en cours » while
        running, « tour 10, le dernier » when finished (the last turn players read, not the
        count of complete turns; W20, C44)."""
        n = int(str(turn or 0))
        if status == "finished":
            return f"tour {n}, le dernier" if self.french else f"turn {n}, the last"
        if status == "running":
            return f"tour {n + 1} en cours" if self.french else f"turn {n + 1} under way"
        return self.turn(n) if n else ""


__all__ = ["EFFECTS_FR", "PageWords", "trail_detail_fr", "trail_value_fr"]


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
