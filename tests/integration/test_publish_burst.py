"""Issue 12 on the sandbox phpBB board with the real client (one shared fake clock, moved only
by the client's sleeps): a burst of 30 due declarations on an account that ignores the flood
limit costs 2 requests each and one form-age wait in all; the listing is read page by page."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from forumbot.duels.publication import apply_published
from forumbot.duels.referee import Referee
from forumbot.forums.phpbb import PhpbbClient
from forumbot.publish.poster import PublishState, publish_due
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."


class Clock:
    def __init__(self) -> None:
        self.now = 1796038969.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)


@pytest.fixture
def world() -> Iterator[tuple[SandboxBoard, Clock]]:
    clock = Clock()
    board = SandboxBoard(clock=clock, flood_interval_s=0, state_path=None)
    board.add_user("Hibou", "pw-h", ignore_flood=True)
    board.add_user("Arbitre", "pw-r")
    board.start()
    yield board, clock
    board.stop()


def counting_client(board: SandboxBoard, clock: Clock, seen: list[str]) -> PhpbbClient:
    def log(request: httpx.Request) -> None:
        seen.append(f"{request.method} {request.url.path}")

    client = PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock,
                         flood_interval_s=0)  # fmt: skip
    client._http.event_hooks["request"].append(log)
    return client


def test_a_burst_of_30_declarations_costs_2_requests_each_and_one_form_wait(
    world: tuple[SandboxBoard, Clock],
) -> None:
    board, clock = world
    topics = [board.create_topic(3, "Arbitre", f"Duel {n}", OPENING) for n in range(30)]
    seen: list[str] = []
    client = counting_client(board, clock, seen)
    client.login()
    storage = open_storage(":memory:")
    referee = Referee(storage, client, board_url=board.base_url, platform="phpbb3",
                      review_delay_s=0, now=clock.utc, rng=random.Random(3))  # fmt: skip
    state = PublishState.at_start(storage)
    referee.poll_forum(3)  # start-up: every listing page; the 30 topics adopted
    assert len(storage.duels("open")) == 30
    seen.clear()
    clock.sleeps.clear()
    published = publish_due(storage, client, clock.utc, on_published=apply_published, state=state)
    assert len(published) == 30
    assert seen.count("GET /posting.php") == 30 and seen.count("POST /posting.php") == 30
    assert len(seen) == 60  # no topic re-read for a marker
    assert sum(clock.sleeps) <= 1.5  # the forms aged while the others were fetched
    bot_posts = [
        p for t in topics for p in board._visible_posts(t) if p.poster_id == board.user_id("Hibou")
    ]
    assert len(bot_posts) == 30
