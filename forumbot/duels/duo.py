"""The two-against-two fatigue flow in the running bot (seed 001, issue 5).

:func:`advance_duo` (through :data:`DUO`, the registry's ``"duo"`` flow) drafts the next
declaration of a running 2v2: one post, or two when all four share a zone
(:func:`rules.duo.posts_per_declaration`). Dice: one d6 « Pari » per post, derived like the 1v1
flow's (:class:`forumbot.duels.flow.DiceSource`); on a board that rolls its own dice (Forumactif)
the forum's dice on the stored post are used instead, a post lacking them holds the draft, and
the declarations say the forum rolled them and publish no seed (the placement and reward draws
still come from the bot's secret, never revealed there). Publication goes through the fatigue
path (:func:`forumbot.duels.fatigue_posts.apply_published_fatigue`: ``state_json``, finish,
deadline); the full 2v2 state is stored in each draft's context (``duo_state``) and the current
state is the one of the latest published 2v2 declaration.

The duel's records and side effects (data files, queries, the opening, owls, zone reveals,
referee tasks) are in :mod:`forumbot.duels.duo_board` and importable from here; the end-of-duel
rewards are the club's (:mod:`forumbot.club.duo_settling`, run by
:meth:`forumbot.club.jobs.Club.two_against_two`).
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from datetime import datetime
from typing import Any

from forumbot.duels.deadline_clock import deadline_clock
from forumbot.duels.dice_edits import dice_late_posts, hold_reason
from forumbot.duels.duo_board import (
    DATA,
    REWARD_FR,
    DuoBusy,
    add_task,
    close_task,
    current_state,
    duo_row,
    duo_running,
    duo_settings,
    environments,
    is_duo,
    load_env,
    make_draw,
    open_duo_duel,
    opening_context,
    owl_magic_types,
    referee_tasks,
    reveal_zones,
    solved_tasks,
    topic_url,
    zone_owl_key,
)
from forumbot.duels.duo_context import turn_context
from forumbot.duels.ending import conceding
from forumbot.duels.fatigue_posts import (
    ACTION_FR,
    apply_published_fatigue,
    cancel_silence_drafts,
    late_edit_violation,
    late_edits_since,
    post_in_force,
    read_from,
    replace_step_violations,
    turn_post,
)
from forumbot.duels.flow import (
    DeadlineSpec,
    Draft,
    FlowContext,
    missing_dice_draft,
)
from forumbot.duels.stakes import public_stakes, stakes_terms
from forumbot.duels.violations import upsert_violations
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage
from forumbot.storage.profiles import registration_duel
from forumbot.storage.records import REDRAFTABLE, Declaration, Duel, DuelRecords
from rules.duo import (
    DuoOutcome,
    DuoPost,
    DuoState,
    expected_posters,
    posts_per_declaration,
    resolve_duo_silence,
    resolve_duo_step,
)
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset, PostFacts, count_displayed_lines
from rules.model import TrailEntry, TurnPost

log = logging.getLogger("forumbot.duo")

_USE_PREFIXES = ("objet :", "objet:", "utiliser :", "utiliser:")


def use_item_line(text: str) -> str | None:
    """The item named by an ``Objet :`` / ``Utiliser :`` line of the post, or None."""
    found = None
    for line in text.splitlines():
        low = line.strip().casefold()
        for prefix in _USE_PREFIXES:
            if low.startswith(prefix):
                found = line.strip()[len(prefix) :].strip() or None
    return found


def _consumed_posts(records: DuelRecords) -> tuple[set[int], int]:
    """The post ids the duel's published 2v2 declarations answered, and the last post before
    which nothing unanswered is left to read: the highest answered post id, or the opening's
    post id when none was answered yet.

    A post is read by its id, not by where the declaration landed: a post written between a
    post and the publication of its declaration (or of a relaunch) is still unanswered and
    comes next (found by a break-it pass: it used to be skipped for good). Earlier unanswered
    posts were a duellist's extra posts of a finished turn: never read again."""
    answered: set[int] = set()
    for decl in records.published():
        if decl.kind == "turn":
            answered.update(int(p["post_id"]) for p in decl.inputs.get("posts", []))
    floor = max(answered) if answered else int(records.duel.opening_post_id or 0)
    return answered, floor


