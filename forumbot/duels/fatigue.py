"""The fatigue ruleset's one-against-one turn flow in the running bot (seed 001, issue 4).

A 1v1 turn (RULES.md "Ruleset fatigue — duels one against one"): the first duellist to post
after the last published declaration takes the **initiative** (cast only); the bot drafts the
**first declaration** (engine step ``"initiative"``: the initiative post's checks, the spell
pending). Once it is published, the other duellist's first post after the initiative post is
the **defense** (cast, dodge, dodge_riposte) and the bot drafts the **second declaration**
(step ``"defense"``): both posts resolve and the turn closes. A defense that never comes is
handled by :mod:`forumbot.duels.deadlines` (step ``"relaunch"``).

Dice: one d6 « Pari » per post that carries a bet, derived exactly like classic's
(:func:`rules.dice.derive_roll` with the duel key, the turn number, the post id, the dice name
and 1 die), recorded in ``dice_rolls``; on a board that rolls its own dice (Forumactif) the
forum's dice named like the ruleset's ``dice_name`` are used and a missing one holds the draft.

Versions in force and late edits. Every distinct text of a post is stored in
``post_versions`` with the time the bot first saw it. "Editing is allowed until anyone (the
declaration included) posts after it": the next post's time is the earliest of the bot's first
sight of any later post and the publication of any later declaration, and
:func:`rules.fatigue.version_in_force` picks the version in force. Both times are the bot's own
observations (forum clocks and edit notes are not trusted, and phpBB shows no edit time): a
version first seen in the same poll as the next post is given the benefit of the doubt (in
force), so an edit made less than one poll interval after the next post can pass as legal.
The draft of a post uses its version in force; ``late_edit`` is proposed by the engine when the
post is declared after the late edit. A late edit of a post already declared cannot change the
published declaration (its dice and text are out): it is listed in the next draft and proposed
to the referee as a ``late_edit`` row (the engine only judges the post it declares).

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
from collections.abc import Sequence
from dataclasses import asdict
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import rules
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from parsers.registration import parse_magic_types
from rules.fatigue import (
    PostFacts,
    close_without_winner,
    count_displayed_lines,
    resolve_fatigue_step,
    version_in_force,
)
from rules.model import DuelState, TurnOutcome, TurnPost

if TYPE_CHECKING:
    from forumbot.duels.referee import Referee

log = logging.getLogger("forumbot.fatigue")

EDITABLE = ("draft", "approved", "held")
ACTION_FR = {
    "cast": "lancer un sort",
    "dodge": "esquiver",
    "dodge_riposte": "esquiver et riposter",
}
_SAME_POLL = timedelta(microseconds=1)


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
    }


# --- Reading posts --------------------------------------------------------------------------


def read_window(ref: Referee, duel: dict[str, Any], *, full: bool) -> int | None:
    """The post id to read a fatigue duel topic from (None: the whole topic): the
    declaration before the last published one (see the module doc)."""
    if full:
        return None
    published = sorted(
        d["published_post_id"]
        for d in ref.storage.declarations(("published",), duel["id"])
        if d["published_post_id"]
    )
    if len(published) >= 2:
        return int(published[-2])
    return None


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


def next_post_at(storage: Storage, board_id: int, duel: dict[str, Any], post_id: int) -> Any:
    """When (bot time) anyone posted after ``post_id``: the first sight of a later post or
    the publication of a later declaration; None when nobody has."""
    times: list[datetime] = []
    row = storage.db.execute(
        "select min(first_seen_at) from posts_seen where board_id = ? and topic_id = ? "
        "and post_id > ?",
        [board_id, duel["topic_id"], post_id],
    ).fetchone()
    if row and row[0]:
        times.append(_dt(row[0]))
    row = storage.db.execute(
        "select min(published_at) from declarations where duel_id = ? and status = 'published' "
        "and published_post_id > ?",
        [duel["id"], post_id],
    ).fetchone()
    if row and row[0]:
        times.append(_dt(row[0]))
    return min(times) if times else None


def post_in_force(
    ref: Referee, duel: dict[str, Any], row: dict[str, Any]
) -> tuple[dict[str, Any], str, bool, int]:
    """(action, text, late_edit, version index) of a stored post's version in force."""
    versions = list(
        ref.storage.db["post_versions"].rows_where(
            "board_id = ? and post_id = ?", [ref.board_id, row["post_id"]], order_by="version"
        )
    )
    if not versions:  # stored before post versions existed: the current text
        return json.loads(row["action_json"] or "{}"), row["text"] or "", False, 0
    nxt = next_post_at(ref.storage, ref.board_id, duel, row["post_id"])
    vif = version_in_force(
        [(_dt(v["seen_at"]), v["text"] or "") for v in versions],
        None if nxt is None else nxt + _SAME_POLL,
    )
    chosen = versions[vif.index]
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


