"""Two-against-two matchmaking (pure): sign-ups -> duos -> matches of two duos.

RULES.md, "Registration and scheduling": "A sign-up post gives name, year, magic type(s) [...]
and, if chosen, the partner's name [...] (2v2: the teammate [D]). [...] In 2v2, lone sign-ups
pair up as teammates, and the first duo to answer an open duo becomes the opponents [D]. [...]
a player (the person, across all their characters) is in one duel at a time. One 2v2 duel at a
time; its registration closes while it runs."

- A sign-up naming a teammate is a duo at once.
- A lone sign-up that answers (quotes) a lone sign-up waiting for a teammate pairs with it;
  otherwise with the oldest lone sign-up waiting; otherwise it waits.
- A duo (named, or just paired) that answers an open duo faces it; otherwise the oldest open
  duo **[D]** (like 1v1's "matched with [...] who also signs up alone"); otherwise it waits
  as an open duo.

Whether registration is open at all (no 2v2 running) is the shell's to decide.

One duel per player across 1v1 and 2v2 (see :mod:`rules.matchmaking`, :class:`Engagements`):
sign-ups involving a player formed in a 1v1 are set aside (:func:`set_aside_duos`), and a formed
match starts only when none of its four players is in a started 1v1 (:func:`first_free_match`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rules.matchmaking import Entrant, character_key, player_key, repeated

Duo = tuple[Entrant, Entrant]
DuoOutcomeKind = Literal[
    "rejected", "waiting_teammate", "waiting_opponents", "matched", "confirmed"
]


@dataclass(frozen=True)
class DuoLobby:
    """A 2v2 registration thread's lobby.

    Players are compared with :func:`rules.matchmaking.player_key` and characters with
    :func:`rules.matchmaking.character_key` (case, accents and spacing ignored), as everywhere
    else.

    Attributes:
        lone: sign-ups waiting for a teammate, oldest first.
        duos: duos waiting for opponents, oldest first.
        busy: players (any spelling) in a 2v2 match queued or running.
        busy_characters: characters (any spelling) in a 2v2 match queued or running.
        matched: the duos of the matches queued or running (for confirmations: a sign-up
            naming one's teammate in one of them confirms it).
    """

    lone: tuple[Entrant, ...] = ()
    duos: tuple[Duo, ...] = ()
    busy: frozenset[str] = frozenset()
    busy_characters: frozenset[str] = frozenset()
    matched: tuple[Duo, ...] = ()

    def players(self) -> set[str]:
        """:func:`rules.matchmaking.player_key` of the players already signed up or busy."""
        out = {player_key(p) for p in self.busy}
        out |= {player_key(e.player) for e in self.lone}
        out |= {player_key(e.player) for d in self.duos for e in d}
        return out

    def characters(self) -> set[str]:
        """:func:`rules.matchmaking.character_key` of the characters already signed up or
        busy."""
        out = {character_key(c) for c in self.busy_characters}
        out |= {character_key(e.character) for e in self.lone}
        out |= {character_key(e.character) for d in self.duos for e in d}
        return out


@dataclass(frozen=True)
class DuoEvent:
    """What one sign-up did.

    Attributes:
        outcome: ``rejected``, ``waiting_teammate``, ``waiting_opponents``, ``matched`` or
            ``confirmed`` (the sign-up names the teammate the poster already has: nothing new).
        reason: ``already_signed_up``, ``self_partner``, ``teammate_in_duel`` (the named
            teammate is in a formed match), ``teammate_signed_up`` (the named teammate waits in
            another duo) (rejections); ``lone``, ``teammate_named``, ``answered_lone``,
            ``paired_lone``, ``answered_duo``, ``oldest_duo``, ``already_teammates``
            (confirmed).
        duo: the duo this sign-up belongs to now (None while it waits alone or is refused);
            when confirmed, the existing duo.
        match: ``(waiting duo, new duo)`` when two duos face each other.
        other: the teammate's character (confirmed), or the named teammate (refused for the
            teammate's situation); else None.
    """

    outcome: DuoOutcomeKind
    reason: str
    duo: Duo | None = None
    match: tuple[Duo, Duo] | None = None
    other: str | None = None


def add_duo_signup(
    lobby: DuoLobby,
    entrant: Entrant,
    teammate: Entrant | None = None,
    answers: int | None = None,
) -> tuple[DuoLobby, DuoEvent]:
    """Add one sign-up (``teammate``: the named teammate, same ``post_id``; ``answers``: the
    post id of a waiting sign-up or duo it quotes). Returns the new lobby and what happened.

    A sign-up naming the teammate the poster already has (a waiting duo, or a duo of a match
    queued or running) confirms it (``confirmed``, ``already_teammates``): nothing new is
    formed. A named teammate waiting alone joins the poster (their sign-up becomes the duo).

    Rejections: a player or a character already in the lobby or in a 2v2
    (``already_signed_up``), a named teammate in a formed match (``teammate_in_duel``) or in
    another waiting duo (``teammate_signed_up``), a teammate played by the same player or the
    same character (``self_partner``). A duo, and a match of two duos, never holds one player
    or one character twice (:func:`rules.matchmaking.repeated`): a waiting duo that would
    repeat one of the new duo's is passed over (only possible with a lobby stored before this
    check).
    """
    confirmed = _confirmation(lobby, entrant, teammate)
    if confirmed is not None:
        return lobby, confirmed
    newcomers = (entrant,) + ((teammate,) if teammate else ())
    taken, cast = lobby.players(), lobby.characters()
    if player_key(entrant.player) in taken or character_key(entrant.character) in cast:
        return lobby, DuoEvent("rejected", "already_signed_up")
    if teammate is not None and repeated(newcomers) is not None:
        return lobby, DuoEvent("rejected", "self_partner")
    if teammate is not None:
        mate_key = character_key(teammate.character)
        waiting = next(
            (e for e in lobby.lone
             if character_key(e.character) == mate_key and repeated((e, entrant)) is None),
            None,
        )  # fmt: skip
        if waiting is not None:
            lobby = replace(lobby, lone=tuple(e for e in lobby.lone if e != waiting))
            duo: Duo = (waiting, entrant)
        elif player_key(teammate.player) in taken or mate_key in cast:
            in_match = player_key(teammate.player) in {
                player_key(p) for p in lobby.busy
            } or mate_key in {character_key(c) for c in lobby.busy_characters}
            reason = "teammate_in_duel" if in_match else "teammate_signed_up"
            return lobby, DuoEvent("rejected", reason, other=teammate.character)
        else:
            duo = (entrant, teammate)
        reason = "teammate_named"
    else:
        free = [e for e in lobby.lone if repeated((e, entrant)) is None]
        mate = next((e for e in free if answers is not None and e.post_id == answers), None)
        reason = "answered_lone"
        if mate is None and free:
            mate, reason = free[0], "paired_lone"
        if mate is None:
            return replace(lobby, lone=lobby.lone + (entrant,)), DuoEvent(
                "waiting_teammate", "lone"
            )
        lobby = replace(lobby, lone=tuple(e for e in lobby.lone if e != mate))
        duo = (mate, entrant)
        answers = None  # a quote of a lone sign-up does not also choose the opponents
    rivals = [d for d in lobby.duos if repeated(d + duo) is None]
    rival = next(
        (d for d in rivals if answers is not None and answers in (d[0].post_id, d[1].post_id)),
        None,
    )
    if rival is not None:
        reason = "answered_duo"
    elif rivals:
        rival, reason = rivals[0], "oldest_duo" if reason == "teammate_named" else reason
    if rival is None:
        return replace(lobby, duos=lobby.duos + (duo,)), DuoEvent("waiting_opponents", reason, duo)
    lobby = replace(lobby, duos=tuple(d for d in lobby.duos if d != rival))
    return lobby, DuoEvent("matched", reason, duo, (rival, duo))


def _confirmation(lobby: DuoLobby, entrant: Entrant, teammate: Entrant | None) -> DuoEvent | None:
    """``confirmed`` when the poster is in a waiting duo or a matched one with the teammate
    they name (player or character), else None."""
    if teammate is None:
        return None
    me = (player_key(entrant.player), character_key(entrant.character))
    named = {player_key(teammate.player), character_key(teammate.character)}
    for duo in lobby.duos + lobby.matched:
        for i, member in enumerate(duo):
            if player_key(member.player) != me[0] and character_key(member.character) != me[1]:
                continue
            mate = duo[1 - i]
            if named & {player_key(mate.player), character_key(mate.character)}:
                return DuoEvent("confirmed", "already_teammates", duo, other=mate.character)
    return None


def set_aside_duos(lobby: DuoLobby, players: frozenset[str]) -> DuoLobby:
    """The lobby without the lone sign-ups and waiting duos that involve one of ``players``
    (:func:`rules.matchmaking.player_key` values, e.g. the players formed in a 1v1): nobody is
    teamed with or matched against them."""
    return replace(
        lobby,
        lone=tuple(e for e in lobby.lone if player_key(e.player) not in players),
        duos=tuple(d for d in lobby.duos if not {player_key(e.player) for e in d} & players),
    )


def first_free_match(
    matches: Sequence[tuple[Duo, Duo]], busy_elsewhere: frozenset[str]
) -> int | None:
    """The index of the oldest formed match (``matches`` oldest first) none of whose four
    players is in ``busy_elsewhere`` (:func:`rules.matchmaking.player_key` of the players in a
    started 1v1), or None. A held match keeps its place (seed 001: "Un joueur ne peut
    participer qu'à un duel à la fois")."""
    for index, (one, two) in enumerate(matches):
        if not {player_key(e.player) for e in one + two} & busy_elsewhere:
            return index
    return None


__all__ = [
    "Duo",
    "DuoEvent",
    "DuoLobby",
    "add_duo_signup",
    "first_free_match",
    "set_aside_duos",
]
