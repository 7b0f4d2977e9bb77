"""The registration desk against an in-memory forum: sign-ups, matchmaking, duel topics, owls,
rewards (seed 001, "Comment participer ?", "Les types de duel proposés", "Récompenses")."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime

import pytest

from forumbot.club.registrations import (
    ProfileError,
    RegistrationDesk,
    get_profile,
    set_profile,
)
from forumbot.config import Registration
from forumbot.duels.referee import Referee
from forumbot.publish.labels import describe_modifier
from forumbot.publish.typography import plain
from forumbot.rulesets import load_ruleset
from forumbot.storage import open_storage
from rules.fatigue import MagicModifier, concede
from rules.model import DuelState
from tests.fakes.clock import Clock
from tests.fakes.forum import ClubForum

pytestmark = pytest.mark.usefixtures("on_each_engine")

THREAD = 20
DUEL_FORUM = 3


def make(max_concurrent: int = 3, leaderboard: int = 0) -> tuple[ClubForum, RegistrationDesk]:
    forum = ClubForum()
    forum.add_topic(THREAD, "Inscriptions aux duels 1v1", "Arbitre", "Postez ici votre fiche.")
    if leaderboard:
        forum.add_topic(leaderboard, "Tableau de classement", "Arbitre", "Le classement :")
    clock = Clock()
    storage = open_storage(":memory:")
    referee = Referee(
        storage,
        forum,
        board_url="http://board.invalid",
        platform="phpbb3",
        review_delay_s=0,
        now=clock,
        rng=random.Random(4),
    )
    desk = RegistrationDesk(
        storage,
        forum,
        referee,
        [Registration(THREAD, DUEL_FORUM, 4, "1v1", "fatigue", max_concurrent)],
        now=clock,
        bot_username="Hibou",
        leaderboard_topic_id=leaderboard,
    )
    desk.attach()
    return forum, desk


def signup(forum: ClubForum, author: str, year: str = "5", types: str = "brutale") -> int:
    return forum.add_post(
        THREAD, author, f"Nom : {author}\nAnnée : {year}e année\nType de magie : {types}"
    )


def bot_replies(forum: ClubForum) -> list[str]:
    return [p.text for p in forum.posts[THREAD] if p.author == "Hibou"]


def queue(desk: RegistrationDesk) -> list[dict[str, object]]:
    return list(desk.storage.db["queue"].rows_where(order_by="id"))


def finish_by_concession(desk: RegistrationDesk, duel_id: int, loser: str) -> None:
    duel = desk.storage.duel(duel_id)
    state = DuelState.from_dict(json.loads(duel["state_json"]))
    outcome = concede(state, loser, ruleset=load_ruleset("fatigue"))
    desk.storage.update_duel(
        duel_id,
        status="finished",
        state_json=json.dumps(outcome.state.to_dict(), ensure_ascii=False),
    )


def test_seed001_lone_signups_pair_and_the_duel_topic_opens_with_the_commitment() -> None:
    """seed 001: "La première personne [...] à déclarer être également seule sera votre
    adversaire." The topic opens once with the duellists' years and magic types and the dice
    commitment (the earliest post); the PV are the opening declaration's, which points to the
    topic's commitment (issue 25, reader2 C7: each said once)."""
    forum, desk = make()
    signup(forum, "Aurora Vexley", "5", "brutale et discrète")
    report = desk.cycle()
    assert report.signups == 1 and report.started == 0
    signup(forum, "Cassius Thorne", "7", "sournoise")
    report = desk.cycle()
    assert report.started == 1 and report.replies == 0
    (row,) = queue(desk)
    assert row["status"] == "running" and row["reason"] == "also_alone"
    duel = desk.storage.duel(row["duel_id"])
    assert duel["ruleset"] == "fatigue" and duel["topic_id"] == row["topic_id"]
    first = forum.posts[duel["topic_id"]][0]
    assert first.author == "Hibou"
    assert "Aurora Vexley" in first.text and "5e année" in first.text and "7e année" in first.text
    assert "brutale et discrète" in first.text and "sournoise" in first.text
    assert duel["dice_commitment"] in first.text and "300 PV" not in first.text
    (opening,) = [
        str(d["text"])
        for d in desk.storage.db["declarations"].rows_where("idempotency_key like ?", ["%-opening"])
    ]
    assert duel["dice_commitment"] not in opening and "300 PV" in opening and "400 PV" in opening
    assert "est publiée dans le premier message du sujet" in plain(opening)
    state = json.loads(duel["state_json"])
    assert [d["magic_types"] for d in state["duellists"]] == [
        ["brutale", "discrete"],
        ["sournoise"],
    ]
    # nothing happens twice
    topics = len(forum.topics)
    desk.cycle()
    assert len(forum.topics) == topics and len(queue(desk)) == 1


