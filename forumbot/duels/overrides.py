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
import random
from datetime import datetime
from typing import Any

import rules
from forumbot.duels.flow import FlowContext, FlowSettings
from forumbot.duels.flows import flow_for
from forumbot.duels.opening import waive_early
from forumbot.duels.text_figures import Difference, contradictions
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
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
    storage.duel_rows.update_declaration(decl["id"], changes)


class TextUnchanged(OverrideError):
    """The new text is the draft's own (line ends and trailing blanks aside): nothing to
    change, no new version, no audit row (newcomer5 C1; a ``--set`` that changes nothing is
    refused the same way). Not a failure: the CLI says so and exits 0, the page flashes it."""


def same_text(stored: str, text: str) -> bool:
    """True when ``text`` is ``stored`` but for ``\\r\\n`` line ends and blanks at its
    end (a text saved with ``drafts show > file`` comes back with one more newline) or at
    the end of its lines (an editor's trailing spaces: BBCode shows none; newcomer6 C6)."""
    return _blank_free(text) == _blank_free(stored)


def _blank_free(text: str) -> str:
    """``text`` with ``\\n`` line ends, no space or tab at the end of a line (a no-break
    space is French typography, kept) and no blank at the end of the text."""
    lines = text.replace("\r\n", "\n").split("\n")
    return "\n".join(line.rstrip(" \t") for line in lines).rstrip()


class TextContradicts(OverrideError):
    """A hand-written text states figures other than the draft's (``differences``: a list of
    :class:`forumbot.duels.text_figures.Difference`); ``force`` keeps it anyway."""

    def __init__(self, decl_id: int, differences: list[Difference], opening: bool = False) -> None:
        self.differences = differences
        message = CONTRADICTS_OPENING if opening else CONTRADICTS_TURN
        super().__init__(message % (decl_id, "; ".join(d.describe() for d in differences)))


CONTRADICTS_TURN = (
    "declaration %s: the new text contradicts the draft's numbers (%s); set the numbers first "
    "(--set), or keep the text as written with --force"
)
"""A turn's text refused (:class:`TextContradicts`; in the catalogue: forumbot.i18n.errors)."""
CONTRADICTS_OPENING = (
    "declaration %s: the new text contradicts the draft's numbers (%s); an opening's numbers "
    "cannot be set: only --force keeps the text as written, and the duel keeps counting from "
    "the computed points"
)
"""An opening's text refused: ``--set`` is refused on an opening (only turns carry computed
numbers), so the message does not advise it (newcomer5 W4)."""


def computed_text(storage: Storage, decl: dict[str, Any], language: str = "fr") -> str | None:
    """The text the engine renders for draft ``decl`` with its decisions (its own text when
    not edited by hand; a turn recomputed; an opening rendered again), or None when it
    cannot be told."""
    if not decl["text_edited"]:
        return str(decl["text"])
    stored = json.loads(decl["context_json"] or "{}")
    if decl["kind"] == "turn" and stored.get("inputs"):
        overrides = json.loads(decl["overrides_json"] or "{}")
        waived = json.loads(decl["waived_json"] or "[]")
        return recompute(storage, decl, overrides, waived, language)[1]
    if decl["kind"] == "opening" and stored.get("context"):
        duel = Duel.from_row(storage.duel(decl["duel_id"]))
        return render(flow_for(storage, duel).opening_template, stored["context"], language)
    return None


