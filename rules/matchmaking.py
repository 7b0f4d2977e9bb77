"""Sign-ups to duels: open requests, pairing, the 1v1 queue (pure, no storage, no clock).

Seed 001: "Si vous n'avez pas d'adversaire, il vous est possible de faire une demande ouverte.
La première personne à y répondre ou à déclarer être également seule sera votre adversaire."
"Jusqu'à 3 duels en un contre un pourront être lancés en même temps. Au delà, une file
d'attente sera instaurée. Un joueur ne peut participer qu'à un duel à la fois."

A *player* is the person behind one or more characters (``Entrant.player``); a character is
the duellist. The shell keeps a :class:`Lobby` per registration thread and feeds it sign-ups in
post order (:func:`add_request`), then asks :func:`schedule` which duels may start.

One duel per player **across both kinds** (RULES.md "Registration and scheduling": "a player
(the person, across all their characters) is in one duel at a time"): :class:`Engagements` says
where each player stands in 1v1 and 2v2 (an open sign-up, a formed duel waiting for its slot, a
duel started) and decides, for the shell, **[D]** each:

- a sign-up of one kind from a player (or naming a partner) who is in a *formed* duel of the
  other kind (queued, opening or running, not finished) is refused (``busy_other_kind``);
- a player may wait with an open sign-up in both kinds; the moment a duel of one kind is formed
  for them, their open sign-ups of the other kind are withdrawn
  (:meth:`Engagements.withdrawals`), and meanwhile a player formed in the other kind is set
  aside from a lobby (:func:`set_aside`) so nobody is matched with them;
- a duel starts only when none of its players is in a started duel of the other kind
  (:meth:`Engagements.started_in`, ``schedule(..., busy_elsewhere=...)``); it keeps its place.

Players are compared with :func:`player_key` (case, accents and spacing ignored).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from rules.errors import RuleError

MAX_CONCURRENT_1V1 = 3

#: Where a player stands: an open sign-up, a formed duel waiting for its slot, a duel started.
Stage = Literal["open", "queued", "running"]


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    return " ".join(
        "".join(c for c in decomposed if not unicodedata.combining(c)).casefold().split()
    )


@dataclass(frozen=True)
class Entrant:
    """A character signing up.

    Attributes:
        player: the person (stable key across their characters, e.g. the forum account's owner).
        character: the character's name (the duellist).
        post_id: the sign-up post.
    """

    player: str
    character: str
    post_id: int


@dataclass(frozen=True)
class Request:
    """A sign-up post read for matchmaking.

    Attributes:
        entrant: who signs up.
        partner: the chosen opponent's character name, or None (an open request, or an answer).
        partner_player: the chosen opponent's player, when known.
        answers: the post id of the open request this sign-up answers, or None.
    """

    entrant: Entrant
    partner: str | None = None
    partner_player: str | None = None
    answers: int | None = None


@dataclass(frozen=True)
class Pairing:
    """Two entrants who will duel, in sign-up order."""

    first: Entrant
    second: Entrant

    @property
    def players(self) -> tuple[str, str]:
        """The two players."""
        return (self.first.player, self.second.player)


@dataclass(frozen=True)
class Lobby:
    """The state of a 1v1 registration thread.

    Attributes:
        open_requests: lone sign-ups waiting for an opponent, oldest first.
        queue: pairings waiting for a free slot, oldest first (FIFO).
        running: pairings whose duel is being opened or running (not finished).
        elsewhere: pairings queued in another thread of the same kind (their players are in a
            formed duel, but this lobby does not schedule them).
    """

    open_requests: tuple[Entrant, ...] = ()
    queue: tuple[Pairing, ...] = ()
    running: tuple[Pairing, ...] = ()
    elsewhere: tuple[Pairing, ...] = ()

    def formed(self) -> tuple[tuple[Pairing, Stage], ...]:
        """Every formed pairing (queued here, queued elsewhere, running) with its stage:
        ``"running"`` first, then ``"queued"`` (oldest first in each)."""
        return tuple((p, "running") for p in self.running) + tuple(
            (p, "queued") for p in self.queue + self.elsewhere
        )

    def engaged(self, player: str, character: str | None = None) -> tuple[Pairing, Stage] | None:
        """The formed pairing (and its stage) holding ``player`` (:func:`player_key`) or
        ``character`` (:func:`character_key`), running ones first; None when neither is in a
        formed 1v1 (seed 001: "Un joueur ne peut participer qu'à un duel à la fois")."""
        pk = player_key(player)
        ck = character_key(character) if character is not None else None
        for pairing, stage in self.formed():
            for e in (pairing.first, pairing.second):
                same_character = ck is not None and character_key(e.character) == ck
                if player_key(e.player) == pk or same_character:
                    return pairing, stage
        return None

    def busy_players(self) -> frozenset[str]:
        """:func:`player_key` of the players in a running duel (seed 001: "Un joueur ne peut
        participer qu'à un duel à la fois")."""
        return frozenset(player_key(p) for pairing in self.running for p in pairing.players)

    def waiting_players(self) -> frozenset[str]:
        """:func:`player_key` of the players with an open request or a queued pairing."""
        return frozenset(player_key(e.player) for e in self.open_requests) | frozenset(
            player_key(p) for pairing in self.queue + self.elsewhere for p in pairing.players
        )

    def waiting_characters(self) -> frozenset[str]:
        """:func:`character_key` of the characters with an open request or in a queued
        pairing."""
        return frozenset(character_key(e.character) for e in self.open_requests) | frozenset(
            character_key(e.character)
            for pairing in self.queue + self.elsewhere
            for e in (pairing.first, pairing.second)
        )


MatchOutcome = Literal["opened", "paired", "confirmed", "rejected"]


@dataclass(frozen=True)
class MatchEvent:
    """What :func:`add_request` did.

    Attributes:
        outcome: ``"opened"`` (an open request), ``"paired"`` (queued as a pairing),
            ``"confirmed"`` (the sign-up names the player the poster is already paired with:
            that pairing stands, nothing new is formed), ``"rejected"``.
        pairing: the new pairing when paired, the existing one when confirmed.
        reason: a code: ``"open_request"``, ``"named_partner"``, ``"answered"``,
            ``"also_alone"``, ``"already_paired"`` (confirmed); rejections:
            ``"already_signed_up"`` (the poster has an open request, or is in a formed duel,
            queued or running: ``stage`` says which), ``"partner_in_duel"``
            (the named partner is in a formed duel with someone else), ``"partner_signed_up"``
            (the named partner's player waits with another character), ``"self_partner"``,
            ``"unknown_request"``.
        stage: for ``already_paired``, ``already_signed_up`` and ``partner_in_duel``:
            ``"queued"`` or ``"running"`` (the formed pairing's), or
            ``"open"`` (an open request); else None.
        other: the pairing partner's character (confirmed), or the named partner (refused
            for the partner's situation); else None.
    """

    outcome: MatchOutcome
    pairing: Pairing | None
    reason: str
    stage: Stage | None = None
    other: str | None = None


def add_request(lobby: Lobby, request: Request) -> tuple[Lobby, MatchEvent]:
    """Add one sign-up (in post order) to the lobby.

    Rules (players compared with :func:`player_key`, characters with :func:`character_key`;
    seed 001: "Un joueur ne peut participer qu'à un duel à la fois"; a formed duel is one
    queued or running, and both count alike, so the answer never depends on whether a
    queued pairing was started between two reads **[D]**):
        - a sign-up naming the player (or character) the poster is already paired with, queued
          or running, *confirms* that pairing (``confirmed``, ``already_paired``): nothing new
          is formed;
        - a player or a character who has an open request, or is in a formed duel (queued or
          running), is rejected (``already_signed_up``: one code whatever the stage; the
          event's ``stage`` tells them apart for the reply);
        - a named partner pairs at once (with their open request when they have one); a
          partner in a formed duel with someone else is refused (``partner_in_duel``, with the
          stage), one whose player waits with another character too (``partner_signed_up``);
        - an answer to an open request pairs with it (``answered``);
        - a lone sign-up pairs with the oldest open request of another player (seed 001: "ou à
          déclarer être également seule"), else opens a request;
        - nobody duels one of their own characters, nor the same character
          (``self_partner``): no pairing ever holds one player or one character twice
          (:func:`repeated`).

    Returns:
        (new lobby, :class:`MatchEvent`).
    """
    me = request.entrant
    confirmed = _confirmation(lobby, request)
    if confirmed is not None:
        return lobby, confirmed
    if request.partner is not None:
        named = Entrant(request.partner_player or request.partner, request.partner, me.post_id)
        if repeated((named, me)) is not None:
            return lobby, MatchEvent("rejected", None, "self_partner")
    engaged = lobby.engaged(me.player, me.character)
    if engaged is not None:
        return lobby, MatchEvent("rejected", None, "already_signed_up", stage=engaged[1])
    if (
        player_key(me.player) in lobby.waiting_players()
        or character_key(me.character) in lobby.waiting_characters()
    ):
        return lobby, MatchEvent("rejected", None, "already_signed_up", stage="open")
    if request.partner is not None:
        wanted = character_key(request.partner)
        found = next((e for e in lobby.open_requests if character_key(e.character) == wanted), None)
        partner = found or Entrant(
            player=request.partner_player or request.partner,
            character=request.partner,
            post_id=me.post_id,
        )
        if repeated((partner, me)) is not None:
            return lobby, MatchEvent("rejected", None, "self_partner")
        if found is None:
            busy = lobby.engaged(partner.player, partner.character)
            if busy is not None:
                return lobby, MatchEvent(
                    "rejected", None, "partner_in_duel", stage=busy[1], other=request.partner
                )
            if player_key(partner.player) in lobby.waiting_players():
                return lobby, MatchEvent(
                    "rejected", None, "partner_signed_up", stage="open", other=request.partner
                )
        return _pair(lobby, found or partner, me, "named_partner", remove=found)
    if request.answers is not None:
        target = next((e for e in lobby.open_requests if e.post_id == request.answers), None)
        if target is None:
            return lobby, MatchEvent("rejected", None, "unknown_request")
        if repeated((target, me)) is not None:
            return lobby, MatchEvent("rejected", None, "self_partner")
        return _pair(lobby, target, me, "answered", remove=target)
    first = next((e for e in lobby.open_requests if repeated((e, me)) is None), None)
    if first is not None:
        return _pair(lobby, first, me, "also_alone", remove=first)
    new = replace(lobby, open_requests=lobby.open_requests + (me,))
    return new, MatchEvent("opened", None, "open_request")


def _confirmation(lobby: Lobby, request: Request) -> MatchEvent | None:
    """``confirmed`` when ``request`` names the player (or character) its poster is already
    paired with in a formed pairing, else None."""
    if request.partner is None:
        return None
    me = request.entrant
    engaged = lobby.engaged(me.player, me.character)
    if engaged is None:
        return None
    pairing, stage = engaged
    first, second = pairing.first, pairing.second
    is_first = player_key(first.player) == player_key(me.player) or character_key(
        first.character
    ) == character_key(me.character)
    other = second if is_first else first
    named = {character_key(request.partner)}
    if request.partner_player:
        named.add(player_key(request.partner_player))
    if named & {character_key(other.character), player_key(other.player)}:
        return MatchEvent("confirmed", pairing, "already_paired", stage=stage,
                          other=other.character)  # fmt: skip
    return None


def _pair(
    lobby: Lobby, first: Entrant, second: Entrant, reason: str, *, remove: Entrant | None
) -> tuple[Lobby, MatchEvent]:
    if repeated((first, second)) is not None:  # every caller checked; never form one anyway
        return lobby, MatchEvent("rejected", None, "self_partner")
    pairing = Pairing(first, second)
    open_requests = tuple(e for e in lobby.open_requests if e != remove)
    new = replace(lobby, open_requests=open_requests, queue=lobby.queue + (pairing,))
    return new, MatchEvent("paired", pairing, reason)


def schedule(
    lobby: Lobby,
    max_concurrent: int = MAX_CONCURRENT_1V1,
    *,
    busy_elsewhere: frozenset[str] = frozenset(),
) -> tuple[Lobby, tuple[Pairing, ...]]:
    """Start queued duels while fewer than ``max_concurrent`` run (seed 001: "Jusqu'à 3 duels en
    un contre un pourront être lancés en même temps. Au delà, une file d'attente sera
    instaurée.").

    The queue is first in, first out; a pairing whose player (:func:`player_key`) or character
    (:func:`character_key`) is already in a running duel keeps its place and the next one may
    start (seed 001: "Un joueur ne peut participer qu'à un duel à la fois").

    ``busy_elsewhere``: :func:`player_key` of the players in a started duel of another kind (a
    2v2, :meth:`Engagements.started_in`); a pairing holding one of them keeps its place too.

    Returns:
        (new lobby, pairings started now, in order).

    Raises:
        RuleError: ``max_concurrent`` < 1 (``"matchmaking.max_concurrent"``).
    """
    if max_concurrent < 1:
        raise RuleError("matchmaking.max_concurrent", f"must be >= 1, got {max_concurrent}")
    running = list(lobby.running)
    busy = set(lobby.busy_players())
    busy_characters = {
        character_key(e.character) for p in lobby.running for e in (p.first, p.second)
    }
    started: list[Pairing] = []
    waiting: list[Pairing] = []
    for pairing in lobby.queue:
        keys = {player_key(p) for p in pairing.players}
        characters = {character_key(e.character) for e in (pairing.first, pairing.second)}
        free = not (keys & busy) and not (keys & busy_elsewhere)
        free = free and not (characters & busy_characters)
        if len(running) < max_concurrent and free:
            running.append(pairing)
            started.append(pairing)
            busy.update(keys)
            busy_characters.update(characters)
        else:
            waiting.append(pairing)
    return replace(lobby, queue=tuple(waiting), running=tuple(running)), tuple(started)


def finish(lobby: Lobby, pairing: Pairing) -> Lobby:
    """The duel of ``pairing`` is over: its slot is free.

    Raises:
        RuleError: the pairing is not running (``"matchmaking.finish"``).
    """
    if pairing not in lobby.running:
        raise RuleError("matchmaking.finish", "this pairing is not running")
    return replace(lobby, running=tuple(p for p in lobby.running if p != pairing))


def withdraw(lobby: Lobby, player: str) -> Lobby:
    """Remove a player's open request and queued pairings (they withdrew their sign-up;
    players compared with :func:`player_key`)."""
    key = player_key(player)
    return replace(
        lobby,
        open_requests=tuple(e for e in lobby.open_requests if player_key(e.player) != key),
        queue=tuple(p for p in lobby.queue if key not in {player_key(q) for q in p.players}),
        elsewhere=tuple(
            p for p in lobby.elsewhere if key not in {player_key(q) for q in p.players}
        ),
    )


# -- one duel per player across 1v1 and 2v2 ------------------------------------------------------

DuelKind = Literal["1v1", "2v2"]


def player_key(player: str) -> str:
    """How players are compared across both kinds: the forum account with case, accents,
    spacing and curly apostrophes ignored (``"Aurora  Vexley"`` and ``"aurora vexley"`` are one
    player, so are ``"Clémence Salpêtre"`` and ``"Clemence Salpetre"``). The same folding as
    :func:`parsers.registration.fold`, which keys the duellist profiles."""
    return _fold(player)


def character_key(character: str) -> str:
    """How characters are compared: the same folding as :func:`player_key` (and as the
    duellist profiles' ``character_key``): ``"Zoé Lune"`` and ``"zoe lune"`` are one
    character."""
    return _fold(character)


@dataclass(frozen=True)
class Repeat:
    """One player or one character found twice among the duellists of one duel.

    Attributes:
        what: ``"player"`` (the same person on two places) or ``"character"`` (the same
            duellist twice).
        name: the name as written on its second appearance.
    """

    what: Literal["player", "character"]
    name: str


def repeated(entrants: Iterable[Entrant]) -> Repeat | None:
    """The first player (:func:`player_key`) or character (:func:`character_key`) found twice
    among ``entrants`` (the duellists of one duel, any kind), or None when every place holds
    another person and another character. A duel holding a :class:`Repeat` is never formed nor
    opened (seed 001: "Un joueur ne peut participer qu'à un duel à la fois"; a duellist cannot
    fight beside or against themselves)."""
    players: set[str] = set()
    characters: set[str] = set()
    for e in entrants:
        if player_key(e.player) in players:
            return Repeat("player", e.player)
        if character_key(e.character) in characters:
            return Repeat("character", e.character)
        players.add(player_key(e.player))
        characters.add(character_key(e.character))
    return None


def other_kind(kind: DuelKind) -> DuelKind:
    """``"1v1"`` -> ``"2v2"`` and back."""
    return "2v2" if kind == "1v1" else "1v1"


@dataclass(frozen=True)
class Engagement:
    """Where one player stands in one kind of duel.

    Attributes:
        player: the player (forum account) as stored.
        kind: ``"1v1"`` or ``"2v2"``.
        stage: ``"open"`` (a sign-up not matched yet: a 1v1 open request, a 2v2 sign-up waiting
            for a teammate, or a duo waiting for opponents), ``"queued"`` (a formed duel waiting
            for its slot) or ``"running"`` (a duel being opened or running, not finished).
        ref: the shell's handle: the sign-up's post id when ``open``, else the duel's row id.
    """

    player: str
    kind: DuelKind
    stage: Stage
    ref: int

    @property
    def formed(self) -> bool:
        """True when the player is in a formed duel (queued or running)."""
        return self.stage != "open"


@dataclass(frozen=True)
class Engagements:
    """Every player's engagements on one board, both kinds (seed 001: "Un joueur ne peut
    participer qu'à un duel à la fois"; see the module docstring for the reading)."""

    items: tuple[Engagement, ...] = ()

    def formed_in(self, kind: DuelKind) -> frozenset[str]:
        """:func:`player_key` of the players in a formed duel (queued or running) of ``kind``."""
        return frozenset(player_key(e.player) for e in self.items if e.kind == kind and e.formed)

    def started_in(self, kind: DuelKind) -> frozenset[str]:
        """:func:`player_key` of the players in a started duel (opening or running) of
        ``kind``."""
        return frozenset(
            player_key(e.player) for e in self.items if e.kind == kind and e.stage == "running"
        )

    def clash(self, kind: DuelKind, players: Iterable[str]) -> Engagement | None:
        """For a sign-up of ``kind`` involving ``players`` (the poster, and a named partner):
        the first formed duel of the *other* kind that one of them is in (a running one
        first), or None. Not None means refused (``busy_other_kind``)."""
        keys = {player_key(p) for p in players}
        found = [
            e
            for e in self.items
            if e.kind == other_kind(kind) and e.formed and player_key(e.player) in keys
        ]
        found.sort(key=lambda e: (e.stage != "running", e.ref))
        return found[0] if found else None

    def withdrawals(self, kind: DuelKind, players: Iterable[str]) -> tuple[Engagement, ...]:
        """A duel of ``kind`` was just formed for ``players``: their open sign-ups of the other
        kind, to withdraw (one per sign-up ``ref``, oldest first)."""
        keys = {player_key(p) for p in players}
        out: dict[int, Engagement] = {}
        for e in self.items:
            if e.kind == other_kind(kind) and e.stage == "open" and player_key(e.player) in keys:
                out.setdefault(e.ref, e)
        return tuple(out[ref] for ref in sorted(out))


def set_aside(lobby: Lobby, players: frozenset[str]) -> Lobby:
    """The lobby without the open requests of ``players`` (:func:`player_key` values, e.g.
    :meth:`Engagements.formed_in` of the other kind): nobody is matched with them."""
    return replace(
        lobby,
        open_requests=tuple(e for e in lobby.open_requests if player_key(e.player) not in players),
    )


__all__ = [
    "MAX_CONCURRENT_1V1",
    "DuelKind",
    "Engagement",
    "Engagements",
    "Entrant",
    "Lobby",
    "MatchEvent",
    "MatchOutcome",
    "Pairing",
    "Repeat",
    "Request",
    "Stage",
    "add_request",
    "character_key",
    "finish",
    "other_kind",
    "player_key",
    "repeated",
    "schedule",
    "set_aside",
    "withdraw",
]
