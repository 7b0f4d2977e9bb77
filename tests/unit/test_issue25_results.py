"""Issue 25, the result owls: who owes whom the stakes, stakes proposed and never accepted are
not due, sentences are not glued, and a duel adopted by hand promises neither the leaderboard
point nor the purse (only the sign-up desk's duels count, as the leaderboard post says)."""

from __future__ import annotations

from forumbot.club.stakes import StakesTerms, stakes_owed
from forumbot.publish.render import Trusted, render
from forumbot.publish.typography import plain
from tests.unit.test_registrations import THREAD, finish_by_concession, make, queue

A, C = "Aurora Vexley", "Cassius Thorne"


def _sign(forum: object, who: str, stakes: str | None) -> None:
    text = f"Nom : {who}\nAnnée : 5\nType : brutale" + (f"\nEnjeux : {stakes}" if stakes else "")
    forum.add_post(THREAD, who, text)  # type: ignore[attr-defined]


def _results(forum: object) -> dict[str, str]:
    return {
        who: plain(str(pm["message"]))  # the owls are typeset (issue 25)
        for who in (A, C)
        for pm in forum.pms_to(who)  # type: ignore[attr-defined]
        if "Fin du duel" in str(pm["subject"])
    }


def _finish(stakes_a: str | None, stakes_c: str | None) -> dict[str, str]:
    forum, desk = make()
    _sign(forum, A, stakes_a)
    _sign(forum, C, stakes_c)
    desk.cycle()
    finish_by_concession(desk, int(str(queue(desk)[0]["duel_id"])), C)
    desk.referee.notify_finished()
    desk.cycle()
    return _results(forum)


def test_accepted_stakes_say_who_owes_whom() -> None:
    results = _finish("un hibou", "Un hibou")
    assert f"{C} te doit les enjeux du duel : un hibou." in results[A]
    assert f"Tu dois à {A} les enjeux du duel : un hibou." in results[C]


def test_stakes_proposed_and_never_accepted_are_not_due() -> None:
    results = _finish("un hibou", None)
    for text in results.values():
        assert "les enjeux du duel :" not in text
    # reader C12: the owl never names its reader in the third person
    assert (
        f"Les enjeux que tu avais proposés (« un hibou ») n'ont pas été acceptés par {C} : "
        "personne ne les doit." in results[A]
    )
    assert (
        f"Tu n'avais pas accepté les enjeux proposés par {A} (« un hibou ») : personne ne les "
        "doit." in results[C]
    )


def test_a_duel_adopted_by_hand_gives_no_reward_and_promises_none() -> None:
    forum, desk = make()
    forum.add_topic(40, "Duel : Aurora contre Cassius", "Arbitre", "Le duel va commencer.")
    duel_id = desk.referee.adopt(
        3, 40, "Duel : Aurora contre Cassius", [(A, "5", ["brutale"]), (C, "7", ["sournoise"])],
        ruleset="fatigue", stakes="une plume",
    )  # fmt: skip
    finish_by_concession(desk, duel_id, C)
    desk.referee.notify_finished()
    desk.cycle()
    assert list(desk.storage.db["rewards"].rows) == []
    assert list(desk.storage.db["leaderboard"].rows) == []
    results = _results(forum)
    assert set(results) == {A, C}
    for text in results.values():
        assert "bourse" not in text.replace("ni point ni bourse", "")
        assert "ne compte pas au classement" in text
    assert f"{C} te doit les enjeux du duel : une plume." in results[A]  # the topic's terms


def test_duo_result_owl_sentences_are_not_glued() -> None:
    owed = stakes_owed(StakesTerms("une mandragore", True), A, [A, "Blaise"], [C, "Maelis"])
    text = render(
        "duo_owl_result.bbcode.j2",
        {"character": A, "outcome": "won", "galleons": 5,
         "rewards": ["5 gallions"], "owed": owed,
         "topic_url": Trusted("http://b.example/viewtopic.php?t=3"), "referee_name": "L'arbitre"},
    )  # fmt: skip
    text = plain(text)
    assert "pour toi.Récompenses" not in text
    assert (
        "la bourse de victoire, 5 gallions, pour toi.\n\nEn plus de la bourse de victoire, tu as "
        "gagné pendant le duel : 5 gallions.\n\n"
    ) in text  # seventh reader, C8 (without duel_galleons: no total said)
    assert f"{C} et Maelis doivent à ton duo les enjeux du duel : une mandragore." in text
    lost = stakes_owed(StakesTerms("une mandragore", True), C, [A, "Blaise"], [C, "Maelis"])
    assert lost is not None and lost["case"] == "i_owe" and lost["duo"]
    none = stakes_owed(StakesTerms("une mandragore", True), C, [], [])
    assert none is not None and none["case"] == "no_winner"
    assert stakes_owed(StakesTerms(None, False), A, [A], [C]) is None


def test_verify_dice_says_the_seed_will_be_revealed() -> None:
    from forumbot.duels.verify import VerifyReport, format_report

    lines = format_report(VerifyReport(topic_id=7, commitment="ab" * 32))
    assert "graine révélée : pas encore (elle le sera dans la déclaration finale)" in lines
    assert not any("elle l'est" in line for line in lines)
