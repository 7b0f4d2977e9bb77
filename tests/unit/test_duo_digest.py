"""2v2 outcomes of many seeded simulated duels stay exactly what the engine gave before the
speed work of issue 26 ("make the 2v2 step fast on the simulate path without changing any
outcome: the same seeds give the same results").

Each duel is played by the balance simulator's loop (tests/duo_play.py,
:func:`rules.balance.duo.play_duo`: greedy and random legal duellists, the shipped spellbook
and the spellbook of the golden tests, every shipped environment), with one post in six
replaced by an odd one (unknown spell, no or two targets, a dodge with nothing to dodge, a
creature, a mechanism, an item, a move alone, a bad bet), so the violations and the void
paths are reached too. Every step's whole :class:`rules.duo.DuoOutcome` (state, attacks,
violations, events, trail, dice, held)
goes into the digest; with the trail off, the same outcomes without the trail.

The digests were computed with the engine as it stood before that work (commit f2e0db2); a
deliberate rule change must regenerate them (``PYTHONPATH=. python
tests/unit/test_duo_digest.py``) and say so in its commit.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

from rules.duo import DuoOutcome
from tests.duo_play import duo_outcomes

GOLDEN = {
    "trail": "87f4122ca3e34f3a955066b25bc2c76f1cc802dc659f32fd86f4c9d62a3bfb34",
    "no_trail": "ec8107ed2f73b7cf72088806a6eec61deb25dab14ab1f1dd49e48f49f874d714",
}


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
