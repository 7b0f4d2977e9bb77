"""Two-against-two fatigue duels: placement, zones, moves, targets, cadence, creatures, end.

Authority: seed 001 (RULES.md "Ruleset fatigue — duels two against two"). One declaration is
drafted by :func:`resolve_duo_step` for one post, or for two posts when all four duellists
share a zone (seed: "l'arbitre ne postera d'intervention que tous les deux postes"). A turn
ends when every active duellist has posted (seed: "Un tour se termine lorsque tous les
duellistes ont posté").

Exchanges between two duellists reuse the 1v1 engine (:func:`rules.fatigue.resolve_fatigue_step`
on a two-duellist sub-state), so bets, dodges, ripostes, reuse, levels, magic types and wards
are judged exactly as in 1v1 (seed: "Si deux duellistes adverses se retrouvent dans la même
zone, les règles des duels en un contre un s'appliquent"):

- a cast at a duellist who has not posted yet this turn is an *initiative*: checked at once,
  it waits (:class:`~rules.duo.state.PendingAttack`) for that duellist's post, which is their
  *defense* (cast back at the attacker, dodge, dodge_riposte); a defender who casts elsewhere
  cannot avoid it (RULES.md: "a defender who casts cannot avoid the initiative spell");
- a cast at a duellist who already posted this turn resolves at once, undefended;
- a cast at oneself resolves at once (heals, wards); at a creature it hurts the creature; at a
  mechanism it is an attempt the referee judges; at an item it takes the item; at the scenery
  it only counts as the post's action.

Effects start with the next *turn* and lasting damage runs once per turn (effects met in a
sub-resolution are the running ones; new ones wait in ``DuoState.incoming``).

Randomness (placement, rewards) comes from ``draw(label, n) -> 0..n-1`` passed in by the shell
(derived from the duel's secret seed, so it can be recomputed and audited).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, cast

from rules.duo.environment import Environment, RewardEntry, fold, pick_reward
from rules.duo.settings import DuoSettings
from rules.duo.state import DuoState, PendingAttack, RewardGiven
from rules.errors import RuleError
from rules.fatigue.effects import DamageOverTime, Ward
from rules.fatigue.engine import (
    OverrideValue,
    PostFacts,
    _parse_overrides,
    has_legal_action,
    resolve_fatigue_step,
)
from rules.fatigue.settings import FatigueRuleset
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.trail import OVERRIDE_RULE, TrailBuilder

Draw = Callable[[str, int], int]

# Override fields the 1v1 engine applies inside an exchange (``die`` too for a duellist with no
# post in the step: their waiting initiative read again); ``points`` and the dice of the step's
# posts are applied by the 2v2 engine itself.
_EXCHANGE_FIELDS = ("die", "bet_won", "dodged", "landed", "damage")
CREATURE_SOURCE = (
    'RULES.md, Ruleset fatigue 2v2: "Actions: cast on any target (opponent, teammate, self, '
    'creature, scenery)"; environments hold "creatures with PV and one unique ability"'
)


@dataclass(frozen=True)
class DuoPost:
    """One duellist's post as the 2v2 engine reads it.

    Attributes:
        post: action, spell, bet and ``target`` (the ``Cible :`` line, as typed).
        move_to: the ``Déplacement :`` line as typed, or None.
        use_item: the ``Objet :`` line as typed (an item used), or None.
    """

    post: TurnPost
    move_to: str | None = None
    use_item: str | None = None


@dataclass(frozen=True)
class Event:
    """One line of the declaration: ``kind`` and French-ready facts.

    Kinds: ``placed``, ``move`` (who, target: the zone left, detail: its name, zone: the
    zone entered), ``extra_move_refused``, ``creature_hit``
    (who, creature, damage, pv_left), ``creature_defeated``, ``creature_ability``, ``reward``
    (who, source, kind, amount), ``mechanism_attempt``, ``mechanism_solved``, ``item_taken``,
    ``item_used``, ``scenery``, ``nothing_to_dodge``, ``self_cast``, ``extra_post``,
    ``damage_over_time``, ``turn_closed``, ``initiative_held`` (who, detail: the post id: a
    second initiative of the duo when all four share a zone, held for the referee),
    ``pending`` (attacker, target: waiting for the target's post; only while it still waits at
    the end of the step), ``knocked_out`` (who, amount: their PV, fallen to 0 or below in
    this step), ``creature_down`` (creature: put at 0 PV by the referee's override; no
    reward).

    ``draw`` (rewards): the auditable draw behind the event, ``"<label> <value>/<sides>"``
    (e.g. ``"reward:strangulot:42 3/6"``: the seed's die ``value`` in 1..sides for
    ``label``, :func:`rules.dice.derive_die`); ``""`` when nothing was drawn (a one-line
    table).
    """

    kind: str
    who: str | None = None
    target: str | None = None
    detail: str = ""
    amount: int = 0
    zone: str | None = None
    draw: str = ""


@dataclass(frozen=True)
class DuoOutcome:
    """What one 2v2 declaration states.

    Attributes:
        state: the state after the declaration.
        attacks: the exchanges resolved (1v1 engine results), in order.
        violations: violations recorded in this step (1v1 ones and 2v2 ones).
        events: the other facts (:class:`Event`).
        entered: ``(duellist, zone key)`` zones entered in this step (owls to send).
        mechanism_attempts: ``(duellist, mechanism key, post id)`` for the referee.
        turn_closed: True when this step closed the turn.
        finished: the duel is over; winners / losers: the duos' members; draw.
        trail: the 1v1 engine's trail entries of the exchanges, in order.
        dice: post id -> (die,) used.
        held: post ids held for the referee and not resolved: a second initiative from one
            duo when all four share a zone (RULES.md: "two initiatives (one per duo)"); their
            author is still expected this turn.
    """

    state: DuoState
    attacks: tuple[AttackResult, ...]
    violations: tuple[Violation, ...]
    events: tuple[Event, ...]
    entered: tuple[tuple[str, str], ...]
    mechanism_attempts: tuple[tuple[str, str, int], ...]
    turn_closed: bool
    finished: bool
    winners: tuple[str, ...]
    losers: tuple[str, ...]
    draw: bool
    trail: tuple[object, ...] = field(default=())
    dice: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    held: tuple[int, ...] = ()


# --- Opening -------------------------------------------------------------------------------------


def place_duellists(
    names: Sequence[str], env: Environment, draw: Draw
) -> tuple[tuple[str, str], ...]:
    """Random starting zones, each duellist drawn independently and uniformly among the four
    zones (RULES.md: "placed at random [D: uniform, teammates may share a zone]").

    ``draw(f"place:{name}", 4)`` gives the zone index (0..3) of each duellist.
    """
    out = []
    for name in names:
        index = draw(f"place:{name}", len(env.zones))
        if not 0 <= index < len(env.zones):
            raise RuleError("duo.draw", f"draw gave {index} for {len(env.zones)} zones")
        out.append((name, env.zones[index].key))
    return tuple(out)


def new_duo_duel(
    ruleset: FatigueRuleset,
    duos: Sequence[Sequence[tuple[str, str, Sequence[str]]]],
    env: Environment,
    draw: Draw,
    stakes: str | None = None,
) -> DuoState:
    """A 2v2 duel not yet started: four duellists at the starting PV of their year, placed at
    random, the environment's creatures at full PV and its items in place.

    Args:
        duos: two duos of two ``(name, year, magic types)``.
        draw: see the module doc (placement labels ``place:<name>``).

    Raises:
        RuleError: not two duos of two distinct names (``"duo.duos"``), a bad year or magic
            types (as :func:`rules.fatigue.new_fatigue_duel`).
    """
    flat = [d for duo in duos for d in duo]
    if len(duos) != 2 or any(len(d) != 2 for d in duos) or len({d[0] for d in flat}) != 4:
        raise RuleError("duo.duos", "two duos of two different duellists")
    members = []
    for name, year, types in flat:
        keys = tuple(dict.fromkeys(ruleset.magic_type(t).key for t in types))
        if not 1 <= len(keys) <= 2:
            raise RuleError("magic_types", f"{name}: one or two magic types, got {list(types)}")
        members.append(
            DuellistState(name, year, ruleset.starting_points_for(year), magic_types=keys)
        )
    duel = DuelState(ruleset=ruleset.name, turn=0, started=False, duellists=tuple(members),
                     stakes=stakes)  # fmt: skip
    names = [m.name for m in members]
    return DuoState(
        duel=duel,
        environment=env.key,
        duos=((names[0], names[1]), (names[2], names[3])),
        positions=place_duellists(names, env, draw),
        creatures=tuple((c.key, c.pv) for c in env.creatures),
        items_left=tuple(i.key for i in env.items),
    )


def start_duo(state: DuoState) -> DuoState:
    """The opening declaration is out: the duel starts. Raises RuleError if already started."""
    if state.duel.started:
        raise RuleError("start", "the duel has already started")
    return replace(state, duel=replace(state.duel, started=True))


def posts_per_declaration(state: DuoState, settings: DuoSettings) -> int:
    """1, or ``posts_per_declaration_together`` (2) when all four share a zone (seed 001:
    "Si les quatre duellistes se retrouvent dans la même zone, l'arbitre ne postera
    d'intervention que tous les deux postes")."""
    return settings.posts_per_declaration_together if state.all_together() else 1


def expected_posters(state: DuoState) -> tuple[str, ...]:
    """Active duellists who have not posted yet this turn."""
    return tuple(n for n in state.active_names() if n not in state.posted)


# --- Targets -------------------------------------------------------------------------------------

_SELF = ("moi", "moi meme", "lui meme", "elle meme", "soi", "soi meme", "self")


@dataclass(frozen=True)
class Target:
    """What a ``Cible :`` line names: ``kind`` in ``duellist``, ``self``, ``creature``,
    ``mechanism``, ``item``, ``scenery``, ``none``; ``key`` the name or key."""

    kind: str
    key: str | None = None


def resolve_target(text: str | None, caster: str, state: DuoState, env: Environment) -> Target:
    """Read a ``Cible :`` line: a duellist (full name or first name), oneself, a creature, a
    mechanism or an item of the environment, else the scenery (RULES.md: "cast on any
    target (opponent, teammate, self, creature, scenery)"). None gives ``Target("none")``."""
    if text is None or not text.strip():
        return Target("none")
    t = fold(text)
    if t in _SELF or t == fold(caster):
        return Target("self")
    for name in state.names():
        full = fold(name)
        if t == full or t == full.split()[0] or full in t:
            return Target("self") if name == caster else Target("duellist", name)
    for kind, entries in (
        ("creature", env.creatures),
        ("mechanism", env.mechanisms),
        ("item", env.items),
    ):
        for e in entries:
            names = (fold(e.name), fold(e.key))
            if t in names or any(n in t for n in names) or (len(t) >= 4 and t in names[0]):
                return Target(kind, e.key)
    return Target("scenery", text.strip())


# --- Resolution ----------------------------------------------------------------------------------


class _Step:
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
    ) -> None:
        self.s = state
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

    # -- referee overrides ----------------------------------------------------------------
    def note(self, quantity: str, value: int | bool, detail: str) -> None:
        """A trail entry decided by the 2v2 engine itself (creature hits)."""
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
        for d in self.s.duel.duellists:
            key = (d.name, "disqualified")
            if key in self.overrides:
                if key not in self.settled:
                    self.take(d.name, "disqualified", d.disqualified)
                    self.settled.add(key)
                self.put(replace(d, disqualified=bool(self.overrides[key])))
        for d in self.s.duel.duellists:
            key = (d.name, "points")
            if key in self.overrides:
                value = int(self.overrides[key])
                if key not in self.settled:
                    self.take(d.name, "points", d.points)
                    self.settled.add(key)
                self.put(replace(d, points=value))
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
                        self.s = replace(self.s, defeated=self.s.defeated + ((c.key, ""),))
                        self.events.append(Event("creature_down", None, c.name, "referee"))
                self.s = replace(
                    self.s,
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
        refused by :func:`resolve_duo_step`."""
        offered = {
            k: v
            for k, v in self.overrides.items()
            if k[0] in names
            and k[1] in _EXCHANGE_FIELDS
            and not (k[1] == "die" and k[0] in self.posters)
        }
        out = resolve_fatigue_step(
            sub, posts, dice, ruleset=self.rs, waived=waived, confirmed=confirmed, facts=facts,
            overrides={f"{n}.{f}": v for (n, f), v in offered.items()}, strict_overrides=False,
            voided=voided,
        )  # fmt: skip
        applied = {t.quantity for t in out.trail if t.rule == OVERRIDE_RULE}
        self.used.update(k for k in offered if f"{k[0]}.{k[1]}" in applied)
        return out

    # -- state helpers --------------------------------------------------------------------
    def member(self, name: str) -> DuellistState:
        return self.s.duel.duellist(name)

    def put(self, *updated: DuellistState) -> None:
        by = {d.name: d for d in updated}
        duel = self.s.duel
        self.s = replace(
            self.s, duel=replace(duel, duellists=tuple(by.get(d.name, d) for d in duel.duellists))
        )

    def points(self, name: str, delta: int) -> None:
        d = self.member(name)
        self.put(replace(d, points=d.points + delta))

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
            replace(
                d,
                violations=d.violations + (v,),
                points=d.points - (penalty if status == "applied" else 0),
            )
        )
        return status

    # -- the 1v1 engine on two duellists -----------------------------------------------------
    def _sub_member(self, name: str) -> DuellistState:
        d = self.member(name)
        return replace(d, effects=tuple(e for e in d.effects if not isinstance(e, DamageOverTime)))

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
    ) -> AttackResult | None:
        """Run the 1v1 engine between ``a`` (initiator) and ``b``: an initiative (``post``
        without ``pending``), a defense (both) or an undefended resolution (``pending`` only;
        with ``close`` an initiative is resolved undefended at once). Merges PV, violations,
        reuse memory and new effects of the duellists in ``keep`` (default both). When ``b``
        is not kept it is a stand-in (a self cast, a creature, the scenery): the exchange is
        not declared as an attack on it. ``voided``: post id -> reason, spells with no effect
        (a forbidden double target in a defense post). Returns the initiator's AttackResult."""
        names = (a, b)
        other = self._sub_member(b)
        if keep is not None and b not in keep:  # a stand-in: never a knocked-out one, which
            # would end the 1v1 exchange before it starts (a self heal with the teammate down)
            other = replace(other, points=max(other.points, 1))
        sub = DuelState(
            ruleset=self.s.duel.ruleset,
            turn=self.s.duel.turn,
            started=True,
            duellists=(self._sub_member(a), other),
            pending=(pending,) if pending is not None else (),
        )
        waived = {p for p in self.waived if p[0] in names}
        confirmed = {p for p in self.confirmed if p[0] in names}
        posts = [post] if post is not None else []
        dice = {p.post_id: p.dice for p in posts if p.dice is not None}
        kept = set(names if keep is None else keep)
        out = self.fatigue_step(sub, posts, dice, kept, waived, confirmed, self.facts, voided)
        attacks = list(out.attacks)
        self.trail.extend(out.trail)
        violations = list(out.violations)
        if post is not None and pending is None and close and out.state.pending:
            again = self.fatigue_step(out.state, [], {}, kept, waived, confirmed, None)
            attacks = list(again.attacks)
            self.trail.extend(again.trail)
            known = {(v.duellist, v.rule, v.post_id) for v in violations}
            violations += [
                v for v in again.violations if (v.duellist, v.rule, v.post_id) not in known
            ]
            out = again
        for p in posts:
            self.dice[p.post_id] = tuple(p.dice or ())
        keep = set(names if keep is None else keep)
        self.violations.extend(v for v in violations if v.duellist in keep)
        merged = []
        for d in out.state.duellists:
            if d.name not in keep:
                continue
            mine = self.member(d.name)
            merged.append(
                replace(
                    mine,
                    points=d.points,
                    violations=d.violations,
                    spells_used_on=d.spells_used_on,
                    last_spell=d.last_spell if d.name == poster else mine.last_spell,
                )
            )
        self.put(*merged)
        stand_in = b not in keep  # b only lends the 1v1 engine an opponent (self, creature...)
        for att in attacks:
            if att.void_reason != "pending" and not stand_in:
                self.attacks.append(att)
            for e in att.effects_applied:
                carrier = (
                    att.defender if getattr(e, "applies", "target") == "target" else att.attacker
                )
                if carrier in keep:
                    self.s = replace(self.s, incoming=self.s.incoming + ((carrier, e),))
        return attacks[0] if attacks else None

    def resolve_pending(
        self, p: PendingAttack, defense: TurnPost | None, *, void_defense: str | None = None
    ) -> None:
        """Resolve a waiting initiative with ``defense`` (None: undefended). ``void_defense``
        (a reason) makes the defense post's spell void; its bet and dodge still count."""
        self.s = replace(self.s, pending=tuple(x for x in self.s.pending if x != p))
        voided = {defense.post_id: void_defense} if defense is not None and void_defense else None
        self.exchange(
            p.attacker, p.target, p.post, defense, poster=p.target, close=False, voided=voided
        )

    # -- creatures, mechanisms, items -------------------------------------------------------
    def reward(self, who: str, source: str, table: Sequence[RewardEntry], post_id: int) -> None:
        total = sum(r.weight for r in table)
        label = f"reward:{source}:{post_id}"
        roll = self.draw(label, total) if total > 1 else 0
        audit = f"{label} {roll + 1}/{total}" if total > 1 else ""
        chosen = pick_reward(table, roll)
        if chosen.kind == "pv":
            gain = chosen.amount
            if not self.cfg.pv_reward_above_start:
                top = self.rs.starting_points_for(self.member(who).year)
                gain = max(0, min(gain, top - self.member(who).points))
            self.points(who, gain)
        given = RewardGiven(who, source, chosen.kind, chosen.amount)
        self.s = replace(self.s, rewards=self.s.rewards + (given,))
        self.events.append(Event("reward", who, source, chosen.kind, chosen.amount, draw=audit))

    def hit_creature(self, who: str, key: str, post: TurnPost) -> None:
        creature = self.env.creature(key)
        zone = self.s.zone_of(who)
        left = self.s.creature_pv(key)
        if left <= 0 or creature.zone != zone:
            why = "already defeated" if left <= 0 else "not in the caster's zone"
            self.exchange(who, self._dummy(who), None, post, poster=who, keep={who}, close=False)
            self.events.append(Event("scenery", who, creature.name, why))
            return
        att = self.exchange(who, self._dummy(who), None, post, poster=who, keep={who}, close=False)
        if att is None or att.void_reason != "pending":
            void = (att.void_reason if att is not None else None) or ""
            self.events.append(Event("creature_missed", who, creature.name, void))
            return
        armour = creature.ability.amount if creature.ability.kind == "armour" else 0
        self.note(f"{who}.landed", True, f"{att.spell} hits {creature.name}")
        if not self.take(who, "landed", True):
            self.events.append(Event("creature_missed", who, creature.name, "referee"))
            return
        computed = max(0, att.attack_value - armour)
        self.note(
            f"{who}.damage", computed,
            f"{att.spell}: {att.attack_value} - {armour} (armour) = {computed} PV on "
            f"{creature.name} ({left} PV)",
        )  # fmt: skip
        damage = max(0, int(self.take(who, "damage", computed)))
        left = max(0, left - damage)
        self.s = replace(
            self.s, creatures=tuple((k, left if k == key else v) for k, v in self.s.creatures)
        )
        self.events.append(Event("creature_hit", who, creature.name, att.spell or "", damage))
        if armour:
            self.events.append(
                Event("creature_ability", None, creature.name, creature.ability.name, armour)
            )
        if left == 0:
            self.events.append(Event("creature_defeated", who, creature.name))
            if not any(k == key for k, _ in self.s.defeated):  # one reward per creature, ever
                self.s = replace(self.s, defeated=self.s.defeated + ((key, who),))
                self.reward(who, f"creature:{key}", creature.rewards, post.post_id)
        elif creature.ability.kind == "retaliate":
            self.points(who, -creature.ability.amount)
            self.events.append(
                Event("creature_ability", who, creature.name, creature.ability.name,
                      creature.ability.amount)
            )  # fmt: skip

    def no_legal_action(self, who: str, targeted: bool) -> bool:
        """True when ``who`` can neither cast (a ``no_attack`` effect) nor dodge (nothing
        aimed at them, or a ``no_dodge`` effect). RULES.md: "A duellist left with no legal
        action posts role-play and endures: that counts as their post, no violation" — so
        their move, the duo's move of the turn, is no ``move_alone`` either. A second dodge
        in a row is not a legal action (:func:`rules.fatigue.engine.has_legal_action`)."""
        return not has_legal_action(self.member(who), self.rs.cfg, can_be_dodging=targeted)

    def _dummy(self, who: str) -> str:
        """Another duellist for a one-sided 1v1 check (its changes are discarded)."""
        return self.s.teammate(who)

    def solve(self, key: str, who: str, ref_id: int) -> None:
        """A mechanism the referee judged solved by ``who``: reward drawn now."""
        if any(k == key for k, _ in self.s.solved):
            return
        mech = self.env.mechanism(key)
        self.s = replace(self.s, solved=self.s.solved + ((key, who),))
        self.events.append(Event("mechanism_solved", who, mech.name))
        self.reward(who, f"mechanism:{key}", mech.rewards, ref_id)

    def use_item(self, who: str, text: str, post: TurnPost, target: Target) -> None:
        held = [k for n, k in self.s.inventory if n == who]
        t = fold(text)
        key = next(
            (k for k in held if t in (fold(k), fold(self.env.item(k).name))
             or fold(self.env.item(k).name) in t),
            None,
        )  # fmt: skip
        if key is None:
            self.events.append(Event("item_not_held", who, text))
            return
        item = self.env.item(key)
        inv = list(self.s.inventory)
        inv.remove((who, key))
        self.s = replace(self.s, inventory=tuple(inv))
        if item.effect == "heal":
            top = self.rs.starting_points_for(self.member(who).year)
            gain = max(0, min(item.amount, top - self.member(who).points))
            self.points(who, gain)
            self.events.append(Event("item_used", who, item.name, "heal", gain))
        elif item.effect == "ward":
            ward = Ward(amount=item.amount, duration=item.duration, source=item.name, caster=who)
            self.s = replace(self.s, incoming=self.s.incoming + ((who, ward),))
            self.events.append(Event("item_used", who, item.name, "ward", item.amount))
        else:
            victim = target.key if target.kind == "duellist" and target.key else None
            if victim is not None:
                self.points(victim, -item.amount)
            self.events.append(
                Event("item_used", who, item.name, f"damage:{victim or '-'}", item.amount)
            )

    # -- one post --------------------------------------------------------------------------
    def post(self, dp: DuoPost) -> None:
        post = dp.post
        me = post.duellist
        if not self.s.active(me) or me in self.s.posted:
            self.events.append(Event("extra_post", me, None, str(post.post_id)))
            return
        target = resolve_target(post.target, me, self.s, self.env)
        declared = post.kind or ("cast" if (post.spell or post.spell_text) else None)
        if dp.use_item:
            self.use_item(me, dp.use_item, post, target)
        incoming = [p for p in self.s.pending if p.target == me]
        defended: PendingAttack | None = None
        if incoming and declared in ("dodge", "dodge_riposte"):
            defended = next(
                (p for p in incoming if target.kind == "duellist" and p.attacker == target.key),
                incoming[0],
            )
        elif incoming and declared == "cast":
            aimed = target.key if target.kind == "duellist" else None
            if target.kind == "none":
                aimed = incoming[0].attacker
            defended = next((p for p in incoming if p.attacker == aimed), None)
        for p in incoming:
            if p is not defended:
                self.resolve_pending(p, None)
        if defended is not None:
            # seed 001: "Ne peut pas viser directement A1 car déjà visé par B2": a forbidden
            # double target in a defense post is void (duo.toml double_target_effect), as in
            # an initiative; the defense's dodge still counts.
            allowed = self.record_target(me, defended.attacker, post, direct=declared != "dodge")
            self.resolve_pending(defended, post, void_defense=None if allowed else "double_target")
        elif declared is None and not post.spell_text:
            if dp.move_to or dp.use_item:
                if not dp.use_item and not self.no_legal_action(me, bool(incoming)):
                    self.violation(me, "move_alone", post.post_id, "a move with no other action")
            else:
                self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
        elif declared in ("dodge", "dodge_riposte"):
            self.events.append(Event("nothing_to_dodge", me, None, declared))
        else:
            self.cast(me, post, target)
        if dp.move_to:
            self.move(me, dp.move_to, post.post_id)
        d = self.member(me)
        self.put(replace(d, last_action=declared))
        self.s = replace(
            self.s, posted=self.s.posted + (me,), posted_ids=self.s.posted_ids + (post.post_id,)
        )

    def cast(self, me: str, post: TurnPost, target: Target) -> None:
        if target.kind == "none":
            near = [n for n in self.s.opponents(me) if n in self.s.in_zone(self.s.zone_of(me))]
            if len(near) == 1:
                target = Target("duellist", near[0])
            else:
                self.violation(
                    me, "missing_target", post.post_id,
                    f"no 'Cible :' line and {len(near)} opponents in reach",
                )  # fmt: skip
                target = Target("scenery", "")
        if target.kind == "duellist" and target.key is not None:
            victim = target.key
            if not self.record_target(me, victim, post, direct=True):
                return
            if victim in self.s.posted or not self.s.active(victim):
                self.exchange(me, victim, None, post, poster=me)
            else:
                self.exchange(me, victim, None, post, poster=me, close=False)
                kept = replace(post, dice=self.dice.get(post.post_id))
                self.s = replace(
                    self.s, pending=self.s.pending + (PendingAttack(me, victim, kept),)
                )
                self.events.append(Event("pending", me, victim))
        elif target.kind == "self":
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me})
            self.events.append(Event("self_cast", me, me, post.spell or ""))
        elif target.kind == "creature" and target.key is not None:
            self.hit_creature(me, target.key, post)
        elif target.kind == "mechanism" and target.key is not None:
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            mech = self.env.mechanism(target.key)
            if any(k == mech.key for k, _ in self.s.solved):
                self.events.append(Event("scenery", me, mech.name, "already solved"))
            else:
                self.attempts.append((me, mech.key, post.post_id))
                self.events.append(Event("mechanism_attempt", me, mech.name, mech.solution))
        elif target.kind == "item" and target.key is not None:
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            item = self.env.item(target.key)
            if item.key in self.s.items_left and item.zone == self.s.zone_of(me):
                self.s = replace(
                    self.s,
                    items_left=tuple(k for k in self.s.items_left if k != item.key),
                    inventory=self.s.inventory + ((me, item.key),),
                )
                self.events.append(Event("item_taken", me, item.name, item.found))
            else:
                self.events.append(Event("scenery", me, item.name, "not here"))
        else:
            self.exchange(me, self._dummy(me), None, post, poster=me, keep={me}, close=False)
            self.events.append(Event("scenery", me, target.key or "le décor", post.spell or ""))

    def record_target(self, me: str, victim: str, post: TurnPost, *, direct: bool) -> bool:
        """Note a direct target; False when it is a forbidden ``double_target`` (void)."""
        if not direct:
            return True
        mate = self.s.teammate(me)
        if victim in self.s.opponents(me) and (mate, victim) in self.s.targeted:
            zone = self.s.zone_of(victim)
            here = self.s.in_zone(zone)
            lone = me in here and mate in here and self.s.teammate(victim) not in here
            if lone or self.s.all_together():
                why = (
                    f"{victim} is alone in the zone with {me} and {mate}"
                    if lone
                    else "all four share a zone"
                ) + f"; {mate} already targeted {victim} this turn"
                status = self.violation(me, "double_target", post.post_id, why)
                if status not in ("waived", "off"):
                    self.events.append(Event("double_target", me, victim))
                    return False
        self.s = replace(self.s, targeted=self.s.targeted + ((me, victim),))
        return True

    def move(self, me: str, text: str, post_id: int) -> None:
        zone = self.env.find_zone(text)
        if zone is None:
            self.violation(me, "unknown_zone", post_id, f"'Déplacement : {text}' names no zone")
            return
        here = self.s.zone_of(me)
        if zone.key == here:
            self.events.append(Event("same_zone", me, None, zone.name, zone=zone.key))
            return
        if self.s.teammate(me) in self.s.movers:
            status = self.violation(
                me, "extra_move", post_id, f"{self.s.teammate(me)} already moved this turn"
            )
            if status not in ("waived", "off"):
                self.events.append(Event("extra_move_refused", me, None, zone.name, zone=zone.key))
                return
        self.s = replace(
            self.s,
            positions=tuple((n, zone.key if n == me else z) for n, z in self.s.positions),
            movers=self.s.movers + (me,),
        )
        self.entered.append((me, zone.key))
        self.events.append(Event("move", me, here, self.env.zone(here).name, zone=zone.key))

    # -- end of turn ----------------------------------------------------------------------
    def close_turn(self) -> None:
        for p in list(self.s.pending):
            self.resolve_pending(p, None)
        order = list(self.s.posted)
        ids = dict(zip(self.s.posted, self.s.posted_ids, strict=True))
        for duo in self.s.duos:
            alive = [n for n in duo if n in order]
            if not alive or any(n in self.s.movers for n in duo):
                continue
            blamed = max(alive, key=order.index)
            self.violation(
                blamed, "missing_move", ids[blamed],
                f"nobody of {duo[0]} & {duo[1]} moved this turn",
            )  # fmt: skip
        for c in self.env.creatures:
            left = self.s.creature_pv(c.key)
            if left <= 0:
                continue
            if c.ability.kind == "aura":
                for n in self.s.in_zone(c.zone):
                    self.points(n, -c.ability.amount)
                    self.events.append(
                        Event("creature_ability", n, c.name, c.ability.name, c.ability.amount)
                    )
            elif c.ability.kind == "regenerate" and left < c.pv:
                healed = min(c.pv, left + c.ability.amount)
                self.s = replace(
                    self.s,
                    creatures=tuple((k, healed if k == c.key else v) for k, v in self.s.creatures),
                )
                self.events.append(
                    Event("creature_ability", None, c.name, c.ability.name, healed - left)
                )
        updated = []
        for d in self.s.duel.duellists:
            dot = sum(e.amount for e in d.effects if isinstance(e, DamageOverTime))
            if dot:
                self.events.append(Event("damage_over_time", d.name, None, "", dot))
            running = [replace(e, duration=e.duration - 1) for e in d.effects if e.duration > 1]
            for n, e in self.s.incoming:
                if n != d.name:
                    continue
                same = next(
                    (i for i, o in enumerate(running) if (o.kind, o.source) == (e.kind, e.source)),
                    None,
                )
                if same is None:
                    running.append(e)
                elif running[same].duration < e.duration:
                    running[same] = e
            updated.append(replace(d, points=d.points - dot, effects=tuple(running)))
        self.put(*updated)
        self.s = replace(
            self.s,
            duel=replace(self.s.duel, turn=self.s.duel.turn + 1),
            incoming=(),
            posted=(),
            posted_ids=(),
            movers=(),
            targeted=(),
        )
        self.events.append(Event("turn_closed", None, None, str(self.s.duel.turn)))

    def end(self) -> tuple[bool, tuple[str, ...], tuple[str, ...], bool]:
        limit = int(self.rs.setting("violations_to_lose"))
        lost = []
        for i, duo in enumerate(self.s.duos):
            members = [self.member(n) for n in duo]
            down = all(m.points <= 0 for m in members) or any(m.disqualified for m in members)
            three = any(
                sum(1 for v in m.violations if v.status == "applied") >= limit for m in members
            )
            if down or three:
                lost.append(i)
        if not lost:
            return False, (), (), False
        if len(lost) == 2:
            # RULES.md: "Both at 0 in one declaration: the one with more PV left wins" — PV
            # below 0 count as they are (as the 1v1 double_ko does), or both totals would be 0
            totals = [sum(self.member(n).points for n in duo) for duo in self.s.duos]
            if self.cfg.both_duos_down == "draw" or totals[0] == totals[1]:
                return True, (), (), True
            lost = [0 if totals[0] < totals[1] else 1]
        loser = self.s.duos[lost[0]]
        return True, self.s.duos[1 - lost[0]], loser, False


