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

The digests were computed with the engine as it stood before that work (commit f2e0db2) and
regenerated once for a data change only, the shipped spellbook's third pass (two more level-1
spells, the sixth session; the engine unchanged); a deliberate rule or spellbook change must
regenerate them (``PYTHONPATH=. python
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
    "trail": "03327164608ac81e1f76b0983ff1f8c159ff9ebe39953eda224ece695b0aff3c",
    "no_trail": "192c801de453a27fd6526cb0c037e917c27cb396ee96d78b2a9715b3864969a5",
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
