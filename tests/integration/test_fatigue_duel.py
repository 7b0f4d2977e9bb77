"""A fatigue 1v1 duel on the phpBB sandbox board, refereed by the real bot (PhpbbClient over
HTTP), to the end; then ``forumbot verify-dice`` on its pages alone.

Aurora Vexley (1st year, 100 PV, brutale) against Cassius Thorne (adult, 500 PV,
sournoise). Board and bot share a fake clock (form ages cost no real time); the bot's clock is
shifted on top of it to pass the 36 h deadline.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from forumbot.app import Bot, bootstrap
from forumbot.cli import main
from forumbot.config import Config, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board
from forumbot.duels.verify import verify_pages
from forumbot.fetch import fetch_topic_pages
from forumbot.publish.typography import plain, typeset
from forumbot.storage import open_storage
from tests.fakes.clock import SandboxClock

# issue 26: these duels were written with the spellbook of tests/fixtures/fatigue_seed_tests.toml
pytestmark = pytest.mark.usefixtures("seed_spellbook")

A, C = "Aurora Vexley", "Cassius Thorne"
BODY = "\n".join(
    f"Ligne {i} : {{me}} avance sur le long tapis, entre les armures et les torches."
    for i in range(1, 11)
)


class ShiftedClock:
    """The board's (fake) time plus an offset the test moves (only the bot's clock)."""

    def __init__(self, board_clock: SandboxClock) -> None:
        self.board_clock = board_clock
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return self.board_clock.utc() + self.offset


@dataclass
class SandboxDuel:
    board: Any
    bot: Bot
    clock: ShiftedClock
    topic_id: int

    def cycle(self) -> list[int]:
        self.bot.poll()
        return self.bot.publish()

    def post(self, who: str, spell: str | None, action: str, bet: str) -> int:
        text = BODY.format(me=who) + (f"\n[b]{spell}[/b]" if spell else "")
        text += f"\nAction : {action}\nPari : {bet}"
        return int(self.board.post_reply(self.topic_id, who, text))

    def url(self) -> str:
        return f"{self.board.base_url}/viewtopic.php?t={self.topic_id}"

    def bot_texts(self) -> list[str]:
        return [p.text for page in fetch_topic_pages(self.url()) for p in page.posts
                if p.author == BOT]  # fmt: skip


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[SandboxDuel]:
    board_clock = SandboxClock()
    board = make_demo_board(clock=board_clock)
    base_url = board.start()
    try:
        clock = ShiftedClock(board_clock)
        config = Config(
            board_url=base_url, platform="phpbb3", username=BOT, ruleset="classic",
            review_delay_s=0, database=str(tmp_path / "bot.db"), flood_interval_s=1,
            watch=(WatchedForum(DUEL_FORUM),),
        )  # fmt: skip
        bot = bootstrap(
            config, password=BOT_PASSWORD, rng=random.Random(4),
            storage=open_storage(config.database), now=clock,
            sleep=board_clock.sleep, clock=board_clock,
        )  # fmt: skip
        topic_id = board.create_topic(
            DUEL_FORUM, "Arbitre", "Duel de fatigue : Aurora contre Cassius",
            "Bienvenue au club de duel.\nEnjeux : une plume de phénix",
        )  # fmt: skip
        bot.referee.adopt(
            DUEL_FORUM, topic_id, "Duel de fatigue : Aurora contre Cassius",
            [(A, "1", ["brutale"]), (C, "adult", ["sournoise"])],
            ruleset="fatigue", stakes="une plume de phénix",
        )  # fmt: skip
        yield SandboxDuel(board, bot, clock, topic_id)
        bot.close()
    finally:
        board.stop()


def run_duel(duel: SandboxDuel) -> None:
    """Turn 1 in full, turn 2 with a missing defense: the relaunch ends the duel."""
    finished: list[tuple[int, dict[str, Any]]] = []
    duel.bot.referee.on_finished.append(lambda i, o: finished.append((i, o)))
    assert len(duel.cycle()) == 1  # opening
    duel.post(A, "Flipendo", "lancer un sort", "[3,4,5,6]")
    assert len(duel.cycle()) == 1  # first declaration
    duel.post(C, "Bombarda Maxima", "lancer un sort", "[1,2,3,4]")
    assert len(duel.cycle()) == 1  # second declaration: both spells land
    # issue 25: the PV line shows its sum (same numbers as before: 100 - 70 = 30)
    balance = "Aurora Vexley : 100 - 70 (Bombarda Maxima de Cassius Thorne) = 30 PV"
    assert balance in plain(duel.bot_texts()[-1]), duel.bot_texts()[-1]
    duel.post(C, "Diffindo", "lancer un sort", "[3,4,5,6]")
    assert len(duel.cycle()) == 1
    duel.clock.offset = timedelta(hours=37)
    assert len(duel.cycle()) == 1  # the relaunch: Diffindo resolves undefended
    duel.cycle()
    assert [(o["winner"], o["loser"]) for _, o in finished] == [(C, A)]


def test_fatigue_duel_to_the_end_on_the_phpbb_sandbox_then_verify_dice(
    sandbox: SandboxDuel, tmp_path: Path
) -> None:
    duel = sandbox
    run_duel(duel)
    texts = duel.bot_texts()
    assert len(texts) == 5
    final = texts[-1]
    assert "relance (défense non postée)" in final
    assert "Cassius Thorne remporte le duel" in final
    # who owes whom (issue 25 reader W1; a duel adopted by hand: its first post's terms)
    final = plain(final)
    assert " doit à " in final and " les enjeux du duel : une plume de phénix." in final
    duel_row = duel.bot.storage.duels()[0]
    assert duel_row["status"] == "finished" and duel_row["dice_secret"] in final
    assert json.loads(duel_row["state_json"])["winner"] == C
    report = verify_pages(fetch_topic_pages(duel.url()))
    assert report.ok, report.problems
    assert len(report.checks) == 5  # 1 + 2 (turn 1) + 1 + 1 (turn 2: first, relaunch)
    cli = CliRunner().invoke(main, ["verify-dice", duel.url()])
    assert cli.exit_code == 0 and "tout est conforme" in cli.output, cli.output
    # a tampered die on a saved page is caught
    page = httpx.get(duel.url()).text
    check = report.checks[0]
    needle = typeset(f"dé « Pari » {check.declared[0]}")  # as the page shows it (issue 25)
    wrong = typeset(f"dé « Pari » {1 if check.declared[0] != 1 else 2}")
    assert needle in page
    saved = tmp_path / "page1.html"
    saved.write_text(page.replace(needle, wrong, 1), encoding="utf-8")
    tampered = CliRunner().invoke(main, ["verify-dice", str(saved)])
    assert tampered.exit_code == 1 and "DIFFÉRENT" in tampered.output
