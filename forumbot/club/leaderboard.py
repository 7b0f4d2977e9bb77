"""End-of-duel rewards, the 1v1 leaderboard, and the leaderboard post the bot keeps up to date;
finished classic duels (no reward in seed 000) in a table of their own (:func:`classic_records`).

Seed 001 (RULES.md, "Ruleset fatigue — duels one against one"): "Win: the opponent abandons (PV 0
or concession). Winner: 1 point on the 1v1 leaderboard and a purse of 3 G. Loser: nothing lost,
one chocolate frog." Stakes "must be honoured whatever they are": they are recorded with the
rewards and recalled to both duellists by owl.

Decisions where the seed is silent **[D]**: a draw gives no point and no purse, and one chocolate
frog to each duellist (nobody lost, nobody won); a duel closed with no winner (abandoned after
the last relaunch) gives nothing (RULES.md: "no winner, no loser and no rewards"). The
leaderboard ranks by points, then wins, then fewer losses, then name.

Rewards are recorded once: ``rewards`` has a unique (duel, character, reward) index and the
leaderboard counters move only in the transaction that inserted them.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.club.posts import club_post, draft_club_post, edit_club_post
from forumbot.forums.base import EditingForumClient
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.profiles import player_of
from parsers.registration import fold
from rules.errors import RuleError

log = logging.getLogger("forumbot.club.leaderboard")

WIN_POINTS_1V1 = 1  # seed 001: "1 point au tableau de classement"
WIN_GALLEONS_1V1 = 3  # seed 001: "une bourse de 3 gallions"
LOSER_FROGS_1V1 = 1  # seed 001: "une chocogrenouille"
DRAW_FROGS_1V1 = 1  # [D] a draw: one frog each, no point, no purse


@dataclass(frozen=True)
class Reward:
    """One reward given at the end of a duel.

    Attributes:
        character: the duellist; player: their forum account.
        reward: ``leaderboard_point``, ``galleons`` or ``chocolate_frog``.
        amount: points, galleons (G) or frogs.
    """

    character: str
    player: str
    reward: str
    amount: int


@dataclass(frozen=True)
class Standing:
    """One line of the leaderboard (``purse``: galleons won in total, ``frogs``: frogs)."""

    rank: int
    character: str
    points: int
    wins: int
    losses: int
    draws: int
    purse: int
    frogs: int


def rewards_for(state: dict[str, Any]) -> list[tuple[str, str, int]]:
    """The rewards a finished 1v1 duel's final state calls for: ``(character, reward, amount)``.

    ``state`` is a ``DuelState.to_dict()`` (``winner``, ``draw``, ``duellists``). Pure.
    """
    names = [d["name"] for d in state.get("duellists", [])]
    winner = state.get("winner")
    if winner:
        out = [
            (winner, "leaderboard_point", WIN_POINTS_1V1),
            (winner, "galleons", WIN_GALLEONS_1V1),
        ]
        out += [(n, "chocolate_frog", LOSER_FROGS_1V1) for n in names if n != winner]
        return out
    if state.get("draw"):
        return [(n, "chocolate_frog", DRAW_FROGS_1V1) for n in names]
    return []


def record_rewards(
    storage: Storage, board_id: int, duel: dict[str, Any], now: datetime, kind: str = "1v1"
) -> list[Reward]:
    """Give the rewards of a finished duel once, and move the leaderboard.

    Returns the rewards given by *this* call (empty when they were already given, or when the
    duel has no winner and no draw).

    Raises:
        ValueError: the duel is not finished.
    """
    if duel["status"] != "finished":
        raise ValueError(f"duel {duel['id']} is not finished")
    state = json.loads(duel["state_json"] or "{}")
    given: list[Reward] = []
    with storage.atomic():
        for character, reward, amount in rewards_for(state):
            player = player_of(storage, board_id, character)
            inserted = storage.reward_rows.give_reward({
                "board_id": board_id, "duel_id": duel["id"], "kind": kind,
                "character": character, "player": player, "reward": reward, "amount": amount,
                "stakes": duel.get("stakes"), "created_at": iso(now),
            })  # fmt: skip
            if inserted == 1:
                given.append(Reward(character, player, reward, amount))
        winner = state.get("winner")
        names = [d["name"] for d in state.get("duellists", [])]
        if given:
            for name in names:
                column = (
                    "wins"
                    if name == winner
                    else "losses"
                    if winner
                    else "draws"
                    if state.get("draw")
                    else None
                )
                if column is None:
                    continue
                points = sum(
                    r.amount
                    for r in given
                    if r.character == name and r.reward == "leaderboard_point"
                )
                bump_leaderboard(storage, board_id, kind, name, column, points, now)
    if given:
        log.info(
            "duel %s: rewards %s",
            duel["id"],
            ", ".join(f"{r.character} {r.reward} {r.amount}" for r in given),
        )
    return given


def bump_leaderboard(
    storage: Storage,
    board_id: int,
    kind: str,
    character: str,
    column: str,
    points: int,
    now: datetime,
) -> None:
    """Add one to ``column`` (``wins``, ``losses`` or ``draws``) and ``points`` to the points of
    ``character`` on the ``kind`` leaderboard (``"1v1"``, ``"2v2"``), creating its line.

    Call it only in the transaction that inserted the matching reward (so it moves once).

    Raises:
        ValueError: an unknown column
            (:meth:`forumbot.storage.reward_rows.RewardRows.bump_leaderboard`).
    """
    storage.reward_rows.bump_leaderboard(
        board_id, kind, fold(character), character, player_of(storage, board_id, character),
        column, points, iso(now),
    )  # fmt: skip


_bump = bump_leaderboard  # the former private name, kept for older callers


@dataclass(frozen=True)
class DuelReward:
    """A reward won during a duel (2v2: a creature defeated, a mechanism solved).

    Attributes:
        character: the duellist; source: ``creature:<key>`` or ``mechanism:<key>``.
        reward: ``galleons``, ``pv``, ``pa``, ``sweets`` or ``house_points``; amount: how many.
    """

    character: str
    source: str
    reward: str
    amount: int


def record_duel_rewards(
    storage: Storage,
    board_id: int,
    duel_id: int,
    rewards: list[DuelReward],
    now: datetime,
    kind: str = "2v2",
) -> list[DuelReward]:
    """Record rewards won during a duel, once each (unique duel, character, source, reward):
    seed 001, "Vaincre une créature ou résoudre un mécanisme rapportera une récompense
    aléatoire". Returns the rewards recorded by *this* call."""
    given: list[DuelReward] = []
    with storage.atomic():
        for r in rewards:
            inserted = storage.reward_rows.give_duel_reward({
                "board_id": board_id, "duel_id": duel_id, "kind": kind,
                "character": r.character, "player": player_of(storage, board_id, r.character),
                "source": r.source, "reward": r.reward, "amount": r.amount,
                "created_at": iso(now),
            })  # fmt: skip
            if inserted == 1:
                given.append(r)
    if given:
        log.info(
            "duel %s: in-duel rewards %s",
            duel_id,
            ", ".join(f"{r.character} {r.reward} {r.amount} ({r.source})" for r in given),
        )
    return given


