"""Issue 18, done when: on the sandbox board (phpBB over real HTTP), a referee receives one
gathered owl for a batch of new drafts and one webhook call on a local server (Apprise
``json://`` to 127.0.0.1), and a taken draft waits past its delay. Run with ``-s`` to print
the owl's text and the audit rows (``FORUMBOT_NOTIFY_SHOW=1``)."""

from __future__ import annotations

import json
import os
import random
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from forumbot.app import bootstrap
from forumbot.config import load_config
from forumbot.notify.claims import take
from forumbot.notify.job import NotifyJob
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
review_delay_s = 600
[poll]
flood_interval_s = 0
[storage]
database = "bot.db"
[[watch]]
forum_id = 3
[notify]
review_url = "http://127.0.0.1:8000"
[notify.referee]
urls_env = "FORUMBOT_TEST_NOTIFY_REFEREE"
"""


class Clock:
    def __init__(self) -> None:
        self.t = datetime(2026, 11, 30, 19, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t


def test_one_gathered_owl_one_webhook_and_a_taken_draft_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, object]] = []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            calls.append(json.loads(self.rfile.read(int(self.headers["content-length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    hook = HTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=hook.serve_forever, daemon=True).start()
    monkeypatch.setenv("FORUMBOT_TEST_NOTIFY_REFEREE", f"json://127.0.0.1:{hook.server_port}/")
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne", "Blaise Orme", "Rita Skeeter"):
        board.add_user(name, "x")
    url = board.start()
    try:
        board.create_topic(
            3, "Arbitre", "Duel : Aurora contre Cassius",
            "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
        )  # fmt: skip
        board.create_topic(
            3, "Arbitre", "Duel : Blaise contre Aurora",
            "Blaise Orme (5e année) contre Aurora Vexley (3e année).",
        )  # fmt: skip
        (tmp_path / "forumbot.toml").write_text(CONFIG.format(url=url), encoding="utf-8")
        clock = Clock()
        bot = bootstrap(
            load_config(tmp_path / "forumbot.toml"),
            password="pw-hibou",
            rng=random.Random(5),
            now=clock,
        )
        add_user(bot.storage, "rita", "correct horse battery", "referee", clock())
        bot.poll()  # two opening drafts at once
        drafts = bot.storage.declarations(("draft",))
        assert len(drafts) == 2
        for d in drafts:
            assign_referee(bot.storage, int(d["duel_id"]), "rita", "admin", clock())
        from forumbot.notify.settings import set_person_settings

        set_person_settings(bot.storage, "rita", "admin", clock(), forum_name="Rita Skeeter")
        job = NotifyJob.for_bot(bot)
        job.run()
        job.run()
        rita = board.user_id("Rita Skeeter")
        owls = [m for m in board.pms() if rita in m.to_ids]
        assert len(owls) == 1
        assert owls[0].subject == "Relecture : 2 éléments vous attendent"
        for d in drafts:
            assert f"http://127.0.0.1:8000/drafts/{d['id']}" in owls[0].text
        assert len(calls) == 1 and "Pour rita : 2 éléments en attente." in plain(
            str(calls[0]["message"])
        )

        taken = drafts[0]
        take(bot.storage, int(taken["id"]), "rita", clock(), job.cfg)
        clock.t += timedelta(seconds=601)
        published = bot.publish()
        assert len(published) == 1  # the other draft went out, the taken one waits
        assert bot.storage.declaration(int(taken["id"]))["status"] == "draft"
        if os.environ.get("FORUMBOT_NOTIFY_SHOW"):
            print("\n--- owl subject:", owls[0].subject)
            print(owls[0].text)
            print("--- webhook call:", json.dumps(calls[0], ensure_ascii=False))
            for a in bot.storage.audit_entries():
                if a["action"].startswith(("notice.", "draft.take", "declaration.publish")):
                    print("audit:", a["at"], a["actor"], a["action"], a["target"], a["after"])
        bot.close()
    finally:
        board.stop()
        hook.shutdown()
        hook.server_close()