def test_each_duellist_gets_one_owl_with_their_magic_type_modifiers() -> None:
    """RULES.md: the modifiers of each magic type "are sent to the duellist by owl"."""
    forum, desk = make()
    signup(forum, "Aurora Vexley", "5", "brutale")
    signup(forum, "Cassius Thorne", "7", "protectrice")
    desk.cycle()
    (aurora,) = forum.pms_to("Aurora Vexley")
    (cassius,) = forum.pms_to("Cassius Thorne")
    assert "10\u202f% de dégâts en plus" in str(aurora["message"])
    assert "Sorts concernés (famille «\u202fattaque\u202f»)" in str(aurora["message"])  # issue 25
    assert "un tour de plus" in str(cassius["message"]) and "Brutale" not in str(cassius["message"])
    desk.cycle()
    assert len(forum.pms) == 2


def test_invalid_signup_gets_one_clear_french_reply() -> None:
    forum, desk = make()
    pid = forum.add_post(THREAD, "Maelis Dunbar", "Je veux me battre !\nType : flamboyante")
    report = desk.cycle()
    assert report.replies == 1
    (reply,) = bot_replies(forum)
    assert "Maelis Dunbar" in reply and f"n° {pid}" in plain(reply)
    assert "il manque ton année d'étude" in reply
    desk.cycle()
    desk.cycle()
    assert len(bot_replies(forum)) == 1


def test_reply_lost_in_a_timeout_is_not_posted_twice() -> None:
    forum, desk = make()
    forum.add_post(THREAD, "Maelis Dunbar", "Nom : Maelis\nAnnée : 9e année\nType : brutale")
    forum.fail_next_reply = True  # stored, then a timeout
    desk.cycle()
    desk.cycle()
    replies = bot_replies(forum)
    assert len(replies) == 1 and "invalide" in replies[0]


def test_seed001_open_request_answered_by_a_quote() -> None:
    """seed 001: "La première personne à y répondre [...] sera votre adversaire." """
    forum, desk = make()
    first = signup(forum, "Aurora Vexley")
    forum.add_quoting_post(
        THREAD,
        "Cassius Thorne",
        "Je relève le défi !\nNom : Cassius Thorne\nAnnée : 4\nType : sournoise",
        first,
    )
    desk.cycle()
    (row,) = queue(desk)
    assert row["reason"] == "answered" and row["first_character"] == "Aurora Vexley"


def test_named_partner_pairs_at_once_with_their_details() -> None:
    forum, desk = make()
    forum.add_post(
        THREAD,
        "Odric Fenwick",
        "Nom : Odric Fenwick\nAnnée : 6\nType : brutale\nPartenaire : Maelis Dunbar, 3e année, "
        "discrète\nEnjeux : 10 gallions",
    )
    desk.cycle()
    (row,) = queue(desk)
    assert row["reason"] == "named_partner" and row["stakes"] == "10 gallions"
    maelis = get_profile(desk.storage, desk.board_id, "maelis dunbar")
    assert maelis is not None and maelis.year == "3" and maelis.magic_types == ("discrete",)
    duel = desk.storage.duel(row["duel_id"])
    assert duel["stakes"] == "10 gallions"


def test_named_partner_without_a_profile_or_details_is_refused() -> None:
    forum, desk = make()
    forum.add_post(
        THREAD, "Odric Fenwick", "Nom : Odric Fenwick\nAnnée : 6\nType : brutale\nPartenaire : Zed"
    )
    desk.cycle()
    assert queue(desk) == []
    (reply,) = bot_replies(forum)
    assert "Zed" in reply and "pas encore de fiche" in reply


