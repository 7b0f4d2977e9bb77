"""Issue 22, "duels follow their topic": a moderator moves or deletes a running duel's topic.

Against both sandbox flavours over HTTP (the real clients): moved to a forum the bot does not
watch but may read (read by id after ``poll.follow_after_polls`` polls, carries on, told
once: a log line, an audit entry, a ``topic_followed`` task); moved with a shadow topic (read
from the old forum's listing as before, told once); moved to a forum the bot may not read or
deleted (held: a ``topic_gone`` task, drafts held, not read again); a held fatigue duel's
deadline does not count while it is held and restarts from the resume time
(``forumbot duels resume``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.app import Bot, bootstrap
from forumbot.cli import main
from forumbot.config import Config, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board
from forumbot.duels.follow import FollowError, resume_duel
from forumbot.storage import open_storage
from tests.fakes.clock import SandboxClock

A, C = "Aurora Vexley", "Cassius Thorne"
OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."
ARCHIVES, STAFF = 5, 6  # a forum the bot reads but does not watch; one it may not read
BODY = "\n".join(
    f"Ligne {i} : {{me}} avance sur le long tapis, entre les armures et les torches."
    for i in range(1, 11)
)


class BotClock:
    """The board's fake time plus an offset only the bot sees (to pass deadlines)."""

    def __init__(self, board_clock: SandboxClock) -> None:
        self.board_clock = board_clock
        self.offset = timedelta()

    def __call__(self) -> Any:
        return self.board_clock.utc() + self.offset


class Sandbox:
    """A started sandbox board (both flavours) with the two extra forums, and its bot."""

    def __init__(self, platform: str, tmp_path: Path, ruleset: str = "classic") -> None:
        self.platform = platform
        self.board_clock = SandboxClock()
        self.board: Any = make_demo_board(platform, clock=self.board_clock)
        self.board.add_forum(ARCHIVES, "Archives des duels")
        self.board.add_forum(STAFF, "Salle des professeurs")
        self.board.set_forum_readers(STAFF, ["Arbitre"])
        self.board.start()
        self.clock = BotClock(self.board_clock)
        self.config = Config(
            board_url=self.board.base_url, platform=platform, username=BOT, ruleset=ruleset,
            review_delay_s=0, database=str(tmp_path / "bot.db"), flood_interval_s=1,
            watch=(WatchedForum(DUEL_FORUM),), game_master=("Maître du Jeu",),
        )  # fmt: skip
        self.bot: Bot = bootstrap(
            self.config, password=BOT_PASSWORD, rng=random.Random(5),
            storage=open_storage(self.config.database), now=self.clock,
            sleep=self.board_clock.sleep, clock=self.board_clock,
        )  # fmt: skip

    def close(self) -> None:
        self.bot.close()
        self.board.stop()

    def cycle(self) -> list[int]:
        self.bot.poll()
        return self.bot.publish()

    def classic_duel(self) -> int:
        """A classic duel topic, adopted, its opening published; the topic id."""
        topic = int(self.board.create_topic(DUEL_FORUM, "Arbitre", "Duel : Aurora contre Cassius",
                                            OPENING))  # fmt: skip
        assert len(self.cycle()) == 1, "the opening"
        self.cycle()
        return topic

    def turn(self, topic: int) -> None:
        """Both duellists post a turn (Forumactif: each with the board's "Duel" dice)."""
        extra = {"dice": ("Duel", 2)} if self.platform == "forumactif" else {}
        self.board.post_reply(topic, A, "Aurora lève sa baguette.\n[b]Sortilège de Désarmement[/b]",
                              **extra)  # fmt: skip
        self.board.post_reply(topic, C, "Cassius esquive.\n[b]Sortilège de Chatouillis[/b]",
                              **extra)  # fmt: skip

    def duel(self) -> dict[str, Any]:
        return self.bot.storage.duels()[-1]

    def tasks(self, kind: str) -> list[dict[str, Any]]:
        return list(self.bot.storage.db["referee_tasks"].rows_where("kind = ?", [kind]))

    def audits(self, action: str) -> list[dict[str, Any]]:
        return [a for a in self.bot.storage.audit_entries("duel:") if a["action"] == action]

    def turns(self) -> list[dict[str, Any]]:
        return [d for d in self.bot.storage.declarations() if d["kind"] == "turn"]


@pytest.fixture(params=["phpbb3", "forumactif"])
def sandbox(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Sandbox]:
    box = Sandbox(str(request.param), tmp_path)
    yield box
    box.close()


