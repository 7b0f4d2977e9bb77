"""One duel per player across 1v1 and 2v2, the pure part (seed 001: "Un joueur ne peut
participer qu'à un duel à la fois"; RULES.md: "a player (the person, across all their
characters) is in one duel at a time")."""

from __future__ import annotations

from rules.duo_matchmaking import DuoLobby, add_duo_signup, first_free_match, set_aside_duos
from rules.matchmaking import (
    Engagement,
    Engagements,
    Entrant,
    Lobby,
    Pairing,
    Request,
    add_request,
    other_kind,
    player_key,
    schedule,
    set_aside,
)


def e(player: str, pid: int) -> Entrant:
    return Entrant(player, f"{player}-perso", pid)


BOARD = Engagements(
    (
        Engagement("Aurora Vexley", "1v1", "running", 1),
        Engagement("Cassius", "1v1", "running", 1),
        Engagement("Nyx", "1v1", "queued", 2),
        Engagement("Odric", "1v1", "queued", 2),
        Engagement("Sol", "1v1", "open", 40),
        Engagement("Dorian", "2v2", "running", 7),
        Engagement("Maelis", "2v2", "queued", 8),
        Engagement("Blaise", "2v2", "open", 50),
        Engagement("Sol", "2v2", "open", 51),
        Engagement("Lune", "2v2", "open", 51),
    )
)


def test_players_are_compared_as_persons_case_accents_and_spaces_ignored() -> None:
    assert player_key("  Aurora   VEXLEY ") == player_key("aurora vexley")
    assert player_key("Circé") == player_key("circe")
    assert other_kind("1v1") == "2v2" and other_kind("2v2") == "1v1"


def test_formed_means_queued_or_running_and_started_means_running() -> None:
    assert BOARD.formed_in("1v1") == {"aurora vexley", "cassius", "nyx", "odric"}
    assert BOARD.started_in("1v1") == {"aurora vexley", "cassius"}
    assert BOARD.formed_in("2v2") == {"dorian", "maelis"}
    assert BOARD.started_in("2v2") == {"dorian"}
    assert Engagement("x", "2v2", "queued", 1).formed and not BOARD.items[4].formed


def test_a_sign_up_clashes_with_a_formed_duel_of_the_other_kind_only() -> None:
    clash = BOARD.clash("2v2", ["aurora vexley"])
    assert clash is not None and (clash.kind, clash.stage) == ("1v1", "running")
    assert BOARD.clash("2v2", ["Paul", "NYX"]) == Engagement("Nyx", "1v1", "queued", 2)
    assert BOARD.clash("1v1", ["Maelis"]) == Engagement("Maelis", "2v2", "queued", 8)
    # an open sign-up elsewhere is no clash; a duel of the same kind is the kind's own business
    assert BOARD.clash("1v1", ["Blaise"]) is None and BOARD.clash("2v2", ["Sol"]) is None
    assert BOARD.clash("1v1", ["Aurora Vexley"]) is None
    # a running duel is named before a queued one
    both = Engagements((Engagement("P", "1v1", "queued", 9), Engagement("P", "1v1", "running", 3)))
    assert both.clash("2v2", ["p"]) == Engagement("P", "1v1", "running", 3)


def test_a_formed_duel_withdraws_the_open_sign_ups_of_the_other_kind_once_each() -> None:
    assert BOARD.withdrawals("1v1", ["sol", "lune", "Blaise"]) == (
        Engagement("Blaise", "2v2", "open", 50),
        Engagement("Sol", "2v2", "open", 51),  # the duo of Sol and Lune: one withdrawal
    )
    assert BOARD.withdrawals("2v2", ["Sol", "Dorian"]) == (Engagement("Sol", "1v1", "open", 40),)
    assert BOARD.withdrawals("2v2", ["Aurora Vexley"]) == ()  # formed, not open: never withdrawn


def test_set_aside_players_are_never_matched_in_1v1() -> None:
    lobby, _ = add_request(Lobby(), Request(e("Maelis", 1)))
    lobby, _ = add_request(lobby, Request(e("bob", 2)))
    assert lobby.queue == (Pairing(e("Maelis", 1), e("bob", 2)),)  # without setting aside
    lobby, _ = add_request(Lobby(), Request(e("Maelis", 1)))
    aside = set_aside(lobby, BOARD.formed_in("2v2"))
    assert aside.open_requests == ()
    aside, event = add_request(aside, Request(e("bob", 2)))
    assert event.outcome == "opened" and aside.open_requests == (e("bob", 2),)


def test_set_aside_players_are_never_teamed_or_matched_in_2v2() -> None:
    lone = (e("Nyx", 1), e("Paul", 2))
    duos = ((e("Ana", 3), e("Odric", 3)), (e("Zoe", 4), e("Yann", 4)))
    lobby = set_aside_duos(DuoLobby(lone=lone, duos=duos), BOARD.formed_in("1v1"))
    assert lobby.lone == (e("Paul", 2),) and lobby.duos == ((e("Zoe", 4), e("Yann", 4)),)
    lobby, event = add_duo_signup(lobby, e("Kim", 5))
    assert event.duo == (e("Paul", 2), e("Kim", 5)) and event.outcome == "matched"
    assert event.match == ((e("Zoe", 4), e("Yann", 4)), (e("Paul", 2), e("Kim", 5)))


def test_schedule_holds_a_pairing_whose_player_is_in_a_started_2v2() -> None:
    held = Pairing(e("Dorian", 1), e("bob", 2))
    free = Pairing(e("cyd", 3), e("dan", 4))
    lobby = Lobby(queue=(held, free))
    lobby, started = schedule(lobby, busy_elsewhere=BOARD.started_in("2v2"))
    assert started == (free,) and lobby.queue == (held,)
    lobby, started = schedule(lobby)  # the 2v2 is over
    assert started == (held,) and lobby.queue == ()


def test_the_oldest_match_with_no_player_in_a_started_1v1_opens() -> None:
    busy = BOARD.started_in("1v1")
    held = ((e("Cassius", 1), e("b", 1)), (e("c", 2), e("d", 2)))
    free = ((e("w", 3), e("x", 3)), (e("y", 4), e("z", 4)))
    assert first_free_match([held, free], busy) == 1
    assert first_free_match([held], busy) is None
    assert first_free_match([held, free], frozenset()) == 0
    assert first_free_match([], busy) is None
