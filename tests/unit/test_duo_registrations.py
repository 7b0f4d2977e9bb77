"""The 2v2 registration desk (issue 5; RULES.md "Registration and scheduling": "In 2v2, lone
sign-ups pair up as teammates, and the first duo to answer an open duo becomes the opponents
[D]. [...] One 2v2 duel at a time; its registration closes while it runs")."""

from __future__ import annotations

import json
import random

import pytest

from forumbot.club.duo_registrations import CLOSED_MESSAGE
from forumbot.club.registrations import RegistrationDesk, get_profile
from forumbot.config import Registration
from forumbot.duels.duo import environments
from forumbot.duels.referee import Referee
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from rules.duo_matchmaking import DuoLobby, add_duo_signup
from rules.matchmaking import Entrant
from tests.fakes.clock import Clock
from tests.fakes.forum import ClubForum

pytestmark = pytest.mark.usefixtures("on_each_engine")

THREAD = 30
DUEL_FORUM = 3


def make(environment: str = "") -> tuple[ClubForum, RegistrationDesk]:
    forum = ClubForum()
    forum.add_topic(THREAD, "Inscriptions aux duels 2v2", "Arbitre", "Postez ici votre fiche.")
    clock = Clock()
    storage = open_storage(":memory:")
    referee = Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3", review_delay_s=0,
        now=clock, rng=random.Random(4), bot_username="Hibou",
    )  # fmt: skip
    reg = Registration(THREAD, DUEL_FORUM, 0, "2v2", "fatigue", 1, environment)
    desk = RegistrationDesk(storage, forum, referee, [reg], now=clock, bot_username="Hibou")
    return forum, desk


def signup(forum: ClubForum, author: str, mate: str | None = None, extra: str = "") -> int:
    text = f"Nom : {author}\nAnnée : 5e année\nType de magie : brutale"
    if mate:
        text += f"\nPartenaire : {mate}, 4e année, discrète"
    return forum.add_post(THREAD, author, text + extra)


def matches(desk: RegistrationDesk) -> list[dict[str, object]]:
    return list(desk.storage.db["duo_matches"].rows_where(order_by="id"))


def bot_replies(forum: ClubForum) -> list[str]:
    return [p.text for p in forum.posts[THREAD] if p.author == "Hibou"]


def test_pure_lobby_pairs_lone_signups_then_duos_face_each_other() -> None:
    a, b, c, d = (Entrant(n, n, i) for i, n in enumerate(["A", "B", "C", "D"], start=1))
    lobby, ev = add_duo_signup(DuoLobby(), a)
    assert ev.outcome == "waiting_teammate"
    lobby, ev = add_duo_signup(lobby, b)
    assert (ev.outcome, ev.reason, ev.duo) == ("waiting_opponents", "paired_lone", (a, b))
    lobby, ev = add_duo_signup(lobby, c, Entrant("D", "D", 3))
    assert ev.outcome == "matched" and ev.match == ((a, b), (c, Entrant("D", "D", 3)))
    assert lobby == DuoLobby()
    # a duo faces the open duo it answers (quotes), else the oldest one
    e, f, g, h = (Entrant(n, n, i) for i, n in enumerate(["E", "F", "G", "H"], start=10))
    lobby = DuoLobby(duos=((e, f), (g, h)))
    assert add_duo_signup(lobby, d, Entrant("X", "X", 12))[1].match == (
        (e, f),
        (d, Entrant("X", "X", 12)),
    )
    lobby, ev = add_duo_signup(lobby, d, Entrant("X", "X", 12), answers=13)
    assert ev.reason == "answered_duo" and ev.match is not None and ev.match[0][0] == g
    # one sign-up per player; no teammate of one's own
    assert add_duo_signup(lobby, Entrant("e", "Autre", 20))[1].reason == "already_signed_up"
    assert add_duo_signup(DuoLobby(), a, Entrant("A", "A2", 1))[1].reason == "self_partner"
    assert add_duo_signup(DuoLobby(busy=frozenset({"A"})), a)[1].reason == "already_signed_up"


def test_named_duo_and_two_lone_signups_open_one_2v2_with_an_environment() -> None:
    forum, desk = make("serre")
    signup(forum, "Aurora Vexley", "Blaise Corvin", "\nEnjeux : une mandragore")
    desk.cycle()
    assert matches(desk) == []
    assert get_profile(desk.storage, desk.board_id, "Blaise Corvin") is not None
    signup(forum, "Cassius Thorne")
    desk.cycle()
    signup(forum, "Dorian Pike")
    report = desk.cycle()
    assert report.started == 1 and bot_replies(forum) == []
    (m,) = matches(desk)
    assert m["status"] == "running" and m["environment"] == "serre"
    duos = json.loads(str(m["duos_json"]))
    assert [[e["character"] for e in d] for d in duos] == [
        ["Aurora Vexley", "Blaise Corvin"], ["Cassius Thorne", "Dorian Pike"]
    ]  # fmt: skip
    duel = desk.storage.duel(int(m["duel_id"]))  # type: ignore[arg-type]
    assert duel["stakes"] == "une mandragore" and duel["topic_id"] == m["topic_id"]
    topic = forum.posts[int(m["topic_id"])]  # type: ignore[arg-type]
    assert "Duel en deux contre deux : Aurora Vexley et Blaise Corvin contre" in plain(
        topic[0].text
    )
    assert duel["dice_commitment"] in topic[0].text
    drafts = desk.storage.declarations(("draft", "approved"), duel["id"])
    assert [d["kind"] for d in drafts] == ["opening"] and "La serre enchantée" in drafts[0]["text"]
    desk.cycle()  # nothing twice
    assert len(matches(desk)) == 1 and len(forum.topics) == 2


def test_signups_while_a_2v2_runs_are_refused_once_and_the_slot_frees_at_the_end() -> None:
    forum, desk = make()
    signup(forum, "Aurora Vexley", "Blaise Corvin")
    signup(forum, "Cassius Thorne", "Dorian Pike")
    desk.cycle()
    (m,) = matches(desk)
    assert m["environment"] == environments()[0]  # no setting: the shipped ones in turn
    late = signup(forum, "Odric Fenwick", "Maelis Dunbar")
    desk.cycle()
    desk.cycle()
    replies = bot_replies(forum)
    assert len(replies) == 1 and CLOSED_MESSAGE.split(" : ")[0] in replies[0]
    rows = list(desk.storage.db["registration_posts"].rows_where("post_id = ?", [late]))
    assert rows[0]["status"] == "rejected" and rows[0]["code"] == "registration_closed"
    assert list(desk.storage.db["duo_entries"].rows_where("post_id = ?", [late])) == []
    # the duel ends: the slot is free, and the next duos open the next 2v2 in the other room
    desk.storage.update_duel(int(m["duel_id"]), status="finished")  # type: ignore[arg-type]
    signup(forum, "Odric Fenwick", "Maelis Dunbar")
    signup(forum, "Nyx Arden", "Sol Ravel")
    desk.cycle()
    first, second = matches(desk)
    assert first["status"] == "finished" and second["status"] == "running"
    assert second["environment"] != first["environment"]


def test_a_player_already_signed_up_is_refused() -> None:
    forum, desk = make()
    signup(forum, "Aurora Vexley")
    desk.cycle()
    forum.add_post(THREAD, "Aurora Vexley", "Nom : Aurora Vexley\nAnnée : 5\nType : brutale")
    desk.cycle()
    assert len(bot_replies(forum)) == 1 and "déjà une inscription" in bot_replies(forum)[0]
