"""The fatigue ruleset's one-against-one resolution (seed 001, RULES.md "Ruleset fatigue").

A 1v1 turn is: initiative post, first declaration, defense post, second declaration (seed 001:
"Le premier des deux duellistes à poster en début de tour s'octroie le poste d'initiative [...]
Avec elle se termine le tour."). :func:`resolve_fatigue_step` drafts one declaration:

- ``step="initiative"``: the first post of a turn. Its checks (bet, level, reuse, barred cast)
  and penalties are stated; the spell itself is *pending*: it resolves with the defense, since
  a dodge may avoid it. The post (with its die in force) is kept in ``DuelState.pending``.
- ``step="defense"``: the other duellist's post (cast, dodge or dodge_riposte). Both posts
  resolve, effects are carried, the turn closes.
- ``step="relaunch"``: the defense never came (timeout): the initiative spell resolves
  undefended and the turn closes (RULES.md [D]).

The duel ends at any declaration that records a third violation or 0 PV, even a first one.

AttackResult, as used here: ``attack_die`` is the post's own bet die (0 when it has none),
``defense_die`` the other post's die in the exchange (0 when none), ``attack_value`` the
spell's base PV, ``attack_modifiers`` the caster's magic-type PV modifiers, ``defense_modifiers``
the target's (magic type, wards; negative), ``effective_defense`` 0. ``void_reason``:
``"pending"`` (initiative not yet resolved), ``"dodged"``, ``"dodge"`` (a plain dodge: no
spell), ``"riposte_failed"``, ``"barred"``, ``"reused_spell"``, ``"spell_above_level"``,
``"unknown_spell"``, ``"missing_spell"``, ``"no_action"``, ``"initiative_not_cast"``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from rules.effects import Effect, NoAttack
from rules.engine import new_duel, register_engine
from rules.errors import RuleError
from rules.fast import evolve
from rules.fatigue.effects import (
    DamageOverTime,
    Heal,
    NoDodge,
    PvDamage,
    SpellFamily,
    Undodgeable,
    Ward,
)
from rules.fatigue.settings import FatigueRuleset, FatigueSettings, MagicModifier, Status
from rules.fatigue.sources import FATIGUE_SOURCES
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    Modifier,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.ruleset import Ruleset, Spell
from rules.trail import TrailBuilder

Step = Literal["initiative", "defense", "relaunch"]
OverrideValue = int | bool
_OVERRIDE_FIELDS: dict[str, type] = {
    "die": int,
    "bet_won": bool,
    "dodged": bool,
    "landed": bool,
    "damage": int,
    "points": int,
}
# Violations whose draft status comes from another setting.
_STATUS_SETTING = {"missing_spell": "no_action"}
_JUDGED = (
    "short_post",
    "late_edit",
    "result_stated",
    "barred_action",
    "unknown_spell",
    "cast_before_start",
    "initiative_not_cast",
    "no_action",
    "invalid_bet",
)


@dataclass(frozen=True)
class PostFacts:
    """What the shell measured on a post (the engine never reads text).

    Attributes:
        lines: displayed lines (:func:`rules.fatigue.lines.count_displayed_lines`), or None.
        late_edit: True when the post was edited after the next post
            (:func:`rules.fatigue.lines.version_in_force`); the version in force is used.
        result_stated: True when the referee (or a helper) flagged that the post states the
            result of its own spell.
    """

    lines: int | None = None
    late_edit: bool = False
    result_stated: bool = False


@dataclass(frozen=True)
class _Read:
    """One post read against the rules (internal)."""

    name: str
    post: TurnPost
    kind: str | None  # the action performed (None: none, or ignored)
    spell: Spell | None  # the spell that takes effect, None when void or none
    named: str | None  # canonical name named in bold
    void: str | None
    bet: tuple[int, ...] | None
    die: int
    bet_won: bool
    dodge_ok: bool


class _Ctx:
    """Bookkeeping of one resolution call (never escapes it)."""

    def __init__(
        self,
        state: DuelState,
        ruleset: FatigueRuleset,
        overrides: dict[tuple[str, str], OverrideValue],
        waived: set[tuple[str, str]],
        confirmed: set[tuple[str, str]],
        facts: Mapping[int, PostFacts],
        strict_overrides: bool = True,
        voided: Mapping[int, str] | None = None,
        trail: bool = True,
    ) -> None:
        self.state = state
        self.voided: Mapping[int, str] = voided or {}
        self.strict_overrides = strict_overrides
        self.ruleset = ruleset
        self.cfg: FatigueSettings = ruleset.cfg
        self.overrides = overrides
        self.used_overrides: set[tuple[str, str]] = set()
        self.waived = waived
        self.confirmed = confirmed
        self.facts = facts
        self.trail = TrailBuilder(FATIGUE_SOURCES, trail)
        self.violations: list[Violation] = []
        self.replaced: set[tuple[str, int, str]] = set()
        self.penalties: dict[str, int] = {d.name: 0 for d in state.duellists}

    def override(self, name: str, fld: str, computed: OverrideValue) -> OverrideValue:
        """The referee's value for ``name.fld`` when given (recorded), else ``computed``."""
        key = (name, fld)
        if key not in self.overrides:
            return computed
        self.used_overrides.add(key)
        value = self.overrides[key]
        self.trail.override(f"{name}.{fld}", computed, value)
        return value

    def violation(self, post: TurnPost, rule: str, evidence: str, *, record: bool = True) -> str:
        """Record violation ``rule`` of ``post``; returns its status (``"applied"``,
        ``"proposed"``, ``"waived"``, or ``"off"`` when the club does not report it).

        With ``record=False`` (a pending post read again), the status recorded at the first
        declaration is returned and nothing is added.
        """
        name = post.duellist
        if not record:
            return self._revisit(post, rule)
        base = self._base_status(rule)
        if base == "off":
            return "off"
        status: Status | Literal["waived"] = base
        if (name, rule) in self.waived:
            status = "waived"
        elif base == "proposed" and (name, rule) in self.confirmed:
            status = "applied"
        penalty = self.cfg.penalty(rule)
        proposal = f"-{penalty} PV" if status == "proposed" else None
        violation = Violation(
            duellist=name,
            rule=rule,
            post_id=post.post_id,
            evidence=evidence,
            penalty=penalty,
            status=cast(Literal["proposed", "applied", "waived"], status),
            proposal=proposal,
        )
        self.violations.append(violation)
        detail = f"post {post.post_id}: {evidence}"
        if status == "applied":
            self.penalties[name] += penalty
            detail += f"; -{penalty} PV"
        elif status == "proposed":
            detail += f"; proposed to the referee: -{penalty} PV if confirmed"
        if self.trail.on:
            self.trail.add(f"{name}.violation.{rule}", status, f"fatigue.{rule}", detail)
        return status

    def _revisit(self, post: TurnPost, rule: str) -> str:
        """Status of a violation recorded at the first declaration for a pending post; the
        referee may still confirm or waive a proposed one (recorded, penalty applied now)."""
        name = post.duellist
        for done in self.violations:
            if (done.duellist, done.post_id, done.rule) == (name, post.post_id, rule):
                return done.status
        for v in self.state.duellist(name).violations:
            if v.post_id != post.post_id or v.rule != rule:
                continue
            if v.status != "proposed" or (
                (name, rule) not in self.confirmed and (name, rule) not in self.waived
            ):
                return v.status
            status: Literal["applied", "waived"] = (
                "waived" if (name, rule) in self.waived else "applied"
            )
            self.replaced.add((name, post.post_id, rule))
            self.violations.append(evolve(v, status=status, proposal=None))
            detail = f"post {post.post_id}: {v.evidence}; the referee's decision"
            if status == "applied":
                self.penalties[name] += v.penalty
                detail += f"; -{v.penalty} PV"
            if self.trail.on:
                self.trail.add(f"{name}.violation.{rule}", status, f"fatigue.{rule}", detail)
            return status
        return "off" if self._base_status(rule) == "off" else "applied"

    def _base_status(self, rule: str) -> Status:
        setting = _STATUS_SETTING.get(rule, rule)
        return self.cfg.status(setting) if setting in _JUDGED else "applied"


