"""Two-against-two fatigue duels in the running bot (seed 001, issue 5).

- :func:`open_duo_duel` registers a 2v2 duel in a topic (one 2v2 at a time on a board): the
  four duellists are placed at random from the duel's secret seed (recorded in ``duo_duels``)
  and the opening declaration (environment, positions, creatures) is drafted.
- :func:`advance_duo` (called by :meth:`forumbot.duels.referee.Referee.advance`) drafts the next
  declaration: one post, or two when all four share a zone
  (:func:`rules.duo.posts_per_declaration`).
  Dice: one d6 « Pari » per post, derived like the 1v1 flow's; on a board that rolls its own
  dice (Forumactif, ``ref.forum_rolls_dice``) the forum's dice on the stored post are used
  instead, a post lacking them holds the draft (:meth:`Referee.write_missing_dice_draft`), and
  the declarations say the forum rolled them and publish no seed (the placement and reward
  draws still come from the bot's secret, never revealed there). Publication goes through the
  fatigue path (:func:`forumbot.duels.fatigue.apply_published_fatigue`: ``state_json``, finish,
  deadline); the full 2v2 state is stored in each draft's context (``duo_state``) and the
  current state is the one of the latest published 2v2 declaration.
- Zone reveals: for the starting zones (once the opening is out) and for every zone entered in
  a published declaration, an owl is drafted under the key ``b<board>-duel<id>-zone-<who>-<zone>``
  (:mod:`forumbot.publish.owls`: exactly once, even across restarts; a zone entered again sends
  none).
- Mechanism attempts become referee tasks; a task marked solved is stated (with its reward) in
  the next declaration. Owls asking for details are read from the inbox by
  :mod:`forumbot.club.inbox`.
- :func:`after_poll` (called by :meth:`forumbot.app.Bot.poll`): inbox, owls, rewards of finished
  2v2 duels (kind ``2v2``: winners 1 point and 5 G each, losers a frog each, once).
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import rules
from forumbot.club.leaderboard import DuelReward, bump_leaderboard, record_duel_rewards
from forumbot.publish.owls import draft_owl, send_due_owls
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.profiles import player_of
from rules.dice import commitment, derive_die
from rules.duo import (
    DuoOutcome,
    DuoPost,
    DuoState,
    Environment,
    duo_rewards,
    expected_posters,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    posts_per_declaration,
    resolve_duo_step,
    start_duo,
)
from rules.duo.settings import DuoSettings
from rules.fatigue import FatigueRuleset, PostFacts, count_displayed_lines
from rules.model import TrailEntry

if TYPE_CHECKING:
    from forumbot.duels.referee import Referee

log = logging.getLogger("forumbot.duo")

DATA = Path(rules.__file__).resolve().parent / "data"
EDITABLE = ("draft", "approved", "held")
ACTION_FR = {"cast": "lancer un sort", "dodge": "esquiver", "dodge_riposte": "esquiver et riposter"}
REWARD_FR = {
    "galleons": "gallions",
    "pv": "PV",
    "pa": "PA",
    "sweets": "friandises",
    "house_points": "points au sablier",
}
_USE_PREFIXES = ("objet :", "objet:", "utiliser :", "utiliser:")


class DuoBusy(RuntimeError):
    """A 2v2 duel is already open or running on the board (seed 001: "Un seul duel en Deux
    contre Deux sera organisé à la fois")."""


# --- Data files ------------------------------------------------------------------------------


@lru_cache(maxsize=16)
def load_env(key: str) -> Environment:
    """The environment ``key`` (``rules/data/environments/<key>.toml``) or a TOML path."""
    path = Path(key)
    if not (path.suffix == ".toml" and path.exists()):
        path = DATA / "environments" / f"{key}.toml"
    return load_environment(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def duo_settings() -> DuoSettings:
    """``rules/data/duo.toml``."""
    return load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))


def environments() -> list[str]:
    """Keys of the shipped environments."""
    return sorted(p.stem for p in (DATA / "environments").glob("*.toml"))


def make_draw(secret: bytes, duel_key: str) -> Any:
    """``draw(label, n) -> 0..n-1`` derived from the duel's secret seed (auditable once the
    seed is revealed, like the dice: :func:`rules.dice.derive_die` with the label as name)."""

    def draw(label: str, n: int) -> int:
        if n <= 1:
            return 0
        return derive_die(secret, duel_key, 0, 0, label, 0, sides=n) - 1

    return draw


# --- Queries ---------------------------------------------------------------------------------


def duo_row(storage: Storage, duel_id: int) -> dict[str, Any] | None:
    """The ``duo_duels`` row of a duel, or None when it is not a 2v2."""
    rows = list(storage.db["duo_duels"].rows_where("duel_id = ?", [duel_id]))
    return rows[0] if rows else None