def _duellist_rows(ref: Referee, duel: dict[str, Any], after: int) -> list[tuple[str, dict]]:
    names = {d["name"].casefold(): d["name"] for d in ref.storage.duellists(duel["id"])}
    out = []
    for row in ref.storage.topic_posts(ref.board_id, duel["topic_id"]):
        if row["post_id"] <= after:
            continue
        name = ref.duellist_of(duel["id"], row) if names else None
        if name is not None:
            out.append((name, row))
    return out


def last_published_post(storage: Storage, duel: dict[str, Any]) -> int:
    """Post id of the duel's latest published declaration (or its opening post)."""
    row = storage.db.execute(
        "select max(published_post_id) from declarations where duel_id = ? "
        "and status = 'published'",
        [duel["id"]],
    ).fetchone()
    if row and row[0] is not None:
        return int(row[0])
    return int(duel["opening_post_id"] or 0)


# --- The flow -------------------------------------------------------------------------------


def advance_fatigue(ref: Referee, duel_id: int) -> int:
    """Draft what a running fatigue duel's recorded posts call for. Returns drafts written."""
    duel = ref.storage.duel(duel_id)
    state = DuelState.from_dict(json.loads(duel["state_json"]))
    if state.finished:
        return 0
    turn_no = state.turn + 1
    if not state.pending:
        since = last_published_post(ref.storage, duel)
        rows = _duellist_rows(ref, duel, since)
        if not rows:
            return 0
        cancel_silence_drafts(ref, duel_id, "a duellist posted")
        name, row = rows[0]
        extra = [r["post_id"] for n, r in rows[1:] if n == name]
        return _draft_step(ref, duel, state, "initiative", turn_no, name, row, extra)
    init = state.pending[0]
    defender = next(d.name for d in state.duellists if d.name != init.duellist)
    rows = [(n, r) for n, r in _duellist_rows(ref, duel, init.post_id) if n == defender]
    if not rows:
        return 0
    cancel_silence_drafts(ref, duel_id, "the defense came")
    name, row = rows[0]
    return _draft_step(ref, duel, state, "defense", turn_no, name, row, [])


def cancel_silence_drafts(ref: Referee, duel_id: int, why: str) -> None:
    """A post came in: unpublished relaunch drafts of this duel are cancelled (RULES.md:
    "Any post resets the relaunch allowance")."""
    for decl in ref.storage.declarations(EDITABLE, duel_id):
        ctx = json.loads(decl["context_json"] or "{}")
        if decl["kind"] in ("relaunch", "closure") or (
            (ctx.get("inputs") or {}).get("step") == "relaunch"
        ):
            ref.storage.db["declarations"].update(
                decl["id"],
                {
                    "status": "cancelled",
                    "last_error": f"cancelled: {why}",
                    "version": decl["version"] + 1,
                },
            )
            ref.storage.audit(
                "forumbot",
                "draft.cancel",
                f"declaration:{decl['id']}",
                decl["status"],
                why,
                ref.now(),
            )
            log.info("duel %s: relaunch draft %s cancelled (%s)", duel_id, decl["id"], why)


