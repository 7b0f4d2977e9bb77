"""Pure 2v2 rules (rules.duo): environments, placement, moves, targets, cadence, creatures, end."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from forumbot.rulesets import load_ruleset
from rules.duo import (
    DuoPost,
    DuoState,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    posts_per_declaration,
    resolve_duo_step,
    resolve_target,
    start_duo,
)
from rules.errors import RuleError
from rules.model import TurnPost

DATA = Path(__file__).resolve().parents[2] / "rules" / "data"
SEED_TESTS_RULESET = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
"""The spellbook these hand-computed duels were written with (issue 26: the shipped one changed)."""
RS = load_ruleset(str(SEED_TESTS_RULESET))
ENV = load_environment((DATA / "environments" / "serre.toml").read_text(encoding="utf-8"))
CFG = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))
A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"


def drawer(zones: dict[str, int], reward: int = 0) -> Callable[[str, int], int]:
    def draw(label: str, n: int) -> int:
        return zones[label.split(":", 1)[1]] if label.startswith("place:") else reward % n

    return draw


def duel(zones: dict[str, int], year: str = "adult") -> DuoState:
    duos = [[(A1, year, ["sournoise"]), (A2, year, ["protectrice"])],
            [(B1, year, ["sournoise"]), (B2, year, ["protectrice"])]]  # fmt: skip
    return start_duo(new_duo_duel(RS, duos, ENV, drawer(zones)))  # type: ignore[arg-type]


def post(who: str, pid: int, spell: str | None, target: str | None = None,
         move: str | None = None, kind: str | None = "cast",
         bet: tuple[int, ...] = (3, 4, 5, 6)) -> DuoPost:  # fmt: skip
    return DuoPost(TurnPost(who, pid, spell, kind=kind, bet=bet, target=target), move_to=move)


def step(state: DuoState, *posts: DuoPost, die: int = 4, reward: int = 0) -> object:
    return resolve_duo_step(
        state, list(posts), {p.post.post_id: (die,) for p in posts}, ruleset=RS,  # type: ignore[arg-type]
        env=ENV, settings=CFG, draw=drawer({}, reward),
    )  # fmt: skip


def pv(state: DuoState, name: str) -> int:
    return state.duel.duellist(name).points


def test_shipped_environments_load_and_bad_ones_are_refused() -> None:
    other = load_environment((DATA / "environments" / "bibliotheque.toml").read_text("utf-8"))
    assert len(ENV.zones) == len(other.zones) == 4
    assert ENV.creature("strangulot").ability.kind == "retaliate"
    text = (DATA / "environments" / "serre.toml").read_text(encoding="utf-8")
    zone = '[[zones]]\nkey = "{k}"\nname = "Z{k}"\nowl = "o"\ndetails = "d"\n'
    head = 'key = "e"\nname = "E"\ndescription = "D"\n'
    with pytest.raises(RuleError) as err:
        load_environment(head + "".join(zone.format(k=k) for k in "abc"))
    assert err.value.rule == "zones"
    assert len(load_environment(head + "".join(zone.format(k=k) for k in "abcd")).zones) == 4
    with pytest.raises(RuleError) as err:
        load_environment(text.replace('kind = "retaliate"', 'kind = "fly"'))
    assert err.value.rule == "creatures[0].ability.kind"
    assert ENV.find_zone("la zone 2") == ENV.zones[1]
    assert ENV.find_zone("Le bassin aux nénuphars") == ENV.zones[1]
    assert ENV.find_zone("zone 7") is None


def test_placement_is_drawn_recorded_and_round_trips() -> None:
    s = duel({A1: 0, A2: 0, B1: 1, B2: 3})
    assert s.positions == ((A1, "mandragores"), (A2, "mandragores"), (B1, "bassin"),
                           (B2, "verriere"))  # fmt: skip
    assert DuoState.from_dict(json.loads(json.dumps(s.to_dict()))) == s
    assert resolve_target("moi", A1, s, ENV).kind == "self"
    assert resolve_target("Cassius", A1, s, ENV).key == B1
    assert resolve_target("le strangulot", A1, s, ENV).kind == "creature"
    assert resolve_target("les rideaux", A1, s, ENV).kind == "scenery"


def test_pending_attack_resolves_with_the_targets_defense_like_1v1() -> None:
    s = duel({A1: 0, A2: 1, B1: 0, B2: 1})
    o = step(s, post(A1, 1, "Flipendo", B1), die=2)
    assert [(p.attacker, p.target) for p in o.state.pending] == [(A1, B1)]  # type: ignore[attr-defined]
    # B1 dodges (bet won, A1's bet lost: die 2 with A1 on [3,4,5,6])
    o1 = resolve_duo_step(
        o.state, [post(B1, 2, None, A1, kind="dodge", bet=(1, 2, 3, 4))], {2: (2,)},  # type: ignore[attr-defined]
        ruleset=RS, env=ENV, settings=CFG, draw=drawer({}),  # type: ignore[arg-type]
    )  # fmt: skip
    assert pv(o1.state, B1) == 500 and not o1.state.pending


def test_missing_and_extra_move_and_turn_close() -> None:
    s = duel({A1: 0, A2: 0, B1: 1, B2: 1})
    s = step(s, post(A1, 1, "Flipendo", "le décor", "zone 3")).state  # type: ignore[attr-defined]
    o = step(s, post(A2, 2, "Rictusempra", "le décor", "zone 4"))
    assert [v.rule for v in o.violations] == ["extra_move"]  # type: ignore[attr-defined]
    assert o.state.zone_of(A2) == "mandragores" and pv(o.state, A2) == 480  # type: ignore[attr-defined]
    s = step(o.state, post(B1, 3, "Flipendo", "le décor")).state  # type: ignore[attr-defined]
    o = step(s, post(B2, 4, "Flipendo", "le décor"))
    assert o.turn_closed and o.state.duel.turn == 1  # type: ignore[attr-defined]
    missing = [v for v in o.violations if v.rule == "missing_move"]  # type: ignore[attr-defined]
    assert [(v.duellist, v.post_id) for v in missing] == [(B2, 4)]


def test_double_target_lone_and_all_four_together_and_cadence() -> None:
    s = duel({A1: 1, A2: 1, B1: 1, B2: 2})
    assert posts_per_declaration(s, CFG) == 1
    s = step(s, post(A1, 1, "Flipendo", B1)).state  # type: ignore[attr-defined]
    o = step(s, post(A2, 2, "Rictusempra", B1))
    assert [v.rule for v in o.violations] == ["double_target"]  # type: ignore[attr-defined]
    assert len(o.state.pending) == 1  # type: ignore[attr-defined]
    together = duel({A1: 2, A2: 2, B1: 2, B2: 2})
    assert posts_per_declaration(together, CFG) == 2
    o = step(together, post(A1, 1, "Flipendo", B1), post(B2, 2, "Flipendo", A2))
    assert not o.violations and len(o.state.posted) == 2  # type: ignore[attr-defined]
    o = step(o.state, post(A2, 3, "Rictusempra", B1), post(B1, 4, "Rictusempra", B2))  # type: ignore[attr-defined]
    assert "double_target" in [v.rule for v in o.violations]  # type: ignore[attr-defined]
    # teammate and self are legal targets; far apart no double target
    apart = duel({A1: 0, A2: 3, B1: 1, B2: 2})
    s = step(apart, post(A1, 1, "Flipendo", B1)).state  # type: ignore[attr-defined]
    assert not step(s, post(A2, 2, "Rictusempra", B1)).violations  # type: ignore[attr-defined]


def test_creature_retaliates_then_is_defeated_with_a_reward_and_items() -> None:
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3}, year="1")
    o = step(s, post(A1, 1, "Flipendo", "le strangulot"))
    assert o.state.creature_pv("strangulot") == 20 and pv(o.state, A1) == 90  # type: ignore[attr-defined]
    s = o.state  # type: ignore[attr-defined]
    for i, who in enumerate((A2, B1, B2), start=2):
        s = step(
            s, post(who, i, "Flipendo", "le décor", "zone 4" if who in (A2, B2) else None)
        ).state  # type: ignore[attr-defined]
    o = step(s, post(A1, 9, "Rictusempra", "strangulot"), reward=2)
    assert o.state.creature_pv("strangulot") == 5  # type: ignore[attr-defined]
    s = duel({A1: 1, A2: 0, B1: 2, B2: 3})
    o = step(s, post(A1, 1, "Bombarda Maxima", "le strangulot"), reward=2)
    assert o.state.defeated == (("strangulot", A1),)  # type: ignore[attr-defined]
    assert [(r.kind, r.amount) for r in o.state.rewards] == [("pv", 20)]  # type: ignore[attr-defined]
    assert pv(o.state, A1) == 520  # type: ignore[attr-defined]
    # an item taken by targeting it, used later with "Objet :"
    s = duel({A1: 3, A2: 0, B1: 2, B2: 2})
    o = step(s, post(A1, 1, "Rictusempra", "le flacon de Pimentine"))
    assert o.state.inventory == ((A1, "pimentine"),)  # type: ignore[attr-defined]


def test_duo_with_both_members_down_loses() -> None:
    s = duel({A1: 0, A2: 0, B1: 0, B2: 0}, year="1")
    weak = tuple(replace(d, points=10 if d.name in (B1, B2) else 100) for d in s.duel.duellists)
    s = replace(s, duel=replace(s.duel, duellists=weak))
    # one initiative per duo (RULES.md: "two initiatives (one per duo)"), then the defenses:
    # A2's Flipendo on B2, who already posted, resolves at once
    o = step(s, post(A1, 1, "Flipendo", B1), post(B2, 2, "Rictusempra", "moi"))
    assert not o.finished  # type: ignore[attr-defined]
    o = step(o.state, post(B1, 3, "Rictusempra", "le décor"), post(A2, 4, "Flipendo", B2))  # type: ignore[attr-defined]
    assert o.finished and o.winners == (A1, A2) and o.losers == (B1, B2)  # type: ignore[attr-defined]
    from rules.duo import duo_rewards

    rewards = duo_rewards(o.state, CFG)  # type: ignore[attr-defined]
    assert (A1, "galleons", 5) in rewards and (B2, "chocolate_frog", 1) in rewards


# Found by the 2v2 demo: a self cast ran the 1v1 engine against the teammate as a stand-in
# and the declaration read 'Aurora → Blaise : Protego, touche : 0 PV'.
def test_a_self_cast_is_not_declared_as_an_attack_on_the_teammate() -> None:
    from pathlib import Path

    from forumbot.rulesets import load_ruleset
    from rules.duo import (
        DuoPost,
        load_duo_settings,
        load_environment,
        new_duo_duel,
        resolve_duo_step,
        start_duo,
    )
    from rules.model import TurnPost

    data = Path(__file__).resolve().parents[2] / "rules" / "data"
    rs = load_ruleset(str(SEED_TESTS_RULESET))
    env = load_environment((data / "environments" / "serre.toml").read_text(encoding="utf-8"))
    cfg = load_duo_settings((data / "duo.toml").read_text(encoding="utf-8"))
    zones = {"Aurora": 0, "Blaise": 1, "Cassius": 2, "Dorian": 3}

    def draw(label: str, n: int) -> int:
        return zones[label.split(":", 1)[1]] if label.startswith("place:") else 0

    duos = [
        [("Aurora", "adult", ["sournoise"]), ("Blaise", "adult", ["protectrice"])],
        [("Cassius", "adult", ["sournoise"]), ("Dorian", "adult", ["protectrice"])],
    ]
    state = start_duo(new_duo_duel(rs, duos, env, draw))  # type: ignore[arg-type]
    shield = TurnPost("Aurora", 10, "Protego", kind="cast", bet=(3, 4, 5, 6), target="moi")
    out = resolve_duo_step(
        state, [DuoPost(shield, move_to="zone 2")], {10: (4,)}, ruleset=rs,  # type: ignore[arg-type]
        env=env, settings=cfg, draw=draw,
    )  # fmt: skip
    assert "self_cast" in [e.kind for e in out.events]
    assert [(a.attacker, a.defender) for a in out.attacks if a.defender == "Blaise"] == []


def _barred(state: DuoState, who: str) -> DuoState:
    """``who`` under a running no_attack effect (e.g. Stupéfix): they cannot cast."""
    from dataclasses import replace

    from rules.effects import NoAttack

    duel_ = state.duel
    members = tuple(
        replace(d, effects=(*d.effects, NoAttack(duration=1, source="Stupéfix", caster=B1)))
        if d.name == who else d
        for d in duel_.duellists
    )  # fmt: skip
    return replace(state, duel=replace(duel_, duellists=members))


def test_a_duellist_with_no_legal_action_may_move_alone() -> None:
    """RULES.md: "A duellist left with no legal action posts role-play and endures: that counts
    as their post, no violation" — barred from casting with nothing to dodge, their move alone
    is the duo's move of the turn, not a ``move_alone`` (found by the 2v2 demo)."""
    s = _barred(duel({A1: 0, A2: 0, B1: 1, B2: 2}), A1)
    out = step(s, post(A1, 1, None, None, move="zone 2", kind=None))
    assert [v.rule for v in out.violations] == []  # type: ignore[attr-defined]
    assert "move" in [e.kind for e in out.events]  # type: ignore[attr-defined]
    # a duellist who could cast still may not move alone
    free = step(
        duel({A1: 0, A2: 0, B1: 1, B2: 2}), post(A1, 1, None, None, move="zone 2", kind=None)
    )
    assert "move_alone" in [v.rule for v in free.violations]  # type: ignore[attr-defined]


