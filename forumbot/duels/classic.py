"""The classic ruleset's turn flow (seed 000, ruleset ``classic`` or a club file of its engine).

Turn assembly ("Pour chaque tour, les deux duellistes posteront l'un après l'autre"): after the
last published declaration, the first post of each duellist forms the turn; when both are in,
the bot rolls two "Duel" d6 per post (attack, defense), resolves the turn
(:func:`rules.resolve_turn`) and drafts the declaration. Further posts by the same duellist
before the declaration are left for the referee (noted in the draft). A post edited before the
declaration is published recomputes the draft; its dice never change (they derive from the post
id, not its wording). Before the opening is out, spells cast are ``cast_before_start``
(:func:`forumbot.duels.opening.early_casts`). A post edited after its turn was declared,
changing its spell, target or bet, is flagged to the referee with both versions (a
``late_edit`` referee task: :mod:`forumbot.duels.classic_edits`); the declaration stays.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any

import rules
from forumbot.duels.balance import balances, classic_changes
from forumbot.duels.classic_edits import flag_late_edits
from forumbot.duels.decisions import referee_decisions
from forumbot.duels.dice_edits import hold_reason, late_edit_proposal, ruled_version
from forumbot.duels.ending import conceding
from forumbot.duels.fatigue_posts import read_window
from forumbot.duels.flow import (
    DeadlineSpec,
    Draft,
    FlowContext,
    duellist_of,
    missing_dice_draft,
)
from forumbot.duels.opening import early_casts
from forumbot.duels.stakes import final_stakes
from forumbot.duels.violations import upsert_violations
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.records import (
    REDRAFTABLE,
    Declaration,
    Duel,
    DuelRecords,
    StoredPost,
)
from rules.effects import CounterSpell, Shield
from rules.model import DuelState
from rules.ruleset import Ruleset

log = logging.getLogger("forumbot.duels.classic")


def last_published_post(records: DuelRecords) -> int | None:
    """Post id of the duel's latest published declaration (in its snapshot), or None."""
    return records.last_published_post_id()


def with_late_edits(outcome: dict[str, Any], late_edits: list[dict[str, Any]]) -> dict[str, Any]:
    """``outcome`` (a turn outcome dict) with the proposed ``late_edit`` violations of posts
    edited after their Forumactif dice (:func:`forumbot.duels.dice_edits.late_edit_proposal`;
    penalty 0: the referee decides) added to its ``violations`` (once each)."""
    known = {(v["duellist"], v["rule"], int(v["post_id"])) for v in outcome["violations"]}
    extra = [v for v in late_edits if (v["duellist"], v["rule"], int(v["post_id"])) not in known]
    return {**outcome, "violations": [*outcome["violations"], *extra]} if extra else outcome


def turn_context(
    ctx: FlowContext, duel: Duel, inputs: dict[str, Any], outcome: Any
) -> dict[str, Any]:
    """The template context of a turn declaration (also stored with the draft)."""
    data = outcome if isinstance(outcome, dict) else outcome.to_dict()
    forum_rolls = ctx.settings.forum_rolls_dice
    return {
        "title": duel.title,
        "turn": data["turn"],
        "unit": ctx.rs.unit,
        "outcome": data,
        "dice": inputs["dice"],
        "posts": inputs["posts"],
        "extra_posts": inputs.get("extra_posts", []),
        "stakes": duel.stakes,
        # accepted by every duellist, or only proposed (issue 25, reader W1)
        "owed": final_stakes(ctx.storage, duel.board_id, duel.id, duel.stakes, data),
        "referee_name": ctx.settings.referee_name,
        # Forum-rolled dice (Forumactif): no seed of the bot's to commit to or reveal.
        "dice_source": ctx.settings.dice_source,
        "dice_secret": duel.dice_secret if data["finished"] and not forum_rolls else None,
        "commitment": None if forum_rolls else duel.dice_commitment,
        "decisions": referee_decisions(data),
        "tie_rule": str(ctx.rs.setting("tie_rule")),
        "balance": classic_balance(inputs, data),
        # who cannot attack this turn, and which spell of whose says so (issue 25, reader C14)
        "barred_by": _barred_by(inputs.get("state_before") or {}),
        # a repeated or cancelled Bouclier / Antisort is said not to attack (reader4 W3)
        "defensive": defensive_spells(ctx.rs),
    }


def defensive_spells(ruleset: Any) -> dict[str, dict[str, Any]]:
    """Spell name -> ``{"kind": "shield", "amount": n}`` or ``{"kind": "counter_spell"}`` for
    the spells whose caster does not attack (RULES.md classic, Fine points: « A void Charme du
    Bouclier or Antisort Général gives no bonus and cancels nothing, and its caster still does
    not attack that turn »), read from the ruleset's spell effects (``rules/data/classic.toml``)."""
    out: dict[str, dict[str, Any]] = {}
    for spell in getattr(ruleset, "spells", ()):
        for e in spell.effects:
            if isinstance(e, Shield):
                out[spell.name] = {"kind": "shield", "amount": e.amount}
            elif isinstance(e, CounterSpell):
                out[spell.name] = {"kind": "counter_spell"}
    return out