def edit_text(
    storage: Storage,
    decl_id: int,
    text: str,
    actor: str,
    now: datetime,
    expected_version: int | None = None,
    *,
    force: bool = False,
    language: str = "fr",
) -> list[Difference]:
    """Replace a draft's text (the bot's marker is appended at publication, not here).

    The figures of the new text (each duellist's total, each post's dice:
    :mod:`forumbot.duels.text_figures`) are compared with those the draft computes: a
    contradiction is refused unless ``force`` (then kept, and the differences are audited as
    ``draft.force_text``). Returns the differences kept (empty without ``force``).

    Raises:
        OverrideError: not editable, stale version, empty text; :class:`TextUnchanged` (the
            text is the draft's own: :func:`same_text`); :class:`TextContradicts`.
    """
    decl = _editable(storage, decl_id, expected_version)
    if not text.strip():
        raise OverrideError("the text cannot be empty")
    if same_text(str(decl["text"]), text):
        raise TextUnchanged(f"declaration {decl_id}: text unchanged, no new version")
    computed = computed_text(storage, decl, language)
    names = [d["name"] for d in storage.duellists(decl["duel_id"])]
    differences = contradictions(computed, text, names) if computed is not None else []
    if differences and not force:
        raise TextContradicts(decl_id, differences, opening=decl["kind"] == "opening")
    with storage.atomic():
        _bump(storage, decl, {"text": text, "text_edited": 1}, now)
        storage.audit(actor, "draft.edit_text", f"declaration:{decl_id}", decl["text"], text, now)
        if differences:
            storage.audit(
                actor, "draft.force_text", f"declaration:{decl_id}",
                {"computed": computed}, {"differences": [d.describe() for d in differences]},
                now,
            )  # fmt: skip
    return differences


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
        stored, text = flow.recompute(storage, duel, record, overrides, waived, language)
    except rules.RuleError as exc:
        raise OverrideError(str(exc)) from exc
    return _dated_like(stored, text, record.stored.get("context") or {})


def _dated_like(
    stored: dict[str, Any], text: str, old: dict[str, Any]
) -> tuple[dict[str, Any], str]:
    """A recomputed (stored context, text) with the deadline phrase and ``planned_at`` of the
    draft it recomputes (issue 25's dated deadlines): an override changes numbers, not the
    planned date (the poster dates the text again from the real publication)."""
    context = stored.get("context")
    old_phrase = old.get("deadline")
    if not isinstance(context, dict) or not old_phrase or not context.get("deadline"):
        return stored, text
    new_phrase = str(context["deadline"])
    if new_phrase != old_phrase and new_phrase not in text:
        return stored, text
    context = {**context, "deadline": old_phrase, "planned_at": old.get("planned_at")}
    return {**stored, "context": context}, text.replace(new_phrase, str(old_phrase))


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
    _refuse_no_ops(storage, decl, old_overrides, values, waived, language)
    stored, text = recompute(storage, decl, overrides, waived, language)
    text_changes, warnings = _text_changes(decl, text)
    changes: dict[str, Any] = {
        "overrides_json": json.dumps(overrides, ensure_ascii=False),
        "context_json": json.dumps(stored, ensure_ascii=False),
        **text_changes,
    }
    keys = list(values)
    with storage.atomic():
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


def _without_trail(value: Any) -> Any:
    """``value`` (a recomputed draft's stored context, or text) without its rule trails and
    the referee's decisions, nor the rule names read from the trail (``dodge_rule``): what
    changes when an override equal to the computed value is recorded, though nothing else
    does."""
    if isinstance(value, dict):
        return {
            k: _without_trail(v)
            for k, v in value.items()
            if k not in ("trail", "decisions") and not str(k).endswith("_rule")
        }
    if isinstance(value, list | tuple):
        return [_without_trail(v) for v in value]
    return value


