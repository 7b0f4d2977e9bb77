"""Scripted duellists for the balance simulator: which post a policy writes, given the state.

Two policies (issue 17, "random legal actions, and a greedy one that picks the best expected
damage"), for the classic and the fatigue 1v1 engines. Pure: the randomness is the
``random.Random`` passed in (:class:`Rng`). A policy only writes *legal* posts, so a
simulated duel measures the rules, not the violations:

- classic: a listed spell the duellist's year knows (``known_levels``), never the spell of
  their previous post (``repeated_spell``);
- fatigue: the initiative casts; the defense casts, dodges or dodge-ripostes; never a spell
  above the year's level, barred by an effect, or already used on that opponent
  (``reused_spell``), never a dodge under ``no_dodge`` or twice in a row (``dodge_twice``),
  always a bet the ruleset allows. With no legal action left the post names none (it
  endures, RULES.md Fine points).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol, TypeVar

from rules.effects import ExtraDamage, NoAttack
from rules.fatigue.effects import Heal, NoDodge, PvDamage
from rules.fatigue.engine import _targets_opponent
from rules.fatigue.settings import FatigueRuleset
from rules.model import DuellistState, TurnPost
from rules.ruleset import Ruleset, Spell

T = TypeVar("T")


class Rng(Protocol):
    """What the policies and the simulator use of a ``random.Random`` (passed in, seeded)."""

    def random(self) -> float: ...

    def randint(self, a: int, b: int) -> int: ...

    def choice(self, seq: Sequence[T]) -> T: ...


Policy = Literal["random", "greedy"]
POLICIES: tuple[Policy, ...] = ("random", "greedy")
Role = Literal["initiative", "defense"]


def _known(rs: Ruleset, year: str) -> list[Spell]:
    top = rs.max_level_for(year)
    return [s for s in rs.spells if top is None or s.level <= top]


def classic_spells(rs: Ruleset, me: DuellistState) -> list[Spell]:
    """The spells ``me`` may cast this turn without a violation (classic)."""
    return [s for s in _known(rs, me.year) if s.name != me.last_spell]


def classic_expected_damage(spell: Spell) -> float:
    """Expected PD a classic spell removes against an unknown defense: the attack die lands
    on a defense die not above it (``tie_rule = lands``), 3.5 on average, plus its extra
    damage; 0 for a spell that does not attack (shield, counter-spell)."""
    if not spell.attacks:
        return 0.0
    return 3.5 + sum(e.amount for e in spell.effects if isinstance(e, ExtraDamage))


# (ruleset, year, last spell, policy) -> the spells a classic policy draws from, read once per
# ruleset object (issue 17: 10,000 simulated duels in 3 s); keyed by id() with the ruleset kept.
_CLASSIC_MENUS: dict[tuple[int, str, str | None, str], tuple[Ruleset, list[Spell]]] = {}


def _classic_menu(rs: Ruleset, me: DuellistState, policy: Policy) -> list[Spell]:
    key = (id(rs), me.year, me.last_spell, policy)
    found = _CLASSIC_MENUS.get(key)
    if found is not None and found[0] is rs:
        return found[1]
    spells = classic_spells(rs, me)
    if policy == "greedy":
        best = max(classic_expected_damage(s) for s in spells)
        spells = [s for s in spells if classic_expected_damage(s) == best]
    if len(_CLASSIC_MENUS) >= 4096:
        _CLASSIC_MENUS.clear()
    _CLASSIC_MENUS[key] = (rs, spells)
    return spells


def classic_post(
    rs: Ruleset, me: DuellistState, post_id: int, rng: Rng, policy: Policy = "random"
) -> TurnPost:
    """One classic post by ``me``: a random legal spell, or (``greedy``) the one with the best
    expected damage (ties broken at random)."""
    spells = _classic_menu(rs, me, policy)
    spell = spells[0] if len(spells) == 1 else rng.choice(spells)
    return TurnPost(me.name, post_id, spell.name, spell_text=spell.name)


def classic_random_post(rs: Ruleset, me: DuellistState, post_id: int, rng: Rng) -> TurnPost:
    """:func:`classic_post` with the random policy (the benchmark's turns)."""
    return classic_post(rs, me, post_id, rng, "random")


def fatigue_spells(rs: FatigueRuleset, me: DuellistState, opp: DuellistState) -> list[Spell]:
    """The spells ``me`` may cast at ``opp`` now without a violation (fatigue)."""
    if any(isinstance(e, NoAttack) for e in me.effects):
        return []
    return [
        s
        for s in _known(rs, me.year)
        if (s.max_casts is None or me.cast_count(s.name) < s.max_casts)
        and (
            rs.house_rule("recast_same_opponent")
            or not _targets_opponent(s)
            or (s.name, opp.name) not in me.spells_used_on
        )
    ]


def fatigue_actions(
    rs: FatigueRuleset, me: DuellistState, spells: Sequence[Spell], role: Role
) -> list[str]:
    """Legal action kinds of ``me`` for this post (``spells``: :func:`fatigue_spells`)."""
    if role == "initiative":
        return ["cast"] if spells else []
    cfg = rs.cfg
    no_dodge = any(isinstance(e, NoDodge) for e in me.effects)
    dodged = me.last_action == "dodge" or (
        cfg.dodge_riposte_counts_as_dodge and me.last_action == "dodge_riposte"
    )
    out = ["cast"] if spells else []
    if not no_dodge and not dodged:
        out.append("dodge")
    riposte_barred = (no_dodge and cfg.no_dodge_bars_riposte) or (
        dodged and cfg.dodge_riposte_counts_as_dodge
    )
    if spells and not riposte_barred:
        out.append("dodge_riposte")
    return out


def fatigue_expected_damage(spell: Spell) -> int:
    """The spell's PV damage before modifiers; a heal counts for its PV (it is a swing of the
    same size), other spells 0."""
    damage = sum(e.amount for e in spell.effects if isinstance(e, PvDamage))
    return damage or sum(e.amount for e in spell.effects if isinstance(e, Heal))


def fatigue_post(
    rs: FatigueRuleset,
    me: DuellistState,
    opp: DuellistState,
    post_id: int,
    role: Role,
    rng: Rng,
    policy: Policy = "random",
) -> TurnPost:
    """One fatigue 1v1 post by ``me`` against ``opp``.

    ``random``: a legal action and spell drawn uniformly, a bet drawn among the allowed ones.
    ``greedy``: always casts (a cast cannot miss by default, and both spells land) the spell
    with the most PV (:func:`fatigue_expected_damage`), dodging only when it cannot cast.
    """
    spells = fatigue_spells(rs, me, opp)
    actions = fatigue_actions(rs, me, spells, role)
    if not actions:
        return TurnPost(me.name, post_id, None)
    if policy == "greedy":
        kind = "cast" if "cast" in actions else actions[0]
        if spells:
            best = max(fatigue_expected_damage(s) for s in spells)
            spells = [s for s in spells if fatigue_expected_damage(s) == best]
    else:
        kind = actions[0] if len(actions) == 1 else rng.choice(actions)
    bets = rs.bets[kind]
    bet = bets[0] if len(bets) == 1 else rng.choice(bets)
    if kind == "dodge":
        return TurnPost(me.name, post_id, None, kind=kind, bet=bet)
    spell = spells[0] if len(spells) == 1 else rng.choice(spells)
    return TurnPost(me.name, post_id, spell.name, spell_text=spell.name, kind=kind, bet=bet)


def fatigue_random_post(
    rs: FatigueRuleset,
    me: DuellistState,
    opp: DuellistState,
    post_id: int,
    role: Role,
    rng: Rng,
) -> TurnPost:
    """:func:`fatigue_post` with the random policy (the benchmark's turns)."""
    return fatigue_post(rs, me, opp, post_id, role, rng, "random")


__all__ = [
    "POLICIES",
    "Policy",
    "Rng",
    "Role",
    "classic_expected_damage",
    "classic_post",
    "classic_random_post",
    "classic_spells",
    "fatigue_actions",
    "fatigue_expected_damage",
    "fatigue_post",
    "fatigue_random_post",
    "fatigue_spells",
]