def test_seed001_three_duels_at_once_then_a_fifo_queue() -> None:
    """seed 001: "Jusqu'à 3 duels en un contre un pourront être lancés en même temps. Au delà,
    une file d'attente sera instaurée." """
    forum, desk = make()
    for i in range(8):
        signup(forum, f"Joueur {chr(65 + i)}")
    desk.cycle()
    rows = queue(desk)
    assert [r["status"] for r in rows] == ["running", "running", "running", "queued"]
    assert len(forum.topics) == 1 + 3
    finish_by_concession(desk, int(str(rows[1]["duel_id"])), "Joueur D")
    report = desk.cycle()
    assert report.settled == 1 and report.started == 1
    rows = queue(desk)
    assert [r["status"] for r in rows] == ["running", "finished", "running", "running"]


def test_seed001_one_duel_at_a_time_per_player() -> None:
    """seed 001: "Un joueur ne peut participer qu'à un duel à la fois." The account that posts
    is the player, whatever character it signs up."""
    forum, desk = make()
    signup(forum, "Aurora Vexley")
    signup(forum, "Cassius Thorne")
    desk.cycle()
    (running,) = queue(desk)
    # Aurora's account signs up again while her duel runs: refused (issue 23: one duel at a
    # time, queued or running; she signs up again once it is over).
    signup(forum, "Aurora Vexley")
    signup(forum, "Maelis Dunbar")
    desk.cycle()
    rows = queue(desk)
    assert [r["status"] for r in rows] == ["running"]
    refusals = [p.text for p in forum.posts[THREAD] if p.author == "Hibou"]
    assert len(refusals) == 1 and "Tu participes déjà à un duel en un contre un en cours" in (
        refusals[0])  # fmt: skip
    finish_by_concession(desk, int(str(running["duel_id"])), "Cassius Thorne")
    signup(forum, "Aurora Vexley")
    desk.cycle()
    assert [r["status"] for r in queue(desk)] == ["finished", "running"]


def test_a_waiting_player_cannot_sign_up_twice() -> None:
    forum, desk = make()
    signup(forum, "Aurora Vexley")
    forum.add_post(THREAD, "Aurora Vexley", "Nom : Bellatrix\nAnnée : 3\nType : sournoise")
    desk.cycle()
    (reply,) = bot_replies(forum)
    assert "un duel à la fois" in reply


def test_recorded_profile_wins_and_the_reply_says_so() -> None:
    """RULES.md: magic types are "fixed between duels unless [...] (an admin records the
    change)"."""
    forum, desk = make()
    signup(forum, "Aurora Vexley", "5", "brutale")
    signup(forum, "Cassius Thorne", "5", "sournoise")
    desk.cycle()
    finish_by_concession(desk, int(str(queue(desk)[0]["duel_id"])), "Cassius Thorne")
    desk.cycle()
    signup(forum, "Aurora Vexley", "5", "flamboyante")
    desk.cycle()
    (reply,) = bot_replies(forum)
    assert "magie brutale" in reply and "administration du club" in reply
    profile = get_profile(desk.storage, desk.board_id, "Aurora Vexley")
    assert profile is not None and profile.magic_types == ("brutale",)


def test_a_character_belongs_to_one_account() -> None:
    forum, desk = make()
    signup(forum, "Aurora Vexley")
    forum.add_post(THREAD, "Imposteur", "Nom : Aurora Vexley\nAnnée : 5\nType : brutale")
    desk.cycle()
    (reply,) = bot_replies(forum)
    assert "un autre compte" in reply


def test_returning_duellist_may_answer_with_a_quote_only() -> None:
    forum, desk = make()
    signup(forum, "Aurora Vexley")
    signup(forum, "Cassius Thorne")
    desk.cycle()
    finish_by_concession(desk, int(str(queue(desk)[0]["duel_id"])), "Aurora Vexley")
    desk.cycle()
    request = signup(forum, "Maelis Dunbar", "2", "discrète")
    forum.add_quoting_post(THREAD, "Cassius Thorne", "J'accepte, rendez-vous en salle !", request)
    desk.cycle()
    rows = queue(desk)
    assert rows[-1]["reason"] == "answered" and rows[-1]["second_character"] == "Cassius Thorne"
    assert bot_replies(forum) == []


