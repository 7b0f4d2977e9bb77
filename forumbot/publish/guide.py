"""The players' guide post (issue 25, `forumbot guide`): a ruleset file rendered as one French
BBCode post, always from the file: the allowed spells with their effects, levels and the years
that know them, the bets, the post format with one example post, and the deadlines.

``classic`` and ``fatigue`` are ruleset files (``rules/data/*.toml`` or a club's own path);
``duo`` is the two-against-two game, played under the fatigue ruleset with its 48 h clock and
the ``Cible :`` / ``Déplacement :`` lines. The text goes through the renderer's checks (the
BBCode checker and the French lint of :mod:`forumbot.publish.checks`); :func:`render_guide`
raises when they find a problem, so a guide that would read badly is never printed or posted.
"""

from __future__ import annotations

from typing import Any

from forumbot.publish.checks import bbcode_problems, french_problems
from forumbot.publish.guide_rules import (
    classic_turn_rules,
    duo_zone_rules,
    effect_fr,
    fatigue_bet_rules,
    fatigue_end_rules,
    fatigue_turn_rules,
    fatigue_violation_rules,
)
from forumbot.publish.labels import spell_family, year_label
from forumbot.publish.render import Trusted, render
from forumbot.rulesets import load_ruleset
from rules.duo import load_duo_settings
from rules.ruleset import Ruleset, Spell, ruleset_path

ACTIONS_FR = {
    "cast": "lancer un sort", "dodge": "esquiver", "dodge_riposte": "esquiver et riposter",
}  # fmt: skip


def _spell(rs: Ruleset, spell: Spell) -> dict[str, Any]:
    years = [y for y, top in rs.known_levels.items() if top is None or spell.level <= top]
    effects = [e for e in (effect_fr(x, rs) for x in spell.effects) if e]
    return {
        "name": spell.name, "level": spell.level, "family": spell_family(spell),
        "effects": effects, "first_year": year_label(years[0]) if years else None,
        "max_casts": spell.max_casts,
    }  # fmt: skip


def _rules(rs: Ruleset, duo: bool, platform: str | None) -> dict[str, list[Trusted]]:
    """The guide's rule sections, each a list of sentences from the ruleset's settings
    (:mod:`forumbot.publish.guide_rules`): ``turn``, ``bets``, ``violations``, ``zones``,
    ``end`` (empty lists where the game has none)."""
    if rs.engine != "fatigue":
        return {"turn": classic_turn_rules(rs, platform), "bets": [], "violations": [],
                "zones": [], "end": []}  # fmt: skip
    # 2v2: the shipped duo.toml, read as forumbot.duels.duo_board.duo_settings reads it
    settings = (
        load_duo_settings((ruleset_path("fatigue").parent / "duo.toml").read_text("utf-8"))
        if duo
        else None
    )
    together = int(getattr(settings, "posts_per_declaration_together", 2))
    return {
        "turn": fatigue_turn_rules(rs, duo, together),
        "bets": fatigue_bet_rules(rs),
        "violations": fatigue_violation_rules(rs, duo),
        "zones": duo_zone_rules(rs, settings) if duo else [],
        "end": fatigue_end_rules(rs, duo, settings),
    }


