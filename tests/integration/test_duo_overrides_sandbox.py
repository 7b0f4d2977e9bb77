"""A referee sets computed numbers on a 2v2 draft (issue 5) on the phpBB sandbox, refereed by
the real bot (PhpbbClient over HTTP): the draft's text and stored outcome follow, the change is
audited, and once published through the normal path the duel's state carries it.

Same duel as tests/integration/test_duo_duel.py (environment "serre"; A1, A2 in zone 1, B1 in
zone 2 with the strangulot, B2 in zone 3)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.app import bootstrap
from forumbot.config import Config, WatchedForum
from forumbot.demo.classic import BOT, BOT_PASSWORD, DUEL_FORUM, make_demo_board
from forumbot.duels.duo import open_duo_duel
from forumbot.duels.overrides import OverrideError, set_numbers
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.fakes.clock import SandboxClock
from tests.integration.test_duo_duel import A1, A2, B1, B2, PASSWORD, Duo2v2, secret_for


@pytest.fixture
def duel(tmp_path: Path) -> Iterator[Duo2v2]:
    clock = SandboxClock()  # board and bot share it: form ages cost no real time
    board = make_demo_board(clock=clock)
    for name in (A1, A2, B1, B2):
        if name not in {u.name for u in board._users.values()}:
            board.add_user(name, PASSWORD)
    base_url = board.start()
    try:
        config = Config(
            board_url=base_url, platform="phpbb3", username=BOT, ruleset="classic",
            review_delay_s=0, database=str(tmp_path / "bot.db"), flood_interval_s=1,
            watch=(WatchedForum(DUEL_FORUM),),
        )  # fmt: skip
        bot = bootstrap(
            config, password=BOT_PASSWORD, rng=random.Random(4),
            storage=open_storage(config.database), now=clock.utc,
            sleep=clock.sleep, clock=clock,
        )  # fmt: skip
        title = "Duel à deux contre deux : Aurora et Blaise contre Cassius et Dorian"
        topic_id = board.create_topic(DUEL_FORUM, "Arbitre", title, "La serre vous attend.")
        duel_id = open_duo_duel(
            bot.referee, DUEL_FORUM, topic_id, title,
            [[(A1, "adult", ["sournoise"]), (A2, "adult", ["protectrice"])],
             [(B1, "1", ["sournoise"]), (B2, "1", ["protectrice"])]],
            "serre", dice_secret=secret_for(topic_id),
        )  # fmt: skip
        d = Duo2v2(board, bot, config, topic_id, duel_id, "phpbb3", clock)
        yield d
        d.bot.close()
    finally:
        board.stop()


def test_set_numbers_on_a_2v2_draft_text_follows_and_the_published_state_carries_it(
    duel: Duo2v2,
) -> None:
    storage = duel.bot.storage
    assert len(duel.cycle()) == 1  # the opening
    duel.play(A1, "Rictusempra", "le décor", "zone 2")
    duel.post(B1, "Flipendo", "le strangulot")
    duel.bot.poll()
    draft = storage.declarations(("draft",), duel.duel_id)[-1]
    assert "Le strangulot du bassin : 40 PV" not in plain(draft["text"])  # B1's hit counted
    now = datetime.now(UTC)

    with pytest.raises(OverrideError, match="unknown override key"):
        set_numbers(storage, draft["id"], {f"{B1}.chance": 3}, "Maelis", now)
    set_numbers(storage, draft["id"], {"strangulot.points": 7, f"{B1}.points": 77}, "Maelis", now)

    row = storage.declaration(draft["id"])
    assert row["version"] == draft["version"] + 1
    # a creature's PV set by the referee is stated as a decision, named as players read it,
    # never as a sum the dice did not make (« 40 − 33 = 7 PV »)
    assert "Le strangulot du bassin : 7 PV (décision de l'arbitre)" in plain(row["text"])
    assert "Le strangulot du bassin, points après le tour : 7 PV" in plain(row["text"])
    assert "40 - 33" not in plain(row["text"]) and "40 − 33" not in plain(row["text"])
    assert f"{B1} : 77 PV" in plain(row["text"])
    stored = json.loads(row["context_json"])
    points = {d["name"]: d["points"] for d in stored["outcome"]["state"]["duellists"]}
    assert points[B1] == 77
    overridden = [t for t in stored["outcome"]["trail"] if t["rule"] == "referee.override"]
    assert [(t["quantity"], t["value"]) for t in overridden] == [
        (f"{B1}.points", 77),
        ("strangulot.points", 7),
    ]
    assert json.loads(row["overrides_json"]) == {"strangulot.points": 7, f"{B1}.points": 77}
    audit = storage.audit_entries(f"declaration:{draft['id']}")
    assert audit[-1]["action"] == "draft.set_numbers" and audit[-1]["actor"] == "Maelis"

    assert len(duel.bot.publish()) == 1  # the normal publication path
    assert storage.declaration(draft["id"])["status"] == "published"
    published = duel.bot_texts()[-1]
    assert "Le strangulot du bassin : 7 PV" in plain(published) and f"{B1} : 77 PV" in plain(
        published
    )
    state = duel.state()
    assert state.duel.duellist(B1).points == 77
    assert dict(state.creatures)["strangulot"] == 7
    saved = json.loads(storage.duel(duel.duel_id)["state_json"])
    assert {d["name"]: d["points"] for d in saved["duellists"]}[B1] == 77

    # the next post is judged from the overridden state
    duel.play(A2, "Flipendo", "le décor", "zone 2")
    assert f"{B1} : 77 PV" in plain(duel.bot_texts())[-1]
