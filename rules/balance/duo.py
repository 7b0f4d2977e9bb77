"""Whole two-against-two duels between scripted duellists (issue 26: "Do the same for the 2v2
default (duo.toml and the environments)"): who wins, how often a duel ends, how long it lasts.

Pure, like :mod:`rules.balance.simulate`: the real 2v2 engine (:func:`rules.duo.resolve_duo_step`,
with the trail off), the seeded ``random.Random`` passed in, no board, no database.

A simulated duel: two duos of two duellists of one year each (the table's row duo ``A1 & A2``
against the column duo ``B1 & B2``), one or two magic types drawn per duellist, placed at
random in an environment drawn among those given (RULES.md: "placed at random [D: uniform]").
Each turn the active duellists post in a random order (when all four share a zone: one
initiative per duo first, then the two defenses, two posts per declaration, as the seed
says). Each post is a legal one (:func:`duo_post`): a duellist with a spell waiting on them
defends against its caster, the others take an initiative; the first member of each duo to
post in a turn moves (seed: « un seul duelliste par duo peut effectuer un déplacement par tour,
et [...] ce déplacement est obligatoire »). The scripted duellists ignore creatures, mechanisms
and items: a creature only acts through its ability (an aura hurts who stands in its zone).
A duel ends as the engine says (a duo at 0 PV, three violations) or is closed "by the
referee" at ``max_turns`` turns (the cap).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from rules.balance.policies import (
    _PLAIN_RANDOM,
    GREEDY_STEP_PV,
    Policy,
    Rng,
    _actions,
    _barred,
    _greedy_spells,
    _post,
    drawer,
    fatigue_spells,
    fatigue_total_damage,
)
from rules.balance.simulate import (
    DEFAULT_MAX_TURNS,
    Outcome,
    Run,
    Table,
    _combinations,
    per_cell,
    play_table,
    type_combinations,
)
from rules.balance.stall import STALL_THRESHOLD, Stall
from rules.duo.engine import resolve_duo_step
from rules.duo.environment import Environment, Zone
from rules.duo.opening import new_duo_duel, start_duo
from rules.duo.outcome import DuoPost
from rules.duo.settings import DuoSettings
from rules.duo.state import DuoState
from rules.duo.trusted import LegalPost, TrustedDuo
from rules.errors import RuleError
from rules.fatigue.engine import _targets_opponent
from rules.fatigue.plan import plan_for
from rules.fatigue.settings import FatigueRuleset
from rules.model import DuellistState, TurnPost
from rules.ruleset import Spell

_new = object.__new__
_set = object.__setattr__  # a frozen value's __dict__, set whole (one dict, no copy)

DuoView = DuoState | TrustedDuo
"""What the scripted duellists read: the frozen state, or the simulator's trusted duel."""

NAMES = (("A1", "A2"), ("B1", "B2"))
"""The simulated duellists: the row duo, then the column duo."""


def _allowed_victims(
    state: DuoView, me: str, mate: str, opponents: tuple[str, str],
    members: dict[str, DuellistState],
) -> list[str]:  # fmt: skip
    """Active opponents ``me`` (teammate ``mate``) may target directly now without a
    ``double_target`` (RULES.md: "the two may not both target him directly in the same
    turn"); ``members``: the duel's duellists by name."""
    out = []
    targeted = state.targeted
    for victim in opponents:
        if members[victim].points <= 0:
            continue
        if targeted and (mate, victim) in targeted:
            if isinstance(state, TrustedDuo):  # in_zone's test on the three, no tuple
                where, zone = state.where, state.where[victim]
                other = state._mate[victim]
                lone = (
                    where[me] == zone and members[me].points > 0
                    and where[mate] == zone and members[mate].points > 0
                    and not (where[other] == zone and members[other].points > 0)
                )  # fmt: skip
            else:
                here = state.in_zone(state.zone_of(victim))
                lone = me in here and mate in here and state.teammate(victim) not in here
            if lone or state.all_together():
                continue
        out.append(victim)
    return out


_ZONES: dict[tuple[int, str, tuple[tuple[str, int], ...] | None], tuple[Environment, list[Zone]]]
_ZONES = {}
"""(id(environment), zone left, creatures' PV or None) -> (environment, the zones
:func:`_zones` gives): read once per environment and state of its creatures (an environment
is frozen)."""


