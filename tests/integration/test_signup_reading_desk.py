"""Sign-ups read as a person would, through the registration desk (issue 15, "Sign-ups"): the
partner of a labelled line, never « un »; a partner who is no member gets a French reply and no
pairing; two players naming each other are paired; a sign-up the parser is not sure about
becomes a referee task with the post quoted; the duel topic says who proposed the stakes."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from forumbot.club.registrations import RegistrationDesk
from forumbot.config import Registration
from forumbot.duels.referee import Referee
from forumbot.forums.base import MemberDirectory
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from parsers.registration import fold
from tests.fakes.forum import ClubForum

SOLO, DUO, DUEL_FORUM = 20, 30, 3
MEMBERS = ("Maelis Dunbar", "Odric Fenwick", "Cassius Thorne", "Aurora Vexley", "Blaise Corvin",
           "Dorian Pike", "Zoé Lune")  # fmt: skip


@dataclass
class MemberForum(ClubForum):
    """A :class:`ClubForum` that knows its members (:class:`MemberDirectory`); ``lookups`` counts
    the questions, ``members = None`` makes every answer "don't know"."""

    members: tuple[str, ...] | None = MEMBERS
    lookups: list[str] = field(default_factory=list)

    def member_exists(self, name: str) -> bool | None:
        self.lookups.append(name)
        if self.members is None:
            return None
        return fold(name) in {fold(m) for m in self.members}

    def find_member(self, name: str) -> str | None:
        return name if self.member_exists(name) else None


def make(members: tuple[str, ...] | None = MEMBERS) -> tuple[MemberForum, RegistrationDesk]:
    forum = MemberForum(members=members)
    forum.add_topic(SOLO, "Inscriptions aux duels 1v1", "Arbitre", "Postez ici votre fiche.")
    forum.add_topic(DUO, "Inscriptions aux duels 2v2", "Arbitre", "Postez ici votre fiche.")
    clock = lambda: datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # noqa: E731
    storage = open_storage(":memory:")
    referee = Referee(
        storage, forum, board_url="http://board.invalid", platform="phpbb3", review_delay_s=0,
        now=clock, rng=random.Random(4), bot_username="Hibou",
    )  # fmt: skip
    regs = [
        Registration(SOLO, DUEL_FORUM, 0, "1v1", "fatigue", 3),
        Registration(DUO, DUEL_FORUM, 0, "2v2", "fatigue", 1, "serre"),
    ]
    desk = RegistrationDesk(storage, forum, referee, regs, now=clock, bot_username="Hibou")
    desk.attach()
    return forum, desk


def replies(forum: ClubForum, thread: int) -> list[str]:
    return [p.text for p in forum.posts[thread] if p.author == "Hibou"]


def rows(desk: RegistrationDesk, table: str) -> list[dict[str, Any]]:
    return list(desk.storage.db[table].rows_where(order_by="rowid"))


def post_row(desk: RegistrationDesk, post_id: int) -> dict[str, Any]:
    (row,) = desk.storage.db["registration_posts"].rows_where("post_id = ?", [post_id])
    return row


def duel_topics(forum: ClubForum) -> list[tuple[str, str]]:
    return [(str(t["title"]), forum.posts[tid][0].text) for tid, t in forum.topics.items()
            if tid not in (SOLO, DUO)]  # fmt: skip


MAELIS = (
    "Je m'inscris pour un duel en un contre un.\nNom : Maelis Dunbar\nAnnée : 6e année\n"
    "Type de magie : discrète\nPartenaire : Odric Fenwick, 5e année, flamboyant"
)


def test_the_issue_sign_up_pairs_maelis_with_odric_never_with_un() -> None:
    forum, desk = make()
    forum.add_post(SOLO, "Maelis Dunbar", MAELIS)
    desk.cycle()
    ((title, text),) = duel_topics(forum)
    assert title == "Duel : Odric Fenwick contre Maelis Dunbar"
    assert "Odric Fenwick : 5e année" in plain(text) and "magie flamboyante" in text
    assert sorted(str(pm["to"]) for pm in forum.pms) == ["Maelis Dunbar", "Odric Fenwick"]
    assert forum.lookups == ["Odric Fenwick"]  # looked up once: no recorded profile yet
    assert replies(forum, SOLO) == []


def test_a_partner_who_is_no_member_gets_a_french_reply_and_no_pairing() -> None:
    forum, desk = make()
    post = forum.add_post(SOLO, "Maelis Dunbar", MAELIS.replace("Odric Fenwick", "Odrik Fenwik"))
    desk.cycle()
    desk.cycle()
    (reply,) = replies(forum, SOLO)
    assert "aucun membre du forum ne s'appelle « Odrik Fenwik »" in plain(reply)
    assert "Vérifie l'orthographe du nom de ton adversaire" in reply
    assert (post_row(desk, post)["status"], post_row(desk, post)["code"]) == (
        "rejected", "unknown_partner")  # fmt: skip
    assert rows(desk, "queue") == [] and duel_topics(forum) == [] and forum.pms == []


def test_a_free_text_partner_is_kept_only_when_a_member() -> None:
    forum, desk = make()
    forum.add_post(SOLO, "Maelis Dunbar", "Je défie Odric Fenwick (5e année, flamboyant) ! "
                   "Moi : 6e année, magie discrète.")  # fmt: skip
    forum.add_post(SOLO, "Aurora Vexley", "5e année, brutale. Je défie Cassius Thorn !")
    forum.add_post(SOLO, "Blaise Corvin", "4e année, discret. Je défie le premier venu.")
    desk.cycle()
    (pairing,) = rows(desk, "queue")
    assert (pairing["first_character"], pairing["second_character"]) == (
        "Odric Fenwick", "Maelis Dunbar")  # fmt: skip
    (reply,) = replies(forum, SOLO)
    assert "ne s'appelle « Cassius Thorn »" in plain(reply)
    (request,) = rows(desk, "requests")[-1:]
    assert (request["player"], request["status"]) == ("Blaise Corvin", "open")


def test_mutual_sign_ups_are_paired_not_refused() -> None:
    forum, desk = make()
    forum.add_post(SOLO, "Maelis Dunbar", MAELIS + "\nEnjeux : 5 gallions")
    odric = forum.add_post(SOLO, "Odric Fenwick", "Nom : Odric Fenwick\nAnnée : 5\n"
                           "Type de magie : flamboyante\nAdversaire : Maelis Dunbar")  # fmt: skip
    desk.cycle()
    # no « Tu as déjà une inscription en cours »: one reply confirming the pairing (issue 23)
    (confirmed,) = replies(forum, SOLO)
    assert "confirme ton duel contre Maelis Dunbar" in confirmed and "retenue" not in confirmed
    assert (post_row(desk, odric)["status"], post_row(desk, odric)["code"]) == (
        "accepted", "mutual")  # fmt: skip
    (pairing,) = rows(desk, "queue")
    assert pairing["first_post_id"] == odric and pairing["first_player"] == "Odric Fenwick"
    ((_, text),) = duel_topics(forum)
    assert "Enjeux proposés par Maelis Dunbar : 5 gallions" in plain(text)
    assert "acceptés" not in text and "duellists" not in text


def test_stakes_written_by_both_are_accepted_by_both() -> None:
    forum, desk = make()
    forum.add_post(SOLO, "Maelis Dunbar", "Nom : Maelis Dunbar\nAnnée : 6\nType : discrète\n"
                   "Demande ouverte. Enjeux : 5 gallions")  # fmt: skip
    forum.add_post(SOLO, "Odric Fenwick", "Odric Fenwick, 5e année, flamboyant. "
                   "Enjeux : 5 Gallions")  # fmt: skip
    desk.cycle()
    ((_, text),) = duel_topics(forum)
    assert "Enjeux acceptés par les deux duellistes : 5 gallions" in plain(text)


def test_mutual_teammates_form_one_duo() -> None:
    forum, desk = make()
    forum.add_post(DUO, "Aurora Vexley", "Nom : Aurora Vexley\nAnnée : 5\nType : brutale\n"
                   "Coéquipier : Blaise Corvin, 4e année, discret")  # fmt: skip
    blaise = forum.add_post(DUO, "Blaise Corvin", "Deux contre deux avec Aurora Vexley ! "
                            "Je suis en 4e année, magie discrète.")  # fmt: skip
    forum.add_post(DUO, "Dorian Pike", "Nom : Dorian Pike\nAnnée : 6\nType : sournoise\n"
                   "Partenaire : Zoé Lune, 3e année, protectrice")  # fmt: skip
    desk.poll_registrations()
    desk.cycle()
    (confirmed,) = replies(forum, DUO)  # a confirmation, no refusal (issue 23)
    assert "confirme ton duo avec Aurora Vexley" in confirmed and "retenue" not in confirmed
    assert post_row(desk, blaise)["code"] == "mutual"
    (match,) = rows(desk, "duo_matches")
    assert "Blaise Corvin" in match["duos_json"] and "Zoé Lune" in match["duos_json"]


def test_a_sign_up_the_parser_is_not_sure_about_becomes_a_referee_task() -> None:
    forum, desk = make()
    text = "5e année, brutale. Je défie Odric Fenwick, ou sinon contre Cassius Thorne."
    post = forum.add_post(SOLO, "Maelis Dunbar", text)
    desk.cycle()
    desk.cycle()
    (task,) = rows(desk, "referee_tasks")
    assert (task["kind"], task["status"], task["duel_id"], task["post_id"]) == (
        "signup_unsure", "open", None, post)  # fmt: skip
    assert task["text"] == f'[quote="Maelis Dunbar" post_id={post}]{text}[/quote]'
    assert "plusieurs partenaires sont nommés" in task["note"]
    (reply,) = replies(forum, SOLO)
    assert "transmise à un arbitre" in reply and "plusieurs partenaires sont nommés" in reply
    assert post_row(desk, post)["status"] == "referee"
    assert rows(desk, "queue") == [] and rows(desk, "requests") == [] and duel_topics(forum) == []


def test_a_2v2_sign_up_in_the_1v1_thread_is_asked_not_guessed() -> None:
    forum, desk = make()
    forum.add_post(SOLO, "Maelis Dunbar", "Pour le DEUX CONTRE DEUX : 6e année, discrète.")
    desk.cycle()
    (task,) = rows(desk, "referee_tasks")
    assert "deux contre deux, dans le sujet des duels en un contre un" in task["note"]
    assert rows(desk, "requests") == []


def test_a_free_text_partner_the_board_cannot_confirm_is_asked() -> None:
    forum, desk = make(members=None)
    forum.add_post(SOLO, "Maelis Dunbar", "Je défie Odric Fenwick ! 6e année, magie discrète.")
    forum.add_post(SOLO, "Aurora Vexley", "Nom : Aurora Vexley\nAnnée : 5\nType : brutale\n"
                   "Adversaire : Cassius Thorne, 7e année, sournoise")  # fmt: skip
    desk.cycle()
    (task,) = rows(desk, "referee_tasks")
    assert task["duellist"] == "Maelis Dunbar" and "vérifier" in task["note"]
    (pairing,) = rows(desk, "queue")  # a labelled partner is taken as written
    assert pairing["first_character"] == "Cassius Thorne"


def test_the_fake_forum_is_a_member_directory() -> None:
    assert isinstance(MemberForum(), MemberDirectory)


def test_a_2v2_sign_up_with_one_line_per_member_forms_the_duo_not_a_referee_task() -> None:
    """Issue 23: « Joueur 1 : ... » / « Joueur 2 : ... » went to a referee (several_years)."""
    forum, desk = make(members=MEMBERS + ("Nerys Vale", "Ysolde Marr"))
    post = forum.add_post(DUO, "Nerys Vale", "Inscription en deux contre deux !\n"
                          "Joueur 1 : Nerys Vale, 4e année, brutale\n"
                          "Joueur 2 : Ysolde Marr, 5e année, discrète")  # fmt: skip
    desk.poll_registrations()
    assert (post_row(desk, post)["status"], post_row(desk, post)["code"]) == (
        "accepted", "teammate_named")  # fmt: skip
    assert rows(desk, "referee_tasks") == [] and replies(forum, DUO) == []
    (entry,) = rows(desk, "duo_entries")
    assert (entry["character"], entry["mate_character"], entry["status"]) == (
        "Nerys Vale", "Ysolde Marr", "duo")  # fmt: skip
    (ysolde,) = desk.storage.db["duellist_profiles"].rows_where("character = ?", ["Ysolde Marr"])
    assert (ysolde["year"], json.loads(ysolde["magic_types_json"])) == ("5", ["discrete"])
