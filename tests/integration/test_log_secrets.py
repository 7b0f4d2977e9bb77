"""Secrets stay secret in logs (issue 24 F9): a ``forumbot -v`` process sending an Apprise
notice to a webhook (a local server) logs neither the URL's path token nor the payload."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from forumbot.ops.logs import mask_urls

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "T0KEN-a1b2c3d4e5f6"
QUERY = "Q-s3cr3t"
BODY = "BODYSECRET-duel-42"


@pytest.fixture
def webhook() -> Iterator[tuple[str, list[bytes]]]:
    received: list[bytes] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()


SCRIPT = """
import sys
from forumbot.cli import main
from forumbot.notify.outbox import apprise_send

@main.command("send-test")
def send_test():
    ok = apprise_send((sys.argv[1],), "Titre", sys.argv[2])
    print("sent" if ok else "failed")

main(["-v", "send-test"])
"""


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_verbose_notify_logs_no_token_nor_payload(
    webhook: tuple[str, list[bytes]], log_format: str
) -> None:
    host, received = webhook
    url = f"json://{host}/hooks/{TOKEN}?secret={QUERY}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FORUMBOT_LOG_FORMAT": log_format}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, url, BODY],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert "sent" in done.stdout, done.stderr
    assert received and BODY.encode() in received[0]  # the notice did go out
    logs = done.stderr
    assert "apprise" in logs and "[masked]" in logs  # DEBUG records were written, masked
    assert "characters dropped" in logs  # the payload record stayed, without its payload
    for secret in (TOKEN, QUERY, BODY):
        assert secret not in logs


def test_mask_urls_keeps_scheme_and_host_only() -> None:
    text = (
        "Loaded URL: mailto://bot:pa55@mail.test/x?to=a and https://hooks.slack.com/services/T/B/X"
    )
    assert mask_urls(text) == (
        "Loaded URL: mailto://mail.test/[masked] and https://hooks.slack.com/[masked]"
    )
    assert mask_urls("GET https://board.test/") == "GET https://board.test/"
