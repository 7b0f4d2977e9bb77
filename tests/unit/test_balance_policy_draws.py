"""The scripted fatigue duellists' short cuts draw what the plain enumeration draws (issue 26,
the sixth session): :func:`rules.balance.policies.fatigue_post` of the random policy skips
the spent spells by their places in the year's menu instead of building the legal list,
and reads the legal actions once per case; the tables of a seed must not change.

Hypothesis draws the duels (book, years, magic types, policies, who posts first); at every
post of the balance simulator's legal play, the post and the generator's state after it are
compared with the plain reading: :func:`fatigue_spells` or :func:`_greedy_spells`, then
:func:`fatigue_actions`, each draw made with ``rng.choice``.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import TurnPost, ruleset_path, start_duel
from rules.balance.policies import (
    POLICIES,
    Policy,
    Role,
    _greedy_spells,
    fatigue_actions,
    fatigue_post,
    fatigue_spells,
)
from rules.fatigue import load_fatigue_ruleset, new_fatigue_duel, resolve_fatigue_step
from rules.model import DuellistState

BOOKS = {
    "shipped": ruleset_path("fatigue").read_text(encoding="utf-8"),
    "seed_tests": (
        Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
    ).read_text(encoding="utf-8"),
}
YEARS = ("1", "2", "3", "4", "5", "6", "7", "adult")


def _plain(rs: Any, me: DuellistState, opp: DuellistState, pid: int, role: Role,
           rng: random.Random, policy: Policy) -> TurnPost:  # fmt: skip
    """The post of ``policy`` read the long way, every draw an ``rng.choice``."""
    greedy = policy == "greedy"
    spells = _greedy_spells(rs, me, opp) if greedy else fatigue_spells(rs, me, opp)
    if greedy and spells:
        kind = "cast"
    else:
        kinds = fatigue_actions(rs, me, spells, role)
        if not kinds:
            return TurnPost(me.name, pid, None)
        kind = kinds[0] if greedy or len(kinds) == 1 else rng.choice(kinds)
    bets = rs.bets[kind]
    bet = bets[0] if len(bets) == 1 else rng.choice(bets)
    if kind == "dodge":
        return TurnPost(me.name, pid, None, kind=kind, bet=bet)
    spell = spells[0] if len(spells) == 1 else rng.choice(spells)
    return TurnPost(me.name, pid, spell.name, spell_text=spell.name, kind=kind, bet=bet)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    book=st.sampled_from(sorted(BOOKS)),
    pols=st.tuples(st.sampled_from(POLICIES), st.sampled_from(POLICIES)),
)
def test_fatigue_posts_draw_what_the_plain_enumeration_draws(
    seed: int, book: str, pols: tuple[Policy, Policy]
) -> None:
    rs = load_fatigue_ruleset(BOOKS[book])
    rng = random.Random(seed)
    types = sorted(rs.magic_types)
    compared = 0
    for _ in range(3):
        who = [(n, rng.choice(YEARS), tuple(rng.sample(types, rng.randint(1, 2))))
               for n in ("A", "B")]  # fmt: skip
        state = start_duel(new_fatigue_duel(rs, who))
        pid = 0
        while not state.finished and state.turn < 60:
            i = rng.randrange(2)
            for role, who_posts in (("initiative", i), ("defense", 1 - i)):
                me, opp = state.duellists[who_posts], state.duellists[1 - who_posts]
                pid += 1
                before = rng.getstate()
                post = fatigue_post(rs, me, opp, pid, role, rng, pols[who_posts])  # type: ignore[arg-type]
                after = rng.getstate()
                rng.setstate(before)
                assert post == _plain(rs, me, opp, pid, role, rng, pols[who_posts])  # type: ignore[arg-type]
                assert rng.getstate() == after
                compared += 1
                die = () if post.kind is None and role == "defense" else (rng.randint(1, 6),)
                out = resolve_fatigue_step(state, [post], {pid: die}, ruleset=rs, trail=False)
                state = out.state
                if state.finished:
                    break
    assert compared > 0