def _ran_out(storage: Storage, records: DuelRecords) -> bool:
    """Whether the last published declaration's deadline ran out with fewer posts than it
    waits for (note ``short_turn:...``, :func:`forumbot.duels.deadlines.sweep`)."""
    published = records.published()
    if not published:
        return False
    return bool(storage.duel_tasks.fired_with_note_prefix(published[-1].id, "short_turn:"))


def advance_duo(ctx: FlowContext, duel: Duel, fewer: bool = False) -> list[Draft]:
    """The draft a 2v2 duel's recorded posts call for; the zone owls of published
    declarations and the referee tasks of mechanism attempts are written on the way.
    ``fewer``: the declaration's deadline ran out with fewer posts than it waits for
    (:meth:`DuoFlow.short_draft`): the posts that came are declared as they are."""
    storage = ctx.storage
    records = ctx.records_of(duel)
    if duel.status != "running" or conceding(storage, duel.id, records):
        return []
    state = current_state(storage, duel, records)
    reveal_zones(ctx, duel, state)
    if state.duel.finished:
        return []
    names = {n.casefold(): n for n in state.names()}
    answered, floor = _consumed_posts(records)
    rows = []
    seen: set[str] = set(state.posted)
    for row in records.posts:
        name = names.get((row.author or "").casefold())
        if row.post_id <= floor or row.post_id in answered or name is None:
            continue
        if name in seen or not state.active(name):
            continue
        seen.add(name)
        rows.append((name, row))
    if rows:
        cancel_silence_drafts(ctx, duel, "a duellist posted")  # any post resets the clock
    want = min(posts_per_declaration(state, duo_settings()), len(expected_posters(state)))
    if fewer or _ran_out(storage, records):
        want = min(want, len(rows))
    if not rows or len(rows) < want:
        return []
    rows = rows[:want]
    turn_no = state.duel.turn + 1
    what = f"turn{turn_no}-duo{rows[0][1].post_id}"
    existing = ctx.existing(duel, what)
    if existing is not None and existing.status not in REDRAFTABLE:
        return []
    rs = ctx.rs
    assert isinstance(rs, FatigueRuleset)
    duo = duo_row(storage, duel.id)
    assert duo is not None
    env = load_env(duo["environment"])
    posts: list[DuoPost] = []
    dice: dict[int, tuple[int, ...]] = {}
    facts: dict[int, PostFacts] = {}
    missing: list[dict[str, Any]] = []
    for name, row in rows:
        action, text, late, _version = post_in_force(ctx, duel, row)
        posts.append(
            DuoPost(turn_post(name, row.post_id, action), action.get("move_to"),
                    use_item_line(text))
        )  # fmt: skip
        values = ctx.dice.for_post(duel, rs, turn_no, row, 1)
        if values is None:
            missing.append({"duellist": name, "post_id": row.post_id})
        else:
            dice[row.post_id] = values
        facts[row.post_id] = PostFacts(
            lines=count_displayed_lines(text, int(rs.setting("chars_per_line"))), late_edit=late
        )
    if missing:  # the bot never invents dice on a board that rolls its own (issue 3)
        hours = int(rs.setting("timeout_2v2_hours"))
        clock = deadline_clock(
            ctx, duel, hours, lambda decl: DUO.posts_needed(storage, duel, decl)
        )
        return [missing_dice_draft(ctx, duel, turn_no, missing, 1, what=what, clock=clock)]
    dice_source = ctx.settings.dice_source
    solved = solved_tasks(storage, duel.id, state)
    outcome = resolve_duo_step(
        state, posts, dice, ruleset=rs, env=env, settings=duo_settings(),
        draw=make_draw(duel.secret, ctx.dice.duel_key(duel)), solved=solved,
        waived={(a, b) for a, b in existing.waived} if existing else set(), facts=facts,
        overrides=existing.overrides if existing else {},
    )  # fmt: skip
    # declared posts edited after the next post: proposed to the referee once (RULES.md)
    late_edits = late_edits_since(ctx, duel, exclude=rows[0][1].post_id)
    context = with_late_edits(
        turn_context(
            rs, env, duel, state, posts, dice, outcome, ctx.settings.referee_name,
            dice_source=dice_source,
        ) | ending(storage, duel, outcome),
        late_edits,
    )  # fmt: skip
    text = ctx.render("duo_turn.bbcode.j2", context)
    inputs = {
        "engine": "fatigue",
        "step": "duo",
        "state_before": state.duel.to_dict(),
        "posts": [asdict(p.post) for p in posts],
        "dice": {str(k): list(v) for k, v in dice.items()},
        # what recompute_duo needs to re-run the step with the referee's decisions
        "duo_state_before": state.to_dict(),
        "duo_posts": [{"move_to": p.move_to, "use_item": p.use_item} for p in posts],
        "facts": {str(k): asdict(v) for k, v in facts.items()},
        "solved": [list(x) for x in solved],
        "dice_source": dice_source,
        "late_edits": late_edits,  # read back by late_edits_since: listed once
    }
    now = ctx.now()
    _store_violations(storage, duel.id, turn_no, outcome, [p.post.post_id for p in posts], now)
    _propose_late_edits(storage, duel.id, turn_no, late_edits, now)
    for who, mech, post_id in outcome.mechanism_attempts:
        add_task(
            storage, ctx.board_id, duel.id, "mechanism",
            f"b{ctx.board_id}-duel{duel.id}-mech-{post_id}",
            who, state.zone_of(who), f"{who} tente : {env.mechanism(mech).name}",
            env.mechanism(mech).solution, now, mechanism=mech, post_id=post_id,
        )  # fmt: skip
    log.debug("duel %s turn %s: 2v2 rendered (posts %s)", duel.id, turn_no,
             ",".join(str(p.post.post_id) for p in posts))  # fmt: skip
    # Forumactif: posts this draft rules on, edited after their dice, hold it (issue 16); a
    # declared post edited since is only listed and proposed (its declaration is out)
    own = [p.post.post_id for p in posts]
    inputs["dice_late_edits"] = dice_late_posts(storage, ctx.board_id, own)
    hold = hold_reason(existing, inputs["dice_late_edits"])
    return [Draft(turn_no, "turn", what, text, context, inputs, _Stored(outcome).to_dict(),
                  hold=hold, hold_over=hold is not None)]  # fmt: skip


