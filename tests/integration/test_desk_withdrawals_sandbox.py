"""Withdrawals at the sign-up desk (issue 23 soak), on the phpBB sandbox with the real
PhpbbClient: « Je me désiste » withdraws an open request (the player is never paired); a
withdrawal from a queued pairing (not opened yet) dissolves it, the partner's request is open
again and the reply tells them; a running duel is not withdrawn; nothing to withdraw is said."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from forumbot.app import Bot
from forumbot.config import Config, parse_config
from forumbot.duels.referee import Referee
from forumbot.forums.phpbb import PhpbbClient
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage
from tests.integration.test_desk_confirmations import (
    DUEL_FORUM,
    USERS,
    Clock,
    bot_replies,
    cycle,
    sign_up,
)

pytestmark = pytest.mark.usefixtures("on_each_engine")


def unlinked(text: str) -> str:
    """``text`` with typography undone and post links unwrapped (issue 25: replies link
    « message n° 5 » to the post)."""
    return re.sub(r"\[/?url[^\]]*\]", "", plain(text))


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def board(clock: Clock) -> Iterator[SandboxBoard]:
    sandbox = SandboxBoard(users=USERS, clock=clock, flood_interval_s=15)
    sandbox.start()
    yield sandbox
    sandbox.stop()


def make_bot(board: SandboxBoard, clock: Clock, tmp_path: Path) -> tuple[Bot, int]:
    """A bot whose 1v1 desk runs one duel at a time (so a second pairing queues)."""
    thread = board.create_topic(4, "Arbitre", "Inscriptions : duels 1v1", "Vos fiches ici.")
    config: Config = parse_config(
        f"""