def guide_context(name: str, platform: str | None = None) -> dict[str, Any]:
    """The template context of the guide of ruleset ``name`` (``classic``, ``fatigue``,
    ``duo`` or a ruleset file's path); ``platform`` (``phpbb3``, ``forumactif`` or None: both)
    says who rolls the classic dice. Raises what :func:`load_ruleset` raises."""
    duo = name == "duo"
    rs = load_ruleset("fatigue" if duo else name)
    fatigue = rs.engine == "fatigue"
    bets = getattr(rs, "bets", {}) if fatigue else {}
    hours = int(rs.setting("timeout_2v2_hours" if duo else "timeout_1v1_hours")) if fatigue else 0
    return {
        "kind": "duo" if duo else ("fatigue" if fatigue else "classic"),
        "rules": _rules(rs, duo, platform),
        "unit": rs.unit,
        "dice_name": rs.dice_name,
        "dice_per_post": rs.dice_per_post,
        "dice_faces": rs.dice_faces,
        "years": [{"label": year_label(y), "points": p} for y, p in rs.starting_points.items()],
        "levels": [{"label": year_label(y), "top": top} for y, top in rs.known_levels.items()],
        "spells": [_spell(rs, s) for s in rs.spells],
        "bets": [
            {"action": ACTIONS_FR.get(k, k), "choices": [list(c) for c in v]}
            for k, v in bets.items()
        ],  # fmt: skip
        "min_lines": int(rs.setting("min_lines")) if fatigue else 0,
        "hours": hours,
        "relaunches": int(rs.setting("relaunches_without_initiative")) if fatigue else 0,
        "reminder_hours": int(rs.setting("owl_reminder_hours")) if fatigue else 0,
        "house_rules": [
            {"name": h.name, "description": h.description} for h in rs.house_rules.values()
        ],  # fmt: skip
        # what a magic type is and which family each changes (issue 25, reader2 C19)
        "magic_types": [
            {"label": t.label, "traits": t.traits,
             "modifiers": [_guide_modifier(m) for m in t.modifiers]}
            for t in getattr(rs, "magic_types", {}).values()
        ] if fatigue else [],  # fmt: skip
        # a type that lengthens a family's effects: the spell list gives the spellbook's
        # durations, the declaration the one applied (issue 25, reader4 W2)
        "duration_types": [
            t.label.lower() for t in getattr(rs, "magic_types", {}).values()
            if any(m.kind == "duration_bonus" for m in t.modifiers)
        ] if fatigue else [],  # fmt: skip
        "example_spell": next(
            (s.name for s in rs.spells if spell_family(s) == "attaque"),
            rs.spells[0].name if rs.spells else "",
        ),  # fmt: skip
    }


def _guide_modifier(mod: Any) -> Trusted:
    """A magic-type modifier for the guide, one clause addressed to everyone (the owl's
    :func:`describe_modifier` speaks to one duellist): « +10 % de dégâts pour ses sorts de la
    famille « attaque » »."""
    fam = "" if mod.family == "*" else f" de la famille « {mod.family} »"
    mine = "tous ses sorts" if mod.family == "*" else f"ses sorts{fam}"
    v = int(mod.value)
    if mod.kind == "damage_percent":
        return Trusted(f"{v:+d} % de dégâts pour {mine}")
    if mod.kind == "damage_flat":
        return Trusted(f"{v:+d} PV de dégâts pour {mine}")
    if mod.kind == "damage_taken_flat":
        theirs = "tous les sorts" if mod.family == "*" else f"les sorts{fam}"
        return Trusted(f"{v:+d} PV de dégâts subis pour {theirs} qui le touchent")
    if mod.kind == "duration_bonus":
        turns = abs(v)
        length = "d'un tour" if turns == 1 else f"de {turns} tours"
        return Trusted(f"effets {'prolongés' if v > 0 else 'raccourcis'} {length} pour {mine}")
    return Trusted(f"soins {v:+d} PV pour {mine}")


class GuideError(ValueError):
    """The rendered guide failed the BBCode checker or the French lint (the problems)."""


def render_guide(name: str, language: str = "fr", platform: str | None = None) -> str:
    """The guide post of ruleset ``name`` as BBCode (template ``guide.bbcode.j2``), for the
    board's ``platform`` (see :func:`guide_context`).

    Raises:
        GuideError: the BBCode checker or the French lint found a problem.
        FileNotFoundError, rules.errors.RuleError: the ruleset does not load.
    """
    text = render("guide.bbcode.j2", guide_context(name, platform), language)
    problems = bbcode_problems(text) + french_problems(text)
    if problems:
        raise GuideError("; ".join(problems))
    return text


def guide_key(board_id: int, name: str, topic_id: int) -> str:
    """Idempotency key of a guide post (one per board, ruleset and topic)."""
    return f"b{board_id}t{topic_id}-guide-{name.rsplit('/', 1)[-1].removesuffix('.toml')}"


__all__ = ["GuideError", "effect_fr", "guide_context", "guide_key", "render_guide"]