def with_late_edits(context: dict[str, Any], late_edits: list[dict[str, Any]]) -> dict[str, Any]:
    """A 2v2 declaration's context with the late edits of already declared posts
    (``[{duellist, post_id}]`` from :func:`forumbot.duels.fatigue.late_edits_since`) added to
    its ``violations`` as proposed ``late_edit`` entries (shown « à l'appréciation de
    l'arbitre ») and kept as ``late_edits``. RULES.md "Ruleset fatigue — all duels": a post
    edited after the next post keeps its version in force; the edit is proposed to the
    referee."""
    shown = [late_edit_violation(x) for x in late_edits]
    return {**context, "violations": [*context["violations"], *shown], "late_edits": late_edits}


def _propose_late_edits(
    storage: Storage, duel_id: int, turn_no: int, late_edits: list[dict[str, Any]],
    now: datetime,
) -> None:  # fmt: skip
    """Store the draft's late edits as proposed ``late_edit`` rows: undecided ones of those
    posts replaced (a redraft writes them once), decided ones (confirmed, dismissed) kept.
    Other violations of those posts are left alone."""
    for late in late_edits:
        upsert_violations(
            storage, duel_id, turn_no, "post_id = ? and duellist = ? and rule = 'late_edit'",
            [int(late["post_id"]), late["duellist"]], [late_edit_violation(late)], now,
        )  # fmt: skip