# -- found by the second break-it pass ------------------------------------------------------
def _set_pv(state: DuoState, name: str, value: int) -> DuoState:
    from dataclasses import replace

    d = state.duel
    members = tuple(replace(x, points=value) if x.name == name else x for x in d.duellists)
    return replace(state, duel=replace(d, duellists=members))


@pytest.mark.parametrize("mate_pv", [5, 0, -10])
def test_a_self_heal_works_whatever_the_teammates_pv(mate_pv: int) -> None:
    s = _set_pv(_set_pv(duel({A1: 0, A2: 1, B1: 2, B2: 3}), A1, 300), A2, mate_pv)
    out = step(s, post(A1, 1, "Episkey", "moi", "zone 2"))
    assert pv(out.state, A1) == 325  # type: ignore[attr-defined]


def test_a_spell_answered_in_the_same_step_is_not_announced_as_waiting() -> None:
    s = duel({A1: 0, A2: 0, B1: 0, B2: 0})  # all four together: two posts a declaration
    out = step(s, post(B1, 1, "Flipendo", A1), post(A1, 2, "Incendio", B2))
    kinds = [(e.kind, e.who, e.target) for e in out.events]  # type: ignore[attr-defined]
    assert ("pending", B1, A1) not in kinds
    assert all((e.who, e.target) in {(p.attacker, p.target) for p in out.state.pending}  # type: ignore[attr-defined]
               for e in out.events if e.kind == "pending")  # type: ignore[attr-defined]  # fmt: skip


