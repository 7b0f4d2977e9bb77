"""The bookkeeping of one :func:`rules.duo.engine.resolve_duo_step` call: referee overrides,
state helpers, 2v2 violations, and the 1v1 engine run on two duellists (exchanges).

Split out of ``rules.duo.engine`` (issue 17). :class:`_StepCore` is extended by
:class:`rules.duo.world._WorldStep` (creatures, mechanisms, items, moves) and
:class:`rules.duo.turn._Step` (one post, the end of the turn).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Literal, cast

from rules.duo.environment import Environment
from rules.duo.outcome import (
    _EXCHANGE_FIELDS,
    CREATURE_SOURCE,
    TURN_POST_SOURCE,
    UNDEFENDED_SOURCE,
    Draw,
    Event,
)
from rules.duo.settings import DuoSettings
from rules.duo.state import DuoState, PendingAttack, WorkState, evolve
from rules.errors import RuleError
from rules.fatigue.effects import DamageOverTime
from rules.fatigue.engine import OverrideValue, PostFacts, resolve_fatigue_step
from rules.fatigue.settings import FatigueRuleset
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    TrailEntry,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.trail import OVERRIDE_RULE, TrailBuilder

_NONE: frozenset[tuple[str, str]] = frozenset()
"""No referee decision (waived or confirmed violations) for an exchange."""


class _StepCore:
    """Bookkeeping of one :func:`resolve_duo_step` call (never escapes it)."""

    def __init__(
        self,
        state: DuoState,
        ruleset: FatigueRuleset,
        env: Environment,
        settings: DuoSettings,
        draw: Draw,
        waived: Collection[tuple[str, str]],
        confirmed: Collection[tuple[str, str]],
        facts: Mapping[int, PostFacts],
        overrides: Mapping[tuple[str, str], OverrideValue],
        posters: Collection[str],
        trail: bool = True,
    ) -> None:
        self.s = WorkState(state)  # changed in place; frozen again by the step's end
        self.member = self.s.member  # the hot lookups without a call through the step
        self.put = self.s.put
        self.trail_on = trail  # False: no trail entries unless an override is applied
        self.rs = ruleset
        self.env = env
        self.cfg = settings
        self.draw = draw
        self.waived = set(waived)
        self.confirmed = set(confirmed)
        self.facts = facts
        self.attacks: list[AttackResult] = []
        self.violations: list[Violation] = []
        self.events: list[Event] = []
        self.entered: list[tuple[str, str]] = []
        self.attempts: list[tuple[str, str, int]] = []
        self.trail: list[object] = []
        self.dice: dict[int, tuple[int, ...]] = {}
        self.overrides = dict(overrides)
        self.used: set[tuple[str, str]] = set()
        self.settled: set[tuple[str, str]] = set()
        self.posters = set(posters)
        # duellist -> the action that counted in their defense (the 1v1 engine's
        # ``_counted_action``: a forbidden or barred dodge counts as none)
        self.counted: dict[str, str | None] = {}
        self.silent: set[str] = set()  # silent at a deadline (resolve_duo_silence)

    # -- referee overrides ----------------------------------------------------------------
    def note(self, quantity: str, value: int | bool, detail: str) -> None:
        """A trail entry decided by the 2v2 engine itself (creature hits); none with the
        trail off."""
        if not self.trail_on:
            return
        builder = TrailBuilder({})
        builder.add(quantity, value, "duo.creature", detail, source=CREATURE_SOURCE)
        self.trail.extend(builder.entries())

    def take(self, name: str, fld: str, computed: OverrideValue) -> OverrideValue:
        """The referee's value for ``name.fld`` when given (recorded in the trail as
        ``referee.override``), else ``computed``."""
        key = (name, fld)
        if key not in self.overrides:
            return computed
        self.used.add(key)
        value = self.overrides[key]
        builder = TrailBuilder({})
        builder.override(f"{name}.{fld}", computed, value)
        self.trail.extend(builder.entries())
        return value

    def rolled(self, name: str, values: tuple[int, ...]) -> tuple[int, ...]:
        """The die of ``name``'s post in this step, the referee's ``die`` when given."""
        if (name, "die") not in self.overrides or not values:
            return values
        die = int(self.take(name, "die", values[0]))
        if not 1 <= die <= self.rs.dice_faces:
            raise RuleError("fatigue.dice", f"{name}.die override: a d6 shows 1..6, got {die}")
        return (die, *values[1:])

    def settle(self) -> None:
        """Apply the referee's ``points`` (duellists' PV, creatures' PV left) and
        ``disqualified`` (a disqualified member's duo loses: RULES.md, Referee and admin)
        after the step; recorded in the trail the first time only (a later call re-applies
        them silently)."""
        if not self.overrides:
            return
        for d in self.s.duel.duellists:
            key = (d.name, "disqualified")
            if key in self.overrides:
                if key not in self.settled:
                    self.take(d.name, "disqualified", d.disqualified)
                    self.settled.add(key)
                self.put(evolve(d, disqualified=bool(self.overrides[key])))
        for d in self.s.duel.duellists:
            key = (d.name, "points")
            if key in self.overrides:
                value = int(self.overrides[key])
                if key not in self.settled:
                    self.take(d.name, "points", d.points)
                    self.settled.add(key)
                self.put(evolve(d, points=value))
        for c in self.env.creatures:
            key = (c.key, "points")
            if key in self.overrides:
                value = int(self.overrides[key])
                if value > 0 and any(k == c.key for k, _ in self.s.defeated):
                    raise RuleError(
                        OVERRIDE_RULE,
                        f"{c.key}.points: {c.name} is defeated in this step and its reward "
                        "drawn; to keep it standing, set the hit's damage or landed instead",
                    )
                if key not in self.settled:
                    self.take(c.key, "points", self.s.creature_pv(c.key))
                    self.settled.add(key)
                    if value == 0 and not any(k == c.key for k, _ in self.s.defeated):
                        # the referee puts it out of the fight: no reward (none was drawn)
                        self.s.update(defeated=self.s.defeated + ((c.key, ""),))
                        self.events.append(Event("creature_down", None, c.name, "referee"))
                self.s.update(
                    creatures=tuple((k, value if k == c.key else v) for k, v in self.s.creatures),
                )

    def fatigue_step(
        self,
        sub: DuelState,
        posts: Sequence[TurnPost],
        dice: Mapping[int, Sequence[int]],
        names: Collection[str],
        waived: Collection[tuple[str, str]],
        confirmed: Collection[tuple[str, str]],
        facts: Mapping[int, PostFacts] | None,
        voided: Mapping[int, str] | None = None,
    ) -> TurnOutcome:
        """:func:`resolve_fatigue_step` with the referee's overrides of ``names`` (the
        duellists whose changes are kept) that this exchange computes: the 1v1 engine runs
        with ``strict_overrides=False`` and the ones it applied (its trail's
        ``"referee.override"`` entries) count as used; one never used in the whole step is
        refused by :func:`resolve_duo_step`. With the trail off and no override offered, the
        1v1 engine runs with its trail off too."""
        offered = {
            k: v
            for k, v in self.overrides.items()
            if k[0] in names
            and k[1] in _EXCHANGE_FIELDS
            and not (k[1] == "die" and k[0] in self.posters)
        } if self.overrides else {}  # fmt: skip
        out = resolve_fatigue_step(
            sub, posts, dice, ruleset=self.rs, waived=waived, confirmed=confirmed, facts=facts,
            overrides={f"{n}.{f}": v for (n, f), v in offered.items()} if offered else None,
            strict_overrides=False,
            voided=voided, trail=self.trail_on or bool(offered),
        )  # fmt: skip
        if offered:
            applied = {t.quantity for t in out.trail if t.rule == OVERRIDE_RULE}
            self.used.update(k for k in offered if f"{k[0]}.{k[1]}" in applied)
        return out

    # -- state helpers --------------------------------------------------------------------
    def points(self, name: str, delta: int) -> None:
        d = self.member(name)
        self.put(evolve(d, points=d.points + delta))

    # -- violations of 2v2 ----------------------------------------------------------------
    def violation(self, name: str, rule: str, post_id: int, evidence: str) -> str:
        """Record a 2v2 violation; returns its status (``off`` when not reported)."""
        base = self.cfg.status(rule)
        if base == "off":
            return "off"
        status: str = base
        if (name, rule) in self.waived:
            status = "waived"
        elif base == "proposed" and (name, rule) in self.confirmed:
            status = "applied"
        penalty = int(self.rs.setting("violation_penalty"))
        v = Violation(
            duellist=name,
            rule=rule,
            post_id=post_id,
            evidence=evidence,
            penalty=penalty,
            status=cast(Literal["proposed", "applied", "waived"], status),
            proposal=f"-{penalty} PV" if status == "proposed" else None,
        )
        self.violations.append(v)
        d = self.member(name)
        self.put(
            evolve(
                d,
                violations=d.violations + (v,),
                points=d.points - (penalty if status == "applied" else 0),
            )
        )
        return status

    # -- the 1v1 engine on two duellists -----------------------------------------------------
    def _sub_member(self, name: str) -> DuellistState:
        d = self.member(name)
        if not d.effects or not any(isinstance(e, DamageOverTime) for e in d.effects):
            return d  # nothing to leave out: the same frozen state (issue 26: no copy)
        return evolve(d, effects=tuple(e for e in d.effects if not isinstance(e, DamageOverTime)))

    def exchange(
        self,
        a: str,
        b: str,
        pending: TurnPost | None,
        post: TurnPost | None,
        *,
        poster: str,
        keep: Collection[str] | None = None,
        close: bool = True,
        voided: Mapping[int, str] | None = None,
        undefended: str | None = None,
    ) -> AttackResult | None:
        """Run the 1v1 engine between ``a`` (initiator) and ``b``: an initiative (``post``
        without ``pending``), a defense (both) or an undefended resolution (``pending`` only;
        with ``close`` an initiative is resolved undefended at once). Merges PV, violations,
        reuse memory and new effects of the duellists in ``keep`` (default both). When ``b``
        is not kept it is a stand-in (a self cast, a creature, the scenery): the exchange is
        not declared as an attack on it. ``voided``: post id -> reason, spells with no effect
        (a forbidden double target in a defense post). ``undefended``: why a spell resolves
        with no defense while no deadline passed (``"already_played"``, ``"out"``,
        ``"other"``: the target's post answered another spell); None for a real deadline
        lapse, which keeps the 1v1 engine's ``turn.relaunch``; ``"self"`` is set here for a
        spell on its caster (``b`` a stand-in). Returns the initiator's
        AttackResult."""
        names = (a, b)
        other = self._sub_member(b)
        stand_in = keep is not None and b not in keep  # b only lends the 1v1 engine an
        # opponent (self, creature...): never a knocked-out one, which would end the 1v1
        # exchange before it starts (a self heal with the teammate down)
        if stand_in and other.points < 1:
            other = evolve(other, points=1)
        head = self.s.duel_head  # ruleset and turn, without rebuilding the duellists
        sub = _sub_duel(head.ruleset, head.turn, (self._sub_member(a), other),
                        (pending,) if pending is not None else ())  # fmt: skip
        waived = {p for p in self.waived if p[0] in names} if self.waived else _NONE
        confirmed = {p for p in self.confirmed if p[0] in names} if self.confirmed else _NONE
        posts = [post] if post is not None else []
        dice = {post.post_id: post.dice} if post is not None and post.dice is not None else {}
        kept = set(names if keep is None else keep)
        out = self.fatigue_step(sub, posts, dice, kept, waived, confirmed, self.facts, voided)
        attacks = list(out.attacks)
        why = undefended
        if post is not None and pending is None and close:
            if stand_in:
                why = "self"  # b is a stand-in: the spell acts on its caster
            else:
                why = "out" if not self.s.active(b) else "already_played"
        if out.trail:
            self.trail.extend(self._duo_trail(out.trail, a, b, why))
        violations = list(out.violations)
        if post is not None and pending is None and close and out.state.pending:
            again = self.fatigue_step(out.state, [], {}, kept, waived, confirmed, None)
            attacks = list(again.attacks)
            if again.trail:
                self.trail.extend(self._duo_trail(again.trail, a, b, why))
            known = {(v.duellist, v.rule, v.post_id) for v in violations}
            violations += [
                v for v in again.violations if (v.duellist, v.rule, v.post_id) not in known
            ]
            out = again
        for p in posts:
            self.dice[p.post_id] = tuple(p.dice or ())
        if pending is not None and post is not None:  # a defense: what counted (issue 26, D3)
            self.counted[post.duellist] = out.state.duellist(post.duellist).last_action
        if violations:
            self.violations.extend(v for v in violations if v.duellist in kept)
        merged = []
        for d in out.state.duellists:
            if d.name not in kept:
                continue
            mine = self.member(d.name)
            opponents = self.s.opponents(d.name)
            used = d.spells_used_on
            if used:
                # the reuse ban is "sur son adversaire" (seed 001): a spell at oneself or a
                # teammate (the stand-in) is no use on an opponent (reader issue 25, W6)
                used = tuple([u for u in used if u[1] in opponents])
            merged.append(
                _merged(mine, d, used, d.last_spell if d.name == poster else mine.last_spell)
            )
        self.put(*merged)
        if stand_in and post is not None and pending is None and not close and attacks:
            self.count_cast(poster, attacks[0])  # a cast at a creature, mechanism, item, décor
        for att in attacks:
            if att.void_reason != "pending" and not stand_in:
                self.attacks.append(att)
            for e in att.effects_applied:
                carrier = (
                    att.defender if getattr(e, "applies", "target") == "target" else att.attacker
                )
                if carrier in kept:
                    self.s.update(incoming=self.s.incoming + ((carrier, e),))
        return attacks[0] if attacks else None

    def _duo_trail(
        self, entries: Sequence[object], a: str, b: str, undefended: str | None
    ) -> list[object]:
        """The 1v1 engine's trail entries of an exchange, worded for the 2v2 turn (issue 25,
        reader2 W5; the numbers are untouched): its ``turn.relaunch`` becomes ``turn.defense =
        "none"`` (rule ``duo.undefended``) when no deadline passed (``undefended``), and the
        caster's ``action`` and the ``turn.initiative`` under ``fatigue.initiative`` name the
        turn's real initiative when ``a`` is not the turn's first poster (rule
        ``duo.turn_post``)."""
        first = self.s.posted[0] if self.s.posted else None
        first_id = self.s.posted_ids[0] if self.s.posted_ids else 0
        why = {
            "already_played": f"{b} already played this turn: the spell resolves undefended",
            "out": f"{b} is out of the fight: the spell resolves undefended",
            "other": f"{b}'s post answered another spell: this one resolves undefended",
            "self": f"{a}'s spell acts on its caster: no defense",
        }
        out: list[object] = []
        for t in entries:
            if isinstance(t, TrailEntry) and t.quantity == "turn.relaunch" and undefended:
                t = TrailEntry("turn.defense", "none", "duo.undefended", UNDEFENDED_SOURCE,
                               why[undefended])  # fmt: skip
            elif (
                isinstance(t, TrailEntry)
                and t.quantity == "turn.initiative"
                and t.rule == "fatigue.initiative"
                and first is not None
                and first != a
            ):
                t = replace(t, value=first, rule="duo.turn_post", source=TURN_POST_SOURCE,
                            detail=f"post {first_id}" if first_id else "")  # fmt: skip
            elif (
                isinstance(t, TrailEntry)
                and t.quantity == f"{a}.action"
                and t.rule == "fatigue.initiative"
                and first is not None
                and first != a
            ):
                where = f"; {first} has the initiative (post {first_id})" if first_id else ""
                t = replace(t, rule="duo.turn_post", source=TURN_POST_SOURCE,
                            detail=f"{t.detail}{where}")  # fmt: skip
            out.append(t)
        return out

    def count_cast(self, who: str, att: AttackResult) -> None:
        """Count a spell with a ``max_casts`` cast by ``who`` in an exchange the 1v1 engine
        leaves open (a creature, mechanism, item or the scenery: no defense follows)."""
        if att.void_reason != "pending" or att.spell is None or not self.rs.has_spell(att.spell):
            return
        if self.rs.spell(att.spell).max_casts is None:
            return
        d = self.member(who)
        counted = dict(d.casts)
        counted[att.spell] = counted.get(att.spell, 0) + 1
        self.put(evolve(d, casts=tuple(counted.items())))

    def resolve_pending(
        self,
        p: PendingAttack,
        defense: TurnPost | None,
        *,
        void_defense: str | None = None,
        undefended: str | None = None,
    ) -> None:
        """Resolve a waiting initiative with ``defense`` (None: undefended). ``void_defense``
        (a reason) makes the defense post's spell void; its bet and dodge still count."""
        self.s.update(pending=tuple(x for x in self.s.pending if x != p))
        voided = {defense.post_id: void_defense} if defense is not None and void_defense else None
        self.exchange(
            p.attacker, p.target, p.post, defense, poster=p.target, close=False, voided=voided,
            undefended=undefended,
        )  # fmt: skip


