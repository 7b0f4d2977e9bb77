"""A duel's turn history and points series as players read them (reader pass after issue 25,
W17 and W20).

A classic duel stores one ``turns`` row per declared turn. A fatigue duel stores a ``turns``
row only when a turn is complete (its defense declaration), and a two-against-two duel none at
all: its declarations (three or four a turn) carry the whole step in their context. The duel
page used to read ``turns`` only, so a finished 2v2 duel showed « Aucun tour publié » and a
one-point chart. Here the history of a fatigue-engine duel (1v1 or 2v2) is read from its
published declarations, grouped by the turn they announce (``declarations.turn``, the number
players read: « Déclaration de l'arbitre : tour 10 »).

- :func:`declared_turns`: the turns of a fatigue-engine duel, from its published declarations;
- :func:`declared_series`: duellist -> PV at the start and after each declared turn;
- :func:`turn_read`: the last turn players read (the highest turn of a published turn
  declaration), which the duels list and the CLI print, not the state's count of complete
  turns (a 2v2 that ends at the second declaration of turn 10 has ``state.turn == 9``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from forumbot.storage import Storage


def _loads(raw: str | None) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _published_steps(storage: Storage, duel_id: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(declaration row, stored context) of the duel's published fatigue-engine turn
    declarations, oldest first; empty for a classic duel."""
    steps = []
    for decl in storage.declarations(("published",), duel_id):
        if decl["kind"] != "turn":
            continue
        stored = _loads(decl["context_json"])
        if (stored.get("inputs") or {}).get("engine") == "fatigue":
            steps.append((decl, stored))
    return steps


def _points_of(state: Any) -> dict[str, int]:
    """Duellist -> points of a stored state (1v1 ``{"duellists"}`` or 2v2 ``{"duel":
    {"duellists"}}``); empty when there is none."""
    if not isinstance(state, dict):
        return {}
    nested = state.get("duel")
    inner: dict[str, Any] = nested if isinstance(nested, dict) else state
    return {str(d["name"]): int(d["points"]) for d in inner.get("duellists", [])}


def _step_balance(
    stored: dict[str, Any], before: dict[str, int], after: dict[str, int]
) -> dict[str, dict[str, Any]]:
    """The step's « Points » lines as its declaration printed them (the stored context's
    ``balance``, :func:`forumbot.duels.balance.balances`: spells, lasting effects, creatures,
    rewards, infractions), each made to add up: a total the referee set (no changes listed)
    or a step stored without a balance gets its remainder as one more change."""
    printed = (stored.get("context") or {}).get("balance")
    out: dict[str, dict[str, Any]] = {}
    for name, end in after.items():
        b = printed.get(name) if isinstance(printed, dict) else None
        start = int(b["start"]) if b else int(before.get(name, end))
        changes = [dict(c) for c in (b["changes"] if b else [])]
        rest = int(end) - start - sum(int(c["amount"]) for c in changes)
        if rest:
            label = "décision de l'arbitre" if b and not changes else "autres effets"
            changes.append({"amount": rest, "label": label})
        out[name] = {"start": start, "changes": changes, "end": int(end)}
    return out


def _add_balance(turn: dict[str, dict[str, Any]], step: dict[str, dict[str, Any]]) -> None:
    """A turn's balance gains a step's: the first step's start, every change in order, the
    last step's end (each step starts where the one before ended)."""
    for name, b in step.items():
        known = turn.get(name)
        if known is None:
            turn[name] = {"start": b["start"], "changes": list(b["changes"]), "end": b["end"]}
            continue
        if b["start"] != known["end"]:  # an erratum between the two steps: said, not hidden
            known["changes"].append({"amount": b["start"] - known["end"], "label": "erratum"})
        known["changes"].extend(b["changes"])
        known["end"] = b["end"]


