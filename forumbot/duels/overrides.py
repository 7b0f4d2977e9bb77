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


def set_numbers(
    storage: Storage,
    decl_id: int,
    values: dict[str, Any],
    actor: str,
    now: datetime,
    expected_version: int | None = None,
    language: str = "fr",
) -> None:
    """Set computed numbers (engine override keys, e.g. ``"Cassius Thorne.points": 12``,
    ``"Aurora Vexley.landed": False``) and let everything else follow."""
    decl = _editable(storage, decl_id, expected_version)
    overrides = {**json.loads(decl["overrides_json"] or "{}"), **values}
    waived = json.loads(decl["waived_json"] or "[]")
    stored, text = recompute(storage, decl, overrides, waived, language)
    changes: dict[str, Any] = {
        "overrides_json": json.dumps(overrides, ensure_ascii=False),
        "context_json": json.dumps(stored, ensure_ascii=False),
    }
    if not decl["text_edited"]:
        changes["text"] = text
    with storage.db.atomic():
        _bump(storage, decl, changes, now)
        _sync_violations(storage, decl, stored["outcome"], now)
        storage.audit(
            actor,
            "draft.set_numbers",
            f"declaration:{decl_id}",
            json.loads(decl["overrides_json"] or "{}"),
            overrides,
            now,
        )


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
) -> None:
    """Waive (``waive=True``) or restore a proposed violation of a turn draft."""
    decl = _editable(storage, decl_id, expected_version)
    waived = [list(w) for w in json.loads(decl["waived_json"] or "[]")]
    entry = [duellist, rule]
    before = list(waived)
    if waive and entry not in waived:
        waived.append(entry)
    if not waive and entry in waived:
        waived.remove(entry)
    overrides = json.loads(decl["overrides_json"] or "{}")
    stored, text = recompute(storage, decl, overrides, waived, language)
    changes: dict[str, Any] = {
        "waived_json": json.dumps(waived, ensure_ascii=False),
        "context_json": json.dumps(stored, ensure_ascii=False),
    }
    if not decl["text_edited"]:
        changes["text"] = text
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
