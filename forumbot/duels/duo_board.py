"""Two-against-two duels' records and side effects (seed 001, issue 5): data files, queries,
the opening, the owls and the referee tasks. The flow itself is :mod:`forumbot.duels.duo`.

- :func:`open_duo_duel` registers a 2v2 duel in a topic (one 2v2 at a time on a board): the
  four duellists are placed at random from the duel's secret seed (recorded in ``duo_duels``)
  and the opening declaration (environment, positions, creatures) is drafted, with each
  duellist's magic-type owl (:func:`owl_magic_types`).
- Zone reveals (:func:`reveal_zones`): for the starting zones (once the opening is out) and for
  every zone entered in a published declaration, an owl is drafted under the key
  ``b<board>-duel<id>-zone-<who>-<zone>`` (:mod:`forumbot.publish.owls`: exactly once, even
  across restarts; a zone entered again sends none).
- Mechanism attempts become referee tasks (:func:`referee_tasks`, :func:`close_task`); a task
  marked solved is stated (with its reward) in the next declaration.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import rules
from forumbot.duels.flow import Draft, FlowContext, HasContext, context_of
from forumbot.duels.opening import club_variants
from forumbot.duels.stakes import opening_stakes
from forumbot.forums.forumactif_http import topic_path
from forumbot.publish.labels import modifier_scope, slug
from forumbot.publish.owls import draft_owl, owl_key
from forumbot.publish.render import Trusted, render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.profiles import player_of
from forumbot.storage.records import Declaration, Duel, DuelRecords
from rules.dice import commitment, derive_die
from rules.duo import (
    DuoState,
    Environment,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    start_duo,
)
from rules.duo.settings import DuoSettings
from rules.fatigue import FatigueRuleset

log = logging.getLogger("forumbot.duo")

DATA = Path(rules.__file__).resolve().parent / "data"
REWARD_FR = {
    "galleons": "gallions",
    "pv": "PV",
    "pa": "PA",
    "sweets": "friandises",
    "house_points": "points au sablier",
}


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
    return storage.duel_rows.duo_row(duel_id)


def is_duo(storage: Storage, duel_id: int) -> bool:
    """True for a 2v2 duel."""
    return duo_row(storage, duel_id) is not None


def duo_running(storage: Storage, board_id: int) -> dict[str, Any] | None:
    """The board's 2v2 duel that is open or running, or None."""
    found = storage.duel_rows.open_duo_id(board_id)
    return storage.duel(found) if found is not None else None


def current_state(
    storage: Storage, duel: Duel | dict[str, Any], records: DuelRecords | None = None
) -> DuoState:
    """The 2v2 state in force: the latest published 2v2 declaration's (a turn, or a
    concession's closure), else the opening's (started once the opening is out).
    ``records``: the duel's snapshot when the caller holds one (else its declarations are
    read now)."""
    duel = Duel.of(duel)
    if records is not None and records.duel.id == duel.id:
        published = list(records.published())
    else:
        rows = storage.declarations(("published",), duel.id)
        published = [Declaration.from_row(r) for r in rows]
    published = [d for d in published if d.kind in ("turn", "closure")]
    # latest post first (a declaration without a post id, never seen, last)
    published.sort(key=lambda d: (d.published_post_id is None, -(d.published_post_id or 0)))
    for decl in published:
        stored = decl.context
        if stored.get("duo_state"):  # a closure of a silence carries none; a concession does
            return DuoState.from_dict(stored["duo_state"])
    duo = duo_row(storage, duel.id)
    assert duo is not None
    state = DuoState.from_dict(json.loads(duo["state_json"]))
    return start_duo(state) if duel.status != "open" else state


# --- Opening ---------------------------------------------------------------------------------


