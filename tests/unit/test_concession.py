"""``forumbot duels concede`` in 2v2 (issue 13; RULES.md is silent on one member conceding:
setting ``member_concession`` [D] ``duo_loses``) and the club's hooks run once on a classic
concession. The CLI path on the sandbox is in tests/integration/test_cli_duels.py, the fatigue
1v1 one (rewards, leaderboard post) in tests/integration/test_signup_to_purse.py."""

from __future__ import annotations

import json

import pytest

from forumbot.club.context import DeskContext
from forumbot.club.duo_settling import settle_duo
from forumbot.duels.concession import concede_duel
from forumbot.duels.duo import current_state
from forumbot.duels.ending import EndingError
from forumbot.duels.publication import publish_due
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.unit.test_duo_flow import A1, BODY, NOW, InboxForum, setup
from tests.unit.test_referee_flow import make, turn_post


def test_a_2v2_member_conceding_makes_their_duo_lose_and_the_winners_are_rewarded_once() -> None:
    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    before = current_state(storage, storage.duel(duel_id))
    team = next(duo for duo in before.duos if A1 in duo)
    other = next(duo for duo in before.duos if A1 not in duo)
    done = concede_duel(storage, duel_id, A1.lower(), "Maelis", NOW)
    assert set(done.winners) == set(other)
    # a post that comes in meanwhile is not declared: the concession is the last word
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]")
    ref.poll_duel(duel_id)
    assert [d["kind"] for d in storage.declarations(("draft", "approved"), duel_id)] == ["closure"]
    publish_due(storage, forum, lambda: NOW)
    text = forum.posts[7][-1].text
    mate = next(n for n in team if n != A1)
    assert f"{A1} abandonne : son duo, avec {mate}, perd le duel." in plain(text)
    winners = " et ".join(done.winners)
    assert f"Fin du duel. {winners} remportent le duel !" in plain(text)
    duel = storage.duel(duel_id)
    assert duel["status"] == "finished"
    after = current_state(storage, duel)
    assert set(after.winners) == set(other) and set(after.losers) == set(team)
    ctx = DeskContext(storage, forum, ref, lambda: NOW, "Hibou")
    # opened by hand, the duel gives no end-of-duel reward (as in 1v1: only the sign-up desk's
    # duels count on the leaderboard); the desk's match row makes it count
    assert settle_duo(ctx, duel) == 0
    storage.db["duo_matches"].insert({"board_id": duel["board_id"], "duel_id": duel_id,
                                      "status": "running", "duos_json": "[]"})  # fmt: skip
    given = settle_duo(ctx, duel)
    assert given > 0 and settle_duo(ctx, duel) == 0  # once
    rewards = {(r["character"], r["reward"]) for r in storage.db["rewards"].rows}
    assert {(n, "leaderboard_point") for n in other} <= rewards
    assert {(n, "chocolate_frog") for n in team} <= rewards
    points = {r["character"]: r["points"] for r in storage.db["leaderboard"].rows}
    assert all(points[n] == 1 for n in other)


def test_a_classic_concession_runs_the_clubs_hooks_once() -> None:
    forum, referee, clock = make(review_delay_s=0)
    referee.poll_forum(3)
    publish_due(referee.storage, forum, clock)
    finished: list[tuple[int, dict[str, object]]] = []
    referee.on_finished.append(lambda duel_id, outcome: finished.append((duel_id, outcome)))
    duel_id = int(referee.storage.duels()[0]["id"])
    turn_post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(3)  # a turn draft is pending: the concession cancels it
    [pending] = referee.storage.declarations(("draft",), duel_id)
    done = concede_duel(referee.storage, duel_id, "Aurora Vexley", "Maelis", clock())
    assert done.drafts == (pending["id"],)
    assert referee.storage.declaration(pending["id"])["status"] == "cancelled"
    with pytest.raises(EndingError, match="already waits"):
        concede_duel(referee.storage, duel_id, "Cassius Thorne", "Maelis", clock())
    publish_due(referee.storage, forum, clock)
    referee.poll_forum(3)
    referee.poll_forum(3)
    assert [(i, o["winner"], o["loser"]) for i, o in finished] == [
        (duel_id, "Cassius Thorne", "Aurora Vexley")
    ]
    assert json.loads(referee.storage.duel(duel_id)["state_json"])["winner"] == "Cassius Thorne"
    assert not referee.storage.db["turns"].count  # a concession is no turn


def test_a_dropped_concession_closure_leaves_a_referee_task_not_a_frozen_duel() -> None:
    """Season soak, seed 5: a referee dropped the closure of a concession; the duel stayed
    running with no deadline, draft or task, frozen for ever. Now a referee task says it waits."""
    from forumbot.duels.ending import drop_draft

    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    concede_duel(storage, duel_id, A1.lower(), "Maelis", NOW)
    [closure] = storage.declarations(("draft", "approved"), duel_id)
    assert closure["kind"] == "closure"
    drop_draft(storage, closure["id"], "doublon", "Maelis", NOW)
    assert storage.duel(duel_id)["status"] == "running"
    [task] = storage.db["referee_tasks"].rows_where("kind = 'turn_dropped' and status = 'open'")
    assert task["duel_id"] == duel_id
    assert "drafts redraft" not in task["text"] and "duels cancel" in task["text"]
