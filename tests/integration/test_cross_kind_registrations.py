"""One duel per player across 1v1 and 2v2 (seed 001: "Un joueur ne peut participer qu'à un duel
à la fois"; RULES.md "Registration and scheduling": "a player (the person, across all their
characters) is in one duel at a time"), driven through the registration desk with both threads
on one in-memory forum."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from forumbot.club.registrations import RegistrationDesk, board_engagements
from forumbot.config import Registration
from forumbot.duels.referee import Referee
from forumbot.publish.typography import plain
from forumbot.rulesets import load_ruleset
from forumbot.storage import iso, open_storage
from rules.fatigue import concede
from rules.model import DuelState
from tests.fakes.forum import ClubForum

pytestmark = pytest.mark.usefixtures("on_each_engine")

SOLO = 20  # the 1v1 registration thread
DUO = 30  # the 2v2 registration thread
DUEL_FORUM = 3


def unlinked(text: str) -> str:
    """``text`` with typography undone and post links unwrapped (issue 25: replies link
    « message n° 5 » to the post)."""
    return re.sub(r"\[/?url[^\]]*\]", "", plain(text))


class Clock:
    def __init__(self) -> None:
        self.t = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t


def make(duo_first: bool = False, max_concurrent: int = 3) -> tuple[ClubForum, RegistrationDesk]:
    forum = ClubForum()
    forum.add_topic(SOLO, "Inscriptions aux duels 1v1", "Arbitre", "Postez ici votre fiche.")
    forum.add_topic(DUO, "Inscriptions aux duels 2v2", "Arbitre", "Postez ici votre fiche.")
    clock = Clock()
    storage = open_storage(":memory:")
    referee = Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3", review_delay_s=0,
        now=clock, rng=random.Random(4), bot_username="Hibou",
    )  # fmt: skip
    regs = [
        Registration(SOLO, DUEL_FORUM, 0, "1v1", "fatigue", max_concurrent),
        Registration(DUO, DUEL_FORUM, 0, "2v2", "fatigue", 1, "serre"),
    ]
    if duo_first:
        regs.reverse()
    desk = RegistrationDesk(storage, forum, referee, regs, now=clock, bot_username="Hibou")
    desk.attach()
    return forum, desk


def signup(
    forum: ClubForum, thread: int, author: str, name: str | None = None, mate: str | None = None
) -> int:
    text = f"Nom : {name or author}\nAnnée : 5e année\nType de magie : brutale"
    if mate:
        text += f"\nPartenaire : {mate}, 4e année, discrète"
    return forum.add_post(thread, author, text)


def replies(forum: ClubForum, thread: int) -> list[str]:
    return [p.text for p in forum.posts[thread] if p.author == "Hibou"]


def post_row(desk: RegistrationDesk, post_id: int) -> dict[str, Any]:
    (row,) = desk.storage.db["registration_posts"].rows_where("post_id = ?", [post_id])
    return row


def pairings(desk: RegistrationDesk) -> list[dict[str, Any]]:
    return list(desk.storage.db["queue"].rows_where(order_by="id"))


def matches(desk: RegistrationDesk) -> list[dict[str, Any]]:
    return list(desk.storage.db["duo_matches"].rows_where(order_by="id"))


def unfinished_duels_of(desk: RegistrationDesk, player: str) -> int:
    """How many 1v1 pairings and 2v2 matches not finished hold ``player``."""
    count = sum(
        1
        for r in pairings(desk)
        if r["status"] != "finished" and player in (r["first_player"], r["second_player"])
    )
    for m in matches(desk):
        players = [e["player"] for d in json.loads(m["duos_json"]) for e in d]
        count += m["status"] != "finished" and player in players
    return count


def finish_1v1(desk: RegistrationDesk, duel_id: int, loser: str) -> None:
    duel = desk.storage.duel(duel_id)
    state = DuelState.from_dict(json.loads(duel["state_json"]))
    outcome = concede(state, loser, ruleset=load_ruleset("fatigue"))
    desk.storage.update_duel(
        duel_id, status="finished", state_json=json.dumps(outcome.state.to_dict())
    )


def start_a_1v1(forum: ClubForum, desk: RegistrationDesk) -> dict[str, Any]:
    """Aurora's account (playing Bellatrix Nox) and Cassius start a 1v1."""
    signup(forum, SOLO, "Aurora Vexley", "Bellatrix Nox")
    signup(forum, SOLO, "Cassius Thorne")
    desk.cycle()
    (row,) = pairings(desk)
    assert row["status"] == "running"
    return row


