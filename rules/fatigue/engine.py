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
``"unknown_spell"``, ``"missing_spell"``, ``"no_action"``, ``"initiative_not_cast"``."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from rules.effects import Effect
from rules.engine import new_duel, register_engine
from rules.errors import RuleError
from rules.fast import evolve
from rules.fatigue.applying import (  # noqa: F401
    _apply as _apply,
)
from rules.fatigue.applying import (
    _carry as _carry,
)
from rules.fatigue.applying import (
    _identity as _identity,
)
from rules.fatigue.applying import (
    _modifiers as _modifiers,
)
from rules.fatigue.closing import (  # noqa: F401
    _close as _close,
)
from rules.fatigue.closing import (
    _ended as _ended,
)
from rules.fatigue.closing import (
    close_without_winner as close_without_winner,
)
from rules.fatigue.closing import (
    concede as concede,
)
from rules.fatigue.context import (
    _JUDGED as _JUDGED,
)
from rules.fatigue.context import (
    _OVERRIDE_FIELDS as _OVERRIDE_FIELDS,
)
from rules.fatigue.context import (
    _STATUS_SETTING as _STATUS_SETTING,
)
from rules.fatigue.context import (  # noqa: F401
    OverrideValue as OverrideValue,
)
from rules.fatigue.context import (
    PostFacts as PostFacts,
)
from rules.fatigue.context import (
    Step as Step,
)
from rules.fatigue.context import (
    _base_damage as _base_damage,
)
from rules.fatigue.context import (
    _bet_text as _bet_text,
)
from rules.fatigue.context import (
    _check_dice as _check_dice,
)
from rules.fatigue.context import (
    _Ctx as _Ctx,
)
from rules.fatigue.context import (
    _family as _family,
)
from rules.fatigue.context import (
    _fatigue_ruleset as _fatigue_ruleset,
)
from rules.fatigue.context import (
    _opponent as _opponent,
)
from rules.fatigue.context import (
    _pairs as _pairs,
)
from rules.fatigue.context import (
    _parse_overrides as _parse_overrides,
)
from rules.fatigue.context import (
    _Read as _Read,
)
from rules.fatigue.context import (
    _spell_source as _spell_source,
)
from rules.fatigue.context import (
    _targets_opponent as _targets_opponent,
)
from rules.fatigue.context import (
    _undodgeable as _undodgeable,
)
from rules.fatigue.effects import (
    DamageOverTime,
)
from rules.fatigue.fast import resolve_fast
from rules.fatigue.reading import (  # noqa: F401
    _counted_action as _counted_action,
)
from rules.fatigue.reading import (
    _facts as _facts,
)
from rules.fatigue.reading import (
    _read as _read,
)
from rules.fatigue.reading import (
    has_legal_action as has_legal_action,
)
from rules.fatigue.reading import (
    legal_actions as legal_actions,
)
from rules.model import (
    AttackResult,
    DuelState,
    TurnOutcome,
    TurnPost,
)
from rules.ruleset import Ruleset


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
            its own ``dice``); ``()`` for a defense post whose duellist has no legal action
            (:func:`has_legal_action`): no bet die is rolled for an action that cannot be
            taken (RULES.md Fine points: "A duellist left with no legal action posts
            role-play and endures"); a die is still required for anyone else.
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
            ``trail`` is empty, everything else identical; with no override, waiver,
            confirmation, facts or voided post, the step then runs the fast path
            (:func:`rules.fatigue.fast.resolve_fast`). The 2v2 engine keeps it (it reads
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
    if not (trail or overrides or waived or confirmed or facts or voided):
        fast = resolve_fast(state, posts, dice, ruleset, step)
        if fast is not None:
            return fast
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
        if not checked[turn_posts[0].post_id]:
            raise RuleError("fatigue.dice", f"no die for post {turn_posts[0].post_id}")
        return _initiative(ctx, turn_posts[0], checked[turn_posts[0].post_id][0])
    pending = state.pending[0]
    if pending.dice is None or len(pending.dice) != 1:
        raise RuleError("fatigue.dice", f"pending post {pending.post_id} has no die in force")
    if inferred == "defense" and turn_posts[0].duellist == pending.duellist:
        raise RuleError(
            "fatigue.posts", f"{pending.duellist!r} took the initiative; the defense is the other's"
        )
    defense = turn_posts[0] if turn_posts else None
    defense_dice = checked[defense.post_id] if defense else ()
    defense_die = defense_dice[0] if defense_dice else None
    return _resolve(ctx, pending, pending.dice[0], defense, defense_die)


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
    # spells with a max_casts (« sauf contre-indication »): each cast that took effect counts
    limited: dict[str, list[str]] = {a.name: [], d.name: []}
    for who, spell in ((a.name, init.spell), (d.name, dfn.spell if dfn else None)):
        if spell is not None and spell.max_casts is not None:
            limited[who].append(spell.name)
    dice_used = {init_post.post_id: (init.die,)}
    if dfn is not None and defense_post is not None and defense_die is not None:
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
        casts=limited,
    )


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
    "legal_actions",
    "new_fatigue_duel",
    "resolve_fatigue_step",
]
