"""Issue 26 D1: a duellist whose every known spell is spent is *contraint*: no ``no_action``.

seed 001: « un duelliste n'a pas le droit de ne pas agir pendant un tour, sauf s'il y est
contraint ». RULES.md Fine points: "A duellist left with no legal action posts role-play and
endures: that counts as their post, no violation". With the reuse ban (« il est formellement
interdit au lanceur de le réutiliser une seconde fois sur son adversaire ») a first year who has
cast both level-1 spells at the opponent has no legal cast left.

The spellbook is pinned here (two level-1 attacks, a level-2 ward) so that the shipped one may
change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from rules import DuelState, TurnPost, ruleset_path
from rules import start_duel as start
from rules.duo import (
    DuoPost,
    DuoState,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    resolve_duo_step,
    start_duo,
)
from rules.fatigue import load_fatigue_ruleset, new_fatigue_duel, resolve_fatigue_step

DATA = Path(__file__).resolve().parents[2] / "rules" / "data"
HEAD = ruleset_path("fatigue").read_text(encoding="utf-8").split("[[spells]]")[0]
BOOK = """
[[spells]]
name = "Rictusempra"
aliases = []
source = "test spellbook"
level = 1
effects = [{ type = "pv_damage", amount = 15 }, { type = "spell_family", family = "attaque" }]

[[spells]]
name = "Flipendo"
aliases = []
source = "test spellbook"
level = 1
effects = [{ type = "pv_damage", amount = 20 }, { type = "spell_family", family = "attaque" }]

[[spells]]
name = "Protego"
aliases = []
source = "test spellbook"
level = 2
effects = [{ type = "ward", amount = 15, duration = 2 },
           { type = "spell_family", family = "protection" }]
"""
RS = load_fatigue_ruleset(HEAD + BOOK)
A, C = "Aurora Vexley", "Cassius Thorne"
SPENT = (("Rictusempra", C), ("Flipendo", C))
HIGH = (3, 4, 5, 6)


def duel1(year_a: str = "1") -> DuelState:
    return start(new_fatigue_duel(RS, [(A, year_a, ("brutale",)), (C, "1", ("sournoise",))]))


def member(state: DuelState, name: str, **changes: object) -> DuelState:
    members = tuple(
        replace(d, **changes) if d.name == name else d  # type: ignore[arg-type]
        for d in state.duellists
    )
    return replace(state, duellists=members)


def both_paths(state: DuelState, post: TurnPost, die: int) -> tuple[object, object]:
    full = resolve_fatigue_step(state, [post], {post.post_id: (die,)}, ruleset=RS)
    fast = resolve_fatigue_step(state, [post], {post.post_id: (die,)}, ruleset=RS, trail=False)
    assert fast.state == full.state and fast.violations == full.violations
    return full, fast


def test_spent_first_year_initiative_endures_1v1() -> None:
    """seed 001: « n'a pas le droit de ne pas agir [...] sauf s'il y est contraint »; RULES.md:
    "A duellist left with no legal action posts role-play and endures: no violation"."""
    spent = member(duel1(), A, spells_used_on=SPENT)
    full, _ = both_paths(spent, TurnPost(A, 1, None), 3)
    assert full.violations == ()  # type: ignore[attr-defined]
    assert [t.value for t in full.trail if t.quantity == f"{A}.endures"] == [True]  # type: ignore[attr-defined]
    # one spell left: posting nothing is `no_action` (20 PV)
    half = member(duel1(), A, spells_used_on=SPENT[:1])
    full, _ = both_paths(half, TurnPost(A, 1, None), 3)
    assert [v.rule for v in full.violations] == ["no_action"]  # type: ignore[attr-defined]
    # a second year still knows Protego (a self spell): not constrained
    second = member(duel1("2"), A, spells_used_on=SPENT)
    full, _ = both_paths(second, TurnPost(A, 1, None), 3)
    assert [v.rule for v in full.violations] == ["no_action"]  # type: ignore[attr-defined]


def test_spent_first_year_defense_1v1() -> None:
    """Same two sentences, in a defense post: a dodge is a legal action unless it would be a
    second dodge in a row (« il est interdit d'utiliser cette action deux tours de suite »)."""
    s = duel1()
    one = resolve_fatigue_step(
        s, [TurnPost(C, 1, "Flipendo", spell_text="Flipendo", kind="cast", bet=HIGH)],
        {1: (4,)}, ruleset=RS,
    )  # fmt: skip
    can_dodge = member(one.state, A, spells_used_on=SPENT)
    full, _ = both_paths(can_dodge, TurnPost(A, 2, None), 2)
    assert [v.rule for v in full.violations] == ["no_action"]  # type: ignore[attr-defined]
    stuck = member(one.state, A, spells_used_on=SPENT, last_action="dodge")
    full, _ = both_paths(stuck, TurnPost(A, 2, None), 2)
    assert full.violations == ()  # type: ignore[attr-defined]
    assert full.state.duellist(A).points == 100 - 20  # type: ignore[attr-defined]


# --- 2v2 -----------------------------------------------------------------------------------------
A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"
ENV = load_environment((DATA / "environments" / "serre.toml").read_text(encoding="utf-8"))
CFG = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))


def drawer(zones: dict[str, int]) -> Callable[[str, int], int]:
    def draw(label: str, n: int) -> int:
        return zones[label.split(":", 1)[1]] if label.startswith("place:") else 0

    return draw


def duel2(zones: dict[str, int]) -> DuoState:
    duos = [[(A1, "1", ["sournoise"]), (A2, "1", ["sournoise"])],
            [(B1, "1", ["sournoise"]), (B2, "1", ["sournoise"])]]  # fmt: skip
    return start_duo(new_duo_duel(RS, duos, ENV, drawer(zones)))


def spend(state: DuoState, name: str, used: tuple[tuple[str, str], ...]) -> DuoState:
    d = state.duel
    members = tuple(replace(x, spells_used_on=used) if x.name == name else x for x in d.duellists)
    return replace(state, duel=replace(d, duellists=members))


def step2(state: DuoState, post: DuoPost) -> object:
    return resolve_duo_step(
        state, [post], {post.post.post_id: (4,)}, ruleset=RS, env=ENV, settings=CFG,
        draw=drawer({}),
    )  # fmt: skip


def test_spent_first_year_endures_2v2() -> None:
    """The same seed and RULES.md sentences in 2v2: both level-1 spells spent on each opponent
    still standing, and nothing aimed at him, a first year posting role-play only is no
    ``no_action``; with one opponent he has not hit with a spell, he is not constrained."""
    creatures = {c.zone for c in ENV.creatures}
    free = next(i for i, z in enumerate(ENV.zones) if z.key not in creatures)
    s = duel2({A1: free, A2: free, B1: free, B2: free})
    every = tuple((sp, o) for sp in ("Rictusempra", "Flipendo") for o in (B1, B2))
    silent = DuoPost(TurnPost(A1, 1, None, kind=None))
    out = step2(spend(s, A1, every), silent)
    assert [v.rule for v in out.violations] == []  # type: ignore[attr-defined]
    assert "endures" in [e.kind for e in out.events]  # type: ignore[attr-defined]
    only_b1 = tuple(p for p in every if p[1] == B1)
    out = step2(spend(s, A1, only_b1), silent)
    assert [v.rule for v in out.violations] == ["no_action"]  # type: ignore[attr-defined]