def _fatigue_ruleset(ruleset: Ruleset) -> FatigueRuleset:
    if not isinstance(ruleset, FatigueRuleset):
        raise RuleError(
            "fatigue.ruleset", "load fatigue rulesets with rules.fatigue.load_fatigue_ruleset"
        )
    return ruleset


def new_fatigue_duel(
    ruleset: Ruleset,
    duellists: Sequence[tuple[str, str, Sequence[str]]],
    stakes: str | None = None,
) -> DuelState:
    """A fatigue duel not yet started: each duellist at the starting PV of their year.

    Args:
        ruleset: a :class:`FatigueRuleset`.
        duellists: (name, year, magic types) triples, year ``"1"``..``"7"`` or ``"adult"``,
            one or two magic types (keys or labels, e.g. ``("brutale", "Discrète")``).
        stakes: agreed stakes, or None.

    Returns:
        ``DuelState(turn=0, started=False)`` with magic types as their keys (seed 001:
        "Première année : 100 PV. [...] Adultes : 500 PV.").

    Raises:
        RuleError: as :func:`rules.engine.new_duel`; ``"magic_types"`` for an unknown type or
            not one or two types (seed 001: "2 types maximum").
    """
    rs = _fatigue_ruleset(ruleset)
    state = new_duel(rs, [(n, y) for n, y, _ in duellists], stakes)
    updated = []
    for d, (_, _, types) in zip(state.duellists, duellists, strict=True):
        keys = tuple(dict.fromkeys(rs.magic_type(t).key for t in types))
        if not 1 <= len(keys) <= 2:
            raise RuleError("magic_types", f"{d.name}: one or two magic types, got {list(types)}")
        updated.append(evolve(d, magic_types=keys))
    return evolve(state, duellists=tuple(updated))


def resolve_fatigue_step(
    state: DuelState,
    posts: Sequence[TurnPost],
    dice: Mapping[int, Sequence[int]],
    *,
    ruleset: Ruleset,
    step: Step | None = None,
    overrides: Mapping[str, int | bool] | None = None,
    waived: Collection[tuple[str, str]] = (),
    confirmed: Collection[tuple[str, str]] = (),
    facts: Mapping[int, PostFacts] | None = None,
    strict_overrides: bool = True,
    voided: Mapping[int, str] | None = None,
    trail: bool = True,
) -> TurnOutcome:
    """Draft one declaration of a fatigue 1v1 turn (see the module doc for the steps).

    Args:
        state: the duel before the step: two duellists, not finished. ``state.pending``
            empty before an initiative, holding the initiative post otherwise.
        posts: the new posts: ``before_start`` posts (each a ``cast_before_start``) and at
            most one turn post (the initiative, or the defense; none for a relaunch).
        dice: post id -> (die,) d6 value for each new turn post (the pending post keeps
            its own ``dice``).
        ruleset: a :class:`FatigueRuleset` whose name is ``state.ruleset``.
        step: ``"initiative"``, ``"defense"`` or ``"relaunch"``; None infers it from
            ``state.pending`` and the posts.
        overrides: referee's values, keys ``"<duellist>.<field>"``: ``die`` (int 1..6),
            ``bet_won``, ``dodged``, ``landed`` (bool, keyed by the caster), ``damage`` (int
            PV dealt by the duellist's spell), ``points`` (int, PV after the step). Applied
            where computed; recorded in the trail as ``"referee.override"``.
        waived: (duellist, violation code) pairs the referee waives: kept as ``"waived"``,
            no penalty, no consequence (a waived ``reused_spell`` works normally).
        confirmed: (duellist, violation code) pairs the referee confirms: a ``"proposed"``
            violation becomes ``"applied"`` with its penalty.
        facts: post id -> :class:`PostFacts` (displayed lines, late edit, result stated).
        strict_overrides: True (a referee's draft): an override with nothing to apply to in
            this step is refused; False (the 2v2 engine, which offers one value to each
            exchange of its step): it is ignored, and the ``"referee.override"`` entries of
            the outcome's trail name the ones applied.
        voided: post id -> reason (a rule id suffix with a ``fatigue.<reason>`` source, e.g.
            ``"double_target"``): the post's spell has no effect, its other parts (bet, dodge)
            stand. Used by the 2v2 engine for a forbidden double target in a defense post
            (``duo.toml``: ``double_target_effect = "void"``); the violation itself is the
            caller's.
        trail: False when nobody reads the rule trail (the balance simulator): the outcome's
            ``trail`` is empty, everything else identical. The 2v2 engine keeps it (it reads
            the applied overrides there).

    Returns:
        A :class:`TurnOutcome`; ``turn`` is the turn being played; ``state.turn`` grows by
        one when the turn closes (defense, relaunch).

    Raises:
        RuleError: wrong ruleset (``"fatigue.ruleset"``), finished duel (``"fatigue.end"``),
            a step that does not fit the state or the posts (``"fatigue.step"``), a post by
            an unknown duellist or by the wrong one (``"fatigue.posts"``), dice missing or
            not one value in 1..6 (``"fatigue.dice"``), an unknown override
            (``"referee.override"``), a spell that is not a canonical name (``"spells"``).
    """
    rs = _fatigue_ruleset(ruleset)
    if state.ruleset != rs.name:
        raise RuleError("ruleset", f"state uses {state.ruleset!r}, not {rs.name!r}")
    if state.finished:
        raise RuleError("fatigue.end", "the duel is already over")
    if len(state.duellists) != 2:
        raise RuleError("duellists", "a one-against-one duel has exactly two duellists")
    names = tuple(d.name for d in state.duellists)
    for post in posts:
        if post.duellist not in names:
            raise RuleError("fatigue.posts", f"post {post.post_id} by unknown {post.duellist!r}")
    ctx = _Ctx(
        state,
        rs,
        _parse_overrides(overrides or {}, names),
        _pairs(waived, names, "referee.waive"),
        _pairs(confirmed, names, "referee.confirm"),
        facts or {},
        strict_overrides,
        voided,
        trail,
    )
    checked = _check_dice(dice, rs)
    for post in posts:
        if post.before_start:
            ctx.violation(
                post,
                "cast_before_start",
                post.spell_text or post.spell or "a post before the referee's start",
            )
    turn_posts = [p for p in posts if not p.before_start]
    if not state.started:
        if turn_posts:
            raise RuleError("fatigue.start", "the referee has not given the start")
        return _close(ctx, state.turn, False, (), {}, None)
    inferred: Step = "initiative" if not state.pending else "defense" if turn_posts else "relaunch"
    if step is not None and step != inferred:
        raise RuleError(
            "fatigue.step",
            f"step {step!r} does not fit: pending {len(state.pending)}, posts {len(turn_posts)}",
        )
    if len(turn_posts) > 1:
        raise RuleError("fatigue.posts", "one turn post per step in a 1v1 duel")
    for post in turn_posts:
        if post.post_id not in checked:
            raise RuleError("fatigue.dice", f"no die for post {post.post_id}")
    if inferred == "initiative":
        return _initiative(ctx, turn_posts[0], checked[turn_posts[0].post_id][0])
    pending = state.pending[0]
    if pending.dice is None or len(pending.dice) != 1:
        raise RuleError("fatigue.dice", f"pending post {pending.post_id} has no die in force")
    if inferred == "defense" and turn_posts[0].duellist == pending.duellist:
        raise RuleError(
            "fatigue.posts", f"{pending.duellist!r} took the initiative; the defense is the other's"
        )
    defense = turn_posts[0] if turn_posts else None
    return _resolve(
        ctx, pending, pending.dice[0], defense, checked[defense.post_id][0] if defense else None
    )