def test_both_duos_down_in_one_declaration_the_higher_total_wins() -> None:
    """RULES.md: "Both at 0 in one declaration: the one with more PV left wins" (PV below 0
    count as they are; capping them at 0 made every such end a draw)."""
    s = duel({A1: 0, A2: 1, B1: 0, B2: 2})
    for name, value in ((A1, 10), (A2, -5), (B1, 5), (B2, -30)):
        s = _set_pv(s, name, value)
    out = step(s, post(A1, 1, "Flipendo", B1, "zone 3"))
    out = step(out.state, post(B1, 2, "Flipendo", A1, "zone 4"))  # type: ignore[attr-defined]
    assert out.finished and not out.draw and out.winners == (A1, A2)  # type: ignore[attr-defined]
    fallen = [e.who for e in out.events if e.kind == "knocked_out"]  # type: ignore[attr-defined]
    assert sorted(fallen) == sorted([A1, B1])  # announced once, in the step they fall


# -- reader after issue 25, W6 ---------------------------------------------------------------
IMPERVIUS = """
[[spells]]
name = "Impervius"
aliases = []
level = 1
source = "test spellbook: Impervius, level 1, 14 PV, ward 4 PV for 1 turn"
effects = [{ type = "pv_damage", amount = 14 }, { type = "ward", amount = 4, duration = 1 }]
"""


