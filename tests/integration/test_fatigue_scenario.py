"""Issue 4's scripted 1v1 fatigue duel, on both sandboxes, from sign-up posts to the purse.

The real clients over HTTP (PhpbbClient on the SandboxBoard, ForumactifClient on the
ForumactifSandbox), one fake clock shared by the board and the bot. Two sign-ups in the
registration thread -> the bot opens the duel topic -> Aurora Vexley (1st year, 100 PV,
brutale) against Cassius Thorne (adult, 500 PV, sournoise):

* turn 1: Aurora casts Flipendo (bet lost), Cassius dodges (bet won): a dodge;
* turn 2: Cassius casts Diffindo (bet lost), Aurora dodges and ripostes with Rictusempra
  (bet won): a riposte;
* turn 3: Aurora casts Flipendo again (``reused_spell``, -20 PV), Cassius answers with
  Bombarda Maxima; then Aurora edits her turn-3 post (Flipendo -> Incendio) after Cassius's
  post: a late edit, the bot keeps Flipendo and proposes ``late_edit``;
* turn 4: Cassius casts Confringo, Aurora never defends: 37 h later the bot relaunches and
  resolves it undefended; Aurora's PV reach 0 and Cassius wins by PV.

Then the purse (3 G), the chocolate frog and the leaderboard post; on phpBB ``verify-dice``
recomputes every bot roll from the topic's pages alone; on Forumactif the declarations say the
forum rolled the dice (no seed to verify).

Dice: on phpBB each bet is chosen against the die the bot will derive for the post (its id is
known before posting: one more than the board's highest post id), as tests/unit/
test_fatigue_flow.py does; a filler post in another topic moves the ids on when no allowed bet
gives the wanted result. On Forumactif the board rolls with ``random.Random(SEED)``: the test
replays the same generator (every dice request of the board is one of the test's, so the
mirror stays in step) and picks the bet against the value it will roll next; a filler roll in
another topic moves the generator on when needed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.app import Bot
from forumbot.cli import main
from forumbot.config import parse_config
from forumbot.duels.referee import Referee
from forumbot.duels.verify import verify_pages
from forumbot.fetch import fetch_topic_pages
from forumbot.forums.base import ForumClient
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.forumactif import ForumactifSandbox
from forumbot.storage import open_storage
from rules.dice import derive_roll

# issue 26: these duels were written with the spellbook of tests/fixtures/fatigue_seed_tests.toml
pytestmark = pytest.mark.usefixtures("seed_spellbook")

A, C = "Aurora Vexley", "Cassius Thorne"
SEED = 5  # the Forumactif board's dice generator
REGISTRATION_FORUM, DUEL_FORUM, CLUB_FORUM = 4, 3, 2
# The allowed bets of rules/data/fatigue.toml [bets].
BETS = {"cast": ((1, 2, 3, 4), (3, 4, 5, 6)), "dodge": ((1, 2, 3, 4), (3, 4, 5, 6)),
        "dodge_riposte": ((1, 2, 3), (4, 5, 6))}  # fmt: skip
KIND_FR = {"cast": "lancer un sort", "dodge": "esquiver", "dodge_riposte": "esquiver et riposter"}
BODY = "\n".join(
    f"Ligne {i} : la baguette levée, {{me}} avance sur le long tapis de la salle de duel."
    for i in range(1, 11)
)


class Clock:
    """Epoch seconds shared by the board and the bot; only sleeps (and the test) move it."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC).timestamp()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)


@dataclass
class World:
    """One sandbox board, its bot, and the scripted players' moves."""

    platform: str
    board: Any
    clock: Clock
    bot: Bot
    thread: int
    ranking: int
    tavern: int
    mirror: random.Random  # Forumactif: the board's dice generator, replayed
    topic: int = 0
    secret: bytes = b""
    turn: int = 1

    def cycle(self) -> list[int]:
        self.bot.poll()
        return self.bot.publish()

    def next_post_id(self) -> int:
        return 1 + max(p.post_id for t in self.board.topics() for p in self.board.posts(t.topic_id))

    def next_die(self) -> int:
        """The die the post about to be written will get (bot-derived or board-rolled)."""
        if self.platform == "phpbb3":
            key = f"phpbb3:{self.topic}"
            return derive_roll(self.secret, key, self.turn, self.next_post_id(), "Pari", 1)[0]
        probe = random.Random()
        probe.setstate(self.mirror.getstate())
        return probe.randint(1, 6)

    def filler(self) -> None:
        """A post elsewhere that moves the next die on (a new post id / a board roll)."""
        self.clock.sleep(60)
        if self.platform == "phpbb3":
            self.board.post_reply(self.tavern, "Passant", "Un message ailleurs.")
        else:
            self.board.post_reply(self.tavern, "Passant", "Je lance.", dice=("Pari", 1))
            self.mirror.randint(1, 6)

    def post(self, who: str, kind: str, spell: str | None, win: bool) -> int:
        """Post an action whose bet wins (or loses) the die it will get."""
        while True:
            die = self.next_die()
            bet = next((b for b in BETS[kind] if (die in b) == win), None)
            if bet is not None:
                break
            self.filler()
        text = BODY.format(me=who) + (f"\n[b]{spell}[/b]" if spell else "")
        text += f"\nAction : {KIND_FR[kind]}\nPari : [{','.join(map(str, bet))}]"
        self.clock.sleep(60)
        if self.platform == "phpbb3":
            return int(self.board.post_reply(self.topic, who, text))
        self.mirror.randint(1, 6)
        return int(self.board.post_reply(self.topic, who, text, dice=("Pari", 1)))

    def edit(self, post_id: int, old: str, new: str) -> None:
        self.clock.sleep(60)
        (post,) = [p for p in self.board.posts(self.topic) if p.post_id == post_id]
        text = post.text.replace(old, new)
        if self.platform == "phpbb3":
            self.board.edit_post(post_id, text, by=A)
        else:
            self.board.edit_post(post_id, text)

    def bot_texts(self, topic: int) -> list[str]:
        hibou = self.board.user_id("Hibou")
        return [p.text for p in self.board.posts(topic) if p.poster_id == hibou]

    def points(self) -> dict[str, int]:
        state = json.loads(self.bot.storage.duels()[0]["state_json"])
        return {d["name"]: d["points"] for d in state["duellists"]}


