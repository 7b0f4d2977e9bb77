"""Outcomes (and trails) of many seeded random turns stay exactly what the engines gave before
the speed work of issue 17 ("Outcomes stay identical, and so does the rule trail when it is
asked for").

The digests below were computed with the engines as they stood before that work (commit
67740d0); any change to an outcome, its trail, or the state it carries changes them. A
deliberate rule change must regenerate them
(``PYTHONPATH=. python tests/unit/test_rules_golden_digest.py``) and say so in its commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

from rules import (
    DuelState,
    TurnOutcome,
    TurnPost,
    new_duel,
    parse_ruleset,
    resolve_turn,
    ruleset_path,
    start_duel,
)
from rules.fatigue import load_fatigue_ruleset, new_fatigue_duel, resolve_fatigue_step

CLASSIC = parse_ruleset(ruleset_path("classic").read_text(encoding="utf-8"))
SEED_TESTS_RULESET = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
"""The spellbook these hand-computed duels were written with (issue 26: the shipped one changed)."""
FATIGUE = load_fatigue_ruleset(SEED_TESTS_RULESET.read_text(encoding="utf-8"))
A, C = "Aurora Vexley", "Cassius Thorne"
CLASSIC_YEARS = ("1", "2", "3", "4", "5", "6", "7+")
FATIGUE_YEARS = ("1", "2", "3", "4", "5", "6", "7", "adult")

# "classic" (with the trail) regenerated once after 67740d0: the deflect rule's source text
# printed an unfilled « {RULES} »; with the text put back as it was, the old digest
# f9c5e412e261a85ac2187e603c539be3f9a88ff9fc73abc2b77996f8ef630742 is obtained again.
# Regenerated again when a duellist who lost nothing got the trail detail « 20 PD, unchanged »
# instead of « 20 - 0 = 20 PD » (the no-trail digest, the outcomes, did not move); before it:
# 8edf56bc74d82f7cc5465cb8d6a1e079f2121b1809b988d6a326b5d1c41048da.
GOLDEN = {
    "classic": "5086edb949935e08fec6179662ee237ecfd47834458023f4fdc69fbc6a86ce33",
    "classic_no_trail": "0b1a771c5239b1f61f9d489861e6fca06c7f8c18e4d4c5ea7c643c5c28f4ef2c",
    "fatigue": "3c31e41d148bfa8445946523a3ce1e3fff99eadcaf47579629b497019bcb8441",
    "fatigue_no_trail": "1a850572200de1c2088e5657d69b39488b35150797e0f3221bb59ebabe0d78ad",
}


def _digest(parts: list[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(json.dumps(p, sort_keys=True, ensure_ascii=False).encode())
    return h.hexdigest()


def _dump(outcome: TurnOutcome, trail: bool) -> dict[str, Any]:
    data = outcome.to_dict()
    if not trail:
        data.pop("trail")
    return data


def classic_outcomes(seed: int, duels: int, **kw: Any) -> list[TurnOutcome]:
    """Seeded random classic duels: listed, repeated, unlisted and missing spells, dice."""
    rng = random.Random(seed)
    names = [s.name for s in CLASSIC.spells]
    out: list[TurnOutcome] = []
    pid = 0
    for _ in range(duels):
        state: DuelState = new_duel(CLASSIC, [(A, rng.choice(CLASSIC_YEARS)),
                                              (C, rng.choice(CLASSIC_YEARS))])  # fmt: skip
        state = start_duel(state)
        for _ in range(40):
            posts, dice = [], {}
            for who in (A, C):
                pid += 1
                r = rng.random()
                if r < 0.05:
                    post = TurnPost(who, pid, None, spell_text="Avada Bidule")
                elif r < 0.08:
                    post = TurnPost(who, pid, None)
                else:
                    post = TurnPost(who, pid, rng.choice(names), spell_text="x")
                posts.append(post)
                dice[pid] = (rng.randint(1, 6), rng.randint(1, 6))
            outcome = resolve_turn(state, posts, dice, ruleset=CLASSIC, **kw)
            out.append(outcome)
            state = outcome.state
            if state.finished:
                break
    return out


def _fatigue_post(rng: random.Random, who: str, pid: int, initiative: bool) -> TurnPost:
    spells = [s.name for s in FATIGUE.spells]
    r = rng.random()
    kind: str | None
    if initiative:
        kind = "cast" if r < 0.95 else rng.choice(["dodge", None])
    else:
        kind = "cast" if r < 0.5 else "dodge" if r < 0.75 else "dodge_riposte" if r < 0.97 else None
    if kind is None:
        return TurnPost(who, pid, None)
    bets = FATIGUE.bets[kind]
    bet = rng.choice(bets) if rng.random() < 0.95 else (1, 6)
    if kind == "dodge":
        return TurnPost(who, pid, None, kind=kind, bet=bet)
    spell = rng.choice(spells) if rng.random() < 0.97 else None
    return TurnPost(who, pid, spell, spell_text=spell or "Bidulus", kind=kind, bet=bet)


def fatigue_outcomes(seed: int, duels: int, **kw: Any) -> list[TurnOutcome]:
    """Seeded random fatigue 1v1 duels: initiative, defense (or relaunch), every action."""
    rng = random.Random(seed)
    types = sorted(FATIGUE.magic_types)
    out: list[TurnOutcome] = []
    pid = 0
    for _ in range(duels):
        who = [
            (A, rng.choice(FATIGUE_YEARS), tuple(rng.sample(types, rng.randint(1, 2)))),
            (C, rng.choice(FATIGUE_YEARS), tuple(rng.sample(types, rng.randint(1, 2)))),
        ]
        state = start_duel(new_fatigue_duel(FATIGUE, who))
        for _ in range(40):
            first, second = (A, C) if rng.random() < 0.5 else (C, A)
            pid += 1
            one = resolve_fatigue_step(
                state, [_fatigue_post(rng, first, pid, True)], {pid: (rng.randint(1, 6),)},
                ruleset=FATIGUE, **kw,
            )  # fmt: skip
            out.append(one)
            if one.finished:
                break
            if rng.random() < 0.05:
                two = resolve_fatigue_step(one.state, [], {}, ruleset=FATIGUE, **kw)
            else:
                pid += 1
                two = resolve_fatigue_step(
                    one.state, [_fatigue_post(rng, second, pid, False)],
                    {pid: (rng.randint(1, 6),)}, ruleset=FATIGUE, **kw,
                )  # fmt: skip
            out.append(two)
            state = two.state
            if state.finished:
                break
    return out


def digests(trail_kw: dict[str, Any] | None = None) -> dict[str, str]:
    """The four digests; ``trail_kw`` are the keyword arguments that switch the trail off."""
    off = trail_kw or {}
    classic = classic_outcomes(17, 300)
    fatigue = fatigue_outcomes(17, 300)
    return {
        "classic": _digest([_dump(o, True) for o in classic]),
        "classic_no_trail": _digest([_dump(o, False) for o in classic_outcomes(17, 300, **off)]),
        "fatigue": _digest([_dump(o, True) for o in fatigue]),
        "fatigue_no_trail": _digest([_dump(o, False) for o in fatigue_outcomes(17, 300, **off)]),
    }


def test_seeded_random_turns_give_the_golden_outcomes_and_trails() -> None:
    classic = classic_outcomes(17, 300)
    fatigue = fatigue_outcomes(17, 300)
    # the generator reaches the ends, violations and every void reason it can
    assert sum(o.finished for o in classic) == 300 and sum(o.finished for o in fatigue) == 300
    assert len({v.rule for o in fatigue for v in o.violations}) >= 8
    assert _digest([_dump(o, True) for o in classic]) == GOLDEN["classic"]
    assert _digest([_dump(o, True) for o in fatigue]) == GOLDEN["fatigue"]


def test_without_the_trail_the_outcomes_are_the_same() -> None:
    classic = classic_outcomes(17, 300, trail=False)
    fatigue = fatigue_outcomes(17, 300, trail=False)
    assert all(o.trail == () for o in classic + fatigue)
    assert _digest([_dump(o, False) for o in classic]) == GOLDEN["classic_no_trail"]
    assert _digest([_dump(o, False) for o in fatigue]) == GOLDEN["fatigue_no_trail"]


if __name__ == "__main__":
    print(json.dumps(digests(), indent=4))