def test_moved_to_an_unwatched_readable_forum_carries_on_and_is_told_once(
    sandbox: Sandbox, caplog: pytest.LogCaptureFixture
) -> None:
    topic = sandbox.classic_duel()
    sandbox.board.move_topic(topic, ARCHIVES)  # no shadow: phpBB's default
    sandbox.turn(topic)
    with caplog.at_level(logging.WARNING, logger="forumbot.duels.referee"):
        sandbox.cycle()
        sandbox.cycle()
        assert sandbox.turns() == [], "two polls: not read by id yet (follow_after_polls = 3)"
        published = sandbox.cycle()  # the third: read by id, the turn drafted and published
        for _ in range(3):
            sandbox.cycle()
    assert len(published) == 1 and [d["status"] for d in sandbox.turns()] == ["published"]
    moved = [r for r in caplog.records if "was moved from forum 3 to forum 5" in r.message]
    assert len(moved) == 1, "told once"
    assert [t["status"] for t in sandbox.tasks("topic_followed")] == ["open"]
    assert len(sandbox.audits("duel.topic_moved")) == 1
    duel = sandbox.duel()
    assert (duel["status"], duel["forum_id"], duel["board_forum_id"]) == ("running", 3, 5)
    assert duel["held_at"] is None
    posts = sandbox.board.posts(topic)
    assert posts[-1].poster_id == sandbox.board.user_id(BOT), "the declaration went there"
    sandbox.turn(topic)  # the next turn: read by id at once (the forum is known now)
    assert len(sandbox.cycle()) == 1
    assert len(sandbox.tasks("topic_followed")) == 1 and len(moved) == 1


def test_moved_with_a_shadow_topic_is_read_as_before_and_told_once(sandbox: Sandbox) -> None:
    topic = sandbox.classic_duel()
    sandbox.board.move_topic(topic, ARCHIVES, shadow=True)
    sandbox.turn(topic)
    assert len(sandbox.cycle()) == 1, "listed in forum 3 by its shadow: read at once"
    sandbox.cycle()
    assert len(sandbox.tasks("topic_followed")) == 1
    assert len(sandbox.audits("duel.topic_moved")) == 1
    assert sandbox.duel()["board_forum_id"] == ARCHIVES
    sandbox.turn(topic)
    assert len(sandbox.cycle()) == 1
    assert len(sandbox.tasks("topic_followed")) == 1