def declared_turns(storage: Storage, duel_id: int) -> list[dict[str, Any]] | None:
    """The turns of a fatigue-engine duel (1v1 or 2v2) from its published declarations, or
    None for a duel whose declarations are not fatigue steps (classic: read ``turns``).

    Returns:
        One dict per turn number, in order: ``number`` (the turn players read), ``attacks``
        (every step's attacks, in publication order), ``points`` ((name, PV) after the turn's
        last published declaration), ``violations``, ``created_at`` (the last declaration's
        publication time), ``declarations`` (their ids) and ``balance`` (duellist ->
        ``{"start", "changes": [{"amount", "label"}], "end"}``: the turn's declarations'
        points lines joined, which add up to the totals; issue 25, reader4 W4).
    """
    steps = _published_steps(storage, duel_id)
    if not steps:
        return None
    turns: dict[int, dict[str, Any]] = {}
    last: dict[str, int] = _points_of((steps[0][1].get("inputs") or {}).get("state_before"))
    for decl, stored in steps:
        outcome = stored.get("outcome") or {}
        turn = turns.setdefault(
            int(decl["turn"]),
            {"number": int(decl["turn"]), "attacks": [], "points": [], "violations": [],
             "created_at": "", "declarations": [], "balance": {}},
        )  # fmt: skip
        after = _points_of(outcome.get("state"))
        _add_balance(turn["balance"], _step_balance(stored, last, after))
        last = {**last, **after}
        # an initiative's spell waits for the defense (``pending``): the defense step has it
        turn["attacks"].extend(
            a
            for a in with_blockers(outcome.get("attacks") or [], outcome.get("trail") or [])
            if a.get("void_reason") != "pending"
        )
        turn["violations"].extend(outcome.get("violations") or [])
        turn["points"] = [
            (d["name"], d["points"]) for d in (outcome.get("state") or {}).get("duellists", [])
        ]
        turn["created_at"] = decl.get("published_at") or decl.get("created_at") or ""
        turn["declarations"].append(decl["id"])
    return [turns[n] for n in sorted(turns)]


_EXPIRED_NO_ATTACK = re.compile(r"^no_attack from (.+?) ran its last turn$")
_RUNNING_NO_ATTACK = re.compile(r"\bno_attack \((.+?), \d+\)")


def with_blockers(
    attacks: list[dict[str, Any]], trail: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The step's attacks, each one voided ``no_action`` (its caster could not act) copied
    with ``blocked_by``: the spells whose « cannot cast » effect held the caster this turn,
    read from the trail (``<caster>.effects.expired`` « no_attack from Stupéfix ran its last
    turn », or a running effect valued « no_attack (Stupéfix, 1) »), so the page writes
    « Cassius Thorne n'a pas pu agir (Stupéfix) » (C24). Other attacks are returned as
    they are; the inputs are not changed."""
    out = []
    for a in attacks:
        if a.get("void_reason") != "no_action":
            out.append(a)
            continue
        prefix = f"{a.get('attacker')}."
        spells: list[str] = []
        for t in trail:
            if not str(t.get("quantity") or "").startswith(prefix):
                continue
            found = _EXPIRED_NO_ATTACK.findall(str(t.get("detail") or ""))
            found += _RUNNING_NO_ATTACK.findall(str(t.get("value") or ""))
            spells += [s for s in found if s not in spells]
        out.append({**a, "blocked_by": spells})
    return out


def declared_series(storage: Storage, duel_id: int) -> dict[str, list[int]] | None:
    """Duellist -> PV at the start (the first step's state before) and after each declared
    turn (:func:`declared_turns`), every duellist of the duel included (a 2v2 has four);
    None for a classic duel."""
    steps = _published_steps(storage, duel_id)
    turns = declared_turns(storage, duel_id)
    if not steps or not turns:
        return None
    start = (steps[0][1].get("inputs") or {}).get("state_before") or {}
    states: list[list[tuple[str, int]]] = [
        [(d["name"], int(d["points"])) for d in start.get("duellists", [])]
    ]
    states += [[(n, int(p)) for n, p in t["points"]] for t in turns]
    series: dict[str, list[int]] = {}
    for i, state in enumerate(states):
        for name, points in state:
            # a duellist missing from the start state starts at his first known PV
            series.setdefault(name, [points] * i).append(points)
    return series


def turn_read(storage: Storage, duel: dict[str, Any]) -> int:
    """The last turn players read in the duel's topic: the highest turn of a published turn
    declaration (« tour 10 »); the state's ``turn`` when none is published (an opening only).
    Never less than the state's count of complete turns."""
    state = _loads(duel.get("state_json"))
    nested = state.get("duel")
    inner: dict[str, Any] = nested if isinstance(nested, dict) else state
    counted = int(inner.get("turn", 0) or 0)
    published = storage.web_rows.last_published_turn(int(duel["id"]))
    return max(counted, published)


__all__ = ["declared_series", "declared_turns", "turn_read"]
