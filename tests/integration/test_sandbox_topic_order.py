"""Issue 22, "the board's order is pinned": the bot's profile sorts posts newest first.

phpBB: every topic read names its order (``st=0&sk=t&sd=a``), so a "Display posts:
Descending" profile changes nothing and the bot reads every new post, in order. A page whose
post ids do not rise (a board that ignores the URL's order, or Forumactif, where no URL
parameter naming it is known) is refused (:class:`forumbot.errors.PostsOutOfOrder`): the poll
says so, nothing is recorded and the duel is not advanced; once the order is fixed, the next
poll reads every post, none lost. Against both sandbox flavours over HTTP.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from forumbot.app import Bot, bootstrap
from forumbot.config import Config, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board
from forumbot.errors import PostsOutOfOrder
from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.phpbb import PhpbbClient
from forumbot.storage import open_storage
from parsers.order import OrderBreak, first_break
from tests.fakes.clock import SandboxClock

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."


class IgnoresOrder(httpx.BaseTransport):
    """The network, minus the order a URL names (``st``/``sk``/``sd``): a board whose style or
    extension sorts by the profile whatever the URL says."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        kept = request.url.params.multi_items()
        params = [(k, v) for k, v in kept if k not in ("st", "sk", "sd")]
        stripped = httpx.Request(
            request.method, request.url.copy_with(params=params), headers=request.headers,
            content=request.read(),
        )  # fmt: skip
        return self.inner.handle_request(stripped)


