"""The template context of a 2v2 declaration (``duo_turn.bbcode.j2``): posts, attacks, events,
the points' balance that adds up, the zones, the creatures and who must post next.

Pure of I/O: built from the step's :class:`rules.duo.DuoOutcome` and the state before it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from forumbot.duels.balance import balances, duo_changes, spell_label
from forumbot.duels.decisions import referee_decisions
from forumbot.duels.duo_board import REWARD_FR, duo_settings
from forumbot.duels.fatigue_posts import ACTION_FR
from forumbot.publish.labels import caster_effects, effect_bonuses
from forumbot.storage.records import Duel
from rules.duo import (
    DuoOutcome,
    DuoPost,
    DuoState,
    Environment,
    expected_posters,
    resolve_target,
)
from rules.fatigue import FatigueRuleset
from rules.model import TrailEntry


def turn_context(
    rs: FatigueRuleset,
    env: Environment,
    duel: Duel,
    before: DuoState,
    posts: list[DuoPost],
    dice: dict[int, tuple[int, ...]],
    outcome: DuoOutcome,
    referee_name: str,
    *,
    dice_source: str = "bot",
) -> dict[str, Any]:
    """Template context of a 2v2 declaration (stored with the draft, ``duo_state`` included).
    ``dice_source`` ``"forum"``: the « Pari » dice are the forum's; the seed revealed at the
    end then covers only the placement and the rewards (each reward line names its draw)."""
    after = outcome.state
    attacks = [a.to_dict() for a in outcome.attacks]
    events = [asdict(e) for e in outcome.events]
    violations = [v.to_dict() for v in outcome.violations]
    decisions = referee_decisions(
        {"trail": [t.to_dict() for t in outcome.trail if isinstance(t, TrailEntry)]}
    )
    creature_keys = {k for k, _ in after.creatures}
    for d in decisions:  # a number set on a creature names it as players read it
        if d["name"] in creature_keys:
            d["name"] = env.creature(d["name"]).name
    effects_before = {d.name: [e.to_dict() for e in d.effects] for d in before.duel.duellists}
    for e in events:  # a lasting loss names its spell and caster (issue 25)
        if e["kind"] == "damage_over_time":
            running = [x for x in effects_before.get(e["who"], [])
                       if x.get("type") == "damage_over_time"]  # fmt: skip
            e["label"] = ", ".join(
                spell_label(str(x.get("source")), str(x.get("caster") or "?"))
                for x in running
            )
    _creature_parts(env, after, events, {d["quantity"] for d in decisions})
    zone_names = {z.key: f"{env.zone_number(z.key)} ({z.name})" for z in env.zones}
    held: dict[str, list[str]] = {}
    for n, k in after.inventory:
        held.setdefault(n, []).append(env.item(k).name)
    return {
        "title": duel.title,
        "turn": before.duel.turn + 1,
        "unit": rs.unit,
        "dice_name": rs.dice_name,
        "posts": [
            {
                "duellist": p.post.duellist,
                "post_id": p.post.post_id,
                "zone": zone_names[before.zone_of(p.post.duellist)],
                "action": ACTION_FR.get(
                    p.post.kind or ("cast" if p.post.spell else ""), "aucune action"
                ),
                "spell": p.post.spell or p.post.spell_text,
                "target": p.post.target,
                "die": (outcome.dice.get(p.post.post_id) or dice[p.post.post_id])[0],
                "kind": p.post.kind or ("cast" if p.post.spell else None),
                "bet": list(p.post.bet) if p.post.bet else None,
                "bet_won": _bet_won(outcome, p.post.duellist),
                # « Cible : moi » is the player's word: the declaration names no target then
                "self_target": resolve_target(p.post.target, p.post.duellist, before, env).kind
                == "self",
                # why a post without a spell casts none: the running no_attack effects
                "barred_by": [
                    spell_label(str(x.get("source")), str(x.get("caster") or "?"))
                    for x in effects_before.get(p.post.duellist, [])
                    if x.get("type") == "no_attack"
                ],
            }
            for p in posts
        ],
        "attacks": attacks,
        "events": events,
        # Who had posted before this step: a spell at them resolves without their defense.
        "posted_before": list(before.posted),
        "effects": _effects(after),
        # the turns a caster's magic type adds to a running effect (issue 25, reader4 W2)
        "bonuses": effect_bonuses(
            rs,
            {d.name: list(d.magic_types) for d in after.duel.duellists},
            [e for list_ in _effects(after).values() for e in list_],
        ),
        "balance": balances(
            {d.name: d.points for d in before.duel.duellists},
            {d.name: d.points for d in after.duel.duellists},
            duo_changes(attacks, events, violations, effects_before),
            decided=[d["quantity"] for d in decisions],
        ),
        "hours": int(rs.setting("timeout_2v2_hours")),
        "violations": violations,
        "duellists": [
            {
                "name": d.name,
                "points": d.points,
                "zone": zone_names[after.zone_of(d.name)],
                "held": held.get(d.name, []),
                "disqualified": d.disqualified,
            }
            for d in after.duel.duellists
        ],
        "decisions": decisions,
        # PV before the step too: a creature's loss is written as a sum (reader2 C6); the
        # damage dealt too: a kill beyond its PV reads « 40 − 51, ramené à 0 PV » (reader7 C1)
        "creatures": [
            {"name": env.creature(k).name, "pv": pv, "before": dict(before.creatures).get(k, pv),
             "dealt": sum(int(e["amount"] or 0) for e in events
                          if e["kind"] == "creature_hit" and e["target"] == env.creature(k).name),
             # set by the referee: no sum the dice did not make (the decision is stated)
             "decided": any(d["quantity"] == f"{k}.points" for d in decisions)}
            for k, pv in after.creatures
        ],
        # what a spell cast on its caster does and from when (reader2 C4, as in 1v1)
        "caster_effects": {
            f"{e['who']}|{e['detail']}": caster_effects(
                rs, _types(before, e["who"]), str(e["detail"])
            )
            for e in events
            if e["kind"] == "self_cast" and not e.get("void")
        },
        "zone_names": zone_names,
        "reward_fr": REWARD_FR,
        # a reward draw names its source as the environment writes it (reader3: no key)
        "reward_sources": {
            **{f"creature:{c.key}": c.name for c in env.creatures},
            **{f"mechanism:{m.key}": m.name for m in env.mechanisms},
        },
        # How each creature's ability reads (armour: damage absorbed; regenerate: PV back).
        "abilities": {c.name: c.ability.kind for c in env.creatures},
        "entered": [list(e) for e in outcome.entered],
        "together": after.all_together() and not outcome.finished,
        "expected": list(expected_posters(after)),
        "finished": outcome.finished,
        "winners": list(outcome.winners),
        "losers": list(outcome.losers),
        "win_galleons": duo_settings().win_galleons,
        "stakes": duel.stakes,
        "dice_source": dice_source,
        "dice_secret": duel.dice_secret if outcome.finished else None,
        "referee_name": referee_name,
        "duo_state": after.to_dict(),
    }


def _effects(after: DuoState) -> dict[str, list[dict[str, Any]]]:
    """« Effets en cours »: each standing duellist's running effects, then those cast this
    turn, which start with the next turn (``starts``: its number) and are listed from the
    post where they land, as in 1v1 (reader after issue 25, C4)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for d in after.duel.duellists:
        if d.points > 0:
            out[d.name] = [e.to_dict() for e in d.effects]
    for name, e in after.incoming:
        if name in out:
            # duel.turn counts the closed turns: the next one is turn + 2
            out[name].append({**e.to_dict(), "starts": after.duel.turn + 2})
    return {name: list_ for name, list_ in out.items() if list_}


