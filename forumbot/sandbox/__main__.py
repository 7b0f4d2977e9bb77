"""Run a sandbox board by hand: ``python -m forumbot.sandbox --port 8080 --seed-demo``."""

from __future__ import annotations

import argparse
import time

from forumbot.sandbox.board import SandboxBoard
from forumbot.sandbox.outages import OUTAGE_KINDS

DEMO_USERS = [
    {"name": "Aurora Vexley", "password": "aurora", "user_id": 58},
    {"name": "Cassius Thorne", "password": "cassius", "user_id": 59},
    {"name": "Arbitre", "password": "arbitre", "user_id": 62},
    {"name": "Hibou", "password": "hibou", "user_id": 63, "ignore_flood": True},
]


def main(argv: list[str] | None = None) -> None:
    """Start the board on 127.0.0.1 and serve until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m forumbot.sandbox")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--state", default=None, help="JSON file keeping the board's state")
    parser.add_argument("--flood-interval", type=float, default=15.0)
    parser.add_argument("--seed-demo", action="store_true", help="demo users and a duel topic")
    parser.add_argument(
        "--outage", choices=OUTAGE_KINDS, default=None, help="a page in front of the login URL"
    )
    parser.add_argument("--outage-requests", type=int, default=None, help="for N answers only")
    parser.add_argument("--outage-every-url", action="store_true", help="in front of every URL")
    args = parser.parse_args(argv)
    board = SandboxBoard(
        users=DEMO_USERS if args.seed_demo else None,
        flood_interval_s=args.flood_interval,
        state_path=args.state,
    )
    if args.seed_demo and not board.topics(3):
        topic = board.create_topic(
            3,
            "Arbitre",
            "Duel n°1 : Aurora Vexley contre Cassius Thorne",
            "Bienvenue dans ce duel !\nAurora, à toi l'honneur.",
        )
        board.post_reply(topic, "Aurora Vexley", "Je salue mon adversaire.\n[b]Lance de givre[/b]")
    if args.outage:
        board.start_outage(
            args.outage, requests=args.outage_requests, every_url=args.outage_every_url
        )
    url = board.start(port=args.port)
    print(f"sandbox phpBB board on {url} (Ctrl-C to stop)")
    if args.seed_demo:
        print("users: " + ", ".join(f"{u['name']}/{u['password']}" for u in DEMO_USERS))
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        board.stop()


if __name__ == "__main__":
    main()
