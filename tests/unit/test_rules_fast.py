"""The engines' fast paths (issue 17, "Outcomes stay identical, and so does the rule trail when
it is asked for") give the outcome of the full resolution under every setting they read, not
only the shipped ones the golden digest covers (``test_rules_golden_digest.py``).

The full resolution runs when the trail is asked for; the fast path when it is not
(``trail=False``, no override, no waiver). Both must agree on everything but the trail.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import TurnPost, new_duel, parse_ruleset, resolve_turn, ruleset_path, start_duel
from rules.balance.policies import POLICIES, Policy
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


# --- fatigue (rules/fatigue/fast.py) ---------------------------------------------------------

FATIGUE_TEXT = ruleset_path("fatigue").read_text(encoding="utf-8")
FATIGUE_YEARS = ("1", "2", "3", "4", "5", "6", "7", "adult")
_BRUTALE = 'modifiers = [{ kind = "damage_percent", family = "attaque", value = 10 }]'
_DISCRETE = 'modifiers = [{ kind = "damage_taken_flat", family = "attaque", value = -5 }]'
_RICH = (  # every modifier kind, on every family ("*")
    'modifiers = [{ kind = "damage_percent", family = "*", value = 25 }, '
    '{ kind = "heal_flat", family = "*", value = 7 }]',
    'modifiers = [{ kind = "damage_taken_flat", family = "*", value = 4 }, '
    '{ kind = "duration_bonus", family = "*", value = -3 }]',
)
FATIGUE_VARIANTS: dict[str, dict[str, str]] = {
    "shipped": {},
    "dodge_own_won": {"dodge_success": '"own_won"'},
    "riposte_same_condition": {"riposte_vs_undodgeable": '"same_condition"'},
    "riposte_never": {"riposte_vs_undodgeable": '"never"', "reuse_counts_dodged": "false"},
    "riposte_is_a_dodge": {"dodge_riposte_counts_as_dodge": "true"},
    "no_dodge_spares_riposte": {"no_dodge_bars_riposte": "false"},
    "effects_by_kind": {"effect_identity": '"kind"', "heal_cap": '"none"'},
    "statuses": {
        "barred_action": '"applied"',
        "invalid_bet": '"off"',
        "no_action": '"proposed"',
        "unknown_spell": '"off"',
        "initiative_not_cast": '"proposed"',
    },
    "violations_end": {
        "violations_to_lose": "2",
        "both_lose_by_violations": '"higher_remaining_wins"',
        "double_ko": '"draw"',
    },
    "penalties": {
        "violation_penalty": "35",
        "reused_spell_penalty": "0",
        "dodge_twice_penalty": "5",
        "spell_above_level_penalty": "50",
    },
    # the club's named house rule that lifts the same-opponent ban (issue 26: no reused_spell
    # then); magic types with every modifier kind. (A book with max_casts always takes the
    # full resolution: tests/unit/test_rules_issue26.py.)
    "house_rule_and_rich_types": {
        "# --- Bets per action": '[house_rules.recast_same_opponent]\nname = "Relance libre"\n'
        'description = "Un sort peut être relancé sur le même adversaire."\n\n'
        "# --- Bets per action",
        _BRUTALE: _RICH[0],
        _DISCRETE: _RICH[1],
    },
}


def _fatigue_variant(changes: dict[str, str]) -> str:
    text = _variant(FATIGUE_TEXT, {k: v for k, v in changes.items() if " " not in k})
    for line, new in ((k, v) for k, v in changes.items() if " " in k):
        assert text.count(line) == 1, line
        text = text.replace(line, new)
    return text


def _fatigue_post(rs: Any, rng: random.Random, who: str, pid: int, initiative: bool) -> TurnPost:
    """Random posts of every shape: casts, dodges, ripostes, no action, unknown or missing
    spells, invalid bets, and rarely inputs the engine refuses (action, spell name)."""
    r = rng.random()
    kind: str | None
    if initiative:
        kind = "cast" if r < 0.93 else rng.choice(["dodge", "dodge_riposte", None])
    else:
        kinds = ("cast", "dodge", "dodge_riposte", None)
        kind = kinds[sum(r >= x for x in (0.45, 0.72, 0.96))]
    if rng.random() < 0.01:
        kind = "hover"
    bad_bet = rng.choice([None, (6, 1)])
    bet = rng.choice(rs.bets.get(kind, [(1,)])) if rng.random() < 0.93 else bad_bet
    if kind == "dodge":
        return TurnPost(who, pid, None, kind=kind, bet=bet)
    r = rng.random()
    if r < 0.04:
        return TurnPost(who, pid, None, spell_text="Bidulus", kind=kind, bet=bet)
    if r < 0.07:
        return TurnPost(who, pid, None, kind=kind, bet=bet)
    spell = "Avada Bidule" if r < 0.08 else rng.choice([s.name for s in rs.spells])
    return TurnPost(who, pid, spell, spell_text=spell, kind=kind, bet=bet)


def _both(state: DuelState, posts: list[TurnPost], dice: dict[int, tuple[int, ...]], rs: Any,
          counts: dict[str, int], trusted: bool = False) -> TurnOutcome | None:  # fmt: skip
    """The full step (with the trail) and the step without it, compared; None when both
    refuse the input with the same error. ``trusted`` (legal play only): the trusted fast
    step too."""
    from rules.errors import RuleError
    from rules.fatigue import resolve_fatigue_step
    from rules.fatigue.fast import resolve_fast

    try:
        full = resolve_fatigue_step(state, posts, dice, ruleset=rs)
    except RuleError as exc:
        with pytest.raises(RuleError) as fast_exc:
            resolve_fatigue_step(state, posts, dice, ruleset=rs, trail=False)
        assert (fast_exc.value.rule, str(fast_exc.value)) == (exc.rule, str(exc))
        counts["refused"] += 1
        return None
    counts["fast" if resolve_fast(state, posts, dice, rs) is not None else "full"] += 1
    _same_but_trail(resolve_fatigue_step(state, posts, dice, ruleset=rs, trail=False), full)
    if trusted:  # legal play: the simulator's trusted step gives the same outcome
        fast = resolve_fast(state, posts, dice, rs, trusted=True)
        if fast is not None:
            counts["trusted"] += 1
            _same_but_trail(fast, full)
            # and its lean form (the simulator's: the next state only) the same state
            assert _advanced(rs, state, posts, dice) == full.state
    return full


def _advanced(rs: Any, state: DuelState, posts: list[TurnPost],
              dice: dict[int, tuple[int, ...]]) -> DuelState | None:  # fmt: skip
    """:func:`rules.fatigue.fast.advance_trusted` of a step given as ``resolve_fast``'s."""
    from rules.fatigue.fast import advance_trusted, plan_for

    plan = plan_for(rs)
    assert plan is not None
    post = posts[0] if posts else None
    return advance_trusted(plan, state, post, dice[post.post_id][0] if post else 0)


