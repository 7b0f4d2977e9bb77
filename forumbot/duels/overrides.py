"""Referee overrides of drafts: edit the text, set a computed number, waive a violation,
approve, hold, publish now. Every override lands in the audit log (who, when, before, after).

Setting a number re-runs the pure engine on the draft's stored inputs with the referee's
overrides (``rules.resolve_turn(..., overrides=...)``), so everything downstream (PD, winner,
the text) follows; each ruleset flow re-runs its own step (:meth:`DuelFlow.recompute`: fatigue
steps with the stored facts, lines and late edits; 2v2 steps with their stored draws).
A change is refused when the draft is no longer editable (publishing or published) or
when ``expected_version`` does not match (a stale form, issue 6).
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import rules
from forumbot.duels.flows import flow_for
from forumbot.storage import Storage, iso
from forumbot.storage.records import EDITABLE, Declaration, Duel


class OverrideError(Exception):
    """The override cannot be applied (message says why, in English)."""


def _editable(storage: Storage, decl_id: int, expected_version: int | None) -> dict[str, Any]:
    try:
        decl = storage.declaration(decl_id)
    except Exception as exc:
        raise OverrideError(f"no declaration {decl_id}") from exc
    if decl["status"] not in EDITABLE:
        raise OverrideError(f"declaration {decl_id} is {decl['status']}: it can no longer change")
    if expected_version is not None and decl["version"] != expected_version:
        raise OverrideError(
            f"declaration {decl_id} changed meanwhile (version {decl['version']}, "
            f"form had {expected_version}): reload it"
        )
    return decl


def _bump(storage: Storage, decl: dict[str, Any], changes: dict[str, Any], now: datetime) -> None:
    changes = {**changes, "version": decl["version"] + 1, "updated_at": iso(now)}
    storage.db["declarations"].update(decl["id"], changes)


def edit_text(
    storage: Storage,
    decl_id: int,
    text: str,
    actor: str,
    now: datetime,
    expected_version: int | None = None,
) -> None:
    """Replace a draft's text (the bot's marker is appended at publication, not here)."""
    decl = _editable(storage, decl_id, expected_version)
    if not text.strip():
        raise OverrideError("the text cannot be empty")
    with storage.db.atomic():
        _bump(storage, decl, {"text": text, "text_edited": 1}, now)
        storage.audit(actor, "draft.edit_text", f"declaration:{decl_id}", decl["text"], text, now)


def parse_value(raw: str) -> int | bool:
    """A command-line override value: ``true``/``false``/``oui``/``non`` or an integer.

    Raises:
        OverrideError: for anything else.
    """
    low = raw.strip().lower()
    if low in ("true", "oui", "yes", "vrai"):
        return True
    if low in ("false", "non", "no", "faux"):
        return False
    try:
        return int(low)
    except ValueError as exc:
        raise OverrideError(f"not a number or true/false: {raw!r}") from exc


def recompute(
    storage: Storage,
    decl: dict[str, Any],
    overrides: dict[str, Any],
    waived: list[list[str]],
    language: str = "fr",
) -> tuple[dict[str, Any], str]:
    """Re-run the engine on a turn draft's stored inputs (the duel's flow,
    :meth:`DuelFlow.recompute`); returns (stored context, text).

    Raises:
        OverrideError: for an opening declaration or an override the engine rejects.
    """
    record = Declaration.from_row(decl)
    if record.kind != "turn" or not record.stored.get("inputs"):
        raise OverrideError("only turn declarations carry computed numbers")
    duel = Duel.from_row(storage.duel(record.duel_id))
    flow = flow_for(storage, duel)
    try:
        return flow.recompute(storage, duel, record, overrides, waived, language)
    except rules.RuleError as exc:
        raise OverrideError(str(exc)) from exc


TEXT_RERENDERED = (
    "the text had been edited by hand: it was rendered again from the template so that it "
    "states the new numbers (the hand-edited text is in the audit log)"
)
"""The warning :func:`set_numbers` and :func:`set_violation` return when they replace a
hand-edited text (issue 13: a text never contradicts the stored numbers)."""


def _text_changes(decl: dict[str, Any], text: str) -> tuple[dict[str, Any], list[str]]:
    """The text columns after a recomputation: always the rendered text (issue 13: "after any
    ``--set``, the published text states the referee's numbers"), with a warning when it
    replaces a hand-edited one."""
    if decl["text_edited"]:
        return {"text": text, "text_edited": 0}, [TEXT_RERENDERED]
    return {"text": text}, []


def _quantity_values(outcome: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """The value each quantity ``"<name>.<field>"`` of ``keys`` has in an outcome's trail (the
    last entry naming it, case-insensitively), or its duellist's points for ``.points``."""
    folded = {k.casefold(): k for k in keys}
    values: dict[str, Any] = {}
    for entry in outcome.get("trail") or []:
        key = folded.get(str(entry.get("quantity", "")).casefold())
        if key is not None:
            values[key] = entry.get("value")
    duellists = (outcome.get("state") or {}).get("duellists") or []
    for key in keys:
        name, _, fld = key.rpartition(".")
        if key not in values and fld == "points":
            for d in duellists:
                if str(d.get("name", "")).casefold() == name.casefold():
                    values[key] = d.get("points")
    return values


def _points(outcome: dict[str, Any]) -> dict[str, Any]:
    return {
        d["name"]: d.get("points")
        for d in (outcome.get("state") or {}).get("duellists") or []
        if "name" in d
    }