def resolve_duo_step(
    state: DuoState,
    posts: Sequence[DuoPost],
    dice: Mapping[int, Sequence[int]],
    *,
    ruleset: FatigueRuleset,
    env: Environment,
    settings: DuoSettings,
    draw: Draw,
    solved: Sequence[tuple[str, str, int]] = (),
    waived: Collection[tuple[str, str]] = (),
    confirmed: Collection[tuple[str, str]] = (),
    facts: Mapping[int, PostFacts] | None = None,
    overrides: Mapping[str, int | bool] | None = None,
) -> DuoOutcome:
    """Draft one 2v2 declaration (see the module doc).

    Args:
        state: the duel before the declaration (started, not finished).
        posts: the new posts in post order: one, or two when all four share a zone.
        dice: post id -> (d6,) of each post.
        ruleset: the fatigue ruleset (spellbook, bets, penalties).
        env: the duel's environment; settings: ``duo.toml``.
        draw: ``draw(label, n) -> 0..n-1`` (rewards: ``reward:<source>:<post or task id>``).
        solved: ``(mechanism key, duellist, task id)`` the referee judged solved since the
            last declaration (reward drawn in this one).
        waived, confirmed: ``(duellist, violation code)`` referee decisions.
        facts: post id -> :class:`PostFacts` (displayed lines, late edit).
        overrides: the referee's values (RULES.md, Referee and admin: "change any computed
            number"), keys ``"<duellist>.<field>"`` as :func:`rules.fatigue.resolve_fatigue_step`
            takes them: ``die`` (int 1..6: the die of the duellist's post in this step, or of
            their waiting initiative read again), ``bet_won``, ``dodged``, ``landed`` (bool),
            ``damage`` (int PV dealt by the duellist's spell, a creature hit included),
            ``points`` (int PV after the step); and ``"<creature key or name>.points"`` (int PV
            left after the step, 0..its starting PV; 0 leaves it defeated, with no reward
            drawn). Applied where computed, in every exchange of the step that computes them;
            each recorded in ``trail`` as ``"referee.override"`` (computed and set values).

    Returns:
        A :class:`DuoOutcome`; the turn closes when every active duellist has posted.

    Raises:
        RuleError: not started or finished (``"duo.state"``), a post by an unknown duellist
            (``"duo.posts"``), a missing die (``"fatigue.dice"``), a non-canonical spell, an
            unknown, ill-typed or out-of-range override or one with nothing to apply to in
            this step (``"referee.override"``; a die override out of 1..6: ``"fatigue.dice"``).
    """
    if not state.duel.started or state.duel.finished:
        raise RuleError("duo.state", "the duel is not running")
    parsed = _duo_overrides(overrides or {}, state, env, ruleset, settings)
    posters = {dp.post.duellist for dp in posts}
    step = _Step(state, ruleset, env, settings, draw, waived, confirmed, facts or {}, parsed,
                 posters)  # fmt: skip
    for key, who, task_id in solved:
        step.solve(key, who, task_id)
    together = state.all_together()
    held: list[int] = []
    for dp in posts:
        p = dp.post
        if p.duellist not in state.names():
            raise RuleError("duo.posts", f"post {p.post_id} by unknown {p.duellist!r}")
        if p.post_id not in dice:
            raise RuleError("fatigue.dice", f"no die for post {p.post_id}")
        if together and _second_initiative(step.s, p.duellist, settings):
            held.append(p.post_id)
            step.events.append(Event("initiative_held", p.duellist, None, str(p.post_id)))
            continue
        rolled = step.rolled(p.duellist, tuple(dice[p.post_id]))
        step.post(DuoPost(replace(p, dice=rolled), dp.move_to, dp.use_item))
        step.dice.setdefault(p.post_id, rolled)
    closed = False
    finished, winners, losers, draw_ = step.end()
    if not finished and not expected_posters(step.s):
        step.close_turn()
        closed = True
    step.settle()
    finished, winners, losers, draw_ = step.end()
    if not finished and not closed and not expected_posters(step.s):
        step.close_turn()  # the referee's points keep a duo in: the full turn closes
        closed = True
        step.settle()
        finished, winners, losers, draw_ = step.end()
    for unused in sorted(parsed.keys() - step.used):
        raise RuleError(OVERRIDE_RULE, f"nothing to apply {unused[0]}.{unused[1]} to here")
    s = step.s
    if finished:
        s = replace(
            s,
            duel=replace(
                s.duel,
                finished=True,
                draw=draw_,
                winner=" & ".join(winners) if winners else None,
            ),
            winners=winners,
            losers=losers,
            pending=(),
        )
    # A spell announced as waiting and answered later in the same step (or by a duel now
    # over) is no longer waiting: its "pending" line goes. A duellist falling to 0 PV in this
    # step is announced once (RULES.md: "a duellist whose PV reach 0 must abandon").
    still = {(p.attacker, p.target) for p in s.pending}
    events = [e for e in step.events if e.kind != "pending" or (e.who, e.target) in still]
    at = next((i for i, e in enumerate(events) if e.kind == "turn_closed"), len(events))
    for before in state.duel.duellists:
        after = s.duel.duellist(before.name)
        if before.points > 0 >= after.points:
            events.insert(at, Event("knocked_out", before.name, None, "", after.points))
            at += 1
    return DuoOutcome(
        state=s,
        attacks=tuple(step.attacks),
        violations=tuple(step.violations),
        events=tuple(events),
        entered=tuple(step.entered),
        mechanism_attempts=tuple(step.attempts),
        turn_closed=closed,
        finished=finished,
        winners=winners,
        losers=losers,
        draw=draw_,
        trail=tuple(step.trail),
        dice=dict(step.dice),
        held=tuple(held),
    )