@pytest.mark.parametrize("variant", sorted(FATIGUE_VARIANTS))
def test_fatigue_fast_path_gives_the_full_outcome_under_every_setting(variant: str) -> None:
    from rules.fatigue import load_fatigue_ruleset, new_fatigue_duel

    rs = load_fatigue_ruleset(_fatigue_variant(FATIGUE_VARIANTS[variant]))
    rng = random.Random(variant)
    types = sorted(rs.magic_types)
    counts = {"fast": 0, "full": 0, "refused": 0}
    seen: set[str] = set()
    pid = 0
    for _ in range(100):
        who = [(n, rng.choice(FATIGUE_YEARS), tuple(rng.sample(types, rng.randint(1, 2))))
               for n in (A, C)]  # fmt: skip
        state = start_duel(new_fatigue_duel(rs, who))
        while not state.finished and state.turn < 40:
            first, second = (A, C) if rng.random() < 0.5 else (C, A)
            pid += 1
            one = _both(state, [_fatigue_post(rs, rng, first, pid, True)],
                        {pid: (rng.randint(1, 6),)}, rs, counts)  # fmt: skip
            if one is None or one.finished:
                state = one.state if one else state
                continue
            pid += 1
            relaunch = rng.random() < 0.05
            posts = [] if relaunch else [_fatigue_post(rs, rng, second, pid, False)]
            two = _both(one.state, posts, {} if relaunch else {pid: (rng.randint(1, 6),)}, rs,
                        counts)  # fmt: skip
            if two is None:
                continue
            state = two.state
            seen.update(v.rule for v in one.violations + two.violations)
            seen.update(a.void_reason or ("landed" if a.landed else "missed")
                        for a in two.attacks)  # fmt: skip
            seen.update(type(e).__name__ for d in state.duellists for e in d.effects)
            seen.update(m.source for a in two.attacks for m in a.defense_modifiers)
    assert counts["fast"] > 10 * (counts["full"] + counts["refused"]) and counts["refused"] > 0
    # the generator reaches dodges, ripostes, reused and barred spells, lasting effects, wards
    assert {"landed", "dodged", "dodge", "riposte_failed", "barred", "missing_spell"} <= seen
    unreported = {
        "statuses": {"invalid_bet"},
        "violations_end": {"dodge_twice"},
        "house_rule_and_rich_types": {"reused_spell"},
    }
    assert {"reused_spell", "dodge_twice", "invalid_bet", "barred_action"} - seen <= (
        unreported.get(variant, set())
    )
    assert {"NoAttack", "NoDodge", "DamageOverTime", "Ward", "Protego"} <= seen