def _creature_parts(
    env: Environment, after: DuoState, events: list[dict[str, Any]], decided: set[str]
) -> None:
    """Give each ``creature_hit`` event the ``parts`` of its damage, ``[(source, PV)]`` after
    its ``base`` (``magic:<type>`` for the caster's magic types, the armour's name), when they
    change it and the referee did not set the damage: « 36 PV de dégâts au strangulot (33 de
    base, magie brutale +3) » (reader after issue 25, W8)."""
    armour = {c.name: (c.ability.name, c.ability.amount) for c in env.creatures
              if c.ability.kind == "armour"}  # fmt: skip
    for e in events:
        if e["kind"] != "creature_hit" or e.get("base") is None or f"{e['who']}.damage" in decided:
            continue
        if int(e["amount"]) <= 0:  # all absorbed: the armour line says so
            continue
        name, absorbed = armour.get(str(e["target"]), ("", 0))
        typed = int(e["amount"]) + absorbed - int(e["base"])
        parts: list[tuple[str, int]] = []
        if typed:
            types = after.duel.duellist(str(e["who"])).magic_types
            parts.append(("magic:" + " et ".join(types), typed))
        if absorbed:
            parts.append((name, -absorbed))
        e["parts"] = parts


def _bet_won(outcome: DuoOutcome, name: str) -> bool | None:
    """Whether ``name``'s bet of this step was won (the trail's ``<name>.bet_won``)."""
    won = None
    for t in outcome.trail:
        if isinstance(t, TrailEntry) and t.quantity == f"{name}.bet_won":
            won = bool(t.value)
    return won


__all__ = ["turn_context"]


def _types(state: DuoState, name: str) -> list[str]:
    """The magic-type keys of duellist ``name`` (for :func:`caster_effects`)."""
    return list(state.duel.duellist(name).magic_types)
