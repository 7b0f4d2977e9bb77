"""Issue 13, log lines: plurals right, no « winner None », and a pending draft logged once
rather than on every poll (the referee renders it again on each poll while it waits)."""

from __future__ import annotations

import logging
import random
from pathlib import Path

import pytest

from forumbot.app import bootstrap, counted
from forumbot.config import Config, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board
from forumbot.storage import open_storage
from tests.fakes.clock import SandboxClock


def test_counted_plurals() -> None:
    assert [counted(n, "new post") for n in (0, 1, 2)] == [
        "0 new posts",
        "1 new post",
        "2 new posts",
    ]


def test_a_pending_draft_is_logged_once_and_the_counts_read_well(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = SandboxClock()
    board = make_demo_board(clock=clock)
    url = board.start()
    try:
        config = Config(
            board_url=url, platform="phpbb3", username=BOT, ruleset="classic",
            review_delay_s="manual", database=str(tmp_path / "bot.db"), flood_interval_s=1,
            watch=(WatchedForum(DUEL_FORUM),),
        )  # fmt: skip
        bot = bootstrap(
            config, password=BOT_PASSWORD, rng=random.Random(1),
            storage=open_storage(config.database), sleep=clock.sleep, clock=clock,
        )  # fmt: skip
        topic = board.create_topic(
            DUEL_FORUM, "Arbitre", "Duel : Aurora contre Cassius",
            "Aurora Vexley (1re année) contre Cassius Thorne (2e année).",
        )  # fmt: skip
        caplog.set_level(logging.DEBUG, logger="forumbot")
        bot.poll()
        (opening,) = bot.storage.declarations(("draft",))
        bot.storage.db["declarations"].update(opening["id"], {"status": "approved"})
        bot.storage.db.conn.commit()
        assert len(bot.publish()) == 1
        board.post_reply(topic, "Aurora Vexley", "Je lève ma baguette.\n[b]Expelliarmus[/b]")
        board.post_reply(topic, "Cassius Thorne", "Je lève ma baguette.\n[b]Expelliarmus[/b]")
        caplog.clear()
        for _ in range(3):  # the turn's draft waits for a referee: three polls
            bot.poll()
        bot.close()
    finally:
        board.stop()
    infos = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
    assert [m for m in infos if "draft" in m and "turn1" in m] == [
        "duel 1: classic draft 2 (turn1)"
    ]
    reports = [m for m in infos if m.startswith(f"forum {DUEL_FORUM}: ")]
    assert reports[0] == f"forum {DUEL_FORUM}: 1 topic, 1 read, 2 new posts, 0 edited, 1 draft"
    # Issue 12: a pending draft is no reason to read the topic again (nothing changed).
    assert (
        reports[1:] == [f"forum {DUEL_FORUM}: 1 topic, 0 read, 0 new posts, 0 edited, 0 drafts"] * 2
    )
    every = [r.getMessage() for r in caplog.records]
    assert not [m for m in every if "None" in m], every
    assert any("no winner yet" in m for m in every)  # the render's debug line says it plainly
