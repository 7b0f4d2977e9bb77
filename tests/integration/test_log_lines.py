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
    # Issue 12: a pending draft is no reason to read the topic again (nothing changed);
    # issue 25: those idle polls log at DEBUG, not one INFO line each.
    assert reports[1:] == []
    idle = [r for r in caplog.records if r.getMessage().startswith(f"forum {DUEL_FORUM}: ")][1:]
    assert [(r.levelno, r.getMessage()) for r in idle] == [
        (logging.DEBUG, f"forum {DUEL_FORUM}: 1 topic, 0 read, 0 new posts, 0 edited, 0 drafts")
    ] * 2
    every = [r.getMessage() for r in caplog.records]
    assert not [m for m in every if "None" in m], every
    assert any("no winner yet" in m for m in every)  # the render's debug line says it plainly


def test_text_log_times_are_labelled_in_the_boards_timezone() -> None:
    """Issue 25: the commands print the board's times (``... CET``); the log's text lines say
    their zone too, in the board's once ``forumbot run`` read the config."""
    from forumbot.ops.logs import ZonedFormatter

    record = logging.LogRecord("forumbot", logging.INFO, __file__, 1, "hello", None, None)
    record.created, record.msecs = 1796500000.25, 250.0  # 2026-12-05 19:46:40.25 UTC
    assert ZonedFormatter("Europe/Paris").format(record) == (
        "2026-12-05 20:46:40,250 CET INFO forumbot: hello"
    )
    assert ZonedFormatter("UTC").format(record).startswith("2026-12-05 19:46:40,250 UTC ")
    assert ZonedFormatter("No/Such").format(record).startswith("2026-12-05 19:46:40,250 UTC ")
