"""Reading one fatigue post against the rules (seed 001): action, bet, die, spell, violations,
and whether the duellist had any legal action at all.

Split out of ``rules.fatigue.engine`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from rules.effects import NoAttack
from rules.errors import RuleError
from rules.fatigue.context import (  # noqa: F401
    _bet_text,
    _Ctx,
    _Read,
    _targets_opponent,
)
from rules.fatigue.effects import (
    NoDodge,
)
from rules.fatigue.settings import FatigueRuleset, FatigueSettings
from rules.model import (
    DuellistState,
    TurnPost,
)


def may_cast_a_spell(
    rs: FatigueRuleset, me: DuellistState, opponents: Collection[str], *, creature: bool = False
) -> bool:
    """True when ``me`` knows a spell that may still be cast with an effect: a self spell
    (a heal, a ward), or a spell aimed at the opponent that is not banned on at least one of
    ``opponents`` (names) by the reuse ban (lifted only by the club's named house rule
    ``recast_same_opponent``), within its ``max_casts``, or, with ``creature`` (2v2: a
    creature still standing in the caster's zone), any spell aimed at a target. Spells above
    the caster's level (``known_levels``) do not count. Effects (``no_attack``) are not
    looked at here.

    seed 001: « il est formellement interdit au lanceur de le réutiliser une seconde fois sur
    son adversaire »; « Première année : sorts de niveau 1. [...] »."""
    top = rs.max_level_for(me.year)
    used = me.spells_used_on
    for spell in rs.spells:
        if top is not None and spell.level > top:
            continue
        if spell.max_casts is not None and me.cast_count(spell.name) >= spell.max_casts:
            continue  # the spellbook's own limit (« sauf contre-indication »)
        if not _targets_opponent(spell) or creature or rs.house_rule("recast_same_opponent"):
            return True
        if any((spell.name, o) not in used for o in opponents):
            return True
    return False


def has_legal_action(
    me: DuellistState,
    cfg: FatigueSettings,
    *,
    can_be_dodging: bool,
    ruleset: FatigueRuleset | None = None,
    opponents: Collection[str] = (),
    creature: bool = False,
) -> bool:
    """True when ``me`` has at least one action the rules allow this post.

    Cast is legal unless a ``no_attack`` effect runs and, given ``ruleset``, when a known
    spell may still be cast (:func:`may_cast_a_spell` against ``opponents``: the level, the
    reuse ban on the same opponent; issue 26 D1: every known spell spent is no legal cast).
    When there is something to dodge (``can_be_dodging``: a defense post, or a 2v2 duellist
    with a spell aimed at them), a dodge is legal unless a ``no_dodge`` effect runs or it
    would be a second dodge in a row (``dodge_twice``; seed 001: "il est interdit d'utiliser
    cette action deux tours de suite"). A dodge_riposte carries a spell, so it is never legal
    when casting is not.

    RULES.md Fine points: "A duellist left with no legal action posts role-play and endures:
    that counts as their post, no violation"; seed 001: "un duelliste n'a pas le droit de ne
    pas agir pendant un tour, sauf s'il y est contraint."
    """
    if not any(isinstance(e, NoAttack) for e in me.effects) and (
        ruleset is None or may_cast_a_spell(ruleset, me, opponents, creature=creature)
    ):
        return True
    if not can_be_dodging or any(isinstance(e, NoDodge) for e in me.effects):
        return False
    dodged_last = me.last_action == "dodge" or (
        cfg.dodge_riposte_counts_as_dodge and me.last_action == "dodge_riposte"
    )
    return not dodged_last


def legal_actions(
    me: DuellistState,
    cfg: FatigueSettings,
    *,
    ruleset: FatigueRuleset | None = None,
    opponents: Collection[str] = (),
) -> tuple[str, ...]:
    """The defense actions open to ``me`` this post, in the order ``"cast"``, ``"dodge"``,
    ``"dodge_riposte"`` (empty: no legal action; ``bool(...)`` equals
    :func:`has_legal_action` with ``can_be_dodging=True``).

    Cast: as :func:`has_legal_action`. Dodge: no ``no_dodge`` effect and not a second dodge
    in a row (seed 001: « il est interdit d'utiliser cette action deux tours de suite »).
    Dodge-riposte carries a spell, so it needs a legal cast; ``no_dodge`` bars it too when
    ``no_dodge_bars_riposte`` (fatigue.toml, RULES.md Fine points: "dodging under no_dodge"
    is a barred action), and a dodge last turn bars it when ``dodge_riposte_counts_as_dodge``.
    """
    cast = not any(isinstance(e, NoAttack) for e in me.effects) and (
        ruleset is None or may_cast_a_spell(ruleset, me, opponents)
    )
    no_dodge = any(isinstance(e, NoDodge) for e in me.effects)
    dodged_last = me.last_action == "dodge" or (
        cfg.dodge_riposte_counts_as_dodge and me.last_action == "dodge_riposte"
    )
    out = ["cast"] if cast else []
    if not no_dodge and not dodged_last:
        out.append("dodge")
    riposte_barred = (no_dodge and cfg.no_dodge_bars_riposte) or (
        cfg.dodge_riposte_counts_as_dodge and dodged_last
    )
    if cast and not riposte_barred:
        out.append("dodge_riposte")
    return tuple(out)


def _counted_action(read: _Read | None) -> str | None:
    if read is None:
        return None
    return read.kind if read.dodge_ok or read.kind == "cast" else None


def _read(
    ctx: _Ctx,
    me: DuellistState,
    opp: DuellistState,
    post: TurnPost,
    rolled: int | None,
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
    if rolled is None:
        # No bet die for a duellist with no legal action (engine doc: ``dice``); die 0 = none
        if has_legal_action(
            me, cfg, can_be_dodging=role == "defense", ruleset=rs, opponents=(opp.name,)
        ):
            raise RuleError("fatigue.dice", f"no die for post {post.post_id}")
        die = 0
    else:
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

    legal = has_legal_action(
        me, cfg, can_be_dodging=role == "defense", ruleset=rs, opponents=(opp.name,)
    )
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

    bet: tuple[int, ...] | None = None
    bet_won = False
    if rolled is not None:  # no die: every action is barred, the bet is not read (no_action)
        bet, bet_won = _bet(ctx, post, name, declared, die, record=record)

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
    if spell.max_casts is not None and me.cast_count(spell.name) >= spell.max_casts:
        status = ctx.violation(
            post,
            "cast_limit",
            f"{name} already cast {spell.name} {me.cast_count(spell.name)} time(s); the "
            f"spellbook allows {spell.max_casts} per duel",
            record=record,
        )
        if status != "waived":
            return void("cast_limit")
    if (
        not rs.house_rule("recast_same_opponent")
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


def _bet(
    ctx: _Ctx, post: TurnPost, name: str, declared: str, die: int, *, record: bool
) -> tuple[tuple[int, ...] | None, bool]:
    """The post's bet (None when missing or not allowed: an ``invalid_bet``) and whether the
    die won it (seed 001: « Pari »), with the referee's ``bet_won`` override."""
    rs, trail = ctx.ruleset, ctx.trail
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
    return bet, bool(ctx.override(name, "bet_won", computed_won))


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