def start_a_2v2(forum: ClubForum, desk: RegistrationDesk) -> dict[str, Any]:
    """Aurora + Blaise against Dorian + Maelis."""
    signup(forum, DUO, "Aurora Vexley", mate="Blaise Corvin")
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    desk.cycle()
    (m,) = matches(desk)
    assert m["status"] == "running"
    return m


def test_a_player_in_a_running_1v1_is_refused_a_2v2_with_a_french_reply() -> None:
    forum, desk = make()
    start_a_1v1(forum, desk)
    # the same account, another character: still the same player
    late = signup(forum, DUO, "Aurora Vexley", "Circé Lune", mate="Blaise Corvin")
    desk.cycle()
    desk.cycle()
    (reply,) = replies(forum, DUO)
    assert "ton inscription (message n°" in unlinked(reply) and "n'a pas été retenue" in reply
    assert "Tu participes déjà à un duel en un contre un en cours" in reply
    assert "un seul duel à la fois" in reply
    row = post_row(desk, late)
    assert (row["status"], row["code"]) == ("rejected", "busy_other_kind")
    assert list(desk.storage.db["duo_entries"].rows_where()) == []
    assert unfinished_duels_of(desk, "Aurora Vexley") == 1


def test_a_2v2_naming_a_teammate_in_a_queued_1v1_is_refused_and_names_them() -> None:
    forum, desk = make(max_concurrent=1)
    signup(forum, SOLO, "Aurora Vexley")
    signup(forum, SOLO, "Cassius Thorne")
    signup(forum, SOLO, "Odric Fenwick")
    signup(forum, SOLO, "Nyx Arden")
    desk.cycle()
    assert [r["status"] for r in pairings(desk)] == ["running", "queued"]
    late = signup(forum, DUO, "Sol Ravel", mate="Nyx Arden")
    desk.cycle()
    (reply,) = replies(forum, DUO)
    assert "Nyx Arden participe déjà à un duel en un contre un" in reply
    assert "file d'attente" in reply
    assert post_row(desk, late)["code"] == "busy_other_kind"
    assert matches(desk) == [] and unfinished_duels_of(desk, "Nyx Arden") == 1


def test_a_player_in_a_running_2v2_is_refused_a_1v1() -> None:
    forum, desk = make()
    start_a_2v2(forum, desk)
    mine = signup(forum, SOLO, "Maelis Dunbar")
    named = forum.add_post(
        SOLO,
        "Cassius Thorne",
        "Nom : Cassius Thorne\nAnnée : 5e année\nType de magie : brutale\n"
        "Partenaire : Aurora Vexley",
    )
    desk.cycle()
    first, second = replies(forum, SOLO)
    assert "Tu participes déjà à un duel en deux contre deux en cours" in first
    assert "Aurora Vexley participe déjà à un duel en deux contre deux en cours" in second
    assert post_row(desk, mine)["code"] == post_row(desk, named)["code"] == "busy_other_kind"
    assert pairings(desk) == [] and list(desk.storage.db["requests"].rows_where()) == []


