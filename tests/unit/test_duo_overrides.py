"""Referee decisions on a 2v2 draft (issue 5): a waived violation re-runs the 2v2 step from its
stored inputs (like 1v1, RULES.md "Referee and admin": "add or waive a violation", "change any
computed number"); a computed number set re-runs it too and the text follows, an unknown key is
refused with a clear message."""

from __future__ import annotations

import json

import pytest

from forumbot.duels.duo import current_state
from forumbot.duels.overrides import OverrideError, set_numbers, set_violation
from forumbot.duels.publication import publish_due
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.unit.test_duo_flow import A1, A2, BODY, NOW, InboxForum, setup


def test_waiving_a_violation_and_setting_numbers_recompute_the_2v2_draft() -> None:
    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]")
    ref.poll_duel(duel_id)
    draft = storage.declarations(("draft",), duel_id)[-1]
    proposed = ("Infraction possible d'Aurora, à l'appréciation de l'arbitre : la cible du sort "
                "est absente ou ambiguë, alors qu'un sort n'a qu'une cible.")
    assert proposed in plain(draft["text"])
    set_violation(storage, draft["id"], A1, "missing_target", True, "Arbitre", NOW)
    after = storage.declaration(draft["id"])
    assert proposed not in plain(after["text"]) and after["version"] > draft["version"]
    assert "Déclaration de l'arbitre : tour 1" in plain(after["text"])
    stored = json.loads(after["context_json"])
    assert [v["rule"] for v in stored["outcome"]["violations"] if v["status"] != "waived"] == []
    assert stored["context"]["duo_state"]["posted"] == [A1]
    set_violation(storage, draft["id"], A1, "missing_target", False, "Arbitre", NOW)
    assert proposed in plain(storage.declaration(draft["id"])["text"])
    with pytest.raises(OverrideError, match="unknown override key"):
        set_numbers(storage, draft["id"], {f"{A1}.luck": 4}, "Arbitre", NOW)
    set_numbers(storage, draft["id"], {f"{A2}.points": 400, f"{A1}.die": 6}, "Arbitre", NOW)
    after = storage.declaration(draft["id"])
    assert f"{A2} : 400 PV" in plain(after["text"]) and "dé « Pari » 6" in plain(after["text"])
    assert proposed in plain(after["text"])  # the restored violation stays
    stored = json.loads(after["context_json"])
    assert stored["outcome"]["dice"] == {str(stored["inputs"]["posts"][0]["post_id"]): [6]}
    assert stored["inputs"]["dice"] != stored["outcome"]["dice"]  # the roll itself is kept
    audit = storage.audit_entries(f"declaration:{draft['id']}")
    assert audit[-1]["action"] == "draft.set_numbers"
    # the published declaration carries the recomputed 2v2 state
    publish_due(storage, forum, lambda: NOW)
    assert storage.declaration(draft["id"])["status"] == "published"
    assert current_state(storage, storage.duel(duel_id)).duel.duellist(A2).points == 400
