"""The fatigue ruleset's one-against-one turn flow in the running bot (seed 001, issue 4).

A 1v1 turn (RULES.md "Ruleset fatigue — duels one against one"): the first duellist to post
after the last published declaration takes the **initiative** (cast only); the bot drafts the
**first declaration** (engine step ``"initiative"``: the initiative post's checks, the spell
pending). Once it is published, the other duellist's first post after the initiative post is
the **defense** (cast, dodge, dodge_riposte) and the bot drafts the **second declaration**
(step ``"defense"``): both posts resolve and the turn closes. A defense that never comes is
handled by :mod:`forumbot.duels.deadlines` (step ``"relaunch"``, drafted by :func:`step_draft`).

Dice: one d6 « Pari » per post that carries a bet, derived exactly like classic's
(:class:`forumbot.duels.flow.DiceSource`: the duel key, the turn number, the post id, the dice
name and 1 die), recorded in ``dice_rolls``; on a board that rolls its own dice (Forumactif)
the forum's dice named like the ruleset's ``dice_name`` are used and a missing one holds the
draft.

The draft of a post uses its version in force; ``late_edit`` is proposed by the engine when the
post is declared after the late edit; a late edit of a post already declared is listed in the
next draft (:mod:`forumbot.duels.fatigue_posts`, shared with the 2v2 flow, says how; it also
says how much of the topic is read each poll).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict, replace
from datetime import datetime
from typing import Any

from forumbot.duels.balance import balances, fatigue_changes
from forumbot.duels.deadline_clock import deadline_clock
from forumbot.duels.decisions import referee_decisions
from forumbot.duels.dice_edits import dice_late_posts, hold_reason
from forumbot.duels.ending import conceding
from forumbot.duels.fatigue_defense import defense_options, nothing_to_dodge
from forumbot.duels.fatigue_posts import (
    ACTION_FR,
    apply_published_fatigue,
    cancel_silence_drafts,
    late_edit_violation,
    late_edits_since,
    next_post_at,
    post_in_force,
    read_from,
    read_window,
    replace_step_violations,
    turn_post,
)
from forumbot.duels.flow import (
    DeadlineSpec,
    Draft,
    FlowContext,
    duellist_of,
    missing_dice_draft,
)
from forumbot.duels.opening import early_casts
from forumbot.duels.stakes import final_stakes
from forumbot.publish.labels import caster_effects, effect_bonuses, spell_modified
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage
from forumbot.storage.profiles import registration_duel
from forumbot.storage.records import (
    REDRAFTABLE,
    Declaration,
    Duel,
    DuelRecords,
    StoredPost,
)
from parsers.registration import parse_magic_types
from rules.fatigue import (
    FatigueRuleset,
    PostFacts,
    close_without_winner,
    count_displayed_lines,
    has_legal_action,
    new_fatigue_duel,
    resolve_fatigue_step,
)
from rules.model import DuelState, TurnOutcome, TurnPost
from rules.ruleset import Ruleset

log = logging.getLogger("forumbot.fatigue")


# --- Duel setup -----------------------------------------------------------------------------


def fatigue_duellists(
    text: str, found: Sequence[tuple[str, str]]
) -> list[tuple[str, str, list[str]]] | None:
    """``(name, year, magic types)`` for the duellists ``found`` in a topic's first post.

    A duellist's magic types are read from the lines naming them (after the name), e.g.
    "Aurora Vexley (5e année, brutale)" or "Aurora Vexley : brutale et discrète". A year
    ``"7+"`` (the parser's reading of "adulte") becomes fatigue's ``"adult"`` (decision:
    a seventh-year is written "7e année"). None when a duellist's types are not found.
    """
    out: list[tuple[str, str, list[str]]] = []
    for name, year in found:
        kinds: list[str] = []
        for line in text.splitlines():
            at = line.casefold().find(name.casefold())
            if at < 0:
                continue
            rest = line[at + len(name) :]
            for other, _ in found:
                cut = rest.casefold().find(other.casefold())
                if other != name and cut >= 0:
                    rest = rest[:cut]
            keys, _unknown = parse_magic_types(rest.replace("(", " ").replace(")", " "))
            kinds.extend(k for k in keys if k not in kinds)
            if kinds:
                break
        if not kinds:
            return None
        out.append((name, "adult" if year == "7+" else year, kinds[:2]))
    return out


def opening_context(ruleset: Any, state: DuelState) -> dict[str, Any]:
    """Extra context of the fatigue opening declaration: magic types, bets, delay."""
    return {
        "duellists": [
            {
                "name": d.name,
                "year": d.year,
                "points": d.points,
                "magic_types": [ruleset.magic_type(t).label for t in d.magic_types],
            }
            for d in state.duellists
        ],
        "bets": {k: [list(b) for b in v] for k, v in ruleset.bets.items()},
        "hours": int(ruleset.setting("timeout_1v1_hours")),
        "dice_name": ruleset.dice_name,
        "min_lines": int(ruleset.setting("min_lines")),
        "dodge_success": str(ruleset.setting("dodge_success")),
    }


# --- The flow -------------------------------------------------------------------------------


def last_published_post(records: DuelRecords) -> int:
    """Post id of the duel's latest published declaration (or its opening post), from the
    duel's snapshot."""
    last = records.last_published_post_id()
    return int(last) if last is not None else int(records.duel.opening_post_id or 0)


def _duellist_rows(ctx: FlowContext, duel: Duel, after: int) -> list[tuple[str, StoredPost]]:
    names = {d["name"].casefold(): d["name"] for d in ctx.storage.duellists(duel.id)}
    out = []
    for row in ctx.records_of(duel).posts_after(after):
        name = duellist_of(ctx.storage, duel.id, row) if names else None
        if name is not None:
            out.append((name, row))
    return out


def advance_fatigue(ctx: FlowContext, duel: Duel) -> list[Draft]:
    """The draft a running fatigue duel's recorded posts call for (initiative or defense)."""
    state = DuelState.from_dict(duel.state)
    if state.finished:
        return []
    turn_no = state.turn + 1
    if not state.pending:
        since = last_published_post(ctx.records_of(duel))
        rows = _duellist_rows(ctx, duel, since)
        if not rows:
            return []
        cancel_silence_drafts(ctx, duel, "a duellist posted")
        name, row = rows[0]
        extra = [r.post_id for n, r in rows[1:] if n == name]
        return _draft_step(ctx, duel, state, "initiative", turn_no, name, row, extra)
    init = state.pending[0]
    defender = next(d.name for d in state.duellists if d.name != init.duellist)
    rows = [(n, r) for n, r in _duellist_rows(ctx, duel, init.post_id) if n == defender]
    if not rows:
        return []
    cancel_silence_drafts(ctx, duel, "the defense came")
    name, row = rows[0]
    return _draft_step(ctx, duel, state, "defense", turn_no, name, row, [])


def _draft_step(
    ctx: FlowContext,
    duel: Duel,
    state: DuelState,
    step: str,
    turn_no: int,
    name: str,
    row: StoredPost,
    extra: list[int],
) -> list[Draft]:
    what = f"turn{turn_no}-{step}"
    existing = ctx.existing(duel, what)
    if existing is not None and existing.status not in REDRAFTABLE:
        return []
    ruleset = ctx.rs
    action, text, late, version = post_in_force(ctx, duel, row)
    post = turn_post(name, row.post_id, action)
    die = () if _endures(ruleset, state, step, name) else ctx.dice.for_post(
        duel, ruleset, turn_no, row, 1
    )
    if die is None:
        missing = [{"duellist": name, "post_id": row.post_id}]
        hours = int(ruleset.setting("timeout_1v1_hours"))
        clock = deadline_clock(ctx, duel, hours)
        return [missing_dice_draft(ctx, duel, turn_no, missing, 1, what=what, clock=clock)]
    facts = {
        row.post_id: PostFacts(
            lines=count_displayed_lines(text, int(ruleset.setting("chars_per_line"))),
            late_edit=late,
        )
    }
    outcome = resolve_fatigue_step(
        state,
        [post],
        {row.post_id: die},
        ruleset=ruleset,
        step=step,  # type: ignore[arg-type]
        overrides=existing.overrides if existing else {},
        waived={(a, b) for a, b in existing.waived} if existing else set(),
        facts=facts,
    )
    inputs = {
        "engine": "fatigue",
        "step": step,
        "state_before": state.to_dict(),
        "posts": [post.to_dict()],
        "dice": {str(row.post_id): list(die)},
        "facts": {str(k): asdict(v) for k, v in facts.items()},
        "versions": {str(row.post_id): version},
        "extra_posts": extra,
        "late_edits": late_edits_since(ctx, duel, exclude=row.post_id),
        "dice_source": ctx.settings.dice_source,
    }
    # Forumactif: the post this draft rules on, edited after its dice, holds it (issue 16); a
    # declared post edited since is only listed and proposed (its declaration is out)
    inputs["dice_late_edits"] = dice_late_posts(ctx.storage, ctx.board_id, [row.post_id])
    draft = step_draft(ctx, duel, what, turn_no, inputs, outcome)
    hold = hold_reason(existing, inputs["dice_late_edits"])
    return [replace(draft, hold=hold, hold_over=True) if hold else draft]


def _endures(ruleset: Any, state: DuelState, step: str, name: str) -> bool:
    """True when ``name``, the defender, has no legal action this step: no bet die is rolled
    (nor asked of the forum) for him (``resolve_fatigue_step``'s ``dice``; RULES.md Fine
    points: "A duellist left with no legal action posts role-play and endures")."""
    if step != "defense":
        return False
    me = state.duellist(name)
    opponents = tuple(d.name for d in state.duellists if d.name != name)
    return not has_legal_action(
        me, ruleset.cfg, can_be_dodging=True, ruleset=ruleset, opponents=opponents
    )


def step_draft(
    ctx: FlowContext, duel: Duel, what: str, turn_no: int, inputs: dict[str, Any],
    outcome: TurnOutcome,
) -> Draft:  # fmt: skip
    """A fatigue step draft (kind ``turn``, key ``what``); its proposed violations stored."""
    context = step_context(ctx.rs, duel, inputs, outcome, ctx.settings.referee_name, ctx.storage)
    text = ctx.render("fatigue_turn.bbcode.j2", context)
    replace_step_violations(ctx.storage, duel.id, turn_no, inputs, outcome.to_dict(), ctx.now())
    log.info(
        "duel %s turn %s: %s draft (posts %s; finished %s)",
        duel.id,
        turn_no,
        inputs["step"],
        ",".join(str(p["post_id"]) for p in inputs["posts"]),
        outcome.finished,
    )
    return Draft(turn_no, "turn", what, text, context, inputs, outcome.to_dict())


# --- Declarations' context ------------------------------------------------------------------


def _trail(outcome: dict[str, Any], quantity: str) -> Any:
    value = None
    for entry in outcome.get("trail", []):
        if entry["quantity"] == quantity:
            value = entry["value"]
    return value


def _trail_rule(outcome: dict[str, Any], quantity: str) -> str | None:
    """The rule id of the last trail entry for ``quantity`` (``"fatigue.undodgeable"``...)."""
    rule = None
    for entry in outcome.get("trail", []):
        if entry["quantity"] == quantity:
            rule = entry.get("rule")
    return rule


_NEUTRAL_EFFECTS = ("spell_family", "undodgeable")


def self_spells(ruleset: Any) -> list[str]:
    """Names of the spells that act on their caster only (a ward such as Protego, a heal): every
    effect but ``spell_family`` / ``undodgeable`` has ``applies = "caster"``
    (``rules/data/fatigue.toml``). The declaration words them as cast on the caster, not as
    an attack on the opponent."""
    out = []
    for spell in getattr(ruleset, "spells", ()):
        effects = [e for e in spell.effects if e.kind not in _NEUTRAL_EFFECTS]
        if effects and all(getattr(e, "applies", "target") == "caster" for e in effects):
            out.append(spell.name)
    return out


def step_context(
    ruleset: Ruleset, duel: Duel, inputs: dict[str, Any], outcome: TurnOutcome | dict[str, Any],
    referee_name: str, storage: Storage | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The template context of a fatigue step declaration (stored with the draft).
    ``storage``: to tell whether the sign-up desk opened the duel (``club_duel``: only then
    does the final declaration announce the leaderboard point and purse)."""
    data = outcome if isinstance(outcome, dict) else outcome.to_dict()
    state_before = inputs["state_before"]
    step = inputs["step"]
    posts = []
    all_posts = list(state_before.get("pending", [])) + list(inputs["posts"])
    for p in all_posts:
        pid = str(p["post_id"])
        die = (inputs["dice"].get(pid) or p.get("dice") or [None])[0]
        name = p["duellist"]
        declared = p.get("kind") or ("cast" if (p.get("spell") or p.get("spell_text")) else None)
        posts.append(
            {
                "duellist": name,
                "post_id": p["post_id"],
                "role": "initiative"
                if p in state_before.get("pending", []) or step == "initiative"
                else "defense",
                "action": ACTION_FR.get(declared or "", "aucune action"),
                "kind": declared,
                "spell": p.get("spell") or p.get("spell_text"),
                "bet": p.get("bet"),
                "die": die,
                "bet_won": _trail(data, f"{name}.bet_won"),
                "current": pid in inputs["dice"],
                # no legal action: no bet die, no bet (issue 25, reader2 W1)
                "endures": bool(_trail(data, f"{name}.endures")) or die is None,
            }
        )
    init_name = all_posts[0]["duellist"] if all_posts else None
    defender = next((d["name"] for d in state_before["duellists"] if d["name"] != init_name), None)
    if step == "relaunch" and state_before.get("pending"):
        init_name = state_before["pending"][0]["duellist"]
        defender = next(d["name"] for d in state_before["duellists"] if d["name"] != init_name)
    return {
        "title": duel.title,
        "turn": data["turn"],
        "step": step,
        "unit": ruleset.unit,
        "dice_name": ruleset.dice_name,
        "dice_source": inputs.get("dice_source", "bot"),
        "posts": posts,
        "outcome": data,
        "dodged": _trail(data, f"{defender}.dodged") if defender else None,
        "riposte": _trail(data, f"{defender}.riposte.landed") if defender else None,
        # Why a dodge or a riposte failed (the declaration says it): the engine's rule and the
        # club's dodge condition (fatigue.toml dodge_success).
        "dodge_rule": _trail_rule(data, f"{defender}.dodged") if defender else None,
        "riposte_rule": _trail_rule(data, f"{defender}.riposte.landed") if defender else None,
        "dodge_success": str(ruleset.setting("dodge_success")),
        "self_spells": self_spells(ruleset),
        # a cast does not miss; only a dodge avoids it, never for these (reader2 C9)
        "undodgeable": [
            s.name for s in getattr(ruleset, "spells", ())
            if any(e.kind == "undodgeable" for e in s.effects)
        ],
        # What each spell cast on its caster will do and from when (issue 25, reader W2: a
        # ward starts with the next turn, never against this turn's spell).
        "caster_effects": _caster_effects(ruleset, data),
        # the turns a caster's magic type adds to a running effect (issue 25, reader4 W2)
        "bonuses": effect_bonuses(
            ruleset,
            {d["name"]: d.get("magic_types", []) for d in data["state"]["duellists"]},
            [e for list_ in data.get("effects_next", {}).values() for e in list_],
        )
        if isinstance(ruleset, FatigueRuleset)
        else {},
        "defender": defender,
        # no spell of the initiative aims at the defender (void, or cast on its caster): no
        # defense is offered against nothing, and a dodge is said to change nothing, and
        # whether it counts for the next turn (issue 25, reader4 W1)
        **nothing_to_dodge(ruleset, data, init_name, defender),
        # What the defender may answer with, and what bars the rest (issue 25, reader2 W1)
        **defense_options(ruleset, data, step, defender),
        "extra_posts": inputs.get("extra_posts", []),
        "late_edits": inputs.get("late_edits", []),
        "hours": int(ruleset.setting("timeout_1v1_hours")),
        "stakes": duel.stakes,
        # accepted by every duellist, or only proposed (issue 25, reader W1)
        "owed": final_stakes(storage, duel.board_id, duel.id, duel.stakes, data),
        "referee_name": referee_name,
        # Forum-rolled dice (Forumactif): no seed of the bot's to commit to or reveal.
        "dice_secret": duel.dice_secret
        if data["finished"] and inputs.get("dice_source", "bot") == "bot"
        else None,
        "commitment": duel.dice_commitment if inputs.get("dice_source", "bot") == "bot" else None,
        "decisions": referee_decisions(data),
        "magic": {
            d["name"]: [ruleset.magic_type(t).label for t in d.get("magic_types", [])]
            for d in data["state"]["duellists"]
        },
        # « attacker|spell » of each attack a magic-type modifier changes: only these say
        # « avant modificateurs » (issue 25).
        "modified": _modified(ruleset, data),
        "club_duel": storage is not None and registration_duel(storage, duel.id),
        # Every PV change, carried effects included, adding up to the new totals (issue 25).
        "balance": balances(
            {d["name"]: int(d["points"]) for d in state_before["duellists"]},
            {d["name"]: int(d["points"]) for d in data["state"]["duellists"]},
            fatigue_changes(data, state_before),
            decided=[d["quantity"] for d in referee_decisions(data)],
        ),
    }


def _caster_effects(ruleset: Ruleset, data: dict[str, Any]) -> dict[str, list[Any]]:
    """``"attacker|spell"`` -> :func:`~forumbot.publish.labels.caster_effects` of each attack
    of ``data`` whose spell acts on its caster (:func:`self_spells`)."""
    if not isinstance(ruleset, FatigueRuleset):
        return {}
    own = set(self_spells(ruleset))
    types = {d["name"]: d.get("magic_types", []) for d in data["state"]["duellists"]}
    return {
        f"{a['attacker']}|{a['spell']}": caster_effects(
            ruleset, types.get(a["attacker"], []), a["spell"]
        )
        for a in data.get("attacks", [])
        if a.get("spell") in own
    }


def _modified(ruleset: Ruleset, data: dict[str, Any]) -> list[str]:
    if not isinstance(ruleset, FatigueRuleset):
        return []
    types = {d["name"]: d.get("magic_types", []) for d in data["state"]["duellists"]}
    return [
        f"{a['attacker']}|{a['spell']}"
        for a in data.get("attacks", [])
        if a.get("spell") and spell_modified(
            ruleset, types.get(a["attacker"], []), types.get(a["defender"], []), a["spell"]
        )
    ]


def recompute_step(
    storage: Storage,
    decl: Declaration | dict[str, Any],
    overrides: dict[str, Any],
    waived: list[list[str]],
    referee_name: str,
    language: str = "fr",
    duel: Duel | None = None,
) -> tuple[dict[str, Any], str]:
    """Re-run the fatigue engine on a step draft's stored inputs with the referee's
    overrides and waivers; returns (stored context, text). ``duel``: the draft's duel when
    already read. Raises rules.RuleError."""
    decl = decl if isinstance(decl, Declaration) else Declaration.from_row(decl)
    inputs = decl.stored["inputs"]
    duel = duel if duel is not None else Duel.from_row(storage.duel(decl.duel_id))
    ruleset = load_ruleset(str(duel.ruleset))
    state = DuelState.from_dict(inputs["state_before"])
    if inputs["step"] == "closure":
        outcome = close_without_winner(state, ruleset=ruleset)
    else:
        outcome = resolve_fatigue_step(
            state,
            [TurnPost.from_dict(p) for p in inputs["posts"]],
            {int(k): tuple(v) for k, v in inputs["dice"].items()},
            ruleset=ruleset,
            step=inputs["step"],
            overrides=overrides,
            waived={(a, b) for a, b in waived},
            facts={int(k): PostFacts(**v) for k, v in inputs.get("facts", {}).items()},
        )
    context = step_context(ruleset, duel, inputs, outcome, referee_name, storage)
    template = (
        "fatigue_closure.bbcode.j2" if inputs["step"] == "closure" else "fatigue_turn.bbcode.j2"
    )
    text = render(template, context, language)
    return {"context": context, "inputs": inputs, "outcome": outcome.to_dict()}, text


class FatigueFlow:
    """Fatigue duels one against one (module doc)."""

    name = "fatigue"
    watches_edits = True
    timeout_kind: str | None = "1v1"
    keeps_early_state = True
    opening_template = "fatigue_opening.bbcode.j2"
    relaunch_template = "fatigue_relaunch.bbcode.j2"

    def topic_duellists(self, text: str, found: Sequence[tuple[str, str]]) -> list[Any] | None:
        return fatigue_duellists(text, found)

    def new_state(
        self, rs: Ruleset, pairs: list[tuple[str, str]], types: list[list[str]],
        stakes: str | None,
    ) -> DuelState:  # fmt: skip
        return new_fatigue_duel(
            rs, [(n, y, t) for (n, y), t in zip(pairs, types, strict=True)], stakes
        )

    def opening_extra(self, rs: Ruleset, state: DuelState) -> dict[str, Any]:
        return opening_context(rs, state)

    def read_from(self, ctx: FlowContext, duel: Duel, reads: int) -> int | None:
        return read_from(ctx, duel, reads)

    def advance(self, ctx: FlowContext, duel: Duel) -> list[Draft]:
        if duel.status == "open":
            return early_casts(ctx, self, duel)
        if duel.status != "running" or conceding(ctx.storage, duel.id, ctx.records_of(duel)):
            return []
        return advance_fatigue(ctx, duel)

    def on_published(self, storage: Storage, duel: Duel, decl: Declaration, now: datetime) -> bool:
        return apply_published_fatigue(storage, duel, decl, now)

    def recompute(
        self, storage: Storage, duel: Duel, decl: Declaration, overrides: dict[str, Any],
        waived: list[list[str]], language: str,
    ) -> tuple[dict[str, Any], str]:  # fmt: skip
        referee_name = decl.stored["context"].get("referee_name", "L'arbitre")
        return recompute_step(storage, decl, overrides, waived, referee_name, language, duel)

    def sync_violations(
        self, storage: Storage, decl: Declaration, outcome: dict[str, Any], now: datetime
    ) -> None:
        replace_step_violations(storage, decl.duel_id, decl.turn, decl.inputs, outcome, now)

    def deadline_for(self, storage: Storage, duel: Duel, decl: Declaration) -> DeadlineSpec:
        """After a first declaration the defender is expected; else both (the initiative)."""
        state = DuelState.from_dict(duel.state)
        names = [d.name for d in state.duellists]
        if state.pending:
            return DeadlineSpec(
                "awaiting_defense", [n for n in names if n != state.pending[0].duellist]
            )
        relaunches = 0
        if decl.kind == "relaunch":
            relaunches = int(decl.context.get("relaunch_number", 1))
        return DeadlineSpec("awaiting_initiative", names, relaunches)


FATIGUE = FatigueFlow()

__all__ = [
    "ACTION_FR",
    "FATIGUE",
    "FatigueFlow",
    "advance_fatigue",
    "apply_published_fatigue",
    "cancel_silence_drafts",
    "fatigue_duellists",
    "late_edit_violation",
    "late_edits_since",
    "next_post_at",
    "opening_context",
    "post_in_force",
    "read_window",
    "recompute_step",
    "replace_step_violations",
    "step_context",
    "step_draft",
]
