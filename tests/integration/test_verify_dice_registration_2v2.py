"""Issue 23: ``verify-dice`` on a 2v2 topic opened by the sign-up desk checks the four starting
placements, as docs/duo-running.md says, on both platforms. Such a topic's first post (the
desk's, ``signup_duo_topic.bbcode.j2``) already carries the commitment; the placement is in the
opening declaration after it, which verify-dice used to skip on phpBB (the commitment was found
in the first post, and only that post's zone lines were read)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from forumbot.app import bootstrap
from forumbot.config import Config, Registration, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board
from forumbot.duels.concession import concede_duel
from forumbot.duels.verify import format_report, verify_pages
from forumbot.fetch import fetch_topic_pages
from forumbot.storage import open_storage
from tests.fakes.clock import SandboxClock

A1, A2, B1, B2 = "Nerys Vale", "Ysolde Marr", "Odric Fenwick", "Maelis Dunbar"
THREAD_FORUM = 4


@pytest.mark.parametrize("platform", ["phpbb3", "forumactif"])
def test_verify_dice_checks_the_placements_of_a_registration_opened_2v2(
    platform: str, tmp_path: Path
) -> None:
    clock = SandboxClock()
    board = (
        make_demo_board(platform, dice=(("Pari", 6),), seed=5, flood_interval_s=1, clock=clock)
        if platform == "forumactif"
        else make_demo_board(clock=clock)
    )
    for name in (A1, A2, B1, B2):
        board.add_user(name, "pw-duellist")
    base_url = board.start()
    try:
        thread = board.create_topic(THREAD_FORUM, "Arbitre", "Inscriptions 2v2", "Vos fiches.")
        config = Config(
            board_url=base_url, platform=platform, username=BOT, ruleset="classic",
            dice_name="Pari", review_delay_s=0, database=str(tmp_path / "bot.db"),
            flood_interval_s=1, watch=(WatchedForum(DUEL_FORUM),),
            registrations=(Registration(thread, DUEL_FORUM, 0, "2v2", "fatigue", 1, "serre"),),
        )  # fmt: skip
        bot = bootstrap(
            config, password=BOT_PASSWORD, rng=random.Random(4),
            storage=open_storage(config.database), now=clock.utc, sleep=clock.sleep, clock=clock,
        )  # fmt: skip
        for me in (A1, A2, B1, B2):  # lone sign-ups pair up (no member look-up needed)
            clock.sleep(60)
            board.post_reply(thread, me, f"Nom : {me}\nAnnée : 4e année\nType de magie : brutale")
        for _ in range(3):
            bot.poll()
            bot.publish()
        (match,) = bot.storage.db["duo_matches"].rows_where()
        duel = bot.storage.duel(match["duel_id"])
        assert duel["status"] in ("open", "running")
        url = f"{base_url}/viewtopic.php?t={duel['topic_id']}"
        if platform == "forumactif":
            url = f"{base_url}/t{duel['topic_id']}-duel"
        running = verify_pages(fetch_topic_pages(url))
        assert running.pending >= 4  # the placements wait for the seed

        concede_duel(bot.storage, duel["id"], B1, "Arbitre", clock.utc())
        for _ in range(2):
            bot.poll()
            bot.publish()
        assert bot.storage.duel(duel["id"])["status"] == "finished"
        report = verify_pages(fetch_topic_pages(url))
        placements = [c for c in report.checks if c.turn == 0 and not c.label]
        assert len(placements) == 4, format_report(report)
        assert report.ok and report.seed_matches, report.problems
        assert "tout est conforme" in format_report(report)[-1]
        bot.close()
    finally:
        board.stop()
