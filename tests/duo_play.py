"""Seeded simulated 2v2 duels for the engine's equality tests (issue 26): the balance
simulator's loop (:func:`rules.balance.duo.play_duo`) with every step's outcome recorded, and a
share of the posts replaced by odd ones a player could write (unknown spell, no or two
targets, a dodge with nothing to dodge, a creature, a mechanism, an item, a bad bet, a move),
so the violations and the void paths are reached too."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import rules.balance.duo as sim
from rules import ruleset_path
from rules.balance.simulate import type_combinations
from rules.duo import DuoOutcome, DuoPost, load_duo_settings, load_environment, resolve_duo_step
from rules.duo.trusted import TrustedDuo
from rules.fatigue import load_fatigue_ruleset
from rules.model import TurnPost

DATA = ruleset_path("fatigue").parent
SHIPPED = load_fatigue_ruleset((DATA / "fatigue.toml").read_text(encoding="utf-8"))
SEED_TESTS = load_fatigue_ruleset(
    (Path(__file__).resolve().parent / "fixtures" / "fatigue_seed_tests.toml").read_text(
        encoding="utf-8"
    )
)
SETTINGS = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))
ENVS = [
    load_environment(p.read_text(encoding="utf-8"))
    for p in sorted((DATA / "environments").glob("*.toml"))
]


def _odd_post(rs: Any, state: Any, me: str, post_id: int, env: Any, rng: random.Random) -> DuoPost:
    """A post a player could write that the scripted duellists never do."""
    spells = [s.name for s in rs.spells]
    targets = [
        *state.names(), me, "", "A1 et B1",
        *(c.name for c in env.creatures), *(m.name for m in env.mechanisms),
        *(i.name for i in env.items), "la porte",
    ]  # fmt: skip
    kind = rng.choice((None, "cast", "cast", "dodge", "dodge_riposte"))
    spell = rng.choice([*spells, "Avada Bidule", None]) if kind != "dodge" else None
    text = spell
    if spell == "Avada Bidule":  # read by the parser as no known spell
        spell = None
    bet = rng.choice((None, (1,), (6,), (2, 3), (1, 2, 3), (4, 5, 6), (1, 2, 3, 4)))
    move = rng.choice([None, *(z.name for z in env.zones)])
    post = TurnPost(me, post_id, spell, spell_text=text, kind=kind, bet=bet,
                    target=rng.choice(targets) or None)  # fmt: skip
    return DuoPost(post, move_to=move)


@contextmanager
def _odd_posts(odd: random.Random, share: float) -> Iterator[None]:
    """Within the block, ``share`` of :func:`rules.balance.duo.play_duo`'s posts are odd ones
    (drawn from ``odd``; plain :class:`DuoPost`, not the scripted duellists' ``LegalPost``)."""
    post = sim.duo_post

    def maybe_odd(rs: Any, state: Any, me: str, post_id: int, env: Any, rng: Any,
                  policy: Any = "greedy") -> DuoPost:  # fmt: skip
        if odd.random() < share:
            return _odd_post(rs, state, me, post_id, env, odd)
        return post(rs, state, me, post_id, env, rng, policy)

    sim.duo_post = maybe_odd  # type: ignore[assignment]
    try:
        yield
    finally:
        sim.duo_post = post


@contextmanager
def _recorded(
    trail: bool, out: list[DuoOutcome], odd: random.Random, share: float
) -> Iterator[None]:
    """Within the block, :func:`rules.balance.duo.play_duo` (the full engine) records every
    step's outcome (computed with ``trail``) and ``share`` of the posts are odd ones (drawn
    from ``odd``)."""
    step = sim.resolve_duo_step

    def resolve(*args: Any, **kw: Any) -> DuoOutcome:
        kw["trail"] = trail
        result = step(*args, **kw)
        out.append(result)
        return result

    sim.resolve_duo_step = resolve  # type: ignore[assignment]
    try:
        with _odd_posts(odd, share):
            yield
    finally:
        sim.resolve_duo_step = step


def _duels(rng: random.Random, duels: int, policies: Sequence[str], trusted: bool) -> None:
    """``duels`` seeded 2v2 duels of :func:`rules.balance.duo.play_duo`: spellbooks, years,
    magic types, policies and environments drawn from ``rng``; ``trusted``: the simulator's
    trusted step, else the full engine at every step."""
    for i in range(duels):
        rs = SHIPPED if i % 2 == 0 else SEED_TESTS
        years = list(rs.starting_points)
        types = type_combinations(rs)
        sides = [[(rng.choice(years), rng.choice(types)) for _ in range(2)] for _ in range(2)]
        drawn = [rng.choice(policies) for _ in range(4)]
        env = ENVS[i % len(ENVS)]
        sim.play_duo(rs, env, SETTINGS, sides, drawn, rng, max_turns=30,  # type: ignore[arg-type]
                     trusted=trusted)  # fmt: skip


def duo_outcomes(
    seed: int, duels: int, trail: bool, odd_share: float = 1 / 6,
    policies: Sequence[str] = ("greedy", "random"),
) -> list[DuoOutcome]:  # fmt: skip
    """Every step outcome of ``duels`` seeded 2v2 duels: spellbooks, years, magic types,
    policies and environments drawn from ``seed``, ``odd_share`` of the posts odd ones."""
    rng, odd = random.Random(seed), random.Random(seed + 1)
    out: list[DuoOutcome] = []
    with _recorded(trail, out, odd, odd_share):
        _duels(rng, duels, policies, trusted=False)
    return out


class _CheckedDuo(TrustedDuo):
    """:class:`TrustedDuo` whose every step it takes is also resolved by the full engine on
    the frozen state before it, and must give the same state, turn close and end."""

    counts: dict[str, int] = {}

    def step(self, posts: Sequence[DuoPost], dice: Mapping[int, Sequence[int]]) -> bool:
        before, fell = self.freeze(), self.fallbacks
        closed = super().step(posts, dice)
        if self.fallbacks != fell:
            self.counts["fallback"] += 1
            return closed
        full = resolve_duo_step(before, posts, dice, ruleset=self.rs, env=self.env,
                                settings=self.cfg, draw=self.draw, trail=False)  # fmt: skip
        after = self.freeze()
        assert after == full.state, (before, posts, dice)
        assert (closed, self.finished, self.winners, self.losers) == (
            full.turn_closed, full.finished, full.winners, full.losers,
        )  # fmt: skip
        self.counts["compared"] += 1
        self.counts["closed"] += closed
        self.counts["finished"] += self.finished
        return closed


def trusted_against_full(
    seed: int, duels: int, odd_share: float = 0.0,
    policies: Sequence[str] = ("greedy", "random"),
) -> dict[str, int]:  # fmt: skip
    """Play ``duels`` seeded 2v2 duels (as :func:`duo_outcomes`, ``odd_share`` of the posts odd
    ones) through the simulator's trusted step, each step it takes compared with
    :func:`rules.duo.resolve_duo_step`'s; returns the counts (``compared``, ``fallback``: the
    steps the full engine resolved instead, ``closed``, ``finished``)."""
    rng, odd = random.Random(seed), random.Random(seed + 1)
    counts = dict.fromkeys(("compared", "fallback", "closed", "finished"), 0)
    checked = type("CheckedDuo", (_CheckedDuo,), {"counts": counts})
    real = sim.TrustedDuo
    sim.TrustedDuo = checked  # type: ignore[misc]
    try:
        with _odd_posts(odd, odd_share):
            _duels(rng, duels, policies, trusted=True)
    finally:
        sim.TrustedDuo = real  # type: ignore[misc]
    return counts
