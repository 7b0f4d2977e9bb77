"""Issue 22, owls on both sandbox boards with the real clients: a backup restored after an
owl was sent does not send it again (keyed by the board's topic and recipient; the sent box
is searched first), and a Forumactif PM refused because the recipient's inbox is full is a
clear failure with a referee task, not an ambiguous send."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.phpbb import PhpbbClient
from forumbot.ops.backup import backup, restore
from forumbot.publish.owls import draft_owl, owl, owl_key, send_due_owls
from forumbot.publish.poster import PublishState
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.forumactif import ForumactifSandbox
from forumbot.storage import Storage, iso, open_storage
from tests.fakes.clock import SandboxClock

START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def make_board(platform: str, clock: SandboxClock) -> Any:
    board: Any
    if platform == "phpbb3":
        board = SandboxBoard(clock=clock, flood_interval_s=0, state_path=None)
    else:
        board = ForumactifSandbox(clock=clock, flood_interval_s=0)
    board.add_user("Hibou", "pw-h", ignore_flood=True)
    board.add_user("Aurora Vexley", "pw-a")
    board.start()
    return board


def make_client(platform: str, board: Any, clock: SandboxClock) -> Any:
    if platform == "phpbb3":
        client: Any = PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep,
                                  clock=clock, flood_interval_s=0)  # fmt: skip
    else:
        client = ForumactifClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
    client.login()
    return client


@pytest.fixture(params=["phpbb3", "forumactif"])
def platform(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def clock() -> SandboxClock:
    return SandboxClock(START)


@pytest.fixture
def board(platform: str, clock: SandboxClock) -> Iterator[Any]:
    sandbox = make_board(platform, clock)
    yield sandbox
    sandbox.stop()


def first_start(path: Path, clock: SandboxClock) -> Storage:
    storage = open_storage(path)
    storage.board_id("http://board.invalid", "phpbb3", START)
    PublishState.at_start(storage, clock.utc())
    return storage


def draft_result(storage: Storage, clock: SandboxClock) -> str:
    key = owl_key(1, 7, "result", "Aurora Vexley")
    draft_owl(storage, 1, key, "result", "Aurora Vexley", "Fin du duel contre Cassius Thorne",
              "Tu as gagné.", clock.utc())  # fmt: skip
    return key


def test_an_owl_sent_after_the_backup_is_not_sent_again_after_restore(
    platform: str, board: Any, clock: SandboxClock, tmp_path: Path
) -> None:
    db = tmp_path / "bot.db"
    storage = first_start(db, clock)
    saved = backup(db, tmp_path / "backups", clock.utc())
    client = make_client(platform, board, clock)
    key = draft_result(storage, clock)  # drafted and sent after the backup
    assert len(send_due_owls(storage, client, clock.utc, 1)) == 1
    storage.close()
    restore(saved, db, now=clock.utc())
    clock.advance(timedelta(minutes=10))
    storage = open_storage(db)
    PublishState.at_start(storage, clock.utc())  # the next start after the restore
    client = make_client(platform, board, clock)
    assert owl(storage, key) is None  # the restored database never heard of it
    draft_result(storage, clock)  # drafted again, with the same key (board facts)
    assert len(send_due_owls(storage, client, clock.utc, 1)) == 1  # found in the sent box
    row = owl(storage, key)
    assert row is not None and row["status"] == "sent" and row["attempts"] == 1
    assert len([m for m in board.pms() if m.author_id == board.user_id("Hibou")]) == 1


def test_a_full_inbox_is_a_clear_failure_with_a_task(clock: SandboxClock, tmp_path: Path) -> None:
    board = make_board("forumactif", clock)
    try:
        board.set_inbox_limit("Aurora Vexley", 0)
        storage = first_start(tmp_path / "bot.db", clock)
        duel = storage.db["duels"].insert(
            {"board_id": 1, "topic_id": 7, "title": "Duel 1", "status": "finished",
             "created_at": iso(START)}
        ).last_pk  # fmt: skip
        key = owl_key(1, 7, "result", "Aurora Vexley")
        draft_owl(storage, 1, key, "result", "Aurora Vexley", "Fin du duel", "Tu as gagné.",
                  clock.utc(), duel_id=int(duel))  # fmt: skip
        client = make_client("forumactif", board, clock)
        assert send_due_owls(storage, client, clock.utc, 1) == []
        row = owl(storage, key)
        assert row is not None and row["status"] == "failed"
        assert "boîte de réception de ce membre est pleine" in row["last_error"]
        (task,) = storage.db["referee_tasks"].rows
        assert task["kind"] == "owl_refused" and task["duel_id"] == duel
        assert send_due_owls(storage, client, clock.utc, 1) == []  # not retried blindly
        assert board.pms() == []
    finally:
        board.stop()
