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


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
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
        running: pairings whose duel is running.
    """

    open_requests: tuple[Entrant, ...] = ()
    queue: tuple[Pairing, ...] = ()
    running: tuple[Pairing, ...] = ()

    def busy_players(self) -> frozenset[str]:
        """Players in a running duel (seed 001: "Un joueur ne peut participer qu'à un duel à
        la fois")."""
        return frozenset(p for pairing in self.running for p in pairing.players)

    def waiting_players(self) -> frozenset[str]:
        """Players with an open request or a queued pairing."""
        return frozenset(e.player for e in self.open_requests) | frozenset(
            p for pairing in self.queue for p in pairing.players
        )


MatchOutcome = Literal["opened", "paired", "rejected"]


@dataclass(frozen=True)
class MatchEvent:
    """What :func:`add_request` did.

    Attributes:
        outcome: ``"opened"`` (an open request), ``"paired"`` (queued as a pairing),
            ``"rejected"``.
        pairing: the new pairing, when paired.
        reason: a code: ``"open_request"``, ``"named_partner"``, ``"answered"``,
            ``"also_alone"``, ``"already_signed_up"``, ``"self_partner"``,
            ``"unknown_request"``.
    """

    outcome: MatchOutcome
    pairing: Pairing | None
    reason: str


def add_request(lobby: Lobby, request: Request) -> tuple[Lobby, MatchEvent]:
    """Add one sign-up (in post order) to the lobby.

    Rules:
        - a player who already has an open request or a queued pairing is rejected
          (``already_signed_up``): one duel at a time;
        - a named partner pairs at once (with their open request when they have one);
        - an answer to an open request pairs with it (``answered``);
        - a lone sign-up pairs with the oldest open request of another player (seed 001: "ou à
          déclarer être également seule"), else opens a request;
        - nobody duels one of their own characters (``self_partner``).

    Returns:
        (new lobby, :class:`MatchEvent`).
    """
    me = request.entrant
    if me.player in lobby.waiting_players():
        return lobby, MatchEvent("rejected", None, "already_signed_up")
    if request.partner is not None:
        wanted = _fold(request.partner)
        found = next((e for e in lobby.open_requests if _fold(e.character) == wanted), None)
        partner = found or Entrant(
            player=request.partner_player or request.partner,
            character=request.partner,
            post_id=me.post_id,
        )
        if partner.player == me.player:
            return lobby, MatchEvent("rejected", None, "self_partner")
        if found is None and partner.player in lobby.waiting_players():
            return lobby, MatchEvent("rejected", None, "already_signed_up")
        return _pair(lobby, found or partner, me, "named_partner", remove=found)
    if request.answers is not None:
        target = next((e for e in lobby.open_requests if e.post_id == request.answers), None)
        if target is None:
            return lobby, MatchEvent("rejected", None, "unknown_request")
        if target.player == me.player:
            return lobby, MatchEvent("rejected", None, "self_partner")
        return _pair(lobby, target, me, "answered", remove=target)
    first = next((e for e in lobby.open_requests if e.player != me.player), None)
    if first is not None:
        return _pair(lobby, first, me, "also_alone", remove=first)
    new = replace(lobby, open_requests=lobby.open_requests + (me,))
    return new, MatchEvent("opened", None, "open_request")


def _pair(
    lobby: Lobby, first: Entrant, second: Entrant, reason: str, *, remove: Entrant | None
) -> tuple[Lobby, MatchEvent]:
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

    The queue is first in, first out; a pairing whose player is already in a running duel
    keeps its place and the next one may start (seed 001: "Un joueur ne peut participer qu'à un
    duel à la fois").

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
    started: list[Pairing] = []
    waiting: list[Pairing] = []
    for pairing in lobby.queue:
        free = not (set(pairing.players) & busy) and not (
            {player_key(p) for p in pairing.players} & busy_elsewhere
        )
        if len(running) < max_concurrent and free:
            running.append(pairing)
            started.append(pairing)
            busy.update(pairing.players)
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
    """Remove a player's open request and queued pairings (they withdrew their sign-up)."""
    return replace(
        lobby,
        open_requests=tuple(e for e in lobby.open_requests if e.player != player),
        queue=tuple(p for p in lobby.queue if player not in p.players),
    )


# -- one duel per player across 1v1 and 2v2 ------------------------------------------------------

DuelKind = Literal["1v1", "2v2"]
Stage = Literal["open", "queued", "running"]


def player_key(player: str) -> str:
    """How players are compared across both kinds: the forum account with case, accents and
    spacing ignored (``"Aurora  Vexley"`` and ``"aurora vexley"`` are one player)."""
    return _fold(player)


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
    "Request",
    "Stage",
    "add_request",
    "finish",
    "other_kind",
    "player_key",
    "schedule",
    "set_aside",
    "withdraw",
]