# --- Step bodies ---------------------------------------------------------------------------------


def _initiative(ctx: _Ctx, post: TurnPost, rolled: int) -> TurnOutcome:
    state = ctx.state
    me = state.duellist(post.duellist)
    opp = _opponent(state, me.name)
    if ctx.trail.on:
        ctx.trail.add("turn.initiative", me.name, "fatigue.initiative", f"post {post.post_id}")
    read = _read(ctx, me, opp, post, rolled, "initiative", record=True)
    base = _base_damage(read.spell) if read.spell else 0
    if read.spell is not None:
        if ctx.trail.on:
            ctx.trail.add(
                f"{me.name}.spell.pending",
                read.spell.name,
                "fatigue.first_declaration",
                f"if it lands on {opp.name}: {base} PV before modifiers; "
                + ("cannot be dodged" if _undodgeable(read.spell) else "can be dodged"),
                source=read.spell.source,
            )
    attack = AttackResult(
        attacker=me.name,
        defender=opp.name,
        spell=read.named,
        attack_die=read.die,
        defense_die=0,
        defense_modifiers=(),
        effective_defense=0,
        landed=False,
        damage=0,
        void_reason=read.void or ("pending" if read.spell else "no_action"),
        attack_value=base,
    )
    kept = evolve(post, dice=(read.die,))
    return _close(ctx, state.turn + 1, False, (attack,), {post.post_id: (read.die,)}, kept)


