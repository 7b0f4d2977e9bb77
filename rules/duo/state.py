"""The state of a two-against-two duel (frozen values, JSON round trip).

:class:`DuoState` wraps the fatigue :class:`rules.model.DuelState` of the four duellists (PV,
running effects, violations, reuse memory) and adds what 2v2 needs: the duos, the zones the
duellists stand in, the creatures' PV, the mechanisms solved, the items left and held, and the
bookkeeping of the current turn (who posted, who moved, who targeted whom, attacks waiting for
their target's post). ``X.from_dict(json.loads(json.dumps(x.to_dict()))) == x``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from rules.effects import Effect, effect_from_data
from rules.errors import RuleError
from rules.model import DuellistState, DuelState, TurnPost

_T = TypeVar("_T")


def evolve(obj: _T, **changes: Any) -> _T:
    """``dataclasses.replace(obj, **changes)`` without its per-call field walk: a copy of a
    frozen dataclass instance with ``changes`` set (the 2v2 engine's hot path, issue 26: 10,000
    simulated 2v2 duels in 10 s). Falls back to ``dataclasses.replace`` for a class with a
    ``__post_init__`` (its checks must run). Raises TypeError for a field the class lacks."""
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        fields = getattr(cls, "__dataclass_fields__", {})
        names = _FIELDS[cls] = frozenset() if hasattr(cls, "__post_init__") else frozenset(fields)
    if not names:
        return replace(obj, **changes)  # type: ignore[type-var]
    if not names.issuperset(changes):
        raise TypeError(f"{cls.__name__} has no field {sorted(set(changes) - names)}")
    new = object.__new__(cls)
    state = dict(obj.__dict__)  # a combined-table dict, not a split one (rules/fast.py evolve)
    state.update(changes)
    object.__setattr__(new, "__dict__", state)
    return new


_FIELDS: dict[type, frozenset[str]] = {}
"""Class -> its field names for :func:`evolve` (empty: use ``dataclasses.replace``)."""


@dataclass(frozen=True)
class PendingAttack:
    """A spell cast at a duellist who has not posted yet this turn: it resolves with their
    post (their defense) like a 1v1 initiative (seed 001: "Si deux duellistes adverses se
    retrouvent dans la même zone, les règles des duels en un contre un s'appliquent")."""

    attacker: str
    target: str
    post: TurnPost  # with ``dice`` in force

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready table."""
        return {"attacker": self.attacker, "target": self.target, "post": self.post.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PendingAttack:
        """Inverse of :meth:`to_dict`."""
        return cls(str(data["attacker"]), str(data["target"]), TurnPost.from_dict(data["post"]))


@dataclass(frozen=True)
class RewardGiven:
    """A reward won in the duel: ``source`` is ``creature:<key>`` or ``mechanism:<key>``;
    ``kind`` one of galleons, pv, pa, sweets, house_points."""

    duellist: str
    source: str
    kind: str
    amount: int


@dataclass(frozen=True)
class DuoState:
    """A 2v2 duel between the duos ``duos[0]`` and ``duos[1]``.

    Attributes:
        duel: the four duellists' fatigue state; ``duel.turn`` counts closed turns.
        environment: the environment's key.
        duos: ``((A1, A2), (B1, B2))``.
        positions: ``(duellist, zone key)`` for each duellist.
        creatures: ``(creature key, PV left)``; a creature at 0 is defeated.
        defeated: ``(creature key, duellist)`` who defeated it.
        solved: ``(mechanism key, duellist)`` solved (a referee's decision).
        items_left: item keys still lying in the room.
        inventory: ``(duellist, item key)`` items held.
        incoming: ``(duellist, effect)`` effects that start with the next turn.
        posted, movers: who posted / moved this turn; posted_ids: their posts' ids.
        targeted: ``(caster, target)`` direct targets of this turn.
        pending: attacks waiting for their target's post.
        moves: ``(duellist, zone key)`` moves declared this turn that take effect when it
            closes (duo.toml ``move_effect = "end_of_turn"``); empty with ``"at_once"``.
        rewards: rewards won so far.
        winners, losers: the duos' members at the end (empty while running).
    """

    duel: DuelState
    environment: str
    duos: tuple[tuple[str, str], tuple[str, str]]
    positions: tuple[tuple[str, str], ...]
    creatures: tuple[tuple[str, int], ...] = ()
    defeated: tuple[tuple[str, str], ...] = ()
    solved: tuple[tuple[str, str], ...] = ()
    items_left: tuple[str, ...] = ()
    inventory: tuple[tuple[str, str], ...] = ()
    incoming: tuple[tuple[str, Effect], ...] = ()
    posted: tuple[str, ...] = ()
    posted_ids: tuple[int, ...] = ()
    movers: tuple[str, ...] = ()
    targeted: tuple[tuple[str, str], ...] = ()
    pending: tuple[PendingAttack, ...] = ()
    moves: tuple[tuple[str, str], ...] = ()
    rewards: tuple[RewardGiven, ...] = ()
    winners: tuple[str, ...] = ()
    losers: tuple[str, ...] = ()

    # -- lookups ------------------------------------------------------------------------------
    def zone_of(self, name: str) -> str:
        """The zone key where ``name`` stands. Raises RuleError (``"duo.duellist"``)."""
        for n, z in self.positions:
            if n == name:
                return z
        raise RuleError("duo.duellist", f"no duellist {name!r}")

    def duo_of(self, name: str) -> int:
        """0 or 1: the duo ``name`` belongs to."""
        for i, duo in enumerate(self.duos):
            if name in duo:
                return i
        raise RuleError("duo.duellist", f"no duellist {name!r}")

    def teammate(self, name: str) -> str:
        """The other member of ``name``'s duo."""
        duo = self.duos[self.duo_of(name)]
        return duo[1] if duo[0] == name else duo[0]

    def opponents(self, name: str) -> tuple[str, str]:
        """The two members of the other duo."""
        return self.duos[1 - self.duo_of(name)]

    def names(self) -> tuple[str, ...]:
        """The four duellists, duo by duo."""
        return self.duos[0] + self.duos[1]

    def active(self, name: str) -> bool:
        """True while ``name`` has PV left (0 PV: "doit abandonner")."""
        return self.duel.duellist(name).points > 0

    def active_names(self) -> tuple[str, ...]:
        """The duellists still in the duel, duo by duo."""
        names = self.duos[0] + self.duos[1]
        duellists = self.duel.duellists
        if len(duellists) == len(names):
            for d in duellists:
                if d.points <= 0:
                    break
            else:  # everyone still in
                return names
        up = {d.name for d in duellists if d.points > 0}
        return tuple(n for n in names if n in up)

    def creature_pv(self, key: str) -> int:
        """PV left of creature ``key``."""
        return dict(self.creatures)[key]

    def in_zone(self, zone: str) -> tuple[str, ...]:
        """Active duellists standing in ``zone``."""
        where = dict(self.positions)
        return tuple(n for n in self.active_names() if where[n] == zone)

    def all_together(self) -> bool:
        """True when every active duellist stands in the same zone (and there are four)."""
        active = self.active_names()
        if len(active) != 4:
            return False
        where = dict(self.positions)
        return len({where[n] for n in active}) == 1

    # -- JSON ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-ready table."""
        return {
            "duel": self.duel.to_dict(),
            "environment": self.environment,
            "duos": [list(d) for d in self.duos],
            "positions": [list(p) for p in self.positions],
            "creatures": [list(c) for c in self.creatures],
            "defeated": [list(c) for c in self.defeated],
            "solved": [list(c) for c in self.solved],
            "items_left": list(self.items_left),
            "inventory": [list(i) for i in self.inventory],
            "incoming": [[n, e.to_dict()] for n, e in self.incoming],
            "posted": list(self.posted),
            "posted_ids": list(self.posted_ids),
            "movers": list(self.movers),
            "targeted": [list(t) for t in self.targeted],
            "pending": [p.to_dict() for p in self.pending],
            "moves": [list(m) for m in self.moves],
            "rewards": [
                {"duellist": r.duellist, "source": r.source, "kind": r.kind, "amount": r.amount}
                for r in self.rewards
            ],
            "winners": list(self.winners),
            "losers": list(self.losers),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DuoState:
        """Inverse of :meth:`to_dict`. Raises RuleError (``"DuoState.<field>"``)."""
        try:
            duos = tuple(tuple(str(n) for n in d) for d in data["duos"])
            if len(duos) != 2 or any(len(d) != 2 for d in duos):
                raise RuleError("DuoState.duos", "two duos of two")
            return cls(
                duel=DuelState.from_dict(data["duel"]),
                environment=str(data["environment"]),
                duos=(duos[0], duos[1]),  # type: ignore[arg-type]
                positions=tuple((str(a), str(b)) for a, b in data["positions"]),
                creatures=tuple((str(a), int(b)) for a, b in data.get("creatures", [])),
                defeated=tuple((str(a), str(b)) for a, b in data.get("defeated", [])),
                solved=tuple((str(a), str(b)) for a, b in data.get("solved", [])),
                items_left=tuple(str(i) for i in data.get("items_left", [])),
                inventory=tuple((str(a), str(b)) for a, b in data.get("inventory", [])),
                incoming=tuple(
                    (str(n), effect_from_data(e, "DuoState.incoming"))
                    for n, e in data.get("incoming", [])
                ),
                posted=tuple(str(n) for n in data.get("posted", [])),
                posted_ids=tuple(int(n) for n in data.get("posted_ids", [])),
                movers=tuple(str(n) for n in data.get("movers", [])),
                targeted=tuple((str(a), str(b)) for a, b in data.get("targeted", [])),
                pending=tuple(PendingAttack.from_dict(p) for p in data.get("pending", [])),
                moves=tuple((str(a), str(b)) for a, b in data.get("moves", [])),
                rewards=tuple(
                    RewardGiven(
                        str(r["duellist"]), str(r["source"]), str(r["kind"]), int(r["amount"])
                    )
                    for r in data.get("rewards", [])
                ),
                winners=tuple(str(n) for n in data.get("winners", [])),
                losers=tuple(str(n) for n in data.get("losers", [])),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RuleError("DuoState", f"malformed: {exc}") from exc


class WorkState(DuoState):
    """A :class:`DuoState` being changed by one 2v2 step (:mod:`rules.duo.step`; it never
    escapes the step): the same fields and lookups, but changed in place with
    :meth:`update` and :meth:`put` instead of a new frozen copy per change, and the lookups
    read dictionaries kept beside the fields (issue 26: the 2v2 step's ``replace`` chains
    were a sixth of a simulated duel). :meth:`freeze` gives the frozen state back.

    ``duel`` is rebuilt from the members only when read after a :meth:`put`. The lookups
    answer as :class:`DuoState`'s do (RuleError ``"duo.duellist"`` for an unknown name)."""

    __setattr__ = object.__setattr__  # mutable: only the step holds it
    __delattr__ = object.__delattr__
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, state: DuoState) -> None:  # noqa: D107 (class doc)
        self.__dict__.update(state.__dict__)
        del self.__dict__["duel"]
        self._take_duel(state.duel)
        self._where = dict(state.positions)
        self._duo = {n: i for i, duo in enumerate(state.duos) for n in duo}

    def _take_duel(self, duel: DuelState) -> None:
        self._base = duel
        self._duel: DuelState | None = duel
        self._members = {d.name: d for d in duel.duellists}

    @property
    def duel(self) -> DuelState:
        """The four duellists' fatigue state as it stands now."""
        if self._duel is None:
            base = self._base
            self._duel = _with(base, duellists=tuple(self._members.values()))
        return self._duel

    @property
    def duel_head(self) -> DuelState:
        """The duel's own fields (``ruleset``, ``turn``, ``started``, ``finished``...) as they
        stand; its ``duellists`` may be older than the members (read :meth:`member`)."""
        return self._base

    def update(self, **changes: Any) -> None:
        """Set the fields ``changes`` (``duel`` included: its duellists become the members).
        Raises TypeError for a field :class:`DuoState` lacks."""
        names = _PLAIN_FIELDS
        fields = self.__dict__
        for key, value in changes.items():
            if key in names:
                fields[key] = value
            elif key == "duel":
                self._take_duel(value)
            elif key == "positions":
                fields[key] = value
                self._where = dict(value)
            else:
                raise TypeError(f"DuoState has no field {key!r}")

    def member(self, name: str) -> DuellistState:
        """Duellist ``name`` as they stand now. Raises RuleError (``"duellist"``) as
        :meth:`rules.model.DuelState.duellist` does."""
        try:
            return self._members[name]
        except KeyError:
            raise RuleError("duellist", f"no duellist named {name!r} in this duel") from None

    def put(self, *updated: DuellistState) -> None:
        """Replace the duellists of ``updated`` (by name; a name not in the duel is ignored)."""
        members = self._members
        for d in updated:
            if d.name in members:
                members[d.name] = d
        self._duel = None

    def freeze(self) -> DuoState:
        """The frozen :class:`DuoState` of what the step made."""
        frozen = object.__new__(DuoState)
        fields = frozen.__dict__
        fields.update(self.__dict__)
        for private in _PRIVATE:
            del fields[private]
        fields["duel"] = self.duel
        return frozen

    # -- lookups (as DuoState's) ---------------------------------------------------------------
    def zone_of(self, name: str) -> str:
        """The zone key where ``name`` stands. Raises RuleError (``"duo.duellist"``)."""
        try:
            return self._where[name]
        except KeyError:
            raise RuleError("duo.duellist", f"no duellist {name!r}") from None

    def duo_of(self, name: str) -> int:
        """0 or 1: the duo ``name`` belongs to."""
        try:
            return self._duo[name]
        except KeyError:
            raise RuleError("duo.duellist", f"no duellist {name!r}") from None

    def teammate(self, name: str) -> str:
        """The other member of ``name``'s duo."""
        duo = self.duos[self.duo_of(name)]
        return duo[1] if duo[0] == name else duo[0]

    def opponents(self, name: str) -> tuple[str, str]:
        """The two members of the other duo."""
        return self.duos[1 - self.duo_of(name)]

    def active(self, name: str) -> bool:
        """True while ``name`` has PV left."""
        return self.member(name).points > 0

    def active_names(self) -> tuple[str, ...]:
        """The duellists still in the duel, duo by duo."""
        members = self._members
        names = self.duos[0] + self.duos[1]
        return tuple([n for n in names if n in members and members[n].points > 0])

    def in_zone(self, zone: str) -> tuple[str, ...]:
        """Active duellists standing in ``zone``."""
        where = self._where
        return tuple([n for n in self.active_names() if where[n] == zone])

    def all_together(self) -> bool:
        """True when every active duellist stands in the same zone (and there are four)."""
        active = self.active_names()
        if len(active) != 4:
            return False
        where = self._where
        return len({where[n] for n in active}) == 1


_PRIVATE = ("_base", "_duel", "_members", "_where", "_duo")
""":class:`WorkState`'s own attributes (not :class:`DuoState` fields)."""


def _with(obj: _T, **changes: Any) -> _T:
    """A copy of the frozen dataclass instance ``obj`` with ``changes`` (fields the caller
    knows it has; no ``__post_init__``)."""
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new


_PLAIN_FIELDS = frozenset(DuoState.__dataclass_fields__) - {"duel", "positions"}
""":class:`DuoState`'s field names :meth:`WorkState.update` sets as they are (``duel`` and
``positions`` also refresh the lookups)."""


__all__ = ["DuoState", "PendingAttack", "RewardGiven", "WorkState"]
