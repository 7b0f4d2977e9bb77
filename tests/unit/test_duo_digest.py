"""2v2 outcomes of many seeded simulated duels stay exactly what the engine gave before the
speed work of issue 26 ("make the 2v2 step fast on the simulate path without changing any
outcome: the same seeds give the same results").

Each duel is played by the balance simulator's loop (:func:`rules.balance.duo.play_duo`:
greedy and random legal duellists, the shipped spellbook and the spellbook of the golden
tests, every shipped environment), with one post in six replaced by an odd one (unknown
spell, no or two targets, a dodge with nothing to dodge, a creature, a mechanism, an item,
a move alone, a bad bet), so the violations and the void paths are reached too. Every step's
whole :class:`rules.duo.DuoOutcome` (state, attacks, violations, events, trail, dice, held)
goes into the digest; with the trail off, the same outcomes without the trail.

The digests were computed with the engine as it stood before that work (commit f2e0db2); a
deliberate rule change must regenerate them (``PYTHONPATH=. python
tests/unit/test_duo_digest.py``) and say so in its commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import rules.balance.duo as sim
from rules import ruleset_path
from rules.balance.simulate import type_combinations
from rules.duo import DuoOutcome, DuoPost, load_duo_settings, load_environment
from rules.fatigue import load_fatigue_ruleset
from rules.model import TurnPost

DATA = ruleset_path("fatigue").parent
SHIPPED = load_fatigue_ruleset((DATA / "fatigue.toml").read_text(encoding="utf-8"))
SEED_TESTS = load_fatigue_ruleset(
    (Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml").read_text(
        encoding="utf-8"
    )
)
SETTINGS = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))
ENVS = [
    load_environment(p.read_text(encoding="utf-8"))
    for p in sorted((DATA / "environments").glob("*.toml"))
]

GOLDEN = {
    "trail": "87f4122ca3e34f3a955066b25bc2c76f1cc802dc659f32fd86f4c9d62a3bfb34",
    "no_trail": "ec8107ed2f73b7cf72088806a6eec61deb25dab14ab1f1dd49e48f49f874d714",
}


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
def _recorded(trail: bool, out: list[DuoOutcome], odd: random.Random) -> Iterator[None]:
    """Within the block, :func:`rules.balance.duo.play_duo` records every step's outcome
    (computed with ``trail``) and one post in six is an odd one (drawn from ``odd``)."""
    step, post = sim.resolve_duo_step, sim.duo_post

    def resolve(*args: Any, **kw: Any) -> DuoOutcome:
        kw["trail"] = trail
        result = step(*args, **kw)
        out.append(result)
        return result

    def maybe_odd(rs: Any, state: Any, me: str, post_id: int, env: Any, rng: Any,
                  policy: Any = "greedy") -> DuoPost:  # fmt: skip
        if odd.random() < 1 / 6:
            return _odd_post(rs, state, me, post_id, env, odd)
        return post(rs, state, me, post_id, env, rng, policy)

    sim.resolve_duo_step, sim.duo_post = resolve, maybe_odd  # type: ignore[assignment]
    try:
        yield
    finally:
        sim.resolve_duo_step, sim.duo_post = step, post  # type: ignore[assignment]


def duo_outcomes(seed: int, duels: int, trail: bool) -> list[DuoOutcome]:
    """Every step outcome of ``duels`` seeded 2v2 duels (module doc)."""
    rng, odd = random.Random(seed), random.Random(seed + 1)
    out: list[DuoOutcome] = []
    with _recorded(trail, out, odd):
        for i in range(duels):
            rs = SHIPPED if i % 2 == 0 else SEED_TESTS
            years = list(rs.starting_points)
            types = type_combinations(rs)
            sides = [[(rng.choice(years), rng.choice(types)) for _ in range(2)] for _ in range(2)]
            policies = [rng.choice(("greedy", "random")) for _ in range(4)]
            env = ENVS[i % len(ENVS)]
            sim.play_duo(rs, env, SETTINGS, sides, policies, rng, max_turns=30)  # type: ignore[arg-type]
    return out


def _dump(outcome: DuoOutcome, trail: bool) -> dict[str, Any]:
    data = asdict(outcome)
    data["dice"] = sorted(data["dice"].items())
    if not trail:
        data.pop("trail")
    return data


def _digest(outcomes: list[DuoOutcome], trail: bool) -> str:
    h = hashlib.sha256()
    for o in outcomes:
        h.update(json.dumps(_dump(o, trail), sort_keys=True, ensure_ascii=False,
                            default=repr).encode())  # fmt: skip
    return h.hexdigest()


def digests() -> dict[str, str]:
    """The two digests (with the trail, without it)."""
    return {
        "trail": _digest(duo_outcomes(26, 120, True), True),
        "no_trail": _digest(duo_outcomes(26, 120, False), False),
    }


def test_seeded_2v2_duels_give_the_golden_outcomes_and_trails() -> None:
    outcomes = duo_outcomes(26, 120, True)
    # the generator reaches the ends, the violations and the events it can
    assert sum(o.finished for o in outcomes) >= 60
    assert len({v.rule for o in outcomes for v in o.violations}) >= 8
    assert len({e.kind for o in outcomes for e in o.events}) >= 15
    assert _digest(outcomes, True) == GOLDEN["trail"]


def test_without_the_trail_the_2v2_outcomes_are_the_same() -> None:
    outcomes = duo_outcomes(26, 120, False)
    assert all(not o.trail for o in outcomes)
    assert _digest(outcomes, False) == GOLDEN["no_trail"]


if __name__ == "__main__":
    print(json.dumps(digests(), indent=4))
