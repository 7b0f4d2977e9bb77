"""Rewards won during a 2v2 duel (creatures defeated, mechanisms solved) recorded once in
``duel_rewards`` and shown on the 2v2 leaderboard (seed 001: "Vaincre une créature ou résoudre
un mécanisme rapportera une récompense aléatoire : gallions, PV, PA, friandises, points au
sablier"), beside the end-of-duel purse (RULES.md: "a purse of 5 G each")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from forumbot.club import leaderboard
from forumbot.club.leaderboard import (
    DuelReward,
    bump_leaderboard,
    record_duel_rewards,
    render_leaderboard,
    standings,
)
from forumbot.publish.typography import plain
from forumbot.storage import open_storage

pytestmark = pytest.mark.usefixtures("on_each_engine")

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def test_in_duel_rewards_are_recorded_once_and_add_to_the_2v2_purse() -> None:
    storage = open_storage(":memory:")
    board = storage.board_id("http://board.invalid", "phpbb3", NOW)
    won = [
        DuelReward("Cassius Thorne", "creature:strangulot", "galleons", 4),
        DuelReward("Cassius Thorne", "mechanism:cadran", "galleons", 2),  # same kind, 2nd source
        DuelReward("Cassius Thorne", "mechanism:cadran", "sweets", 3),
    ]
    assert record_duel_rewards(storage, board, 9, won, NOW) == won
    assert record_duel_rewards(storage, board, 9, won, NOW) == []  # once
    with storage.db.atomic():  # the end of the duel: a frog, and the purse of the winners
        storage.db["rewards"].insert(
            {"board_id": board, "duel_id": 9, "kind": "2v2", "character": "Cassius Thorne",
             "player": "Cassius Thorne", "reward": "chocolate_frog", "amount": 1}
        )  # fmt: skip
        bump_leaderboard(storage, board, "2v2", "Cassius Thorne", "losses", 0, NOW)
    (line,) = standings(storage, board, "2v2")
    assert (line.purse, line.frogs, line.losses) == (6, 1, 1)
    assert standings(storage, board, "1v1") == []  # 2v2 galleons stay on the 2v2 table
    text = render_leaderboard(storage, board, "2v2")
    assert "deux contre deux" in text
    assert "bourse de 6 gallions" in plain(text) and "gains en duel 3 friandises" in plain(text)
    assert "un contre un" in render_leaderboard(storage, board, "1v1")


def test_bump_is_public_with_the_old_name_kept() -> None:
    assert leaderboard._bump is bump_leaderboard
    storage = open_storage(":memory:")
    with pytest.raises(ValueError):
        bump_leaderboard(storage, 1, "2v2", "X", "points; drop table x", 1, NOW)