def _barred_by(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Duellist -> the ``no_attack`` effect (``source`` spell, ``caster``) carried into this
    turn from ``state`` (the state before the turn), for the declaration to name it."""
    return {
        str(d["name"]): e
        for d in state.get("duellists", [])
        for e in d.get("effects", [])
        if e.get("type") == "no_attack" and e.get("source")
    }


def classic_balance(inputs: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """Every PD change of a classic turn, adding up to the new totals
    (:func:`forumbot.duels.balance.balances`)."""
    return balances(
        _points(inputs.get("state_before") or data["state"]),
        _points(data["state"]),
        classic_changes(data),
        decided=[d["quantity"] for d in referee_decisions(data)],
    )


def _points(state: dict[str, Any]) -> dict[str, int]:
    return {d["name"]: int(d["points"]) for d in state["duellists"]}


class ClassicFlow:
    """Classic duels: one declaration per turn of two posts (module doc)."""

    name = "classic"
    watches_edits = True  # issue 22: late edits of declared posts (forumbot.duels.classic_edits)
    timeout_kind: str | None = None
    keeps_early_state = False
    opening_template = "opening.bbcode.j2"
    relaunch_template = "fatigue_relaunch.bbcode.j2"

    # -- opening ----------------------------------------------------------------------
    def topic_duellists(self, text: str, found: Sequence[tuple[str, str]]) -> list[Any] | None:
        return list(found)

    def new_state(
        self, rs: Ruleset, pairs: list[tuple[str, str]], types: list[list[str]],
        stakes: str | None,
    ) -> DuelState:  # fmt: skip
        return rules.new_duel(rs, pairs, stakes=stakes)

    def opening_extra(self, rs: Ruleset, state: DuelState) -> dict[str, Any]:
        """The tie rule players read in the opening (``tie_rule``: ``lands`` or
        ``deflects``, classic.toml)."""
        return {"tie_rule": str(rs.setting("tie_rule"))}

    # -- reading and advancing ----------------------------------------------------------
    def read_from(self, ctx: FlowContext, duel: Duel, reads: int) -> int | None:
        """From the declaration before the last published one: the posts of the last declared
        turn are read again for late edits (:mod:`forumbot.duels.classic_edits`); from the
        opening while only it is out. Every ``full_reread_every``-th read after the first
        reads the whole topic."""
        records = ctx.records_of(duel)
        if reads and reads % ctx.settings.full_reread_every == 0:
            return None
        if len([d for d in records.published() if d.published_post_id]) >= 2:
            return read_window(records, full=False)
        return last_published_post(records)

    def advance(self, ctx: FlowContext, duel: Duel) -> list[Draft]:
        """The opening again (spells cast before the start) or the next turn's draft."""
        if duel.status == "open":
            return early_casts(ctx, self, duel)
        records = ctx.records_of(duel)
        if duel.status != "running" or conceding(ctx.storage, duel.id, records):
            return []
        ruleset = ctx.rs
        flag_late_edits(ctx.storage, duel, records, ctx.now(), ctx.settings.language)
        state = DuelState.from_dict(duel.state)
        if state.finished:
            return []
        turn_no = state.turn + 1
        existing = ctx.existing(duel, f"turn{turn_no}")
        if existing is not None and existing.status not in REDRAFTABLE:
            return []
        since = last_published_post(records) or duel.opening_post_id or 0
        names = [d["name"] for d in ctx.storage.duellists(duel.id)]
        turn_rows: dict[str, StoredPost] = {}
        extra: list[int] = []
        for row in records.posts_after(since):
            name = duellist_of(ctx.storage, duel.id, row)
            if name is None:
                continue
            if name in turn_rows:
                extra.append(row.post_id)
            else:
                turn_rows[name] = row
        if len(turn_rows) < len(names):
            return []
        dice_per_post = int(ruleset.dice_per_post)
        turn_posts = []
        dice: dict[int, tuple[int, ...]] = {}
        missing: list[dict[str, Any]] = []
        late_edits: list[dict[str, Any]] = []
        for name in names:
            # Forumactif: a post edited after its dice is ruled on the version of the roll
            row, late = ruled_version(ctx.storage, ctx.board_id, turn_rows[name])
            if late is not None:
                late_edits.append(late_edit_proposal(name, late))
            action = row.action
            turn_posts.append(
                rules.TurnPost(
                    duellist=name,
                    post_id=row.post_id,
                    spell=action.get("spell"),
                    spell_text=action.get("spell_text"),
                    kind=action.get("kind"),
                    bet=tuple(action["bet"]) if action.get("bet") else None,
                    target=action.get("target"),
                )
            )
            values = ctx.dice.for_post(duel, ruleset, turn_no, row, dice_per_post)
            if values is None:
                missing.append({"duellist": name, "post_id": row.post_id})
            else:
                dice[row.post_id] = values
        if missing:
            return [missing_dice_draft(ctx, duel, turn_no, missing, dice_per_post)]
        outcome = rules.resolve_turn(
            state,
            turn_posts,
            dice,
            ruleset=ruleset,
            overrides=existing.overrides if existing else {},
            waived={(a, b) for a, b in existing.waived} if existing else set(),
        )
        inputs: dict[str, Any] = {
            "state_before": state.to_dict(),
            "posts": [asdict(p) for p in turn_posts],
            "dice": {str(k): list(v) for k, v in dice.items()},
            "extra_posts": extra,
            "late_edits": late_edits,
            "dice_late_edits": [v["post_id"] for v in late_edits],
        }
        data = with_late_edits(outcome.to_dict(), late_edits)
        context = turn_context(ctx, duel, inputs, data)
        text = ctx.render("turn.bbcode.j2", context)
        upsert_violations(
            ctx.storage, duel.id, turn_no, "turn = ?", [turn_no], data["violations"], ctx.now(),
        )  # fmt: skip
        log.debug(  # rendered again on every poll while pending: the referee logs changes
            "duel %s turn %s: rendered (posts %s; %s)",
            duel.id,
            turn_no,
            ",".join(str(p["post_id"]) for p in inputs["posts"]),
            f"winner {outcome.winner}"
            if outcome.winner
            else "draw"
            if outcome.draw
            else "no winner yet",
        )
        hold = hold_reason(existing, inputs["dice_late_edits"])
        return [
            Draft(turn_no, "turn", f"turn{turn_no}", text, context, inputs, data, hold=hold,
                  hold_over=hold is not None)
        ]  # fmt: skip

    # -- publication and review ---------------------------------------------------------
    def on_published(self, storage: Storage, duel: Duel, decl: Declaration, now: datetime) -> bool:
        """The opening starts the duel; a turn's outcome (with the referee's overrides)
        becomes the duel's state (:meth:`forumbot.storage.Storage.record_turn`); a final one
        finishes it, as does a concession (kind ``closure``). No deadline (classic has no
        silence rule)."""
        ctx = decl.stored
        if decl.kind == "opening":
            state = rules.start_duel(DuelState.from_dict(duel.state))
            storage.update_duel(
                duel.id,
                status="running",
                opening_post_id=decl.published_post_id,
                state_json=json.dumps(state.to_dict(), ensure_ascii=False),
            )
            return False
        if decl.kind == "closure":  # a concession (forumbot.duels.concession): no turn
            storage.update_duel(
                duel.id,
                status="finished",
                finished_at=iso(now),
                state_json=json.dumps(ctx["outcome"]["state"], ensure_ascii=False),
            )
            return False
        inputs = ctx["inputs"]
        storage.record_turn(
            duel.id, decl.turn, inputs["state_before"], inputs["posts"], inputs["dice"],
            ctx["outcome"], now,
        )  # fmt: skip
        return False

    def recompute(
        self, storage: Storage, duel: Duel, decl: Declaration, overrides: dict[str, Any],
        waived: list[list[str]], language: str,
    ) -> tuple[dict[str, Any], str]:  # fmt: skip
        """Re-run :func:`rules.resolve_turn` on the draft's stored inputs."""
        stored = decl.stored
        inputs = stored["inputs"]
        outcome = rules.resolve_turn(
            DuelState.from_dict(inputs["state_before"]),
            [rules.TurnPost.from_dict(p) for p in inputs["posts"]],
            {int(k): tuple(v) for k, v in inputs["dice"].items()},
            ruleset=load_ruleset(str(duel.ruleset)),
            overrides=overrides,
            waived={(a, b) for a, b in waived},
        )
        context = dict(stored["context"])
        context["outcome"] = with_late_edits(outcome.to_dict(), inputs.get("late_edits", []))
        context["decisions"] = referee_decisions(context["outcome"])
        context["balance"] = classic_balance(inputs, context["outcome"])
        bot_dice = context.get("dice_source", "bot") == "bot"
        context["dice_secret"] = duel.dice_secret if outcome.finished and bot_dice else None
        text = render("turn.bbcode.j2", context, language)
        return {"context": context, "inputs": inputs, "outcome": context["outcome"]}, text

    def sync_violations(
        self, storage: Storage, decl: Declaration, outcome: dict[str, Any], now: datetime
    ) -> None:
        upsert_violations(
            storage, decl.duel_id, decl.turn, "turn = ?", [decl.turn],
            list(outcome.get("violations", [])), now,
        )  # fmt: skip

    def deadline_for(self, storage: Storage, duel: Duel, decl: Declaration) -> DeadlineSpec:
        raise NotImplementedError("classic duels have no deadlines")


CLASSIC = ClassicFlow()

__all__ = ["CLASSIC", "ClassicFlow", "last_published_post", "turn_context", "with_late_edits"]