def _resolve(
    ctx: _Ctx,
    init_post: TurnPost,
    init_die: int,
    defense_post: TurnPost | None,
    defense_die: int | None,
) -> TurnOutcome:
    state, trail, cfg = ctx.state, ctx.trail, ctx.cfg
    a = state.duellist(init_post.duellist)
    d = _opponent(state, a.name)
    init = _read(ctx, a, d, init_post, init_die, "initiative", record=False)
    for v in a.violations:
        if v.post_id == init_post.post_id and v.status == "proposed":
            ctx.violation(init_post, v.rule, v.evidence, record=False)
    if defense_post is None:
        if trail.on:
            trail.add(
                "turn.relaunch",
                True,
                "fatigue.relaunch",
                f"no defense post from {d.name} in time: {a.name}'s spell resolves undefended",
            )
        dfn: _Read | None = None
    else:
        if trail.on:
            trail.add("turn.defense", d.name, "fatigue.defense", f"post {defense_post.post_id}")
        assert defense_die is not None
        dfn = _read(ctx, d, a, defense_post, defense_die, "defense", record=True)

    init_spell = init.spell
    targets = init_spell is not None and _targets_opponent(init_spell)
    dodgeable = init_spell is None or not _undodgeable(init_spell)
    dodged = False
    riposte_landed = False
    if dfn is not None and dfn.kind in ("dodge", "dodge_riposte"):
        cond = dfn.bet_won and (not init.bet_won or cfg.dodge_success == "own_won")
        detail = (
            f"{d.name}'s bet {_bet_text(dfn.bet)} {'won' if dfn.bet_won else 'lost'} (die "
            f"{dfn.die}); {a.name}'s bet {_bet_text(init.bet)} "
            f"{'won' if init.bet_won else 'lost'} (die {init.die})"
        )
        if targets and dfn.dodge_ok:
            if not dodgeable:
                assert init_spell is not None
                if trail.on:
                    trail.add(
                        f"{d.name}.dodged",
                        False,
                        "fatigue.undodgeable",
                        f"{init_spell.name} cannot be dodged",
                        source=init_spell.source,
                    )
                computed = False
            else:
                computed = cond
                if trail.on:
                    trail.add(f"{d.name}.dodged", computed, "fatigue.dodge", detail)
            dodged = bool(ctx.override(d.name, "dodged", computed))
        if dfn.kind == "dodge_riposte" and dfn.spell is not None:
            if targets and not dodgeable:
                rule = "fatigue.riposte_vs_undodgeable"
                setting = cfg.riposte_vs_undodgeable
                r = dfn.bet_won if setting == "own_bet_won" else cond and setting != "never"
            else:
                rule, r = "fatigue.dodge_riposte", cond and dfn.dodge_ok
            if trail.on:
                trail.add(f"{d.name}.riposte.landed", r, rule, detail)
            riposte_landed = bool(ctx.override(d.name, "landed", r))

    damage: dict[str, int] = {a.name: 0, d.name: 0}
    heal: dict[str, int] = {a.name: 0, d.name: 0}
    new_effects: dict[str, list[Effect]] = {a.name: [], d.name: []}
    used: dict[str, list[tuple[str, str]]] = {a.name: [], d.name: []}
    attacks: list[AttackResult] = []

    # The initiative spell.
    init_landed = False
    if init_spell is not None:
        if targets:
            computed_landed = not dodged
            if trail.on:
                trail.add(
                    f"{a.name}.landed",
                    computed_landed,
                    "fatigue.dodge" if dodged else "fatigue.cast",
                    f"dodged by {d.name}" if dodged else f"{init_spell.name} lands on {d.name}",
                )
        else:
            computed_landed = True
            if trail.on:
                trail.add(
                    f"{a.name}.landed",
                    True,
                    "fatigue.cast",
                    f"{init_spell.name} acts on its caster",
                    source=init_spell.source,
                )
        init_landed = bool(ctx.override(a.name, "landed", computed_landed))
        if targets and (init_landed or (dodged and cfg.reuse_counts_dodged)):
            used[a.name].append((init_spell.name, d.name))
    attacks.append(
        _apply(
            ctx,
            a,
            d,
            init,
            init_landed,
            dfn.die if dfn else 0,
            damage,
            heal,
            new_effects,
            "dodged" if dodged and not init_landed else None,
        )
    )

    # The defense post.
    if dfn is not None:
        d_landed = False
        void_extra: str | None = None
        if dfn.spell is not None and dfn.kind == "cast":
            d_targets = _targets_opponent(dfn.spell)
            if trail.on:
                trail.add(
                    f"{d.name}.landed",
                    True,
                    "fatigue.defender_cast",
                    f"{dfn.spell.name}: a cast cannot miss by default; both spells land",
                    source=None,
                )
            d_landed = bool(ctx.override(d.name, "landed", True))
            if d_targets and d_landed:
                used[d.name].append((dfn.spell.name, a.name))
        elif dfn.spell is not None and dfn.kind == "dodge_riposte":
            d_landed = riposte_landed
            if not d_landed:
                void_extra = "riposte_failed"
            elif _targets_opponent(dfn.spell):
                used[d.name].append((dfn.spell.name, a.name))
        elif dfn.kind == "dodge":
            void_extra = "dodge"
        attacks.append(
            _apply(ctx, d, a, dfn, d_landed, init.die, damage, heal, new_effects, void_extra)
        )

    # Points: penalties, damage, damage over time (effects running this turn), heals.
    points: dict[str, int] = {}
    for me in (a, d):
        dot = 0
        for e in me.effects:
            if isinstance(e, DamageOverTime):
                dot += e.amount
                if trail.on:
                    trail.add(
                        f"{me.name}.damage_over_time",
                        e.amount,
                        "fatigue.damage_over_time",
                        f"{e.source} (by {e.caster}) still running",
                        source=_spell_source(ctx, e.source),
                    )
        after_losses = me.points - ctx.penalties[me.name] - damage[me.name] - dot
        healed = 0
        if heal[me.name] > 0:
            cap = (
                ctx.ruleset.starting_points_for(me.year)
                if cfg.heal_cap == "starting_points"
                else after_losses + heal[me.name]
            )
            healed = max(0, min(heal[me.name], cap - after_losses))
            if trail.on:
                trail.add(
                    f"{me.name}.heal",
                    healed,
                    "fatigue.heal",
                    f"{heal[me.name]} PV healed, capped at {cap} PV",
                )
        new_points = after_losses + healed
        if trail.on:
            trail.add(
                f"{me.name}.points",
                new_points,
                "fatigue.damage",
                f"{me.points} - {ctx.penalties[me.name]} (violations) - {damage[me.name]} (spells) "
                f"- {dot} (lasting) + {healed} (heal) = {new_points} PV",
            )
        points[me.name] = int(ctx.override(me.name, "points", new_points))

    effects_next = {me.name: _carry(ctx, me, new_effects[me.name]) for me in (a, d)}
    memory = {
        a.name: (init.kind, init_post.spell, used[a.name]),
        d.name: (
            _counted_action(dfn),
            defense_post.spell if defense_post else d.last_spell,
            used[d.name],
        ),
    }
    dice_used = {init_post.post_id: (init.die,)}
    if dfn is not None and defense_post is not None:
        dice_used[defense_post.post_id] = (dfn.die,)
    return _close(
        ctx,
        state.turn + 1,
        True,
        tuple(attacks),
        dice_used,
        None,
        points=points,
        effects_next=effects_next,
        memory=memory,
    )


def has_legal_action(me: DuellistState, cfg: FatigueSettings, *, can_be_dodging: bool) -> bool:
    """True when ``me`` has at least one action the rules allow this post.

    Cast is legal unless a ``no_attack`` effect runs; when there is something to dodge
    (``can_be_dodging``: a defense post, or a 2v2 duellist with a spell aimed at them), a dodge
    is legal unless a ``no_dodge`` effect runs or it would be a second dodge in a row
    (``dodge_twice``; seed 001: "il est interdit d'utiliser cette action deux tours de suite"). A
    dodge_riposte carries a spell, so it is never legal when casting is not.

    RULES.md Fine points: "A duellist left with no legal action posts role-play and endures:
    that counts as their post, no violation"; seed 001: "un duelliste n'a pas le droit de ne
    pas agir pendant un tour, sauf s'il y est contraint."
    """
    if not any(isinstance(e, NoAttack) for e in me.effects):
        return True
    if not can_be_dodging or any(isinstance(e, NoDodge) for e in me.effects):
        return False
    dodged_last = me.last_action == "dodge" or (
        cfg.dodge_riposte_counts_as_dodge and me.last_action == "dodge_riposte"
    )
    return not dodged_last


def _counted_action(read: _Read | None) -> str | None:
    if read is None:
        return None
    return read.kind if read.dodge_ok or read.kind == "cast" else None