@pytest.fixture(params=["phpbb3", "forumactif"])
def platform(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def start(platform: str) -> tuple[object, SandboxClock]:
    clock = SandboxClock()
    board = make_demo_board(platform, clock=clock)
    board.start()
    return board, clock


@pytest.fixture
def sandbox(platform: str) -> Iterator[tuple[object, SandboxClock]]:
    board, clock = start(platform)
    yield board, clock
    board.stop()  # type: ignore[attr-defined]


def client(platform: str, board: object, clock: SandboxClock) -> PhpbbClient | ForumactifClient:
    url = board.base_url  # type: ignore[attr-defined]
    cls = PhpbbClient if platform == "phpbb3" else ForumactifClient
    return cls(url, BOT, BOT_PASSWORD, sleep=clock.sleep, clock=clock)


def topic_of_25(board: object) -> tuple[int, list[int]]:
    """A topic of 25 posts (the opening and 24 replies): its id and its post ids."""
    topic = board.create_topic(DUEL_FORUM, "Arbitre", "Bavardages", "Ouverture")  # type: ignore[attr-defined]
    ids = [board.posts(topic)[0].post_id]  # type: ignore[attr-defined]
    for i in range(24):
        ids.append(board.post_reply(topic, "Aurora Vexley", f"Message {i}"))  # type: ignore[attr-defined]
    return topic, ids


def test_first_break_finds_the_first_step_back() -> None:
    assert first_break([]) is None and first_break([4]) is None
    assert first_break([1, 2, 3], before=0) is None
    assert first_break([25, 24, 23]) == OrderBreak(25, 24)
    assert first_break([3, 3]) == OrderBreak(3, 3)
    assert first_break([11, 12], before=12) == OrderBreak(12, 11)


def test_phpbb_newest_first_profile_reads_every_post_after_13_in_order() -> None:
    """The issue's own case: 25 posts, after post 13; was ``[15, 14]``."""
    board, clock = start("phpbb3")
    try:
        topic, ids = topic_of_25(board)
        board.set_post_order(BOT, "d")  # type: ignore[attr-defined]
        reader = client("phpbb3", board, clock)
        assert [p.post_id for p in reader.read_topic(topic, ids[12])] == ids[13:]
        assert [p.post_id for p in reader.read_topic(topic, None)] == ids
        assert reader.topic_forums[topic] == DUEL_FORUM
    finally:
        board.stop()  # type: ignore[attr-defined]


def test_the_sandbox_honours_the_profile_and_sd_like_phpbb() -> None:
    """Without ``sd`` the newest-first profile reverses the page (so the pin matters)."""
    board, clock = start("phpbb3")
    try:
        topic, ids = topic_of_25(board)
        board.set_post_order(BOT, "d")  # type: ignore[attr-defined]
        reader = PhpbbClient(
            board.base_url, BOT, BOT_PASSWORD, sleep=clock.sleep, clock=clock,  # type: ignore[attr-defined]
            transport=IgnoresOrder(),
        )  # fmt: skip
        with pytest.raises(PostsOutOfOrder) as refused:
            reader.read_topic(topic, ids[12])
        # the page holding post 13, newest first: 15, 14, 13, ... (the "[15, 14]")
        assert (refused.value.topic_id, refused.value.previous, refused.value.following) == (
            topic, ids[14], ids[13]
        )
        assert "oldest first" in str(refused.value)
    finally:
        board.stop()  # type: ignore[attr-defined]


def test_forumactif_reversed_pages_are_refused_every_way_they_are_read(
    sandbox: tuple[object, SandboxClock], platform: str
) -> None:
    if platform != "forumactif":
        pytest.skip("Forumactif only: phpBB pins the order in the URL")
    board, clock = sandbox
    topic, ids = topic_of_25(board)
    board.set_post_order(BOT, "d")  # type: ignore[attr-defined]
    reader = client(platform, board, clock)
    for after in (None, ids[12], 999):  # first page; the page of post 13; a post gone
        with pytest.raises(PostsOutOfOrder):
            reader.read_topic(topic, after)
    board.set_post_order(BOT, "a")  # type: ignore[attr-defined]
    assert [p.post_id for p in reader.read_topic(topic, ids[12])] == ids[13:]


def make_bot(platform: str, board: object, clock: SandboxClock, tmp_path: Path,
             transport: httpx.BaseTransport | None = None) -> Bot:  # fmt: skip
    config = Config(
        board_url=board.base_url, platform=platform, username=BOT, ruleset="classic",  # type: ignore[attr-defined]
        review_delay_s=0, database=str(tmp_path / "bot.db"), flood_interval_s=1,
        watch=(WatchedForum(DUEL_FORUM),),
    )  # fmt: skip
    return bootstrap(
        config, password=BOT_PASSWORD, rng=random.Random(2), storage=open_storage(config.database),
        now=clock.utc, sleep=clock.sleep, clock=clock, transport=transport,
    )  # fmt: skip


def seen_ids(bot: Bot, topic: int) -> list[int]:
    return [
        int(r[0])
        for r in bot.storage.db.execute(
            "select post_id from posts_seen where topic_id = ? order by post_id", [topic]
        ).fetchall()
    ]


def test_the_bot_reads_all_ten_new_posts_in_order_with_a_newest_first_profile(
    sandbox: tuple[object, SandboxClock], platform: str, tmp_path: Path
) -> None:
    board, clock = sandbox
    if platform == "forumactif":
        pytest.skip("Forumactif: no URL order is known; the refusal test covers it")
    topic = board.create_topic(DUEL_FORUM, "Arbitre", "Duel : Aurora contre Cassius", OPENING)  # type: ignore[attr-defined]
    for i in range(12):
        board.post_reply(topic, "Arbitre", f"Annonce {i}")  # type: ignore[attr-defined]
    board.set_post_order(BOT, "d")  # type: ignore[attr-defined]
    bot = make_bot(platform, board, clock, tmp_path)
    try:
        bot.poll()  # adopted: the whole topic read
        assert len(bot.publish()) == 1  # the opening
        bot.poll()
        before = seen_ids(bot, topic)
        new = [board.post_reply(topic, "Arbitre", f"Nouvelle {i}") for i in range(10)]  # type: ignore[attr-defined]
        reports = bot.poll()
        assert reports[0].new_posts == 10
        assert seen_ids(bot, topic) == sorted(before + new)
        order = [p.post_id for p in bot.client.read_topic(topic, before[-1])]
        assert order == sorted(order) and order[-10:] == new  # the bot's opening, then them
    finally:
        bot.close()


def test_a_reversed_page_is_refused_recorded_nowhere_and_nothing_is_lost(
    sandbox: tuple[object, SandboxClock], platform: str, tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """phpBB behind a style that ignores the URL's order, and Forumactif: the newest-first
    profile is refused (an error line naming the topic), nothing is recorded and the duel is
    not advanced; with the profile fixed, the next poll reads all ten posts."""
    board, clock = sandbox
    topic = board.create_topic(DUEL_FORUM, "Arbitre", "Duel : Aurora contre Cassius", OPENING)  # type: ignore[attr-defined]
    bot = make_bot(
        platform, board, clock, tmp_path, IgnoresOrder() if platform == "phpbb3" else None
    )
    try:
        bot.poll()
        assert len(bot.publish()) == 1
        bot.poll()
        duel = bot.storage.duels("running")[0]
        before = seen_ids(bot, topic)
        new = [board.post_reply(topic, "Arbitre", f"Nouvelle {i}") for i in range(10)]  # type: ignore[attr-defined]
        board.set_post_order(BOT, "d")  # type: ignore[attr-defined]
        with caplog.at_level(logging.ERROR, logger="forumbot.duels.referee"):
            reports = bot.poll()
        assert reports[0].new_posts == 0
        assert any(
            f"topic {topic}" in r.message and "nothing recorded" in r.message
            for r in caplog.records
        )
        assert seen_ids(bot, topic) == before
        assert bot.storage.duel(duel["id"])["last_post_id"] == duel["last_post_id"]
        assert bot.storage.duel(duel["id"])["state_json"] == duel["state_json"]
        board.set_post_order(BOT, "a")  # type: ignore[attr-defined]
        assert bot.poll()[0].new_posts == 10
        assert seen_ids(bot, topic) == sorted(before + new)
    finally:
        bot.close()