def test_the_reuse_ban_binds_only_spells_cast_on_an_opponent(tmp_path: Path) -> None:
    """Seed 001: « à partir du moment où son adversaire est affecté ou directement ciblé par un
    sort, il est formellement interdit au lanceur de le réutiliser une seconde fois sur son
    adversaire » ; RULES.md: "once the opponent has been affected or directly targeted by it,
    the caster may not cast it on that opponent again". The 2v2 demo fined Aurora 20 PV for a
    second « Impervius sur moi » (the 1v1 engine's stand-in, her teammate, was taken for an
    opponent): a spell cast at oneself is never reused on an opponent."""
    book = tmp_path / "book.toml"
    book.write_text(SEED_TESTS_RULESET.read_text(encoding="utf-8") + IMPERVIUS, "utf-8")
    rs = load_ruleset(str(book))

    def play(state: DuoState, *posts: DuoPost) -> object:
        out: object = None
        for p in posts:
            out = resolve_duo_step(
                state, [p], {p.post.post_id: (4,)}, ruleset=rs,  # type: ignore[arg-type]
                env=ENV, settings=CFG, draw=drawer({}),
            )  # fmt: skip
            state = out.state  # type: ignore[attr-defined]
        return out

    s = duel({A1: 0, A2: 1, B1: 2, B2: 3})
    turn1 = play(s, post(A1, 1, "Impervius", "moi", "zone 2"),
                 post(A2, 2, "Flipendo", "le décor"), post(B1, 3, "Flipendo", A2, "zone 2"),
                 post(B2, 4, "Flipendo", "le décor"))  # fmt: skip
    assert turn1.turn_closed and not turn1.violations  # type: ignore[attr-defined]
    s = turn1.state  # type: ignore[attr-defined]
    again = play(s, post(A1, 5, "Impervius", "moi", "zone 3"))
    assert [v.rule for v in again.violations] == []  # type: ignore[attr-defined]
    assert "self_cast" in [e.kind for e in again.events]  # type: ignore[attr-defined]
    assert pv(again.state, A1) == pv(s, A1)  # type: ignore[attr-defined]  # no 20 PV fine
    # the ban still binds a spell cast twice on the same opponent (B1 on A2)
    s = play(again.state, post(A2, 6, "Flipendo", "le décor"),  # type: ignore[attr-defined]
             post(B1, 7, "Rictusempra", "le décor", "zone 1"),
             post(B2, 8, "Flipendo", "le décor")).state  # type: ignore[attr-defined]  # fmt: skip
    s = play(s, post(A1, 9, "Rictusempra", "le décor", "zone 2"),
             post(A2, 10, "Flipendo", "le décor")).state  # type: ignore[attr-defined]  # fmt: skip
    s = replace(s, positions=tuple((n, "bassin") if n in (A2, B1) else (n, z)
                                   for n, z in s.positions))  # fmt: skip
    twice = play(s, post(B1, 11, "Flipendo", A2))
    assert [v.rule for v in twice.violations] == ["reused_spell"]  # type: ignore[attr-defined]
