"""Issue 22 on both sandbox boards with the real clients: what happens when the bot posts and
the board does not simply take it (moderator queue, locked topic or forum), and exactly once
across a restore of an older backup.

One fake clock shared by the board and the client (moved only by the client's sleeps and by
the test); the bot's database is a file, backed up and restored with ``forumbot.ops.backup``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from forumbot.duels.publication import apply_published
from forumbot.duels.referee import Referee
from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.phpbb import PhpbbClient
from forumbot.ops.backup import backup, restore
from forumbot.publish.poster import PublishState, publish_due
from forumbot.publish.refusals import QUEUED_CHECK_S, REFUSED_PREFIX, REFUSED_PROBE_S
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.forumactif import ForumactifSandbox
from forumbot.storage import Storage, open_storage
from tests.fakes.clock import SandboxClock

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."
START = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@dataclass
class World:
    """A sandbox board (``platform``: ``phpbb3`` or ``forumactif``), its clock, the bot's
    client (every request logged in ``seen``) and database file."""

    platform: str
    board: Any
    clock: SandboxClock
    db_path: Path
    seen: list[str]
    client: Any = None
    storage: Storage | None = None
    referee: Referee | None = None
    state: PublishState | None = None

    def start_bot(self, seed: int = 3) -> None:
        """A bot process starting on the database (a new client, a new publisher state);
        ``seed``: its random source (the dice seed of a duel it adopts)."""
        if self.storage is not None:
            self.storage.close()
        self.storage = open_storage(self.db_path)
        cls = PhpbbClient if self.platform == "phpbb3" else ForumactifClient
        kwargs: dict[str, Any] = {"sleep": self.clock.sleep, "clock": self.clock}
        if self.platform == "phpbb3":
            kwargs["flood_interval_s"] = 0
        self.client = cls(self.board.base_url, "Hibou", "pw-h", **kwargs)

        def log(request: httpx.Request) -> None:
            self.seen.append(f"{request.method} {request.url.path}?{request.url.query.decode()}")

        self.client._http.event_hooks["request"].append(log)
        self.client.login()
        self.referee = Referee(
            self.storage, self.client, board_url=self.board.base_url, platform=self.platform,
            review_delay_s=0, now=self.clock.utc, rng=random.Random(seed), bot_username="Hibou",
            edit_watch_interval_s=300,  # as a config does: the classic edit watch is not due
        )  # fmt: skip
        self.state = PublishState.at_start(self.storage, self.clock.utc())

    def poll(self) -> None:
        assert self.referee is not None
        self.referee.poll_forum(3)

    def publish(self) -> list[int]:
        assert self.storage is not None
        return publish_due(
            self.storage, self.client, self.clock.utc, on_published=apply_published,
            state=self.state,
        )  # fmt: skip

    def bot_posts(self, topic_id: int) -> list[Any]:
        """Every post of the bot in the topic, approved or queued."""
        return [p for p in self.board.posts(topic_id) if p.poster_id == self.board.user_id("Hibou")]

    def decl(self, kind: str = "opening") -> dict[str, Any]:
        assert self.storage is not None
        rows = list(self.storage.db["declarations"].rows_where("kind = ?", [kind]))
        assert len(rows) == 1
        return rows[0]

    def tasks(self) -> list[dict[str, Any]]:
        assert self.storage is not None
        return list(self.storage.db["referee_tasks"].rows_where(order_by="id"))


@pytest.fixture(params=["phpbb3", "forumactif"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    clock = SandboxClock(START)
    board: Any
    if request.param == "phpbb3":
        board = SandboxBoard(clock=clock, flood_interval_s=0, state_path=None)
        board.add_user("Hibou", "pw-h", ignore_flood=True)
        board.add_user("Arbitre", "pw-r")
    else:
        board = ForumactifSandbox(clock=clock, flood_interval_s=0)
        board.add_user("Hibou", "pw-h", ignore_flood=True)
        board.add_user("Arbitre", "pw-r")
    board.start()
    yield World(request.param, board, clock, tmp_path / "bot.db", [])
    board.stop()


# ---------------------------------------------------------------------------- approval queue


def test_a_queued_declaration_is_posted_once_then_published_when_approved(world: World) -> None:
    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.board.set_needs_approval("Hibou")
    world.start_bot()
    world.poll()
    assert world.publish() == []
    assert len(world.bot_posts(topic)) == 1  # in the queue, invisible
    assert world.decl()["status"] == "queued"
    (task,) = world.tasks()
    assert task["kind"] == "publish_queued" and task["status"] == "open"
    assert "FR :" in task["text"] and "EN:" in task["text"] and "modérateur" in task["text"]
    for _ in range(4):  # four passes, time moving on: never a second copy
        world.clock.advance(timedelta(seconds=QUEUED_CHECK_S + 1))
        world.poll()
        assert world.publish() == []
    assert len(world.bot_posts(topic)) == 1
    assert world.decl()["status"] == "queued"
    (queued,) = world.board.queued_posts(topic)
    world.board.approve_post(queued.post_id)
    world.clock.advance(timedelta(seconds=QUEUED_CHECK_S + 1))
    assert world.publish() == [queued.post_id]
    row = world.decl()
    assert row["status"] == "published" and row["published_post_id"] == queued.post_id
    assert world.tasks()[0]["status"] == "done" and world.tasks()[0]["done_by"] == "forumbot"
    assert len(world.bot_posts(topic)) == 1


def test_a_queued_declaration_is_looked_for_only_every_few_minutes(world: World) -> None:
    world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.board.set_needs_approval("Hibou")
    world.start_bot()
    world.poll()
    world.publish()
    world.seen.clear()
    world.clock.advance(timedelta(seconds=QUEUED_CHECK_S / 3))
    world.publish()
    assert world.seen == []  # too soon: no request at all
    world.clock.advance(timedelta(seconds=QUEUED_CHECK_S))
    world.publish()
    assert world.seen  # the topic read for the marker


# ---------------------------------------------------------------------------- locked


@pytest.mark.parametrize("what", ["topic", "forum"])
def test_a_locked_topic_holds_the_declaration_with_the_boards_sentence(
    world: World, what: str
) -> None:
    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.start_bot()
    world.poll()
    if what == "topic":
        world.board.lock_topic(topic)
    else:
        world.board.lock_forum(3)
    assert world.publish() == []
    row = world.decl()
    assert row["status"] == "held" and row["last_error"].startswith(REFUSED_PREFIX)
    sentence = row["last_error"][len(REFUSED_PREFIX) :]
    assert "verrouillé" in sentence.casefold()
    (task,) = world.tasks()
    assert task["kind"] == "publish_refused" and sentence in task["text"]
    assert "FR :" in task["text"] and "EN:" in task["text"]
    world.seen.clear()
    for _ in range(3):  # passes within the probe interval: no request, no post
        world.clock.advance(timedelta(seconds=REFUSED_PROBE_S / 4))
        assert world.publish() == []
    assert world.seen == []
    world.clock.advance(timedelta(seconds=REFUSED_PROBE_S))
    assert world.publish() == []  # still locked: one probe, still held
    assert world.decl()["status"] == "held" and len(world.seen) == 1
    if what == "topic":
        world.board.lock_topic(topic, locked=False)
    else:
        world.board.lock_forum(3, locked=False)
    world.clock.advance(timedelta(seconds=REFUSED_PROBE_S + 1))
    (post_id,) = world.publish()  # the lock lifted: out by itself, once
    assert world.decl()["status"] == "published"
    assert [p.post_id for p in world.bot_posts(topic)] == [post_id]
    assert world.tasks()[0]["status"] == "done"
    assert world.storage is not None
    actions = [e["action"] for e in world.storage.audit_entries("declaration:")]
    assert "declaration.refused" in actions and "declaration.unlocked" in actions


def test_a_referee_approval_retries_a_refused_declaration(world: World) -> None:
    from forumbot.duels.overrides import set_status

    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.start_bot()
    world.poll()
    world.board.lock_topic(topic)
    world.publish()
    assert world.decl()["status"] == "held"
    world.board.lock_topic(topic, locked=False)
    assert world.storage is not None
    set_status(world.storage, world.decl()["id"], "approved", "arbitre", world.clock.utc())
    (post_id,) = world.publish()  # no wait for the probe: the referee acted
    assert world.decl()["published_post_id"] == post_id


# ---------------------------------------------------------------------------- restore


def test_restoring_a_backup_taken_before_a_publish_publishes_nothing_twice(
    world: World, tmp_path: Path
) -> None:
    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.start_bot()
    saved = backup(world.db_path, tmp_path / "backups", world.clock.utc())
    world.poll()  # adopted after the backup: the opening is drafted, then published
    (first,) = world.publish()
    assert world.storage is not None
    world.storage.close()
    world.storage = None
    restore(saved, world.db_path, now=world.clock.utc())
    world.start_bot()  # the restored database knows nothing of the duel
    world.clock.advance(timedelta(minutes=5))
    world.poll()  # adopted again: the opening drafted again, after this start
    world.seen.clear()
    assert world.publish() == [first]  # found in the posts just read: not posted
    assert not [r for r in world.seen if r.startswith("POST")]
    row = world.decl()
    assert row["status"] == "published" and row["published_post_id"] == first
    assert [p.post_id for p in world.bot_posts(topic)] == [first]
    assert world.tasks() == []  # the same opening: nothing to tell


def test_a_restored_draft_published_meanwhile_is_found_not_posted(
    world: World, tmp_path: Path
) -> None:
    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.start_bot()
    world.poll()  # the opening drafted, then the backup, then its publication
    saved = backup(world.db_path, tmp_path / "backups", world.clock.utc())
    (first,) = world.publish()
    assert world.storage is not None
    world.storage.close()
    world.storage = None
    restore(saved, world.db_path, now=world.clock.utc())
    world.start_bot()
    assert world.publish() == [first]  # found by its marker, not posted
    assert [p.post_id for p in world.bot_posts(topic)] == [first]


# ---------------------------------------------------------------------------- own post


def test_after_its_own_post_the_bot_does_not_read_the_topic_again(world: World) -> None:
    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.start_bot()
    world.poll()
    (opening,) = world.publish()
    world.seen.clear()
    world.poll()  # the listing shows the bot's post as the last one: nothing else to read
    reads = [r for r in world.seen if "viewtopic" in r or f"/t{topic}" in r]
    assert reads == [] and world.seen  # the listing was read, the topic was not
    assert world.storage is not None
    assert world.storage.duel_by_topic(1, topic)["last_post_id"] == opening  # type: ignore[index]
    world.board.post_reply(topic, "Arbitre", "Une remarque.")
    world.seen.clear()
    world.poll()  # somebody else posted: read again
    assert [r for r in world.seen if "viewtopic" in r or f"/t{topic}" in r]


def test_the_phpbb_sandbox_shows_a_locked_topic_as_phpbb_does(tmp_path: Path) -> None:
    clock = SandboxClock(START)
    board = SandboxBoard(clock=clock, flood_interval_s=0, state_path=None)
    board.add_user("Hibou", "pw-h", ignore_flood=True)
    board.add_user("Arbitre", "pw-r")
    board.start()
    try:
        topic = board.create_topic(3, "Arbitre", "Duel 1", OPENING)
        client = PhpbbClient(board.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
        client.login()
        assert client.probe_reply(topic) is None
        board.lock_topic(topic)
        page = client._read(f"viewtopic.php?t={topic}")
        assert 'class="icon fa-lock fa-fw"' in page and "<span>Verrouillé</span>" in page
        assert "qr_postform" not in page  # no quick reply in a locked topic
        assert client.probe_reply(topic) == (
            "Ce sujet est verrouillé, vous ne pouvez pas modifier de messages ou poster de réponse."
        )  # the phpBB-fr sentence of a real 3.3.15 board (shared/LAB.md)
        board.lock_topic(topic, locked=False)
        board.lock_forum(3)
        assert client.probe_reply(topic) == "Forum verrouillé"
    finally:
        board.stop()


def test_a_restore_from_before_the_adoption_with_new_dice_is_told_not_posted(
    world: World, tmp_path: Path
) -> None:
    if world.platform != "phpbb3":
        pytest.skip("Forumactif duels roll the forum's dice: no seed of the bot's to lose")
    topic = world.board.create_topic(3, "Arbitre", "Duel 1", OPENING)
    world.start_bot()
    saved = backup(world.db_path, tmp_path / "backups", world.clock.utc())
    world.poll()
    (first,) = world.publish()  # the opening, with the digest of the first seed
    assert world.storage is not None
    world.storage.close()
    world.storage = None
    restore(saved, world.db_path, now=world.clock.utc())
    world.start_bot(seed=99)  # adopted again: another dice seed, another digest
    world.poll()
    assert world.publish() == [first]  # never posted twice
    assert [p.post_id for p in world.bot_posts(topic)] == [first]
    (task,) = world.tasks()
    assert task["kind"] == "publish_mismatch" and str(first) in task["text"]
