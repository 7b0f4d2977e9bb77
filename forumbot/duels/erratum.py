"""Correcting a published declaration with an erratum (issue 22): ``forumbot duels correct``.

A published declaration is never edited: the referee posts an erratum, a new declaration
(kind ``erratum``, French template ``erratum.bbcode.j2``) that quotes the old and the new
numbers, through the normal publication path (its own idempotency key
``b<board>t<topic>-turn<N>-erratum<k>``, approved: posted exactly once at the next pass).

- ``values`` (the ``--set`` keys of ``drafts edit``): the turn's step is recomputed by its flow
  (:meth:`DuelFlow.recompute`) with the published overrides plus these; the erratum lists each
  value set (old -> new) and each total that changes. When it is published, the corrected
  state becomes the duel's (and the ``turns`` row of that turn), so the next turn is drafted
  from it (:func:`apply_erratum`, the poster's hook through
  :func:`forumbot.duels.publication.apply_published`).
- ``note`` (``--text-file``): the referee's own words, with or without numbers.

Refused, with the reason (:class:`ErratumError`): a duel cancelled or not started; a turn with
no published declaration; numbers on a turn followed by another published declaration
(recomputing the later turns from a corrected one is not done: the bot would rewrite turns the
players have read; correct the latest turn, whose totals carry over, or post a note); numbers
in a 2v2 duel (its state is read from its published declarations, which are never rewritten);
a correction that changes how the duel ended (winner, draw, finished: cancel or concede
instead); a correction that changes nothing; while another numbers erratum of the duel waits.
Audit: ``duel.correct`` (drafted), ``duel.corrected`` (applied at publication).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import rules
from forumbot.duels.duo_board import add_task, is_duo
from forumbot.duels.flow import FlowSettings
from forumbot.duels.flows import flow_for
from forumbot.publish.render import marker_text, render
from forumbot.storage import Storage, iso
from forumbot.storage.records import Declaration, Duel, declaration_row

log = logging.getLogger("forumbot.duels.erratum")

ERRATUM = "erratum"
"""Kind of an erratum declaration."""

_WAITING = ("draft", "approved", "held", "publishing")


class ErratumError(ValueError):
    """The correction cannot be made (message says why, in English)."""


@dataclass(frozen=True)
class Erratum:
    """What :func:`draft_erratum` drafted: the declaration, the corrected one, the changes
    (``[{name, field, old, new}]``) and the totals that change (``[{name, old, new}]``)."""

    declaration: int
    corrects: int
    changes: tuple[dict[str, Any], ...]
    points: tuple[dict[str, Any], ...]


def _points(outcome: dict[str, Any]) -> dict[str, Any]:
    return {d["name"]: d.get("points") for d in (outcome.get("state") or {}).get("duellists", [])}


def _value_of(outcome: dict[str, Any], key: str) -> Any:
    """The value ``key`` (``"<name>.<field>"``) had in a published outcome: the last trail
    entry naming it (or ``<name>.attack.<field>``), or the duellist's points; None unknown."""
    name, _, fld = key.rpartition(".")
    found = None
    wanted = {key.casefold(), f"{name}.attack.{fld}".casefold()}
    for entry in outcome.get("trail") or []:
        if str(entry.get("quantity", "")).casefold() in wanted:
            found = entry.get("value")
    if found is None and fld == "points":
        found = _points(outcome).get(name)
    return found


def _without_trail(outcome: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in outcome.items() if k != "trail"}


def _target(storage: Storage, duel_id: int, turn: int) -> Declaration:
    rows = [
        Declaration.from_row(d)
        for d in storage.declarations(("published",), duel_id)
        if d["kind"] == "turn" and int(d["turn"]) == turn
    ]
    if not rows:
        raise ErratumError(
            f"duel {duel_id} has no published declaration of turn {turn} (a draft is changed "
            "with forumbot drafts edit)"
        )
    return max(rows, key=lambda d: d.id)


