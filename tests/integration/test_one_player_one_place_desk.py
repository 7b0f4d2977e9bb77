"""One player, one place, through the registration desk (seed 001: "Un joueur ne peut
participer qu'à un duel à la fois"): players and characters are folded the same way
everywhere, no duel is formed or opened with one player or one character twice, and a bad duel
stored earlier is cancelled once (French replies) instead of wedging the cycle.

Reproducers from a break-it pass: Aurora names her teammate "Clemence Salpetre" (no accents,
no profile yet), then the real account "Clémence Salpêtre" signs up too."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

import forumbot.club.duo_registrations as registrations
from forumbot.club.registrations import RegistrationDesk
from forumbot.publish.typography import plain
from rules import duo_matchmaking
from rules.duo_matchmaking import DuoLobby
from tests.fakes.forum import ClubForum
from tests.integration.test_cross_kind_registrations import (
    DUEL_FORUM,
    DUO,
    SOLO,
    make,
    matches,
    pairings,
    post_row,
    replies,
    signup,
)


def unlinked(text: str) -> str:
    """``text`` with typography undone and post links unwrapped (issue 25: replies link
    « message n° 5 » to the post)."""
    return re.sub(r"\[/?url[^\]]*\]", "", plain(text))


def players_of(match: dict[str, Any]) -> list[str]:
    return [e["player"] for d in json.loads(match["duos_json"]) for e in d]


def duel_topics(forum: ClubForum) -> list[int]:
    return [t for t in forum.topics if t not in (SOLO, DUO)]


def _casefold_only(text: str) -> str:
    """How ``rules.duo_matchmaking`` compared players before the fix (case ignored, accents
    not)."""
    return " ".join(text.casefold().split())


def store_bad_match(monkeypatch: pytest.MonkeyPatch) -> tuple[ClubForum, RegistrationDesk, dict]:
    """The state the desk stored before the fix: Aurora + "Clemence Salpetre" against the
    account "Clémence Salpêtre" (playing the folded "Clemence Salpetre") + Dorian, queued."""
    forum, desk = make()
    posts = {"aurora": signup(forum, DUO, "Aurora Vexley", mate="Clemence Salpetre")}
    desk.cycle()
    posts["clemence"] = signup(forum, DUO, "Clémence Salpêtre", "Clémence Salpêtre")
    posts["dorian"] = signup(forum, DUO, "Dorian Pike")
    with monkeypatch.context() as patch:
        patch.setattr(duo_matchmaking, "player_key", _casefold_only)
        patch.setattr(DuoLobby, "characters", lambda self: set())
        patch.setattr(duo_matchmaking, "repeated", lambda entrants: None)
        desk.poll_registrations()  # sign-ups only: the match is stored, not opened
    (match,) = matches(desk)
    assert match["status"] == "queued"
    assert players_of(match) == [
        "Aurora Vexley",
        "Clemence Salpetre",
        "Clémence Salpêtre",
        "Dorian Pike",
    ]
    return forum, desk, posts


@pytest.mark.parametrize("character", ["Clémence Salpêtre", "Zoé Lune"])
def test_an_accented_account_cannot_join_the_2v2_its_unaccented_name_is_in(
    character: str,
) -> None:
    forum, desk = make()
    signup(forum, DUO, "Aurora Vexley", mate="Clemence Salpetre")
    desk.cycle()
    mine = signup(forum, DUO, "Clémence Salpêtre", character)
    signup(forum, DUO, "Dorian Pike")
    desk.cycle()
    desk.cycle()
    row = post_row(desk, mine)
    assert (row["status"], row["code"]) == ("rejected", "already_signed_up")
    (reply,) = replies(forum, DUO)
    assert "Clémence Salpêtre, ton inscription" in reply and "un seul duel" not in reply
    assert "on ne participe qu'à un duel à la fois" in reply
    assert matches(desk) == [] and duel_topics(forum) == []  # Dorian waits for a teammate


def test_an_accented_account_named_in_a_1v1_is_refused_a_2v2() -> None:
    forum, desk = make()
    signup(forum, SOLO, "Aurora Vexley", mate="Clemence Salpetre")
    desk.cycle()
    assert [(r["status"], r["first_player"]) for r in pairings(desk)] == [
        ("running", "Clemence Salpetre")
    ]
    mine = signup(forum, DUO, "Clémence Salpêtre", "Zoé Lune", mate="Dorian Pike")
    signup(forum, DUO, "Nyx Arden", mate="Sol Ravel")
    desk.cycle()
    assert post_row(desk, mine)["code"] == "busy_other_kind"
    assert matches(desk) == []


def test_a_stored_match_repeating_a_player_is_cancelled_once_and_the_cycle_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    forum, desk, posts = store_bad_match(monkeypatch)
    for _ in range(3):
        desk.cycle()  # raised RuleError "duo.duos" on every cycle before the fix
    (match,) = matches(desk)
    assert match["status"] == "cancelled" and match["topic_id"] is None
    assert match["last_error"] == "cancelled: unplayable"
    assert duel_topics(forum) == []  # no topic naming one person twice
    cancelled = [r for r in replies(forum, DUO) if "est annulé" in r]
    assert len(cancelled) == 3  # one under each sign-up of the match, once
    for author, post_id in (
        ("Aurora Vexley", posts["aurora"]),
        ("Clémence Salpêtre", posts["clemence"]),
        ("Dorian Pike", posts["dorian"]),
    ):
        (text,) = [unlinked(r) for r in cancelled if f"(message n° {post_id})" in unlinked(r)]
        assert text.startswith(f"{author}, le duel en deux contre deux formé avec ton inscription")
        assert "Clémence Salpêtre y occuperait deux places" in text
        assert "réinscris-toi ici, dès maintenant si tu veux" in text
    entries = desk.storage.db["duo_entries"].rows_where("status in ('duo', 'matched', 'merged')")
    assert list(entries) == []
    # registration is free again: two new duos form a match and it opens
    signup(forum, DUO, "Nyx Arden", mate="Sol Ravel")
    signup(forum, DUO, "Kim Larch", mate="Lea Moss")
    desk.cycle()
    assert [m["status"] for m in matches(desk)] == ["cancelled", "running"]
    assert len(duel_topics(forum)) == 1


def test_a_stored_match_whose_topic_is_posted_is_cancelled_with_a_notice_in_the_topic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The wedge of the finding: the topic was posted, then opening the duel raised."""
    forum, desk, _ = store_bad_match(monkeypatch)
    (match,) = matches(desk)
    subject = "Duel à deux contre deux : Aurora Vexley et Clemence Salpetre contre ..."
    topic = forum.create_topic(DUEL_FORUM, subject, "premier message", "m")
    desk.storage.db["duo_matches"].update(
        match["id"],
        {"status": "opening", "subject": subject, "idempotency_key": "k", "topic_id": topic,
         "dice_secret": "00" * 32, "environment": "serre", "attempts": 1},
    )  # fmt: skip
    desk.storage.db.conn.commit()
    desk.cycle()
    desk.cycle()
    (match,) = matches(desk)
    assert match["status"] == "cancelled" and match["duel_id"] is None
    notices = [p.text for p in forum.posts[topic] if "est annulé" in p.text]
    assert len(notices) == 1
    assert notices[0].startswith("Ce duel en deux contre deux est annulé avant d'avoir commencé")
    assert desk.storage.duel_by_topic(desk.board_id, topic) is None
    assert len([r for r in replies(forum, DUO) if "est annulé" in r]) == 3


