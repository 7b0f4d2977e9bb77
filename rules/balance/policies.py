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

from collections.abc import Callable, Sequence
from typing import Literal, Protocol, TypeVar

from rules.effects import ExtraDamage, NoAttack
from rules.fatigue.effects import DamageOverTime, Heal, NoDodge, PvDamage
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

GREEDY_STEP_PV = 5
"""The greedy fatigue duellist ranks spells by their whole damage in steps of this many PV
(a player does not weigh single PV: 17 and 19 PV are "as strong"); ties are broken at random,
so two greedy duellists of one year do not play the very same duel (issue 26: mirror duels
of identical duellists would all be draws)."""


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
    """The spells ``me`` may cast at ``opp`` now without a violation (fatigue), in spellbook
    order."""
    if me.effects and _barred(me):
        return []
    used = me.spells_used_on
    menu, _, (spells, banned_at), _ = _fatigue_menu(rs, me.year)
    if not used and not rs.has_cast_limits:
        return list(spells)
    if not rs.has_cast_limits:  # the reuse ban only: the names spent on this opponent
        name = opp.name
        spent = [spell for spell, target in used if target == name]
        if not spent:
            return list(spells)
        if banned_at:  # one menu entry per banned name: drop the spent ones by place
            places = [banned_at[n] for n in set(spent) if n in banned_at]
            places.sort(reverse=True)
            out = list(spells)
            for i in places:
                del out[i]
            return out
        return [m[0] for m in menu if not (m[1] and m[2] in spent)]
    return [m[0] for m in menu if _castable(m, me, opp.name, used)]


def _barred(me: DuellistState) -> bool:
    """True when a ``no_attack`` effect runs on ``me``."""
    for e in me.effects:
        if isinstance(e, NoAttack):
            return True
    return False


def _castable(
    m: tuple[Spell, bool, str, int], me: DuellistState, opponent: str, used: object
) -> bool:
    """A menu entry ``me`` may cast at ``opponent``: within its ``max_casts`` and, for a spell
    banned once used (the reuse ban, unless the club's named house rule lifts it), not yet
    cast at that opponent."""
    spell = m[0]
    if spell.max_casts is not None and me.cast_count(m[2]) >= spell.max_casts:
        return False
    return not m[1] or (m[2], opponent) not in used  # type: ignore[operator]


# (ruleset id, year) -> (ruleset, known spells as (spell, banned once used, name, damage) in
# spellbook order, the same grouped by expected damage, best first): read once per ruleset.
# The third part: the menu's spells, and each spell banned once used by its name -> its place.
# Each group comes with the names of its entries banned once used, whether all of them are
# (once all are spent on an opponent, the group has nothing left against them), and its
# spells (all legal while none of those names is spent).
_Menu = tuple[tuple[Spell, bool, str, int], ...]
_Groups = tuple[tuple[_Menu, frozenset[str], bool, tuple[Spell, ...]], ...]
_Book = tuple[_Menu, _Groups, tuple[tuple[Spell, ...], dict[str, int]], bool]
# ruleset id -> (ruleset, year -> book): two plain lookups, no key tuple to build and hash
_FATIGUE_MENUS: dict[int, tuple[Ruleset, dict[str, _Book]]] = {}


