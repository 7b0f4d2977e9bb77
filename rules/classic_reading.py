"""Reading one classic post (seed 000): the per-call bookkeeping, referee overrides, dice, the
spell and its violations.

Split out of ``rules.classic`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rules.classic_settings import (  # noqa: F401
    _OVERRIDE_FIELDS,
    UNLISTED_PROPOSAL,
    ClassicSettings,
    OverrideValue,
)
from rules.classic_sources import CLASSIC_SOURCES
from rules.effects import (
    Effect,
    NoAttack,
)
from rules.errors import RuleError
from rules.model import (
    DuellistState,
    DuelState,
    TurnPost,
    Violation,
)
from rules.override_keys import unknown_key, unknown_name
from rules.ruleset import Ruleset, Spell
from rules.trail import TrailBuilder


@dataclass(frozen=True)
class _Cast:
    """One turn post read against the rules (internal)."""

    name: str
    post: TurnPost
    spell: Spell | None
    void_reason: str | None
    attack_die: int
    defense_die: int

    @property
    def effective(self) -> bool:
        return self.spell is not None and self.void_reason is None

    def has(self, kind: type[Effect]) -> bool:
        return (
            self.effective
            and self.spell is not None
            and any(isinstance(e, kind) for e in self.spell.effects)
        )


class _Context:
    """The mutable bookkeeping of one resolution call (never escapes it)."""

    def __init__(
        self,
        state: DuelState,
        ruleset: Ruleset,
        cfg: ClassicSettings,
        overrides: dict[tuple[str, str], OverrideValue],
        waived: set[tuple[str, str]],
        trail: bool = True,
    ) -> None:
        self.state = state
        self.ruleset = ruleset
        self.cfg = cfg
        self.overrides = overrides
        self.waived = waived
        self.trail = TrailBuilder(CLASSIC_SOURCES, trail)
        self.violations: list[Violation] = []

    def override(self, name: str, field: str, computed: OverrideValue) -> OverrideValue:
        """The referee's value for ``name.field`` when given (recorded), else ``computed``."""
        key = (name, field)
        if key not in self.overrides:
            return computed
        value = self.overrides[key]
        self.trail.override(f"{name}.{field}", computed, value)
        return value

    def violation(
        self,
        post: TurnPost,
        rule: str,
        evidence: str,
        proposal: str | None,
        status: Literal["proposed", "applied"] = "proposed",
    ) -> bool:
        """Record a violation; returns False when the referee waived it."""
        is_waived = (post.duellist, rule) in self.waived
        violation = Violation(
            duellist=post.duellist,
            rule=rule,
            post_id=post.post_id,
            evidence=evidence,
            penalty=0,
            status="waived" if is_waived else status,
            proposal=proposal,
        )
        self.violations.append(violation)
        if self.trail.on:
            self.trail.add(
                f"{post.duellist}.violation.{rule}",
                violation.status,
                f"classic.{rule}" if f"classic.{rule}" in CLASSIC_SOURCES else "classic.barred",
                f"post {post.post_id}: {evidence}"
                + (f"; proposal: {proposal}" if proposal else ""),
            )
        return not is_waived


def _parse_overrides(
    overrides: Mapping[str, int | bool], names: Sequence[str]
) -> dict[tuple[str, str], OverrideValue]:
    out: dict[tuple[str, str], OverrideValue] = {}
    for key, value in overrides.items():
        name, dot, fld = key.rpartition(".")
        if not dot or name not in names or fld not in _OVERRIDE_FIELDS:
            raise unknown_key(key, names, _OVERRIDE_FIELDS)
        wanted = _OVERRIDE_FIELDS[fld]
        if wanted is bool and not isinstance(value, bool):
            raise RuleError("referee.override", f"{key} must be true or false, got {value!r}")
        if wanted is int and (isinstance(value, bool) or not isinstance(value, int)):
            raise RuleError("referee.override", f"{key} must be an integer, got {value!r}")
        out[(name, fld)] = value
    return out


def _parse_waived(
    waived: Collection[tuple[str, str]], names: Sequence[str]
) -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for item in waived:
        name, rule = item
        if name not in names:
            raise unknown_name("referee.waive", name, names)
        out.add((name, rule))
    return out