# --- Reading a post ------------------------------------------------------------------------------


def _read(
    ctx: _Ctx,
    me: DuellistState,
    opp: DuellistState,
    post: TurnPost,
    rolled: int,
    role: Literal["initiative", "defense"],
    *,
    record: bool,
) -> _Read:
    """Action, bet, die and spell of one post, with its violations (see module doc)."""
    trail, cfg, rs = ctx.trail, ctx.cfg, ctx.ruleset
    name = me.name
    barred_cast = next((e for e in me.effects if isinstance(e, NoAttack)), None)
    barred_dodge = next((e for e in me.effects if isinstance(e, NoDodge)), None)
    declared = post.kind or ("cast" if (post.spell or post.spell_text) else None)
    if declared not in (None, "cast", "dodge", "dodge_riposte"):
        raise RuleError("fatigue.posts", f"post {post.post_id}: unknown action {declared!r}")
    if trail.on:
        trail.add(f"{name}.die", rolled, "fatigue.dice", f"post {post.post_id}")
    die = int(ctx.override(name, "die", rolled))
    if not 1 <= die <= ctx.ruleset.dice_faces:
        raise RuleError("fatigue.dice", f"{name}.die override: a d6 shows 1..6, got {die}")
    if record:
        _facts(ctx, post)
    rule_role = "fatigue.initiative" if role == "initiative" else "fatigue.defense"
    if trail.on:
        trail.add(f"{name}.action", declared, rule_role, f"post {post.post_id}")

    def nothing(void: str) -> _Read:
        return _Read(name, post, None, None, post.spell, void, None, die, False, False)

    legal = has_legal_action(me, cfg, can_be_dodging=role == "defense")
    if declared is None:
        if legal:
            ctx.violation(post, "no_action", "the post names no action", record=record)
        else:
            if trail.on:
                trail.add(f"{name}.endures", True, "fatigue.endure", "no legal action left")
        return nothing("no_action")
    if role == "initiative" and declared != "cast":
        status = ctx.violation(
            post, "initiative_not_cast", f"{declared} as the initiative", record=record
        )
        if status != "waived" or not (post.spell or post.spell_text):
            return nothing("initiative_not_cast")
        declared = "cast"

    given = None if post.bet is None else tuple(sorted(set(post.bet)))
    bet = given if given is not None and given in rs.bets[declared] else None
    if bet is None:
        ctx.violation(
            post,
            "invalid_bet",
            f"{declared}: bet {_bet_text(post.bet)} not in {[list(b) for b in rs.bets[declared]]}",
            record=record,
        )
    computed_won = bet is not None and die in bet
    if trail.on:
        trail.add(
            f"{name}.bet_won",
            computed_won,
            "fatigue.bet",
            f"die {die}, bet {_bet_text(bet)}"
            + (" (missing or invalid: lost)" if bet is None else ""),
        )
    bet_won = bool(ctx.override(name, "bet_won", computed_won))

    dodge_ok = False
    kind: str | None = declared
    if declared in ("dodge", "dodge_riposte"):
        dodge_ok = True
        if barred_dodge is not None and (declared == "dodge" or cfg.no_dodge_bars_riposte):
            status = ctx.violation(
                post,
                "barred_action",
                f"{declared} under {barred_dodge.source}'s no_dodge (by {barred_dodge.caster})",
                record=record,
            )
            if status != "waived":
                if trail.on:
                    trail.add(f"{name}.barred", declared, "fatigue.barred_action", "ignored")
                return nothing("barred")
        counts = declared == "dodge" or cfg.dodge_riposte_counts_as_dodge
        previous = me.last_action == "dodge" or (
            cfg.dodge_riposte_counts_as_dodge and me.last_action == "dodge_riposte"
        )
        if counts and previous:
            status = ctx.violation(
                post, "dodge_twice", f"{declared} after a dodge last turn", record=record
            )
            if status != "waived":
                dodge_ok = False
                kind = None if declared == "dodge" else declared
        if declared == "dodge":
            return _Read(name, post, kind, None, None, "dodge", bet, die, bet_won, dodge_ok)

    # The spell part (cast, or the riposte of dodge_riposte).
    if post.spell is None:
        if post.spell_text:
            ctx.violation(post, "unknown_spell", post.spell_text, record=record)
            return _Read(name, post, kind, None, None, "unknown_spell", bet, die, bet_won, dodge_ok)
        if legal:
            ctx.violation(post, "missing_spell", "no spell in bold", record=record)
        return _Read(name, post, kind, None, None, "missing_spell", bet, die, bet_won, dodge_ok)
    if not rs.has_spell(post.spell):
        raise RuleError("spells", f"post {post.post_id}: {post.spell!r} is not a canonical name")
    spell = rs.spell(post.spell)

    def void(reason: str) -> _Read:
        rule = "fatigue.barred_action" if reason == "barred" else f"fatigue.{reason}"
        if trail.on:
            trail.add(f"{name}.spell", spell.name, rule, f"void: {reason}")
        return _Read(name, post, kind, None, spell.name, reason, bet, die, bet_won, dodge_ok)

    if barred_cast is not None:
        status = ctx.violation(
            post,
            "barred_action",
            f"{spell.name} under {barred_cast.source}'s no_attack (by {barred_cast.caster})",
            record=record,
        )
        if status != "waived":
            return void("barred")
    top = rs.max_level_for(me.year)
    if top is not None and spell.level > top:
        status = ctx.violation(
            post,
            "spell_above_level",
            f"{spell.name} is level {spell.level}, year {me.year} knows up to {top}",
            record=record,
        )
        if status != "waived":
            return void("spell_above_level")
    if (
        not spell.reusable
        and _targets_opponent(spell)
        and (spell.name, opp.name) in me.spells_used_on
    ):
        status = ctx.violation(
            post,
            "reused_spell",
            f"{opp.name} was already affected or targeted by {name}'s {spell.name}",
            record=record,
        )
        if status != "waived":
            return void("reused_spell")
    reason = ctx.voided.get(post.post_id)
    if reason is not None:
        return void(reason)
    if trail.on:
        trail.add(
            f"{name}.spell",
            spell.name,
            "fatigue.cast",
            f"level {spell.level}, year {me.year}",
            source=spell.source,
        )
    return _Read(name, post, kind, spell, spell.name, None, bet, die, bet_won, dodge_ok)


