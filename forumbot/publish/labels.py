"""French labels and key tokens shared by the club, the flows and the owls: name slugs for
idempotency keys, year and magic-type labels, magic-type modifiers described for players."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from forumbot.publish.render import Trusted
from parsers.registration import fold
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset, MagicModifier
from rules.fatigue.effects import SpellFamily
from rules.ruleset import Spell


def slug(name: str) -> str:
    """An ASCII token for idempotency keys (``"Aurora Vexley"`` -> ``"aurora-vexley"``)."""
    return re.sub(r"[^a-z0-9]+", "-", fold(name)).strip("-") or "x"


def year_label(year: str) -> str:
    """``"1"`` -> ``"1re année"``, ``"5"`` -> ``"5e année"``, ``"adult"`` -> ``"adulte"``,
    ``"7+"`` (classic: seed 000 « Septième année et + ») -> ``"7e année et au-delà"``."""
    if year == "adult":
        return "adulte"
    if year.endswith("+"):
        return f"{year[:-1]}e année et au-delà"
    return f"{year}{'re' if year == '1' else 'e'} année"


def types_label(ruleset: FatigueRuleset, types: Sequence[str]) -> str:
    """``("brutale", "discrete")`` -> ``"brutale et discrète"``."""
    labels = [ruleset.magic_type(t).label.lower() for t in types]
    return " et ".join(labels)


def describe_modifier(mod: MagicModifier) -> str:
    """A magic-type modifier in French, for the owl (club's table, ``rules/data/fatigue.toml``)."""
    scope = "tous tes sorts" if mod.family == "*" else f"tes sorts de la famille « {mod.family} »"
    if mod.kind == "damage_percent":
        return f"{scope} : {mod.value:+d} % de dégâts"
    if mod.kind == "damage_flat":
        return f"{scope} : {mod.value:+d} PV de dégâts"
    if mod.kind == "damage_taken_flat":
        target = "tous les sorts" if mod.family == "*" else f"les sorts « {mod.family} »"
        return f"{target} qui te touchent : {mod.value:+d} PV de dégâts subis"
    if mod.kind == "duration_bonus":
        turns = abs(mod.value)
        length = "d'un tour" if turns == 1 else f"de {turns} tours"
        return f"{scope} : effets {'prolongés' if mod.value > 0 else 'raccourcis'} {length}"
    return f"{scope} : soins {mod.value:+d} PV"


def spell_family(spell: Spell) -> str | None:
    """The family a spell's ``spell_family`` effect gives it (None: no family), the one the
    magic-type modifiers look at (``rules/data/fatigue.toml``)."""
    return next((e.family for e in spell.effects if isinstance(e, SpellFamily)), None)


def modifier_spells(ruleset: FatigueRuleset, mod: MagicModifier) -> list[str]:
    """The names of the ruleset's spells ``mod`` concerns, in spellbook order (issue 25: the
    owl says which spells count, so « tes sorts d'attaque » is not read as every spell that
    hurts; Confringo is of the family « feu »)."""
    return [s.name for s in ruleset.spells if mod.concerns(spell_family(s))]


def modifier_scope(ruleset: FatigueRuleset, mod: MagicModifier) -> Trusted:
    """One French sentence naming the spells a modifier concerns, for the magic-type owl:
    ``"Sorts concernés (famille « attaque ») : Stupéfix, Expelliarmus et Sectumsempra."``;
    every spell for family ``"*"``; a family with no spell in the spellbook is said so.
    :class:`~forumbot.publish.render.Trusted` (the bot's words, from the club's ruleset file):
    the renderer typesets it like a template's own text (issue 25, reader T1)."""
    # issue 25, reader2 C11: the percent bonus is rounded down (rules.fatigue.applying: ``//``)
    rounding = (
        " Les dégâts ajoutés sont arrondis à l'unité inférieure "
        f"({abs(mod.value)} % de 29 PV font {29 * abs(mod.value) // 100} PV)."
        if mod.kind == "damage_percent"
        else ""
    )
    if mod.family == "*":
        return Trusted("Cela vaut pour tous les sorts." + rounding)
    names = modifier_spells(ruleset, mod)
    if not names:
        return Trusted(f"Aucun sort de la liste du club n'est de la famille « {mod.family} ».")
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " et " + names[-1]
    word = "Sort concerné" if len(names) == 1 else "Sorts concernés"
    return Trusted(f"{word} (famille « {mod.family} ») : {listed}.{rounding}")


def spell_modified(ruleset: FatigueRuleset, attacker: Sequence[str], defender: Sequence[str],
                    spell: str) -> bool:  # fmt: skip
    """True when a magic-type modifier changes the PV ``spell`` deals: a ``damage_percent``
    or ``damage_flat`` of the attacker's types (``attacker``: type keys), or a
    ``damage_taken_flat`` of the defender's, concerns the spell's family. A declaration says
    « avant modificateurs » only then (issue 25)."""
    found = next((s for s in ruleset.spells if s.name == spell), None)
    if found is None:
        return False
    family = spell_family(found)
    for keys, kinds in ((attacker, ("damage_percent", "damage_flat")),
                        (defender, ("damage_taken_flat",))):  # fmt: skip
        for key in keys:
            try:
                mods = ruleset.magic_type(key).modifiers
            except RuleError:
                continue
            if any(m.kind in kinds and m.concerns(family) for m in mods):
                return True
    return False


RULE_NAMES: dict[str, tuple[str, str]] = {
    "resolution": ("résolution du tour", "turn resolution"),
    "dice": ("dés", "dice"),
    "spellbook": ("liste des sorts", "spell list"),
    "deflect": ("déviation", "deflection"),
    "ties": ("égalités", "ties"),
    "damage": ("dégâts", "damage"),
    "end": ("fin du duel", "end of the duel"),
    "double_ko": ("double K.-O.", "double knock-out"),
    "start": ("top de départ", "start signal"),
    "cast_before_start": ("sort avant le top", "spell before the start"),
    "repeated_spell": ("sort répété", "repeated spell"),
    "reused_spell": ("sort réutilisé", "reused spell"),
    "missing_spell": ("sort manquant", "missing spell"),
    "unlisted_spell": ("sort hors liste", "unlisted spell"),
    "unknown_spell": ("sort inconnu", "unknown spell"),
    "spell_above_level": ("sort au-dessus du niveau", "spell above the year's level"),
    "barred": ("attaque interdite", "attack barred"),
    "barred_action": ("action interdite", "barred action"),
    "barred_attacking_spell": ("sort d'attaque interdit", "barred attacking spell"),
    "void_defense": ("défense sans attaque", "defense without attack"),
    "no_floor": ("défense sans plancher", "defense without floor"),
    "defense_modifier": ("modificateur de défense", "defense modifier"),
    "extra_damage": ("dégâts supplémentaires", "extra damage"),
    "shield": ("bouclier", "shield"),
    "counter_spell": ("contre-sort", "counter-spell"),
    "cancelled": ("sort annulé", "spell cancelled"),
    "advantage": ("avantage", "advantage"),
    "effects_expire": ("fin des effets", "effects expire"),
    "effects_pending": ("effets en cours", "pending effects"),
    "effects": ("effets", "effects"),
    "override": ("décision de l'arbitre", "referee's decision"),
    "initiative": ("initiative", "initiative"),
    "initiative_not_cast": ("initiative sans sort", "initiative without a spell"),
    "first_declaration": ("première déclaration", "first declaration"),
    "second_declaration": ("deuxième déclaration", "second declaration"),
    "defense": ("défense", "defense"),
    "relaunch": ("relance", "relaunch"),
    # 2v2 (issue 25, reader2 W5): no defense although no deadline passed; a later post's cast
    "undefended": ("sans défense", "undefended"),
    "turn_post": ("message du tour", "turn post"),
    "dodge": ("esquive", "dodge"),
    "undodgeable": ("sort inesquivable", "undodgeable spell"),
    "riposte": ("riposte", "riposte"),
    "riposte_failed": ("riposte manquée", "riposte failed"),
    "cast": ("lancer de sort", "spell cast"),
    "defender_cast": ("sort du défenseur", "defender's spell"),
    "bet": ("pari", "bet"),
    "invalid_bet": ("pari invalide", "invalid bet"),
    "endure": ("subir", "endure"),
    "no_action": ("aucune action", "no action"),
    "heal": ("soin", "heal"),
    "damage_over_time": ("dégâts sur la durée", "damage over time"),
    "magic_type": ("type de magie", "magic type"),
    "magic_types": ("types de magie", "magic types"),
    "ward": ("protection", "ward"),
    "short_post": ("message trop court", "short post"),
    "late_edit": ("modification tardive", "late edit"),
    "violation": ("violation", "violation"),
    "three_violations": ("trois violations", "three violations"),
    "reuse_memory": ("sorts déjà lancés", "spells already cast"),
    "concede": ("abandon", "concession"),
    "timeout": ("délai dépassé", "timeout"),
    "move_alone": ("déplacement seul", "move alone"),
    "double_target": ("double cible", "double target"),
    "unknown_zone": ("zone inconnue", "unknown zone"),
    "missing_target": ("cible manquante ou ambiguë", "missing or ambiguous target"),
    "cast_limit": ("sort lancé trop de fois", "spell cast too many times"),
    "silent": ("silence au délai", "silent at the deadline"),
    "several_targets": ("plusieurs cibles", "several targets"),
    "missing_move": ("déplacement manquant", "missing move"),
    "same_zone": ("même zone", "same zone"),
    "creature": ("créature", "creature"),
    "creature_ability": ("pouvoir de créature", "creature ability"),
    "creature_missed": ("créature manquée", "creature missed"),
    "mechanism": ("mécanisme", "mechanism"),
    "reward": ("récompense", "reward"),
    "item_used": ("objet utilisé", "item used"),
    "item_taken": ("objet pris", "item taken"),
    "knocked_out": ("hors de combat", "knocked out"),
    "self_cast": ("sort sur soi", "self cast"),
    "turn_closed": ("tour clos", "turn closed"),
    "no_spell": ("aucun sort", "no spell"),
    # the review page showed these codes raw (« extra move »; second reader pass, h-fixweb)
    "extra_move": ("second déplacement du duo", "second move of the duo"),
    "dodge_twice": ("deux esquives de suite", "two dodges in a row"),
}
"""Rule ids and void reasons, by the last part of the id (``classic.repeated_spell`` ->
``repeated_spell``): (French, English) names, for the review page and the notices."""


def rule_label(rule: str, language: str = "fr") -> str:
    """A rule id or void reason as players and referees read it (``repeated_spell`` ->
    ``sort répété``); an unknown id is returned as is."""
    names = RULE_NAMES.get(rule.rsplit(".", 1)[-1])
    if names is None:
        return rule
    return names[0] if language == "fr" else names[1]


def _family_modifiers(
    ruleset: FatigueRuleset, types: Sequence[str], family: str | None
) -> list[tuple[str, MagicModifier]]:
    """(lower-case type label, modifier) of the magic types ``types`` (keys; unknown ones
    skipped) whose modifiers concern ``family``, in file order."""
    out = []
    for key in types:
        try:
            mt = ruleset.magic_type(key)
        except RuleError:
            continue
        out += [(mt.label.lower(), m) for m in mt.modifiers if m.concerns(family)]
    return out


def duration_bonus(ruleset: FatigueRuleset, types: Sequence[str], spell: str) -> dict[str, Any]:
    """The turns the caster's magic types add to each lasting effect of ``spell`` (the sum of
    their ``duration_bonus`` modifiers on its family, as :mod:`rules.fatigue.applying` adds it)
    and the types that give it: ``{"bonus": 1, "by": "protectrice"}`` (``"by"``: labels joined
    with « et »); ``{"bonus": 0, "by": ""}`` for none or an unknown spell."""
    found = next((s for s in ruleset.spells if s.name == spell), None)
    if found is None:
        return {"bonus": 0, "by": ""}
    mods = [(label, m) for label, m in _family_modifiers(ruleset, types, spell_family(found))
            if m.kind == "duration_bonus"]  # fmt: skip
    labels = list(dict.fromkeys(label for label, _ in mods))
    return {"bonus": sum(m.value for _, m in mods), "by": " et ".join(labels)}


def effect_bonuses(
    ruleset: FatigueRuleset,
    types_of: Mapping[str, Sequence[str]],
    effects: Iterable[Mapping[str, Any]],
) -> dict[str, dict[str, Any]]:
    """``"caster|spell"`` -> :func:`duration_bonus` of each running effect (dicts with
    ``caster`` and ``source``, as ``TurnOutcome.effects_next`` stores them) whose caster's
    magic types lengthen or shorten it; ``types_of``: duellist -> magic-type keys. The « Effets
    en cours » lines say it (issue 25, reader4 W2: « magie sournoise +1 tour »)."""
    out: dict[str, dict[str, Any]] = {}
    for e in effects:
        caster, source = e.get("caster"), e.get("source")
        if not caster or not source or caster not in types_of:
            continue
        found = duration_bonus(ruleset, types_of[caster], str(source))
        if found["bonus"]:
            out[f"{caster}|{source}"] = found
    return out


def caster_effects(
    ruleset: FatigueRuleset, types: Sequence[str], spell: str
) -> list[dict[str, Any]]:
    """What a spell cast on its caster will do, as the engine applies it
    (:mod:`rules.fatigue.applying`): ``{"kind": "ward", "amount": PV less per spell taken,
    "turns": turns it lasts (the spellbook's duration plus the caster's magic-type
    ``duration_bonus``, at least 1), "base": the spellbook's duration, "bonus": turns - base,
    "by": the magic types giving it}`` and ``{"kind": "heal", "amount": PV given back (plus
    ``heal_flat``)}``; other caster effects by kind with their turns. Empty for an unknown
    spell. RULES.md Fine points (fatigue): « a spell's effect starts with the next turn [...]
    and lasts its spellbook duration in turns »; a heal is given when the spell is cast."""
    found = next((s for s in ruleset.spells if s.name == spell), None)
    if found is None:
        return []
    family = spell_family(found)
    mods = [m for _, m in _family_modifiers(ruleset, types, family)]
    by = duration_bonus(ruleset, types, spell)["by"]
    out: list[dict[str, int | str]] = []
    for e in found.effects:
        if getattr(e, "applies", "target") != "caster":
            continue
        amount = int(getattr(e, "amount", 0) or 0)
        if e.kind == "heal":
            bonus = sum(m.value for m in mods if m.kind == "heal_flat")
            out.append({"kind": "heal", "amount": amount + bonus})
            continue
        bonus = sum(m.value for m in mods if m.kind == "duration_bonus")
        base = int(getattr(e, "duration", 1) or 1)
        turns = max(1, base + bonus)
        out.append({"kind": e.kind, "amount": amount, "turns": turns, "base": base,
                    "bonus": turns - base, "by": by if turns != base else ""})  # fmt: skip
    return out