def is_duo(storage: Storage, duel_id: int) -> bool:
    """True for a 2v2 duel."""
    return duo_row(storage, duel_id) is not None


def duo_running(storage: Storage, board_id: int) -> dict[str, Any] | None:
    """The board's 2v2 duel that is open or running, or None."""
    rows = storage.db.execute(
        "select d.id from duels d join duo_duels u on u.duel_id = d.id where d.board_id = ? "
        "and d.status in ('open', 'running') order by d.id",
        [board_id],
    ).fetchall()
    return storage.duel(int(rows[0][0])) if rows else None


def current_state(storage: Storage, duel: dict[str, Any]) -> DuoState:
    """The 2v2 state in force: the latest published 2v2 declaration's, else the opening's
    (started once the opening is out)."""
    row = storage.db.execute(
        "select context_json from declarations where duel_id = ? and status = 'published' "
        "and kind = 'turn' order by published_post_id desc limit 1",
        [duel["id"]],
    ).fetchone()
    if row is not None:
        ctx = json.loads(row[0])
        return DuoState.from_dict(ctx["context"]["duo_state"])
    duo = duo_row(storage, duel["id"])
    assert duo is not None
    state = DuoState.from_dict(json.loads(duo["state_json"]))
    return start_duo(state) if duel["status"] != "open" else state


# --- Opening ---------------------------------------------------------------------------------


