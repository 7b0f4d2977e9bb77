"""Fatigue deadlines: relaunches and owl reminders that survive restarts and never fire twice.

Seed 001: "Si 36h ou 48h (selon type de duel) après la première déclaration de l'arbitre le
second duelliste n'a pas posté sa défense, l'arbitre relancera automatiquement le jeu [...] De
même si 36h ou 48h [...] après la deuxième déclaration de l'arbitre, aucun des deux duellistes
n'a saisi l'initiative, l'arbitre relancera une dernière fois avant de mettre fin au duel."

Design (a persistent table swept by an interval job, not APScheduler date jobs):

- When a fatigue declaration is published, :func:`create_deadline` inserts one ``deadlines``
  row in the *same transaction* that marks it published
  (``forumbot.publish.poster.publish_one`` runs
  ``apply_published`` inside ``db.atomic()``): a crash leaves both or neither. The row holds
  the phase (``awaiting_defense`` after a first declaration, ``awaiting_initiative`` after an
  opening, a second declaration or a relaunch), who is expected, ``due_at`` (publication +
  ``timeout_1v1_hours``, :func:`rules.timeouts.next_deadline`), ``remind_at``
  (:func:`rules.timeouts.owl_reminder_at`) and how many "nobody took the initiative"
  relaunches came since the last post. Older pending rows of the duel are superseded.
- :func:`sweep` runs at the end of every poll of the forum (the scheduler's interval ``poll``
  job, :meth:`forumbot.duels.referee.Referee.poll_forum`; the topics were just read, so a post
  that came in is known). A poll whose forum listing fails raises before the sweep: while the
  board cannot be read, no relaunch is drafted on a silence that may not be one. A row whose
  expected post came is ``superseded`` (2v2: once the posts the next declaration waits for
  came, :meth:`forumbot.duels.duo.DuoFlow.posts_needed`; when it runs out with fewer, it is
  ``fired`` with the note ``short_turn:...`` and the posts that came are declared as they are,
  :meth:`forumbot.duels.duo.DuoFlow.short_draft`). A due row is **claimed** by a
  compare-and-set (``update ... set status='fired' where id=? and status='pending'``) in one
  transaction with the relaunch draft it writes: a sweep that runs again (a second process, a
  retry after a crash, the next poll) finds it ``fired`` and does nothing, and the draft's
  idempotency key makes a repeat harmless anyway. Nothing is in memory, so a restart loses
  nothing; after a downtime the first sweep fires what fell due meanwhile, once (the next
  deadline is only created when the relaunch is published, so deadlines chain from publication
  times).
- Owl reminders (setting ``owl_reminder_hours`` before ``due_at``; 0 = none): claimed the
  same way on ``reminded_at`` before ``send_pm``; a failed send releases the claim to retry
  at the next sweep; a crash between the claim and the send loses that reminder (at most once).
  While a restore's check window lasts (``publish_restores``) the reminder's marker is looked
  for in the bot's sent box first: a reminder sent after the backup is not sent again.
- The decision itself is :func:`rules.timeouts.relaunch_decision` (pure), counted from the
  declaration's publication, or from ``started_at`` when a referee resumed the duel.
- A held duel (``duels.held_at``: its topic is gone, :mod:`forumbot.duels.follow`) is not
  swept: its deadlines stay pending and do not count; resuming it restarts them from the
  resume time (:func:`forumbot.duels.follow.resume_duel`), so the players are not charged
  for the time it was held.
- The duel's flow (:data:`forumbot.duels.flows.FLOWS`) says which delay applies
  (``timeout_kind``: ``1v1`` 36 h, ``2v2`` 48 h) and what a published declaration waits for
  (:meth:`DuelFlow.deadline_for`: phase, expected duellists, relaunches so far). Two against
  two (:func:`duel_kind` is ``"2v2"``): the clock runs for whoever is expected next (RULES.md):
  the active duellists who have not posted in the turn. Issue 26 (D6): a turn under way
  (someone posted in it) is of phase ``awaiting_defense``: at its deadline the flow's
  ``undefended_draft`` resolves the spells waiting on the silent undefended, the silent pass
  the turn and it closes (:func:`forumbot.duels.duo.silence_draft`); only a turn nobody
  opened is relaunched (kind ``relaunch``, naming the expected duellists, the flow's
  ``relaunch_template``), then the duel closes with no winner.

Actions: ``resolve_undefended`` drafts the engine's step ``"relaunch"`` (the initiative spell
resolves undefended and the turn closes); ``relaunch`` drafts an invitation to take the
initiative (kind ``relaunch``); ``close_no_winner`` drafts the closing declaration (kind
``closure``, :func:`rules.fatigue.close_without_winner`). Each is a draft like any other:
the review delay applies, and a post that comes in before it is published cancels it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from forumbot.duels.deadline_clock import deadline_posts
from forumbot.duels.duo_board import topic_url
from forumbot.duels.fatigue import step_context, step_draft
from forumbot.duels.flow import (
    Draft,
    DuelFlow,
    FlowContext,
    HasContext,
    context_of,
)
from forumbot.duels.flows import flow_for
from forumbot.errors import ForumError, LoginFailed
from forumbot.publish.dates import french_datetime
from forumbot.publish.labels import slug
from forumbot.publish.owls import found_in_sent_box, restore_window
from forumbot.publish.render import marker_text
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.records import Declaration, Duel, DuelRecords
from rules.fatigue import close_without_winner, resolve_fatigue_step
from rules.model import DuelState
from rules.timeouts import TimeoutPolicy, next_deadline, owl_reminder_at, relaunch_decision

log = logging.getLogger("forumbot.duels.deadlines")

SHORT_TURN = "short_turn"
"""The note of a 2v2 deadline that ran out after some of the posts its declaration waits for
(``short_turn:<action>``): :func:`forumbot.duels.duo.advance_duo` declares them as they are."""


def create_deadline(
    storage: Storage, row: Declaration | dict[str, Any], now: datetime,
    flow: DuelFlow | None = None,
) -> int | None:  # fmt: skip
    """Insert the deadline started by the published declaration ``row`` (a record or a row
    dict; idempotent: one per declaration) as the duel's ``flow`` (default: the registry's)
    describes it. Returns its id, or None when the duel is not running."""
    decl = Declaration.of(row)
    duel = Duel.from_row(storage.duel(decl.duel_id))
    state = DuelState.from_dict(duel.state)
    if state.finished:
        return None
    ruleset = load_ruleset(str(duel.ruleset))
    flow = flow if flow is not None else flow_for(storage, duel, ruleset)
    policy = TimeoutPolicy.from_ruleset(ruleset)
    published = datetime.fromisoformat(decl.published_at) if decl.published_at else now
    spec = flow.deadline_for(storage, duel, decl)
    kind = flow.timeout_kind or "1v1"
    due = next_deadline(spec.phase, published, kind, policy=policy)  # type: ignore[arg-type]
    remind = owl_reminder_at(due, policy=policy)
    storage.duel_tasks.supersede_others(duel.id, decl.id)
    return storage.duel_tasks.insert_deadline(
        {
            "duel_id": duel.id,
            "declaration_id": decl.id,
            "phase": spec.phase,
            "expected_json": json.dumps(spec.expected, ensure_ascii=False),
            "relaunches": spec.relaunches,
            "due_at": iso(due),
            "remind_at": iso(remind) if remind is not None else None,
            "status": "pending",
            "created_at": iso(now),
        }
    )


def duel_kind(storage: Storage, duel: Duel | dict[str, Any]) -> str:
    """``"2v2"`` for a two-against-two duel (a ``duo_duels`` row, four duellists), else
    ``"1v1"``: the kind picks the delay (RULES.md: "36 h for 1v1, 48 h for 2v2 [D]")."""
    return flow_for(storage, Duel.of(duel)).timeout_kind or "1v1"


def _claim(storage: Storage, deadline_id: int, status: str, note: str, now: datetime) -> bool:
    return storage.duel_tasks.claim_deadline(deadline_id, status, iso(now), note)


def sweep(
    source: FlowContext | HasContext, forum_id: int | None = None,
    polled: Mapping[int, DuelRecords] | None = None,
) -> int:  # fmt: skip
    """Act on the board's pending deadlines (see module doc); returns drafts written.
    ``source``: the flow context, or the referee that gives it. ``polled``: the snapshots
    of the duels this poll handed to their flows, by duel id (the sweep reuses them while
    no other connection committed: :meth:`Storage.fresh_records`)."""
    ctx = context_of(source)
    storage = ctx.storage
    now = ctx.now()
    rows = storage.duel_tasks.pending_ids(ctx.board_id, forum_id)
    drafts = 0
    for deadline_id in rows:
        try:
            drafts += _sweep_one(ctx, int(deadline_id), now, polled or {})
        except LoginFailed:
            raise
        except Exception:
            log.exception("deadline %s: sweep failed; will retry", deadline_id)
    return drafts


def _sweep_one(
    ctx: FlowContext, deadline_id: int, now: datetime, polled: Mapping[int, DuelRecords]
) -> int:
    storage = ctx.storage
    dl = storage.duel_tasks.deadline(deadline_id)
    # the deadline's duel, its declarations and posts: this poll's snapshot of the duel
    # (what the poll wrote meanwhile is no row read here: posts merged, a published
    # declaration never rewritten, the draft written through the writer), else read now
    known = polled.get(int(dl["duel_id"]))
    if known is not None:
        records = storage.fresh_records(known)
    else:
        records = storage.duel_records(int(dl["duel_id"]))
    duel = records.duel
    decl = records.declaration(int(dl["declaration_id"]))
    if decl is None:  # not in the duel's rows (never written so): by its id, as it was
        decl = Declaration.from_row(storage.declaration(dl["declaration_id"]))
    expected = json.loads(dl["expected_json"])
    if duel.status != "running":
        with storage.atomic():
            _claim(storage, deadline_id, "superseded", "duel not running", now)
        return 0
    came = deadline_posts(records, decl, expected)
    ruleset = load_ruleset(str(duel.ruleset))
    flow = flow_for(storage, duel, ruleset)
    needed = getattr(flow, "posts_needed", None)  # 2v2: a declaration may wait for two posts
    if came and len({(r.author or "").casefold() for r in came}) >= (
        needed(storage, duel, decl) if needed is not None else 1
    ):
        with storage.atomic():
            _claim(storage, deadline_id, "superseded", f"post {came[0].post_id} came", now)
        return 0
    policy = TimeoutPolicy.from_ruleset(ruleset)
    decision = relaunch_decision(
        dl["phase"],
        datetime.fromisoformat(str(dl.get("started_at") or decl.published_at)),
        now,
        flow.timeout_kind or "1v1",  # type: ignore[arg-type]
        relaunches_since_last_post=int(dl["relaunches"] or 0),
        policy=policy,
    )
    if decision.action == "wait":
        if (
            ctx.settings.owl_reminders
            and dl["remind_at"]
            and dl["reminded_at"] is None
            and dl["remind_at"] <= iso(now)
        ):
            _remind(ctx, dl, records, expected, now, policy)
        return 0
    if came:  # some of the posts the declaration waits for (2v2): declared as they are
        with storage.atomic():
            if not _claim(storage, deadline_id, "fired", f"{SHORT_TURN}:{decision.action}", now):
                return 0
        # the flow's own poll writes it too (it reads the claim: a crash here loses nothing)
        duel_ctx = ctx.for_duel(ruleset, records)
        for draft in flow.short_draft(duel_ctx, duel):  # type: ignore[attr-defined]
            duel_ctx.drafts.write(duel, draft)
        log.info("duel %s: deadline %s ran out with %s of the posts: declared as they are",
                 duel.id, deadline_id, len(came))  # fmt: skip
        return 1
    with storage.atomic():
        if not _claim(storage, deadline_id, "fired", decision.action, now):
            return 0  # fired already (another sweep, or before a crash): never twice
        duel_ctx = ctx.for_duel(ruleset, records)
        duel_ctx.drafts.write(
            duel, silence_draft(duel_ctx, flow, duel, dl, decision.action, decision.reason)
        )
        storage.audit(
            "forumbot",
            f"deadline.{decision.action}",
            f"duel:{duel.id}",
            {"deadline": deadline_id, "due_at": dl["due_at"]},
            decision.reason,
            now,
        )
    log.info("duel %s: deadline %s fired: %s", duel.id, deadline_id, decision.reason)
    return 1


def silence_draft(
    ctx: FlowContext, flow: DuelFlow, duel: Duel, dl: dict[str, Any], action: str, why: str
) -> Draft:
    """The draft a fired deadline calls for: the undefended spell resolved (step
    ``relaunch``), an invitation to take the initiative (kind ``relaunch``, naming who is
    expected) or the closing declaration (kind ``closure``)."""
    ruleset = ctx.rs
    state = DuelState.from_dict(duel.state)
    own = getattr(flow, "undefended_draft", None)  # 2v2: the silent pass the turn (issue 26)
    if action == "resolve_undefended" and own is not None:
        return own(ctx, duel, dl, why)  # type: ignore[no-any-return]
    if action == "resolve_undefended":
        turn_no = state.turn + 1
        outcome = resolve_fatigue_step(state, [], {}, ruleset=ruleset, step="relaunch")
        inputs = {
            "engine": "fatigue",
            "step": "relaunch",
            "state_before": state.to_dict(),
            "posts": [],
            "dice": {},
            "facts": {},
            "extra_posts": [],
            "late_edits": [],
            "reason": why,
            # Forum-rolled dice (Forumactif): no seed of the bot's to reveal at the end.
            "dice_source": ctx.settings.dice_source,
        }
        return step_draft(ctx, duel, f"turn{turn_no}-relaunch", turn_no, inputs, outcome)
    # who the silence waits for (1v1: both duellists; 2v2: the active ones not yet posted)
    names = json.loads(dl["expected_json"]) or [d.name for d in state.duellists]
    if action == "relaunch":
        number = int(dl["relaunches"] or 0) + 1
        context = {
            "title": duel.title,
            "turn": state.turn + 1,
            "relaunch_number": number,
            "last": number >= int(ruleset.setting("relaunches_without_initiative")),
            "duellists": names,
            "hours": int(ruleset.setting(f"timeout_{flow.timeout_kind or '1v1'}_hours")),
            "points": {d.name: d.points for d in state.duellists},
            "unit": ruleset.unit,
            "referee_name": ctx.settings.referee_name,
        }
        text = ctx.render(flow.relaunch_template, context)
        what = f"silence{dl['declaration_id']}-relaunch{number}"
        return Draft(state.turn, "relaunch", what, text, context)
    outcome = close_without_winner(state, ruleset=ruleset)
    inputs = {
        "engine": "fatigue",
        "step": "closure",
        "state_before": state.to_dict(),
        "posts": [],
        "dice": {},
        "facts": {},
        "reason": why,
        "dice_source": ctx.settings.dice_source,
    }
    context = step_context(
        ruleset, duel, inputs, outcome, ctx.settings.referee_name, ctx.storage
    )
    text = ctx.render("fatigue_closure.bbcode.j2", context)
    return Draft(state.turn, "closure", "closure", text, context, inputs, outcome.to_dict())


def _remind(
    ctx: FlowContext, dl: dict[str, Any], records: DuelRecords, expected: list[str],
    now: datetime, policy: TimeoutPolicy,
) -> None:  # fmt: skip
    """Owl each expected duellist once: what is awaited, the deadline as a date in the
    board's timezone, what happens after it (issue 25: the decision
    :func:`rules.timeouts.relaunch_decision` would take then) and the topic's link."""
    storage = ctx.storage
    duel = records.duel
    if not storage.stamp_once("deadlines", "reminded_at", int(dl["id"]), now):
        return
    due = datetime.fromisoformat(dl["due_at"])
    users = {d["name"]: d["user_id"] for d in storage.duellists(duel.id)}
    for row in records.posts:
        if row.author in users and users[row.author] is None and row.author_id:
            users[row.author] = row.author_id
    # An owl writes to one player: « tu ».
    waiting = "ta défense" if dl["phase"] == "awaiting_defense" else "ton prochain message"
    then = (
        "resolve_undefended" if dl["phase"] == "awaiting_defense"
        else "relaunch" if int(dl["relaunches"] or 0) < policy.relaunches_without_initiative
        else "close_no_winner"
    )  # fmt: skip
    sent = {
        json.loads(a["after"])
        for a in storage.audit_entries(f"deadline:{dl['id']}")
        if a["action"] == "owl.reminder"
    }
    try:
        for name in expected:
            if name in sent:
                continue
            # The recipient slugged like every other owl key (was the full name, spaces too).
            key = f"b{ctx.board_id}t{duel.topic_id}-owl{dl['id']}-{slug(name)}"
            message = ctx.render(
                "fatigue_owl.bbcode.j2",
                {
                    "name": name,
                    "title": duel.title,
                    "waiting": waiting,
                    "due": french_datetime(due, ctx.settings.timezone),
                    "then": then,
                    "topic_url": topic_url(storage, ctx.board_id, duel.topic_id),
                    "referee_name": ctx.settings.referee_name,
                    "marker": marker_text(key),
                },
            )
            subject = f"Rappel : duel « {duel.title} »"
            if not (restore_window(storage, now)
                    and found_in_sent_box(ctx.client, subject, marker_text(key))):  # fmt: skip
                ctx.client.send_pm(users.get(name), name, subject, message, marker_text(key))
            storage.audit("forumbot", "owl.reminder", f"deadline:{dl['id']}", None, name, now)
    except LoginFailed:
        raise
    except ForumError as exc:
        storage.duel_tasks.clear_reminder(dl["id"])
        log.warning("duel %s: owl reminder failed (%s); will retry", duel.id, exc)


__all__ = ["create_deadline", "duel_kind", "silence_draft", "sweep"]