def test_fatigue_fast_path_leaves_unusual_steps_to_the_full_resolution() -> None:
    """Overrides, waivers, facts, a waived violation on the waiting initiative, or a step
    before the start: the full resolution runs (same outcome, no trail)."""
    from rules.fatigue import PostFacts, load_fatigue_ruleset, new_fatigue_duel
    from rules.fatigue import resolve_fatigue_step as step
    from rules.fatigue.fast import resolve_fast

    rs = load_fatigue_ruleset(FATIGUE_TEXT)
    fresh = new_fatigue_duel(rs, [(A, "5", ("brutale",)), (C, "7", ("discrete",))])
    state = start_duel(fresh)
    kw: dict[str, Any] = {"ruleset": rs, "trail": False}
    feu = TurnPost(A, 1, "Flipendo", kind="cast", bet=(1, 2, 3, 4))
    off = TurnPost(A, 1, "Flipendo", kind="dodge", bet=(1, 2, 3, 4))  # initiative_not_cast
    assert resolve_fast(fresh, [], {}, rs) is None  # not started
    assert resolve_fast(state, [feu], {1: (7,)}, rs) is None  # a d6 shows 1..6
    out = step(state, [feu], {1: (2,)}, overrides={f"{C}.points": 1}, **kw)
    assert out.state.duellist(C).points == 1 and out.trail == ()
    out = step(state, [feu], {1: (2,)}, facts={1: PostFacts(lines=2)}, **kw)
    assert [v.rule for v in out.violations] == ["short_post"]
    waived = step(state, [off], {1: (6,)}, waived=[(A, "initiative_not_cast")], **kw)
    assert [v.status for v in waived.violations] == ["waived"]
    dodge = TurnPost(C, 2, None, kind="dodge", bet=(3, 4, 5, 6))
    assert resolve_fast(waived.state, [dodge], {2: (6,)}, rs) is None
    full = step(waived.state, [dodge], {2: (6,)}, ruleset=rs)
    _same_but_trail(step(waived.state, [dodge], {2: (6,)}, **kw), full)
    assert full.attacks[0].spell == "Flipendo" and full.attacks[0].void_reason == "dodged"
    # the trusted step (the simulator's) leaves a post without a die (W1) to the full one too
    assert resolve_fast(state, [feu], {1: ()}, rs, trusted=True) is None
    one = step(state, [feu], {1: (2,)}, **kw)
    none = TurnPost(C, 2, None)
    assert resolve_fast(one.state, [none], {2: ()}, rs, trusted=True) is None
    assert resolve_fast(one.state, [none], {2: (3,)}, rs, trusted=True) is not None