def _facts(ctx: _Ctx, post: TurnPost) -> None:
    facts = ctx.facts.get(post.post_id)
    if facts is None:
        return
    cfg = ctx.cfg
    if facts.lines is not None:
        ok = facts.lines >= cfg.min_lines
        if ctx.trail.on:
            ctx.trail.add(
                f"{post.duellist}.lines",
                facts.lines,
                "fatigue.short_post",
                f"{facts.lines} displayed lines (at {cfg.chars_per_line} characters), "
                f"{cfg.min_lines} needed",
            )
        if not ok:
            ctx.violation(post, "short_post", f"{facts.lines} lines < {cfg.min_lines}")
    if facts.late_edit:
        ctx.violation(post, "late_edit", "edited after the next post; the version in force counts")
    if facts.result_stated:
        ctx.violation(post, "result_stated", "the post states the result of its own spell")


# --- Applying a spell ----------------------------------------------------------------------------


def _apply(
    ctx: _Ctx,
    caster: DuellistState,
    target: DuellistState,
    read: _Read,
    landed: bool,
    other_die: int,
    damage: dict[str, int],
    heal: dict[str, int],
    new_effects: dict[str, list[Effect]],
    void_extra: str | None,
) -> AttackResult:
    """Damage, heal and new effects of ``read``'s spell when it takes effect."""
    trail = ctx.trail
    spell = read.spell
    base = _base_damage(spell) if spell else 0
    family = _family(spell) if spell else None
    attack_mods: list[Modifier] = []
    defense_mods: list[Modifier] = []
    dealt = 0
    if spell is not None and landed and base > 0:
        pct = 0
        flat = 0
        for key, m in _modifiers(ctx, caster):
            if m.concerns(family) and m.kind in ("damage_percent", "damage_flat"):
                amount = base * m.value // 100 if m.kind == "damage_percent" else m.value
                pct += amount if m.kind == "damage_percent" else 0
                flat += amount if m.kind == "damage_flat" else 0
                attack_mods.append(Modifier(amount, f"magic:{key}"))
                if trail.on:
                    trail.add(
                        f"{caster.name}.damage.modifier",
                        amount,
                        "fatigue.magic_type",
                        f"{key}: {m.kind} {m.value} on {m.family} ({spell.name}: {family})",
                    )
        taken = 0
        for key, m in _modifiers(ctx, target):
            if m.kind == "damage_taken_flat" and m.concerns(family):
                taken += m.value
                defense_mods.append(Modifier(m.value, f"magic:{key}"))
                if trail.on:
                    trail.add(
                        f"{target.name}.damage.modifier",
                        m.value,
                        "fatigue.magic_type",
                        f"{key}: damage_taken_flat {m.value} on {m.family}",
                    )
        ward = 0
        for e in target.effects:
            if isinstance(e, Ward):
                ward += e.amount
                defense_mods.append(Modifier(-e.amount, e.source or "ward"))
                if trail.on:
                    trail.add(
                        f"{target.name}.damage.ward",
                        -e.amount,
                        "fatigue.ward",
                        f"{e.source} (by {e.caster}) still running",
                    )
        computed = max(0, base + pct + flat + taken - ward)
        if trail.on:
            trail.add(
                f"{caster.name}.damage",
                computed,
                "fatigue.damage",
                f"{spell.name}: {base} {pct:+d} {flat:+d} (caster) {taken:+d} (target) "
                f"-{ward} (ward)"
                f" = {computed} PV (never below 0)",
                source=spell.source,
            )
        dealt = int(ctx.override(caster.name, "damage", computed))
        damage[target.name] += dealt
    elif spell is not None and base > 0:
        if trail.on:
            trail.add(f"{caster.name}.damage", 0, "fatigue.damage", f"{spell.name} did not land")
        dealt = int(ctx.override(caster.name, "damage", 0))
        damage[target.name] += dealt

    applied: list[Effect] = []
    if spell is not None and (landed or not _targets_opponent(spell)):
        for e in spell.effects:
            if isinstance(e, Heal):
                bonus = sum(
                    m.value
                    for _, m in _modifiers(ctx, caster)
                    if m.kind == "heal_flat" and m.concerns(family)
                )
                heal[caster.name] += e.amount + bonus
                if trail.on:
                    trail.add(
                        f"{caster.name}.heal.spell",
                        e.amount + bonus,
                        "fatigue.heal",
                        f"{spell.name}: {e.amount} {bonus:+d} (magic type)",
                        source=spell.source,
                    )
            elif isinstance(e, NoDodge | NoAttack | DamageOverTime | Ward):
                carrier = target if getattr(e, "applies", "target") == "target" else caster
                if carrier is target and not landed:
                    continue
                bonus = sum(
                    m.value
                    for _, m in _modifiers(ctx, caster)
                    if m.kind == "duration_bonus" and m.concerns(family)
                )
                carried = evolve(
                    e, duration=max(1, e.duration + bonus), source=spell.name, caster=caster.name
                )
                applied.append(carried)
                new_effects[carrier.name].append(carried)
                if trail.on:
                    trail.add(
                        f"{carrier.name}.effects_next",
                        carried.kind,
                        "fatigue.effects",
                        f"{spell.name} by {caster.name}: {carried.duration} turn(s) from next turn"
                        + (f" ({bonus:+d} magic type)" if bonus else ""),
                        source=spell.source,
                    )
    return AttackResult(
        attacker=caster.name,
        defender=target.name,
        spell=read.named,
        attack_die=read.die,
        defense_die=other_die,
        defense_modifiers=tuple(defense_mods),
        effective_defense=0,
        landed=landed,
        damage=dealt,
        effects_applied=tuple(applied),
        void_reason=read.void if read.void is not None else (None if landed else void_extra),
        attack_modifiers=tuple(attack_mods),
        attack_value=base,
    )


def _modifiers(ctx: _Ctx, who: DuellistState) -> list[tuple[str, MagicModifier]]:
    """(magic type key, modifier) pairs of ``who``'s magic types, in file order."""
    out: list[tuple[str, MagicModifier]] = []
    for t in who.magic_types:
        mtype = ctx.ruleset.magic_type(t)
        out.extend((mtype.key, m) for m in mtype.modifiers)
    return out


