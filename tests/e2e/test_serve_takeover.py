"""Two ``forumbot serve`` workers share one club on PostgreSQL (issue 27, "Boards move between
workers"): the holder is killed by SIGKILL just after it posted a declaration and before it
recorded it (``FORUMBOT_CRASH_POINT=after_post``); the other worker takes the club over once
the lease lapses, finds the post by its marker (the same restart recovery as ``forumbot run``)
and goes on: every declaration is on the board exactly once.

The sandbox board runs in this test process; both workers are real subprocesses. Every wait
is for an observable state (health answers, the board's posts, the database's rows) with a
long timeout that only bounds a failure: nothing is asserted on elapsed time (the takeover
time is measured by ``bench/bench_serve.py --pg-workers 2``). Skipped, with the reason,
without a PostgreSQL server (tests/engines.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import psycopg
import pytest

from forumbot.sandbox import SandboxBoard
from forumbot.storage.engine import split_schema
from tests.e2e.test_kill_restart import marker_counts, wait_for
from tests.engines import PgSchemas

CLUB = """
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
flood_interval_s = 0
[storage]
url = "{database}"
backup_keep = 0
[[watch]]
forum_id = 3
"""

pytestmark = pytest.mark.e2e

TTL_S = 6


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_worker(
    work: Path, name: str, lease_url: str, port: int, crash: str | None
) -> subprocess.Popen[bytes]:
    env = {**os.environ, "FORUMBOT_TEST_PASSWORD": "pw-hibou"}
    env.pop("FORUMBOT_CRASH_POINT", None)
    if crash:
        env["FORUMBOT_CRASH_POINT"] = crash
    return subprocess.Popen(
        [sys.executable, "-m", "forumbot", "serve", "--boards", str(work / "boards"),
         "--lease-url", lease_url, "--lease-ttl", str(TTL_S), "--worker-id", name,
         "--health-port", str(port)],  # fmt: skip
        cwd=work,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(work / f"{name}.log", "ab"),  # noqa: SIM115 - the child keeps it
    )


def club_health(port: int) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz/club", timeout=5) as r:
            return dict(json.loads(r.read()))
    except OSError as exc:  # 503 bodies are JSON too
        body = getattr(exc, "read", None)
        if body is not None:
            try:
                return dict(json.loads(body()))
            except ValueError:
                return {}
        return {}


def statuses(database: str) -> list[str]:
    dsn, schema = split_schema(database)
    try:
        with psycopg.connect(dsn) as conn:
            rows = conn.execute(f'select status from "{schema}".declarations order by id')
            return [r[0] for r in rows.fetchall()]
    except psycopg.Error:
        return []


def test_kill_9_of_the_holder_after_its_post_the_other_worker_takes_over(
    tmp_path: Path, pg_schemas: PgSchemas
) -> None:
    database, lease_url = pg_schemas.fresh(), pg_schemas.fresh()
    board = SandboxBoard(
        users=[("Hibou", "pw-hibou"), ("Arbitre", "a"), ("Aurora Vexley", "a"),
               ("Cassius Thorne", "c")],  # fmt: skip
        flood_interval_s=0,
    )
    url = board.start()
    (tmp_path / "boards").mkdir()
    club = tmp_path / "boards" / "club.toml"
    club.write_text(CLUB.format(url=url, database=database), encoding="utf-8")
    club.chmod(0o600)
    port1, port2 = free_port(), free_port()
    workers: list[subprocess.Popen[bytes]] = []
    try:
        # 1. worker 1 holds the club; worker 2 sees it leased elsewhere
        workers.append(start_worker(tmp_path, "w1", lease_url, port1, "after_post"))
        wait_for(lambda: club_health(port1).get("state") == "running")
        assert club_health(port1)["holder"] == "w1"
        workers.append(start_worker(tmp_path, "w2", lease_url, port2, None))
        wait_for(lambda: club_health(port2).get("state") == "leased_elsewhere")
        assert club_health(port2)["holder"] == "w1"

        # 2. a duel: worker 1 posts its opening declaration and dies before recording it
        topic = board.create_topic(
            3, "Arbitre", "Duel : Aurora contre Cassius",
            "Les adversaires : Aurora Vexley (3e année) contre Cassius Thorne (3e année).",
        )  # fmt: skip
        assert workers[0].wait(timeout=180) == -signal.SIGKILL
        assert statuses(database) == ["publishing"]
        assert sum(marker_counts(board, topic).values()) == 1

        # 3. worker 2 takes the club over (after the TTL) and recognises the post
        wait_for(lambda: club_health(port2).get("state") == "running", timeout=240)
        assert club_health(port2)["holder"] == "w2"
        wait_for(lambda: statuses(database) == ["published"])
        board.post_reply(topic, "Aurora Vexley",
                         "Je salue.\nJe lève ma baguette.\n[b]Sortilège de Désarmement[/b]")
        board.post_reply(topic, "Cassius Thorne",
                         "Je salue aussi.\nEt j'attaque.\n[b]Sortilège de Chatouillis[/b]")
        wait_for(lambda: statuses(database) == ["published", "published"])
        counts = marker_counts(board, topic)
        assert len(counts) == 2 and set(counts.values()) == {1}, counts

        # 4. a clean stop releases the lease
        workers[1].send_signal(signal.SIGTERM)
        assert workers[1].wait(timeout=120) == 0
        dsn, schema = split_schema(lease_url)
        with psycopg.connect(dsn) as conn:
            row = conn.execute(f'select holder from "{schema}".leases').fetchone()
        assert row == (None,)
    finally:
        for proc in workers:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=30)
        board.stop()