def test_duo_steps_get_the_same_1v1_outcomes_without_the_trail(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every 1v1 step the 2v2 engine runs (rules/duo calls resolve_fatigue_step for each
    exchange) gives the same outcome without the trail, through the fast path when its inputs
    are ordinary."""
    import rules.duo.step as duo_step
    from rules.duo import (
        DuoPost,
        expected_posters,
        load_duo_settings,
        load_environment,
        new_duo_duel,
        posts_per_declaration,
        resolve_duo_step,
        start_duo,
    )
    from rules.errors import RuleError
    from rules.fatigue import load_fatigue_ruleset, resolve_fatigue_step
    from rules.fatigue.fast import resolve_fast

    data = ruleset_path("fatigue").parent
    rs = load_fatigue_ruleset(FATIGUE_TEXT)
    env = load_environment((data / "environments" / "serre.toml").read_text(encoding="utf-8"))
    cfg = load_duo_settings((data / "duo.toml").read_text(encoding="utf-8"))
    counts = {"fast": 0, "full": 0}

    def spy(state: DuelState, posts: Any, dice: Any, **kw: Any) -> TurnOutcome:
        full = resolve_fatigue_step(state, posts, dice, **kw)
        _same_but_trail(resolve_fatigue_step(state, posts, dice, **{**kw, "trail": False}), full)
        referee = ("overrides", "waived", "confirmed", "facts", "voided")
        ordinary = not any(kw.get(k) for k in referee)
        fast = resolve_fast(state, posts, dice, kw["ruleset"]) if ordinary else None
        counts["fast" if fast is not None else "full"] += 1
        return full

    monkeypatch.setattr(duo_step, "resolve_fatigue_step", spy)
    rng = random.Random(2)
    zones = [z.key for z in env.zones]
    names = ("Aurora", "Blaise", "Cassius", "Dorian")
    types = sorted(rs.magic_types)
    pid = refused = 0
    for n in range(40):
        together = n % 2 == 0  # all four in one zone: two posts per declaration
        place = {f"place:{who}": 0 if together else rng.randrange(len(zones)) for who in names}
        duos = [[(who, rng.choice(FATIGUE_YEARS[4:]), [rng.choice(types)]) for who in pair]
                for pair in (names[:2], names[2:])]  # fmt: skip
        state = start_duo(new_duo_duel(rs, duos, env, lambda label, k, at=place: at[label] % k))
        for _ in range(60):
            if state.duel.finished:
                break
            posters = list(expected_posters(state))[: posts_per_declaration(state, cfg)]
            posts = []
            for who in posters:
                pid += 1
                target = rng.choice([*state.opponents(who), state.teammate(who), "moi"])
                move = rng.choice([None, None, rng.choice(zones)])
                post = _fatigue_post(rs, rng, who, pid, rng.random() < 0.5)
                posts.append(DuoPost(TurnPost(**{**post.__dict__, "target": target}), move))
            dice = {p.post.post_id: (rng.randint(1, 6),) for p in posts}
            try:
                state = resolve_duo_step(state, posts, dice, ruleset=rs, env=env, settings=cfg,
                                         draw=lambda label, k: rng.randrange(k)).state  # fmt: skip
            except RuleError:
                refused += 1
    assert counts["fast"] > 200 and counts["fast"] > counts["full"] and refused < 200


# -- generated legal play (issue 26: the equality tests generated, not hand-picked) --------------
SEED_TESTS_BOOK = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"


@settings(max_examples=50, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    book=st.sampled_from(["shipped", "seed_tests"]),
    policies=st.tuples(st.sampled_from(POLICIES), st.sampled_from(POLICIES)),
)
def test_fatigue_fast_path_equals_the_full_one_on_generated_legal_play(
    seed: int, book: str, policies: tuple[Policy, Policy]
) -> None:
    """Hypothesis draws the duels (years, one or two magic types, policies, dice, who posts
    first, relaunches); every step of the legal play of the balance simulator's duellists
    goes through both paths: the fast path (no trail) gives the full resolution's outcome."""
    from rules.balance.policies import fatigue_post
    from rules.fatigue import load_fatigue_ruleset, new_fatigue_duel

    text = FATIGUE_TEXT if book == "shipped" else SEED_TESTS_BOOK.read_text(encoding="utf-8")
    rs = load_fatigue_ruleset(text)
    rng = random.Random(seed)
    types = sorted(rs.magic_types)
    counts = {"fast": 0, "full": 0, "refused": 0, "trusted": 0}
    pol = {A: policies[0], C: policies[1]}
    pid = 0
    for _ in range(2):
        who = [(n, rng.choice(FATIGUE_YEARS), tuple(rng.sample(types, rng.randint(1, 2))))
               for n in (A, C)]  # fmt: skip
        state = start_duel(new_fatigue_duel(rs, who))
        while not state.finished and state.turn < 30:
            first, second = (A, C) if rng.random() < 0.5 else (C, A)
            pid += 1
            me, opp = state.duellist(first), state.duellist(second)
            post = fatigue_post(rs, me, opp, pid, "initiative", rng, pol[first])
            one = _both(state, [post], {pid: (rng.randint(1, 6),)}, rs, counts, True)
            assert one is not None
            if one.finished:
                state = one.state
                break
            pid += 1
            if rng.random() < 0.1:
                two = _both(one.state, [], {}, rs, counts, True)
            else:
                me, opp = one.state.duellist(second), one.state.duellist(first)
                post = fatigue_post(rs, me, opp, pid, "defense", rng, pol[second])
                two = _both(one.state, [post], {pid: (rng.randint(1, 6),)}, rs, counts, True)
            assert two is not None
            state = two.state
    assert counts["refused"] == 0 and counts["fast"] > 0 and counts["trusted"] > 0