def set_numbers(
    storage: Storage,
    decl_id: int,
    values: dict[str, Any],
    actor: str,
    now: datetime,
    expected_version: int | None = None,
    language: str = "fr",
) -> list[str]:
    """Set computed numbers (engine override keys, e.g. ``"Cassius Thorne.points": 12``,
    ``"Aurora Vexley.landed": False``) and let everything else follow, the text included:
    it is rendered again from the template, so it states the referee's numbers (marked
    « décision de l'arbitre »), even over a hand-edited text (then a warning is returned).

    The audit entry ``draft.set_numbers`` stores, before and after, the overrides, the value
    of each key set (before: as the draft computed it) and every duellist's points.

    Returns:
        Warnings for the referee (empty, or :data:`TEXT_RERENDERED`).

    Raises:
        OverrideError: not editable, stale version, or an override the engine refuses.
    """
    decl = _editable(storage, decl_id, expected_version)
    old_overrides = json.loads(decl["overrides_json"] or "{}")
    overrides = {**old_overrides, **values}
    waived = json.loads(decl["waived_json"] or "[]")
    old_outcome = (json.loads(decl["context_json"] or "{}").get("outcome")) or {}
    stored, text = recompute(storage, decl, overrides, waived, language)
    text_changes, warnings = _text_changes(decl, text)
    changes: dict[str, Any] = {
        "overrides_json": json.dumps(overrides, ensure_ascii=False),
        "context_json": json.dumps(stored, ensure_ascii=False),
        **text_changes,
    }
    keys = list(values)
    with storage.db.atomic():
        _bump(storage, decl, changes, now)
        _sync_violations(storage, decl, stored["outcome"], now)
        storage.audit(
            actor,
            "draft.set_numbers",
            f"declaration:{decl_id}",
            {
                "overrides": old_overrides,
                "values": _quantity_values(old_outcome, keys),
                "points": _points(old_outcome),
                **({"text": decl["text"]} if warnings else {}),
            },
            {
                "overrides": overrides,
                "values": dict(values),
                "points": _points(stored["outcome"]),
            },
            now,
        )
    return warnings


def _known_violations(decl: dict[str, Any], outcome: dict[str, Any]) -> set[tuple[str, str]]:
    """``(duellist, rule)`` of every violation a turn draft shows or carries: its outcome's,
    its context's (2v2 late edits), its late edits, and the undecided ones of its state
    before (a pending initiative's)."""
    stored = json.loads(decl["context_json"] or "{}")
    context = stored.get("context") or {}
    inputs = stored.get("inputs") or {}
    found: set[tuple[str, str]] = set()
    for source in (outcome, stored.get("outcome") or {}, context):
        for v in source.get("violations") or []:
            found.add((str(v["duellist"]), str(v["rule"])))
    for late in inputs.get("late_edits") or []:
        found.add((str(late["duellist"]), "late_edit"))
    for d in (inputs.get("state_before") or {}).get("duellists") or []:
        for v in d.get("violations") or []:
            found.add((str(v["duellist"]), str(v["rule"])))
    return found


def set_violation(
    storage: Storage,
    decl_id: int,
    duellist: str,
    rule: str,
    waive: bool,
    actor: str,
    now: datetime,
    expected_version: int | None = None,
    language: str = "fr",
) -> list[str]:
    """Waive (``waive=True``) or restore a proposed violation of a turn draft; the text is
    rendered again (see :func:`set_numbers`).

    Returns:
        Warnings for the referee (empty, or :data:`TEXT_RERENDERED`).

    Raises:
        OverrideError: not editable, stale version, a violation the draft does not have
            (waive) or has not waived (restore).
    """
    decl = _editable(storage, decl_id, expected_version)
    waived = [list(w) for w in json.loads(decl["waived_json"] or "[]")]
    entry = [duellist, rule]
    before = list(waived)
    if not waive and entry not in waived:
        raise OverrideError(
            f"declaration {decl_id}: {duellist}:{rule} is not waived, nothing to restore"
        )
    if waive and entry not in waived:
        waived.append(entry)
    if not waive and entry in waived:
        waived.remove(entry)
    overrides = json.loads(decl["overrides_json"] or "{}")
    stored, text = recompute(storage, decl, overrides, waived, language)
    if waive and (duellist, rule) not in _known_violations(decl, stored["outcome"]):
        raise OverrideError(
            f"declaration {decl_id} has no violation {rule!r} of {duellist!r}: nothing to waive"
        )
    text_changes, warnings = _text_changes(decl, text)
    changes: dict[str, Any] = {
        "waived_json": json.dumps(waived, ensure_ascii=False),
        "context_json": json.dumps(stored, ensure_ascii=False),
        **text_changes,
    }
    with storage.db.atomic():
        _bump(storage, decl, changes, now)
        _sync_violations(storage, decl, stored["outcome"], now)
        storage.audit(
            actor,
            "draft.waive" if waive else "draft.unwaive",
            f"declaration:{decl_id}",
            before,
            waived,
            now,
        )
    return warnings


def _sync_violations(
    storage: Storage, decl: dict[str, Any], outcome: dict[str, Any], now: datetime
) -> None:
    record = Declaration.from_row(decl)
    duel = Duel.from_row(storage.duel(record.duel_id))
    flow_for(storage, duel).sync_violations(storage, record, outcome, now)


def set_status(
    storage: Storage,
    decl_id: int,
    status: str,
    actor: str,
    now: datetime,
    expected_version: int | None = None,
) -> None:
    """``approved`` (publish at the next pass: "publish now"), ``held`` (wait for a
    referee) or ``draft`` (back to the review delay)."""
    if status not in EDITABLE:
        raise OverrideError(f"unknown draft status {status!r}")
    decl = _editable(storage, decl_id, expected_version)
    with storage.db.atomic():
        _bump(storage, decl, {"status": status}, now)
        storage.audit(
            actor, f"draft.{status}", f"declaration:{decl_id}", decl["status"], status, now
        )