def recompute_duo(
    storage: Storage,
    decl: Declaration | dict[str, Any],
    overrides: dict[str, Any],
    waived: list[list[str]],
    referee_name: str,
    language: str = "fr",
    duel: Duel | None = None,
) -> tuple[dict[str, Any], str]:
    """Re-run a 2v2 draft's step from its stored inputs with the referee's overrides and
    waivers (a waived violation's penalty given back, a computed number set, everything after
    it following: PV, the end, the text); returns (stored context, text), like
    :func:`forumbot.duels.fatigue.recompute_step` for 1v1.

    Args:
        overrides: ``"<duellist>.<field>"`` (``die``, ``bet_won``, ``dodged``, ``landed``,
            ``damage``, ``points``) or ``"<creature>.points"`` -> value, as
            :func:`rules.duo.resolve_duo_step` takes them.
        waived: ``[duellist, violation code]`` pairs.

    Raises:
        rules.RuleError: ``duo.overrides`` for a draft written before the 2v2 inputs were
            stored; ``referee.override`` for an override the engine refuses; any error of the
            engine.
    """
    decl = decl if isinstance(decl, Declaration) else Declaration.from_row(decl)
    inputs = decl.stored["inputs"]
    if "duo_state_before" not in inputs:
        raise RuleError("duo.overrides", "this 2v2 draft predates recomputation: redraft it")
    duel = duel if duel is not None else Duel.from_row(storage.duel(decl.duel_id))
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    duo = duo_row(storage, duel.id)
    assert duo is not None
    env = load_env(duo["environment"])
    state = DuoState.from_dict(inputs["duo_state_before"])
    if inputs.get("step") == SILENCE_STEP:
        outcome = resolve_duo_silence(
            state, ruleset=rs, env=env, settings=duo_settings(),
            draw=make_draw(duel.secret, f"{duo_platform(storage, duel)}:{duel.topic_id}"),
            waived={(a, b) for a, b in waived}, overrides=overrides,
        )  # fmt: skip
        context = turn_context(rs, env, duel, state, [], {}, outcome, referee_name,
                               dice_source=str(inputs.get("dice_source", "bot")))  # fmt: skip
        context |= ending(storage, duel, outcome)
        text = render("duo_turn.bbcode.j2", context, language)
        return {"context": context, "inputs": inputs, "outcome": _Stored(outcome).to_dict()}, text
    posts = [
        DuoPost(TurnPost.from_dict(p), extra.get("move_to"), extra.get("use_item"))
        for p, extra in zip(inputs["posts"], inputs["duo_posts"], strict=True)
    ]
    dice = {int(k): tuple(v) for k, v in inputs["dice"].items()}
    secret = duel.secret
    outcome = resolve_duo_step(
        state, posts, dice, ruleset=rs, env=env, settings=duo_settings(),
        draw=make_draw(secret, f"{duo_platform(storage, duel)}:{duel.topic_id}"),
        solved=[(str(a), str(b), int(c)) for a, b, c in inputs.get("solved", [])],
        waived={(a, b) for a, b in waived},
        facts={int(k): PostFacts(**v) for k, v in inputs.get("facts", {}).items()},
        overrides=overrides,
    )  # fmt: skip
    context = with_late_edits(
        turn_context(
            rs, env, duel, state, posts, dice, outcome, referee_name,
            dice_source=str(inputs.get("dice_source", "bot")),
        ) | ending(storage, duel, outcome),
        list(inputs.get("late_edits", [])),
    )  # fmt: skip
    text = render("duo_turn.bbcode.j2", context, language)
    return {"context": context, "inputs": inputs, "outcome": _Stored(outcome).to_dict()}, text


def ending(storage: Storage, duel: Duel, outcome: DuoOutcome) -> dict[str, Any]:
    """What the final declaration says of the leaderboard and the stakes (reader after issue
    25): ``counted``, the sign-up desk opened the duel, so its end gives the leaderboard point,
    the purse and the chocolate frogs (a duel opened by hand does not, as in 1v1: the
    leaderboard post says « Seuls les duels ouverts par les inscriptions du club comptent »);
    ``owed``, who owes the stakes to whom (:func:`forumbot.duels.stakes.public_stakes`). Empty
    before the end."""
    if not outcome.finished:
        return {}
    terms = stakes_terms(storage, duel.board_id, {"id": duel.id, "stakes": duel.stakes})
    return {
        "counted": registration_duel(storage, duel.id),
        "owed": public_stakes(terms, outcome.winners, outcome.losers),
    }


SILENCE_STEP = "duo_silence"


