"""Domain values of the rules engine (frozen dataclasses), generic over rulesets.

Every class has ``to_dict()`` (JSON-ready: lists, str keys) and ``from_dict()`` with
``X.from_dict(json.loads(json.dumps(x.to_dict()))) == x``. Life totals are ``points``, in the
ruleset's unit (``Ruleset.unit``: "PD" classic, "PV" fatigue); durations are in turns.

``from_dict`` raises :class:`rules.errors.RuleError` (rule ``"<Class>.<field>"``) on a
missing or ill-typed field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from rules.effects import Effect, effect_from_data
from rules.errors import RuleError

JsonDict = dict[str, Any]
ViolationStatus = Literal["proposed", "applied", "waived"]
TrailValue = int | bool | str | None


def _get(data: Mapping[str, Any], cls: str, key: str) -> Any:
    if key not in data:
        raise RuleError(f"{cls}.{key}", "missing")
    return data[key]


def _effects(raw: Any, where: str) -> tuple[Effect, ...]:
    if not isinstance(raw, list):
        raise RuleError(where, "must be a list of effects")
    return tuple(effect_from_data(e, f"{where}[{i}]") for i, e in enumerate(raw))


def _effect_map(raw: Any, where: str) -> dict[str, tuple[Effect, ...]]:
    if not isinstance(raw, dict):
        raise RuleError(where, "must be a table name -> effects")
    return {str(k): _effects(v, f"{where}.{k}") for k, v in raw.items()}


@dataclass(frozen=True)
class Modifier:
    """A number added to a die, and why.

    Attributes:
        amount: added value (negative lowers the roll).
        source: the spell or rule code that gives it (``"Maléfice du Pot de Colle"``).
    """

    amount: int
    source: str

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        return {"amount": self.amount, "source": self.source}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Modifier:
        """Inverse of :meth:`to_dict`."""
        return cls(
            amount=int(_get(data, "Modifier", "amount")), source=_get(data, "Modifier", "source")
        )


@dataclass(frozen=True)
class Violation:
    """A rule break found in a post, proposed to (or applied by) the referee.

    Attributes:
        duellist: who broke the rule.
        rule: code, e.g. ``"repeated_spell"``, ``"unlisted_spell"``, ``"spell_above_level"``,
            ``"cast_before_start"``, ``"missing_spell"``.
        post_id: the post where it happened.
        evidence: what shows it (the bold text, the levels compared...).
        penalty: points lost (0 in classic: its consequences are voids and advantages).
        status: ``"proposed"`` (the referee decides), ``"applied"`` (the draft applies it),
            ``"waived"`` (the referee waived it).
        proposal: what the draft proposes (e.g. ``"disqualification"``), or None.
    """

    duellist: str
    rule: str
    post_id: int
    evidence: str
    penalty: int = 0
    status: ViolationStatus = "proposed"
    proposal: str | None = None

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        return {
            "duellist": self.duellist,
            "rule": self.rule,
            "post_id": self.post_id,
            "evidence": self.evidence,
            "penalty": self.penalty,
            "status": self.status,
            "proposal": self.proposal,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Violation:
        """Inverse of :meth:`to_dict`."""
        status = _get(data, "Violation", "status")
        if status not in ("proposed", "applied", "waived"):
            raise RuleError("Violation.status", f"unknown status {status!r}")
        return cls(
            duellist=_get(data, "Violation", "duellist"),
            rule=_get(data, "Violation", "rule"),
            post_id=int(_get(data, "Violation", "post_id")),
            evidence=_get(data, "Violation", "evidence"),
            penalty=int(_get(data, "Violation", "penalty")),
            status=cast(ViolationStatus, status),
            proposal=_get(data, "Violation", "proposal"),
        )


@dataclass(frozen=True)
class DuellistState:
    """One duellist between turns.

    Attributes:
        name: the character's name (unique in the duel).
        year: year of study key (``"1"``..``"6"``, ``"7+"``; fatigue also ``"adult"``).
        points: life total in the ruleset's unit (PD classic); not clamped at 0.
        effects: effects carried into the next turns (``duration`` = turns still to run).
        last_spell: canonical spell named in the previous post, or None (none, or unlisted).
        violations: every violation recorded in the duel, in order.
        disqualified: True once the referee disqualified the duellist.
        magic_types: magic types (fatigue), empty in classic.
        last_action: action kind of the previous post (fatigue: ``"cast"``, ``"dodge"``,
            ``"dodge_riposte"``; None when none or in classic). Fatigue's ``dodge_twice``.
        spells_used_on: (spell, target) pairs: spells that affected or directly targeted
            ``target`` (fatigue's ``reused_spell``); empty in classic.
        casts: (spell, times cast in the duel) of the spells whose spellbook entry has a
            ``max_casts`` (fatigue's ``cast_limit``), in first-cast order; empty otherwise
            (and then absent from :meth:`to_dict`, so states of a book without limits are
            unchanged).
    """

    name: str
    year: str
    points: int
    effects: tuple[Effect, ...] = ()
    last_spell: str | None = None
    violations: tuple[Violation, ...] = ()
    disqualified: bool = False
    magic_types: tuple[str, ...] = ()
    last_action: str | None = None
    spells_used_on: tuple[tuple[str, str], ...] = ()
    casts: tuple[tuple[str, int], ...] = ()

    def cast_count(self, spell: str) -> int:
        """How many times this duellist cast the limited ``spell`` in the duel (0: never, or
        a spell with no ``max_casts``)."""
        return next((n for name, n in self.casts if name == spell), 0)

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        data: JsonDict = {
            "name": self.name,
            "year": self.year,
            "points": self.points,
            "effects": [e.to_dict() for e in self.effects],
            "last_spell": self.last_spell,
            "violations": [v.to_dict() for v in self.violations],
            "disqualified": self.disqualified,
            "magic_types": list(self.magic_types),
            "last_action": self.last_action,
            "spells_used_on": [list(pair) for pair in self.spells_used_on],
        }
        if self.casts:
            data["casts"] = [[name, n] for name, n in self.casts]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DuellistState:
        """Inverse of :meth:`to_dict`."""
        c = "DuellistState"
        return cls(
            name=_get(data, c, "name"),
            year=str(_get(data, c, "year")),
            points=int(_get(data, c, "points")),
            effects=_effects(_get(data, c, "effects"), f"{c}.effects"),
            last_spell=_get(data, c, "last_spell"),
            violations=tuple(Violation.from_dict(v) for v in _get(data, c, "violations")),
            disqualified=bool(_get(data, c, "disqualified")),
            magic_types=tuple(data.get("magic_types", ())),
            last_action=data.get("last_action"),
            spells_used_on=tuple(
                (str(pair[0]), str(pair[1])) for pair in data.get("spells_used_on", ())
            ),
            casts=tuple((str(pair[0]), int(pair[1])) for pair in data.get("casts", ())),
        )


@dataclass(frozen=True)
class DuelState:
    """A duel between turns.

    Attributes:
        ruleset: the ruleset's name (``Ruleset.name``).
        turn: turns resolved so far (0 before the first).
        started: True once the referee's opening declaration gave the start ("top").
        duellists: the duellists, in registration order.
        finished: True once the duel is over.
        winner: the winner's name, or None (running, draw, or no winner).
        draw: True for an exact tie at the end.
        stakes: the stakes agreed by both duellists, or None for a friendly duel.
        pending: posts already declared but not yet resolved, with their ``dice`` in force
            (fatigue 1v1: the initiative post between the first and second declarations);
            empty between turns and in classic.
    """

    ruleset: str
    turn: int
    started: bool
    duellists: tuple[DuellistState, ...]
    finished: bool = False
    winner: str | None = None
    draw: bool = False
    stakes: str | None = None
    pending: tuple[TurnPost, ...] = ()

    def duellist(self, name: str) -> DuellistState:
        """The duellist called ``name``. Raises RuleError(``"duellist"``) when absent."""
        for d in self.duellists:
            if d.name == name:
                return d
        raise RuleError("duellist", f"no duellist named {name!r} in this duel")

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        return {
            "ruleset": self.ruleset,
            "turn": self.turn,
            "started": self.started,
            "duellists": [d.to_dict() for d in self.duellists],
            "finished": self.finished,
            "winner": self.winner,
            "draw": self.draw,
            "stakes": self.stakes,
            "pending": [p.to_dict() for p in self.pending],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DuelState:
        """Inverse of :meth:`to_dict`."""
        c = "DuelState"
        return cls(
            ruleset=_get(data, c, "ruleset"),
            turn=int(_get(data, c, "turn")),
            started=bool(_get(data, c, "started")),
            duellists=tuple(DuellistState.from_dict(d) for d in _get(data, c, "duellists")),
            finished=bool(_get(data, c, "finished")),
            winner=_get(data, c, "winner"),
            draw=bool(_get(data, c, "draw")),
            stakes=_get(data, c, "stakes"),
            pending=tuple(TurnPost.from_dict(p) for p in data.get("pending", ())),
        )


@dataclass(frozen=True)
class TurnPost:
    """A duellist's post for one turn, as the action parser read it.

    Attributes:
        duellist: the duellist (character) who posted.
        post_id: the forum's post id (keys the dice).
        spell: canonical spell name, or None (no bold matched the spellbook).
        spell_text: the raw bold text; with ``spell=None`` it marks an unlisted/unknown spell;
            None with ``spell=None`` means the post names no spell.
        kind: the action kind (fatigue: cast / dodge / dodge_riposte), None in classic.
        bet: faces bet on (fatigue), None in classic.
        target: the target line, or None.
        before_start: True when posted before the referee's start ("top").
        dice: the post's die values in force once declared (a pending post, overrides
            applied), else None: dice are passed to the resolver separately.
    """

    duellist: str
    post_id: int
    spell: str | None
    spell_text: str | None = None
    kind: str | None = None
    bet: tuple[int, ...] | None = None
    target: str | None = None
    before_start: bool = False
    dice: tuple[int, ...] | None = None

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        return {
            "duellist": self.duellist,
            "post_id": self.post_id,
            "spell": self.spell,
            "spell_text": self.spell_text,
            "kind": self.kind,
            "bet": None if self.bet is None else list(self.bet),
            "target": self.target,
            "before_start": self.before_start,
            "dice": None if self.dice is None else list(self.dice),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TurnPost:
        """Inverse of :meth:`to_dict`."""
        c = "TurnPost"
        bet = data.get("bet")
        dice = data.get("dice")
        return cls(
            duellist=_get(data, c, "duellist"),
            post_id=int(_get(data, c, "post_id")),
            spell=_get(data, c, "spell"),
            spell_text=data.get("spell_text"),
            kind=data.get("kind"),
            bet=None if bet is None else tuple(int(b) for b in bet),
            target=data.get("target"),
            before_start=bool(data.get("before_start", False)),
            dice=None if dice is None else tuple(int(v) for v in dice),
        )


@dataclass(frozen=True)
class TrailEntry:
    """Why one number (or flag) of an outcome has its value.

    Attributes:
        quantity: what was computed, e.g. ``"Cassius Thorne.points"``,
            ``"Aurora Vexley.attack.damage"``, ``"duel.winner"``.
        value: its value.
        rule: the rule id that produced it, e.g. ``"classic.damage"``, ``"referee.override"``.
        source: the seed sentence or RULES.md line quoted.
        detail: how it was computed (``"35 - 5 = 30"``).
    """

    quantity: str
    value: TrailValue
    rule: str
    source: str
    detail: str = ""

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        return {
            "quantity": self.quantity,
            "value": self.value,
            "rule": self.rule,
            "source": self.source,
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrailEntry:
        """Inverse of :meth:`to_dict`."""
        c = "TrailEntry"
        return cls(
            quantity=_get(data, c, "quantity"),
            value=_get(data, c, "value"),
            rule=_get(data, c, "rule"),
            source=_get(data, c, "source"),
            detail=_get(data, c, "detail"),
        )


@dataclass(frozen=True)
class AttackResult:
    """One duellist's post of a turn seen as an attack on the opponent.

    Attributes:
        attacker, defender: names.
        spell: canonical spell name, or None.
        attack_die, defense_die: the raw die values (attacker's attack, defender's defense).
        attack_modifiers: added to the attack (e.g. the unlisted-spell advantage).
        attack_value: attack die + modifiers (what the defense is compared with).
        defense_modifiers: added to the defender's defense die this turn.
        effective_defense: defense die + modifiers (no floor).
        landed: the attack landed (False when there was no attack).
        damage: points the defender lost from this attack.
        effects_applied: new effects this post created (on either duellist).
        void_reason: why the post made no attack, or None when it attacked: ``"shield"``,
            ``"counter_spell"``, ``"cancelled"``, ``"repeated_spell"``, ``"unlisted_spell"``,
            ``"missing_spell"``, ``"barred"``.
    """

    attacker: str
    defender: str
    spell: str | None
    attack_die: int
    defense_die: int
    defense_modifiers: tuple[Modifier, ...]
    effective_defense: int
    landed: bool
    damage: int
    effects_applied: tuple[Effect, ...] = ()
    void_reason: str | None = None
    attack_modifiers: tuple[Modifier, ...] = ()
    attack_value: int = 0

    def to_dict(self) -> JsonDict:
        """JSON-ready table."""
        return {
            "attacker": self.attacker,
            "defender": self.defender,
            "spell": self.spell,
            "attack_die": self.attack_die,
            "defense_die": self.defense_die,
            "defense_modifiers": [m.to_dict() for m in self.defense_modifiers],
            "effective_defense": self.effective_defense,
            "landed": self.landed,
            "damage": self.damage,
            "effects_applied": [e.to_dict() for e in self.effects_applied],
            "void_reason": self.void_reason,
            "attack_modifiers": [m.to_dict() for m in self.attack_modifiers],
            "attack_value": self.attack_value,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AttackResult:
        """Inverse of :meth:`to_dict`."""
        c = "AttackResult"
        return cls(
            attacker=_get(data, c, "attacker"),
            defender=_get(data, c, "defender"),
            spell=_get(data, c, "spell"),
            attack_die=int(_get(data, c, "attack_die")),
            defense_die=int(_get(data, c, "defense_die")),
            defense_modifiers=tuple(
                Modifier.from_dict(m) for m in _get(data, c, "defense_modifiers")
            ),
            effective_defense=int(_get(data, c, "effective_defense")),
            landed=bool(_get(data, c, "landed")),
            damage=int(_get(data, c, "damage")),
            effects_applied=_effects(_get(data, c, "effects_applied"), f"{c}.effects_applied"),
            void_reason=_get(data, c, "void_reason"),
            attack_modifiers=tuple(
                Modifier.from_dict(m) for m in _get(data, c, "attack_modifiers")
            ),
            attack_value=int(_get(data, c, "attack_value")),
        )


@dataclass(frozen=True)
class TurnOutcome:
    """What a turn's resolution decided (the draft of the referee's declaration).

    Attributes:
        turn: number of the turn resolved (1-based); ``state.turn`` before the start.
        state: the duel after the turn (overrides applied).
        attacks: one entry per turn post.
        effects_next: duellist -> effects carried into the next turn.
        violations: violations found in this call's posts.
        winner, draw, finished: the duel's end, as in ``state``.
        trail: why each number has its value, in computation order.
        pending_effects_at_end: when finished, duellist -> effects still pending (listed in
            the final declaration, nothing more); empty otherwise.
        dice: post id -> die values used.
    """

    turn: int
    state: DuelState
    attacks: tuple[AttackResult, ...]
    effects_next: Mapping[str, tuple[Effect, ...]]
    violations: tuple[Violation, ...]
    winner: str | None
    draw: bool
    finished: bool
    trail: tuple[TrailEntry, ...]
    pending_effects_at_end: Mapping[str, tuple[Effect, ...]] = field(default_factory=dict)
    dice: Mapping[int, tuple[int, ...]] = field(default_factory=dict)

    def to_dict(self) -> JsonDict:
        """JSON-ready table (``dice`` keys become strings)."""
        return {
            "turn": self.turn,
            "state": self.state.to_dict(),
            "attacks": [a.to_dict() for a in self.attacks],
            "effects_next": {k: [e.to_dict() for e in v] for k, v in self.effects_next.items()},
            "violations": [v.to_dict() for v in self.violations],
            "winner": self.winner,
            "draw": self.draw,
            "finished": self.finished,
            "trail": [t.to_dict() for t in self.trail],
            "pending_effects_at_end": {
                k: [e.to_dict() for e in v] for k, v in self.pending_effects_at_end.items()
            },
            "dice": {str(k): list(v) for k, v in self.dice.items()},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TurnOutcome:
        """Inverse of :meth:`to_dict`."""
        c = "TurnOutcome"
        dice = _get(data, c, "dice")
        return cls(
            turn=int(_get(data, c, "turn")),
            state=DuelState.from_dict(_get(data, c, "state")),
            attacks=tuple(AttackResult.from_dict(a) for a in _get(data, c, "attacks")),
            effects_next=_effect_map(_get(data, c, "effects_next"), f"{c}.effects_next"),
            violations=tuple(Violation.from_dict(v) for v in _get(data, c, "violations")),
            winner=_get(data, c, "winner"),
            draw=bool(_get(data, c, "draw")),
            finished=bool(_get(data, c, "finished")),
            trail=tuple(TrailEntry.from_dict(t) for t in _get(data, c, "trail")),
            pending_effects_at_end=_effect_map(
                _get(data, c, "pending_effects_at_end"), f"{c}.pending_effects_at_end"
            ),
            dice={int(k): tuple(int(x) for x in v) for k, v in dice.items()},
        )


__all__ = [
    "AttackResult",
    "DuelState",
    "DuellistState",
    "Modifier",
    "TrailEntry",
    "TrailValue",
    "TurnOutcome",
    "TurnPost",
    "Violation",
    "ViolationStatus",
]
