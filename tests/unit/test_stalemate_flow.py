"""Self-heals forever (issue 17): after ``club.stalemate_turns`` turns with no PV lost, the bot
opens one referee task proposing a close, and never closes the duel itself.

RULES.md leaves a duel nobody loses PV in to the referee ("The referee can edit the text,
change any computed number, add or waive a violation, hold, or publish now."); issue 17:
"after N turns with no PV lost (a setting), the bot drafts a referee task proposing a close.
Never invent a rule."
"""

from __future__ import annotations

import json

from forumbot.config import Config
from forumbot.config.schema import default_of
from forumbot.duels.duo import referee_tasks
from forumbot.duels.publication import published_hook
from forumbot.duels.stalemate import closes_turn
from forumbot.publish import poster
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from tests.fakes.forum import FakeForum
from tests.unit.test_duo_deadlines import A1, A2, B1, B2, BODY, Clock, setup
from tests.unit.test_fatigue_flow import A, C
from tests.unit.test_fatigue_flow import Duel as FatigueDuel
from tests.unit.test_fatigue_flow import make as make_fatigue


def stalemate_tasks(storage: Storage) -> list[dict[str, object]]:
    return [t for t in referee_tasks(storage, 1, status=None) if t["kind"] == "stalemate"]


def cycle(duel: FatigueDuel, quiet_turns: int) -> list[int]:
    duel.ref.poll_forum(3)
    return poster.publish_due(
        duel.storage, duel.forum, duel.clock, on_published=published_hook(quiet_turns)
    )


def dodged_turn(duel: FatigueDuel, caster: str, spell: str, quiet_turns: int) -> None:
    """One fatigue turn: ``caster`` casts ``spell`` (bet lost), the other dodges (bet won)."""
    other = C if caster == A else A
    duel.post(caster, "cast", spell, win=False)
    assert len(cycle(duel, quiet_turns)) == 1
    duel.post(other, "dodge", None, win=True)
    assert len(cycle(duel, quiet_turns)) == 1
    duel.turn += 1


def test_the_setting_is_club_stalemate_turns_default_8() -> None:
    assert default_of("club", "stalemate_turns") == 8
    assert Config("http://b.invalid", "phpbb3", "Hibou").stalemate_turns == 8


def test_fatigue_1v1_three_dodged_turns_open_exactly_one_task() -> None:
    duel = make_fatigue()
    dodged_turn(duel, A, "Flipendo", 3)
    dodged_turn(duel, C, "Rictusempra", 3)
    assert stalemate_tasks(duel.storage) == []  # two quiet turns: not yet
    dodged_turn(duel, A, "Expelliarmus", 3)
    assert duel.points() == (300, 400)
    (task,) = stalemate_tasks(duel.storage)
    assert task["status"] == "open" and task["duel_id"] == duel.storage.duels()[0]["id"]
    assert "Aucun PV perdu depuis 3 tours" in str(task["text"])
    assert "clore le duel sans vainqueur ?" in plain(str(task["text"]))
    assert f"{A} 300, {C} 400" in str(task["text"])
    dodged_turn(duel, C, "Flipendo", 3)  # still quiet, the task still open: no second one
    assert len(stalemate_tasks(duel.storage)) == 1
    assert duel.storage.duels()[0]["status"] == "running"  # the bot closes nothing


def test_fatigue_1v1_no_task_when_pv_move() -> None:
    duel = make_fatigue()
    dodged_turn(duel, A, "Flipendo", 3)
    duel.post(C, "cast", "Rictusempra", win=True)  # lands: Aurora loses PV in turn 2
    cycle(duel, 3)
    duel.post(A, "dodge", None, win=False)
    cycle(duel, 3)
    duel.turn += 1
    assert duel.points()[0] < 300
    dodged_turn(duel, A, "Expelliarmus", 3)
    assert stalemate_tasks(duel.storage) == []  # one quiet turn since the loss
    dodged_turn(duel, C, "Flipendo", 3)
    assert stalemate_tasks(duel.storage) == []  # two
    dodged_turn(duel, A, "Incendio", 3)
    assert len(stalemate_tasks(duel.storage)) == 1  # three quiet turns since the loss


def test_zero_turns_is_off() -> None:
    duel = make_fatigue()
    for caster, spell in ((A, "Flipendo"), (C, "Rictusempra"), (A, "Expelliarmus")):
        dodged_turn(duel, caster, spell, 0)
    assert stalemate_tasks(duel.storage) == []


MOVES = ({A1: "zone 4", B1: "zone 2"}, {A1: "zone 1", B1: "zone 3"})
"""Each duo moves once a turn (RULES.md 2v2: a duo that does not move is charged), joining its
teammate and coming back."""


def scenery_turn(storage: Storage, forum: FakeForum, ref: object, duel_id: int,
                 clock: Clock, quiet_turns: int, turn: int) -> None:  # fmt: skip
    """One 2v2 turn: the four cast at the scenery, one of each duo moves; nobody loses PV."""
    for who in (A1, A2, B1, B2):
        move = MOVES[turn % 2].get(who)
        forum.add_post(7, who, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort"
                       "\nPari : [3,4,5,6]\nCible : le décor"
                       + (f"\nDéplacement : {move}" if move else ""))  # fmt: skip
        ref.poll_duel(duel_id)  # type: ignore[attr-defined]
        poster.publish_due(storage, forum, clock, on_published=published_hook(quiet_turns))


def test_duo_2v2_scripted_stalemate_opens_exactly_one_task() -> None:
    storage, forum, clock = open_storage(":memory:"), FakeForum(), Clock()
    ref, duel_id = setup(storage, forum, clock)
    poster.publish_due(storage, forum, clock, on_published=published_hook(2))  # the opening
    scenery_turn(storage, forum, ref, duel_id, clock, 2, 1)
    closing = [d for d in storage.declarations(("published",), duel_id) if closes_turn(d)]
    assert len(closing) == 1  # the fourth post closed turn 1
    assert stalemate_tasks(storage) == []
    scenery_turn(storage, forum, ref, duel_id, clock, 2, 2)
    (task,) = stalemate_tasks(storage)
    assert task["duel_id"] == duel_id
    assert "Aucun PV perdu depuis 2 tours" in str(task["text"])
    scenery_turn(storage, forum, ref, duel_id, clock, 2, 3)
    assert len(stalemate_tasks(storage)) == 1
    state = json.loads(storage.duel(duel_id)["state_json"])
    assert not state.get("finished") and storage.duel(duel_id)["status"] == "running"


def test_a_closed_task_is_proposed_again_after_n_more_quiet_turns() -> None:
    duel = make_fatigue()
    spells = ["Flipendo", "Rictusempra", "Expelliarmus", "Incendio"]
    for i, spell in enumerate(spells[:2]):
        dodged_turn(duel, A if i % 2 == 0 else C, spell, 2)
    (task,) = stalemate_tasks(duel.storage)
    duel.storage.db["referee_tasks"].update(task["id"], {"status": "done"})
    dodged_turn(duel, A, "Expelliarmus", 2)  # run of 3: the block of 2 was proposed already
    assert [t["status"] for t in stalemate_tasks(duel.storage)] == ["done"]
    dodged_turn(duel, C, "Incendio", 2)  # run of 4: a second block
    assert [t["status"] for t in stalemate_tasks(duel.storage)] == ["done", "open"]