def _die(
    ref: Referee, duel: dict[str, Any], turn_no: int, row: dict[str, Any]
) -> tuple[int, ...] | None:
    from forumbot.duels.referee import forum_dice

    ruleset = load_ruleset(duel["ruleset"])
    if ref.forum_rolls_dice:
        values = forum_dice(row, ref.dice_name or ruleset.dice_name, 1)
        if values is None:
            return None
        return ref._record_forum_roll(
            duel["id"], turn_no, row["post_id"], ruleset.dice_name, values
        )
    secret = bytes.fromhex(duel["dice_secret"])
    return ref._roll(duel["id"], secret, turn_no, row["post_id"], ruleset.dice_name, 1)


def _draft_step(
    ref: Referee,
    duel: dict[str, Any],
    state: DuelState,
    step: str,
    turn_no: int,
    name: str,
    row: dict[str, Any],
    extra: list[int],
) -> int:
    what = f"turn{turn_no}-{step}"
    key = ref._key(duel["id"], what)
    existing = ref.storage.declaration_by_key(key)
    if existing is not None and existing["status"] not in EDITABLE:
        return 0
    ruleset = load_ruleset(duel["ruleset"])
    action, text, late, version = post_in_force(ref, duel, row)
    post = turn_post(name, row["post_id"], action)
    die = _die(ref, duel, turn_no, row)
    if die is None:
        missing = [{"duellist": name, "post_id": row["post_id"]}]
        ref.write_missing_dice_draft(duel["id"], turn_no, missing, 1, existing, what=what)
        return 1
    facts = {
        row["post_id"]: PostFacts(
            lines=count_displayed_lines(text, int(ruleset.setting("chars_per_line"))),
            late_edit=late,
        )
    }
    overrides = json.loads(existing["overrides_json"] or "{}") if existing else {}
    waived = json.loads(existing["waived_json"] or "[]") if existing else []
    outcome = resolve_fatigue_step(
        state,
        [post],
        {row["post_id"]: die},
        ruleset=ruleset,
        step=step,  # type: ignore[arg-type]
        overrides=overrides,
        waived={(a, b) for a, b in waived},
        facts=facts,
    )
    inputs = {
        "engine": "fatigue",
        "step": step,
        "state_before": state.to_dict(),
        "posts": [post.to_dict()],
        "dice": {str(row["post_id"]): list(die)},
        "facts": {str(k): asdict(v) for k, v in facts.items()},
        "versions": {str(row["post_id"]): version},
        "extra_posts": extra,
        "late_edits": late_edits_since(ref, duel, exclude=row["post_id"]),
        "dice_source": "forum" if ref.forum_rolls_dice else "bot",
    }
    write_step_draft(ref, duel["id"], what, turn_no, inputs, outcome)
    return 1


def late_edits_since(ref: Referee, duel: dict[str, Any], exclude: int) -> list[dict[str, Any]]:
    """Posts already declared that were edited after the next post (``late_edit``) and not
    yet listed in a published declaration: ``[{duellist, post_id}]``."""
    listed: set[int] = set()
    for decl in ref.storage.declarations(("published",), duel["id"]):
        inputs = json.loads(decl["context_json"] or "{}").get("inputs") or {}
        listed.update(int(x["post_id"]) for x in inputs.get("late_edits", []))
    declared: dict[int, str] = {}
    for decl in ref.storage.declarations(("published",), duel["id"]):
        inputs = json.loads(decl["context_json"] or "{}").get("inputs") or {}
        for p in inputs.get("posts", []):
            declared[int(p["post_id"])] = p["duellist"]
    out = []
    for post_id, name in sorted(declared.items()):
        if post_id in listed or post_id == exclude:
            continue
        row = ref.storage.seen_post(ref.board_id, post_id)
        if row is None:
            continue
        _action, _text, late, _ = post_in_force(ref, duel, row)
        if late:
            out.append({"duellist": name, "post_id": post_id})
    return out


