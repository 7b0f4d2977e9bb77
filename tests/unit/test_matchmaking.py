"""1v1 matchmaking (seed 001, "Comment participer ?" and "Les types de duel proposés")."""

from __future__ import annotations

import pytest

from rules.errors import RuleError
from rules.matchmaking import Entrant, Lobby, Pairing, Request, add_request, finish, schedule


def e(player: str, pid: int, character: str | None = None) -> Entrant:
    return Entrant(player, character or f"{player}-perso", pid)


def test_seed001_open_request_matched_with_first_who_also_signs_up_alone() -> None:
    """seed 001: "La première personne à y répondre ou à déclarer être également seule sera
    votre adversaire." """
    lobby, ev = add_request(Lobby(), Request(e("ana", 1)))
    assert ev.outcome == "opened" and lobby.open_requests == (e("ana", 1),)
    lobby, ev = add_request(lobby, Request(e("bob", 2)))
    assert ev.outcome == "paired" and ev.reason == "also_alone"
    assert lobby.queue == (Pairing(e("ana", 1), e("bob", 2)),) and lobby.open_requests == ()


def test_seed001_open_request_matched_with_first_who_answers_it() -> None:
    """seed 001: "La première personne à y répondre [...] sera votre adversaire." """
    lobby, _ = add_request(Lobby(), Request(e("ana", 1)))
    lobby, _ = add_request(lobby, Request(e("bob", 2), partner="Zed"))
    lobby, ev = add_request(lobby, Request(e("cyd", 3), answers=1))
    assert ev.reason == "answered" and ev.pairing == Pairing(e("ana", 1), e("cyd", 3))
    lobby, ev = add_request(lobby, Request(e("dan", 4), answers=1))
    assert ev.outcome == "rejected" and ev.reason == "unknown_request"


def test_named_partner_pairs_at_once_and_takes_their_open_request() -> None:
    lobby, _ = add_request(Lobby(), Request(e("ana", 1, "Aurora")))
    lobby, ev = add_request(lobby, Request(e("bob", 2, "Cassius"), partner="aurora"))
    assert ev.reason == "named_partner" and lobby.open_requests == ()
    assert ev.pairing == Pairing(e("ana", 1, "Aurora"), e("bob", 2, "Cassius"))


def test_nobody_duels_their_own_character() -> None:
    lobby, _ = add_request(Lobby(), Request(e("ana", 1, "Aurora")))
    lobby, ev = add_request(lobby, Request(e("ana", 2, "Bellatrix")))
    assert ev.outcome == "rejected"
    assert lobby.open_requests == (e("ana", 1, "Aurora"),)


def test_seed001_at_most_three_1v1_then_queue_fifo() -> None:
    """seed 001: "Jusqu'à 3 duels en un contre un pourront être lancés en même temps. Au delà,
    une file d'attente sera instaurée." """
    lobby = Lobby()
    for i in range(5):
        lobby, _ = add_request(lobby, Request(e(f"p{i}a", 10 * i)))
        lobby, _ = add_request(lobby, Request(e(f"p{i}b", 10 * i + 1)))
    lobby, started = schedule(lobby)
    assert len(started) == 3 and len(lobby.running) == 3 and len(lobby.queue) == 2
    assert [p.first.player for p in started] == ["p0a", "p1a", "p2a"]
    lobby = finish(lobby, started[1])
    lobby, more = schedule(lobby)
    assert [p.first.player for p in more] == ["p3a"] and len(lobby.queue) == 1


def test_seed001_a_player_is_in_one_duel_at_a_time() -> None:
    """seed 001: "Un joueur ne peut participer qu'à un duel à la fois." Issue 23: a player in a
    running duel is not paired again (before, they could queue the next one, so the answer
    depended on whether their pairing had started between two reads)."""
    busy = Pairing(e("ana", 1, "Aurora"), e("bob", 2))
    lobby = Lobby(running=(busy,))
    lobby, refused = add_request(
        lobby, Request(e("ana", 3, "Bellatrix"), partner="X", partner_player="x")
    )
    assert (refused.outcome, refused.reason, refused.stage) == (
        "rejected", "already_signed_up", "running")  # fmt: skip
    lobby, _ = add_request(lobby, Request(e("cyd", 5), partner="Y", partner_player="y"))
    lobby, started = schedule(lobby)
    assert [p.players for p in started] == [("y", "cyd")]
    assert lobby.queue == ()
    lobby, again = add_request(lobby, Request(e("ana", 9, "Circé")))
    assert again.outcome == "rejected" and again.reason == "already_signed_up"
    lobby = finish(lobby, busy)
    lobby, queued = add_request(
        lobby, Request(e("ana", 10, "Bellatrix"), partner="X", partner_player="x")
    )
    assert queued.outcome == "paired"
    lobby, started = schedule(lobby)
    assert [p.players for p in started] == [("x", "ana")]
    with pytest.raises(RuleError):
        finish(lobby, busy)
