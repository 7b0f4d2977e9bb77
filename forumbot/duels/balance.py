"""Every PV or PD change of a declaration, listed so that it adds up (issue 25).

A good referee writes « Cassius Thorne : 40 − 34 (Stupéfix d'Aurora Vexley) − 10
(Sectumsempra d'Aurora Vexley, effet en cours) = −4 PV », not « −4 PV » alone: a loss
carried from an earlier turn (Incendio's 5 PV a turn) is named like the spell of this turn.

:func:`balances` builds, per duellist, the points before the declaration, the changes it
records (each an amount and a French label) and the points after. The changes come from the
engine's outcome (spells that landed, lasting effects, creatures, items, rewards, applied
violations); whatever remains between them and the new total (a referee's set total, a
change the engine gives no detail for) is one more line, « décision de l'arbitre » when the
referee set that total, else « autres effets », so the listed changes always add up to the
new totals. The template prints them through ``_points.bbcode.j2``; the French lint checks the
sums (:func:`forumbot.publish.checks.balance_problems`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from forumbot.publish.render import ELIDING_INITIALS, of_name


def _de(name: str) -> str:
    return f"d'{name}" if name.startswith(ELIDING_INITIALS) else f"de {name}"


Change = tuple[int, str]
"""One change: signed amount (PV or PD) and its French label (« Stupéfix d'Aurora Vexley »)."""


def balances(
    before: Mapping[str, int],
    after: Mapping[str, int],
    changes: Mapping[str, Iterable[Change]],
    *,
    decided: Iterable[str] = (),
) -> dict[str, dict[str, Any]]:
    """``{name: {"start", "changes": [{"amount", "label"}], "end"}}`` for every duellist of
    ``after`` (module doc). ``decided``: the trail quantities the referee set
    (``"Aurora Vexley.points"``). Zero amounts are left out."""
    set_by_referee = set(decided)
    out: dict[str, dict[str, Any]] = {}
    for name, end in after.items():
        start = int(before.get(name, end))
        if f"{name}.points" in set_by_referee:  # the total is the referee's: it says so
            out[name] = {"start": start, "changes": [], "end": int(end)}
            continue
        items = [
            {"amount": int(a), "label": label} for a, label in changes.get(name, ()) if int(a)
        ]
        rest = int(end) - start - sum(i["amount"] for i in items)
        if rest:
            label = (
                "décision de l'arbitre"
                if f"{name}.points" in set_by_referee
                else "autres effets"
            )
            items.append({"amount": rest, "label": label})
        out[name] = {"start": start, "changes": items, "end": int(end)}
    return out


def spell_label(spell: str | None, caster: str, *, lasting: bool = False) -> str:
    """« Stupéfix d'Aurora Vexley », « Sectumsempra d'Aurora Vexley, effet en cours »."""
    what = f"{spell} {_de(caster)}" if spell else f"sort {_de(caster)}"
    return f"{what}, effet en cours" if lasting else what


def classic_changes(outcome: Mapping[str, Any]) -> dict[str, list[Change]]:
    """The PD each duellist lost to the spells that landed in a classic turn."""
    out: dict[str, list[Change]] = {}
    for a in outcome.get("attacks", []):
        if a.get("landed") and a.get("damage"):
            out.setdefault(a["defender"], []).append(
                (-int(a["damage"]), spell_label(a.get("spell"), a["attacker"]))
            )
    return out


def fatigue_changes(
    outcome: Mapping[str, Any], state_before: Mapping[str, Any]
) -> dict[str, list[Change]]:
    """The PV changes of a fatigue 1v1 step: spells that landed (their damage, heals from the
    trail), lasting damage running this step (``damage_over_time`` trail entries, named by
    the effect's spell and caster from the state before) and applied violations."""
    out: dict[str, list[Change]] = {}
    for a in outcome.get("attacks", []):
        if a.get("landed") and a.get("damage"):
            out.setdefault(a["defender"], []).append(
                (-int(a["damage"]), spell_label(a.get("spell"), a["attacker"]))
            )
    effects = {
        d["name"]: [e for e in d.get("effects", []) if e.get("type") == "damage_over_time"]
        for d in state_before.get("duellists", [])
    }
    for entry in outcome.get("trail", []):
        quantity = str(entry.get("quantity", ""))
        name, _, what = quantity.rpartition(".")
        if what == "damage_over_time" and entry.get("value"):
            amount = int(entry["value"])
            running = next((e for e in effects.get(name, []) if int(e.get("amount", 0)) == amount),
                           None)  # fmt: skip
            label = (
                spell_label(running.get("source"), str(running.get("caster") or ""), lasting=True)
                if running and running.get("caster")
                else "effet en cours"
            )
            if running:
                effects[name].remove(running)
            out.setdefault(name, []).append((-amount, label))
        elif what == "heal" and entry.get("value"):
            out.setdefault(name, []).append((int(entry["value"]), "soin"))
    for v in outcome.get("violations", []):
        if v.get("status") == "applied" and v.get("penalty"):
            out.setdefault(v["duellist"], []).append((-int(v["penalty"]), "infraction"))
    return out


def duo_changes(
    attacks: Iterable[Mapping[str, Any]],
    events: Iterable[Mapping[str, Any]],
    violations: Iterable[Mapping[str, Any]],
    before_effects: Mapping[str, list[Mapping[str, Any]]],
    reward_pv: Iterable[str] = ("pv",),
) -> dict[str, list[Change]]:
    """The PV changes of a 2v2 step, from its attacks, events (lasting damage, creatures'
    abilities, items, PV rewards) and applied violations. ``before_effects``: each
    duellist's lasting effects before the step (to name a lasting loss by its spell)."""
    out: dict[str, list[Change]] = {}
    for a in attacks:
        if a.get("landed") and a.get("damage"):
            out.setdefault(a["defender"], []).append(
                (-int(a["damage"]), spell_label(a.get("spell"), a["attacker"]))
            )
    pv_kinds = set(reward_pv)
    for e in events:
        kind, who, amount = e.get("kind"), e.get("who"), int(e.get("amount") or 0)
        if not who or not amount:
            continue
        if kind == "damage_over_time":
            running = [
                x for x in before_effects.get(who, []) if x.get("type") == "damage_over_time"
            ]
            if len(running) == 1 and running[0].get("caster"):
                label = spell_label(running[0].get("source"), str(running[0]["caster"]),
                                    lasting=True)  # fmt: skip
            elif running:
                label = ", ".join(str(x.get("source")) for x in running) + ", effets en cours"
            else:
                label = "effet en cours"
            out.setdefault(who, []).append((-amount, label))
        elif kind == "creature_ability":
            # « Sève acide de la tentacula vénéneuse » (reader after issue 25, C5)
            owner = of_name(str(e.get("target")))
            out.setdefault(who, []).append((-amount, f"{e.get('detail')} {owner}"))
        elif kind == "reward" and e.get("detail") in pv_kinds:
            out.setdefault(who, []).append((amount, "récompense"))
        elif kind == "item_used" and e.get("detail") == "heal":
            out.setdefault(who, []).append((amount, str(e.get("target"))))
        elif kind == "item_used" and str(e.get("detail", "")).startswith("damage:"):
            hit = str(e["detail"])[7:]
            if hit and hit != "-":
                out.setdefault(hit, []).append((-amount, f"{e.get('target')} {_de(who)}"))
    for v in violations:
        if v.get("status") == "applied" and v.get("penalty"):
            out.setdefault(v["duellist"], []).append((-int(v["penalty"]), "infraction"))
    return out


__all__ = ["Change", "balances", "classic_changes", "duo_changes", "fatigue_changes", "spell_label"]