def duel_reward_totals(storage: Storage, board_id: int, kind: str) -> dict[str, dict[str, int]]:
    """In-duel rewards per folded character name: ``{character_key: {reward: total}}``."""
    out: dict[str, dict[str, int]] = {}
    for row in storage.reward_rows.duel_reward_sums(board_id, kind):
        out.setdefault(fold(row[0]), {})[row[1]] = int(row[2] or 0)
    return out


def standings(storage: Storage, board_id: int, kind: str = "1v1") -> list[Standing]:
    """The leaderboard, best first (points, wins, fewer losses, name); ties share a rank.

    ``purse`` counts every galleon won: end-of-duel purses and, in 2v2, the galleons of
    creatures defeated and mechanisms solved (``duel_rewards``)."""
    purses: dict[str, tuple[int, int]] = {}
    for row in storage.reward_rows.purses(board_id, kind):
        purses[fold(row[0])] = (int(row[1] or 0), int(row[2] or 0))
    extra = duel_reward_totals(storage, board_id, kind)
    rows = storage.reward_rows.leaderboard(board_id, kind)
    rows.sort(key=lambda r: (-r["points"], -r["wins"], r["losses"], fold(r["character"])))
    out: list[Standing] = []
    previous: tuple[int, int, int] | None = None
    rank = 0
    for i, r in enumerate(rows, start=1):
        score = (r["points"], r["wins"], r["losses"])
        if score != previous:
            rank, previous = i, score
        purse, frogs = purses.get(r["character_key"], (0, 0))
        purse += extra.get(r["character_key"], {}).get("galleons", 0)
        out.append(
            Standing(
                rank, r["character"], r["points"], r["wins"], r["losses"], r["draws"], purse, frogs
            )
        )
    return out