def open_duo_duel(
    source: FlowContext | HasContext,
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
    ctx = context_of(source)
    storage = ctx.storage
    busy = duo_running(storage, ctx.board_id)
    if busy is not None:
        raise DuoBusy(f"duel {busy['id']} (2v2) is still running")
    if storage.duel_by_topic(ctx.board_id, topic_id) is not None:
        raise ValueError(f"topic {topic_id} already holds a duel")
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    env = load_env(environment)
    secret = dice_secret if dice_secret is not None else ctx.rng.randbytes(32)
    draw = make_draw(secret, f"{ctx.settings.platform}:{topic_id}")
    state = new_duo_duel(rs, duos, env, draw, stakes)
    now = ctx.now()
    with storage.atomic():
        duel_id = int(
            storage.duel_rows.insert_duel(
                {
                    "board_id": ctx.board_id,
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
        )
        for i, d in enumerate(state.duel.duellists):
            storage.duel_rows.insert_duellist(
                {
                    "duel_id": duel_id,
                    "name": d.name,
                    "year": d.year,
                    "side": "AB"[i // 2],
                    "magic_types": json.dumps(list(d.magic_types)),
                }
            )
        storage.duel_rows.insert_duo(
            {
                "duel_id": duel_id,
                "board_id": ctx.board_id,
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
        rs, env, state, title, stakes, commitment(secret), ctx.settings.referee_name,
        dice_source="forum" if ctx.settings.forum_rolls_dice else "bot",
    )  # fmt: skip
    # stakes the four duellists did not all write are said not to be due (issue 25, reader3)
    context.update(opening_stakes(storage, ctx.board_id, stakes, topic_id))
    text = render("duo_opening.bbcode.j2", context, ctx.settings.language)
    ctx.drafts.write(
        Duel.from_row(storage.duel(duel_id)), Draft(0, "opening", "opening", text, context)
    )
    storage.audit(
        actor, "duel.adopt", f"duel:{duel_id}", None,
        {"topic_id": topic_id, "duos": [list(d) for d in state.duos], "kind": "2v2",
         "environment": environment, "placement": [list(p) for p in state.positions]},
        now,
    )  # fmt: skip
    owl_magic_types(ctx, duel_id, topic_id, rs, state)
    log.info("duel %s: 2v2 opened in topic %s (%s)", duel_id, topic_id, environment)
    return duel_id


def owl_magic_types(
    ctx: FlowContext, duel_id: int, topic_id: int, rs: FatigueRuleset, state: DuoState
) -> int:
    """Draft each duellist's magic-type owl of a 2v2 (RULES.md: the modifiers "are sent to
    the duellist by owl"), like the 1v1 one; key ``b<board>-duel<id>-owl-<who>``, so each is
    sent exactly once (:mod:`forumbot.publish.owls`). Returns owls drafted (4)."""
    storage = ctx.storage
    for who in state.names():
        types = [
            {
                "label": rs.magic_type(k).label,
                "traits": rs.magic_type(k).traits,
                "owl": rs.magic_type(k).owl,
                "modifiers": [modifier_scope(rs, m) for m in rs.magic_type(k).modifiers],
            }
            for k in state.duel.duellist(who).magic_types
        ]
        opponents = " et ".join(state.opponents(who))
        text = render(
            "owl_magic_types.bbcode.j2",
            {"character": who, "opponent": opponents, "types": types,
             "topic_url": topic_url(storage, ctx.board_id, topic_id),
             "referee_name": ctx.settings.referee_name},
            ctx.settings.language,
        )  # fmt: skip
        player = player_of(storage, ctx.board_id, who)
        draft_owl(
            storage, ctx.board_id, owl_key(ctx.board_id, topic_id, "magic_types", player, who),
            "magic_types", player,
            f"Duel contre {opponents} : ton type de magie", text, ctx.now(), duel_id=duel_id,
            legacy_keys=(f"b{ctx.board_id}-duel{duel_id}-owl-{slug(who)}",),
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
            "types": " et ".join(rs.magic_type(t).label for t in d.magic_types),
        }

    return {
        "title": title,
        "env_name": env.name,
        # the environment's texts are the club's words, not a player's: Trusted, so typeset
        # like the templates' own and read by the lint (reader after issue 25, T3)
        "env_description": Trusted(env.description),
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
                "ability_text": Trusted(c.ability.text),
            }
            for c in env.creatures
        ],
        "unit": rs.unit,
        "hours": int(rs.setting("timeout_2v2_hours")),
        "dice_name": rs.dice_name,
        "bets": {k: [list(b) for b in v] for k, v in rs.bets.items()},
        "min_lines": int(rs.setting("min_lines")),
        "dodge_success": str(rs.setting("dodge_success")),
        "stakes": stakes,
        "commitment": commit,
        "dice_source": dice_source,
        "referee_name": referee_name,
        "duo_state": state.to_dict(),
        **club_variants(rs),
    }


# --- Zone reveals ----------------------------------------------------------------------------


def zone_owl_key(board_id: int, topic_id: int, duellist: str, zone: str) -> str:
    """Idempotency key of the owl revealing ``zone`` to ``duellist`` (one per pair, ever),
    from what the board knows: the duel's topic, not its database id (issue 22; older rows
    keep their ``b<board>-duel<id>-zone-…`` key: :func:`reveal_zones` reads both)."""
    return f"b{board_id}t{topic_id}-owl-zone-{zone}-{slug(duellist)}"


def reveal_zones(
    source: FlowContext | HasContext, duel: Duel | dict[str, Any], state: DuoState
) -> int:
    """Draft the owls of zones entered: the starting zones once the opening is out, and every
    zone entered in a published declaration. Each (duellist, zone) once. Returns owls drafted."""
    ctx = context_of(source)
    duel = Duel.of(duel)
    storage = ctx.storage
    duo = duo_row(storage, duel.id)
    assert duo is not None
    env = load_env(duo["environment"])
    entries: list[tuple[str, str, int | None]] = [
        (n, z, None) for n, z in json.loads(duo["placement_json"])
    ]
    for decl in ctx.records_of(duel).published():
        if decl.kind != "turn":
            continue
        entries += [(n, z, decl.id) for n, z in decl.context.get("entered", [])]
    drafted = 0
    for name, zone_key, decl_id in entries:
        key = zone_owl_key(ctx.board_id, duel.topic_id, name, zone_key)
        if not storage.duel_rows.reveal_zone(duel.id, name, zone_key, key, decl_id, iso(ctx.now())):
            continue
        zone = env.zone(zone_key)
        text = render(
            "duo_owl_zone.bbcode.j2",
            {
                "character": name,
                "number": env.zone_number(zone_key),
                "zone_name": zone.name,
                "description": Trusted(zone.owl),
                "topic_url": topic_url(storage, ctx.board_id, duel.topic_id),
                "referee_name": ctx.settings.referee_name,
            },
            ctx.settings.language,
        )
        draft_owl(
            storage, ctx.board_id, key, "zone", player_of(storage, ctx.board_id, name),
            f"Duel à deux contre deux : {zone.name}", text, ctx.now(), duel_id=duel.id,
            legacy_keys=(f"b{ctx.board_id}-duel{duel.id}-zone-{slug(name)}-{zone_key}",),
        )  # fmt: skip
        drafted += 1
    storage.commit()
    return drafted


def topic_url(storage: Storage, board_id: int, topic_id: int) -> Trusted:
    """The public link of a topic (as :func:`forumbot.club.topics.topic_url`): built by the
    bot, so :class:`Trusted` (a template prints it as a working link)."""
    board = storage.duel_rows.board(board_id)
    base = str(board["url"]).rstrip("/")
    if board["platform"] == "forumactif":
        return Trusted(base + topic_path(topic_id))
    return Trusted(f"{base}/viewtopic.php?t={topic_id}")


# --- Referee tasks ---------------------------------------------------------------------------


def add_task(
    storage: Storage, board_id: int, duel_id: int, kind: str, source_key: str, duellist: str,
    zone: str | None, subject: str, text: str, now: datetime, *, mechanism: str | None = None,
    post_id: int | None = None,
) -> None:  # fmt: skip
    storage.duel_tasks.add_task(
        [board_id, duel_id, kind, source_key, duellist, zone, subject, text, mechanism, post_id,
         iso(now)],
    )  # fmt: skip


def referee_tasks(
    storage: Storage, board_id: int, status: str | None = "open"
) -> list[dict[str, Any]]:
    """The board's referee tasks (``open`` by default), oldest first."""
    return storage.duel_tasks.board_tasks(board_id, status)


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
    row = storage.duel_tasks.task(task_id)
    if status in ("solved", "failed") and row["kind"] != "mechanism":
        raise ValueError("only a mechanism attempt is solved or failed")
    changed = storage.duel_tasks.close_open(task_id, status, iso(now), by, note)
    storage.audit(by, f"task.{status}", f"referee_task:{task_id}", "open", status, now)
    storage.commit()
    return bool(changed == 1)


def solved_tasks(storage: Storage, duel_id: int, state: DuoState) -> list[tuple[str, str, int]]:
    done = {k for k, _ in state.solved}
    out = []
    for r in storage.duel_tasks.solved_mechanisms(duel_id):
        if r["mechanism"] not in done:
            done.add(r["mechanism"])
            out.append((r["mechanism"], r["duellist"], int(r["id"])))
    return out


__all__ = [
    "DATA",
    "REWARD_FR",
    "DuoBusy",
    "add_task",
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
    "opening_context",
    "owl_magic_types",
    "referee_tasks",
    "reveal_zones",
    "solved_tasks",
    "topic_url",
    "zone_owl_key",
]
