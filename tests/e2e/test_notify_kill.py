"""Issue 18: the owl telling a referee that a draft waits arrives on the sandbox board exactly
once across a ``kill -9`` between queueing it and sending it. The sandbox board (phpBB, real
HTTP) runs in this test process; the notify pass runs as a real subprocess
(``python -m forumbot notify send``) SIGKILLed at a crash point, then run again without it."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from forumbot.app import bootstrap
from forumbot.config import load_config
from forumbot.notify.settings import set_person_settings
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.web.users import add_user, assign_referee

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
review_delay_s = 600
[poll]
flood_interval_s = 0
[storage]
database = "bot.db"
[[watch]]
forum_id = 3
[notify]
review_url = "http://127.0.0.1:8000"
"""


def run_job(tmp: Path, crash: str | None) -> int:
    env = {**os.environ, "FORUMBOT_TEST_PASSWORD": "pw-hibou"}
    env.pop("FORUMBOT_CRASH_POINT", None)
    if crash:
        env["FORUMBOT_CRASH_POINT"] = crash
    with open(tmp / "job.log", "ab") as log:
        done = subprocess.run(
            [sys.executable, "-m", "forumbot", "notify", "send", "-c", str(tmp / "forumbot.toml")],
            cwd=tmp,
            env=env,
            stdout=log,
            stderr=log,
            timeout=120,
        )
    return done.returncode


def statuses(tmp: Path) -> list[tuple[str, str]]:
    con = sqlite3.connect(tmp / "bot.db", timeout=10)
    try:
        return con.execute("select recipient, status from notices order by id").fetchall()
    finally:
        con.close()


@pytest.mark.parametrize("crash", ["notice_before_send", "notice_after_pm"])
def test_owl_arrives_once_across_kill_9(tmp_path: Path, crash: str) -> None:
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne", "Rita Skeeter"):
        board.add_user(name, "x")
    url = board.start()
    try:
        board.create_topic(
            3, "Arbitre", "Duel : Aurora contre Cassius",
            "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
        )  # fmt: skip
        (tmp_path / "forumbot.toml").write_text(CONFIG.format(url=url), encoding="utf-8")
        bot = bootstrap(
            load_config(tmp_path / "forumbot.toml"), password="pw-hibou", rng=random.Random(3)
        )
        bot.poll()  # the opening draft waits for the referee
        (draft,) = bot.storage.declarations(("draft",))
        add_user(bot.storage, "rita", "correct horse battery", "referee", bot.now())
        assign_referee(bot.storage, int(draft["duel_id"]), "rita", "admin", bot.now())
        set_person_settings(bot.storage, "rita", "admin", bot.now(), forum_name="Rita Skeeter")
        bot.close()

        assert run_job(tmp_path, crash) == -signal.SIGKILL
        rita_id = board.user_id("Rita Skeeter")
        to_rita = [m for m in board.pms() if rita_id in m.to_ids]
        assert len(to_rita) == (1 if crash == "notice_after_pm" else 0)
        assert statuses(tmp_path) == [("rita", "batched")]

        assert run_job(tmp_path, None) == 0
        to_rita = [m for m in board.pms() if rita_id in m.to_ids]
        assert len(to_rita) == 1, [m.subject for m in to_rita]
        owl = to_rita[0]
        assert owl.subject == "Relecture : 1 élément vous attend"
        assert "Duel : Aurora contre Cassius" in plain(owl.text) and "(ouverture)" in owl.text
        assert f"http://127.0.0.1:8000/drafts/{draft['id']}" in owl.text
        assert statuses(tmp_path) == [("rita", "sent")]
        assert run_job(tmp_path, None) == 0  # and a third pass sends nothing more
        assert len([m for m in board.pms() if rita_id in m.to_ids]) == 1
    finally:
        board.stop()
