"""Stable violation ids (issue 13): an undecided violation keeps its row, and its id, across
polls and recomputations, so an admin deciding after the next poll finds it."""

from __future__ import annotations

from datetime import UTC, datetime

from forumbot.duels.overrides import set_numbers, set_status
from forumbot.duels.publication import publish_due
from forumbot.duels.violations import upsert_violations
from forumbot.storage import open_storage
from forumbot.web.judging import decide_violation
from tests.unit.test_referee_flow import make, turn_post

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _violation(rule: str, post_id: int, evidence: str = "x") -> dict[str, object]:
    return {
        "duellist": "Aurora Vexley", "rule": rule, "post_id": post_id, "evidence": evidence,
        "penalty": 0, "status": "proposed",
    }  # fmt: skip


def test_an_unlisted_spell_keeps_its_id_across_polls_and_can_be_decided_after() -> None:
    forum, referee, clock = make(review_delay_s="manual")
    referee.poll_forum(3)
    set_status(referee.storage, referee.storage.declarations()[0]["id"], "approved", "a", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    turn_post(forum, "Aurora Vexley", "Avada Kedavra")
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(3)
    [first] = list(referee.storage.db["violations"].rows)
    assert first["rule"] == "unlisted_spell"
    # another duel's violation comes after it (a recreated row would get a new id)
    referee.storage.insert_violation(99, 1, _violation("short_post", 500), clock())
    referee.poll_forum(3)  # the pending draft is read and recomputed again
    decl = referee.storage.declarations(("draft",))[0]
    set_numbers(referee.storage, decl["id"], {"Cassius Thorne.points": 19}, "Maelis", clock())
    referee.poll_forum(3)
    [again] = list(referee.storage.db["violations"].rows_where("duel_id = 1"))
    assert again["id"] == first["id"]
    decided = decide_violation(
        referee.storage, first["id"], "confirmed", "sort interdit", "Maelis", clock()
    )
    assert decided["status"] == "confirmed"


def test_upsert_updates_in_place_deletes_what_is_gone_and_keeps_decisions() -> None:
    storage = open_storage(":memory:")
    upsert_violations(
        storage, 1, 2, "turn = ?", [2],
        [_violation("short_post", 10), _violation("late_edit", 10), _violation("no_action", 11)],
        NOW,
    )  # fmt: skip
    ids = {r["rule"]: r["id"] for r in storage.db["violations"].rows}
    storage.db["violations"].update(ids["no_action"], {"status": "dismissed"})
    # recomputed: short_post's evidence changed, late_edit is gone, no_action was decided
    upsert_violations(
        storage, 1, 2, "turn = ?", [2],
        [_violation("short_post", 10, "3 lignes"), _violation("no_action", 11)], NOW,
    )  # fmt: skip
    rows = {r["rule"]: r for r in storage.db["violations"].rows}
    assert set(rows) == {"short_post", "no_action"}
    assert rows["short_post"]["id"] == ids["short_post"]
    assert rows["short_post"]["evidence"] == "3 lignes"
    assert rows["no_action"]["status"] == "dismissed"
    assert rows["no_action"]["id"] == ids["no_action"]
    # rows outside the scope (another turn) are never touched
    upsert_violations(storage, 1, 3, "turn = ?", [3], [], NOW)
    assert {r["rule"] for r in storage.db["violations"].rows} == {"short_post", "no_action"}