def silence_draft(ctx: FlowContext, duel: Duel, dl: dict[str, Any], why: str) -> Draft:
    """The 2v2 declaration when a deadline runs out on a turn under way (issue 26, D6;
    :func:`rules.duo.resolve_duo_silence`): the spells waiting on the silent duellists resolve
    undefended, they pass the turn, the turn closes. A draft like any other (review delay;
    a post that comes in first cancels it:
    :func:`forumbot.duels.fatigue_posts.cancel_silence_drafts`)."""
    storage = ctx.storage
    records = ctx.records_of(duel)
    state = current_state(storage, duel, records)
    rs = ctx.rs
    assert isinstance(rs, FatigueRuleset)
    duo = duo_row(storage, duel.id)
    assert duo is not None
    env = load_env(duo["environment"])
    outcome = resolve_duo_silence(
        state, ruleset=rs, env=env, settings=duo_settings(),
        draw=make_draw(duel.secret, ctx.dice.duel_key(duel)),
    )  # fmt: skip
    turn_no = state.duel.turn + 1
    inputs = {
        "engine": "fatigue",
        "step": SILENCE_STEP,
        "state_before": state.duel.to_dict(),
        "posts": [],
        "dice": {},
        "duo_state_before": state.to_dict(),
        "duo_posts": [],
        "facts": {},
        "solved": [],
        "silent": list(expected_posters(state)),
        "reason": why,
        "dice_source": ctx.settings.dice_source,
        "late_edits": [],
    }
    context = turn_context(rs, env, duel, state, [], {}, outcome, ctx.settings.referee_name,
                           dice_source=ctx.settings.dice_source)  # fmt: skip
    context |= ending(storage, duel, outcome)
    text = ctx.render("duo_turn.bbcode.j2", context)
    _store_violations(storage, duel.id, turn_no, outcome, [], ctx.now())
    what = f"turn{turn_no}-silence{dl['declaration_id']}"
    return Draft(turn_no, "turn", what, text, context, inputs, _Stored(outcome).to_dict())


def duo_platform(storage: Storage, duel: Duel) -> str:
    """The platform name in the duel's derivation key (``phpbb3``, ``forumactif``)."""
    return str(storage.duel_rows.board(duel.board_id)["platform"])


class _Stored:
    """What :class:`forumbot.duels.flow.DraftWriter` stores as the outcome: the 2v2 duel's
    four-duellist ``state`` (for ``duels.state_json`` at publication) and ``finished``."""

    def __init__(self, outcome: DuoOutcome) -> None:
        self.outcome = outcome

    def to_dict(self) -> dict[str, Any]:
        o = self.outcome
        return {
            "turn": o.state.duel.turn,
            "state": o.state.duel.to_dict(),
            "finished": o.finished,
            "winner": o.state.duel.winner,
            "draw": o.draw,
            "violations": [v.to_dict() for v in o.violations],
            "attacks": [a.to_dict() for a in o.attacks],
            "winners": list(o.winners),
            "losers": list(o.losers),
            "trail": [t.to_dict() for t in o.trail if isinstance(t, TrailEntry)],
            "dice": {str(k): list(v) for k, v in o.dice.items()},
        }


def _store_violations(
    storage: Storage, duel_id: int, turn_no: int, outcome: DuoOutcome, post_ids: list[int],
    at: datetime,
) -> None:  # fmt: skip
    """The step's violations, replacing the undecided rows of its posts (decided ones kept)."""
    ids = sorted(set(post_ids) | {v.post_id for v in outcome.violations})
    marks = ",".join("?" * len(ids))
    # in place: an undecided violation keeps its id across polls (issue 13)
    upsert_violations(
        storage, duel_id, turn_no, f"post_id in ({marks})", ids,
        [v.to_dict() for v in outcome.violations], at,
    )  # fmt: skip