def write_step_draft(
    ref: Referee,
    duel_id: int,
    what: str,
    turn_no: int,
    inputs: dict[str, Any],
    outcome: TurnOutcome,
) -> int:
    """Render and store a fatigue step draft (kind ``turn``) and its proposed violations."""
    duel = ref.storage.duel(duel_id)
    context = step_context(duel, inputs, outcome, ref.referee_name)
    text = render("fatigue_turn.bbcode.j2", context, ref.language)
    now = ref.now()
    decl_id = ref._upsert_draft(
        duel_id, turn_no, "turn", text, context, now, inputs=inputs, outcome=outcome, what=what
    )
    row = ref.storage.declaration(decl_id)
    from forumbot.duels.referee import MISSING_DICE

    if row["status"] == "held" and row["last_error"] == MISSING_DICE:
        ref.storage.db["declarations"].update(decl_id, {"status": "draft", "last_error": None})
    replace_step_violations(ref.storage, duel_id, turn_no, inputs, outcome.to_dict(), now)
    log.info(
        "duel %s turn %s: %s draft %s (posts %s; finished %s)",
        duel_id,
        turn_no,
        inputs["step"],
        decl_id,
        ",".join(str(p["post_id"]) for p in inputs["posts"]),
        outcome.finished,
    )
    return decl_id


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
    Decided rows (confirmed, dismissed) are kept."""
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
    undecided = "status in ('proposed', 'applied', 'waived')"
    if owned:
        marks = ",".join("?" * len(owned))
        storage.db["violations"].delete_where(
            f"duel_id = ? and post_id in ({marks}) and {undecided}", [duel_id, *sorted(owned)]
        )
    if late_only:
        marks = ",".join("?" * len(late_only))
        storage.db["violations"].delete_where(
            f"duel_id = ? and post_id in ({marks}) and rule = 'late_edit' and {undecided}",
            [duel_id, *sorted(late_only)],
        )
    owned |= late_only
    marks = ",".join("?" * len(owned))
    decided = {
        (r["duellist"], r["rule"], r["post_id"])
        for r in storage.db["violations"].rows_where(
            f"duel_id = ? and post_id in ({marks}) and status in ('confirmed', 'dismissed')",
            [duel_id, *sorted(owned)],
        )
    }
    for key, v in found.items():
        if key not in decided:
            storage.insert_violation(duel_id, turn_no, v, now)


# --- Declarations' context ------------------------------------------------------------------


def _trail(outcome: dict[str, Any], quantity: str) -> Any:
    value = None
    for entry in outcome.get("trail", []):
        if entry["quantity"] == quantity:
            value = entry["value"]
    return value


def step_context(
    duel: dict[str, Any], inputs: dict[str, Any], outcome: TurnOutcome | dict[str, Any],
    referee_name: str,
) -> dict[str, Any]:  # fmt: skip
    """The template context of a fatigue step declaration (stored with the draft)."""
    data = outcome if isinstance(outcome, dict) else outcome.to_dict()
    ruleset = load_ruleset(duel["ruleset"])
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
                "spell": p.get("spell") or p.get("spell_text"),
                "bet": p.get("bet"),
                "die": die,
                "bet_won": _trail(data, f"{name}.bet_won"),
                "current": pid in inputs["dice"],
            }
        )
    init_name = all_posts[0]["duellist"] if all_posts else None
    defender = next((d["name"] for d in state_before["duellists"] if d["name"] != init_name), None)
    if step == "relaunch" and state_before.get("pending"):
        init_name = state_before["pending"][0]["duellist"]
        defender = next(d["name"] for d in state_before["duellists"] if d["name"] != init_name)
    return {
        "title": duel["title"],
        "turn": data["turn"],
        "step": step,
        "unit": ruleset.unit,
        "dice_name": ruleset.dice_name,
        "dice_source": inputs.get("dice_source", "bot"),
        "posts": posts,
        "outcome": data,
        "dodged": _trail(data, f"{defender}.dodged") if defender else None,
        "riposte": _trail(data, f"{defender}.riposte.landed") if defender else None,
        "defender": defender,
        "extra_posts": inputs.get("extra_posts", []),
        "late_edits": inputs.get("late_edits", []),
        "hours": int(ruleset.setting("timeout_1v1_hours")),
        "stakes": duel["stakes"],
        "referee_name": referee_name,
        # Forum-rolled dice (Forumactif): no seed of the bot's to commit to or reveal.
        "dice_secret": duel["dice_secret"]
        if data["finished"] and inputs.get("dice_source", "bot") == "bot"
        else None,
        "commitment": duel["dice_commitment"]
        if inputs.get("dice_source", "bot") == "bot"
        else None,
        "magic": {
            d["name"]: [ruleset.magic_type(t).label for t in d.get("magic_types", [])]
            for d in data["state"]["duellists"]
        },
    }


def recompute_step(
    storage: Storage,
    decl: dict[str, Any],
    overrides: dict[str, Any],
    waived: list[list[str]],
    referee_name: str,
    language: str = "fr",
) -> tuple[dict[str, Any], str]:
    """Re-run the fatigue engine on a step draft's stored inputs with the referee's
    overrides and waivers; returns (stored context, text). Raises rules.RuleError."""
    stored = json.loads(decl["context_json"])
    inputs = stored["inputs"]
    duel = storage.duel(decl["duel_id"])
    ruleset = load_ruleset(duel["ruleset"])
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
    context = step_context(duel, inputs, outcome, referee_name)
    template = (
        "fatigue_closure.bbcode.j2" if inputs["step"] == "closure" else "fatigue_turn.bbcode.j2"
    )
    text = render(template, context, language)
    return {"context": context, "inputs": inputs, "outcome": outcome.to_dict()}, text


# --- Publication ----------------------------------------------------------------------------


def apply_published_fatigue(storage: Storage, row: dict[str, Any], now: datetime) -> None:
    """Advance a fatigue duel once one of its declarations is out (called by
    :func:`forumbot.publish.poster.apply_published` in the publication's transaction): the opening
    starts it; a step's outcome becomes the state (a closed turn is stored in ``turns``); a
    relaunch changes nothing; the final one finishes it. Then the next deadline is set."""
    from forumbot.duels.deadlines import create_deadline

    duel = storage.duel(row["duel_id"])
    ctx = json.loads(row["context_json"])
    if row["kind"] == "opening":
        early = ctx["context"].get("state_after_early")
        state = DuelState.from_dict(early or json.loads(duel["state_json"]))
        state = rules.start_duel(state)
        storage.update_duel(
            duel["id"],
            status="running",
            opening_post_id=row["published_post_id"],
            state_json=json.dumps(state.to_dict(), ensure_ascii=False),
        )
        create_deadline(storage, row, now)
        return
    if row["kind"] == "relaunch":
        create_deadline(storage, row, now)
        return
    outcome = ctx["outcome"]
    inputs = ctx["inputs"]
    if inputs["step"] in ("defense", "relaunch"):
        posts = list(inputs["state_before"].get("pending", [])) + list(inputs["posts"])
        dice = {str(p["post_id"]): p["dice"] for p in inputs["state_before"].get("pending", [])}
        dice.update(inputs["dice"])
        # the turn is complete: stored with both posts, and its state becomes the duel's
        storage.record_turn(
            duel["id"], row["turn"], inputs["state_before"], posts, dice, outcome, now
        )
    else:  # a first declaration: the state moves on, the turn is not complete yet
        fields: dict[str, Any] = {"state_json": json.dumps(outcome["state"], ensure_ascii=False)}
        if outcome["finished"]:
            fields.update(status="finished", finished_at=iso(now))
        storage.update_duel(duel["id"], **fields)
    if not outcome["finished"]:
        create_deadline(storage, row, now)
    else:
        storage.db.execute(
            "update deadlines set status = 'superseded', note = 'duel finished' "
            "where duel_id = ? and status = 'pending'",
            [duel["id"]],
        )


__all__ = [
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
    "write_step_draft",
]
