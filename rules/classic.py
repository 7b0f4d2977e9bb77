"""The classic ruleset's turn resolution (seed 000): PD, an attack die and a defense die per post.

Entry point: :func:`resolve_classic_turn` (usually reached through :func:`rules.resolve_turn`).
A turn is both duellists' posts, resolved simultaneously (RULES.md [D]): each attack is compared
with the other duellist's effective defense of the same turn, and lands unless that defense is
strictly greater (seed 000: "Tous les sorts peuvent être déviés par un jet de dé de défense plus
puissant que l'attaque de l'adversaire."). A landed attack removes PD equal to its die (seed 000:
"le nombre de point de défense diminue du nombre indiqué sur son dé").

The settings read here are registered with :func:`rules.ruleset.register_engine_settings`
under the engine name ``"classic"``; see ``rules/data/classic.toml`` for their sources."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rules.classic_fast import resolve_fast
from rules.classic_reading import (
    _Cast,
    _check_dice,
    _Context,
    _parse_overrides,
    _parse_waived,
    _read_cast,
    _spell_source,
    _void_rule,
    _void_source,
)
from rules.classic_settings import (
    _TURN_FIELDS,
    CLASSIC_SETTINGS,
    ENGINE,
    UNLISTED_PROPOSAL,
    UNLISTED_SOURCE,
    ClassicSettings,
    OverrideValue,
)
from rules.effects import (
    AttackModifier,
    CounterSpell,
    DefenseModifier,
    Effect,
    ExtraDamage,
    NoAttack,
    Shield,
)
from rules.errors import RuleError
from rules.fast import evolve
from rules.model import (
    AttackResult,
    DuellistState,
    DuelState,
    Modifier,
    TurnOutcome,
    TurnPost,
    Violation,
)
from rules.ruleset import Ruleset, register_engine_settings

register_engine_settings(ENGINE, CLASSIC_SETTINGS)


def resolve_classic_turn(
    state: DuelState,
    posts: Sequence[TurnPost],
    dice: Mapping[int, Sequence[int]],
    *,
    ruleset: Ruleset,
    overrides: Mapping[str, int | bool] | None = None,
    waived: Collection[tuple[str, str]] = (),
    trail: bool = True,
) -> TurnOutcome:
    """Resolve one classic turn (or, before the start, only report spells cast too early).

    Args:
        state: the duel before the turn (two duellists, not finished).
        posts: exactly one post per duellist without ``before_start`` once the duel has
            started; any number of ``before_start`` posts (each a proposed
            ``cast_before_start`` disqualification, never resolved as a turn post).
        dice: post id -> (attack, defense) d6 values; every entry is checked.
        ruleset: a parsed classic ruleset whose name is ``state.ruleset``.
        overrides: referee's values, keys ``"<name>.<field>"`` with field one of
            ``attack_die``, ``defense_die`` (int 1..faces), ``landed`` (bool), ``damage`` (int),
            ``points`` (int: PD after the turn), ``disqualified`` (bool). Each is applied where
            it is computed, so everything downstream (PD, winner) follows, and recorded in
            the trail under rule ``"referee.override"``.
        waived: (duellist, violation code) pairs the referee waives: the violation is kept
            with status ``"waived"`` and its consequence is not applied (a waived
            repeated_spell works normally; a waived unlisted_spell gives no advantage and
            attacks as a damage-only spell).
        trail: False when nobody reads the rule trail: the outcome's ``trail`` is empty,
            everything else identical (the common case then runs
            :func:`rules.classic_fast.resolve_fast`).

    Returns:
        The :class:`TurnOutcome`, whose ``state`` has ``turn`` increased by one (unchanged
        before the start).

    Raises:
        RuleError: finished duel, wrong ruleset, unknown duellist or spell, missing or extra
            turn post, dice missing or not ``dice_per_post`` values in 1..``dice_faces``
            (rule ``"classic.dice"``), unknown or ill-typed override key
            (``"referee.override"``).
    """
    if not trail and not overrides and not waived:
        fast = resolve_fast(state, posts, dice, ruleset)
        if fast is not None:
            return fast
    cfg = ClassicSettings.from_ruleset(ruleset)
    if state.ruleset != ruleset.name:
        raise RuleError("ruleset", f"state uses {state.ruleset!r}, not {ruleset.name!r}")
    if state.finished:
        raise RuleError("classic.end", "the duel is already over")
    if len(state.duellists) != 2:
        raise RuleError("duellists", "a classic duel has exactly two duellists")
    names = tuple(d.name for d in state.duellists)
    ctx = _Context(
        state,
        ruleset,
        cfg,
        _parse_overrides(overrides or {}, names),
        _parse_waived(waived, names),
        trail,
    )
    for post in posts:
        if post.duellist not in names:
            raise RuleError("classic.posts", f"post {post.post_id} by unknown {post.duellist!r}")
    checked_dice = _check_dice(dice, ruleset)

    for post in posts:
        if post.before_start:
            ctx.violation(
                post,
                "cast_before_start",
                post.spell_text or post.spell or "a post before the referee's start",
                "disqualification",
            )
    turn_posts = [p for p in posts if not p.before_start]
    if not state.started:
        if turn_posts:
            raise RuleError("classic.start", "the referee has not given the start (start_duel)")
        for name, fld in ctx.overrides:
            if fld in _TURN_FIELDS:
                raise RuleError("referee.override", f"no turn post to apply {name}.{fld} to")
        kept = {d.name: int(ctx.override(d.name, "points", d.points)) for d in state.duellists}
        return _close(
            ctx, state.turn, (), {}, kept, {d.name: d.effects for d in state.duellists}, {}
        )

    by_name: dict[str, TurnPost] = {}
    for post in turn_posts:
        if post.duellist in by_name:
            raise RuleError("classic.posts", f"{post.duellist!r} has two posts in one turn")
        by_name[post.duellist] = post
    for name in names:
        if name not in by_name:
            raise RuleError("classic.posts", f"no post from {name!r} for this turn")
        if by_name[name].post_id not in checked_dice:
            raise RuleError("classic.dice", f"no dice for post {by_name[name].post_id}")

    if ctx.trail.on:
        ctx.trail.add("duel.resolution", "simultaneous", "classic.resolution")
    casts = {
        n: _read_cast(ctx, state.duellist(n), by_name[n], checked_dice[by_name[n].post_id])
        for n in names
    }
    opponent = {names[0]: names[1], names[1]: names[0]}
    cancelled = {n: casts[opponent[n]].has(CounterSpell) and casts[n].effective for n in names}
    for n in names:
        if cancelled[n]:
            counter = casts[opponent[n]].spell
            assert counter is not None
            if ctx.trail.on:
                ctx.trail.add(
                    f"{n}.spell.cancelled",
                    True,
                    "classic.spell.counter_spell",
                    f"{opponent[n]}'s {counter.name} cancels {n}'s spell of this turn",
                    source=counter.source,
                )

    new_effects: dict[str, list[Effect]] = {n: [] for n in names}
    defense = {n: _defense(ctx, state.duellist(n), casts[n], cancelled[n]) for n in names}
    attacks: list[AttackResult] = []
    damage_to: dict[str, int] = {n: 0 for n in names}
    for n in names:
        o = opponent[n]
        result = _attack(ctx, state.duellist(n), casts[n], cancelled[n], o, casts[o], defense[o])
        attacks.append(result)
        damage_to[o] += result.damage
        for effect in result.effects_applied:
            carrier = o if getattr(effect, "applies", "target") == "target" else n
            new_effects[carrier].append(effect)

    points: dict[str, int] = {}
    for d in state.duellists:
        computed, lost = d.points - damage_to[d.name], damage_to[d.name]
        if ctx.trail.on:
            sums = f"{d.points} - {lost} = {computed}" if lost else f"{d.points}"
            unchanged = "" if lost else ", unchanged"
            ctx.trail.add(f"{d.name}.points", computed, "classic.damage",
                          f"{sums} {ruleset.unit}{unchanged}")  # fmt: skip
        points[d.name] = int(ctx.override(d.name, "points", computed))

    effects_next: dict[str, tuple[Effect, ...]] = {}
    for d in state.duellists:
        carried = tuple(evolve(e, duration=e.duration - 1) for e in d.effects if e.duration > 1)
        for e in d.effects:
            if e.duration <= 1:
                if ctx.trail.on:
                    ctx.trail.add(
                        f"{d.name}.effects.expired",
                        e.kind,
                        "classic.effects_expire",
                        f"{e.kind} from {e.source} ran its last turn",
                    )
        effects_next[d.name] = carried + tuple(new_effects[d.name])
    last_spell = {n: by_name[n].spell for n in names}
    return _close(
        ctx,
        state.turn + 1,
        tuple(attacks),
        last_spell,
        points,
        effects_next,
        {by_name[n].post_id: checked_dice[by_name[n].post_id] for n in names},
    )


def _defense(
    ctx: _Context, me: DuellistState, cast_: _Cast, cancelled: bool
) -> tuple[int, tuple[Modifier, ...]]:
    """Effective defense (die + carried and same-turn modifiers, no floor) and its modifiers."""
    mods = _defense_modifiers(ctx, me, cast_, cancelled)
    value = cast_.defense_die + sum(m.amount for m in mods)
    rule = "classic.void_defense" if cast_.void_reason else "classic.no_floor"
    if ctx.trail.on:
        ctx.trail.add(
            f"{me.name}.defense.effective",
            value,
            rule,
            " ".join([str(cast_.defense_die)] + [f"{m.amount:+d} ({m.source})" for m in mods])
            + f" = {value}",
        )
    return value, mods


def _defense_modifiers(
    ctx: _Context, me: DuellistState, cast_: _Cast, cancelled: bool
) -> tuple[Modifier, ...]:
    mods: list[Modifier] = []
    for e in me.effects:
        if isinstance(e, DefenseModifier):
            source = e.source or e.kind
            mods.append(Modifier(e.amount, source))
            if ctx.trail.on:
                ctx.trail.add(
                    f"{me.name}.defense.modifier",
                    e.amount,
                    "classic.spell.defense_modifier",
                    f"carried from the previous turn: {source} (by {e.caster})",
                    source=_spell_source(ctx, source),
                )
    spell = cast_.spell
    if spell is not None and cast_.effective and not cancelled:
        for e in spell.effects:
            if isinstance(e, Shield) and ctx.cfg.shield_applies == "same_turn":
                mods.append(Modifier(e.amount, spell.name))
                if ctx.trail.on:
                    ctx.trail.add(
                        f"{me.name}.defense.modifier",
                        e.amount,
                        "classic.spell.shield",
                        "shield on the same post's defense (shield_applies = same_turn)",
                        source=spell.source,
                    )
            elif isinstance(e, DefenseModifier) and e.applies == "caster" and e.when == "same_turn":
                mods.append(Modifier(e.amount, spell.name))
                if ctx.trail.on:
                    ctx.trail.add(
                        f"{me.name}.defense.modifier",
                        e.amount,
                        "classic.spell.defense_modifier",
                        "caster's own defense, same turn",
                        source=spell.source,
                    )
    return tuple(mods)


def _attack(
    ctx: _Context,
    me: DuellistState,
    cast_: _Cast,
    cancelled: bool,
    defender: str,
    defender_cast: _Cast,
    defense: tuple[int, tuple[Modifier, ...]],
) -> AttackResult:
    """One post as an attack on ``defender`` (landed, damage, new effects)."""
    trail, cfg = ctx.trail, ctx.cfg
    name = me.name
    spell = cast_.spell
    effective_defense, defense_mods = defense
    attacking = cast_.effective and spell is not None and spell.attacks and not cancelled
    if cast_.void_reason is not None:
        void: str | None = cast_.void_reason
    elif cancelled:
        void = "cancelled"
    elif spell is not None and not spell.attacks:
        void = "counter_spell" if cast_.has(CounterSpell) else "shield"
    else:
        void = None

    boosts = [e for e in me.effects if isinstance(e, AttackModifier)]
    attack_mods = tuple(Modifier(e.amount, e.source or e.kind) for e in boosts)
    for boost in boosts:
        if trail.on:
            trail.add(
                f"{name}.attack.modifier",
                boost.amount if attacking else 0,
                "classic.unlisted_spell"
                if boost.source == UNLISTED_SOURCE
                else "classic.spell.attack_modifier",
                f"advantage given by {boost.caster}'s {boost.source}"
                + ("" if attacking else f"; lost: {name} does not attack this turn"),
                source=None
                if boost.source == UNLISTED_SOURCE
                else _spell_source(ctx, boost.source or ""),
            )
    attack_value = cast_.attack_die + sum(m.amount for m in attack_mods)
    damage_bonus = sum(e.amount for e in boosts if e.affects_damage)

    tie_lands = cfg.tie_rule == "lands"
    deflect_rule = "classic.deflect" if tie_lands else "classic.deflect.ties"
    if attacking:
        if trail.on:
            trail.add(
                f"{name}.attack.value",
                attack_value,
                deflect_rule,
                " ".join(
                    [str(cast_.attack_die)] + [f"{m.amount:+d} ({m.source})" for m in attack_mods]
                )
                + f" = {attack_value}",
            )
        computed = (
            attack_value >= effective_defense if tie_lands else attack_value > effective_defense
        )
        relation = (
            "strictly greater: deflected"
            if effective_defense > attack_value
            else "equal: the tie lands"
            if effective_defense == attack_value and tie_lands
            else "equal: the tie is deflected"
            if effective_defense == attack_value
            else "lower: lands"
        )
        if trail.on:
            trail.add(
                f"{name}.attack.landed",
                computed,
                deflect_rule,
                f"{defender}'s effective defense {effective_defense} vs attack {attack_value}: "
                + relation,
            )
    else:
        computed = False
        if trail.on:
            trail.add(
                f"{name}.attack.landed",
                False,
                _void_rule(void),
                f"no attack this turn ({void})",
                source=_void_source(cast_, void),
            )
    landed = bool(ctx.override(name, "landed", computed))

    extra = 0
    applied: list[Effect] = []
    if landed:
        base = cast_.attack_die + damage_bonus
        parts = [f"attack die {cast_.attack_die}"]
        if damage_bonus:
            parts.append(f"{damage_bonus:+d} advantage")
        if attacking and spell is not None:
            for e in spell.effects:
                if isinstance(e, ExtraDamage):
                    extra += e.amount
                    if trail.on:
                        trail.add(
                            f"{name}.attack.extra_damage",
                            e.amount,
                            "classic.spell.extra_damage",
                            f"{spell.name} landed",
                            source=spell.source,
                        )
            if extra:
                parts.append(f"{extra:+d} {spell.name}")
        computed_damage = base + extra
        if trail.on:
            trail.add(
                f"{name}.attack.damage",
                computed_damage,
                "classic.damage",
                " ".join(parts) + f" = {computed_damage} {ctx.ruleset.unit}",
            )
    else:
        computed_damage = 0
        if trail.on:
            trail.add(f"{name}.attack.damage", 0, "classic.damage", "no landed attack, no PD lost")
    damage = int(ctx.override(name, "damage", computed_damage))

    if spell is not None and cast_.effective and not cancelled:
        gated = spell.attacks
        for e in spell.effects:
            if isinstance(e, Shield) and ctx.cfg.shield_applies == "next_turn":
                carried: Effect = DefenseModifier(
                    amount=e.amount,
                    applies="caster",
                    when="next_turn",
                    duration=e.duration,
                    source=spell.name,
                    caster=name,
                )
            elif (
                isinstance(e, DefenseModifier | AttackModifier | NoAttack) and e.when == "next_turn"
            ):
                if gated and not landed:
                    continue
                carried = evolve(e, source=spell.name, caster=name)
            else:
                continue
            applied.append(carried)
            target = defender if getattr(carried, "applies", "target") == "target" else name
            if trail.on:
                trail.add(
                    f"{target}.effects_next",
                    carried.kind,
                    f"classic.spell.{e.kind}",
                    f"{spell.name} by {name}: {carried.to_dict()}",
                    source=spell.source,
                )
    if cast_.void_reason == "unlisted_spell" and cfg.unlisted_spell_proposal == "advantage":
        if cfg.unlisted_spell_advantage > 0:
            advantage = AttackModifier(
                amount=cfg.unlisted_spell_advantage,
                affects_damage=cfg.unlisted_advantage_damage,
                applies="target",
                when="next_turn",
                duration=cfg.unlisted_advantage_turns,
                source=UNLISTED_SOURCE,
                caster=name,
            )
            applied.append(advantage)
            if trail.on:
                trail.add(
                    f"{defender}.effects_next",
                    advantage.kind,
                    "classic.unlisted_spell",
                    f"proposed advantage for {defender}: {advantage.amount:+d} to the next "
                    "attack die" + (", damage too" if advantage.affects_damage else ""),
                )
    return AttackResult(
        attacker=name,
        defender=defender,
        spell=spell.name if spell is not None else None,
        attack_die=cast_.attack_die,
        defense_die=defender_cast.defense_die,
        defense_modifiers=defense_mods,
        effective_defense=effective_defense,
        landed=landed,
        damage=damage,
        effects_applied=tuple(applied),
        void_reason=void,
        attack_modifiers=attack_mods if attacking else (),
        attack_value=attack_value if attacking else cast_.attack_die,
    )


def _close(
    ctx: _Context,
    turn: int,
    attacks: tuple[AttackResult, ...],
    last_spell: Mapping[str, str | None],
    points: Mapping[str, int],
    effects_next: Mapping[str, tuple[Effect, ...]],
    dice: Mapping[int, tuple[int, ...]],
) -> TurnOutcome:
    """Apply disqualifications, decide the end, build the new state and the outcome."""
    state, trail = ctx.state, ctx.trail
    names = [d.name for d in state.duellists]
    disqualified: dict[str, bool] = {}
    for d in state.duellists:
        disqualified[d.name] = bool(ctx.override(d.name, "disqualified", d.disqualified))
    violations = [
        evolve(v, status="applied")
        if disqualified[v.duellist]
        and v.status == "proposed"
        and v.rule in ("cast_before_start", "unlisted_spell")
        else v
        for v in ctx.violations
    ]

    finished, winner, draw = False, None, False
    out = [n for n in names if disqualified[n]]
    if out:
        finished = True
        rest = [n for n in names if not disqualified[n]]
        winner = rest[0] if len(rest) == 1 else None
        detail = f"disqualified: {', '.join(out)}"
        if trail.on:
            trail.add("duel.finished", True, "classic.end", detail)
    else:
        down = [n for n in names if points[n] <= 0]
        if len(down) == 1:
            finished = True
            winner = next(n for n in names if n not in down)
            if trail.on:
                trail.add(
                    "duel.finished", True, "classic.end", f"{down[0]} at {points[down[0]]} PD"
                )
        elif len(down) == 2:
            finished = True
            a, b = names
            detail = f"both at 0 or below: {a} {points[a]}, {b} {points[b]}"
            if ctx.cfg.double_ko == "draw" or points[a] == points[b]:
                draw = True
            else:
                winner = a if points[a] > points[b] else b
            if trail.on:
                trail.add("duel.finished", True, "classic.double_ko", detail)
        else:
            if trail.on:
                trail.add(
                    "duel.finished",
                    False,
                    "classic.end",
                    ", ".join(f"{n} {points[n]} {ctx.ruleset.unit}" for n in names),
                )
    if finished:
        if trail.on:
            trail.add("duel.winner", winner, "classic.double_ko" if draw else "classic.end")
        if trail.on:
            trail.add("duel.draw", draw, "classic.double_ko" if draw else "classic.end")

    pending: dict[str, tuple[Effect, ...]] = {}
    if finished:
        for n in names:
            if effects_next[n]:
                pending[n] = effects_next[n]
                if trail.on:
                    trail.add(
                        f"{n}.effects_pending",
                        ", ".join(e.kind for e in effects_next[n]),
                        "classic.effects_pending",
                    )

    by_duellist: dict[str, list[Violation]] = {n: [] for n in names}
    for v in violations:
        by_duellist[v.duellist].append(v)
    duellists = tuple(
        evolve(
            d,
            points=points[d.name],
            effects=effects_next[d.name],
            last_spell=last_spell.get(d.name, d.last_spell),
            violations=d.violations + tuple(by_duellist[d.name]),
            disqualified=disqualified[d.name],
        )
        for d in state.duellists
    )
    new_state = evolve(
        state, turn=turn, duellists=duellists, finished=finished, winner=winner, draw=draw
    )
    return TurnOutcome(
        turn=turn,
        state=new_state,
        attacks=attacks,
        effects_next=dict(effects_next),
        violations=tuple(violations),
        winner=winner,
        draw=draw,
        finished=finished,
        trail=trail.entries(),
        pending_effects_at_end=pending,
        dice=dict(dice),
    )


__all__ = [
    "CLASSIC_SETTINGS",
    "ENGINE",
    "UNLISTED_PROPOSAL",
    "UNLISTED_SOURCE",
    "ClassicSettings",
    "OverrideValue",
    "resolve_classic_turn",
]