def open_duo_duel(
    ref: Referee,
    forum_id: int,
    topic_id: int,
    title: str,
    duos: list[list[tuple[str, str, list[str]]]],
    environment: str,
    *,
    stakes: str | None = None,
    dice_secret: bytes | None = None,
    actor: str = "forumbot",
) -> int:
    """Register a 2v2 duel in ``topic_id`` and draft its opening. Returns the duel id.

    Raises:
        DuoBusy: another 2v2 is open or running on the board.
        ValueError: the topic already holds a duel.
        rules.RuleError: duellists or environment the rules refuse.
    """
    storage = ref.storage
    busy = duo_running(storage, ref.board_id)
    if busy is not None:
        raise DuoBusy(f"duel {busy['id']} (2v2) is still running")
    if storage.duel_by_topic(ref.board_id, topic_id) is not None:
        raise ValueError(f"topic {topic_id} already holds a duel")
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    env = load_env(environment)
    secret = dice_secret if dice_secret is not None else ref.rng.randbytes(32)
    draw = make_draw(secret, f"{ref.platform}:{topic_id}")
    state = new_duo_duel(rs, duos, env, draw, stakes)
    now = ref.now()
    with storage.db.atomic():
        duel_id = int(
            storage.db["duels"]
            .insert(
                {
                    "board_id": ref.board_id,
                    "forum_id": forum_id,
                    "topic_id": topic_id,
                    "title": title,
                    "ruleset": "fatigue",
                    "status": "open",
                    "state_json": json.dumps(state.duel.to_dict(), ensure_ascii=False),
                    "stakes": stakes,
                    "dice_secret": secret.hex(),
                    "dice_commitment": commitment(secret),
                    "created_at": iso(now),
                }
            )
            .last_pk
        )
        for i, d in enumerate(state.duel.duellists):
            storage.db["duellists"].insert(
                {
                    "duel_id": duel_id,
                    "name": d.name,
                    "year": d.year,
                    "side": "AB"[i // 2],
                    "magic_types": json.dumps(list(d.magic_types)),
                }
            )
        storage.db["duo_duels"].insert(
            {
                "duel_id": duel_id,
                "board_id": ref.board_id,
                "environment": environment,
                "duos_json": json.dumps([list(d) for d in state.duos], ensure_ascii=False),
                "placement_json": json.dumps(
                    [list(p) for p in state.positions], ensure_ascii=False
                ),
                "state_json": json.dumps(state.to_dict(), ensure_ascii=False),
                "created_at": iso(now),
            }
        )
    context = opening_context(
        rs, env, state, title, stakes, commitment(secret), ref.referee_name,
        dice_source="forum" if ref.forum_rolls_dice else "bot",
    )  # fmt: skip
    text = render("duo_opening.bbcode.j2", context, ref.language)
    ref._upsert_draft(duel_id, 0, "opening", text, context, now)
    storage.audit(
        actor, "duel.adopt", f"duel:{duel_id}", None,
        {"topic_id": topic_id, "duos": [list(d) for d in state.duos], "kind": "2v2",
         "environment": environment, "placement": [list(p) for p in state.positions]},
        now,
    )  # fmt: skip
    owl_magic_types(ref, duel_id, topic_id, rs, state)
    log.info("duel %s: 2v2 opened in topic %s (%s)", duel_id, topic_id, environment)
    return duel_id


def owl_magic_types(
    ref: Referee, duel_id: int, topic_id: int, rs: FatigueRuleset, state: DuoState
) -> int:
    """Draft each duellist's magic-type owl of a 2v2 (RULES.md: the modifiers "are sent to
    the duellist by owl"), like the 1v1 one; key ``b<board>-duel<id>-owl-<who>``, so each is
    sent exactly once (:mod:`forumbot.publish.owls`). Returns owls drafted (4)."""
    from forumbot.publish.labels import describe_modifier, slug

    storage = ref.storage
    for who in state.names():
        types = [
            {
                "label": rs.magic_type(k).label,
                "traits": rs.magic_type(k).traits,
                "owl": rs.magic_type(k).owl,
                "modifiers": [describe_modifier(m) for m in rs.magic_type(k).modifiers],
            }
            for k in state.duel.duellist(who).magic_types
        ]
        opponents = " et ".join(state.opponents(who))
        text = render(
            "owl_magic_types.bbcode.j2",
            {"character": who, "opponent": opponents, "types": types,
             "topic_url": _topic_url(storage, ref.board_id, topic_id),
             "referee_name": ref.referee_name},
            ref.language,
        )  # fmt: skip
        draft_owl(
            storage, ref.board_id, f"b{ref.board_id}-duel{duel_id}-owl-{slug(who)}",
            "magic_types", player_of(storage, ref.board_id, who),
            f"Duel contre {opponents} : ton type de magie", text, ref.now(), duel_id=duel_id,
        )  # fmt: skip
    return len(state.names())


def _year_label(year: str) -> str:
    return "adulte" if year == "adult" else ("1re année" if year == "1" else f"{year}e année")


def opening_context(
    rs: FatigueRuleset,
    env: Environment,
    state: DuoState,
    title: str,
    stakes: str | None,
    commit: str,
    referee_name: str,
    *,
    dice_source: str = "bot",
) -> dict[str, Any]:
    """Template context of the 2v2 opening; the commitment to the duel's seed is published on
    both platforms. ``dice_source``: ``"bot"`` (the seed draws the placement, the rewards and
    the « Pari » dice) or ``"forum"`` (Forumactif: the forum rolls the « Pari » dice; the
    seed draws only the placement and the rewards, and the opening says so)."""

    def member(name: str) -> dict[str, Any]:
        d = state.duel.duellist(name)
        return {
            "name": name,
            "year_label": _year_label(d.year),
            "points": d.points,
            "types": ", ".join(rs.magic_type(t).label for t in d.magic_types),
        }

    return {
        "title": title,
        "env_name": env.name,
        "env_description": env.description,
        "duos": [[member(n) for n in duo] for duo in state.duos],
        "zones": [
            {"number": i + 1, "name": z.name, "who": [n for n, k in state.positions if k == z.key]}
            for i, z in enumerate(env.zones)
        ],
        "creatures": [
            {
                "name": c.name,
                "zone": env.zone(c.zone).name,
                "pv": c.pv,
                "ability": c.ability.name,
                "ability_text": c.ability.text,
            }
            for c in env.creatures
        ],
        "unit": rs.unit,
        "hours": int(rs.setting("timeout_2v2_hours")),
        "dice_name": rs.dice_name,
        "stakes": stakes,
        "commitment": commit,
        "dice_source": dice_source,
        "referee_name": referee_name,
        "duo_state": state.to_dict(),
    }


# --- Advancing -------------------------------------------------------------------------------


def use_item_line(text: str) -> str | None:
    """The item named by an ``Objet :`` / ``Utiliser :`` line of the post, or None."""
    found = None
    for line in text.splitlines():
        low = line.strip().casefold()
        for prefix in _USE_PREFIXES:
            if low.startswith(prefix):
                found = line.strip()[len(prefix) :].strip() or None
    return found


def _consumed_posts(storage: Storage, duel: dict[str, Any]) -> tuple[set[int], int]:
    """The post ids the duel's published 2v2 declarations answered, and the last post before
    which nothing unanswered is left to read: the highest answered post id, or the opening's
    post id when none was answered yet.

    A post is read by its id, not by where the declaration landed: a post written between a
    post and the publication of its declaration (or of a relaunch) is still unanswered and
    comes next (found by a break-it pass: it used to be skipped for good). Earlier unanswered
    posts were a duellist's extra posts of a finished turn: never read again."""
    answered: set[int] = set()
    rows = storage.db.execute(
        "select context_json from declarations where duel_id = ? and status = 'published' "
        "and kind = 'turn'",
        [duel["id"]],
    ).fetchall()
    for (raw,) in rows:
        stored = json.loads(raw or "{}")
        answered.update(int(p["post_id"]) for p in stored.get("inputs", {}).get("posts", []))
    floor = max(answered) if answered else int(duel["opening_post_id"] or 0)
    return answered, floor


def advance_duo(ref: Referee, duel_id: int) -> int:
    """Draft what a 2v2 duel's recorded posts call for, draft the zone owls of published
    declarations and the referee tasks of mechanism attempts. Returns drafts written."""
    from forumbot.duels.fatigue import late_edits_since, post_in_force

    storage = ref.storage
    duel = storage.duel(duel_id)
    if duel["status"] != "running":
        return 0
    state = current_state(storage, duel)
    reveal_zones(ref, duel, state)
    if state.duel.finished:
        return 0
    names = {n.casefold(): n for n in state.names()}
    answered, floor = _consumed_posts(storage, duel)
    rows = []
    seen: set[str] = set(state.posted)
    for row in storage.topic_posts(ref.board_id, duel["topic_id"]):
        name = names.get((row["author"] or "").casefold())
        if row["post_id"] <= floor or row["post_id"] in answered or name is None:
            continue
        if name in seen or not state.active(name):
            continue
        seen.add(name)
        rows.append((name, row))
    if rows:
        from forumbot.duels.fatigue import cancel_silence_drafts

        cancel_silence_drafts(ref, duel_id, "a duellist posted")  # any post resets the clock
    want = min(posts_per_declaration(state, duo_settings()), len(expected_posters(state)))
    if not rows or len(rows) < want:
        return 0
    rows = rows[:want]
    turn_no = state.duel.turn + 1
    what = f"turn{turn_no}-duo{rows[0][1]['post_id']}"
    key = ref._key(duel_id, what)
    existing = storage.declaration_by_key(key)
    if existing is not None and existing["status"] not in EDITABLE:
        return 0
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    duo = duo_row(storage, duel_id)
    assert duo is not None
    env = load_env(duo["environment"])
    posts: list[DuoPost] = []
    dice: dict[int, tuple[int, ...]] = {}
    facts: dict[int, PostFacts] = {}
    secret = bytes.fromhex(duel["dice_secret"])
    missing: list[dict[str, Any]] = []
    for name, row in rows:
        action, text, late, _version = post_in_force(ref, duel, row)
        from forumbot.duels.fatigue import turn_post

        posts.append(
            DuoPost(turn_post(name, row["post_id"], action), action.get("move_to"),
                    use_item_line(text))
        )  # fmt: skip
        if ref.forum_rolls_dice:
            from forumbot.duels.referee import forum_dice

            values = forum_dice(row, ref.dice_name or rs.dice_name, 1)
            if values is None:
                missing.append({"duellist": name, "post_id": row["post_id"]})
            else:
                dice[row["post_id"]] = ref._record_forum_roll(
                    duel_id, turn_no, row["post_id"], rs.dice_name, values
                )
        else:
            dice[row["post_id"]] = ref._roll(
                duel_id, secret, turn_no, row["post_id"], rs.dice_name, 1
            )
        facts[row["post_id"]] = PostFacts(
            lines=count_displayed_lines(text, int(rs.setting("chars_per_line"))), late_edit=late
        )
    if missing:  # the bot never invents dice on a board that rolls its own (issue 3)
        ref.write_missing_dice_draft(duel_id, turn_no, missing, 1, existing, what=what)
        return 1
    dice_source = "forum" if ref.forum_rolls_dice else "bot"
    solved = _solved_tasks(storage, duel_id, state)
    waived = json.loads(existing["waived_json"] or "[]") if existing else []
    overrides = json.loads(existing["overrides_json"] or "{}") if existing else {}
    outcome = resolve_duo_step(
        state, posts, dice, ruleset=rs, env=env, settings=duo_settings(),
        draw=make_draw(secret, ref._duel_key(duel_id)), solved=solved,
        waived={(a, b) for a, b in waived}, facts=facts, overrides=overrides,
    )  # fmt: skip
    # declared posts edited after the next post: proposed to the referee once (RULES.md)
    late_edits = late_edits_since(ref, duel, exclude=rows[0][1]["post_id"])
    context = with_late_edits(
        turn_context(
            rs, env, duel, state, posts, dice, outcome, ref.referee_name, dice_source=dice_source
        ),
        late_edits,
    )
    text = render("duo_turn.bbcode.j2", context, ref.language)
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
    decl_id = ref._upsert_draft(
        duel_id, turn_no, "turn", text, context, ref.now(), inputs=inputs,
        outcome=_Stored(outcome), what=what,
    )  # fmt: skip
    from forumbot.duels.referee import MISSING_DICE

    held = storage.declaration(decl_id)
    if held["status"] == "held" and held["last_error"] == MISSING_DICE:  # the dice came
        storage.db["declarations"].update(decl_id, {"status": "draft", "last_error": None})
    _store_violations(storage, duel_id, turn_no, outcome, [p.post.post_id for p in posts], ref)
    _propose_late_edits(storage, duel_id, turn_no, late_edits, ref)
    for who, mech, post_id in outcome.mechanism_attempts:
        _task(
            storage, ref.board_id, duel_id, "mechanism",
            f"b{ref.board_id}-duel{duel_id}-mech-{post_id}",
            who, state.zone_of(who), f"{who} tente : {env.mechanism(mech).name}",
            env.mechanism(mech).solution, ref, mechanism=mech, post_id=post_id,
        )  # fmt: skip
    log.info("duel %s turn %s: 2v2 draft %s (posts %s)", duel_id, turn_no, decl_id,
             ",".join(str(p.post.post_id) for p in posts))  # fmt: skip
    return 1


def with_late_edits(context: dict[str, Any], late_edits: list[dict[str, Any]]) -> dict[str, Any]:
    """A 2v2 declaration's context with the late edits of already declared posts
    (``[{duellist, post_id}]`` from :func:`forumbot.duels.fatigue.late_edits_since`) added to
    its ``violations`` as proposed ``late_edit`` entries (shown « à l'appréciation de
    l'arbitre ») and kept as ``late_edits``. RULES.md "Ruleset fatigue — all duels": a post
    edited after the next post keeps its version in force; the edit is proposed to the
    referee."""
    from forumbot.duels.fatigue import late_edit_violation

    shown = [late_edit_violation(x) for x in late_edits]
    return {**context, "violations": [*context["violations"], *shown], "late_edits": late_edits}


def _propose_late_edits(
    storage: Storage, duel_id: int, turn_no: int, late_edits: list[dict[str, Any]],
    ref: Referee,
) -> None:  # fmt: skip
    """Store the draft's late edits as proposed ``late_edit`` rows: undecided ones of those
    posts replaced (a redraft writes them once), decided ones (confirmed, dismissed) kept.
    Other violations of those posts are left alone."""
    from forumbot.duels.fatigue import late_edit_violation

    now = ref.now()
    for late in late_edits:
        where = "duel_id = ? and post_id = ? and duellist = ? and rule = 'late_edit'"
        args = [duel_id, int(late["post_id"]), late["duellist"]]
        storage.db["violations"].delete_where(
            f"{where} and status in ('proposed', 'applied', 'waived')", args
        )
        if not storage.db["violations"].count_where(where, args):
            storage.insert_violation(duel_id, turn_no, late_edit_violation(late), now)


def recompute_duo(
    storage: Storage,
    decl: dict[str, Any],
    overrides: dict[str, Any],
    waived: list[list[str]],
    referee_name: str,
    language: str = "fr",
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
    from rules.errors import RuleError
    from rules.model import TurnPost

    stored = json.loads(decl["context_json"])
    inputs = stored["inputs"]
    if "duo_state_before" not in inputs:
        raise RuleError("duo.overrides", "this 2v2 draft predates recomputation: redraft it")
    duel = storage.duel(decl["duel_id"])
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    duo = duo_row(storage, duel["id"])
    assert duo is not None
    env = load_env(duo["environment"])
    state = DuoState.from_dict(inputs["duo_state_before"])
    posts = [
        DuoPost(TurnPost.from_dict(p), extra.get("move_to"), extra.get("use_item"))
        for p, extra in zip(inputs["posts"], inputs["duo_posts"], strict=True)
    ]
    dice = {int(k): tuple(v) for k, v in inputs["dice"].items()}
    secret = bytes.fromhex(duel["dice_secret"])
    outcome = resolve_duo_step(
        state, posts, dice, ruleset=rs, env=env, settings=duo_settings(),
        draw=make_draw(secret, f"{duo_platform(storage, duel)}:{duel['topic_id']}"),
        solved=[(str(a), str(b), int(c)) for a, b, c in inputs.get("solved", [])],
        waived={(a, b) for a, b in waived},
        facts={int(k): PostFacts(**v) for k, v in inputs.get("facts", {}).items()},
        overrides=overrides,
    )  # fmt: skip
    context = with_late_edits(
        turn_context(
            rs, env, duel, state, posts, dice, outcome, referee_name,
            dice_source=str(inputs.get("dice_source", "bot")),
        ),
        list(inputs.get("late_edits", [])),
    )  # fmt: skip
    text = render("duo_turn.bbcode.j2", context, language)
    return {"context": context, "inputs": inputs, "outcome": _Stored(outcome).to_dict()}, text


def duo_platform(storage: Storage, duel: dict[str, Any]) -> str:
    """The platform name in the duel's derivation key (``phpbb3``, ``forumactif``)."""
    return str(storage.db["boards"].get(duel["board_id"])["platform"])


class _Stored:
    """What :meth:`Referee._upsert_draft` stores as the outcome: the 2v2 duel's four-duellist
    ``state`` (for ``duels.state_json`` at publication) and ``finished``."""

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


def turn_context(
    rs: FatigueRuleset,
    env: Environment,
    duel: dict[str, Any],
    before: DuoState,
    posts: list[DuoPost],
    dice: dict[int, tuple[int, ...]],
    outcome: DuoOutcome,
    referee_name: str,
    *,
    dice_source: str = "bot",
) -> dict[str, Any]:
    """Template context of a 2v2 declaration (stored with the draft, ``duo_state`` included).
    ``dice_source`` ``"forum"``: the « Pari » dice are the forum's; the seed revealed at the
    end then covers only the placement and the rewards (each reward line names its draw)."""
    after = outcome.state
    zone_names = {z.key: f"{env.zone_number(z.key)} ({z.name})" for z in env.zones}
    held: dict[str, list[str]] = {}
    for n, k in after.inventory:
        held.setdefault(n, []).append(env.item(k).name)
    return {
        "title": duel["title"],
        "turn": before.duel.turn + 1,
        "unit": rs.unit,
        "dice_name": rs.dice_name,
        "posts": [
            {
                "duellist": p.post.duellist,
                "post_id": p.post.post_id,
                "zone": zone_names[before.zone_of(p.post.duellist)],
                "action": ACTION_FR.get(
                    p.post.kind or ("cast" if p.post.spell else ""), "aucune action"
                ),
                "spell": p.post.spell or p.post.spell_text,
                "target": p.post.target,
                "die": (outcome.dice.get(p.post.post_id) or dice[p.post.post_id])[0],
            }
            for p in posts
        ],
        "attacks": [a.to_dict() for a in outcome.attacks],
        "events": [asdict(e) for e in outcome.events],
        "violations": [v.to_dict() for v in outcome.violations],
        "duellists": [
            {
                "name": d.name,
                "points": d.points,
                "zone": zone_names[after.zone_of(d.name)],
                "held": held.get(d.name, []),
            }
            for d in after.duel.duellists
        ],
        "creatures": [{"name": env.creature(k).name, "pv": pv} for k, pv in after.creatures],
        "zone_names": zone_names,
        "reward_fr": REWARD_FR,
        "entered": [list(e) for e in outcome.entered],
        "together": after.all_together() and not outcome.finished,
        "expected": list(expected_posters(after)),
        "finished": outcome.finished,
        "winners": list(outcome.winners),
        "losers": list(outcome.losers),
        "win_galleons": duo_settings().win_galleons,
        "stakes": duel["stakes"],
        "dice_source": dice_source,
        "dice_secret": duel["dice_secret"] if outcome.finished else None,
        "referee_name": referee_name,
        "duo_state": after.to_dict(),
    }


def _store_violations(
    storage: Storage, duel_id: int, turn_no: int, outcome: DuoOutcome, post_ids: list[int],
    ref: Referee,
) -> None:  # fmt: skip
    """The step's violations, replacing the undecided rows of its posts (decided ones kept)."""
    now = iso(ref.now())
    ids = sorted(set(post_ids) | {v.post_id for v in outcome.violations})
    marks = ",".join("?" * len(ids))
    storage.db["violations"].delete_where(
        f"duel_id = ? and post_id in ({marks}) and status in ('proposed', 'applied', 'waived')",
        [duel_id, *ids],
    )
    decided = {
        (r["duellist"], r["rule"], r["post_id"])
        for r in storage.db["violations"].rows_where(
            f"duel_id = ? and post_id in ({marks})", [duel_id, *ids]
        )
    }
    for v in outcome.violations:
        if (v.duellist, v.rule, v.post_id) in decided:
            continue
        storage.db["violations"].insert(
            {
                "duel_id": duel_id, "turn": turn_no, "duellist": v.duellist, "rule": v.rule,
                "post_id": v.post_id, "evidence": v.evidence, "penalty": v.penalty,
                "status": v.status, "created_at": now, "updated_at": now,
            }
        )  # fmt: skip


# --- Zone reveals ----------------------------------------------------------------------------


def zone_owl_key(board_id: int, duel_id: int, duellist: str, zone: str) -> str:
    """Idempotency key of the owl revealing ``zone`` to ``duellist`` (one per pair, ever)."""
    from forumbot.publish.labels import slug

    return f"b{board_id}-duel{duel_id}-zone-{slug(duellist)}-{zone}"


def reveal_zones(ref: Referee, duel: dict[str, Any], state: DuoState) -> int:
    """Draft the owls of zones entered: the starting zones once the opening is out, and every
    zone entered in a published declaration. Each (duellist, zone) once. Returns owls drafted."""
    storage = ref.storage
    duo = duo_row(storage, duel["id"])
    assert duo is not None
    env = load_env(duo["environment"])
    entries: list[tuple[str, str, int | None]] = [
        (n, z, None) for n, z in json.loads(duo["placement_json"])
    ]
    for decl in storage.declarations(("published",), duel["id"]):
        if decl["kind"] != "turn":
            continue
        ctx = json.loads(decl["context_json"] or "{}").get("context") or {}
        entries += [(n, z, int(decl["id"])) for n, z in ctx.get("entered", [])]
    drafted = 0
    for name, zone_key, decl_id in entries:
        key = zone_owl_key(ref.board_id, duel["id"], name, zone_key)
        inserted = storage.db.execute(
            "insert or ignore into zone_reveals (duel_id, duellist, zone, owl_key, "
            "declaration_id, created_at) values (?, ?, ?, ?, ?, ?)",
            [duel["id"], name, zone_key, key, decl_id, iso(ref.now())],
        ).rowcount
        if inserted != 1:
            continue
        zone = env.zone(zone_key)
        text = render(
            "duo_owl_zone.bbcode.j2",
            {
                "character": name,
                "number": env.zone_number(zone_key),
                "zone_name": zone.name,
                "description": zone.owl,
                "topic_url": _topic_url(storage, ref.board_id, duel["topic_id"]),
                "referee_name": ref.referee_name,
            },
            ref.language,
        )
        draft_owl(
            storage, ref.board_id, key, "zone", player_of(storage, ref.board_id, name),
            f"Duel à deux contre deux : {zone.name}", text, ref.now(), duel_id=duel["id"],
        )  # fmt: skip
        drafted += 1
    storage.db.conn.commit()
    return drafted


def _topic_url(storage: Storage, board_id: int, topic_id: int) -> str:
    board = storage.db["boards"].get(board_id)
    base = str(board["url"]).rstrip("/")
    if board["platform"] == "forumactif":
        return f"{base}/t{topic_id}-"
    return f"{base}/viewtopic.php?t={topic_id}"


# --- Referee tasks ---------------------------------------------------------------------------


def _task(
    storage: Storage, board_id: int, duel_id: int, kind: str, source_key: str, duellist: str,
    zone: str | None, subject: str, text: str, ref: Any, *, mechanism: str | None = None,
    post_id: int | None = None,
) -> None:  # fmt: skip
    storage.db.execute(
        "insert or ignore into referee_tasks (board_id, duel_id, kind, source_key, duellist, "
        "zone, subject, text, mechanism, post_id, status, created_at) "
        "values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?)",
        [board_id, duel_id, kind, source_key, duellist, zone, subject, text, mechanism, post_id,
         iso(ref.now())],
    )  # fmt: skip


def referee_tasks(
    storage: Storage, board_id: int, status: str | None = "open"
) -> list[dict[str, Any]]:
    """The board's referee tasks (``open`` by default), oldest first."""
    if status is None:
        return list(
            storage.db["referee_tasks"].rows_where("board_id = ?", [board_id], order_by="id")
        )
    return list(
        storage.db["referee_tasks"].rows_where(
            "board_id = ? and status = ?", [board_id, status], order_by="id"
        )
    )


def close_task(
    storage: Storage, task_id: int, status: str, by: str, now: Any, note: str = ""
) -> bool:
    """Mark a referee task ``done`` (owl answered), ``solved`` or ``failed`` (a mechanism
    attempt judged). Returns False when it was not open. Recorded in the audit log.

    Raises:
        ValueError: an unknown status, or ``solved``/``failed`` on a task that is no attempt.
    """
    if status not in ("done", "solved", "failed"):
        raise ValueError(f"unknown task status {status!r}")
    row = storage.db["referee_tasks"].get(task_id)
    if status in ("solved", "failed") and row["kind"] != "mechanism":
        raise ValueError("only a mechanism attempt is solved or failed")
    changed = storage.db.execute(
        "update referee_tasks set status = ?, done_at = ?, done_by = ?, note = ? "
        "where id = ? and status = 'open'",
        [status, iso(now), by, note, task_id],
    ).rowcount
    storage.audit(by, f"task.{status}", f"referee_task:{task_id}", "open", status, now)
    storage.db.conn.commit()
    return bool(changed == 1)


def _solved_tasks(storage: Storage, duel_id: int, state: DuoState) -> list[tuple[str, str, int]]:
    done = {k for k, _ in state.solved}
    out = []
    for r in storage.db["referee_tasks"].rows_where(
        "duel_id = ? and kind = 'mechanism' and status = 'solved'", [duel_id], order_by="id"
    ):
        if r["mechanism"] not in done:
            done.add(r["mechanism"])
            out.append((r["mechanism"], r["duellist"], int(r["id"])))
    return out


# --- After each poll -------------------------------------------------------------------------


def settle(storage: Storage, board_id: int, duel: dict[str, Any], now: Any, ref: Any) -> int:
    """Rewards of a finished 2v2 (once: ``rewards`` unique index), leaderboard ``2v2`` moved,
    result owls (once each). Returns rewards given now."""
    state = current_state(storage, duel)
    given = 0
    with storage.db.atomic():
        for who, reward, amount in duo_rewards(state, duo_settings()):
            inserted = storage.db.execute(
                "insert or ignore into rewards (board_id, duel_id, kind, character, player, "
                "reward, amount, stakes, created_at) values (?, ?, '2v2', ?, ?, ?, ?, ?, ?)",
                [board_id, duel["id"], who, player_of(storage, board_id, who), reward, amount,
                 duel["stakes"], iso(now)],
            ).rowcount  # fmt: skip
            given += inserted
            if inserted and reward in ("leaderboard_point", "chocolate_frog"):
                column = (
                    "wins" if who in state.winners else "losses" if who in state.losers else "draws"
                )
                bump_leaderboard(storage, board_id, "2v2", who, column,
                                 amount if reward == "leaderboard_point" else 0, now)  # fmt: skip
        storage.db.execute(
            "update duo_duels set settled_at = ? where duel_id = ?", [iso(now), duel["id"]]
        )
    for name in state.names():
        outcome = (
            "won" if name in state.winners else "lost" if name in state.losers
            else "draw" if state.duel.draw else "none"
        )  # fmt: skip
        won = [f"{r.amount} {REWARD_FR[r.kind]}" for r in state.rewards if r.duellist == name]
        text = render(
            "duo_owl_result.bbcode.j2",
            {"character": name, "outcome": outcome, "galleons": duo_settings().win_galleons,
             "rewards": won, "stakes": duel["stakes"],
             "topic_url": _topic_url(storage, board_id, duel["topic_id"]),
             "referee_name": ref.referee_name},
            ref.language,
        )  # fmt: skip
        from forumbot.publish.labels import slug

        draft_owl(
            storage, board_id, f"b{board_id}-duel{duel['id']}-result-{slug(name)}", "result",
            player_of(storage, board_id, name), "Fin du duel en deux contre deux", text, now,
            duel_id=duel["id"],
        )  # fmt: skip
    return given


def record_in_duel_rewards(
    storage: Storage, board_id: int, duel: dict[str, Any], now: Any
) -> list[DuelReward]:
    """Record (once) the rewards won so far in a 2v2 duel's published declarations: creatures
    defeated and mechanisms solved (``duel_rewards``, kind ``2v2``; seed 001: "Vaincre une
    créature ou résoudre un mécanisme rapportera une récompense aléatoire"). Returns the
    rewards recorded now."""
    if duel["status"] not in ("running", "finished"):
        return []
    state = current_state(storage, duel)
    return record_duel_rewards(
        storage, board_id, int(duel["id"]),
        [DuelReward(r.duellist, r.source, r.kind, r.amount) for r in state.rewards], now,
    )  # fmt: skip


def after_poll(bot: Any) -> None:
    """After :meth:`forumbot.app.Bot.poll`: the PM inbox (owls asking for details become
    referee tasks), zone and result owls sent, finished 2v2 duels settled. Does nothing on a
    board that never had a 2v2. Forum errors are logged and retried next time."""
    from forumbot.club.inbox import poll_inbox
    from forumbot.errors import ForumError, LoginFailed

    storage, ref = bot.storage, bot.referee
    if not list(storage.db["duo_duels"].rows_where("board_id = ?", [ref.board_id], limit=1)):
        return
    for row in list(
        storage.db["duo_duels"].rows_where("board_id = ? and settled_at is null", [ref.board_id])
    ):
        record_in_duel_rewards(storage, ref.board_id, storage.duel(row["duel_id"]), bot.now())
    for row in list(
        storage.db["duo_duels"].rows_where("board_id = ? and settled_at is null", [ref.board_id])
    ):
        duel = storage.duel(row["duel_id"])
        if duel["status"] == "finished":
            settle(storage, ref.board_id, duel, bot.now(), ref)
    try:
        if duo_running(storage, ref.board_id) is not None:
            poll_inbox(storage, bot.client, ref.board_id, bot.now, bot_username=ref.bot_username)
        send_due_owls(storage, bot.client, bot.now, ref.board_id)
    except LoginFailed:
        raise
    except ForumError as exc:
        log.warning("2v2: inbox or owls not done (%s); will retry", exc)


__all__ = [
    "DuoBusy",
    "advance_duo",
    "after_poll",
    "close_task",
    "current_state",
    "duo_row",
    "duo_running",
    "duo_settings",
    "environments",
    "is_duo",
    "load_env",
    "make_draw",
    "open_duo_duel",
    "owl_magic_types",
    "record_in_duel_rewards",
    "recompute_duo",
    "referee_tasks",
    "reveal_zones",
    "settle",
    "turn_context",
    "use_item_line",
    "zone_owl_key",
]