def _zones(
    env: Environment, here: str, creatures: tuple[tuple[str, int], ...] | None
) -> list[Zone]:
    """The zones of ``env`` but ``here``; with ``creatures`` (the greedy duellist: each
    creature's PV left), those where no living creature's aura hurts, when there is one."""
    key = (id(env), here, creatures)
    found = _ZONES.get(key)
    if found is not None and found[0] is env:
        return found[1]
    zones = [z for z in env.zones if z.key != here]
    if creatures is not None:
        left = dict(creatures)
        alive = [c for c in env.creatures if left[c.key] > 0]
        hurt = {c.zone for c in alive if c.ability.kind == "aura"}
        zones = [z for z in zones if z.key not in hurt] or zones
    if len(_ZONES) >= 4096:
        _ZONES.clear()
    _ZONES[key] = (env, zones)
    return zones


def duo_post(
    rs: FatigueRuleset,
    state: DuoView,
    me: str,
    post_id: int,
    env: Environment,
    rng: Rng,
    policy: Policy = "greedy",
) -> DuoPost:
    """One legal 2v2 post by ``me`` in ``state``.

    Defense (a spell waits on ``me``): ``greedy`` casts back at its caster the attack spell
    with the most damage (as in 1v1: both spells land), else dodges, else casts at the other
    opponent; ``random`` draws among the legal actions (cast, dodge, dodge_riposte) against
    the caster. Initiative: a cast at an opponent (``greedy``: the spell with the most damage,
    at the opponent it hurts most, the one with fewer PV on a tie; ``random``: any legal
    spell at any opponent), never a forbidden ``double_target``; with no attack spell left
    for an opponent, an attack spell at a creature standing in the zone, else a self spell
    (heal, ward) at oneself, else nothing (the duellist endures: no legal action). The post carries
    the duo's move when nobody of the duo has moved yet this turn. The draws are
    ``rng.choice``'s (:func:`rules.balance.policies.drawer`: the same stream).
    """
    greedy = policy == "greedy"
    below = rng._randbelow if _PLAIN_RANDOM.get(type(rng)) else drawer(rng)  # type: ignore[attr-defined]
    if isinstance(state, TrustedDuo):  # its lookups read directly
        members = state.members
        mate, opponents, here = state._mate[me], state._opp[me], state.where[me]
        duo = state.duos[state._duo[me]]
    else:
        members = {x.name: x for x in state.duel.duellists}
        side = state.duo_of(me)
        duo = state.duos[side]
        mate = duo[1] if duo[0] == me else duo[0]
        opponents, here = state.duos[1 - side], state.zone_of(me)
    mine = members[me]
    movers = state.movers
    if movers and (duo[0] in movers or duo[1] in movers):
        move = None  # their duo already moved this turn
    else:
        zones = _zones(env, here, state.creatures if greedy else None)
        move = (zones[0] if len(zones) == 1 else zones[below(len(zones))]).name  # rng.choice's
    if state.targeted:
        victims = _allowed_victims(state, me, mate, opponents, members)
    else:
        victims = [v for v in opponents if members[v].points > 0]
    book = _BOOKS.get(id(rs))
    if book is None or book.rs is not rs:
        book = _book(rs)
    aimed = book.aimed
    barred = bool(mine.effects) and _barred(mine)

    for p in state.pending:
        if p.target != me:
            continue
        caster = p.attacker  # the first spell waiting on me
        if caster in victims and not barred:
            spells = _attacks(book, rs, greedy, mine, members[caster])
        else:
            spells = ()
        kinds = _actions(rs, mine, bool(spells), "defense")
        if greedy and "cast" in kinds:
            kinds = ("cast",)
        elif greedy and "dodge" in kinds:
            kinds = ("dodge",)
        if kinds:
            kind = kinds[0] if len(kinds) == 1 else kinds[below(len(kinds))]
            if kind == "dodge":
                spells = ()
            elif len(spells) == 1:  # drawn as rng.choice draws, one spell or not
                below(1)
            return _write(rs, me, post_id, kind, spells, caster, move, below)
        break
    options = []
    if not barred:
        for v in victims:
            spells = _attacks(book, rs, greedy, mine, members[v])
            if spells:
                options.append((v, spells))
    if options:
        if greedy and len(options) == 2:  # the most damage, then the fewer PV (two at most)
            (one, first), (two, second) = options
            hurt, other = aimed[first[0].name], aimed[second[0].name]
            if hurt != other:
                options = [options[0] if hurt > other else options[1]]
            else:
                pv_one, pv_two = members[one].points, members[two].points
                if pv_one != pv_two:
                    options = [options[0] if pv_one < pv_two else options[1]]
        victim, spells = options[0] if len(options) == 1 else options[below(len(options))]
        return _write(rs, me, post_id, "cast", spells, victim, move, below)
    if env.creatures:
        left = dict(state.creatures)
        near = [c for c in env.creatures if c.zone == here and left[c.key] > 0]
        if near and not barred:  # a creature of the zone: the engine checks the cast
            spells = _attacks(book, rs, greedy, mine, members[mate])  # against the teammate
            if spells:
                return _write(rs, me, post_id, "cast", spells, near[0].name, move, below)
    choose = _greedy_spells if greedy else fatigue_spells
    selfish = [s for s in choose(rs, mine, mine) if s.name not in aimed]
    if selfish:
        if len(selfish) == 1:  # rng.choice draws even from one
            below(1)
        return _write(rs, me, post_id, "cast", selfish, me, move, below)
    return _legal(_post(me, post_id, None, None, None, None), move)


