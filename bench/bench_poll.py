"""Benchmark (b): HTTP requests per poll cycle for N watched topics of which k changed.

The ideal is 1 request per watched forum (the listing) + 1 per changed topic. The bot runs
against the sandbox board on 127.0.0.1 with a counting httpx transport.

    python bench/bench_poll.py [--topics 10] [--changed 3]
"""

from __future__ import annotations

import argparse
import random

import httpx

from forumbot.app import bootstrap
from forumbot.config import Config, WatchedForum
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage


class CountingTransport(httpx.HTTPTransport):
    """An httpx transport that counts requests by method and path."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(f"{request.method} {request.url.path}?{request.url.query.decode()}")
        return super().handle_request(request)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--changed", type=int, default=3)
    args = parser.parse_args()
    names = [f"Duelliste {i}" for i in range(2 * args.topics)]
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw", ignore_flood=True)
    board.add_user("Arbitre", "a")
    for n in names:
        board.add_user(n, "x")
    url = board.start()
    topics = []
    for i in range(args.topics):
        a, b = names[2 * i], names[2 * i + 1]
        topics.append(
            board.create_topic(
                3,
                "Arbitre",
                f"Duel {i}",
                f"Les adversaires : {a} (3e année) contre {b} (4e année).",
            )
        )
    transport = CountingTransport()
    config = Config(
        board_url=url,
        platform="phpbb3",
        username="Hibou",
        review_delay_s=0,
        database=":memory:",
        flood_interval_s=0,
        watch=(WatchedForum(3),),
    )
    bot = bootstrap(
        config,
        password="pw",
        transport=transport,
        storage=open_storage(":memory:"),
        rng=random.Random(1),
    )
    bot.poll()  # adopts every topic (first reads)
    bot.publish()  # opening declarations
    bot.poll()  # sees the bot's own declarations
    transport.requests.clear()
    bot.poll()  # nothing changed
    idle = len(transport.requests)
    for i in range(args.changed):
        board.post_reply(topics[i], names[2 * i], "Je lève ma baguette.\n[b]Sortilège de Glace[/b]")
    transport.requests.clear()
    bot.poll()
    changed = len(transport.requests)
    ideal = 1 + args.changed
    print(f"watched forum: 1, topics: {args.topics}, changed: {args.changed}")
    print(f"requests, nothing changed: {idle} (ideal 1)")
    print(
        f"requests, {args.changed} changed: {changed} (ideal {ideal}); ratio {changed / ideal:.2f}"
    )
    for line in transport.requests:
        print("   ", line)
    board.stop()


if __name__ == "__main__":
    main()
