"""Issue 23, "a duel nobody asked for", on the phpBB sandbox with the real PhpbbClient: Nerys
names Ysolde, their duel opens at once; Ysolde's own sign-up naming Nerys, read once the duel
runs, confirms that pairing (one French reply) and never forms a new one, so when the first
duel ends no second topic is opened and no second round of owls is sent. The same for a 2v2
duo confirmed while its match runs (before, the sign-up was refused: registration closed)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.app import Bot
from forumbot.config import Config, parse_config
from forumbot.duels.concession import concede_duel
from forumbot.duels.referee import Referee
from forumbot.forums.phpbb import PhpbbClient
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage

PLAYERS = ["Nerys Vale", "Ysolde Marr", "Odric Fenwick", "Cassius Thorne"]
USERS = [
    {"name": "admin", "password": "pw-admin", "user_id": 2, "ignore_flood": True},
    {"name": "Arbitre", "password": "pw-r", "user_id": 3},
    {"name": "Hibou", "password": "pw-h", "user_id": 4, "ignore_flood": True},
] + [{"name": n, "password": f"pw-{i}", "user_id": 10 + i} for i, n in enumerate(PLAYERS)]
DUEL_FORUM = 3


class Clock:
    """Epoch seconds shared by the board and the bot's client; only sleeps move it."""

    def __init__(self) -> None:
        self.now = 1796038969.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def board(clock: Clock) -> Iterator[SandboxBoard]:
    sandbox = SandboxBoard(users=USERS, clock=clock, flood_interval_s=15)
    sandbox.start()
    yield sandbox
    sandbox.stop()


def make_bot(board: SandboxBoard, clock: Clock, tmp_path: Path, kind: str) -> tuple[Bot, int]:
    thread = board.create_topic(4, "Arbitre", f"Inscriptions : duels {kind}", "Vos fiches ici.")
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
kind = "{kind}"
ruleset = "fatigue"
environment = "serre"
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


def cycle(bot: Bot) -> None:
    bot.poll()  # ends with the registration desk's cycle
    bot.publish()


def sign_up(board: SandboxBoard, clock: Clock, thread: int, who: str, partner: str) -> int:
    clock.sleep(60)
    return board.post_reply(
        thread, who, f"Nom : {who}\nAnnée : 4e année\nType de magie : brutale\n"
        f"Partenaire : {partner}, 4e année, discrète",
    )  # fmt: skip


def bot_replies(board: SandboxBoard, thread: int) -> list[str]:
    return [p.text for p in board.posts(thread) if p.poster_id == board.user_id("Hibou")]


def owls_to(board: SandboxBoard, name: str) -> list[str]:
    uid = board.user_id(name)
    return [pm.subject for pm in board.pms() if uid in pm.to_ids]


def test_nerys_names_ysolde_then_ysolde_names_nerys_once_the_duel_runs(
    board: SandboxBoard, clock: Clock, tmp_path: Path
) -> None:
    bot, thread = make_bot(board, clock, tmp_path, "1v1")
    sign_up(board, clock, thread, "Nerys Vale", "Ysolde Marr")
    cycle(bot)
    cycle(bot)
    (topic,) = board.topics(DUEL_FORUM)
    (pairing,) = bot.storage.db["queue"].rows_where()
    assert pairing["status"] == "running"
    owls_before = owls_to(board, "Ysolde Marr")
    assert len(owls_before) == 1  # her magic-type owl

    ysolde = sign_up(board, clock, thread, "Ysolde Marr", "Nerys Vale")
    cycle(bot)
    cycle(bot)
    assert [r["status"] for r in bot.storage.db["queue"].rows_where()] == ["running"]
    (row,) = bot.storage.db["registration_posts"].rows_where("post_id = ?", [ysolde])
    assert (row["status"], row["code"]) == ("accepted", "mutual")
    (reply,) = bot_replies(board, thread)
    assert f"n° {ysolde}" in plain(reply) and "confirme ton duel contre Nerys Vale" in reply
    assert "déjà lancé" in reply and "Aucun autre duel n'est créé" in reply

    duel = bot.storage.duel_by_topic(bot.referee.board_id, topic.topic_id)
    assert duel is not None
    concede_duel(bot.storage, duel["id"], "Nerys Vale", "Arbitre", clock.utc())
    for _ in range(3):
        cycle(bot)
    assert bot.storage.duel(duel["id"])["status"] == "finished"
    assert len(board.topics(DUEL_FORUM)) == 1  # no second topic for the same two players
    assert [r["status"] for r in bot.storage.db["queue"].rows_where()] == ["finished"]
    magic = [s for s in owls_to(board, "Ysolde Marr") if "type de magie" in s]
    assert len(magic) == 1  # no second round of owls


def test_ysolde_confirms_her_duo_while_its_2v2_runs(
    board: SandboxBoard, clock: Clock, tmp_path: Path
) -> None:
    bot, thread = make_bot(board, clock, tmp_path, "2v2")
    sign_up(board, clock, thread, "Nerys Vale", "Ysolde Marr")
    sign_up(board, clock, thread, "Odric Fenwick", "Cassius Thorne")
    cycle(bot)
    cycle(bot)
    (match,) = bot.storage.db["duo_matches"].rows_where()
    assert match["status"] == "running" and len(board.topics(DUEL_FORUM)) == 1

    ysolde = sign_up(board, clock, thread, "Ysolde Marr", "Nerys Vale")
    cycle(bot)
    cycle(bot)
    (row,) = bot.storage.db["registration_posts"].rows_where("post_id = ?", [ysolde])
    assert (row["status"], row["code"]) == ("accepted", "mutual")  # not « fermées »
    (reply,) = bot_replies(board, thread)
    assert "confirme ton duo avec Nerys Vale" in reply and "fermées" not in reply
    assert [m["status"] for m in bot.storage.db["duo_matches"].rows_where()] == ["running"]
    live = list(bot.storage.db["duo_entries"].rows_where("status in ('lone', 'duo')"))
    assert live == []  # nothing waits for a next 2v2
    players = [e["player"] for d in json.loads(match["duos_json"]) for e in d]
    assert sorted(players) == sorted(PLAYERS)