def _attacks(
    book: _Book, rs: FatigueRuleset, greedy: bool, mine: DuellistState, other: DuellistState
) -> Sequence[Spell]:
    """The spells aimed at an opponent that ``mine`` (under no ``no_attack``) may cast at
    ``other`` now (:func:`_greedy_spells` with ``greedy``, else
    :func:`rules.balance.policies.fatigue_spells`), read once per (policy, year, names spent
    on ``other``) in ``book``."""
    aimed = book.aimed
    if book.limits:  # casts counted: no shared menu
        choose = _greedy_spells if greedy else fatigue_spells
        return tuple([s for s in choose(rs, mine, other) if s.name in aimed])
    used = mine.spells_used_on
    if used:
        name = other.name
        key = (greedy, mine.year, frozenset([u for u, t in used if t == name]))
    else:
        key = (greedy, mine.year, _NONE)
    found = book.attacks.get(key)
    if found is None:
        choose = _greedy_spells if greedy else fatigue_spells
        found = tuple([s for s in choose(rs, mine, other) if s.name in aimed])
        if len(book.attacks) >= 8192:
            book.attacks.clear()
        book.attacks[key] = found
    return found


def _write(
    rs: FatigueRuleset, me: str, post_id: int, kind: str, spells: Sequence[Spell],
    target: str, move: str | None, below: Callable[[int], int],
) -> LegalPost:  # fmt: skip
    """:func:`duo_post`'s post of ``kind`` at ``target``: the spell drawn first among
    ``spells``, then the bet (the order of the draws is the tables')."""
    name = None
    if spells:
        name = (spells[0] if len(spells) == 1 else spells[below(len(spells))]).name
    bets = rs.bets[kind]
    bet = (bets[0] if len(bets) == 1 else bets[below(len(bets))]) if bets else None
    post = _new(TurnPost)
    _set(post, "__dict__", {"duellist": me, "post_id": post_id, "spell": name,
        "spell_text": name, "kind": kind, "bet": bet, "target": target, "before_start": False,
        "dice": None})  # fmt: skip
    out = _new(LegalPost)
    _set(out, "__dict__", {"post": post, "move_to": move, "use_item": None})
    return out


def _legal(post: TurnPost, move: str | None) -> LegalPost:
    """``LegalPost(post, move_to=move)`` without the frozen ``__init__``'s three
    ``__setattr__`` (one per simulated post)."""
    out = _new(LegalPost)
    _set(out, "__dict__", {"post": post, "move_to": move, "use_item": None})
    return out


class _Book:
    """What the scripted duellists read of one spellbook, once (issue 26, the scripted
    duellists' repeated lookups). ``aimed``: its spells aimed at an opponent
    (:func:`_targets_opponent`): name -> the greedy duellist's damage steps
    (:func:`_damage`); ``limits``: a spell has a ``max_casts``; ``attacks``: (greedy, year,
    the caster's reuse memory, opponent) -> the aimed spells of :func:`_greedy_spells` or
    :func:`rules.balance.policies.fatigue_spells` (a caster under no ``no_attack``)."""

    __slots__ = ("rs", "aimed", "limits", "attacks")

    def __init__(self, rs: FatigueRuleset) -> None:
        self.rs = rs
        self.aimed = {s.name: _damage(s) for s in rs.spells if _targets_opponent(s)}
        self.limits = rs.has_cast_limits
        self.attacks: dict[tuple[bool, str, frozenset[str]], tuple[Spell, ...]] = {}


_NONE: frozenset[str] = frozenset()
_BOOKS: dict[int, _Book] = {}
"""id(ruleset) -> its :class:`_Book` (a ruleset is frozen; the book keeps it alive)."""


