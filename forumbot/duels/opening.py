"""Opening a one-against-one duel (classic or fatigue) and the spells cast before its start.

:func:`adopt` registers the duel (``duels``, ``duellists``; the secret dice seed and its
commitment) and returns its opening :class:`Draft`; the flow (:class:`OpeningFlow`) gives the
first state and what its opening declaration adds. :func:`early_casts` is what an ``open``
duel's posts call for (seed 000: "Aucun sort ne doit être lancé avant le top de l'arbitre
sous peine de disqualification immédiate"): a duellist's post that casts a spell before the
opening declaration is out is ``cast_before_start``; the opening draft lists it and is held so
the referee decides. Two-against-two duels open through :func:`forumbot.duels.duo.open_duo_duel`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any, Protocol

import rules
from forumbot.duels.dice_reserve import seed_for
from forumbot.duels.flow import Draft, DuelFlow, FlowContext, duellist_of
from forumbot.duels.stakes import opening_stakes
from forumbot.duels.violations import upsert_violations
from forumbot.storage import iso
from forumbot.storage.records import EDITABLE, Duel
from rules.dice import commitment
from rules.model import DuelState
from rules.ruleset import Ruleset

log = logging.getLogger("forumbot.duels.opening")

Duellists = Sequence[tuple[str, str] | tuple[str, str, Sequence[str]]]


class OpeningFlow(DuelFlow, Protocol):
    """A flow whose duels the referee adopts from a topic (one against one)."""

    keeps_early_state: bool  # a spell cast before the start costs PV now (fatigue)

    def topic_duellists(self, text: str, found: Sequence[tuple[str, str]]) -> list[Any] | None:
        """The duellists to adopt from a topic's first post (None: not enough facts)."""
        ...

    def new_state(
        self, rs: Ruleset, pairs: list[tuple[str, str]], types: list[list[str]],
        stakes: str | None,
    ) -> DuelState:  # fmt: skip
        """The duel's first state. Raises rules.RuleError for duellists the rules refuse."""
        ...

    def opening_extra(self, rs: Ruleset, state: DuelState) -> dict[str, Any]:
        """What the flow's opening declaration adds to the common context."""
        ...



def _desk_topic(storage: Any, board_id: int, topic_id: int) -> bool:
    """True when the sign-up desk opened ``topic_id`` for a 1v1 pairing (its first post,
    ``signup_duel_topic.bbcode.j2``, already holds the dice fingerprint)."""
    rows = storage.db["queue"].rows_where(
        "board_id = ? and topic_id = ?", [board_id, topic_id], limit=1
    )
    return any(True for _ in rows)


def club_variants(rs: Ruleset) -> dict[str, Any]:
    """What the opening shows of the club's departures from the seed (issue 26): its named
    house rules (``house_rules``: name, description) and the spells the spellbook limits
    per duel (``limited_spells``: name, max_casts)."""
    return {
        "house_rules": [
            {"name": h.name, "description": h.description} for h in rs.house_rules.values()
        ],
        "limited_spells": [
            {"name": s.name, "max_casts": s.max_casts} for s in rs.spells if s.max_casts
        ],
    }

def adopt(
    ctx: FlowContext,
    flow: OpeningFlow,
    forum_id: int,
    topic_id: int,
    title: str,
    duellists: Duellists,
    *,
    ruleset_name: str,
    stakes: str | None = None,
    dice_secret: bytes | None = None,
    reuse: int | None = None,
) -> tuple[Duel, Draft]:
    """Insert the duel held in ``topic_id`` and its duellists; returns the duel and its
    opening draft (see :meth:`forumbot.duels.referee.Referee.adopt` for the arguments).
    ``reuse``: the id of the topic's cancelled duel row to write instead of a new row (a
    cancelled adoption adopted again: :func:`forumbot.duels.adoption.reopen_cancelled`).

    Raises:
        rules.RuleError: duellists the ruleset refuses (year, magic types, count).
    """
    rs = ctx.rs
    types: list[list[str]] = [[str(t) for t in d[2]] if len(d) > 2 else [] for d in duellists]
    pairs = [(str(d[0]), str(d[1])) for d in duellists]
    state = flow.new_state(rs, pairs, types, stakes)
    # the reserved seed when `check` showed this topic's opening (forumbot.duels.dice_reserve)
    secret = dice_secret if dice_secret is not None else seed_for(ctx.rng, ctx.board_id, topic_id)
    now = ctx.now()
    storage = ctx.storage
    row = {
        "board_id": ctx.board_id,
        "forum_id": forum_id,
        "topic_id": topic_id,
        "title": title,
        "ruleset": ruleset_name,
        "status": "open",
        "state_json": json.dumps(state.to_dict(), ensure_ascii=False),
        "stakes": stakes,
        "dice_secret": secret.hex(),
        "dice_commitment": commitment(secret),
        "last_post_id": None,
        "created_at": iso(now),
    }
    if reuse is not None:
        storage.update_duel(reuse, **row)
        duel_id = reuse
    else:
        duel_id = storage.duel_rows.insert_duel(row)
    for i, (name, year) in enumerate(pairs):
        storage.duel_rows.insert_duellist(
            {
                "duel_id": duel_id,
                "name": name,
                "year": year,
                "side": "AB"[i % 2],
                "magic_types": json.dumps(list(state.duellists[i].magic_types)),
            }
        )
    forum_rolls = ctx.settings.forum_rolls_dice
    context = {
        "title": title,
        "duellists": [
            {"name": d.name, "year": d.year, "points": d.points} for d in state.duellists
        ],
        "unit": rs.unit,
        "stakes": stakes,
        # accepted at sign-up, or only proposed (issue 25, reader W1)
        **opening_stakes(storage, ctx.board_id, stakes, topic_id),
        "commitment": None if forum_rolls else commitment(secret),
        # the sign-up desk's topic post published it first: said once (reader2 C7)
        "commitment_in_topic": not forum_rolls and _desk_topic(storage, ctx.board_id, topic_id),
        "dice_source": ctx.settings.dice_source,
        "early": [],
        "referee_name": ctx.settings.referee_name,
        **club_variants(rs),
    }
    context.update(flow.opening_extra(rs, state))
    text = ctx.render(flow.opening_template, context)
    duel = Duel.from_row(storage.duel(duel_id))
    return duel, Draft(0, "opening", "opening", text, context)


