"""``kill -9`` of ``forumbot run`` while it publishes, then a restart: no declaration posted
twice, none lost. The sandbox board runs in this test process; the bot runs as a real
subprocess (``python -m forumbot run``) and is SIGKILLed at a chosen point of the publish path
(``FORUMBOT_CRASH_POINT``), then restarted without it."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from forumbot.sandbox import SandboxBoard

pytestmark = pytest.mark.e2e

CONFIG = """
[board]
url = "{url}"
platform = "phpbb3"
[bot]
username = "Hibou"
password_env = "FORUMBOT_TEST_PASSWORD"
[club]
ruleset = "classic"
review_delay_s = 0
[poll]
poll_interval_s = 1
publish_interval_s = 1
flood_interval_s = 1
[storage]
database = "bot.db"
[[watch]]
forum_id = 3
"""


def start_bot(tmp: Path, crash: str | None) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FORUMBOT_TEST_PASSWORD": "pw-hibou"}
    env.pop("FORUMBOT_CRASH_POINT", None)
    if crash:
        env["FORUMBOT_CRASH_POINT"] = crash
    return subprocess.Popen(
        [sys.executable, "-m", "forumbot", "run", "-c", str(tmp / "forumbot.toml")],
        cwd=tmp,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp / "bot.log", "ab"),
    )


def wait_for(predicate, timeout: float = 180.0) -> None:  # type: ignore[no-untyped-def]
    """Poll ``predicate`` every 0.2 s until it is true; the deadline is generous (a loaded
    machine runs the bot subprocess slowly) and only bounds a failure."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError("timed out")


def db_rows(tmp: Path, sql: str) -> list[tuple[object, ...]]:
    if not (tmp / "bot.db").exists():
        return []
    con = sqlite3.connect(tmp / "bot.db", timeout=10)
    try:
        return con.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def marker_counts(board: SandboxBoard, topic_id: int) -> dict[str, int]:
    counts: dict[str, int] = {}
    for post in board.posts(topic_id):
        for line in post.text.splitlines():
            if "forumbot·" in line:
                key = line.split("forumbot·", 1)[1].split("[", 1)[0].strip().rstrip("·")
                counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.parametrize("crash", ["after_post", "before_post"])
def test_kill_9_while_publishing_then_restart(tmp_path: Path, crash: str) -> None:
    board = SandboxBoard(
        users=[
            ("Hibou", "pw-hibou"),
            ("Arbitre", "a"),
            ("Aurora Vexley", "a"),
            ("Cassius Thorne", "c"),
        ],
        flood_interval_s=1,
    )
    url = board.start()
    try:
        topic = board.create_topic(
            3,
            "Arbitre",
            "Duel : Aurora contre Cassius",
            "Les adversaires : Aurora Vexley (3e année) contre Cassius Thorne (3e année).",
        )
        (tmp_path / "forumbot.toml").write_text(CONFIG.format(url=url), encoding="utf-8")

        # 1. the bot dies by SIGKILL in the middle of publishing the opening declaration
        bot = start_bot(tmp_path, crash)
        assert bot.wait(timeout=180) == -signal.SIGKILL
        opening = db_rows(tmp_path, "select status from declarations where kind = 'opening'")
        assert opening == [("publishing",)]
        expected_on_board = 1 if crash == "after_post" else 0
        assert sum(marker_counts(board, topic).values()) == expected_on_board

        # 2. restart: the declaration is published (or recognised) exactly once
        bot = start_bot(tmp_path, None)
        try:
            wait_for(lambda: db_rows(tmp_path, "select status from duels where status = 'running'"))
            board.post_reply(
                topic,
                "Aurora Vexley",
                "Je salue.\nJe lève ma baguette.\n[b]Sortilège de Désarmement[/b]",
            )
            board.post_reply(
                topic,
                "Cassius Thorne",
                "Je salue aussi.\nEt j'attaque.\n[b]Sortilège de Chatouillis[/b]",
            )
            wait_for(
                lambda: db_rows(
                    tmp_path,
                    "select 1 from declarations where kind = 'turn' and status = 'published'",
                )
            )
        finally:
            bot.terminate()
            bot.wait(timeout=30)
        counts = marker_counts(board, topic)
        published = db_rows(
            tmp_path, "select idempotency_key from declarations where status = 'published'"
        )
        assert sorted(counts) == sorted(k for (k,) in published)
        assert set(counts.values()) == {1}, counts
        state = json.loads(
            db_rows(tmp_path, "select state_json from duels where status != 'ignored'")[0][0]
        )
        assert state["turn"] == 1
    finally:
        board.stop()


def test_second_run_on_same_database_refuses(tmp_path: Path) -> None:
    board = SandboxBoard(users=[("Hibou", "pw-hibou")], flood_interval_s=1)
    url = board.start()
    try:
        (tmp_path / "forumbot.toml").write_text(CONFIG.format(url=url), encoding="utf-8")
        first = start_bot(tmp_path, None)
        try:
            # the lock file exists once the first run holds it (created and locked together)
            wait_for(lambda: (tmp_path / "bot.db.lock").exists())
            second = subprocess.run(
                [sys.executable, "-m", "forumbot", "run", "-c", str(tmp_path / "forumbot.toml")],
                cwd=tmp_path,
                env={**os.environ, "FORUMBOT_TEST_PASSWORD": "pw-hibou"},
                capture_output=True,
                text=True,
                timeout=180,
            )
            assert second.returncode != 0
            assert "already" in second.stderr
        finally:
            first.terminate()
            first.wait(timeout=30)
    finally:
        board.stop()


def test_run_serves_the_health_endpoint(tmp_path: Path) -> None:
    import socket

    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    board = SandboxBoard(users=[("Hibou", "pw-hibou")], flood_interval_s=1)
    url = board.start()
    try:
        config = CONFIG.format(url=url) + f"\n[ops]\nhealth_port = {port}\n"
        (tmp_path / "forumbot.toml").write_text(config, encoding="utf-8")
        bot = start_bot(tmp_path, None)
        try:
            answer: dict[str, object] = {}

            def healthy() -> bool:
                try:
                    response = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
                except httpx.HTTPError:
                    return False
                answer.update(response.json())
                return response.status_code == 200 and answer.get("last_poll_at") is not None

            wait_for(healthy)
            assert answer["status"] == "ok"
        finally:
            bot.terminate()
            bot.wait(timeout=30)
    finally:
        board.stop()


def test_sigterm_during_start_up_stops_the_bot(tmp_path: Path) -> None:
    """A stop signal in the first seconds (before the scheduler runs) is honoured."""
    board = SandboxBoard(users=[("Hibou", "pw-hibou")], flood_interval_s=1)
    url = board.start()
    try:
        (tmp_path / "forumbot.toml").write_text(CONFIG.format(url=url), encoding="utf-8")
        for delay in (0.8, 1.5, 2.5):
            bot = start_bot(tmp_path, None)
            wait_for(lambda: (tmp_path / "bot.log").exists())
            time.sleep(delay)
            bot.send_signal(signal.SIGTERM)
            assert bot.wait(timeout=120) in (0, -signal.SIGTERM)
    finally:
        board.stop()
