"""Issue 23: sign-up replies and club posts are paced. In the sign-up flood, one pass used to
post 99 replies (about 25 minutes of posting on a board without « ignore flood », during which
nothing else was published). Now a poll pass publishes at most ``poll.club_posts_per_pass``
club posts, none while a declaration is due: the duel opening drafted in the same pass goes
first, and every reply still goes out exactly once. phpBB sandbox, real PhpbbClient, the bot
*without* « ignore flood » (15 s), the board's fake clock."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.app import Bot
from forumbot.config import parse_config
from forumbot.duels.referee import Referee
from forumbot.forums.phpbb import PhpbbClient
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage

FLOOD = [f"Joueur Numéro{i:02d}" for i in range(30)]
PAIR = ["Nerys Vale", "Ysolde Marr"]
USERS = [
    {"name": "admin", "password": "pw-admin", "user_id": 2, "ignore_flood": True},
    {"name": "Arbitre", "password": "pw-r", "user_id": 3},
    {"name": "Hibou", "password": "pw-h", "user_id": 4, "ignore_flood": False},
] + [
    {"name": n, "password": f"pw-{i}", "user_id": 10 + i, "ignore_flood": True}
    for i, n in enumerate(PAIR + FLOOD)
]
PER_PASS = 4


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


def test_a_sign_up_flood_is_paced_and_the_declaration_goes_first(
    board: SandboxBoard, clock: Clock, tmp_path: Path
) -> None:
    thread = board.create_topic(4, "Arbitre", "Inscriptions 1v1", "Postez ici votre fiche.")
    config = parse_config(
        f"""
[board]
url = "{board.base_url}"
[bot]
username = "Hibou"
[club]
review_delay_s = 0
[poll]
club_posts_per_pass = {PER_PASS}
flood_interval_s = 15
[storage]
database = "{tmp_path / "bot.db"}"
[[registration]]
topic_id = {thread}
thread_forum_id = 4
forum_id = 3
kind = "1v1"
ruleset = "fatigue"
"""
    )
    storage = open_storage(config.database)
    client = PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock,
                         flood_interval_s=15)  # fmt: skip
    referee = Referee(
        storage, client, board_url=config.board_url, platform="phpbb3", ruleset_name="classic",
        review_delay_s=0, now=clock.utc, rng=random.Random(11), bot_username="Hibou",
    )  # fmt: skip
    bot = Bot(config=config, storage=storage, client=client, referee=referee, now=clock.utc)
    hibou = board.user_id("Hibou")

    board.post_reply(
        thread, "Nerys Vale", "Nom : Nerys Vale\nAnnée : 4e année\nType de magie : brutale\n"
        "Partenaire : Ysolde Marr, 4e année, discrète",
    )  # fmt: skip
    for who in FLOOD:  # each one forgets their year: one French reply each
        board.post_reply(thread, who, "Je m'inscris !\nType de magie : sournoise")

    def replies() -> list[int]:
        return [p.post_id for p in board.posts(thread) if p.poster_id == hibou]

    bot.poll()  # the desk drafts 30 replies and opens the duel (its opening is due at once)
    assert replies() == []  # a declaration is due: the club posts wait
    bot.publish()
    (topic,) = board.topics(3)
    opening = [p.post_id for p in board.posts(topic.topic_id) if p.poster_id == hibou]
    assert len(opening) == 2  # the desk's first post, then the opening declaration

    passes: list[tuple[int, float]] = []
    while len(replies()) < len(FLOOD) and len(passes) < 20:
        before, began = len(replies()), clock.now
        bot.poll()
        bot.publish()
        passes.append((len(replies()) - before, clock.now - began))
    assert [n for n, _ in passes] == [PER_PASS] * (len(FLOOD) // PER_PASS) + (
        [len(FLOOD) % PER_PASS] if len(FLOOD) % PER_PASS else [])  # fmt: skip
    assert min(replies()) > max(opening)  # the declaration went first
    texts = [p.text for p in board.posts(thread) if p.poster_id == hibou]
    assert len(texts) == len(set(texts)) == len(FLOOD)  # each reply once
    assert all("il manque ton année d'études" in t for t in texts)
    # a pass posts for at most about PER_PASS flood intervals (before: 30 replies in a row)
    assert max(seconds for _, seconds in passes) < (PER_PASS + 2) * 15