def make_board(platform: str, clock: Clock) -> Any:
    names = ["Arbitre", A, C, "Passant"]
    if platform == "phpbb3":
        users = [
            {"name": "admin", "password": "pw-admin", "user_id": 2, "ignore_flood": True},
            {"name": "Hibou", "password": "pw-h", "user_id": 3, "ignore_flood": True},
        ] + [{"name": n, "password": f"pw-{i}", "user_id": 10 + i} for i, n in enumerate(names)]
        return SandboxBoard(users=users, clock=clock, flood_interval_s=15)
    board = ForumactifSandbox(clock=clock, flood_interval_s=15.0, seed=SEED, dice=(("Pari", 6),))
    board.add_user("Hibou", "pw-h", ignore_flood=True)
    for i, name in enumerate(names):
        board.add_user(name, f"pw-{i}")
    return board


def make_client(platform: str, board: Any, clock: Clock) -> ForumClient:
    if platform == "phpbb3":
        from forumbot.forums.phpbb import PhpbbClient

        return PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
    from forumbot.forums.forumactif import ForumactifClient

    return ForumactifClient(
        board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock, now=clock.utc,
        flood_interval_s=15.0, timeout_s=5.0,
    )  # fmt: skip


@pytest.fixture(params=["phpbb3", "forumactif"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    platform = str(request.param)
    clock = Clock()
    board = make_board(platform, clock)
    board.start()
    try:
        thread = board.create_topic(
            REGISTRATION_FORUM, "Arbitre", "Inscriptions : duels en un contre un",
            "Postez ici votre fiche.",
        )  # fmt: skip
        ranking = board.create_topic(CLUB_FORUM, "Arbitre", "Tableau de classement", "Classement.")
        tavern = board.create_topic(CLUB_FORUM, "Passant", "Taverne", "Bienvenue.")
        config = parse_config(
            f"""
[board]
url = "{board.base_url}"
platform = "{platform}"
[bot]
username = "Hibou"
[club]
review_delay_s = 0
[storage]
database = "{tmp_path / "bot.db"}"
[[registration]]
topic_id = {thread}
thread_forum_id = {REGISTRATION_FORUM}
forum_id = {DUEL_FORUM}
kind = "1v1"
ruleset = "fatigue"
[leaderboard]
topic_id = {ranking}
"""
        )
        storage = open_storage(config.database)
        client = make_client(platform, board, clock)
        referee = Referee(
            storage, client, board_url=config.board_url, platform=platform,
            ruleset_name="classic", review_delay_s=0, now=clock.utc, rng=random.Random(11),
            bot_username="Hibou",
        )  # fmt: skip
        bot = Bot(config=config, storage=storage, client=client, referee=referee, now=clock.utc)
        yield World(platform, board, clock, bot, thread, ranking, tavern, random.Random(SEED))
        bot.close()
    finally:
        board.stop()


def sign_up(world: World, who: str, year: str, magic: str) -> None:
    world.clock.sleep(60)
    world.board.post_reply(
        world.thread, who, f"Nom : {who}\nAnnée : {year}\nType de magie : {magic}"
    )


def test_scripted_fatigue_duel_from_sign_ups_to_the_purse(world: World) -> None:
    finished: list[dict[str, Any]] = []
    world.bot.referee.on_finished.append(lambda _id, outcome: finished.append(outcome))

    # Sign-ups -> the bot opens the duel topic with the opening declaration.
    sign_up(world, A, "1re année", "brutale")
    sign_up(world, C, "adulte", "sournoise")
    world.cycle()
    world.cycle()
    (topic,) = world.board.topics(DUEL_FORUM)
    world.topic = topic.topic_id
    duel = world.bot.storage.duels()[0]
    assert duel["ruleset"] == "fatigue" and duel["status"] == "running"
    opening = world.bot_texts(world.topic)
    assert "[b]Aurora Vexley[/b] (1re année, magie brutale) : 100 PV" in plain("\n".join(opening))
    assert "[b]Cassius Thorne[/b] (adulte, magie sournoise) : 500 PV" in plain("\n".join(opening))
    if world.platform == "phpbb3":
        world.secret = bytes.fromhex(duel["dice_secret"])
        # published once, in the topic's first post (reader2 C7: not again in the opening)
        assert duel["dice_commitment"] in opening[0]
        assert sum(duel["dice_commitment"] in t for t in opening) == 1
    declared = len(opening)

    def published(expected: int = 1) -> str:
        nonlocal declared
        world.cycle()
        texts = world.bot_texts(world.topic)
        assert len(texts) == declared + expected, texts[declared:]
        declared = len(texts)
        return texts[-1]

    # Turn 1: a dodge.
    world.post(A, "cast", "Flipendo", win=False)
    assert "tour 1, première déclaration" in published()
    world.post(C, "dodge", None, win=True)
    assert "Cassius Thorne esquive le sort d'Aurora Vexley." in plain(published())
    assert world.points() == {A: 100, C: 500}

    # Turn 2: a riposte (Rictusempra 15 +10 % brutale).
    world.turn = 2
    world.post(C, "cast", "Diffindo", win=False)
    published()
    world.post(A, "dodge_riposte", "Rictusempra", win=True)
    text = published()
    riposte = (
        "Aurora Vexley esquive et riposte avec Rictusempra, qui touche et Cassius Thorne perd 16 PV"
    )
    assert riposte in plain(text), text
    assert world.points() == {A: 100, C: 484}

    # Turn 3: Flipendo again (reused_spell, -20 PV), Bombarda Maxima lands; then a late edit.
    world.turn = 3
    flipendo = world.post(A, "cast", "Flipendo", win=True)
    text = published()
    assert "acharnement déloyal" in text and "-20 PV" in plain(text)
    world.post(C, "cast", "Bombarda Maxima", win=True)
    world.edit(flipendo, "Flipendo", "Incendio")  # after Cassius's post: too late
    text = published()
    assert "Flipendo" in text and "Incendio" not in text
    assert "Modifications tardives" in text and f"message n° {flipendo}" in plain(text)
    assert world.points() == {A: 10, C: 484}  # 100-20-70; a reused spell has no effect
    violations = {
        (r["duellist"], r["rule"], r["status"])
        for r in world.bot.storage.db["violations"].rows_where()
    }
    assert (A, "reused_spell", "applied") in violations
    assert (A, "late_edit", "proposed") in violations

    # Turn 4: Confringo undefended; the 36 h deadline passes: relaunch, Aurora at 0 PV.
    world.turn = 4
    world.post(C, "cast", "Confringo", win=True)
    assert "tour 4, première déclaration" in published()
    world.clock.sleep(35 * 3600)
    published(0)
    world.clock.sleep(2 * 3600)
    final = published()
    assert "relance (défense non postée)" in final
    assert "Cassius Thorne remporte le duel" in final
    world.cycle()
    world.cycle()
    assert [(o["winner"], o["loser"]) for o in finished] == [(C, A)]

    # The purse, the chocolate frog, the leaderboard post.
    rewards = {
        (r["character"], r["reward"]): r["amount"]
        for r in world.bot.storage.db["rewards"].rows_where()
    }
    assert rewards == {
        (C, "leaderboard_point"): 1,
        (C, "galleons"): 3,
        (A, "chocolate_frog"): 1,
    }
    (board_post,) = world.bot_texts(world.ranking)
    assert "1. [b]Cassius Thorne[/b] : 1 point" in plain(board_post) and "3 gallions" in board_post

    texts = world.bot_texts(world.topic)
    if world.platform == "phpbb3":
        url = f"{world.board.base_url}/viewtopic.php?t={world.topic}"
        report = verify_pages(fetch_topic_pages(url))
        assert report.ok, report.problems
        rolls = list(world.bot.storage.db["dice_rolls"].rows)
        assert {r["source"] for r in rolls} == {"bot"}
        assert {c.post_id for c in report.checks} == {r["post_id"] for r in rolls}
        cli = CliRunner().invoke(main, ["verify-dice", url])
        assert cli.exit_code == 0 and "tout est conforme" in cli.output, cli.output
        assert world.bot.storage.duels()[0]["dice_secret"] in final
    else:
        rolls = list(world.bot.storage.db["dice_rolls"].rows)
        assert rolls and {r["source"] for r in rolls} == {"forum"}
        turns = [t for t in texts if "dé du forum « Pari »" in plain(t)]
        assert turns and all("lancés par le forum" in t for t in turns)
        assert not any("Graine" in t for t in texts)  # no bot seed with forum dice
