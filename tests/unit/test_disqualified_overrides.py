"""``<name>.disqualified`` overrides on fatigue and 2v2 drafts, as on classic ones (issue 13;
RULES.md, Referee and admin: the referee may disqualify). The duel ends with the right
winner, the text says it is the referee's decision, and the club's ``on_finished`` hooks give
the rewards."""

from __future__ import annotations

import json

from forumbot.duels.duo import current_state
from forumbot.duels.overrides import set_numbers
from forumbot.duels.publication import publish_due
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.unit.test_duo_flow import A1, BODY, NOW, InboxForum, setup
from tests.unit.test_fatigue_flow import A, C, make


def test_a_fatigue_duellist_disqualified_by_the_referee_loses_and_the_winner_is_rewarded() -> None:
    duel = make()
    duel.ref.review_delay_s = "manual"
    duel.post(A, "cast", "Flipendo", win=True)
    duel.ref.poll_forum(3)
    draft = duel.storage.declarations(("draft",))[0]
    set_numbers(duel.storage, draft["id"], {f"{C}.disqualified": True}, "Maelis", duel.clock())
    text = duel.storage.declaration(draft["id"])["text"]
    assert "(disqualification) (décision de l'arbitre)" in text
    assert f"{A} remporte le duel" in text
    assert f"{C}, disqualification : oui (au lieu de non selon le calcul)" in plain(text)
    duel.storage.db["declarations"].update(draft["id"], {"status": "approved"})
    publish_due(duel.storage, duel.forum, duel.clock, manual=True)
    assert duel.state()["finished"] and duel.state()["winner"] == A
    duel.cycle()
    assert [(o["winner"], o["loser"]) for _, o in duel.finished] == [(A, C)]


def test_a_2v2_member_disqualified_makes_their_duo_lose() -> None:
    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]")
    ref.poll_duel(duel_id)
    draft = storage.declarations(("draft",), duel_id)[-1]
    before = current_state(storage, storage.duel(duel_id))
    team = next(duo for duo in before.duos if A1 in duo)
    set_numbers(storage, draft["id"], {f"{A1}.disqualified": True}, "Arbitre", NOW)
    after = storage.declaration(draft["id"])
    assert f"{A1} : " in plain(after["text"])
    assert "(hors de combat, disqualification) (décision de l'arbitre)" in plain(after["text"])
    outcome = json.loads(after["context_json"])["outcome"]
    assert outcome["finished"]
    assert set(json.loads(after["context_json"])["context"]["losers"]) == set(team)
    publish_due(storage, forum, lambda: NOW)
    assert storage.duel(duel_id)["status"] == "finished"


def test_a_classic_disqualification_for_an_unlisted_spell_reads_as_one_decision() -> None:
    """RULES.md (classic): for an unlisted spell "the referee chooses between an advantage to
    the opponent and disqualification". Once the referee disqualifies, the declaration states
    the disqualification (its violation line, the decision once, the end) and no longer
    offers the +2 advantage, neither as a proposal nor as an effect pending at the end."""
    from tests.unit.test_override_consistency import _turn_draft

    forum, referee, clock, decl = _turn_draft("Sortilège Inventé Zorg")
    assert "reçoit donc +2 sur son dé d'attaque du prochain tour, dégâts compris" in plain(
        decl["text"]
    )
    set_numbers(
        referee.storage, decl["id"], {"Aurora Vexley.disqualified": True}, "Maelis", clock()
    )
    text = referee.storage.declaration(decl["id"])["text"]
    assert (
        "message n° 103[/url]) : sort hors de la liste autorisée, d'où la disqualification\n"
        in plain(text)
    )
    assert "proposition de l'arbitre" not in text
    assert "sort hors liste de l'adversaire" not in text  # the +2 the referee did not choose
    assert plain(text).count("disqualification : oui (au lieu de non selon le calcul)") == 1
    assert (
        "Aurora Vexley : " in plain(text)
        and "PD (disqualification) (décision de l'arbitre)" in text
    )
    assert "[b]Fin du duel.[/b] Disqualification d'Aurora Vexley, Cassius Thorne remporte" in plain(
        text
    )
    resolution = text.split("[b]Résolution[/b]\n")[1].split("\n\n")[0].splitlines()
    assert [line.split(" ")[1] for line in resolution] == ["Aurora", "Cassius"]  # no blank line
