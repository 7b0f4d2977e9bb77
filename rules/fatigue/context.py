"""Shared pieces of the fatigue 1v1 engine (seed 001): the per-call bookkeeping (:class:`_Ctx`),
the shell's post facts, override and dice checks, and small spell helpers.

Split out of ``rules.fatigue.engine`` (issue 17); every name stays importable from there.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from rules.effects import NoAttack
from rules.errors import RuleError
from rules.fast import evolve
from rules.fatigue.effects import (
    DamageOverTime,
    NoDodge,
    PvDamage,
    SpellFamily,
    Undodgeable,
    Ward,
)
from rules.fatigue.settings import FatigueRuleset, FatigueSettings, Status
from rules.fatigue.sources import FATIGUE_SOURCES
from rules.model import (
    DuellistState,
    DuelState,
    TurnPost,
    Violation,
)
from rules.override_keys import unknown_key, unknown_name
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
    "disqualified": bool,
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


def _opponent(state: DuelState, name: str) -> DuellistState:
    return next(d for d in state.duellists if d.name != name)


# What the engine reads of a spell's effects, read once per spell object (issue 17: the
# turn reads them several times, the simulator's policies for every spell of the book).
# Keyed by id() with the spell kept, so a key is never reused by another object.
_SPELL_FACTS: dict[int, tuple[Spell, int, str | None, bool, bool]] = {}


def _facts_of(spell: Spell) -> tuple[Spell, int, str | None, bool, bool]:
    """(spell, base damage, family, undodgeable, targets the opponent)."""
    found = _SPELL_FACTS.get(id(spell))
    if found is not None and found[0] is spell:
        return found
    effects = spell.effects
    facts = (
        spell,
        sum(e.amount for e in effects if isinstance(e, PvDamage)),
        next((e.family for e in effects if isinstance(e, SpellFamily)), None),
        any(isinstance(e, Undodgeable) for e in effects),
        any(
            isinstance(e, PvDamage)
            or (
                isinstance(e, NoDodge | NoAttack | DamageOverTime | Ward)
                and getattr(e, "applies", "target") == "target"
            )
            for e in effects
        ),
    )
    if len(_SPELL_FACTS) >= 4096:
        _SPELL_FACTS.clear()
    _SPELL_FACTS[id(spell)] = facts
    return facts


def targets_opponent(spell: Spell) -> bool:
    """True when ``spell`` acts on the opponent (damage, or an effect applied to its target):
    only such a spell can be dodged (seed 001: « esquiver un sort si celui-ci le permet »). A
    spell that acts on its caster only (a ward, a heal) aims at nobody to dodge."""
    return _facts_of(spell)[4]


def _base_damage(spell: Spell) -> int:
    return _facts_of(spell)[1]


def _family(spell: Spell) -> str | None:
    return _facts_of(spell)[2]


def _undodgeable(spell: Spell) -> bool:
    return _facts_of(spell)[3]


def _targets_opponent(spell: Spell) -> bool:
    """True when the spell acts on the opponent (damage or a target's effect)."""
    return targets_opponent(spell)


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
            ``subjects`` and the closest name or field: :func:`rules.override_keys.unknown_key`),
            a wrong type, or a negative ``damage``/``points``.
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
            raise unknown_key(key, names, _OVERRIDE_FIELDS, creatures="creature" in subjects)
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
            raise unknown_name(rule, name, names)
        out.add((name, code))
    return out


def _check_dice(dice: Mapping[int, Sequence[int]], rs: Ruleset) -> dict[int, tuple[int, ...]]:
    out: dict[int, tuple[int, ...]] = {}
    for post_id, values in dice.items():
        if not values:
            out[post_id] = ()  # no die: allowed only when the duellist has no legal action
            continue
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