def test_a_match_formed_and_queued_refuses_a_1v1_in_the_same_cycle() -> None:
    """The 2v2 thread is read first: its match is formed (queued) before the 1v1 post is read."""
    forum, desk = make(duo_first=True)
    signup(forum, DUO, "Aurora Vexley", mate="Blaise Corvin")
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    late = signup(forum, SOLO, "Dorian Pike")
    signup(forum, SOLO, "Cassius Thorne")
    desk.cycle()
    assert post_row(desk, late)["code"] == "busy_other_kind"
    (reply,) = replies(forum, SOLO)
    assert "file d'attente" in reply  # the match was still queued when the sign-up was read
    assert [m["status"] for m in matches(desk)] == ["running"] and pairings(desk) == []
    assert unfinished_duels_of(desk, "Dorian Pike") == 1


def test_open_in_both_then_a_1v1_forms_the_2v2_request_is_withdrawn() -> None:
    forum, desk = make()
    solo = signup(forum, SOLO, "Aurora Vexley")
    duo = signup(forum, DUO, "Aurora Vexley")
    desk.cycle()
    kinds = sorted((e.kind, e.stage) for e in board_engagements(desk.storage, 1).items)
    assert kinds == [("1v1", "open"), ("2v2", "open")]  # waiting in both lists is fine
    assert replies(forum, SOLO) == replies(forum, DUO) == []
    signup(forum, SOLO, "Cassius Thorne")  # pairs with Aurora's open 1v1 request
    desk.cycle()
    (row,) = pairings(desk)
    assert row["first_post_id"] == solo and row["status"] == "running"
    (entry,) = desk.storage.db["duo_entries"].rows_where("post_id = ?", [duo])
    assert entry["status"] == "withdrawn"
    (reply,) = replies(forum, DUO)
    assert f"ta demande (message n° {duo}) est retirée" in unlinked(reply)
    assert "un duel en un contre un vient d'être formé pour toi" in reply
    # three more lone 2v2 sign-ups: nobody is teamed with or matched against Aurora
    for name in ("Blaise Corvin", "Dorian Pike", "Maelis Dunbar", "Nyx Arden"):
        signup(forum, DUO, name)
    desk.cycle()
    (m,) = matches(desk)
    players = [e["player"] for d in json.loads(m["duos_json"]) for e in d]
    assert "Aurora Vexley" not in players
    assert unfinished_duels_of(desk, "Aurora Vexley") == 1


def test_open_in_both_then_a_2v2_forms_first_the_1v1_request_is_withdrawn() -> None:
    """Aurora waits in both threads; between two polls her 2v2 match forms (the 2v2 thread is
    read first) and Cassius signs up alone for a 1v1: her 1v1 request is withdrawn before
    Cassius is read, so he waits alone."""
    forum, desk = make(duo_first=True)
    solo = signup(forum, SOLO, "Aurora Vexley")
    signup(forum, DUO, "Aurora Vexley")
    signup(forum, DUO, "Blaise Corvin")  # Aurora and Blaise: a duo
    desk.cycle()
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")  # the match forms
    signup(forum, SOLO, "Cassius Thorne")  # would have paired with Aurora
    desk.cycle()
    (m,) = matches(desk)
    assert m["status"] == "running"
    (request,) = desk.storage.db["requests"].rows_where("post_id = ?", [solo])
    assert request["status"] == "withdrawn"
    assert pairings(desk) == []
    (reply,) = replies(forum, SOLO)
    assert "un duel en deux contre deux vient d'être formé pour toi" in reply
    assert [r["status"] for r in desk.storage.db["requests"].rows_where(order_by="id")] == [
        "withdrawn",
        "open",
    ]
    assert unfinished_duels_of(desk, "Aurora Vexley") == 1


def test_sign_ups_in_both_read_in_one_cycle_form_one_duel() -> None:
    """Both sign-ups of Aurora arrive between two polls: the 1v1 thread is read first and pairs
    her; her 2v2 sign-up, read next, is refused (she is now in a formed 1v1)."""
    forum, desk = make()
    signup(forum, SOLO, "Aurora Vexley")
    signup(forum, SOLO, "Cassius Thorne")
    late = signup(forum, DUO, "Aurora Vexley")
    signup(forum, DUO, "Blaise Corvin", mate="Nyx Arden")
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    desk.cycle()
    assert [r["status"] for r in pairings(desk)] == ["running"]
    assert post_row(desk, late)["code"] == "busy_other_kind"
    (m,) = matches(desk)
    assert "Aurora Vexley" not in m["duos_json"]
    assert unfinished_duels_of(desk, "Aurora Vexley") == 1