[board]
url = "{board.base_url}"
[bot]
username = "Hibou"
[club]
review_delay_s = 0
[storage]
database = "{tmp_path / "bot.db"}"
[[registration]]
topic_id = {thread}
thread_forum_id = 4
forum_id = {DUEL_FORUM}
kind = "1v1"
ruleset = "fatigue"
max_concurrent = 1
"""
    )
    storage = open_storage(config.database)
    client = PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
    referee = Referee(
        storage, client, board_url=config.board_url, platform="phpbb3", ruleset_name="classic",
        review_delay_s=0, now=clock.utc, rng=random.Random(11), bot_username="Hibou",
    )  # fmt: skip
    bot = Bot(config=config, storage=storage, client=client, referee=referee, now=clock.utc)
    return bot, thread


def alone(board: SandboxBoard, clock: Clock, thread: int, who: str) -> int:
    clock.sleep(60)
    return board.post_reply(
        thread, who, f"Nom : {who}\nAnnée : 4e année\nType de magie : brutale"
    )  # fmt: skip


def say(board: SandboxBoard, clock: Clock, thread: int, who: str, text: str) -> int:
    clock.sleep(60)
    return board.post_reply(thread, who, text)


def rows(bot: Bot, table: str) -> list[dict[str, object]]:
    return list(bot.storage.db[table].rows_where(order_by="rowid"))


def test_sign_up_then_withdraw_the_player_is_never_paired(
    board: SandboxBoard, clock: Clock, tmp_path: Path
) -> None:
    bot, thread = make_bot(board, clock, tmp_path)
    alone(board, clock, thread, "Nerys Vale")
    cycle(bot)
    withdrawal = say(board, clock, thread, "Nerys Vale", "Je retire mon inscription, désolée.")
    cycle(bot)
    alone(board, clock, thread, "Ysolde Marr")  # would have been paired with Nerys
    cycle(bot)
    cycle(bot)
    assert rows(bot, "queue") == []
    assert [(r["player"], r["status"]) for r in rows(bot, "requests")] == [
        ("Nerys Vale", "withdrawn"), ("Ysolde Marr", "open"),
    ]  # fmt: skip
    (answer,) = [r for r in rows(bot, "registration_posts") if r["post_id"] == withdrawal]
    assert (answer["status"], answer["code"]) == ("withdrawal", "withdrawn_open")
    (reply,) = [t for t in map(plain, bot_replies(board, thread)) if f"n° {withdrawal}" in t]
    assert "ta demande ouverte est retirée de ce sujet" in reply
    assert board.topics(DUEL_FORUM) == []  # no duel topic, no owl
    assert board.pms() == []
    # nothing left to withdraw: said so
    again = say(board, clock, thread, "Nerys Vale", "Je me désiste.")
    cycle(bot)
    answers = {r["post_id"]: r["code"] for r in rows(bot, "registration_posts")}
    assert answers[again] == "nothing_to_withdraw"
    assert sum("il n'y a rien à retirer" in t for t in bot_replies(board, thread)) == 1


def test_withdrawing_from_a_queued_pairing_reopens_the_partner_and_tells_them(
    board: SandboxBoard, clock: Clock, tmp_path: Path
) -> None:
    bot, thread = make_bot(board, clock, tmp_path)
    sign_up(board, clock, thread, "Odric Fenwick", "Cassius Thorne")  # opens: the one slot
    cycle(bot)
    sign_up(board, clock, thread, "Nerys Vale", "Ysolde Marr")  # queued behind it
    sign_up(board, clock, thread, "Ysolde Marr", "Nerys Vale")  # Ysolde's own request
    cycle(bot)
    queue = rows(bot, "queue")
    assert [({q["first_player"], q["second_player"]}, q["status"]) for q in queue] == [
        ({"Odric Fenwick", "Cassius Thorne"}, "running"),
        ({"Nerys Vale", "Ysolde Marr"}, "queued"),
    ]  # fmt: skip
    withdrawal = say(board, clock, thread, "Nerys Vale", "Finalement je ne participe plus.")
    running = say(board, clock, thread, "Odric Fenwick", "Je me désiste")
    cycle(bot)
    cycle(bot)
    queue = rows(bot, "queue")
    assert [q["status"] for q in queue] == ["running", "withdrawn"]
    assert queue[1]["topic_id"] is None  # never opened
    status = {r["player"]: r["status"] for r in rows(bot, "requests")}
    assert status["Nerys Vale"] == "withdrawn" and status["Ysolde Marr"] == "open"
    (reply,) = [
        t for t in map(unlinked, bot_replies(board, thread))
        if f"désistement (message n° {withdrawal})" in t
    ]  # fmt: skip
    assert "ton duel contre Ysolde Marr" in reply
    assert "Ysolde Marr[/b], ta demande est de nouveau ouverte" in reply.replace("[b]", "")
    # the running duel is not withdrawn: a concession or a referee
    answers = {r["post_id"]: r["code"] for r in rows(bot, "registration_posts")}
    assert answers[running] == "duel_started"
    (told,) = [t for t in bot_replies(board, thread) if "est déjà lancé" in t]
    assert "abandonne dans le sujet du duel ou demande à un arbitre" in told
    assert len(board.topics(DUEL_FORUM)) == 1  # only Odric's duel was ever opened


def test_a_returning_players_withdrawal_is_no_new_request_and_with_a_sheet_asks_a_referee() -> None:
    """Before, « Je me désiste » by a player with a stored profile became a new open request
    filled from that profile. A withdrawal that also carries a whole sheet goes to a referee
    (``signup_unsure``), nothing is withdrawn or paired."""
    from tests.integration.test_desk_order_independence import SOLO, SignUp, World

    world = World()
    world.post(SignUp(SOLO, "Nerys Vale"))
    world.cycle()
    first = world.forum.add_post(SOLO, "Nerys Vale", "Je retire mon inscription.")
    world.cycle()
    world.post(SignUp(SOLO, "Ysolde Marr"))
    world.cycle()
    # Nerys has a profile now; her second withdrawal is not a sign-up filled from it
    second = world.forum.add_post(SOLO, "Nerys Vale", "Je me désiste")
    both = world.forum.add_post(
        SOLO, "Ysolde Marr",
        "Je retire mon inscription\nNom : Ysolde Marr\nAnnée : 5e année\nType de magie : brutale",
    )  # fmt: skip
    world.cycle()
    answers = {r["post_id"]: (r["status"], r["code"]) for r in world.rows("registration_posts")}
    assert answers[first] == ("withdrawal", "withdrawn_open")
    assert answers[second] == ("withdrawal", "nothing_to_withdraw")
    assert answers[both] == ("referee", "signup_unsure")
    assert [(r["player"], r["status"]) for r in world.rows("requests")] == [
        ("Nerys Vale", "withdrawn"), ("Ysolde Marr", "open"),
    ]  # fmt: skip
    assert world.rows("queue") == []
    (task,) = world.rows("referee_tasks")
    assert task["kind"] == "signup_unsure" and "désistement" in task["note"]
