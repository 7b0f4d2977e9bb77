"""A classic duel on the Forumactif sandbox (real ForumactifClient, real parser, the bot as
bootstrapped): a duellist who edits a post after its dice post appeared is ruled on the
version in force when the dice were rolled; the edit is proposed as ``late_edit`` and the
turn draft held for the referee (issue 16, "Forumactif edit after the dice").

The sandbox serves the real display versions' markup (built from the captures of
``../shared/fixtures/forumactif``); ``edit_post(notice=False)`` is an edit the page does not
show, the case the issue names. Time is a fake clock shared by the board and the client.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.app import Bot
from forumbot.demo.classic import DUEL_FORUM, DUELLISTS, demo_bot, make_demo_board
from forumbot.duels.dice_edits import HOLD_PREFIX
from forumbot.duels.overrides import set_status
from forumbot.publish.typography import plain
from forumbot.sandbox.forumactif import ForumactifSandbox

A, B = DUELLISTS[0][0], DUELLISTS[1][0]


class FakeClock:
    """Epoch seconds that only move when someone sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(params=[("prosilver", False), ("awesomebb", True)], ids=["silent", "noticed"])
def case(request: pytest.FixtureRequest) -> tuple[str, bool]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def board(case: tuple[str, bool], clock: FakeClock) -> Iterator[ForumactifSandbox]:
    sandbox = make_demo_board("forumactif", version=case[0], clock=clock, seed=4)
    sandbox.start()
    yield sandbox
    sandbox.stop()


@pytest.fixture
def bot(board: ForumactifSandbox, clock: FakeClock, tmp_path: Path) -> Iterator[Bot]:
    made = demo_bot(board.base_url, "forumactif", "classic", str(tmp_path / "bot.db"), 5,
                    sleep=clock.sleep, clock=clock)  # fmt: skip
    yield made
    made.close()


def _turn_draft(bot: Bot) -> dict[str, object]:
    (row,) = [d for d in bot.storage.declarations() if d["kind"] == "turn"]
    return row


def test_edit_after_the_dice_is_ruled_on_the_rolled_version_and_held(
    board: ForumactifSandbox,
    clock: FakeClock,
    bot: Bot,
    case: tuple[str, bool],
    caplog: pytest.LogCaptureFixture,
) -> None:
    topic = board.create_topic(
        DUEL_FORUM, "Arbitre", f"Duel : {A} contre {B}",
        f"Les adversaires : {A} (1re année) contre {B} (2e année).",
    )  # fmt: skip
    bot.poll()
    assert len(bot.publish()) == 1  # the opening: the duel runs

    clock.now += 60
    hers = board.post_reply(
        topic, A, "Je lève ma baguette.\n[b]Sortilège de Désarmement[/b]", dice=("Duel", 2)
    )
    bot.poll()  # her post and its Game Master post are seen together: the snapshot is taken
    assert bot.publish() == []  # half a turn: nothing to declare

    clock.now += 60  # she changes her spell once the dice are out
    board.edit_post(hers, "Je lève ma baguette.\n[b]Sortilège de Chatouillis[/b]", notice=case[1])
    clock.now += 60
    board.post_reply(topic, B, "Je pare.\n[b]Charme du Bouclier[/b]", dice=("Duel", 2))
    with caplog.at_level(logging.WARNING, logger="forumbot.duels.dice_edits"):
        bot.poll()
    assert bot.publish() == []  # held for the referee

    draft = _turn_draft(bot)
    assert draft["status"] == "held" and str(draft["last_error"]).startswith(HOLD_PREFIX)
    assert f"message n° {hers}[/url] : Sortilège de Désarmement" in plain(
        str(draft["text"])
    )  # the version of the roll (the post number is linked to the post)
    assert "Chatouillis" not in str(draft["text"])
    assert "message modifié après le lancer des dés" in str(draft["text"])
    rows = list(bot.storage.db["violations"].rows_where("rule = 'late_edit'"))
    assert [(r["duellist"], r["post_id"], r["status"]) for r in rows] == [(A, hers, "proposed")]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and f"post {hers}: edited after its dice" in warned[0].getMessage()
    assert ("edit notice shown" if case[1] else "no edit notice") in warned[0].getMessage()
    stored = bot.storage.seen_post(bot.referee.board_id, hers)
    assert stored is not None and "Chatouillis" in stored["text"]  # the edit is recorded too

    # further polls change nothing and log nothing new; the referee releases the draft
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="forumbot.duels.dice_edits"):
        bot.poll()
    assert not caplog.records
    set_status(bot.storage, int(draft["id"]), "approved", "Arbitre", datetime.now(UTC))
    bot.poll()  # not held again: the referee has seen this late edit
    (published,) = bot.publish()
    texts = [p.text for p in board.posts(topic) if p.post_id == published]
    assert "Désarmement" in texts[0] and "Chatouillis" not in texts[0]


def test_an_edit_before_the_dice_were_seen_is_the_post(
    board: ForumactifSandbox, clock: FakeClock, bot: Bot
) -> None:
    """The limit the parser documents: an edit made before the bot first saw the dice post
    cannot be told from the original; the post as read is ruled on, no late_edit."""
    topic = board.create_topic(
        DUEL_FORUM, "Arbitre", f"Duel : {A} contre {B}",
        f"Les adversaires : {A} (1re année) contre {B} (2e année).",
    )  # fmt: skip
    bot.poll()
    bot.publish()
    clock.now += 60
    hers = board.post_reply(
        topic, A, "Je lève ma baguette.\n[b]Sortilège de Désarmement[/b]", dice=("Duel", 2)
    )
    board.edit_post(hers, "Je lève ma baguette.\n[b]Sortilège de Chatouillis[/b]", notice=False)
    clock.now += 60
    board.post_reply(topic, B, "Je pare.\n[b]Charme du Bouclier[/b]", dice=("Duel", 2))
    bot.poll()
    (published,) = bot.publish()
    text = next(p.text for p in board.posts(topic) if p.post_id == published)
    assert f"message n° {hers}[/url] : Sortilège de Chatouillis" in plain(text)
    assert list(bot.storage.db["violations"].rows_where("rule = 'late_edit'")) == []
