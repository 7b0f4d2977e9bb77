"""Nothing a referee does freezes a duel, in fatigue and 2v2 duels too (issue 22): a dropped
step draft is drafted again at the next poll (same key, same die) or waits with a referee
task; a fatigue step is corrected by an erratum; a 2v2 duel's numbers are refused with the
reason. The flows' own fakes (tests/unit/test_fatigue_flow.py, test_duo_flow.py)."""

from __future__ import annotations

import json

import pytest

from forumbot.duels.ending import cancel_duel, drop_draft
from forumbot.duels.erratum import ErratumError, draft_erratum
from forumbot.duels.publication import publish_due
from forumbot.duels.redraft import request_redraft
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.unit.test_duo_flow import A1, BODY, NOW, InboxForum
from tests.unit.test_duo_flow import setup as duo_setup
from tests.unit.test_fatigue_flow import A, C, make


def _turn_draft(storage, duel_id=None):  # type: ignore[no-untyped-def]
    [draft] = [d for d in storage.declarations(("draft",), duel_id) if d["kind"] == "turn"]
    return draft


def test_a_dropped_fatigue_step_is_drafted_again_with_the_same_die() -> None:
    duel = make()
    duel.ref.review_delay_s = 600
    duel.post(A, "cast", "Flipendo", win=True)
    duel.ref.poll_forum(3)
    draft = _turn_draft(duel.storage)
    dice = json.loads(draft["context_json"])["inputs"]["dice"]
    drop_draft(duel.storage, draft["id"], "doublon", "Maelis", duel.clock())
    assert duel.storage.declaration(draft["id"])["status"] == "redraft"
    duel.ref.poll_forum(3)  # no new post: drafted again all the same
    again = duel.storage.declaration(draft["id"])
    assert again["status"] == "draft" and again["idempotency_key"] == draft["idempotency_key"]
    assert json.loads(again["context_json"])["inputs"]["dice"] == dice
    # --no-redraft: the duel waits, with a referee task, until a redraft
    drop_draft(duel.storage, draft["id"], "doublon", "Maelis", duel.clock(), redraft=False)
    duel.ref.poll_forum(3)
    assert duel.storage.declaration(draft["id"])["status"] == "cancelled"
    [task] = list(duel.storage.db["referee_tasks"].rows_where("kind = 'turn_dropped'"))
    assert task["status"] == "open"
    request_redraft(duel.storage, draft["id"], "Maelis", duel.clock())
    duel.ref.poll_forum(3)
    assert duel.storage.declaration(draft["id"])["status"] == "draft"
    assert duel.storage.db["referee_tasks"].get(task["id"])["status"] == "done"


def test_cancelling_a_duel_that_waits_on_a_dropped_turn_closes_its_task() -> None:
    """A cancelled duel waits for nothing: its ``turn_dropped`` task is closed with it, so the
    referee's task list does not keep a question about a duel that is over."""
    duel = make()
    duel.ref.review_delay_s = 600
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    draft = _turn_draft(duel.storage)
    drop_draft(duel.storage, draft["id"], "doublon", "Maelis", duel.clock(), redraft=False)
    duel.ref.poll_forum(3)
    [task] = list(duel.storage.db["referee_tasks"].rows_where("kind = 'turn_dropped'"))
    assert task["status"] == "open"
    cancel_duel(duel.storage, int(draft["duel_id"]), "abandon", "Maelis", duel.clock())
    closed = duel.storage.db["referee_tasks"].get(task["id"])
    assert (closed["status"], closed["note"]) == ("done", "duel cancelled")


def test_a_fatigue_step_is_corrected_by_an_erratum_and_the_state_follows() -> None:
    duel = make()
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    duel.post(C, "dodge", None, win=False)
    duel.cycle()  # turn 1 closed: both steps published
    turn = int(duel.state()["turn"])
    points = duel.points()
    result = draft_erratum(
        duel.storage, duel.storage.duels()[0]["id"], turn, {f"{C}.points": points[1] - 7},
        None, "Maelis", duel.clock(),
    )  # fmt: skip
    assert {"name": C, "old": points[1], "new": points[1] - 7} in result.points
    publish_due(duel.storage, duel.forum, duel.clock)
    assert duel.points() == (points[0], points[1] - 7)
    text = duel.last_bot_text()
    assert "Erratum : déclaration du tour 1" in plain(text)
    assert f"- {C} : {points[1]} PV → {points[1] - 7} PV" in plain(text)


def test_a_dropped_2v2_draft_is_drafted_again_and_its_numbers_are_refused_by_an_erratum() -> None:
    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = duo_setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]")
    ref.poll_duel(duel_id)
    draft = _turn_draft(storage, duel_id)
    drop_draft(storage, draft["id"], "doublon", "Maelis", NOW)
    ref.poll_duel(duel_id)
    again = storage.declaration(draft["id"])
    assert again["status"] == "draft" and again["context_json"] == draft["context_json"]
    publish_due(storage, forum, lambda: NOW)
    assert storage.declaration(draft["id"])["status"] == "published"
    with pytest.raises(ErratumError, match="2v2 duel's numbers cannot be corrected"):
        draft_erratum(storage, duel_id, int(draft["turn"]), {f"{A1}.points": 1}, None, "M", NOW)
    note = draft_erratum(storage, duel_id, int(draft["turn"]), {}, "Précision.", "M", NOW)
    assert storage.declaration(note.declaration)["kind"] == "erratum"


def test_a_dropped_relaunch_of_a_deadline_never_freezes_the_duel() -> None:
    """The season soak's seed 15 (issue 23): a referee dropped the turn draft that a fired
    36 h deadline wrote (``turn1-relaunch``); no post calls for it again and the deadline does
    not fire twice, so « drafted again at the next poll » left the duel frozen. Dropping it
    arms the deadline again: its next sweep drafts it again, same key."""
    duel = make()
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()  # the initiative published: the 36 h for the defence run
    duel.ref.review_delay_s = 600  # the relaunch waits as a draft
    duel.clock.advance(37 * 3600)
    duel.ref.poll_forum(3)  # the deadline fires: the relaunch draft
    [draft] = [d for d in duel.storage.declarations(("draft",)) if d["kind"] == "turn"]
    assert draft["idempotency_key"].endswith("turn1-relaunch")
    drop_draft(duel.storage, draft["id"], "erreur", "Maelis", duel.clock())
    assert duel.storage.declaration(draft["id"])["status"] == "redraft"
    duel.ref.poll_forum(3)
    again = duel.storage.declaration(draft["id"])
    assert again["status"] == "draft" and again["idempotency_key"] == draft["idempotency_key"]
    keys = [d["idempotency_key"] for d in duel.storage.declarations()]
    assert sum(k.endswith("turn1-relaunch") for k in keys) == 1
    assert len(list(duel.storage.db["deadlines"].rows_where("status = 'fired'"))) == 1
    duel.clock.advance(601)
    assert len(duel.cycle()) == 1  # published: the duel goes on
    assert "résolu sans défense" in duel.last_bot_text()
