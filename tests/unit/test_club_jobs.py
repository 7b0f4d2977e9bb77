"""The club's after-poll work built once (forumbot.club.jobs): no desk without a registration
thread or leaderboard topic, nothing at all on a board without a 2v2, and on a 2v2 board the
inbox read while the duel runs, then the finished duel settled once (result owls, settled_at)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from forumbot.club.jobs import DuoReport, build_club
from forumbot.duels.referee import Referee
from forumbot.publish.owls import owls
from forumbot.storage import open_storage
from tests.unit.test_duo_flow import A1, NOW, InboxForum, setup

pytestmark = pytest.mark.usefixtures("on_each_engine")


def config(**overrides: object) -> SimpleNamespace:
    values: dict[str, object] = {
        "username": "Hibou",
        "language": "fr",
        "referee_name": "L'arbitre",
        "registrations": (),
        "leaderboard_topic_id": 0,
    }
    values.update(overrides)
    return SimpleNamespace(**values)


def test_no_desk_and_no_2v2_work_on_a_plain_board() -> None:
    storage = open_storage(":memory:")
    forum = InboxForum()
    ref = Referee(storage, forum, board_url="http://board.invalid", platform="phpbb3",
                  now=lambda: NOW, rng=random.Random(1), bot_username="Hibou")  # fmt: skip
    club = build_club(config(), storage, forum, ref, lambda: NOW)
    assert club.desk is None and club.registrations() is None
    forum.inbox = [(1, A1, "Question", "?")]
    assert club.two_against_two() == DuoReport()
    assert storage.db["inbox_seen"].count == 0  # the inbox was not read
    assert ref.on_finished == []  # no desk, no hook


def test_a_leaderboard_topic_builds_the_desk_and_attaches_its_hook_once() -> None:
    storage = open_storage(":memory:")
    forum = InboxForum()
    ref = Referee(storage, forum, board_url="http://board.invalid", platform="phpbb3",
                  now=lambda: NOW, rng=random.Random(1), bot_username="Hibou")  # fmt: skip
    club = build_club(config(leaderboard_topic_id=9), storage, forum, ref, lambda: NOW)
    build_club(config(leaderboard_topic_id=9), storage, forum, ref, lambda: NOW)
    assert club.desk is not None and len(ref.on_finished) == 1


def test_2v2_inbox_while_running_then_settled_once_when_finished() -> None:
    storage = open_storage(":memory:")
    forum = InboxForum()
    ref, duel_id = setup(storage, forum)
    club = build_club(config(), storage, forum, ref, lambda: NOW)
    storage.db["duels"].update(duel_id, {"status": "running"})
    forum.inbox = [(11, A1, "Le cadran ?", "Que disent les runes ?")]
    report = club.two_against_two()
    assert (report.settled, len(report.tasks), report.error) == (0, 1, None)
    assert club.two_against_two().tasks == ()  # each message once

    storage.db["duels"].update(duel_id, {"status": "finished"})
    assert club.two_against_two().settled == 1
    assert storage.db["duo_duels"].get(duel_id)["settled_at"] is not None
    results = [o for o in owls(storage, ref.board_id) if o["kind"] == "result"]
    assert len(results) == 4 and {o["subject"] for o in results} == {
        "Fin du duel en deux contre deux"
    }
    assert club.two_against_two().settled == 0  # settled once
    assert len([o for o in owls(storage, ref.board_id) if o["kind"] == "result"]) == 4