def test_rewards_owls_recall_the_stakes_and_are_given_once() -> None:
    """seed 001: the winner gets "1 point au tableau de classement" and "une bourse de 3
    gallions"; the loser "une chocogrenouille"; stakes are recalled."""
    forum, desk = make()
    forum.add_post(
        THREAD, "Aurora Vexley", "Nom : Aurora Vexley\nAnnée : 5\nType : brutale\nEnjeux : un hibou"
    )
    signup(forum, "Cassius Thorne")
    desk.cycle()
    duel_id = int(str(queue(desk)[0]["duel_id"]))
    finish_by_concession(desk, duel_id, "Cassius Thorne")
    desk.referee.notify_finished()  # the referee's hook settles it at once
    desk.cycle()
    desk.cycle()
    rewards = list(desk.storage.db["rewards"].rows_where(order_by="id"))
    assert [(r["character"], r["reward"], r["amount"]) for r in rewards] == [
        ("Aurora Vexley", "leaderboard_point", 1),
        ("Aurora Vexley", "galleons", 3),
        ("Cassius Thorne", "chocolate_frog", 1),
    ]
    won = [pm for pm in forum.pms_to("Aurora Vexley") if "Fin du duel" in str(pm["subject"])]
    lost = [pm for pm in forum.pms_to("Cassius Thorne") if "Fin du duel" in str(pm["subject"])]
    assert len(won) == 1 and "bourse de 3 gallions" in str(won[0]["message"])
    assert len(lost) == 1 and "chocogrenouille" in str(lost[0]["message"])
    assert "un hibou" in str(won[0]["message"]) and "un hibou" in str(lost[0]["message"])


def test_leaderboard_post_is_posted_once_then_edited() -> None:
    forum, desk = make(leaderboard=30)
    desk.cycle()
    posts = [p for p in forum.posts[30] if p.author == "Hibou"]
    assert len(posts) == 1 and "Aucun duel terminé" in posts[0].text
    signup(forum, "Aurora Vexley")
    signup(forum, "Cassius Thorne")
    desk.cycle()
    finish_by_concession(desk, int(str(queue(desk)[0]["duel_id"])), "Cassius Thorne")
    desk.cycle()
    posts = [p for p in forum.posts[30] if p.author == "Hibou"]
    assert len(posts) == 1 and forum.bot_edits == [posts[0].post_id]
    assert "1. Aurora Vexley : 1 point" in plain(posts[0].text) and "3 gallions" in posts[0].text
    desk.cycle()
    assert forum.bot_edits == [posts[0].post_id]  # unchanged: no edit


def test_admin_sets_a_profile_with_an_audit_line() -> None:
    _, desk = make()
    now = datetime(2026, 12, 1, tzinfo=UTC)
    p = set_profile(
        desk.storage, desk.board_id, "Aurora Vexley", "6", ["Flamboyante"], "admin", now
    )
    assert (p.year, p.magic_types, p.player) == ("6", ("flamboyante",), "Aurora Vexley")
    p = set_profile(
        desk.storage, desk.board_id, "aurora vexley", "adulte", ["brutal", "sournois"], "admin", now
    )
    assert (p.character, p.year, p.magic_types) == (
        "Aurora Vexley",
        "adult",
        ("brutale", "sournoise"),
    )
    (first, second) = desk.storage.audit_entries("profile:")
    assert first["actor"] == "admin" and json.loads(second["before"])["year"] == "6"
    with pytest.raises(ProfileError):
        set_profile(desk.storage, desk.board_id, "X", "9", ["brutale"], "admin", now)
    with pytest.raises(ProfileError):
        set_profile(desk.storage, desk.board_id, "X", "3", ["colérique"], "admin", now)
    with pytest.raises(ProfileError):
        set_profile(
            desk.storage,
            desk.board_id,
            "X",
            "3",
            ["brutale", "discrète", "sournoise"],
            "admin",
            now,
        )


def test_modifiers_are_described_in_french() -> None:
    assert describe_modifier(MagicModifier("damage_flat", "feu", 10)) == (
        "tes sorts de la famille « feu » : +10 PV de dégâts"
    )
    assert describe_modifier(MagicModifier("damage_taken_flat", "*", -5)) == (
        "tous les sorts qui te touchent : -5 PV de dégâts subis"
    )