def _fatigue_menu(rs: FatigueRuleset, year: str) -> _Book:
    found = _FATIGUE_MENUS.get(id(rs))
    if found is not None and found[0] is rs:
        known = found[1].get(year)
        if known is not None:
            return known
    menu = tuple(
        (
            s,
            not rs.house_rule("recast_same_opponent") and _targets_opponent(s),
            s.name,
            fatigue_expected_damage(s),
        )
        for s in _known(rs, year)
    )
    # greedy: the attack spells by PV damage, best first, then the self spells by PV healed
    # (a heal is cast only with no attack spell left: healing while an attack remains would
    # stall the duel), then the rest
    def rank(m: tuple[Spell, bool, str, int]) -> tuple[int, int]:
        total = fatigue_total_damage(m[0])
        return (0, -(total // GREEDY_STEP_PV)) if total else (1, -m[3]) if m[3] else (2, 0)

    ranks = sorted({rank(m) for m in menu})
    grouped = [tuple(m for m in menu if rank(m) == r) for r in ranks]
    groups = tuple(
        (g, frozenset(m[2] for m in g if m[1]), all(m[1] for m in g), tuple(m[0] for m in g))
        for g in grouped
    )
    spells = tuple(m[0] for m in menu)
    banned_at: dict[str, int] = {}
    for i, m in enumerate(menu):
        if m[1]:
            banned_at.setdefault(m[2], i)
    one_each = len(banned_at) == sum(1 for m in menu if m[1])
    # the fourth part: rs.has_cast_limits (a cached_property: an attribute read CPython 3.11
    # does not specialize, once per post otherwise)
    book: _Book = (menu, groups, (spells, banned_at if one_each else {}), rs.has_cast_limits)
    if found is None or found[0] is not rs:
        if len(_FATIGUE_MENUS) >= 64:
            _FATIGUE_MENUS.clear()
        found = _FATIGUE_MENUS[id(rs)] = (rs, {})
    found[1][year] = book
    return book


def _greedy_spells(rs: FatigueRuleset, me: DuellistState, opp: DuellistState) -> list[Spell]:
    """The legal spells of the best expected damage (:func:`fatigue_expected_damage`), in
    spellbook order: :func:`fatigue_spells` filtered to its best."""
    if me.effects and _barred(me):
        return []
    used = me.spells_used_on
    book = _fatigue_menu(rs, me.year)
    groups = book[1]
    if not book[3]:  # the reuse ban only: the names spent on this opponent
        # loops, not comprehensions: each of those is a function made and called per post
        name = opp.name
        spent: set[str] = set()
        for spell, target in used:
            if target == name:
                spent.add(spell)
        for group, banned, all_banned, spells in groups:
            if banned.isdisjoint(spent):  # none of it spent
                return list(spells)
            if all_banned and banned <= spent:  # all of it spent
                continue
            legal = []
            for m in group:
                if not (m[1] and m[2] in spent):
                    legal.append(m[0])
            if legal:
                return legal
        return []
    name = opp.name
    for group, *_ in groups:
        legal = [m[0] for m in group if _castable(m, me, name, used)]
        if legal:
            return legal
    return []


def fatigue_actions(
    rs: FatigueRuleset, me: DuellistState, spells: Sequence[Spell], role: Role
) -> list[str]:
    """Legal action kinds of ``me`` for this post (``spells``: :func:`fatigue_spells`)."""
    return list(_actions(rs, me, bool(spells), role))


_ACTIONS: dict[tuple[int, str, bool, bool, str | None], tuple[Ruleset, tuple[str, ...]]] = {}
"""(ruleset id, role, a spell is legal, under ``no_dodge``, last action) -> (ruleset, the
legal action kinds): :func:`_actions`, read once per ruleset and case."""


def _actions(rs: FatigueRuleset, me: DuellistState, castable: bool, role: Role) -> tuple[str, ...]:
    """:func:`fatigue_actions` as a shared tuple (``castable``: a spell is legal)."""
    no_dodge = False
    for e in me.effects:  # a loop: half the time of any() over a generator
        if isinstance(e, NoDodge):
            no_dodge = True
            break
    key = (id(rs), role, castable, no_dodge, me.last_action)
    found = _ACTIONS.get(key)
    if found is not None and found[0] is rs:
        return found[1]
    out = ["cast"] if castable else []
    if role != "initiative":
        cfg = rs.cfg
        dodged = me.last_action == "dodge" or (
            cfg.dodge_riposte_counts_as_dodge and me.last_action == "dodge_riposte"
        )
        if not no_dodge and not dodged:
            out.append("dodge")
        riposte_barred = (no_dodge and cfg.no_dodge_bars_riposte) or (
            dodged and cfg.dodge_riposte_counts_as_dodge
        )
        if castable and not riposte_barred:
            out.append("dodge_riposte")
    if len(_ACTIONS) >= 1024:
        _ACTIONS.clear()
    _ACTIONS[key] = (rs, tuple(out))
    return _ACTIONS[key][1]


def fatigue_expected_damage(spell: Spell) -> int:
    """The spell's PV damage before modifiers; a heal counts for its PV (it is a swing of the
    same size), other spells 0."""
    damage = sum(e.amount for e in spell.effects if isinstance(e, PvDamage))
    return damage or sum(e.amount for e in spell.effects if isinstance(e, Heal))


def fatigue_total_damage(spell: Spell) -> int:
    """The PV a fatigue spell takes from its target before modifiers, its lasting damage
    included (``damage_over_time``: amount x duration); 0 for a spell that deals none."""
    return sum(e.amount for e in spell.effects if isinstance(e, PvDamage)) + sum(
        e.amount * e.duration for e in spell.effects if isinstance(e, DamageOverTime)
    )


def fatigue_post(
    rs: FatigueRuleset,
    me: DuellistState,
    opp: DuellistState,
    post_id: int,
    role: Role,
    rng: Rng,
    policy: Policy = "random",
    below: Callable[[int], int] | None = None,
) -> TurnPost:
    """One fatigue 1v1 post by ``me`` against ``opp``.

    ``random``: a legal action and spell drawn uniformly, a bet drawn among the allowed ones.
    ``greedy``: always casts (a cast cannot miss by default, and both spells land) the attack
    spell with the most PV damage (:func:`fatigue_total_damage`, in steps of
    :data:`GREEDY_STEP_PV`; ties broken at random); with none left, the heal that restores
    most, then any other self spell; dodging only when it cannot cast. The draws are those of
    ``rng.choice`` (the same stream, drawn without its call overhead, :func:`drawer`;
    ``below``: ``drawer(rng)`` already looked up, as a duel's loop passes it).
    """
    if below is None:
        below = drawer(rng)
    greedy = policy == "greedy"
    if not greedy:
        book = _fatigue_menu(rs, me.year)
        if not book[3]:
            return _random_post(rs, me, opp, post_id, role, below, book)
    spells = _greedy_spells(rs, me, opp) if greedy else fatigue_spells(rs, me, opp)
    if greedy and spells:
        kind = "cast"
    else:
        actions = _actions(rs, me, bool(spells), role)
        if not actions:
            return _post(me.name, post_id, None, None, None, None)
        kind = actions[0] if greedy or len(actions) == 1 else actions[below(len(actions))]
    bets = rs.bets[kind]
    bet = bets[0] if len(bets) == 1 else bets[below(len(bets))]
    if kind == "dodge":
        return _post(me.name, post_id, None, None, kind, bet)
    spell = spells[0] if len(spells) == 1 else spells[below(len(spells))]
    return _post(me.name, post_id, spell.name, spell.name, kind, bet)


def _random_post(
    rs: FatigueRuleset, me: DuellistState, opp: DuellistState, post_id: int, role: Role,
    below: Callable[[int], int], book: _Book,
) -> TurnPost:  # fmt: skip
    """:func:`fatigue_post` of the random policy for a book without ``max_casts``: the same
    draws, without building the legal spell list. The spells spent on ``opp`` are skipped by
    their places in the year's menu (each banned name has one place): the ``i``-th legal
    spell is the menu's ``i``-th once the spent places before it are stepped over."""
    spells, banned_at = book[2]
    places: list[int] = []
    if me.effects and _barred(me):
        spells = ()
    elif me.spells_used_on:
        if banned_at:
            name = opp.name
            spent: set[int] = set()  # a name spent twice is one place: the set keeps it once
            for spell, target in me.spells_used_on:
                if target == name:
                    place = banned_at.get(spell)
                    if place is not None:  # else a name not banned once used
                        spent.add(place)
            if spent:
                places = sorted(spent)
        else:
            spells = tuple(fatigue_spells(rs, me, opp))
    legal = len(spells) - len(places)
    actions = _actions(rs, me, legal > 0, role)
    if not actions:
        return _post(me.name, post_id, None, None, None, None)
    kind = actions[0] if len(actions) == 1 else actions[below(len(actions))]
    bets = rs.bets[kind]
    bet = bets[0] if len(bets) == 1 else bets[below(len(bets))]
    if kind == "dodge":
        return _post(me.name, post_id, None, None, kind, bet)
    i = 0 if legal == 1 else below(legal)
    for p in places:
        if p > i:
            break
        i += 1
    spell = spells[i].name
    return _post(me.name, post_id, spell, spell, kind, bet)


def drawer(rng: Rng) -> Callable[[int], int]:
    """A function ``n -> 0..n-1`` drawing what ``rng.choice`` of a length-``n`` sequence
    draws, and ``1 + drawer(rng)(6)`` what ``rng.randint(1, 6)`` draws: for CPython's
    ``random.Random`` (and subclasses keeping its ``choice`` and ``randint``) that is its own
    ``_randbelow``, so the stream and the tables of a seed stay the same without the calls'
    overhead; for another :class:`Rng`, ``rng.choice(range(n))``. (``rules`` may not import
    ``random``: the class is recognised by its module and name.)"""
    cls = type(rng)
    plain = _PLAIN_RANDOM.get(cls)
    if plain is None:
        base = next(
            (c for c in cls.__mro__ if c.__module__ == "random" and c.__name__ == "Random"), None
        )
        plain = _PLAIN_RANDOM[cls] = 0
        if base is not None and all(
            getattr(cls, m, None) is getattr(base, m, None)
            for m in ("choice", "randint", "randrange", "_randbelow")
        ):
            own = getattr(base, "_randbelow_with_getrandbits", 0)
            bits = base._randbelow is own  # type: ignore[attr-defined]
            plain = _PLAIN_RANDOM[cls] = 2 if bits else 1
    if plain == 2:  # that _randbelow without its bound-method lookup per draw
        getrandbits = rng.getrandbits  # type: ignore[attr-defined]

        def below(n: int) -> int:
            k = n.bit_length()
            r: int = getrandbits(k)
            while r >= n:
                r = getrandbits(k)
            return r

        return below
    if plain:
        return rng._randbelow  # type: ignore[attr-defined,no-any-return]
    return lambda n: rng.choice(range(n))


_new = object.__new__
_set = object.__setattr__  # a frozen post's __dict__, set whole (one dict, no copy)

_PLAIN_RANDOM: dict[type, int] = {}
"""Rng class -> 1 when it draws ``choice`` and ``randint`` as ``random.Random`` does, 2 when
that is also ``random.Random._randbelow_with_getrandbits`` (CPython's), else 0."""


def _post(
    name: str, post_id: int, spell: str | None, text: str | None, kind: str | None,
    bet: tuple[int, ...] | None,
) -> TurnPost:  # fmt: skip
    """``TurnPost(name, post_id, spell, spell_text=text, kind=kind, bet=bet)``, built without
    the frozen ``__init__`` round trip (the simulator writes tens of thousands)."""
    post = _new(TurnPost)
    _set(post, "__dict__", {"duellist": name, "post_id": post_id, "spell": spell,
        "spell_text": text, "kind": kind, "bet": bet, "target": None, "before_start": False,
        "dice": None})  # fmt: skip
    return post


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
    "fatigue_total_damage",
]