@pytest.mark.parametrize("how", ["deleted", "unreadable"])
def test_a_gone_topic_holds_the_duel_with_a_task(
    sandbox: Sandbox, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    topic = sandbox.classic_duel()
    sandbox.bot.referee.review_delay_s = "manual"  # the next turn waits as a draft
    sandbox.turn(topic)
    sandbox.cycle()
    assert [d["status"] for d in sandbox.turns()] == ["draft"]
    if how == "deleted":
        sandbox.board.delete_topic(topic)
    else:
        sandbox.board.move_topic(topic, STAFF)
    with caplog.at_level(logging.ERROR, logger="forumbot.duels.referee"):
        for _ in range(3):
            sandbox.cycle()
    duel = sandbox.duel()
    assert duel["status"] == "running" and duel["held_at"] is not None
    assert [t["status"] for t in sandbox.tasks("topic_gone")] == ["open"]
    assert "introuvable ou illisible" in sandbox.tasks("topic_gone")[0]["text"]
    assert [d["status"] for d in sandbox.turns()] == ["held"]
    assert any("gone or unreadable" in r.message for r in caplog.records)
    for _ in range(3):  # held: not read again, no second task
        sandbox.cycle()
    assert len(sandbox.tasks("topic_gone")) == 1 and len(sandbox.audits("duel.held")) == 1


def test_a_listed_duel_is_not_read_by_id(sandbox: Sandbox) -> None:
    """A duel its forum lists is read from the listing only: nothing told, nothing held."""
    topic = sandbox.classic_duel()
    for _ in range(4):
        sandbox.turn(topic)
        sandbox.cycle()
    assert sandbox.tasks("topic_followed") == [] and sandbox.tasks("topic_gone") == []
    assert sandbox.duel()["board_forum_id"] is None


def fatigue_duel(box: Sandbox) -> int:
    topic = int(box.board.create_topic(DUEL_FORUM, "Arbitre", "Duel de fatigue",
                                       "Bienvenue au club de duel."))  # fmt: skip
    box.bot.referee.adopt(
        DUEL_FORUM, topic, "Duel de fatigue", [(A, "1", ["brutale"]), (C, "adult", ["sournoise"])],
        ruleset="fatigue",
    )  # fmt: skip
    assert len(box.cycle()) == 1, "the opening"
    return topic


def test_a_held_duels_deadline_is_frozen_and_restarts_from_the_resume(tmp_path: Path) -> None:
    box = Sandbox("phpbb3", tmp_path, ruleset="fatigue")
    try:
        topic = fatigue_duel(box)
        [deadline] = box.bot.storage.db["deadlines"].rows_where("status = 'pending'")
        box.board.move_topic(topic, STAFF)  # to a forum the bot may not read
        for _ in range(3):
            box.cycle()
        assert box.duel()["held_at"] is not None
        box.clock.offset += timedelta(hours=40)  # past the 36 h: the players would be silent
        assert box.cycle() == []
        assert box.bot.storage.db["deadlines"].get(deadline["id"])["status"] == "pending"
        assert [d["kind"] for d in box.bot.storage.declarations()] == ["opening"]
        box.board.set_forum_readers(STAFF, None)  # the staff let the bot read the forum
        done = resume_duel(box.bot.storage, box.duel()["id"], "Maelis", box.clock())
        assert done.deadlines == (deadline["id"],) and len(done.tasks) == 1
        row = box.bot.storage.db["deadlines"].get(deadline["id"])
        assert row["started_at"] == box.clock().isoformat()
        with pytest.raises(FollowError):
            resume_duel(box.bot.storage, box.duel()["id"], "Maelis", box.clock())
        box.cycle()  # read by id again: the move is told, the duel goes on
        assert box.duel()["held_at"] is None and box.duel()["board_forum_id"] == STAFF
        box.clock.offset += timedelta(hours=35)
        assert box.cycle() == [], "35 h since the resume: still waiting"
        box.clock.offset += timedelta(hours=2)
        assert len(box.cycle()) == 1, "37 h since the resume: relaunched"
        assert box.bot.storage.db["deadlines"].get(deadline["id"])["status"] == "fired"
        resumes = box.audits("duel.resume")
        assert [a["actor"] for a in resumes] == ["Maelis"]
    finally:
        box.close()


def test_duels_resume_and_cancel_on_the_command_line(tmp_path: Path) -> None:
    box = Sandbox("phpbb3", tmp_path)
    try:
        topic = box.classic_duel()
        box.board.delete_topic(topic)
        for _ in range(3):
            box.cycle()
        cfg = tmp_path / "forumbot.toml"
        cfg.write_text(
            f'[board]\nurl = "{box.board.base_url}"\nplatform = "phpbb3"\nlanguage = "en"\n[bot]\n'
            f'username = "{BOT}"\n[storage]\ndatabase = "{box.config.database}"\n'
            "[[watch]]\nforum_id = 3\n",
            encoding="utf-8",
        )
        runner = CliRunner()
        result = runner.invoke(main, ["duels", "resume", str(topic), "-c", str(cfg), "--by", "M"])
        assert result.exit_code == 0, result.output
        assert "resumed" in result.output and "1 task closed" in result.output
        again = runner.invoke(main, ["duels", "resume", str(topic), "-c", str(cfg)])
        assert again.exit_code != 0 and "is not held" in again.output
        for _ in range(1):  # still gone: held again at the next poll, a new task
            box.cycle()
        assert box.duel()["held_at"] is not None
        assert [t["status"] for t in box.tasks("topic_gone")] == ["done", "open"]
        cancel = runner.invoke(
            main, ["duels", "cancel", str(topic), "-c", str(cfg), "--reason", "Sujet supprimé",
                   "--silent"],
        )  # fmt: skip
        assert cancel.exit_code == 0, cancel.output
        assert [t["status"] for t in box.tasks("topic_gone")] == ["done", "done"]
    finally:
        box.close()


def test_moved_into_another_watched_forum_becomes_that_forums_duel(tmp_path: Path) -> None:
    """Watched forums 3 and 5: the duel is read from forum 5's listing, told once, and its
    forum becomes 5 (not read by id on top of it)."""
    box = Sandbox("phpbb3", tmp_path)
    try:
        box.bot.config = replace(
            box.bot.config, watch=(WatchedForum(DUEL_FORUM), WatchedForum(ARCHIVES))
        )
        topic = box.classic_duel()
        box.board.move_topic(topic, ARCHIVES)
        box.turn(topic)
        assert len(box.cycle()) == 1
        duel = box.duel()
        assert (duel["forum_id"], duel["board_forum_id"]) == (ARCHIVES, None)
        for _ in range(4):
            box.cycle()
        assert len(box.tasks("topic_followed")) == 1 and box.tasks("topic_gone") == []
    finally:
        box.close()
