"""From sign-up posts to the purse on the phpBB sandbox, with the real PhpbbClient.

Sign-ups (valid, invalid, an open request answered by a quote), a queue when 3 duels run, the
magic-type owls sent once although the bot dies in the middle of sending them, a duel finished
by concession -> rewards, result owls recalling the stakes, the leaderboard post edited, and
the queued pair's duel opened in the freed slot.
"""

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
from tests.fakes.forum import Crash

PLAYERS = [
    "Aurora Vexley",
    "Cassius Thorne",
    "Maelis Dunbar",
    "Odric Fenwick",
    "Perrine Lowell",
    "Quentin Ashby",
    "Rosalind Moor",
    "Silas Wren",
]
USERS = [
    {"name": "admin", "password": "pw-admin", "user_id": 2, "ignore_flood": True},
    {"name": "Arbitre", "password": "pw-r", "user_id": 3},
    {"name": "Hibou", "password": "pw-h", "user_id": 4, "ignore_flood": True},
] + [{"name": n, "password": f"pw-{i}", "user_id": 10 + i} for i, n in enumerate(PLAYERS)]


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


def make_bot(board: SandboxBoard, clock: Clock, config: Config) -> Bot:
    """A freshly started bot process on the same database (what a restart gives)."""
    storage = open_storage(config.database)
    client = PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
    referee = Referee(
        storage,
        client,
        board_url=config.board_url,
        platform="phpbb3",
        ruleset_name="classic",
        review_delay_s=0,
        now=clock.utc,
        rng=random.Random(11),
        bot_username="Hibou",
    )
    return Bot(config=config, storage=storage, client=client, referee=referee, now=clock.utc)


def cycle(bot: Bot) -> None:
    bot.poll()  # ends with the registration desk's cycle (Club.registrations)
    bot.publish()


def sign_up(board: SandboxBoard, clock: Clock, thread: int, who: str, extra: str = "") -> int:
    clock.sleep(60)
    return board.post_reply(
        thread, who, f"Nom : {who}\nAnnée : 5e année\nType de magie : brutale{extra}"
    )


def magic_owls(board: SandboxBoard, name: str) -> int:
    uid = board.user_id(name)
    return sum(1 for pm in board.pms() if uid in pm.to_ids and "type de magie" in pm.subject)