def _second_initiative(state: DuoState, who: str, settings: DuoSettings) -> bool:
    """True when ``who``'s post would be a second initiative of their duo: all four share a
    zone, the turn's initiatives are not all in yet (the first ``posts_per_declaration_together``
    posts of the turn) and their teammate already took one. RULES.md: "then two initiatives
    (one per duo), a declaration, two defenses, a declaration"."""
    if who in state.posted or len(state.posted) >= settings.posts_per_declaration_together:
        return False
    return state.teammate(who) in state.posted


def _duo_overrides(
    overrides: Mapping[str, int | bool],
    state: DuoState,
    env: Environment,
    ruleset: FatigueRuleset,
    settings: DuoSettings,
) -> dict[tuple[str, str], OverrideValue]:
    """Parse the referee's overrides (see :func:`resolve_duo_step`) into ``(duellist or
    creature key, field) -> value``, with the fatigue engine's key parser (case-insensitive).

    Raises:
        RuleError: ``"referee.override"`` for an unknown key, a wrong type, a negative
            ``damage``/``points``, a duellist's PV above the year's starting PV when PV
            rewards cannot exceed it (``pv_reward_above_start = false``), a creature field
            other than ``points``, a creature PV out of 0..its starting PV, or PV given back
            to a creature defeated before this step (its reward was drawn then: reviving it
            would let it be defeated, and rewarded, twice).
    """
    creature_keys = {c.key: c.key for c in env.creatures}
    creature_keys.update({c.name: c.key for c in env.creatures})
    names = [*state.names(), *(n for n in creature_keys if n not in state.names())]
    subjects = "<duellist>" + (" or <creature key>" if env.creatures else "")
    out: dict[tuple[str, str], OverrideValue] = {}
    for (name, fld), value in _parse_overrides(overrides, names, subjects=subjects).items():
        if name in state.names():
            top = ruleset.starting_points_for(state.duel.duellist(name).year)
            if fld == "points" and not settings.pv_reward_above_start and int(value) > top:
                raise RuleError(
                    OVERRIDE_RULE, f"{name}.points: at most {top} PV (year's start), got {value}"
                )
            out[(name, fld)] = value
            continue
        creature = env.creature(creature_keys[name])
        if fld != "points":
            raise RuleError(
                OVERRIDE_RULE, f"{name}.{fld}: a creature takes only 'points' (its PV left)"
            )
        if not 0 <= int(value) <= creature.pv:
            raise RuleError(
                OVERRIDE_RULE,
                f"{name}.points: {creature.name} has 0..{creature.pv} PV, got {value}",
            )
        if int(value) > 0 and state.creature_pv(creature.key) <= 0:
            raise RuleError(
                OVERRIDE_RULE,
                f"{name}.points: {creature.name} was defeated before this step (its reward is "
                "drawn); it cannot come back",
            )
        out[(creature.key, fld)] = value
    return out


def duo_rewards(state: DuoState, settings: DuoSettings) -> list[tuple[str, str, int]]:
    """End-of-duel rewards ``(duellist, reward, amount)``: winners ``leaderboard_point`` and
    ``galleons`` each, losers a ``chocolate_frog`` each, a draw a frog each (RULES.md: "Winners:
    1 point on the 2v2 leaderboard [D: each] and a purse of 5 G each. Losers: one chocolate
    frog each")."""
    if state.winners:
        out = []
        for n in state.winners:
            out += [
                (n, "leaderboard_point", settings.win_points),
                (n, "galleons", settings.win_galleons),
            ]
        out += [(n, "chocolate_frog", settings.loser_frogs) for n in state.losers]
        return out
    if state.duel.draw:
        return [(n, "chocolate_frog", settings.draw_frogs) for n in state.names()]
    return []


__all__ = [
    "DuoOutcome",
    "DuoPost",
    "Event",
    "Target",
    "duo_rewards",
    "expected_posters",
    "new_duo_duel",
    "place_duellists",
    "posts_per_declaration",
    "resolve_duo_step",
    "resolve_target",
    "start_duo",
]