def test_a_1v1_formed_withdraws_the_waiting_duo_whole_with_a_word_for_the_teammate() -> None:
    forum, desk = make()
    signup(forum, DUO, "Aurora Vexley")
    signup(forum, DUO, "Blaise Corvin")  # a duo waiting for opponents
    signup(forum, SOLO, "Aurora Vexley")
    desk.cycle()
    (entry,) = desk.storage.db["duo_entries"].rows_where("status = 'duo'")
    signup(forum, SOLO, "Cassius Thorne")
    desk.cycle()
    assert desk.storage.db["duo_entries"].get(entry["id"])["status"] == "withdrawn"
    (reply,) = replies(forum, DUO)
    assert "un duel en un contre un vient d'être formé pour toi" in reply
    assert (
        "Blaise Corvin, avec qui tu faisais équipe, peut se réinscrire ici dès maintenant"
    ) in reply
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    desk.cycle()
    assert matches(desk) == []  # nobody left to face: the duo of Aurora is gone
    signup(forum, DUO, "Blaise Corvin", mate="Nyx Arden")  # Blaise signs up again
    desk.cycle()
    (m,) = matches(desk)
    assert m["status"] == "running"
    assert unfinished_duels_of(desk, "Aurora Vexley") == 1


def test_when_the_teammate_forms_a_1v1_the_duo_is_withdrawn_and_the_other_may_return() -> None:
    forum, desk = make()
    aurora = signup(forum, DUO, "Aurora Vexley")
    signup(forum, DUO, "Blaise Corvin")  # Aurora's entry becomes the duo (Aurora, Blaise)
    desk.cycle()
    signup(forum, SOLO, "Blaise Corvin")
    signup(forum, SOLO, "Cassius Thorne")
    desk.cycle()
    (reply,) = replies(forum, DUO)
    assert unlinked(reply).startswith(
        f"Aurora Vexley, ta demande (message n° {aurora}) est retirée"
    )
    assert "vient d'être formé pour Blaise Corvin, avec qui tu faisais équipe," in reply
    assert "Tu peux te réinscrire ici dès maintenant, avec ou sans partenaire" in reply
    again = signup(forum, DUO, "Aurora Vexley")  # Aurora is free: accepted
    desk.cycle()
    assert post_row(desk, again)["status"] == "accepted"
    assert unfinished_duels_of(desk, "Blaise Corvin") == 1
    assert unfinished_duels_of(desk, "Aurora Vexley") == 0


def test_a_2v2_match_withdraws_the_open_1v1_requests_of_its_players() -> None:
    forum, desk = make()
    solo = signup(forum, SOLO, "Blaise Corvin", "Bellatrix Nox")
    signup(forum, DUO, "Aurora Vexley", mate="Blaise Corvin")
    desk.cycle()
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    desk.cycle()
    (m,) = matches(desk)
    assert m["status"] == "running"
    (request,) = desk.storage.db["requests"].rows_where("post_id = ?", [solo])
    assert request["status"] == "withdrawn"
    (reply,) = replies(forum, SOLO)
    assert f"ta demande (message n° {solo}) est retirée" in unlinked(reply)
    assert "duel en deux contre deux" in reply
    signup(forum, SOLO, "Cassius Thorne")  # opens a request: Bellatrix's is gone
    desk.cycle()
    assert pairings(desk) == []
    assert unfinished_duels_of(desk, "Blaise Corvin") == 1