def _early_posts(ctx: FlowContext, duel: Duel) -> list[rules.TurnPost]:
    """The duellists' posts of an ``open`` duel that cast a spell (``before_start``)."""
    early = []
    for row in ctx.records_of(duel).posts:
        name = duellist_of(ctx.storage, duel.id, row) if row.author else None
        action = row.action
        if name is None or not (action.get("spell") or action.get("spell_text")):
            continue
        early.append(
            rules.TurnPost(
                duellist=name,
                post_id=row.post_id,
                spell=action.get("spell"),
                spell_text=action.get("spell_text"),
                before_start=True,
            )
        )
    return early


def early_context(
    ctx: FlowContext, flow: OpeningFlow, duel: Duel, context: dict[str, Any],
    early: Sequence[rules.TurnPost], waived: Sequence[Sequence[str]],
) -> dict[str, Any]:  # fmt: skip
    """The opening's template ``context`` with the spells cast before the start (``early``):
    each listed once (``early``: duellist, post id, spell; ``waived`` when the referee waived
    that duellist's ``cast_before_start``: the template leaves it out, issue 22); fatigue's
    state after their cost (the waived ones cost nothing). Stores the violations (turn 0)."""
    pairs = {(str(a), str(b)) for a, b in waived}
    state = DuelState.from_dict(duel.state)
    outcome = rules.resolve_turn(state, list(early), {}, ruleset=ctx.rs, waived=pairs)
    context = dict(context)
    context["early"] = [
        {"duellist": v.duellist, "post_id": v.post_id, "spell": v.evidence,
         "waived": (v.duellist, v.rule) in pairs}
        for v in outcome.violations
    ]  # fmt: skip
    if flow.keeps_early_state:
        # Fatigue: cast_before_start costs PV (applied by default): the opening's
        # publication starts the duel from this state (forumbot.duels.fatigue).
        context["state_after_early"] = outcome.state.to_dict()
        context["early_points"] = {d.name: d.points for d in outcome.state.duellists}
    upsert_violations(
        ctx.storage, duel.id, 0, "turn = 0", [], [v.to_dict() for v in outcome.violations],
        ctx.now(),
    )  # fmt: skip
    return context


def waive_early(
    ctx: FlowContext, flow: OpeningFlow, duel: Duel, context: dict[str, Any],
    waived: Sequence[Sequence[str]],
) -> tuple[dict[str, Any], str]:  # fmt: skip
    """The opening draft's (context, text) with ``waived`` (``[duellist, rule]`` pairs: the
    referee waives ``cast_before_start``): rendered without the waived disqualifications.

    Raises:
        rules.RuleError: a waive the engine refuses (unknown duellist)."""
    early = _early_posts(ctx, duel)
    context = early_context(ctx, flow, duel, context, early, waived)
    return context, ctx.render(flow.opening_template, context)


def early_casts(ctx: FlowContext, flow: OpeningFlow, duel: Duel) -> list[Draft]:
    """The opening draft again when spells were cast before the start (module doc); none
    when nothing changed or the opening is out."""
    early = _early_posts(ctx, duel)
    decl = ctx.existing(duel, "opening")
    if not early or decl is None or decl.status not in EDITABLE:
        return []
    context = decl.context  # a copy: the snapshot's record stays as read
    listed = [(e["duellist"], e["post_id"]) for e in context.get("early", [])]
    if listed == [(p.duellist, p.post_id) for p in early]:
        return []
    context = early_context(ctx, flow, duel, context, early, decl.waived)
    text = ctx.render(flow.opening_template, context)
    log.warning(
        "duel %s: spell cast before the start in posts %s: opening held",
        duel.id,
        ",".join(str(p.post_id) for p in early),
    )
    return [
        Draft(0, "opening", "opening", text, context,
              hold="cast_before_start: referee decides", hold_over=True)
    ]  # fmt: skip


__all__ = ["Duellists", "OpeningFlow", "adopt", "early_casts", "early_context", "waive_early"]
