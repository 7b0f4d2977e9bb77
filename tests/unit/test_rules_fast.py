"""The engines' fast paths (issue 17, "Outcomes stay identical, and so does the rule trail when
it is asked for") give the outcome of the full resolution under every setting they read, not
only the shipped ones the golden digest covers (``test_rules_golden_digest.py``).

The full resolution runs when the trail is asked for; the fast path when it is not
(``trail=False``, no override, no waiver). Both must agree on everything but the trail.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules import TurnPost, new_duel, parse_ruleset, resolve_turn, ruleset_path, start_duel
from rules.effects import AttackModifier, NoAttack
from rules.model import DuelState, TurnOutcome

CLASSIC_TEXT = ruleset_path("classic").read_text(encoding="utf-8")
A, C = "Aurora Vexley", "Cassius Thorne"
YEARS = ("1", "2", "3", "4", "5", "6", "7+")

CLASSIC_VARIANTS = {
    "shipped": {},
    "ties_deflect": {"tie_rule": '"deflects"'},
    "shield_next_turn": {"shield_applies": '"next_turn"'},
    "repeat_flag_only": {"repeated_spell_voids": "false"},
    "unlisted_disqualifies": {"unlisted_spell_proposal": '"disqualification"'},
    "no_advantage": {"unlisted_spell_advantage": "0"},
    "long_advantage": {"unlisted_advantage_turns": "3", "unlisted_advantage_damage": "false"},
    "barred_violation": {"barred_attacking_spell": '"violation"'},
    "double_ko_draw": {"double_ko": '"draw"'},
}


def _variant(text: str, changes: dict[str, str]) -> str:
    lines = text.split("\n")
    for key, value in changes.items():
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{key} = "))
        lines[at] = f"{key} = {value}"
    return "\n".join(lines)


def _same_but_trail(fast: TurnOutcome, full: TurnOutcome) -> None:
    assert fast.trail == ()
    one, two = fast.to_dict(), full.to_dict()
    one.pop("trail")
    two.pop("trail")
    assert one == two
    assert fast.state == full.state and fast.attacks == full.attacks


def _classic_posts(rng: random.Random, names: list[str], pid: int) -> list[TurnPost]:
    posts = []
    for i, who in enumerate((A, C)):
        r = rng.random()
        if r < 0.06:
            posts.append(TurnPost(who, pid + i, None, spell_text="Avada Bidule"))
        elif r < 0.09:
            posts.append(TurnPost(who, pid + i, None))
        else:
            posts.append(TurnPost(who, pid + i, rng.choice(names), spell_text="x"))
    return posts[::-1] if rng.random() < 0.3 else posts


@pytest.mark.parametrize("variant", sorted(CLASSIC_VARIANTS))
def test_classic_fast_path_gives_the_full_outcome_under_every_setting(variant: str) -> None:
    rs = parse_ruleset(_variant(CLASSIC_TEXT, CLASSIC_VARIANTS[variant]))
    rng = random.Random(variant)
    names = [s.name for s in rs.spells]
    seen: set[str] = set()
    pid = 0
    for _ in range(120):
        state: DuelState = start_duel(
            new_duel(rs, [(A, rng.choice(YEARS)), (C, rng.choice(YEARS))])
        )
        while not state.finished:
            posts = _classic_posts(rng, names, pid)
            dice = {p.post_id: (rng.randint(1, 6), rng.randint(1, 6)) for p in posts}
            pid += 2
            fast = resolve_turn(state, posts, dice, ruleset=rs, trail=False)
            full = resolve_turn(state, posts, dice, ruleset=rs)
            _same_but_trail(fast, full)
            seen.update(a.void_reason or ("landed" if a.landed else "deflected")
                        for a in full.attacks)  # fmt: skip
            seen.update(type(e).__name__ for d in full.state.duellists for e in d.effects)
            state = full.state
    # the generator reaches attacks that land and miss, every void reason and carried effects
    assert {"landed", "deflected", "missing_spell", "unlisted_spell", "cancelled"} <= seen
    assert {"shield", "counter_spell", "barred"} <= seen
    assert NoAttack.__name__ in seen
    if CLASSIC_VARIANTS[variant].get("unlisted_spell_advantage") != "0":
        assert AttackModifier.__name__ in seen or variant == "unlisted_disqualifies"


def test_classic_fast_path_leaves_unusual_turns_to_the_full_resolution() -> None:
    """Refused inputs raise the full resolution's errors; overrides and waivers still apply."""
    rs = parse_ruleset(CLASSIC_TEXT)
    state = start_duel(new_duel(rs, [(A, "5"), (C, "7+")]))
    feu = TurnPost(A, 1, "Sortilège de Feu", spell_text="Feu")
    kw: dict[str, Any] = {"ruleset": rs, "trail": False}
    from rules.errors import RuleError

    with pytest.raises(RuleError, match="no post from"):
        resolve_turn(state, [feu], {1: (5, 2)}, **kw)
    with pytest.raises(RuleError, match="d6 shows"):
        resolve_turn(state, [feu, TurnPost(C, 2, None)], {1: (5, 7), 2: (1, 1)}, **kw)
    with pytest.raises(RuleError, match="not a canonical name"):
        resolve_turn(state, [feu, TurnPost(C, 2, "Bidule")], {1: (5, 2), 2: (1, 1)}, **kw)
    posts = [feu, TurnPost(C, 2, None)]
    out = resolve_turn(state, posts, {1: (5, 2), 2: (1, 1)}, overrides={f"{C}.points": 3}, **kw)
    assert out.state.duellist(C).points == 3 and out.trail == ()
    out = resolve_turn(state, posts, {1: (5, 2), 2: (1, 1)}, waived=[(C, "missing_spell")], **kw)
    assert [v.status for v in out.violations] == ["waived"]