def _recomputed(
    storage: Storage, duel: Duel, target: Declaration, values: dict[str, Any], language: str
) -> dict[str, Any]:
    """The corrected outcome of ``target`` with ``values`` (refusals: module doc)."""
    if is_duo(storage, duel.id):
        raise ErratumError(
            "a 2v2 duel's numbers cannot be corrected by an erratum (its state is read from its "
            "published declarations, never rewritten): post a note (--text-file) and set the "
            "numbers on the next draft (drafts edit --set)"
        )
    later = [
        d for d in storage.declarations(("published",), duel.id)
        if d["kind"] in ("turn", "closure") and int(d["id"]) > target.id
    ]  # fmt: skip
    if later:
        raise ErratumError(
            f"turn {target.turn} is followed by {len(later)} published declaration(s) (up to "
            f"turn {max(int(d['turn']) for d in later)}): recomputing later turns from a "
            "corrected one is not possible here; correct the latest turn (its totals carry "
            "over) or post a note (--text-file)"
        )
    waiting = [
        int(d["id"]) for d in storage.declarations(_WAITING, duel.id)
        if d["kind"] == ERRATUM
        and json.loads(d["context_json"] or "{}").get("erratum", {}).get("state") is not None
    ]  # fmt: skip
    if waiting:
        raise ErratumError(
            f"erratum {waiting[0]} of duel {duel.id} waits for its publication: correct again "
            "once it is out"
        )
    overrides = {**target.overrides, **values}
    flow = flow_for(storage, duel)
    try:
        stored, _text = flow.recompute(storage, duel, target, overrides, target.waived, language)
        baseline, _ = flow.recompute(
            storage, duel, target, target.overrides, target.waived, language
        )
    except rules.RuleError as exc:
        raise ErratumError(str(exc)) from exc
    new = dict(stored["outcome"])
    if _without_trail(new) == _without_trail(baseline["outcome"]):
        raise ErratumError(f"turn {target.turn}: already so, nothing to correct")
    old = target.outcome or {}
    for what in ("finished", "winner", "draw"):
        if new.get(what) != old.get(what):
            raise ErratumError(
                f"this correction changes how the duel ended ({what}: {old.get(what)!r} -> "
                f"{new.get(what)!r}): not done by an erratum (duels cancel, duels concede)"
            )
    return {"outcome": new, "overrides": overrides, "stored": stored}


def _post_link(storage: Storage, duel: Duel, target: Declaration) -> str:
    """The board's post address with ``{id}`` (the corrected declaration's stored context's,
    else built from the board row as :attr:`forumbot.duels.flow.FlowSettings.post_link`
    builds it): the erratum links the declaration it corrects (issue 25, reader C48)."""
    stored = (target.stored.get("context") or {}).get("post_link")
    if isinstance(stored, str) and stored:
        return stored
    board = storage.duel_rows.board_or_none(duel.board_id)
    if not board or not board.get("url"):
        return ""
    platform = str(board.get("platform") or "phpbb3")
    url = str(board["url"])
    settings = FlowSettings(board_id=duel.board_id, platform=platform, board_url=url)
    return settings.post_link