def render_leaderboard(
    storage: Storage, board_id: int, kind: str = "1v1", language: str = "fr"
) -> str:
    """The leaderboard post's BBCode (template ``leaderboard.bbcode.j2``); for 2v2 it also
    lists the in-duel rewards other than galleons (PA, sweets, house points)."""
    extra = duel_reward_totals(storage, board_id, kind)
    labels = {"pa": "PA", "sweets": "friandises", "house_points": "points au sablier"}
    lines = [
        {
            "rank": s.rank,
            "character": s.character,
            "points": s.points,
            "wins": s.wins,
            "losses": s.losses,
            "draws": s.draws,
            "purse": s.purse,
            "frogs": s.frogs,
            "extras": ", ".join(
                f"{extra[fold(s.character)][k]} {label}"
                for k, label in labels.items()
                if extra.get(fold(s.character), {}).get(k)
            ),
        }
        for s in standings(storage, board_id, kind)
    ]
    return render("leaderboard.bbcode.j2", {"kind": kind, "lines": lines}, language)


@dataclass(frozen=True)
class ClassicRecord:
    """One duellist's finished classic duels (seed 000: no point, no purse, no frog)."""

    character: str
    duels: int
    wins: int
    losses: int
    draws: int


def classic_records(storage: Storage, board_id: int) -> list[ClassicRecord]:
    """Every duellist of the board's finished classic duels (the ruleset's engine is not
    ``fatigue``; a 2v2 is a fatigue duel), most wins first, then fewer losses, then name.

    Seed 000 gives no reward, so these duels never reach :func:`record_rewards` nor the
    club's leaderboard: they are counted here, from each finished duel's final state
    (``winner``, ``draw``, ``duellists``). A duel whose ruleset no longer loads is skipped."""
    tally: dict[str, list[Any]] = {}
    for duel in storage.reward_rows.finished_duels(board_id):
        try:
            if load_ruleset(duel["ruleset"] or "classic").engine == "fatigue":
                continue
        except (OSError, ValueError, RuleError):
            continue
        state = json.loads(duel["state_json"] or "{}")
        winner, draw = state.get("winner"), bool(state.get("draw"))
        for d in state.get("duellists", []):
            name = d["name"]
            line = tally.setdefault(fold(name), [name, 0, 0, 0, 0])
            line[1] += 1
            if winner:
                line[2 if fold(winner) == fold(name) else 3] += 1
            elif draw:
                line[4] += 1
    records = [ClassicRecord(*line) for line in tally.values()]
    records.sort(key=lambda r: (-r.wins, r.losses, fold(r.character)))
    return records


def render_classic_records(storage: Storage, board_id: int, language: str = "fr") -> str:
    """The finished classic duels as BBCode (template ``leaderboard_classic.bbcode.j2``)."""
    lines = [vars(r) for r in classic_records(storage, board_id)]
    return render("leaderboard_classic.bbcode.j2", {"lines": lines}, language)


def leaderboard_key(board_id: int, kind: str = "1v1") -> str:
    """Idempotency key of the board's leaderboard post."""
    return f"b{board_id}-leaderboard-{kind}"


def update_leaderboard_post(
    storage: Storage,
    client: EditingForumClient,
    board_id: int,
    topic_id: int,
    now: datetime,
    *,
    kind: str = "1v1",
    language: str = "fr",
) -> str:
    """Keep the bot's leaderboard post in ``topic_id`` up to date.

    The first call drafts the post (published exactly once by
    :func:`forumbot.club.posts.publish_due_club_posts`, at once); once it is published, every
    call edits it when the leaderboard changed. Returns ``"drafted"``, ``"waiting"`` (not
    published yet), ``"edited"`` or ``"unchanged"``.

    Raises:
        ForumError: the edit failed (retried at the next call).
    """
    key = leaderboard_key(board_id, kind)
    text = render_leaderboard(storage, board_id, kind, language)
    row = club_post(storage, key)
    if row is None:
        draft_club_post(storage, board_id, key, "leaderboard", topic_id, text, now)
        return "drafted"
    if row["status"] != "published":
        if row["status"] == "draft" and row["text"] != text:
            storage.club_posts.update(row["id"], {"text": text, "updated_at": iso(now)})
        return "waiting"
    return "edited" if edit_club_post(storage, client, key, text, now) else "unchanged"


__all__ = [
    "ClassicRecord",
    "classic_records",
    "render_classic_records",
    "DRAW_FROGS_1V1",
    "DuelReward",
    "LOSER_FROGS_1V1",
    "WIN_GALLEONS_1V1",
    "WIN_POINTS_1V1",
    "Reward",
    "Standing",
    "bump_leaderboard",
    "duel_reward_totals",
    "leaderboard_key",
    "record_duel_rewards",
    "record_rewards",
    "render_leaderboard",
    "rewards_for",
    "standings",
    "update_leaderboard_post",
]
