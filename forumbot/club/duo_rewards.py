"""The club's side of two-against-two duels: rewards, the 2v2 leaderboard, result owls.

Run after every poll (:func:`after_poll`, wired by :func:`forumbot.app.bootstrap`): the PM
inbox (owls asking for details become referee tasks, :mod:`forumbot.club.inbox`), the zone and
result owls sent (:mod:`forumbot.publish.owls`), the rewards won inside running 2v2 duels
recorded (:func:`record_in_duel_rewards`: creatures defeated, mechanisms solved) and finished
2v2 duels settled once (:func:`settle`, kind ``2v2``: winners 1 point and 5 G each, losers a
frog each). The duel itself is refereed by :mod:`forumbot.duels.duo`.
"""

from __future__ import annotations

import logging
from typing import Any

from forumbot.club.inbox import poll_inbox
from forumbot.club.leaderboard import DuelReward, bump_leaderboard, record_duel_rewards
from forumbot.duels.duo import REWARD_FR, current_state, duo_running, duo_settings, topic_url
from forumbot.errors import ForumError, LoginFailed
from forumbot.publish.labels import slug
from forumbot.publish.owls import draft_owl, send_due_owls
from forumbot.publish.render import render
from forumbot.storage import Storage, iso
from forumbot.storage.profiles import player_of
from rules.duo import duo_rewards

log = logging.getLogger("forumbot.duo")


def settle(storage: Storage, board_id: int, duel: dict[str, Any], now: Any, ref: Any) -> int:
    """Rewards of a finished 2v2 (once: ``rewards`` unique index), leaderboard ``2v2`` moved,
    result owls (once each). ``ref``: what signs the owls (``referee_name``, ``language``:
    the referee or its settings). Returns rewards given now."""
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
             "topic_url": topic_url(storage, board_id, duel["topic_id"]),
             "referee_name": ref.referee_name},
            ref.language,
        )  # fmt: skip
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


__all__ = ["after_poll", "record_in_duel_rewards", "settle"]