def draft_erratum(
    storage: Storage, duel_id: int, turn: int, values: dict[str, Any], note: str | None,
    actor: str, now: datetime, *, referee_name: str = "L'arbitre", language: str = "fr",
) -> Erratum:  # fmt: skip
    """Draft (approved) the erratum of turn ``turn`` of duel ``duel_id`` (module doc).

    Raises:
        ErratumError: see the module doc.
    """
    note = (note or "").strip() or None
    if not values and not note:
        raise ErratumError("nothing to correct: give --set or --text-file")
    try:
        duel = Duel.from_row(storage.duel(duel_id))
    except Exception as exc:  # sqlite_utils NotFoundError
        raise ErratumError(f"no duel {duel_id}") from exc
    if duel.status not in ("running", "finished"):
        raise ErratumError(f"duel {duel_id} is {duel.status}: nothing published to correct")
    target = _target(storage, duel_id, turn)
    corrected = _recomputed(storage, duel, target, values, language) if values else None
    old_outcome = target.outcome or {}
    changes: list[dict[str, Any]] = []
    points: list[dict[str, Any]] = []
    if corrected is not None:
        for key, value in values.items():
            name, _, fld = key.rpartition(".")
            changes.append(
                {"name": name, "field": fld, "old": _value_of(old_outcome, key), "new": value}
            )
        before, after = _points(old_outcome), _points(corrected["outcome"])
        points = [
            {"name": n, "old": before.get(n), "new": p} for n, p in after.items()
            if before.get(n) != p
        ]  # fmt: skip
    unit = str((target.stored.get("context") or {}).get("unit") or "PV")
    context = {
        "turn": turn, "post_id": target.published_post_id, "changes": changes,
        "points": points, "unit": unit, "note": note, "referee_name": referee_name,
        "post_link": _post_link(storage, duel, target),
    }  # fmt: skip
    text = render("erratum.bbcode.j2", context, language)
    count = storage.duel_rows.kind_count(duel_id, ERRATUM)
    key = f"b{duel.board_id}t{duel.topic_id}-turn{turn}-erratum{count + 1}"
    erratum: dict[str, Any] = {"corrects": target.id, "turn": turn}
    if corrected is not None:
        erratum.update(
            state=corrected["outcome"]["state"], outcome=corrected["outcome"],
            overrides=corrected["overrides"],
        )  # fmt: skip
    with storage.atomic():
        decl_id = int(
            storage.duel_rows.insert_declaration(
                declaration_row(
                    duel_id=duel_id,
                    turn=turn,
                    kind=ERRATUM,
                    key=key,
                    marker=marker_text(key),
                    text=text,
                    context_json=json.dumps(
                        {"context": context, "erratum": erratum}, ensure_ascii=False
                    ),
                    status="approved",
                    publish_after=None,
                    at=iso(now),
                )  # fmt: skip
            )
        )
        storage.audit(
            actor, "duel.correct", f"duel:{duel_id}",
            {"declaration": target.id, "overrides": target.overrides,
             "points": _points(old_outcome)},
            {"erratum": decl_id, "values": values, "note": note,
             "points": _points(corrected["outcome"]) if corrected else None},
            now,
        )  # fmt: skip
    return Erratum(decl_id, target.id, tuple(changes), tuple(points))


def apply_erratum(storage: Storage, decl: Declaration, now: datetime) -> bool:
    """The published erratum ``decl``'s corrected state becomes the duel's (and its turn's
    ``turns`` row), in the publication's transaction; returns True when applied. A note (no
    numbers) changes nothing. When another declaration of the duel was published after the
    corrected one meanwhile, the state is left alone, loudly (an error line and an
    ``erratum_stale`` referee task): the correction was computed on a state that moved on."""
    erratum = decl.stored.get("erratum") or {}
    state = erratum.get("state")
    if state is None:
        return False
    duel = Duel.from_row(storage.duel(decl.duel_id))
    later = storage.duel_rows.turns_published_after(duel.id, int(erratum["corrects"]))
    if later:
        log.error(
            "duel %s: erratum %s published after a later declaration: its numbers were not "
            "applied to the duel's state (referee task erratum_stale)", duel.id, decl.id,
        )  # fmt: skip
        add_task(
            storage, duel.board_id, duel.id, "erratum_stale",
            f"b{duel.board_id}t{duel.topic_id}-erratum-stale-{decl.id}", "", None,
            f"Erratum du tour {decl.turn} non appliqué",
            f"L'erratum du tour {decl.turn} est publié, mais un tour suivant l'a été avant lui : "
            "les nombres du duel n'ont pas été changés. À l'arbitre de corriger le brouillon "
            "en cours (forumbot drafts edit --set).", now,
        )  # fmt: skip
        return False
    storage.update_duel(duel.id, state_json=json.dumps(state, ensure_ascii=False))
    storage.duel_rows.set_turn_outcome(
        duel.id, int(erratum["turn"]), json.dumps(erratum["outcome"], ensure_ascii=False)
    )
    storage.audit(
        "forumbot", "duel.corrected", f"duel:{duel.id}", {"state": duel.state},
        {"state": state, "erratum": decl.id}, now,
    )  # fmt: skip
    return True


__all__ = ["ERRATUM", "Erratum", "ErratumError", "apply_erratum", "draft_erratum"]