def _carry(ctx: _Ctx, me: DuellistState, new: list[Effect]) -> tuple[Effect, ...]:
    """Effects for the next turn: running ones lose a turn, new ones start; the same effect
    does not stack (the longer remaining duration is kept)."""
    out: list[Effect] = []
    for e in me.effects:
        if e.duration > 1:
            out.append(evolve(e, duration=e.duration - 1))
        else:
            if ctx.trail.on:
                ctx.trail.add(
                    f"{me.name}.effects.expired",
                    e.kind,
                    "fatigue.effects_expire",
                    f"{e.kind} from {e.source} ran its last turn",
                )
    for e in new:
        key = _identity(ctx, e)
        same = next((i for i, o in enumerate(out) if _identity(ctx, o) == key), None)
        if same is None:
            out.append(e)
            continue
        kept = out[same] if out[same].duration >= e.duration else e
        if ctx.trail.on:
            ctx.trail.add(
                f"{me.name}.effects.merged",
                kept.duration,
                "fatigue.effects",
                f"{e.kind} from {e.source} does not stack: the longer remaining duration is kept",
            )
        out[same] = kept
    return tuple(out)


def _identity(ctx: _Ctx, e: Effect) -> tuple[str, str | None]:
    return (e.kind, e.source if ctx.cfg.effect_identity == "kind_and_source" else None)


# --- Closing a step ------------------------------------------------------------------------------


def _close(
    ctx: _Ctx,
    turn: int,
    closes_turn: bool,
    attacks: tuple[AttackResult, ...],
    dice: Mapping[int, tuple[int, ...]],
    pending: TurnPost | None,
    *,
    points: Mapping[str, int] | None = None,
    effects_next: Mapping[str, tuple[Effect, ...]] | None = None,
    memory: Mapping[str, tuple[str | None, str | None, list[tuple[str, str]]]] | None = None,
) -> TurnOutcome:
    """Penalties (when not computed yet), the end of the duel, the new state and outcome."""
    state, trail, cfg = ctx.state, ctx.trail, ctx.cfg
    for key in ctx.overrides if ctx.strict_overrides else ():
        if key not in ctx.used_overrides and key[1] != "points":
            raise RuleError("referee.override", f"nothing to apply {key[0]}.{key[1]} to here")
    names = [d.name for d in state.duellists]
    if points is None:
        pts: dict[str, int] = {}
        for d in state.duellists:
            computed = d.points - ctx.penalties[d.name]
            if trail.on:
                trail.add(
                    f"{d.name}.points",
                    computed,
                    "fatigue.violation" if ctx.penalties[d.name] else "fatigue.first_declaration",
                    f"{d.points} - {ctx.penalties[d.name]} (violations) = {computed} PV",
                )
            pts[d.name] = int(ctx.override(d.name, "points", computed))
        points = pts
    if effects_next is None:
        effects_next = {d.name: d.effects for d in state.duellists}

    counts = {
        d.name: sum(
            1
            for v in (
                *(x for x in d.violations if (x.duellist, x.post_id, x.rule) not in ctx.replaced),
                *ctx.violations,
            )
            if v.duellist == d.name and v.status == "applied"
        )
        for d in state.duellists
    }
    finished, winner, draw = False, None, False
    three = [n for n in names if counts[n] >= cfg.violations_to_lose]
    down = [n for n in names if points[n] <= 0]
    if three:
        finished = True
        detail = ", ".join(f"{n}: {counts[n]} violations" for n in names)
        if len(three) == 1:
            winner = next(n for n in names if n not in three)
        elif cfg.both_lose_by_violations == "draw" or points[names[0]] == points[names[1]]:
            draw = True
        else:
            winner = max(names, key=lambda n: points[n])
        if trail.on:
            trail.add("duel.finished", True, "fatigue.three_violations", detail)
    elif down:
        finished = True
        detail = ", ".join(f"{n} {points[n]} PV" for n in names)
        if len(down) == 1:
            winner = next(n for n in names if n not in down)
            if trail.on:
                trail.add("duel.finished", True, "fatigue.end", detail)
        else:
            if cfg.double_ko == "draw" or points[names[0]] == points[names[1]]:
                draw = True
            else:
                winner = max(names, key=lambda n: points[n])
            if trail.on:
                trail.add("duel.finished", True, "fatigue.double_ko", detail)
    else:
        if trail.on:
            trail.add(
                "duel.finished",
                False,
                "fatigue.end",
                ", ".join(f"{n} {points[n]} PV" for n in names),
            )
    if finished:
        rule = (
            "fatigue.three_violations"
            if three
            else "fatigue.double_ko"
            if len(down) > 1
            else ("fatigue.end")
        )
        if trail.on:
            trail.add("duel.winner", winner, rule)
        if trail.on:
            trail.add("duel.draw", draw, rule)
    pending_at_end: dict[str, tuple[Effect, ...]] = {}
    for n in names:
        if effects_next[n]:
            if trail.on:
                trail.add(
                    f"{n}.effects_running",
                    ", ".join(f"{e.kind} ({e.source}, {e.duration})" for e in effects_next[n]),
                    "fatigue.effects_pending",
                )
            if finished:
                pending_at_end[n] = effects_next[n]

    by_duellist: dict[str, list[Violation]] = {n: [] for n in names}
    for v in ctx.violations:
        by_duellist[v.duellist].append(v)
    duellists = []
    for d in state.duellists:
        updated = evolve(
            d,
            points=points[d.name],
            effects=effects_next[d.name],
            violations=tuple(
                v for v in d.violations if (v.duellist, v.post_id, v.rule) not in ctx.replaced
            )
            + tuple(by_duellist[d.name]),
        )
        if memory is not None:
            action, spell, used = memory[d.name]
            updated = evolve(
                updated,
                last_action=action,
                last_spell=spell,
                spells_used_on=updated.spells_used_on
                + tuple(p for p in used if p not in updated.spells_used_on),
            )
            for pair in used:
                if trail.on:
                    trail.add(
                        f"{d.name}.spells_used_on",
                        f"{pair[0]} -> {pair[1]}",
                        "fatigue.reuse_memory",
                        f"{d.name} may not cast {pair[0]} on {pair[1]} again",
                    )
        duellists.append(updated)
    new_state = evolve(
        state,
        turn=turn if closes_turn else state.turn,
        duellists=tuple(duellists),
        finished=finished,
        winner=winner,
        draw=draw,
        pending=() if finished or pending is None else (pending,),
    )
    return TurnOutcome(
        turn=turn,
        state=new_state,
        attacks=attacks,
        effects_next=dict(effects_next),
        violations=tuple(ctx.violations),
        winner=winner,
        draw=draw,
        finished=finished,
        trail=trail.entries(),
        pending_effects_at_end=pending_at_end,
        dice=dict(dice),
    )


# --- Ends without a resolution -------------------------------------------------------------------