def test_after_the_1v1_finishes_the_player_may_sign_up_for_a_2v2() -> None:
    forum, desk = make()
    row = start_a_1v1(forum, desk)
    signup(forum, DUO, "Aurora Vexley", mate="Blaise Corvin")
    desk.cycle()
    assert len(replies(forum, DUO)) == 1
    finish_1v1(desk, int(row["duel_id"]), "Cassius Thorne")
    signup(forum, DUO, "Aurora Vexley", mate="Blaise Corvin")
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    desk.cycle()
    assert len(replies(forum, DUO)) == 1  # no new refusal
    assert [r["status"] for r in pairings(desk)] == ["finished"]
    (m,) = matches(desk)
    assert m["status"] == "running"
    assert unfinished_duels_of(desk, "Aurora Vexley") == 1


def test_start_holds_a_1v1_whose_player_is_in_a_started_2v2() -> None:
    """A pairing recorded while its player was free (e.g. by an older version) that now clashes
    with a running 2v2 keeps its place, and starts when the 2v2 is over."""
    forum, desk = make()
    m = start_a_2v2(forum, desk)
    signup(forum, SOLO, "Cassius Thorne")
    desk.cycle()
    (request,) = desk.storage.db["requests"].rows_where()
    desk.storage.db["queue"].insert(
        {
            "board_id": desk.board_id, "thread_topic_id": SOLO, "kind": "1v1",
            "ruleset": "fatigue", "first_player": "Cassius Thorne",
            "first_character": "Cassius Thorne", "first_post_id": request["post_id"],
            "second_player": "Aurora Vexley", "second_character": "Aurora Vexley",
            "second_post_id": request["post_id"], "reason": "named_partner", "status": "queued",
            "forum_id": DUEL_FORUM, "attempts": 0, "created_at": iso(desk.now()),
        }
    )  # fmt: skip
    desk.storage.db["requests"].update(request["id"], {"status": "paired"})
    desk.cycle()
    assert [r["status"] for r in pairings(desk)] == ["queued"]
    desk.storage.update_duel(int(m["duel_id"]), status="finished")
    desk.cycle()
    assert [r["status"] for r in pairings(desk)] == ["running"]
    assert [x["status"] for x in matches(desk)] == ["finished"]


def test_start_holds_a_2v2_whose_player_is_in_a_started_1v1() -> None:
    """Two matches recorded while their players were free (e.g. by an older version): the one
    holding Cassius, in a running 1v1, keeps its place; the next one opens instead."""
    forum, desk = make()
    row = start_a_1v1(forum, desk)
    signup(forum, DUO, "Dorian Pike", mate="Maelis Dunbar")
    signup(forum, DUO, "Nyx Arden", mate="Sol Ravel")
    desk.cycle()
    (first,) = matches(desk)

    def entrant(name: str) -> dict[str, Any]:
        return {"player": name, "character": name, "post_id": 1}

    for duos in (
        [["Cassius Thorne", "Dorian Pike"], ["Nyx Arden", "Sol Ravel"]],
        [["Maelis Dunbar", "Dorian Pike"], ["Nyx Arden", "Sol Ravel"]],
    ):
        desk.storage.db["duo_matches"].insert(
            {
                "board_id": desk.board_id, "thread_topic_id": DUO, "forum_id": DUEL_FORUM,
                "duos_json": json.dumps([[entrant(n) for n in d] for d in duos]),
                "status": "queued", "attempts": 0, "created_at": iso(desk.now()),
            }
        )  # fmt: skip
    desk.storage.update_duel(int(first["duel_id"]), status="finished")
    desk.cycle()
    assert [x["status"] for x in matches(desk)] == ["finished", "queued", "running"]
    finish_1v1(desk, int(row["duel_id"]), "Cassius Thorne")
    desk.cycle()
    assert [x["status"] for x in matches(desk)] == ["finished", "queued", "running"]  # one 2v2
    desk.storage.update_duel(int(matches(desk)[2]["duel_id"]), status="finished")
    desk.cycle()
    assert [x["status"] for x in matches(desk)] == ["finished", "running", "finished"]