def _book(rs: FatigueRuleset) -> _Book:
    found = _BOOKS.get(id(rs))
    if found is not None and found.rs is rs:
        return found
    if len(_BOOKS) >= 64:
        _BOOKS.clear()
    found = _BOOKS[id(rs)] = _Book(rs)
    return found


def _damage(spell: Spell) -> int:
    return fatigue_total_damage(spell) // GREEDY_STEP_PV


def _order(state: DuoView, rng: Rng) -> list[str]:
    """This turn's posting order: the active duellists shuffled."""
    order = list(state.active_names())
    below = drawer(rng)  # rng.randint(0, i) draws below(i + 1)
    for i in range(len(order) - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


class _FullDuo:
    """A simulated duel played through the full engine (:func:`rules.duo.resolve_duo_step`,
    trail off), with :class:`rules.duo.trusted.TrustedDuo`'s interface for :func:`play_duo`:
    the equality tests' reference (``tests/duo_play.py``)."""

    def __init__(
        self, state: DuoState, rs: FatigueRuleset, env: Environment, settings: DuoSettings,
        draw: Callable[[str, int], int],
    ) -> None:  # fmt: skip
        self.state, self.rs, self.env, self.cfg, self.draw = state, rs, env, settings, draw

    @property
    def finished(self) -> bool:
        return self.state.duel.finished

    def step(self, posts: Sequence[DuoPost], dice: dict[int, tuple[int]]) -> bool:
        out = resolve_duo_step(
            self.state, posts, dice, ruleset=self.rs, env=self.env, settings=self.cfg,
            draw=self.draw, trail=False,
        )  # fmt: skip
        self.state = out.state
        return out.turn_closed

    def freeze(self) -> DuoState:
        return self.state


def play_duo(
    rs: FatigueRuleset,
    env: Environment,
    settings: DuoSettings,
    sides: Sequence[Sequence[tuple[str, tuple[str, ...]]]],
    policies: Sequence[Policy],
    rng: Rng,
    max_turns: int = DEFAULT_MAX_TURNS,
    *,
    trusted: bool = True,
) -> tuple[DuoState, int]:
    """One 2v2 duel; ``sides`` are two duos of two (year, magic types) for ``A1, A2`` and
    ``B1, B2``; ``policies`` one per duellist in that order. Returns (final state, turns).

    ``trusted`` (the simulator's): the steps are :class:`rules.duo.trusted.TrustedDuo`'s
    (the full engine's outcomes, faster; the full engine for what it does not cover); False,
    or a spellbook the 1v1 fast path does not run (spells with a ``max_casts``: no
    :func:`rules.fatigue.plan.plan_for` plan): every step through
    :func:`rules.duo.resolve_duo_step` (the same duel, the same draws)."""

    def draw(label: str, n: int) -> int:
        return rng.randint(0, n - 1) if n > 1 else 0

    duos = [[(NAMES[i][j], y, t) for j, (y, t) in enumerate(duo)] for i, duo in enumerate(sides)]
    start = start_duo(new_duo_duel(rs, duos, env, draw))
    run: TrustedDuo | _FullDuo
    view: DuoView
    if trusted and plan_for(rs) is not None:
        run = view = TrustedDuo(start, rs, env, settings, draw)
    else:
        run = _FullDuo(start, rs, env, settings, draw)
    policy = dict(zip((*NAMES[0], *NAMES[1]), policies, strict=True))
    pid = 0
    turns = 0
    below = drawer(rng)  # rng.randint(1, 6) draws 1 + below(6)
    trusted = isinstance(run, TrustedDuo)
    together = settings.posts_per_declaration_together
    while not run.finished and turns < max_turns:
        if not trusted:
            view = run.freeze()
        order = _order(view, rng)
        closed = False
        for _ in range(4 * len(order)):  # each step takes a post (a held one is re-posted)
            if closed or run.finished:
                break
            if trusted:  # its lookups read directly
                members, posted = view.members, view.posted  # type: ignore[union-attr]
                waiting = [n for n in order if n not in posted and members[n].points > 0]
            else:
                view = run.freeze()
                up = view.active_names()
                posted = view.posted
                waiting = [n for n in order if n not in posted and n in up]
            if not waiting:
                break
            take = together if together > 1 and view.all_together() else 1
            batch = [waiting[0]]
            if take > 1:
                first = view.duo_of(waiting[0])
                initiative = len(posted) < take
                rest = [n for n in waiting[1:] if not initiative or view.duo_of(n) != first]
                batch += rest[: take - 1]
            posts = []
            for who in batch:
                pid += 1
                posts.append(duo_post(rs, view, who, pid, env, rng, policy[who]))
            dice = {}
            for dp in posts:
                dice[dp.post.post_id] = (1 + below(6),)
            closed = run.step(posts, dice)
        turns += 1
    return run.freeze(), turns


def _result(state: DuoState) -> str:
    if not state.duel.finished:
        return "capped"
    if state.duel.draw:
        return "draw"
    if not state.winners:
        return "capped"
    return "win" if NAMES[0][0] in state.winners else "loss"


def duo_duel(
    rs: FatigueRuleset, envs: Sequence[Environment], settings: DuoSettings,
    policies: Sequence[Policy], max_turns: int, row: str, col: str, rng: Rng,
) -> Outcome:  # fmt: skip
    """One duel of :func:`simulate_duo`'s cell (duo year ``row``, duo year ``col``): magic
    types per duellist, policies, environment, drawn from ``rng``, then the duel."""
    types = _combinations(rs)
    sides = [[(y, rng.choice(types)) for _ in range(2)] for y in (row, col)]
    pol = [rng.choice(policies) for _ in range(4)]
    env = envs[0] if len(envs) == 1 else rng.choice(envs)
    state, turns = play_duo(rs, env, settings, sides, pol, rng, max_turns)
    return _result(state), turns


def simulate_duo(
    rs: FatigueRuleset,
    envs: Sequence[Environment],
    settings: DuoSettings,
    *,
    duels: int,
    rng: Rng | None = None,
    policies: Sequence[Policy] = ("greedy",),
    max_turns: int = DEFAULT_MAX_TURNS,
    years: Sequence[str] | None = None,
    rng_of: Callable[[int], Rng] | None = None,
    run: Run | None = None,
) -> Table:
    """Duo year against duo year: ``duels`` 2v2 duels spread evenly over every (row, column)
    pair of years, each duo two duellists of that year (magic types drawn per duellist among
    the :func:`rules.balance.type_combinations`), each duel in an environment drawn from
    ``envs``, each duellist's policy drawn from ``policies`` (default: greedy for all four).
    The draws as in :func:`rules.balance.simulate` (``rng``, ``rng_of`` or ``run``).

    Returns a :class:`rules.balance.Table` of kind ``"duo years"`` (cells: the row duo's
    wins). Raises RuleError (``"simulate"``) when ``duels`` is smaller than the number of
    cells or ``envs`` is empty."""
    keys = tuple(years or rs.starting_points)
    per = per_cell(keys, duels)
    if not envs:
        raise RuleError("simulate", "at least one environment")
    duel = partial(duo_duel, rs, tuple(envs), settings, tuple(policies), max_turns)
    cells = play_table(duel, keys, per, rng, rng_of, run)
    return Table(f"{rs.name} 2v2", "duo years", keys, keys, cells)


DUO_STALL_DUELS = 12
"""2v2 duels per pairing in :func:`duo_stall_warnings` (8 years: 180 duels, about a second
or two)."""


def duo_stall_warnings(
    rs: FatigueRuleset,
    envs: Sequence[Environment],
    settings: DuoSettings,
    rng: Rng,
    *,
    duels: int = DUO_STALL_DUELS,
    threshold: float = STALL_THRESHOLD,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> list[Stall]:
    """:func:`rules.balance.stall_warnings` for 2v2 duels (issue 26: "Do the same for the
    2v2 default"): the pairings (a duo of each year against a duo of that year and against a
    duo of the year above) whose share of simulated 2v2 duels (:func:`play_duo`, greedy
    duellists, an environment of ``envs`` drawn per duel) closed at the turn cap with no
    winner is at least ``threshold``, worst first; each :class:`Stall` has ``duo=True``."""
    years = list(rs.starting_points)
    pairs = [(y, y) for y in years] + list(zip(years[1:], years[:-1], strict=True))
    types = type_combinations(rs)
    found = []
    for row, col in pairs:
        capped = 0
        for _ in range(duels):
            sides = [[(y, rng.choice(types)) for _ in range(2)] for y in (row, col)]
            env = envs[0] if len(envs) == 1 else rng.choice(envs)
            state, _turns = play_duo(rs, env, settings, sides, ("greedy",) * 4, rng, max_turns)
            capped += _result(state) == "capped"
        if duels and capped / duels >= threshold:
            found.append(Stall(row, col, duels, capped, max_turns, duo=True))
    return sorted(found, key=lambda s: -s.share)


__all__ = [
    "DUO_STALL_DUELS",
    "NAMES",
    "duo_duel",
    "duo_post",
    "duo_stall_warnings",
    "play_duo",
    "simulate_duo",
]
