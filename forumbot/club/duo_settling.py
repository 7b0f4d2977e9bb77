"""Settling the board's 2v2 duels for the club: the rewards won in the duel's published
declarations, then, once it is finished, the end-of-duel rewards, the ``2v2`` leaderboard moved
and one result owl per duellist.

Seed 001: "Vaincre une créature ou résoudre un mécanisme rapportera une récompense aléatoire";
the end-of-duel rewards are :func:`rules.duo.duo_rewards` (``rules/data/duo.toml``). Everything
is recorded once: ``duel_rewards`` and ``rewards`` have unique indexes, a leaderboard row moves
only when its reward row was inserted now, ``duo_duels.settled_at`` marks a settled duel and the
owls are keyed by duel and duellist. Settling twice changes nothing.

The club settles, so the duels room never imports the leaderboard: :func:`settle_duo_duels`
runs after each poll (:meth:`forumbot.club.jobs.Club.two_against_two`).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.leaderboard import DuelReward, bump_leaderboard, record_duel_rewards
from forumbot.club.stakes import stakes_owed, stakes_terms
from forumbot.club.topics import topic_url
from forumbot.duels.duo import REWARD_FR, current_state, duo_settings
from forumbot.publish.labels import slug
from forumbot.publish.owls import draft_owl, owl_key
from forumbot.publish.render import render
from forumbot.storage import Storage, iso
from forumbot.storage.profiles import player_of, registration_duel
from rules.duo import duo_rewards

log = logging.getLogger("forumbot.club.duo_settling")


def record_in_duel_rewards(
    storage: Storage, board_id: int, duel: dict[str, Any], now: datetime
) -> list[DuelReward]:
    """Record (once) the rewards won so far in a 2v2 duel's published declarations: creatures
    defeated and mechanisms solved (``duel_rewards``, kind ``2v2``). Returns the rewards
    recorded now (none for a duel neither running nor finished)."""
    if duel["status"] not in ("running", "finished"):
        return []
    state = current_state(storage, duel)
    return record_duel_rewards(
        storage,
        board_id,
        int(duel["id"]),
        [DuelReward(r.duellist, r.source, r.kind, r.amount) for r in state.rewards],
        now,
    )


def settle_duo(ctx: DeskContext, duel: dict[str, Any]) -> int:
    """Rewards of a finished 2v2 (once: ``rewards`` unique index), the ``2v2`` leaderboard moved,
    ``duo_duels.settled_at`` set, and the result owls (once each). Returns the rewards given
    now."""
    storage, board_id, now = ctx.storage, ctx.board_id, ctx.now()
    state = current_state(storage, duel)
    given = 0
    terms = stakes_terms(ctx, duel)
    # As in 1v1 (issue 25): only the duels the sign-up desk opened count on the leaderboard
    # (its post says so); a 2v2 opened by hand gives no end-of-duel reward (reader after 25).
    counted = registration_duel(storage, int(duel["id"]))
    with storage.atomic():
        for who, reward, amount in duo_rewards(state, duo_settings()) if counted else []:
            inserted = storage.reward_rows.give_reward({
                "board_id": board_id, "duel_id": duel["id"], "kind": "2v2", "character": who,
                "player": player_of(storage, board_id, who), "reward": reward,
                "amount": amount, "stakes": duel["stakes"], "created_at": iso(now),
            })  # fmt: skip
            given += inserted
            if inserted and reward in ("leaderboard_point", "chocolate_frog"):
                column = (
                    "wins" if who in state.winners else "losses" if who in state.losers else "draws"
                )
                bump_leaderboard(storage, board_id, "2v2", who, column,
                                 amount if reward == "leaderboard_point" else 0, now)  # fmt: skip
        storage.reward_rows.settle_duo_duel(duel["id"], iso(now))
    for name in state.names():
        outcome = (
            "won" if name in state.winners else "lost" if name in state.losers
            else "draw" if state.duel.draw else "none"
        )  # fmt: skip
        won = [f"{r.amount} {REWARD_FR[r.kind]}" for r in state.rewards if r.duellist == name]
        text = render(
            "duo_owl_result.bbcode.j2",
            {"character": name, "outcome": outcome, "galleons": duo_settings().win_galleons,
             "counted": counted,
             "rewards": won,
             "duel_galleons": sum(
                 r.amount for r in state.rewards if r.duellist == name and r.kind == "galleons"
             ),
             "owed": stakes_owed(terms, name, list(state.winners), list(state.losers)),
             "topic_url": topic_url(ctx, duel["topic_id"]),
             "referee_name": ctx.referee_name},
            ctx.language,
        )  # fmt: skip
        player = player_of(storage, board_id, name)
        draft_owl(
            storage, board_id, owl_key(board_id, int(duel["topic_id"]), "result", player, name),
            "result", player, "Fin du duel en deux contre deux", text, now,
            duel_id=duel["id"],
            legacy_keys=(f"b{board_id}-duel{duel['id']}-result-{slug(name)}",),
        )  # fmt: skip
    return given


def settle_duo_duels(ctx: DeskContext) -> int:
    """After a poll, on a board that ever had a 2v2: the in-duel rewards of every 2v2 not
    settled yet (:func:`record_in_duel_rewards`), then every finished one settled
    (:func:`settle_duo`). Returns the 2v2 duels settled now."""
    rows, board_id = ctx.storage.reward_rows, ctx.board_id
    if not ctx.storage.club_rows.had_duo(board_id):
        return 0
    for row in rows.unsettled_duo_duels(board_id):
        record_in_duel_rewards(ctx.storage, board_id, ctx.storage.duel(row["duel_id"]), ctx.now())
    settled = 0
    for row in rows.unsettled_duo_duels(board_id):
        duel = ctx.storage.duel(row["duel_id"])
        if duel["status"] == "finished":
            settle_duo(ctx, duel)
            settled += 1
    return settled


__all__ = ["record_in_duel_rewards", "settle_duo", "settle_duo_duels"]