def _check_die(value: object, faces: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= faces:
        raise RuleError("classic.dice", f"{what}: a d{faces} shows 1..{faces}, got {value!r}")
    return value


def _check_dice(dice: Mapping[int, Sequence[int]], ruleset: Ruleset) -> dict[int, tuple[int, ...]]:
    out: dict[int, tuple[int, ...]] = {}
    for post_id, values in dice.items():
        if len(values) != ruleset.dice_per_post:
            raise RuleError(
                "classic.dice",
                f"post {post_id}: {ruleset.dice_per_post} dice values expected, got {list(values)}",
            )
        faces = ruleset.dice_faces
        for v in values:
            if v.__class__ is not int or not 1 <= v <= faces:
                _check_die(v, faces, f"post {post_id}")  # raises (a bool, a str, 0, 7...)
        out[post_id] = tuple(values)
    return out


def _read_cast(ctx: _Context, me: DuellistState, post: TurnPost, rolled: tuple[int, ...]) -> _Cast:
    """Dice, spell and violations of one post (seed: the first die attacks, the second defends)."""
    trail, cfg, ruleset = ctx.trail, ctx.cfg, ctx.ruleset
    name = me.name
    faces = ruleset.dice_faces
    if trail.on:
        trail.add(
            f"{name}.attack.die", rolled[0], "classic.dice", f"post {post.post_id}, first die"
        )
    if trail.on:
        trail.add(
            f"{name}.defense.die", rolled[1], "classic.dice", f"post {post.post_id}, second die"
        )
    attack_die, defense_die = rolled[0], rolled[1]
    if ctx.overrides:
        attack_die = _check_die(
            ctx.override(name, "attack_die", attack_die), faces, f"{name}.attack_die override"
        )
        defense_die = _check_die(
            ctx.override(name, "defense_die", defense_die), faces, f"{name}.defense_die override"
        )

    spell: Spell | None = None
    void: str | None = None
    if post.spell is None and not post.spell_text:
        void = "missing_spell"
        ctx.violation(
            post, "missing_spell", "no spell in bold", "no attack this turn; the defense die counts"
        )
    elif post.spell is None:
        text = post.spell_text or ""
        damage = ", for damage too" if cfg.unlisted_advantage_damage else ""
        proposal = (
            UNLISTED_PROPOSAL.format(n=cfg.unlisted_spell_advantage, damage=damage)
            if cfg.unlisted_spell_proposal == "advantage"
            else "disqualification"
        )
        if ctx.violation(post, "unlisted_spell", text, proposal):
            void = "unlisted_spell"
        else:
            spell = Spell(
                name=text,
                aliases=(),
                level=0,
                effects=(),
                source=CLASSIC_SOURCES["classic.unlisted_spell"],
            )
    else:
        if not ruleset.has_spell(post.spell):
            raise RuleError(
                "spells", f"post {post.post_id}: {post.spell!r} is not a canonical name"
            )
        spell = ruleset.spell(post.spell)
    if spell is not None and post.spell is not None:
        if post.spell == me.last_spell:
            voids = cfg.repeated_spell_voids
            kept = ctx.violation(
                post,
                "repeated_spell",
                f"{post.spell} twice in a row",
                "no effect, no damage; the defense die counts" if voids else "flag only",
                "applied" if voids else "proposed",
            )
            if kept and voids:
                void = "repeated_spell"
        top = ruleset.max_level_for(me.year)
        if top is not None and spell.level > top:
            ctx.violation(
                post,
                "spell_above_level",
                f"{spell.name} is level {spell.level}, year {me.year} knows up to {top}",
                "flag only: a well-read duellist may know a little more (fair play)",
            )
    barred = [e for e in me.effects if isinstance(e, NoAttack)]
    if void is None and spell is not None and spell.attacks and barred:
        if cfg.barred_attacking_spell == "violation":
            if ctx.violation(post, "barred_action", spell.name, "the spell is ignored"):
                void = "barred"
        else:
            void = "barred"
        if void == "barred":
            if trail.on:
                trail.add(
                    f"{name}.attack.barred",
                    True,
                    "classic.barred",
                    f"{barred[0].source} (by {barred[0].caster}) forbids attacking this turn",
                )
    if trail.on:
        trail.add(
            f"{name}.spell",
            spell.name if spell is not None else (post.spell_text or "none"),
            _void_rule(void) if void else "classic.spellbook",
            f"void: {void}" if void else "in the list of allowed spells",
            source=spell.source if spell is not None and void is None else None,
        )
    return _Cast(name, post, spell, void, attack_die, defense_die)


def _spell_source(ctx: _Context, name: str) -> str:
    if ctx.ruleset.has_spell(name):
        return ctx.ruleset.spell(name).source
    return CLASSIC_SOURCES["classic.unlisted_spell"]


def _void_rule(void: str | None) -> str:
    if void in ("repeated_spell", "unlisted_spell", "missing_spell"):
        return f"classic.{void}"
    if void == "barred":
        return "classic.barred"
    if void == "cancelled":
        return "classic.spell.counter_spell"
    return f"classic.spell.{void}"


def _void_source(cast_: _Cast, void: str | None) -> str | None:
    if void in ("shield", "counter_spell") and cast_.spell is not None:
        return cast_.spell.source
    return None