def _sub_duel(
    ruleset: str, turn: int, duellists: tuple[DuellistState, DuellistState],
    pending: tuple[TurnPost, ...],
) -> DuelState:  # fmt: skip
    """``DuelState(ruleset, turn, True, duellists, pending=pending)`` (a started 1v1 duel of
    two, nothing else set) without the frozen dataclass's per-field ``__setattr__`` (one per
    exchange of a 2v2 step; the class has no ``__post_init__``)."""
    sub = object.__new__(DuelState)
    sub.__dict__.update(
        ruleset=ruleset, turn=turn, started=True, duellists=duellists, finished=False,
        winner=None, draw=False, stakes=None, pending=pending,
    )  # fmt: skip
    return sub


def _merged(
    mine: DuellistState, d: DuellistState, used: tuple[tuple[str, str], ...],
    last_spell: str | None,
) -> DuellistState:  # fmt: skip
    """``mine`` with the 1v1 exchange's ``d``'s points, violations and casts, ``used`` as
    its reuse memory and ``last_spell`` (``evolve`` with those five fields, unchecked: they
    are :class:`rules.model.DuellistState`'s)."""
    new = object.__new__(DuellistState)
    fields = new.__dict__
    fields.update(mine.__dict__)
    fields["points"] = d.points
    fields["violations"] = d.violations
    fields["spells_used_on"] = used
    fields["casts"] = d.casts
    fields["last_spell"] = last_spell
    return new
