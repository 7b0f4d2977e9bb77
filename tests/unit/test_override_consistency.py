"""Overrides keep text and numbers together (issue 13): after a set number the text states
the referee's numbers and says they are the referee's; a hand-edited text is rendered again
(with a warning) rather than left contradicting the stored state; a waiver needs a violation;
the audit log keeps the value before and after."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from forumbot.duels.overrides import (
    TEXT_RERENDERED,
    OverrideError,
    edit_text,
    set_numbers,
    set_status,
    set_violation,
)
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.publish.typography import plain
from tests.fakes.forum import FakeForum
from tests.unit.test_referee_flow import Clock, bot_posts, make, turn_post


def _turn_draft(
    spell_a: str = "Sortilège de Désarmement",
) -> tuple[FakeForum, Referee, Clock, dict[str, Any]]:
    forum, referee, clock = make(review_delay_s="manual")
    referee.poll_forum(3)
    set_status(referee.storage, referee.storage.declarations()[0]["id"], "approved", "a", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    turn_post(forum, "Aurora Vexley", spell_a)
    turn_post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(3)
    return forum, referee, clock, referee.storage.declarations(("draft",))[0]


def _points(decl: dict[str, Any], name: str) -> int:
    outcome = json.loads(decl["context_json"])["outcome"]
    return next(d["points"] for d in outcome["state"]["duellists"] if d["name"] == name)


def test_a_set_number_is_stated_as_the_referees_beside_what_was_computed() -> None:
    forum, referee, clock, decl = _turn_draft()
    computed = _points(decl, "Cassius Thorne")
    assert "décision de l'arbitre" not in decl["text"]
    warnings = set_numbers(
        referee.storage, decl["id"], {"Cassius Thorne.points": computed - 1}, "Maelis", clock()
    )
    assert warnings == []
    text = referee.storage.declaration(decl["id"])["text"]
    assert f"Cassius Thorne : {computed - 1} PD (décision de l'arbitre)" in plain(text)
    assert "[b]Décisions de l'arbitre[/b]" in text
    assert (
        f"Cassius Thorne, points après le tour : {computed - 1} PD "
        f"(au lieu de {computed} PD selon le calcul)" in plain(text)
    )
    set_status(referee.storage, decl["id"], "approved", "Maelis", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    state = json.loads(referee.storage.duels()[0]["state_json"])
    assert f"Cassius Thorne : {computed - 1} PD" in plain(plain)(bot_posts(forum))[-1]
    assert [d["points"] for d in state["duellists"] if d["name"] == "Cassius Thorne"] == [
        computed - 1
    ]


def test_a_set_landed_marks_the_attack_line() -> None:
    forum, referee, clock, decl = _turn_draft()
    outcome = json.loads(decl["context_json"])["outcome"]
    attack = next(a for a in outcome["attacks"] if a["attacker"] == "Aurora Vexley")
    set_numbers(
        referee.storage, decl["id"], {"Aurora Vexley.landed": not attack["landed"]}, "M", clock()
    )
    text = referee.storage.declaration(decl["id"])["text"]
    line = next(x for x in text.splitlines() if x.startswith("- Aurora Vexley (Sortilège"))
    assert line.endswith("(décision de l'arbitre).")
    assert ("le sort est dévié" in line) == attack["landed"]


def test_a_set_after_a_hand_edited_text_renders_it_again_with_a_warning() -> None:
    forum, referee, clock, decl = _turn_draft()
    edit_text(referee.storage, decl["id"], "Cassius perd 2 PD. Fin.", "Maelis", clock())
    warnings = set_numbers(
        referee.storage, decl["id"], {"Cassius Thorne.points": 12}, "Maelis", clock()
    )
    assert warnings == [TEXT_RERENDERED]
    after = referee.storage.declaration(decl["id"])
    assert not after["text_edited"]
    assert "Cassius Thorne : 12 PD (décision de l'arbitre)" in plain(after["text"])
    assert "Fin." not in after["text"]
    audit = referee.storage.audit_entries("declaration:")[-1]
    assert json.loads(audit["before"])["text"] == "Cassius perd 2 PD. Fin."
    set_status(referee.storage, decl["id"], "approved", "Maelis", clock())
    publish_due(referee.storage, forum, clock, manual=True)
    state = json.loads(referee.storage.duels()[0]["state_json"])
    posted = bot_posts(forum)[-1]
    for d in state["duellists"]:  # the board says what the duel says
        assert re.search(rf"{d['name']} : (?:[^\n=]*= )?{d['points']} PD", plain(posted))


def test_the_audit_keeps_the_value_before_and_after() -> None:
    forum, referee, clock, decl = _turn_draft()
    computed = _points(decl, "Cassius Thorne")
    set_numbers(referee.storage, decl["id"], {"Cassius Thorne.points": 12}, "Maelis", clock())
    set_numbers(referee.storage, decl["id"], {"Cassius Thorne.points": 11}, "Maelis", clock())
    first, second = [
        e for e in referee.storage.audit_entries("declaration:")
        if e["action"] == "draft.set_numbers"
    ]  # fmt: skip
    before, after = json.loads(first["before"]), json.loads(first["after"])
    assert before["values"] == {"Cassius Thorne.points": computed}
    assert before["points"]["Cassius Thorne"] == computed and before["overrides"] == {}
    assert after["values"] == {"Cassius Thorne.points": 12}
    assert after["points"]["Cassius Thorne"] == 12
    assert json.loads(second["before"])["values"] == {"Cassius Thorne.points": 12}
    assert json.loads(second["after"])["overrides"] == {"Cassius Thorne.points": 11}


def test_waiving_a_violation_that_does_not_exist_is_refused() -> None:
    forum, referee, clock, decl = _turn_draft("Avada Kedavra")  # unlisted_spell by Aurora
    with pytest.raises(OverrideError, match="no violation 'short_post'"):
        set_violation(
            referee.storage, decl["id"], "Aurora Vexley", "short_post", True, "M", clock()
        )
    with pytest.raises(OverrideError, match="no violation"):
        set_violation(
            referee.storage, decl["id"], "Cassius Thorne", "unlisted_spell", True, "M", clock()
        )
    with pytest.raises(OverrideError, match="nothing to restore"):
        set_violation(
            referee.storage, decl["id"], "Aurora Vexley", "unlisted_spell", False, "M", clock()
        )
    assert referee.storage.declaration(decl["id"])["version"] == decl["version"]
    assert not [e for e in referee.storage.audit_entries() if e["action"].startswith("draft.")
                and "waive" in e["action"]]  # fmt: skip
    set_violation(
        referee.storage, decl["id"], "Aurora Vexley", "unlisted_spell", True, "M", clock()
    )
    after = referee.storage.declaration(decl["id"])
    assert json.loads(after["waived_json"]) == [["Aurora Vexley", "unlisted_spell"]]
    assert "Infractions relevées" not in after["text"]
