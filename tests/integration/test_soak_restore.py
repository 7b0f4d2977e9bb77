"""A restore of the nightly backup in the season soak's world (issue 23, bench/soak/): the
sandbox board on the fake clock, the real bot in-process. What happened on the board between
the backup and the restore must not happen twice, and what the board shows must not be lost:

- a concession published after the backup: the restored duel is ``running`` again; its next
  poll reads the concession post again and the duel ends as it did (leaderboard equal);
- a notice sent after the backup (Apprise and owl): not delivered a second time after the
  restore (the notice journal beside the database, which the restore does not roll back).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.test_season_soak import load_soak

load_soak()  # bench/ on sys.path

from soak import checks  # noqa: E402
from soak.world import REFEREE, World, make_world  # noqa: E402

from forumbot.demo.season import _fatigue, duel_text, next_post  # noqa: E402
from forumbot.duels.concession import concede_duel  # noqa: E402
from rules.model import DuelState  # noqa: E402

PLAYERS = ["Nerys Thorne", "Ysolde Corvin"]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    w = make_world(5, tmp_path, PLAYERS)
    try:
        yield w
    finally:
        w.close()


def cycles(world: World, n: int, step_s: float = 600.0) -> None:
    for _ in range(n):
        assert world.bot is not None
        world.bot.poll()
        world.bot.publish()
        world.bot.wired_notify().run()
        world.clock.sleep(step_s)


def running_duel(world: World) -> dict[str, object]:
    world.board.post_reply(world.thread, PLAYERS[0], "Nom : Nerys Thorne\nAnnée : 4\n"
                           "Type : brutale\nAdversaire : Ysolde Corvin (5e année, discrète)")
    for _ in range(12):
        cycles(world, 1)
        assert world.bot is not None
        running = world.bot.storage.duels("running")
        if running:
            return running[0]
    raise AssertionError("the duel did not open")


def test_a_concession_after_the_backup_is_read_again_after_the_restore(world: World) -> None:
    duel = running_duel(world)
    cycles(world, 3)
    world.nightly_backup()
    assert world.bot is not None
    concede_duel(world.bot.storage, int(duel["id"]), PLAYERS[0], REFEREE, world.clock.utc())
    cycles(world, 3)
    assert world.bot.storage.duel(int(duel["id"]))["status"] == "finished"
    assert world.restore_last_backup()
    assert world.bot.storage.duel(int(duel["id"]))["status"] == "running"  # forgotten
    cycles(world, 4)
    after = world.bot.storage.duel(int(duel["id"]))
    assert after["status"] == "finished"
    assert json.loads(after["state_json"])["winner"] == PLAYERS[1]
    assert checks.leaderboard(world) == []
    assert checks.exactly_once(world) == []  # the concession is on the board once
    audit = world.bot.storage.db["audit_log"].rows_where("action = 'duel.concede'")
    assert [a["actor"] for a in audit] == ["forumbot (restore)"]


def play_one_post(world: World, duel_id: int) -> None:
    """The duellist whose turn it is posts (the season demo's legal post)."""
    assert world.bot is not None
    duel = world.bot.storage.duel(duel_id)
    state = DuelState.from_dict(json.loads(duel["state_json"]))
    rng = random.Random(3)
    post = next_post(_fatigue(), state, rng)
    them = next(d.name for d in state.duellists if d.name != post.duellist)
    world.board.post_reply(int(duel["topic_id"]), post.duellist, duel_text(rng, post, them))


def test_a_notice_sent_after_the_backup_is_not_sent_again(world: World) -> None:
    duel = running_duel(world)
    cycles(world, 3)  # the opening is out, its notices are sent
    world.nightly_backup()
    before = dict(world.deliveries)
    play_one_post(world, int(duel["id"]))
    cycles(world, 2, step_s=60)  # the turn's draft: its notices go out now
    fresh = {k for k in world.deliveries if k not in before}
    assert fresh, "no notice went out after the backup"
    assert world.restore_last_backup()
    cycles(world, 4, step_s=60)  # the post is read again, the same draft and notices queued
    assert checks.notices_delivered_once(world) == []
    assert all(world.deliveries[k] == 1 for k in fresh)
    assert world.bot is not None
    settled = [r["last_error"] for r in world.bot.storage.db["notices"].rows_where(
        "status = 'sent' and last_error like '%notice journal%'")]  # fmt: skip
    assert len(settled) == len(fresh), settled
    journal = world.database.with_name("bot.notices.journal")
    assert journal.stat().st_mode & 0o777 == 0o600


def test_without_a_restore_the_journal_is_only_written(world: World) -> None:
    """In normal running the journal is never read: a restart sends what is pending."""
    running_duel(world)
    cycles(world, 3)
    assert world.bot is not None
    from forumbot.notify.journal import NoticeJournal

    journal = NoticeJournal.for_database(str(world.database))
    assert journal.forgotten(world.bot.storage) == {}
    lines = journal.path.read_text(encoding="utf-8").splitlines() if journal.path else []
    states = [json.loads(line)["state"] for line in lines]
    assert states.count("sent") == len(world.deliveries) and "sending" in states


def test_a_duel_topic_opened_after_the_backup_is_not_opened_again(world: World) -> None:
    """The soak's seed 1 (40 players, 3 weeks): a pairing opened after the nightly backup was
    opened a second time after the restore (its queue row back at attempts 0): two topics, two
    magic-type owls each. In the restore's check window the desk looks for the topic first."""
    world.nightly_backup()  # before the sign-up: the restored desk reads it again
    duel = running_duel(world)
    assert world.restore_last_backup()
    cycles(world, 6)
    assert world.bot is not None
    topics = [t for t in world.board.topics(3)]
    assert [t.topic_id for t in topics] == [duel["topic_id"]]
    assert checks.exactly_once(world) == [] and checks.owls_per_duel(world) == []
    assert checks.no_post_lost(world) == []