def _refuse_no_ops(
    storage: Storage, decl: dict[str, Any], old_overrides: dict[str, Any],
    values: dict[str, Any], waived: list[list[str]], language: str,
) -> None:  # fmt: skip
    """Refuse ``values`` when one of them is already so (issue 22: a ``--set`` that changes
    nothing, such as ``X.landed=false`` on an attack that missed, says so instead of being a
    silent no-op): the outcome with it is the outcome without it.

    Raises:
        OverrideError: naming each key already so (nothing is changed).
    """
    baseline = _without_trail(recompute(storage, decl, old_overrides, waived, language))
    already = []
    for key, value in values.items():
        if key in old_overrides and old_overrides[key] == value:
            already.append((key, value))
            continue
        trial = recompute(storage, decl, {**old_overrides, key: value}, waived, language)
        if _without_trail(trial) == baseline:
            already.append((key, value))
    if not already:
        return
    parts = []
    for key, value in already:
        name, _, fld = key.rpartition(".")
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        if fld == "landed":
            parts.append(
                f"{name}'s attack already {'landed' if value else 'missed'} "
                f"({key} is already {shown})"
            )
        else:
            parts.append(f"{key} is already {shown}")
    raise OverrideError(
        f"declaration {decl['id']}: " + "; ".join(parts) + ": already so, nothing changed"
    )


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
    if decl["kind"] == "opening":
        return _waive_opening(storage, decl, entry, waive, before, waived, actor, now, language)
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
    with storage.atomic():
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


EARLY_HOLD = "cast_before_start: referee decides"
"""``last_error`` of an opening held for spells cast before the start
(:func:`forumbot.duels.opening.early_casts`)."""


def _waive_opening(
    storage: Storage, decl: dict[str, Any], entry: list[str], waive: bool,
    before: list[list[str]], waived: list[list[str]], actor: str, now: datetime, language: str,
) -> list[str]:  # fmt: skip
    """Waive (or restore) a ``cast_before_start`` of an opening draft (issue 22): the opening
    is rendered again without (or with) its disqualification announcement; once every spell
    cast before the start is waived, an opening held for them goes back to ``draft`` (the
    referee decided: it publishes after its review delay)."""
    duellist, rule = entry
    stored = json.loads(decl["context_json"] or "{}")
    context = stored.get("context") or {}
    early = {(str(e["duellist"]), rule) for e in context.get("early") or []}
    if rule != "cast_before_start" or (duellist, rule) not in early:
        raise OverrideError(
            f"declaration {decl['id']} has no violation {rule!r} of {duellist!r}: nothing to "
            f"{'waive' if waive else 'restore'} (an opening only lists spells cast before the "
            "start: cast_before_start)"
        )
    duel = Duel.from_row(storage.duel(decl["duel_id"]))
    flow = flow_for(storage, duel)
    ctx = _flow_context(storage, duel, language, now)
    try:
        context, text = waive_early(ctx, flow, duel, context, waived)  # type: ignore[arg-type]
    except rules.RuleError as exc:
        raise OverrideError(str(exc)) from exc
    text_changes, warnings = _text_changes(decl, text)
    changes: dict[str, Any] = {
        "waived_json": json.dumps(waived, ensure_ascii=False),
        "context_json": json.dumps({**stored, "context": context}, ensure_ascii=False),
        **text_changes,
    }
    if (
        decl["status"] == "held"
        and decl["last_error"] == EARLY_HOLD
        and all(e.get("waived") for e in context.get("early") or [])
    ):
        changes.update(status="draft", last_error=None)
    with storage.atomic():
        _bump(storage, decl, changes, now)
        storage.audit(
            actor, "draft.waive" if waive else "draft.unwaive", f"declaration:{decl['id']}",
            before, waived, now,
        )  # fmt: skip
    return warnings


def _flow_context(storage: Storage, duel: Duel, language: str, now: datetime) -> FlowContext:
    """A flow context for a staff command (no forum client: nothing is read or posted)."""
    board = storage.duel_rows.board(duel.board_id)
    settings = FlowSettings(
        board_id=duel.board_id, platform=str(board["platform"]), language=language
    )
    ctx = FlowContext.build(storage, None, lambda: now, random.Random(), settings)  # type: ignore[arg-type]
    return ctx.for_duel(load_ruleset(str(duel.ruleset)))


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
    with storage.atomic():
        _bump(storage, decl, {"status": status}, now)
        storage.audit(
            actor, f"draft.{status}", f"declaration:{decl_id}", decl["status"], status, now
        )
