"""One player, one place (pure part): no 1v1 pairing and no 2v2 duo or match ever holds one
player or one character twice, with players and characters folded the same way everywhere
(seed 001: "Un joueur ne peut participer qu'à un duel à la fois"; RULES.md: "a player (the
person, across all their characters) is in one duel at a time").

Reproducers from a break-it pass: an account spelled with accents ("Clémence Salpêtre") could
join a 2v2 a teammate had already named without accents ("Clemence Salpetre")."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from parsers.registration import fold
from rules.duo_matchmaking import DuoLobby, add_duo_signup
from rules.matchmaking import (
    Entrant,
    Lobby,
    Pairing,
    Repeat,
    Request,
    add_request,
    character_key,
    player_key,
    repeated,
    schedule,
    withdraw,
)

AURORA = Entrant("Aurora Vexley", "Aurora Vexley", 10)
NAMED = Entrant("Clemence Salpetre", "Clemence Salpetre", 10)  # named by Aurora, no accents
DORIAN = Entrant("Dorian Pike", "Dorian Pike", 12)


@given(st.text(max_size=30))
def test_player_and_character_keys_fold_like_the_profiles(text: str) -> None:
    assert player_key(text) == character_key(text) == fold(text)


def test_accents_case_spacing_and_curly_apostrophes_are_ignored() -> None:
    assert player_key("Clémence  SALPÊTRE") == player_key("clemence salpetre")
    assert character_key("Ysolde d’Arc") == character_key("ysolde d'arc")


def test_repeated_names_the_first_player_or_character_found_twice() -> None:
    assert repeated((AURORA, NAMED, DORIAN)) is None
    accented = Entrant("Clémence Salpêtre", "Zoé Lune", 11)
    assert repeated((AURORA, NAMED, accented)) == Repeat("player", "Clémence Salpêtre")
    other_account = Entrant("Someone Else", "clemence SALPETRE", 11)
    assert repeated((NAMED, other_account)) == Repeat("character", "clemence SALPETRE")
    assert repeated(()) is None


def test_2v2_an_accented_account_is_already_signed_up_through_its_named_self() -> None:
    """The reproducer: the pure part answered ``waiting_teammate``."""
    lobby = DuoLobby(duos=((AURORA, NAMED),))
    for character in ("Clémence Salpêtre", "Zoé Lune"):
        after, event = add_duo_signup(lobby, Entrant("Clémence Salpêtre", character, 11))
        assert (event.outcome, event.reason) == ("rejected", "already_signed_up")
        assert after == lobby


def test_2v2_busy_players_and_characters_are_compared_folded() -> None:
    busy = DuoLobby(busy=frozenset({"Clemence Salpetre"}))
    _, event = add_duo_signup(busy, Entrant("CLÉMENCE salpêtre", "Zoé Lune", 11))
    assert event.reason == "already_signed_up"
    cast = DuoLobby(busy_characters=frozenset({"Zoé Lune"}))
    _, event = add_duo_signup(cast, Entrant("Another Account", "zoe lune", 11))
    assert event.reason == "already_signed_up"
    _, event = add_duo_signup(cast, Entrant("Another Account", "Other Name", 11))
    assert event.outcome == "waiting_teammate"


def test_2v2_a_teammate_who_is_the_poster_or_the_same_character_is_refused() -> None:
    me = Entrant("Clémence Salpêtre", "Zoé Lune", 11)
    _, event = add_duo_signup(DuoLobby(), me, Entrant("Clemence Salpetre", "Nyx Arden", 11))
    assert (event.outcome, event.reason) == ("rejected", "self_partner")
    _, event = add_duo_signup(DuoLobby(), me, Entrant("Nyx Arden", "ZOE LUNE", 11))
    assert (event.outcome, event.reason) == ("rejected", "self_partner")


def test_2v2_a_stored_duo_that_would_repeat_a_player_is_passed_over() -> None:
    """A lobby stored before the check holds two duos sharing a player: the new duo never faces
    the one it would repeat, it faces the next one (or waits)."""
    lone = Entrant("Clémence Salpêtre", "Zoé Lune", 11)
    other = (Entrant("Nyx Arden", "Nyx Arden", 13), Entrant("Sol Ravel", "Sol Ravel", 13))
    lobby = DuoLobby(lone=(lone,), duos=((AURORA, NAMED), other))
    after, event = add_duo_signup(lobby, DORIAN)
    assert event.outcome == "matched" and event.match == (other, (lone, DORIAN))
    assert after.duos == ((AURORA, NAMED),)
    lobby = DuoLobby(lone=(lone,), duos=((AURORA, NAMED),))
    after, event = add_duo_signup(lobby, DORIAN, answers=10)  # quoting the duo changes nothing
    assert (event.outcome, event.duo) == ("waiting_opponents", (lone, DORIAN))
    assert after.duos == ((AURORA, NAMED), (lone, DORIAN))


def test_1v1_an_accented_account_with_a_queued_pairing_is_already_signed_up() -> None:
    lobby = Lobby(queue=(Pairing(AURORA, NAMED),))
    _, event = add_request(lobby, Request(Entrant("Clémence Salpêtre", "Zoé Lune", 11)))
    assert (event.outcome, event.reason, event.stage) == ("rejected", "already_signed_up", "queued")
    # the same character under another account, while it waits in the queue
    _, event = add_request(lobby, Request(Entrant("Someone Else", "clémence salpêtre", 11)))
    assert event.reason == "already_signed_up"


def test_1v1_nobody_duels_their_own_character_under_another_spelling() -> None:
    """The account "Clémence Salpêtre" playing "Clemence Salpetre" names "Clemence Salpetre"
    (profile recorded for the player "Clemence Salpetre"): one character on both sides."""
    me = Entrant("Clémence Salpêtre", "Clemence Salpetre", 11)
    request = Request(me, partner="Clemence Salpetre", partner_player="Clemence Salpetre")
    _, event = add_request(Lobby(running=(Pairing(AURORA, NAMED),)), request)
    assert (event.outcome, event.reason) == ("rejected", "self_partner")
    # another player's character under a name folding to mine: still one character twice
    request = Request(me, partner="CLEMENCE salpêtre", partner_player="Nyx Arden")
    _, event = add_request(Lobby(), request)
    assert (event.outcome, event.reason) == ("rejected", "self_partner")


def test_1v1_answers_and_lone_sign_ups_never_pair_a_player_with_themselves() -> None:
    mine = Entrant("Clemence Salpetre", "Clemence Salpetre", 10)
    lobby = Lobby(open_requests=(mine,))
    again = Entrant("Clémence Salpêtre", "Zoé Lune", 11)
    _, event = add_request(lobby, Request(again, answers=10))
    assert event.reason == "already_signed_up"
    # a running duel stops a new sign-up (issue 23: one duel at a time, queued or running),
    # whatever the spelling
    lobby = Lobby(open_requests=(mine,), running=(Pairing(AURORA, DORIAN),))
    after, event = add_request(lobby, Request(Entrant("aurora VEXLEY", "Circé", 14)))
    assert (event.outcome, event.reason) == ("rejected", "already_signed_up")
    assert after == lobby


def test_schedule_and_withdraw_compare_players_folded() -> None:
    running = Pairing(AURORA, DORIAN)
    held = Pairing(Entrant("AURORA vexley", "Circé", 20), Entrant("Nyx", "Nyx", 21))
    free = Pairing(Entrant("Sol", "Sol", 22), Entrant("Ana", "Ana", 23))
    lobby, started = schedule(Lobby(queue=(held, free), running=(running,)))
    assert started == (free,) and lobby.queue == (held,)
    # a character already running holds a pairing even under another account
    clone = Pairing(Entrant("Other", "dorian pike", 24), Entrant("Kim", "Kim", 25))
    _, started = schedule(Lobby(queue=(clone,), running=(running,)))
    assert started == ()
    assert withdraw(Lobby(queue=(held, free)), "Aurora Vexley").queue == (free,)
    opened = Lobby(open_requests=(Entrant("Clémence", "Zoé", 30),))
    assert withdraw(opened, "clemence").open_requests == ()