class DuoFlow:
    """Two against two (module doc); a 2v2 is a fatigue duel with a ``duo_duels`` row."""

    name = "duo"
    watches_edits = True
    timeout_kind: str | None = "2v2"
    opening_template = "duo_opening.bbcode.j2"
    relaunch_template = "duo_relaunch.bbcode.j2"

    def read_from(self, ctx: FlowContext, duel: Duel, reads: int) -> int | None:
        return read_from(ctx, duel, reads)

    def advance(self, ctx: FlowContext, duel: Duel) -> list[Draft]:
        return advance_duo(ctx, duel)

    def on_published(self, storage: Storage, duel: Duel, decl: Declaration, now: datetime) -> bool:
        return apply_published_fatigue(storage, duel, decl, now)

    def recompute(
        self, storage: Storage, duel: Duel, decl: Declaration, overrides: dict[str, Any],
        waived: list[list[str]], language: str,
    ) -> tuple[dict[str, Any], str]:  # fmt: skip
        referee_name = decl.stored["context"].get("referee_name", "L'arbitre")
        return recompute_duo(storage, decl, overrides, waived, referee_name, language, duel)

    def sync_violations(
        self, storage: Storage, decl: Declaration, outcome: dict[str, Any], now: datetime
    ) -> None:
        replace_step_violations(storage, decl.duel_id, decl.turn, decl.inputs, outcome, now)

    def deadline_for(self, storage: Storage, duel: Duel, decl: Declaration) -> DeadlineSpec:
        """RULES.md: "In 2v2 the clock runs for whoever is expected next" [D]: the active
        duellists who have not posted in the turn (the declaration's stored ``duo_state``,
        else the duel's current 2v2 state). Issue 26, D6: while a turn is under way (someone
        posted in it) the phase is ``awaiting_defense``: at the deadline the silent pass the
        turn and the spells waiting on them resolve undefended (:meth:`undefended_draft`);
        a turn nobody opened is ``awaiting_initiative`` (relaunch, then close)."""
        stored = decl.context
        if stored.get("duo_state"):
            state = DuoState.from_dict(stored["duo_state"])
        else:
            state = current_state(storage, duel)
        relaunches = int(stored.get("relaunch_number", 1)) if decl.kind == "relaunch" else 0
        phase = "awaiting_defense" if state.posted and not state.duel.finished else (
            "awaiting_initiative"
        )
        return DeadlineSpec(phase, list(expected_posters(state)), relaunches)

    def undefended_draft(
        self, ctx: FlowContext, duel: Duel, dl: dict[str, Any], why: str
    ) -> Draft:
        """The draft of a deadline run out on a turn under way (:func:`silence_draft`)."""
        return silence_draft(ctx, duel, dl, why)

    def posts_needed(self, storage: Storage, duel: Duel, decl: Declaration) -> int:
        """How many of the expected duellists must post before the declaration ``decl``'s
        deadline is answered: the posts the next declaration waits for
        (:func:`rules.duo.posts_per_declaration`: two when all four share a zone, one of
        each duo; seed 001 "l'arbitre ne postera d'intervention que tous les deux postes"),
        at most the expected posters. One post of two does not stop the clock (soak, issue
        23: the duel waited for the second post for ever, with no deadline left)."""
        stored = decl.context
        if stored.get("duo_state"):
            state = DuoState.from_dict(stored["duo_state"])
        else:
            state = current_state(storage, duel)
        return max(1, min(posts_per_declaration(state, duo_settings()),
                          len(expected_posters(state))))  # fmt: skip

    def short_draft(self, ctx: FlowContext, duel: Duel) -> list[Draft]:
        """The declaration's deadline ran out after some expected posts came, not all it
        waits for (:meth:`posts_needed`): the posts that came are declared as they are, the
        silent are expected again by the next declaration's deadline (RULES.md: "the clock
        runs for whoever is expected next")."""
        return advance_duo(ctx, duel, fewer=True)


DUO = DuoFlow()

__all__ = [
    "ACTION_FR",
    "DATA",
    "DUO",
    "REWARD_FR",
    "DuoBusy",
    "DuoFlow",
    "advance_duo",
    "close_task",
    "current_state",
    "duo_row",
    "duo_running",
    "duo_settings",
    "ending",
    "environments",
    "is_duo",
    "load_env",
    "make_draw",
    "open_duo_duel",
    "opening_context",
    "owl_magic_types",
    "recompute_duo",
    "referee_tasks",
    "reveal_zones",
    "topic_url",
    "turn_context",
    "use_item_line",
    "with_late_edits",
    "zone_owl_key",
]