def concede(state: DuelState, duellist: str, *, ruleset: Ruleset) -> TurnOutcome:
    """``duellist`` concedes: the opponent wins (setting ``concession``: ``"opponent_wins"``) or
    the duel ends with no winner (``"no_winner"``). RULES.md: "conceding also gives the
    opponent the win [D]".

    Raises:
        RuleError: finished duel (``"fatigue.end"``), unknown duellist (``"duellist"``).
    """
    rs = _fatigue_ruleset(ruleset)
    if state.finished:
        raise RuleError("fatigue.end", "the duel is already over")
    me = state.duellist(duellist)
    other = _opponent(state, me.name)
    winner = other.name if rs.cfg.concession == "opponent_wins" else None
    return _ended(state, rs, winner, "fatigue.concession", f"{me.name} concedes")


def close_without_winner(state: DuelState, *, ruleset: Ruleset) -> TurnOutcome:
    """The last relaunch brought no post: the duel closes with no winner, no loser and no
    rewards (RULES.md [D]; seed 001: "l'arbitre relancera une dernière fois avant de mettre fin
    au duel").

    Raises:
        RuleError: finished duel (``"fatigue.end"``).
    """
    rs = _fatigue_ruleset(ruleset)
    if state.finished:
        raise RuleError("fatigue.end", "the duel is already over")
    return _ended(state, rs, None, "fatigue.abandoned", "no post after the last relaunch")


def _ended(
    state: DuelState, rs: FatigueRuleset, winner: str | None, rule: str, detail: str
) -> TurnOutcome:
    trail = TrailBuilder(FATIGUE_SOURCES)
    if trail.on:
        trail.add("duel.finished", True, rule, detail)
    if trail.on:
        trail.add("duel.winner", winner, rule)
    if trail.on:
        trail.add("duel.draw", False, rule)
    new_state = evolve(state, finished=True, winner=winner, draw=False, pending=())
    pending = {d.name: d.effects for d in state.duellists if d.effects}
    del rs
    return TurnOutcome(
        turn=state.turn,
        state=new_state,
        attacks=(),
        effects_next={d.name: d.effects for d in state.duellists},
        violations=(),
        winner=winner,
        draw=False,
        finished=True,
        trail=trail.entries(),
        pending_effects_at_end=pending,
    )


# --- Small helpers -------------------------------------------------------------------------------


def _opponent(state: DuelState, name: str) -> DuellistState:
    return next(d for d in state.duellists if d.name != name)


def _base_damage(spell: Spell) -> int:
    return sum(e.amount for e in spell.effects if isinstance(e, PvDamage))


def _family(spell: Spell) -> str | None:
    return next((e.family for e in spell.effects if isinstance(e, SpellFamily)), None)


def _undodgeable(spell: Spell) -> bool:
    return any(isinstance(e, Undodgeable) for e in spell.effects)


def _targets_opponent(spell: Spell) -> bool:
    """True when the spell acts on the opponent (damage or a target's effect)."""
    return any(
        isinstance(e, PvDamage)
        or (
            isinstance(e, NoDodge | NoAttack | DamageOverTime | Ward)
            and getattr(e, "applies", "target") == "target"
        )
        for e in spell.effects
    )


def _spell_source(ctx: _Ctx, name: str | None) -> str | None:
    if name is not None and ctx.ruleset.has_spell(name):
        return ctx.ruleset.spell(name).source
    return None


def _bet_text(bet: tuple[int, ...] | None) -> str:
    return "none" if bet is None else "[" + ",".join(str(f) for f in bet) + "]"


def _parse_overrides(
    overrides: Mapping[str, int | bool], names: Sequence[str], *, subjects: str = "<duellist>"
) -> dict[tuple[str, str], OverrideValue]:
    """``"<name>.<field>"`` keys (name and field matched case-insensitively, the name as
    given in ``names`` returned) -> ``(name, field) -> value``.

    Raises:
        RuleError: ``"referee.override"`` for an unknown key (the message lists
            ``subjects`` and the fields), a wrong type, or a negative ``damage``/``points``.
    """
    out: dict[tuple[str, str], OverrideValue] = {}
    for key, value in overrides.items():
        found = None
        folded = key.casefold()
        for name in sorted(names, key=len, reverse=True):
            fld = folded[len(name) + 1 :]
            if folded.startswith(name.casefold() + ".") and fld in _OVERRIDE_FIELDS:
                found = (name, fld)
                break
        if found is None:
            raise RuleError(
                "referee.override",
                f"unknown override key {key!r}; use '{subjects}.<field>' with field in "
                f"{sorted(_OVERRIDE_FIELDS)}",
            )
        wanted = _OVERRIDE_FIELDS[found[1]]
        if wanted is bool and not isinstance(value, bool):
            raise RuleError("referee.override", f"{key} must be true or false, got {value!r}")
        if wanted is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise RuleError("referee.override", f"{key} must be an integer, got {value!r}")
        if found[1] in ("damage", "points") and int(value) < 0:
            raise RuleError("referee.override", f"{key} cannot be negative, got {value!r}")
        out[found] = value
    return out


def _pairs(
    items: Collection[tuple[str, str]], names: Sequence[str], rule: str
) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for name, code in items:
        if name not in names:
            raise RuleError(rule, f"no duellist named {name!r}")
        out.add((name, code))
    return out


def _check_dice(dice: Mapping[int, Sequence[int]], rs: Ruleset) -> dict[int, tuple[int, ...]]:
    out: dict[int, tuple[int, ...]] = {}
    for post_id, values in dice.items():
        if len(values) != rs.dice_per_post:
            raise RuleError(
                "fatigue.dice", f"post {post_id}: {rs.dice_per_post} die value expected"
            )
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= rs.dice_faces:
                raise RuleError(
                    "fatigue.dice", f"post {post_id}: a d{rs.dice_faces} shows 1..6, got {v!r}"
                )
        out[post_id] = tuple(values)
    return out


def _dispatch(
    state: DuelState,
    posts: Sequence[TurnPost],
    dice: Mapping[int, Sequence[int]],
    *,
    ruleset: Ruleset,
    overrides: Mapping[str, int | bool] | None = None,
    waived: Collection[tuple[str, str]] = (),
    trail: bool = True,
) -> TurnOutcome:
    """:func:`rules.resolve_turn`'s entry: the step is inferred from the state and posts."""
    return resolve_fatigue_step(
        state, posts, dice, ruleset=ruleset, overrides=overrides, waived=waived, trail=trail
    )


register_engine("fatigue", _dispatch)

__all__ = [
    "PostFacts",
    "Step",
    "close_without_winner",
    "concede",
    "has_legal_action",
    "new_fatigue_duel",
    "resolve_fatigue_step",
]