def test_a_rules_error_while_opening_a_match_cancels_it_instead_of_wedging(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Even with the re-check out of the way, the engine's refusal cancels the match once."""
    forum, desk, _ = store_bad_match(monkeypatch)
    monkeypatch.setattr(registrations, "unplayable_reason", lambda *args: None)
    desk.cycle()  # the topic is posted, then the engine refuses the four duellists
    desk.cycle()
    (match,) = matches(desk)
    assert match["status"] == "cancelled"
    assert match["last_error"].startswith("cancelled: RuleError: duo.duos")
    (topic,) = duel_topics(forum)
    notices = [p.text for p in forum.posts[topic] if "est annulé" in p.text]
    assert len(notices) == 1 and "ne permet pas de l'ouvrir" in notices[0]


def test_1v1_an_accented_account_cannot_queue_beside_its_unaccented_name() -> None:
    forum, desk = make(max_concurrent=1)
    signup(forum, SOLO, "Nyx Arden")
    signup(forum, SOLO, "Sol Ravel")
    signup(forum, SOLO, "Aurora Vexley", mate="Clemence Salpetre")
    desk.cycle()
    assert [r["status"] for r in pairings(desk)] == ["running", "queued"]
    mine = signup(forum, SOLO, "Clémence Salpêtre", "Zoé Lune")
    signup(forum, SOLO, "Dorian Pike")
    desk.cycle()
    assert post_row(desk, mine)["code"] == "already_signed_up"
    assert len(pairings(desk)) == 2  # Dorian waits with an open request


def test_1v1_nobody_duels_their_own_character_under_another_spelling() -> None:
    forum, desk = make()
    signup(forum, SOLO, "Aurora Vexley", mate="Clemence Salpetre")
    desk.cycle()
    # the account, running already (it may queue its next duel), names its own character
    mine = signup(forum, SOLO, "Clémence Salpêtre", "Clemence Salpetre", mate="Clemence Salpetre")
    desk.cycle()
    assert post_row(desk, mine)["code"] == "self_partner"
    assert len(pairings(desk)) == 1


def test_1v1_a_stored_pairing_with_one_character_twice_is_cancelled_and_the_next_opens() -> None:
    forum, desk = make(max_concurrent=1)
    signup(forum, SOLO, "Aurora Vexley", mate="Clemence Salpetre")
    desk.cycle()
    (first,) = pairings(desk)
    bad_post = signup(forum, SOLO, "Clémence Salpêtre", "Clemence Salpetre")
    desk.storage.db["registration_posts"].insert(
        {"board_id": desk.board_id, "post_id": bad_post, "author": "Clémence Salpêtre",
         "status": "accepted", "code": "named_partner"}
    )  # fmt: skip
    # what an older desk could store: the character against itself, then a good pairing
    bad = {k: v for k, v in first.items() if k not in ("id", "duel_id", "topic_id")}
    bad.update(
        status="queued", first_player="Clemence Salpetre", second_player="Clémence Salpêtre",
        first_character="Clemence Salpetre", second_character="Clemence Salpetre",
        first_post_id=bad_post, second_post_id=bad_post, subject=None, idempotency_key=None,
    )  # fmt: skip
    bad_id = desk.storage.db["queue"].insert(bad).last_pk
    signup(forum, SOLO, "Nyx Arden")
    signup(forum, SOLO, "Sol Ravel")
    desk.cycle()
    # Aurora's duel ends: the slot is free for the next valid pairing, not the bad one
    desk.storage.update_duel(first["duel_id"], status="finished")
    for _ in range(3):
        desk.cycle()
    rows = {r["id"]: r for r in pairings(desk)}
    assert rows[bad_id]["status"] == "cancelled" and rows[bad_id]["topic_id"] is None
    assert [r["status"] for r in pairings(desk) if r["id"] > bad_id] == ["running"]
    (reply,) = [r for r in replies(forum, SOLO) if "est annulé" in r]
    assert reply.startswith("Clémence Salpêtre, le duel en un contre un formé avec ton")
    assert "Clémence Salpêtre y occuperait deux places" in reply