def test_signup_to_purse(board: SandboxBoard, clock: Clock, tmp_path: Path) -> None:
    thread = board.create_topic(
        4, "Arbitre", "Inscriptions : duels en un contre un", "Postez ici votre fiche."
    )
    ranking = board.create_topic(2, "Arbitre", "Tableau de classement", "Le classement du club.")
    config = parse_config(
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
forum_id = 3
kind = "1v1"
ruleset = "fatigue"
[leaderboard]
topic_id = {ranking}
"""
    )
    bot = make_bot(board, clock, config)

    # An open request with stakes, and an invalid sign-up (no year): one French reply.
    aurora = sign_up(board, clock, thread, "Aurora Vexley", "\nEnjeux : une plume de phénix")
    clock.sleep(60)
    bad = board.post_reply(thread, "Cassius Thorne", "Je m'inscris !\nType de magie : sournoise")
    cycle(bot)
    cycle(bot)
    replies = [p for p in board.posts(thread) if p.poster_id == board.user_id("Hibou")]
    assert len(replies) == 1
    assert (
        f"n° {bad}" in plain(replies[0].text) and "il manque ton année d'étude" in replies[0].text
    )
    assert board.topics(3) == []

    # Cassius answers Aurora's open request by quoting it; three more pairs sign up alone.
    clock.sleep(60)
    board.post_reply(
        thread,
        "Cassius Thorne",
        f'[quote="Aurora Vexley" post_id={aurora} time={int(clock.now) - 200} user_id=10]'
        "Demande ouverte[/quote]\nJe relève le défi.\nNom : Cassius Thorne\nAnnée : 6\n"
        "Type de magie : sournoise",
    )
    for who in PLAYERS[2:]:
        sign_up(board, clock, thread, who)

    # The bot dies right after sending the second owl; then it is started again.
    real_send = bot.client.send_pm
    sent: list[str] = []

    def send_then_die(*args: object, **kwargs: object) -> None:
        real_send(*args, **kwargs)  # type: ignore[arg-type]
        sent.append(str(args[1]))
        if len(sent) == 2:
            raise Crash("killed after the second owl")

    bot.client.send_pm = send_then_die  # type: ignore[method-assign]
    with pytest.raises(Crash):
        bot.poll()
    bot.storage.close()
    bot = make_bot(board, clock, config)
    cycle(bot)
    cycle(bot)

    duel_topics = board.topics(3)
    assert len(duel_topics) == 3  # three 1v1 duels at once, the fourth pair waits
    for name in PLAYERS[:6]:
        assert magic_owls(board, name) == 1, name
    for name in PLAYERS[6:]:
        assert magic_owls(board, name) == 0, name
    queue = list(bot.storage.db["queue"].rows_where(order_by="id"))
    assert [q["status"] for q in queue] == ["running", "running", "running", "queued"]
    first = queue[0]
    assert (first["first_character"], first["second_character"]) == (
        "Aurora Vexley",
        "Cassius Thorne",
    )
    assert first["reason"] == "answered" and first["stakes"] == "une plume de phénix"
    duel = bot.storage.duel(first["duel_id"])
    assert duel["status"] == "running"  # the referee's opening declaration is out
    opening = board.posts(duel["topic_id"])
    # the fingerprint once, in the topic's first post, before any die (reader2 C7)
    assert duel["dice_commitment"] in opening[0].text
    assert len(opening) == 2 and duel["dice_commitment"] not in opening[1].text

    # Cassius concedes (`forumbot duels concede`): Aurora wins once the « abandon »
    # declaration is out; its publication finishes the duel, the club's hooks reward.
    done = concede_duel(bot.storage, duel["id"], "Cassius Thorne", "Maelis", datetime.now(UTC))
    assert done.winners == ("Aurora Vexley",)
    assert bot.storage.duel(duel["id"])["status"] == "running"
    cycle(bot)  # published
    abandon = board.posts(duel["topic_id"])[-1].text
    assert "Cassius Thorne abandonne." in abandon
    assert "Aurora Vexley remporte le duel !" in plain(abandon) and "une plume de phénix" in abandon
    assert bot.storage.duel(duel["id"])["status"] == "finished"
    cycle(bot)
    cycle(bot)  # once: nothing is given twice
    [entry] = [
        e for e in bot.storage.audit_entries(f"duel:{duel['id']}") if e["action"] == "duel.concede"
    ]
    assert json.loads(entry["after"])["conceded_by"] == "Cassius Thorne"

    rewards = {
        (r["character"], r["reward"]): r["amount"] for r in bot.storage.db["rewards"].rows_where()
    }
    assert rewards == {
        ("Aurora Vexley", "leaderboard_point"): 1,
        ("Aurora Vexley", "galleons"): 3,
        ("Cassius Thorne", "chocolate_frog"): 1,
    }
    results = {
        board._name(pm.to_ids[0]): pm.text for pm in board.pms() if "Fin du duel" in pm.subject
    }
    assert set(results) == {"Aurora Vexley", "Cassius Thorne"}
    assert "bourse de 3 gallions" in results["Aurora Vexley"]
    assert "chocogrenouille" in results["Cassius Thorne"]
    assert all("une plume de phénix" in text for text in results.values())

    hibou = board.user_id("Hibou")
    (post,) = [p for p in board.posts(ranking) if p.poster_id == hibou]
    assert "1. [b]Aurora Vexley[/b] : 1 point" in plain(post.text) and "3 gallions" in post.text
    assert "Cassius Thorne" in post.text

    # The slot freed by the finished duel goes to the queued pair.
    assert len(board.topics(3)) == 4
    queue = list(bot.storage.db["queue"].rows_where(order_by="id"))
    assert [q["status"] for q in queue] == ["finished", "running", "running", "running"]
    for name in PLAYERS[6:]:
        assert magic_owls(board, name) == 1, name
