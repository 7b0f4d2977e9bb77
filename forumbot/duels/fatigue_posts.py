"""What the fatigue engine's two flows share (1v1 :mod:`forumbot.duels.fatigue`, 2v2
:mod:`forumbot.duels.duo`): versions in force, late edits, silences, reading and publication.

Both flows import this module; neither imports the other, nor :mod:`forumbot.duels.deadlines`
(a publication says whether a deadline starts; :mod:`forumbot.duels.publication` creates it).

Versions in force and late edits. Every distinct text of a post is stored in
``post_versions`` with the time the bot first saw it. "Editing is allowed until anyone (the
declaration included) posts after it": the next post's time is the earliest of the bot's first
sight of any later post and the publication of any later declaration, and
:func:`rules.fatigue.version_in_force` picks the version in force. Both times are the bot's own
observations (forum clocks and edit notes are not trusted, and phpBB shows no edit time): a
version first seen in the same poll as the next post is given the benefit of the doubt (in
force), so an edit made less than one poll interval after the next post can pass as legal.
A late edit of a post already declared cannot change the published declaration (its dice and
text are out): it is listed in the next draft and proposed to the referee as a ``late_edit``
row (:func:`late_edits_since`, :func:`late_edit_violation`).

How much of a topic is read each poll (:func:`read_window`), the trade-off: a running fatigue
duel is re-read every poll even when the listing shows no new post (an edit changes no post
id; at most 3 concurrent 1v1 duels, so at most 3 extra page reads a poll), from the
declaration *before* the last published one: the posts of the current and the previous step,
the ones whose edits matter (a pending initiative post, a post just declared). Every
``full_reread_every``-th read of a duel (and the first after a restart) reads the whole topic,
so an edit to an older post is found within N polls, at the cost of one read of every page.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta
from typing import Any

import rules
from forumbot.duels.dice_edits import ruled_version
from forumbot.duels.flow import FlowContext
from forumbot.duels.violations import upsert_violations
from forumbot.storage import Storage, iso
from forumbot.storage.records import Declaration, Duel, DuelRecords, StoredPost
from rules.fatigue import version_in_force
from rules.model import DuelState, TurnPost

log = logging.getLogger("forumbot.fatigue")

ACTION_FR = {
    "cast": "lancer un sort",
    "dodge": "esquiver",
    "dodge_riposte": "esquiver et riposter",
}
_SAME_POLL = timedelta(microseconds=1)


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


# --- Reading ---------------------------------------------------------------------------------


def read_window(records: DuelRecords, *, full: bool) -> int | None:
    """The post id to read a fatigue duel topic from (None: the whole topic): the
    declaration before the last published one (see the module doc)."""
    if full:
        return None
    published = sorted(d.published_post_id for d in records.published() if d.published_post_id)
    if len(published) >= 2:
        return int(published[-2])
    return None


def read_from(ctx: FlowContext, duel: Duel, reads: int) -> int | None:
    """Every ``full_reread_every``-th read (the first included) reads the whole topic."""
    full = reads % ctx.settings.full_reread_every == 0
    return read_window(ctx.records_of(duel), full=full)


def next_post_at(records: DuelRecords, post_id: int) -> datetime | None:
    """When (bot time) anyone posted after ``post_id``: the first sight of a later post or
    the publication of a later declaration (in the duel's snapshot); None when nobody has."""
    times: list[datetime] = []
    seen = [p.first_seen_at for p in records.posts_after(post_id) if p.first_seen_at]
    if seen:
        times.append(_dt(min(seen)))
    published = [
        d.published_at
        for d in records.published()
        if d.published_at and d.published_post_id is not None and d.published_post_id > post_id
    ]
    if published:
        times.append(_dt(min(published)))
    return min(times) if times else None


def post_in_force(
    ctx: FlowContext, duel: Duel, row: StoredPost
) -> tuple[dict[str, Any], str, bool, int]:
    """(action, text, late_edit, version index) of a stored post's version in force; on
    Forumactif a post edited after its dice (:mod:`forumbot.duels.dice_edits`) is ruled on
    the version of the roll, a ``late_edit``."""
    storage = ctx.storage
    versions = storage.post_rows.versions(ctx.board_id, row.post_id)
    if not versions:  # stored before post versions existed: the current text
        return dict(row.action), row.text, False, 0
    nxt = next_post_at(ctx.records_of(duel), row.post_id)
    vif = version_in_force(
        [(_dt(v["seen_at"]), v["text"] or "") for v in versions],
        None if nxt is None else nxt + _SAME_POLL,
    )
    chosen = versions[vif.index]
    # Forumactif: a post edited after its dice is ruled on the version of the roll (issue 16)
    ruled, dice_late = ruled_version(storage, ctx.board_id, row)
    if dice_late is not None:
        index = vif.index if dice_late["version"] is None else int(dice_late["version"])
        return dict(ruled.action), ruled.text, True, index
    return json.loads(chosen["action_json"] or "{}"), vif.text, vif.late_edit, vif.index


def turn_post(name: str, row_id: int, action: dict[str, Any]) -> TurnPost:
    """A :class:`TurnPost` from a stored action (``parsers.model.Action`` as a dict)."""
    return TurnPost(
        duellist=name,
        post_id=row_id,
        spell=action.get("spell"),
        spell_text=action.get("spell_text"),
        kind=action.get("kind"),
        bet=tuple(action["bet"]) if action.get("bet") else None,
        target=action.get("target"),
    )


# --- Late edits ------------------------------------------------------------------------------


def late_edits_since(ctx: FlowContext, duel: Duel, exclude: int) -> list[dict[str, Any]]:
    """Posts already declared that were edited after the next post (``late_edit``) and not
    yet listed in a published declaration: ``[{duellist, post_id}]``."""
    listed: set[int] = set()
    declared: dict[int, str] = {}
    records = ctx.records_of(duel)
    for decl in records.published():
        inputs = decl.inputs
        listed.update(int(x["post_id"]) for x in inputs.get("late_edits", []))
        for p in inputs.get("posts", []):
            declared[int(p["post_id"])] = p["duellist"]
    out = []
    for post_id, name in sorted(declared.items()):
        if post_id in listed or post_id == exclude:
            continue
        row = records.post(post_id)
        if row is None:
            continue
        _action, _text, late, _ = post_in_force(ctx, duel, row)
        if late:
            out.append({"duellist": name, "post_id": post_id})
    return out


def late_edit_violation(late: dict[str, Any]) -> dict[str, Any]:
    """The proposed ``late_edit`` violation (a violation dict: duellist, rule, post_id,
    evidence, penalty in PV, status) of a declared post edited after the next post, from an
    entry ``{duellist, post_id}`` of :func:`late_edits_since` (RULES.md "Ruleset fatigue —
    all duels": the version in force is kept and the edit is proposed to the referee)."""
    return {
        "duellist": late["duellist"],
        "rule": "late_edit",
        "post_id": late["post_id"],
        "evidence": "edited after the next post (already declared: version in force kept)",
        "penalty": 20,
        "status": "proposed",
    }


def replace_step_violations(
    storage: Storage,
    duel_id: int,
    turn_no: int,
    inputs: dict[str, Any],
    outcome: dict[str, Any],
    now: datetime,
) -> None:
    """Store a (re)computed step's violations: rows of the step's posts (its own post, and
    for a defense or relaunch the pending initiative post) still undecided are replaced by
    the violations now known for them (the state before plus this step's); late edits of
    declared posts are proposed as ``late_edit`` rows (only the ``late_edit`` row of such an
    earlier post is replaced: its other violations, e.g. a proposed ``short_post``, stay).
    Decided rows (confirmed, dismissed) are kept; undecided ones are updated in place, so they
    keep their ids (:func:`forumbot.duels.violations.upsert_violations`)."""
    state = inputs["state_before"]
    posts = {int(p["post_id"]) for p in inputs["posts"]}
    pending = {int(p["post_id"]) for p in state.get("pending", [])}
    owned = posts | pending
    found: dict[tuple[str, str, int], dict[str, Any]] = {}
    for d in state["duellists"]:
        for v in d["violations"]:
            if int(v["post_id"]) in pending:
                found[(v["duellist"], v["rule"], int(v["post_id"]))] = v
    for v in outcome.get("violations", []):
        found[(v["duellist"], v["rule"], int(v["post_id"]))] = v
    late_only: set[int] = set()  # earlier posts edited late: only their late_edit row is ours
    for late in inputs.get("late_edits", []):
        if int(late["post_id"]) not in owned:
            late_only.add(int(late["post_id"]))
        key = (late["duellist"], "late_edit", int(late["post_id"]))
        found.setdefault(key, late_edit_violation(late))
    if not owned and not late_only:
        return
    parts: list[str] = []
    args: list[Any] = []
    if owned:
        parts.append(f"post_id in ({','.join('?' * len(owned))})")
        args.extend(sorted(owned))
    if late_only:
        parts.append(f"(post_id in ({','.join('?' * len(late_only))}) and rule = 'late_edit')")
        args.extend(sorted(late_only))
    # in place: an undecided violation keeps its id across polls (issue 13)
    upsert_violations(storage, duel_id, turn_no, " or ".join(parts), args, found, now)


# --- Silences --------------------------------------------------------------------------------


def cancel_silence_drafts(ctx: FlowContext, duel: Duel, why: str) -> None:
    """A post came in: unpublished relaunch drafts of this duel are cancelled (RULES.md:
    "Any post resets the relaunch allowance"). The drafts are the snapshot's
    (``ctx.records``); the ones cancelled are not drafted again in this poll."""
    storage = ctx.storage
    for decl in ctx.records_of(duel).editable():
        step = decl.inputs.get("step")
        if step == "concession":  # the staff's decision (forumbot.duels.concession): it stays
            continue
        if decl.kind in ("relaunch", "closure") or step in ("relaunch", "duo_silence"):
            storage.update_row(
                "declarations",
                {"id": decl.id},
                {
                    "status": "cancelled",
                    "last_error": f"cancelled: {why}",
                    "version": decl.version + 1,
                },
            )
            storage.audit(
                "forumbot", "draft.cancel", f"declaration:{decl.id}", decl.status, why,
                ctx.now(),
            )  # fmt: skip
            log.info("duel %s: relaunch draft %s cancelled (%s)", duel.id, decl.id, why)


# --- Publication -----------------------------------------------------------------------------


def apply_published_fatigue(
    storage: Storage, duel: Duel, row: Declaration | dict[str, Any], now: datetime
) -> bool:
    """Advance a fatigue duel (1v1 or 2v2) once one of its declarations is out (in the
    publication's transaction): the opening starts it; a step's outcome becomes the state (a
    closed turn is stored in ``turns``); a relaunch changes nothing; the final one finishes it
    (its pending deadlines superseded). Returns True when the next deadline starts from it."""
    decl = Declaration.of(row)
    ctx = decl.stored
    if decl.kind == "opening":
        early = ctx["context"].get("state_after_early")
        state = rules.start_duel(DuelState.from_dict(early or duel.state))
        storage.update_duel(
            duel.id,
            status="running",
            opening_post_id=decl.published_post_id,
            state_json=json.dumps(state.to_dict(), ensure_ascii=False),
        )
        return True
    if decl.kind == "relaunch":
        return True
    outcome = ctx["outcome"]
    inputs = ctx["inputs"]
    if inputs["step"] in ("defense", "relaunch"):
        posts = list(inputs["state_before"].get("pending", [])) + list(inputs["posts"])
        dice = {str(p["post_id"]): p["dice"] for p in inputs["state_before"].get("pending", [])}
        dice.update(inputs["dice"])
        # the turn is complete: stored with both posts, and its state becomes the duel's
        storage.record_turn(duel.id, decl.turn, inputs["state_before"], posts, dice, outcome, now)
    else:  # a first declaration: the state moves on, the turn is not complete yet
        fields: dict[str, Any] = {"state_json": json.dumps(outcome["state"], ensure_ascii=False)}
        if outcome["finished"]:
            fields.update(status="finished", finished_at=iso(now))
        storage.update_duel(duel.id, **fields)
    if not outcome["finished"]:
        return True
    storage.duel_tasks.supersede_finished(duel.id)
    return False


__all__ = [
    "ACTION_FR",
    "apply_published_fatigue",
    "cancel_silence_drafts",
    "late_edit_violation",
    "late_edits_since",
    "next_post_at",
    "post_in_force",
    "read_from",
    "read_window",
    "replace_step_violations",
    "turn_post",
]
