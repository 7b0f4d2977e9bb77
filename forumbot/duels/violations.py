"""An admin's decision on a violation, carried into the duel (RULES.md "Referee and admin":
"a dismissed violation gives back its penalty and no longer counts toward three").

The duel's state (``duels.state_json``, what the next declaration starts from) is adjusted:

- **dismissed** after it was applied: the duellist gets the penalty back (PV), and the
  violation in the state becomes ``waived``, so it no longer counts toward three;
- **confirmed** while it was only proposed (e.g. a ``late_edit`` or ``short_post`` the referee
  left to the admins): the penalty is taken and the violation becomes ``applied``.

A pending draft is recomputed from the adjusted state at the next poll (its inputs changed).
A finished duel's result is not reopened: the change is recorded in the audit log only.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import rules
from forumbot.storage import Storage, iso


def carry_decision(
    storage: Storage, before: dict[str, Any], decision: str, actor: str, now: datetime
) -> int:
    """Adjust the duel state for a decision on the violation row ``before`` (its state before
    the decision). Returns the points given back (+) or taken (-), 0 when nothing changed."""
    duel = storage.duel(before["duel_id"])
    if not duel.get("state_json") or duel["status"] == "finished":
        return 0
    state = rules.DuelState.from_dict(json.loads(duel["state_json"]))
    penalty = int(before["penalty"] or 0)
    was_applied = before["status"] in ("applied", "confirmed")
    if decision == "dismissed" and was_applied:
        delta, new_status = penalty, "waived"
    elif decision == "confirmed" and before["status"] == "proposed":
        delta, new_status = -penalty, "applied"
    else:
        return 0
    duellists = []
    for d in state.duellists:
        if d.name != before["duellist"]:
            duellists.append(d)
            continue
        found = False
        kept = []
        for v in d.violations:
            if v.rule == before["rule"] and v.post_id == before["post_id"]:
                kept.append(rules.Violation.from_dict({**v.to_dict(), "status": new_status}))
                found = True
            else:
                kept.append(v)
        if not found and new_status == "applied":
            kept.append(
                rules.Violation(
                    duellist=d.name,
                    rule=before["rule"],
                    post_id=int(before["post_id"] or 0),
                    evidence=before["evidence"] or "",
                    penalty=penalty,
                    status="applied",
                )
            )
        duellists.append(
            rules.DuellistState.from_dict(
                {
                    **d.to_dict(),
                    "points": d.points + delta,
                    "violations": [v.to_dict() for v in kept],
                }
            )
        )
    new_state = rules.DuelState.from_dict(
        {**state.to_dict(), "duellists": [d.to_dict() for d in duellists]}
    )
    storage.update_duel(duel["id"], state_json=json.dumps(new_state.to_dict(), ensure_ascii=False))
    storage.audit(
        actor,
        f"violation.{decision}.state",
        f"duel:{duel['id']}",
        {"duellist": before["duellist"], "points": state.duellist(before["duellist"]).points},
        {
            "duellist": before["duellist"],
            "points": new_state.duellist(before["duellist"]).points,
            "rule": before["rule"],
            "post_id": before["post_id"],
        },
        now,
    )
    return delta


UNDECIDED = ("proposed", "applied", "waived")
"""Violation statuses an admin has not decided yet (the engine may still change them)."""

DECIDED = ("confirmed", "dismissed")
"""Violation statuses an admin decided: the engine never rewrites them."""

ViolationKey = tuple[str, str, int]
"""``(duellist, rule, post_id)``: what identifies a violation across recomputations."""


def violation_key(v: dict[str, Any]) -> ViolationKey:
    """The identity of a violation dict or row: ``(duellist, rule, post_id)``."""
    return (str(v["duellist"]), str(v["rule"]), int(v.get("post_id") or 0))


def upsert_violations(
    storage: Storage,
    duel_id: int,
    turn: int,
    scope: str,
    scope_args: list[Any],
    found: dict[ViolationKey, dict[str, Any]] | list[dict[str, Any]],
    now: datetime,
) -> None:
    """Store a (re)computed draft's violations **in place**: each violation keeps its row, and
    so its id, across polls and recomputations (issue 13: an admin deciding violation 17 after
    the next poll must still find violation 17).

    ``scope`` is an SQL condition (with ``scope_args``) selecting, within the duel, the rows
    this computation owns (e.g. ``"turn = ?"``, ``"post_id in (?, ?)"``). For each violation
    of ``found`` (engine violation dicts: duellist, rule, post_id, evidence, penalty, status),
    keyed by :func:`violation_key`:

    - a decided row (confirmed, dismissed) of the same key is left alone;
    - an undecided row of the same key is updated (turn, evidence, penalty, status) when any
      of them changed, and keeps its id;
    - otherwise a row is inserted.

    Undecided rows in scope whose key is no longer found are deleted (the post was edited and
    the violation is gone); duplicate undecided rows of one key are folded into the first.
    """
    wanted = found if isinstance(found, dict) else {violation_key(v): v for v in found}
    rows: dict[ViolationKey, list[dict[str, Any]]] = {}
    for row in storage.duel_rows.violations_in_scope(duel_id, scope, scope_args):
        rows.setdefault(violation_key(row), []).append(row)
    stamp = iso(now)
    stale: list[int] = []
    for key, v in wanted.items():
        existing = rows.pop(key, [])
        undecided = [r for r in existing if r["status"] in UNDECIDED]
        if any(r["status"] in DECIDED for r in existing):
            stale.extend(r["id"] for r in undecided)
            continue
        if not undecided:
            storage.insert_violation(duel_id, turn, v, now)
            continue
        keep, *dupes = undecided
        stale.extend(r["id"] for r in dupes)
        fields = {
            "turn": turn,
            "evidence": v.get("evidence") or "",
            "penalty": int(v.get("penalty") or 0),
            "status": v["status"],
        }
        if any(keep[k] != value for k, value in fields.items()):
            storage.duel_rows.update_violation(keep["id"], {**fields, "updated_at": stamp})
    for existing in rows.values():
        stale.extend(r["id"] for r in existing if r["status"] in UNDECIDED)
    for row_id in stale:
        storage.duel_rows.delete_violation(row_id)
