"""Applying a landed fatigue spell (seed 001): damage with magic-type modifiers and wards, heals,
new effects, and carrying running effects into the next turn.

Split out of ``rules.fatigue.engine`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from rules.effects import Effect, NoAttack
from rules.fast import evolve
from rules.fatigue.context import (  # noqa: F401
    _base_damage,
    _Ctx,
    _family,
    _Read,
    _targets_opponent,
)
from rules.fatigue.effects import (
    DamageOverTime,
    Heal,
    NoDodge,
    Ward,
)
from rules.fatigue.settings import MagicModifier
from rules.model import (
    AttackResult,
    DuellistState,
    Modifier,
)


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


_MODIFIERS: dict[tuple[int, tuple[str, ...]], tuple[object, list[tuple[str, MagicModifier]]]] = {}


def _modifiers(ctx: _Ctx, who: DuellistState) -> list[tuple[str, MagicModifier]]:
    """(magic type key, modifier) pairs of ``who``'s magic types, in file order (read once
    per ruleset object and magic types; callers do not change the list)."""
    key = (id(ctx.ruleset), who.magic_types)
    found = _MODIFIERS.get(key)
    if found is not None and found[0] is ctx.ruleset:
        return found[1]
    out: list[tuple[str, MagicModifier]] = []
    for t in who.magic_types:
        mtype = ctx.ruleset.magic_type(t)
        out.extend((mtype.key, m) for m in mtype.modifiers)
    if len(_MODIFIERS) >= 4096:
        _MODIFIERS.clear()
    _MODIFIERS[key] = (ctx.ruleset, out)
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
