"""Issue 12: the referee wakes the publisher as soon as a topic's drafts are committed (in the
middle of a poll), never for a poll that drafted nothing."""

from __future__ import annotations

import logging
import random
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.duels.referee import Referee
from forumbot.storage import open_storage
from tests.fakes.forum import FakeForum

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."


def test_a_drafted_topic_kicks_once_with_its_draft_visible_to_another_connection(
    tmp_path: Path,
) -> None:
    database = tmp_path / "bot.db"
    forum = FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    forum.add_topic(
        8,
        "Duel : Blaise contre Dorian",
        "Arbitre",
        OPENING.replace("Aurora Vexley", "Blaise Zabini").replace("Cassius Thorne", "Dorian Gray"),
    )
    ref = Referee(
        open_storage(database), forum, board_url="http://board.invalid", platform="phpbb3",
        review_delay_s=0, now=lambda: datetime(2026, 12, 1, 12, tzinfo=UTC),
        rng=random.Random(1), bot_username="Hibou",
    )  # fmt: skip
    seen: list[int] = []

    def kicked() -> None:  # what the publish worker's own connection sees at that moment
        with sqlite3.connect(database) as other:
            seen.append(other.execute("select count(*) from declarations").fetchone()[0])

    ref.on_drafted.append(kicked)
    ref.poll_forum(3)  # both topics adopted, their openings drafted
    assert seen == [1, 2]  # one kick per drafted topic, each draft already committed
    ref.poll_forum(3)  # nothing new on the board: no draft, no kick
    assert seen == [1, 2]


def test_a_failing_kick_is_logged_and_the_poll_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    forum = FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    ref = Referee(
        open_storage(tmp_path / "bot.db"), forum, board_url="http://board.invalid",
        platform="phpbb3", review_delay_s=0, now=lambda: datetime(2026, 12, 1, 12, tzinfo=UTC),
        rng=random.Random(1), bot_username="Hibou",
    )  # fmt: skip

    def broken() -> None:
        raise RuntimeError("scheduler gone")

    ref.on_drafted.append(broken)
    with caplog.at_level(logging.ERROR, "forumbot.duels.referee"):
        ref.poll_forum(3)
    assert [d["kind"] for d in ref.storage.declarations()] == ["opening"]
    assert "on_drafted callback failed" in caplog.text


def test_adopting_a_topic_reads_it_once_and_records_its_posts(tmp_path: Path) -> None:
    """Issue 12 (read only what changed): the adoption read is the poll's read of the topic;
    it used to be read twice in the poll that adopted it."""
    forum = FakeForum()
    forum.add_topic(7, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    forum.add_post(7, "Aurora Vexley", "Aurora salue son adversaire.")
    ref = Referee(
        open_storage(tmp_path / "bot.db"), forum, board_url="http://board.invalid",
        platform="phpbb3", review_delay_s=0, now=lambda: datetime(2026, 12, 1, 12, tzinfo=UTC),
        rng=random.Random(1), bot_username="Hibou",
    )  # fmt: skip
    report = ref.poll_forum(3)
    assert forum.reads == 1 and report.topics_read == 1
    stored = ref.storage.topic_posts(ref.board_id, 7)
    assert [p["author"] for p in stored] == ["Arbitre", "Aurora Vexley"]
    ref.poll_forum(3)  # nothing changed since: not read again
    assert forum.reads == 1
