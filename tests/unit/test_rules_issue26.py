"""Issue 26's engine differences (D2-D6) and rule readings, each test quoting the seed's
sentence and RULES.md's.

The duels are hand-computed on a fixed test spellbook (below: the shipped file's settings, its
spellbook replaced), so a club's, or the balance work's, new numbers do not move them. 2v2:
Aurora & Blaise against Cassius & Dorian in the shipped « serre » environment; Aurora and
Cassius face each other alone in « Le carré des mandragores » (zone 1: the 1v1 rules apply
between them), Blaise and Dorian stand in « Sous la grande verrière » (zone 4) and heal
themselves (a self cast), moving in turn to « Le bassin aux nénuphars » (zone 2) and back so
that each duo moves once a turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from forumbot.publish.typography import plain
from parsers.action import parse_action
from parsers.model import Post
from rules import DuelState, RuleError, TurnOutcome, TurnPost, ruleset_path, start_duel
from rules.duo import (
    DuoPost,
    DuoState,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    resolve_duo_step,
    start_duo,
)
from rules.duo.engine import DuoOutcome
from rules.fatigue import (
    FatigueRuleset,
    load_fatigue_ruleset,
    new_fatigue_duel,
    resolve_fatigue_step,
)

DATA = Path(__file__).resolve().parents[2] / "rules" / "data"
SHIPPED = ruleset_path("fatigue").read_text(encoding="utf-8")
BOOK = """
[[spells]]
name = "Flipendo"
aliases = []
level = 1
source = "test spellbook: Flipendo, level 1, 20 PV"
effects = [{ type = "pv_damage", amount = 20 }, { type = "spell_family", family = "attaque" }]

[[spells]]
name = "Rictusempra"
aliases = []
level = 1
source = "test spellbook: Rictusempra, level 1, 15 PV"
effects = [{ type = "pv_damage", amount = 15 }, { type = "spell_family", family = "attaque" }]

[[spells]]
name = "Episkey"
aliases = []
level = 1
source = "test spellbook: Episkey, level 1, heals the caster 25 PV"
effects = [{ type = "heal", amount = 25 }, { type = "spell_family", family = "soin" }]

[[spells]]
name = "Diffindo"
aliases = []
level = 4
source = "test spellbook: Diffindo, level 4, 35 PV"
effects = [{ type = "pv_damage", amount = 35 }, { type = "spell_family", family = "attaque" }]

[[spells]]
name = "Confringo"
aliases = []
level = 6
source = "test spellbook: Confringo, level 6, 55 PV"
effects = [{ type = "pv_damage", amount = 55 }, { type = "spell_family", family = "feu" }]
"""


def book_ruleset(extra: str = "", spells: str = BOOK) -> FatigueRuleset:
    """The shipped fatigue settings with the fixed test spellbook (``extra``: more top-level
    settings, placed before the spellbook)."""
    head = SHIPPED[: SHIPPED.index("[[spells]]")]
    return load_fatigue_ruleset(head + extra + spells)


RS = book_ruleset()
ENV = load_environment((DATA / "environments" / "serre.toml").read_text(encoding="utf-8"))
CFG = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))
A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"
HIGH, LOW = (3, 4, 5, 6), (1, 2, 3, 4)
PAIRS = {A1: 0, B1: 0, A2: 3, B2: 3}  # Aurora & Cassius alone in zone 1, the others in zone 4


def drawer(zones: dict[str, int]) -> Callable[[str, int], int]:
    def draw(label: str, n: int) -> int:
        return zones[label.split(":", 1)[1]] if label.startswith("place:") else 0

    return draw


def duel2(zones: dict[str, int] = PAIRS, years: dict[str, str] | None = None,
          rs: FatigueRuleset = RS) -> DuoState:  # fmt: skip
    y = years or {}
    duos = [
        [(A1, y.get(A1, "adult"), ["sournoise"]), (A2, y.get(A2, "adult"), ["sournoise"])],
        [(B1, y.get(B1, "adult"), ["sournoise"]), (B2, y.get(B2, "adult"), ["sournoise"])],
    ]
    return start_duo(new_duo_duel(rs, duos, ENV, drawer(zones)))


def p2(who: str, pid: int, spell: str | None, target: str | None = None, *,
       kind: str | None = "cast", bet: tuple[int, ...] = HIGH,
       move: str | None = None) -> DuoPost:  # fmt: skip
    return DuoPost(
        TurnPost(who, pid, spell, spell_text=spell, kind=kind, bet=bet, target=target),
        move_to=move,
    )


def step2(state: DuoState, posts: Sequence[DuoPost], dice: Sequence[int] | int = 4, *,
          rs: FatigueRuleset = RS,
          waived: Sequence[tuple[str, str]] = ()) -> DuoOutcome:  # fmt: skip
    faces = [dice] * len(posts) if isinstance(dice, int) else list(dice)
    return resolve_duo_step(
        state, list(posts), {p.post.post_id: (f,) for p, f in zip(posts, faces, strict=True)},
        ruleset=rs, env=ENV, settings=CFG, draw=drawer({}), waived=waived,
    )  # fmt: skip


def heals(state: DuoState, pid: int, turn: int) -> DuoState:
    """Blaise and Dorian heal themselves; the one whose turn it is to move moves (zone 2 on odd
    turns, back to zone 4 on even ones), so that no duo misses its move."""
    where = "zone 2" if turn % 2 else "zone 4"
    o = step2(state, [p2(A2, pid, "Episkey", "moi", move=where)])
    o = step2(o.state, [p2(B2, pid + 1, "Episkey", "moi", move=where)])
    return o.state


def pv(state: DuoState, name: str) -> int:
    return state.duel.duellist(name).points


def rules_of(outcome: DuoOutcome) -> list[tuple[str, str, str]]:
    return [(v.duellist, v.rule, v.status) for v in outcome.violations]


# --- D3: the 2v2 step keeps the action that counted ----------------------------------------------


def test_d3_a_dodge_after_an_ignored_dodge_is_not_a_second_dodge() -> None:
    """Seed 001: « Il est de plus interdit d'utiliser cette action deux tours de suite ».
    RULES.md: "A forbidden second dodge fails (as if no dodge), costs 20 PV, and the incoming
    spell lands" — as if no dodge, so the turn after it a dodge is allowed again (1v1 keeps
    ``_counted_action``; the 2v2 step kept the declared action and charged ``dodge_twice``
    a second time).

    Hand-computed: turn 1 Cassius' Flipendo (die 4, bet [3-6] won) at Aurora, who dodges (die
    4, won: the cast's bet won, so the dodge fails): Aurora 500 - 20 = 480. Turn 2 Cassius'
    Rictusempra, Aurora dodges again: ``dodge_twice`` (-20), ignored, Rictusempra lands:
    480 - 20 - 15 = 445. Turn 3 Cassius' Diffindo (die 2: his bet [3-6] lost), Aurora dodges
    (die 4, won): a legal dodge, it succeeds: 445."""
    s = duel2()
    o = step2(s, [p2(B1, 1, "Flipendo", A1)])
    o = step2(o.state, [p2(A1, 2, None, B1, kind="dodge")])
    assert rules_of(o) == [] and o.state.duel.duellist(A1).last_action == "dodge"
    s = heals(o.state, 3, 1)
    assert s.duel.turn == 1
    assert pv(s, A1) == 500 - 20
    o = step2(s, [p2(B1, 5, "Rictusempra", A1)])
    o = step2(o.state, [p2(A1, 6, None, B1, kind="dodge")])
    assert rules_of(o) == [(A1, "dodge_twice", "applied")]
    assert o.state.duel.duellist(A1).last_action is None  # the ignored dodge counts as none
    s = heals(o.state, 7, 2)
    assert pv(s, A1) == 500 - 20 - 20 - 15
    o = step2(s, [p2(B1, 9, "Diffindo", A1)], dice=2)
    o = step2(o.state, [p2(A1, 10, None, B1, kind="dodge")], dice=4)
    assert rules_of(o) == []  # no second dodge_twice
    assert pv(o.state, A1) == 500 - 20 - 20 - 15  # Diffindo dodged
    assert o.state.duel.duellist(A1).last_action == "dodge"


# --- D4: a void initiative does not wait -------------------------------------------------------


def test_d4_a_void_initiative_is_stated_once_and_does_not_wait() -> None:
    """Seed 001: « Première année : sorts de niveau 1 » ... « Cinquième année : sorts de niveau
    1, 2, 3, 4 & 5 ». RULES.md: "A spell above the caster's level has no effect and costs 20
    PV." A spell with no effect has nothing for its target to answer: it is stated once, it
    does not wait, and the target's dodge is spent on nothing (no dodge for next turn's ban).

    Hand-computed: Cassius (5th year, 300 PV) casts Confringo (level 6) at Aurora:
    ``spell_above_level``, 300 - 20 = 280, nothing waits. Aurora dodges: « rien à esquiver »,
    no violation (a spell was aimed at her), 500 PV. Next turn Cassius' Flipendo (die 2, bet
    lost) and Aurora's dodge (die 4, won): a legal first dodge, it succeeds."""
    s = duel2(years={B1: "5"})
    o = step2(s, [p2(B1, 1, "Confringo", A1)])
    assert rules_of(o) == [(B1, "spell_above_level", "applied")]
    assert o.state.pending == () and pv(o.state, B1) == 280
    assert [(a.attacker, a.void_reason) for a in o.attacks] == [(B1, "spell_above_level")]
    assert "pending" not in [e.kind for e in o.events]
    o = step2(o.state, [p2(A1, 2, None, B1, kind="dodge")])
    assert rules_of(o) == [] and o.attacks == ()  # not stated a second time
    assert [e.kind for e in o.events] == ["nothing_to_dodge"]
    assert pv(o.state, A1) == 500 and pv(o.state, B1) == 280
    assert o.state.duel.duellist(A1).last_action is None
    s = heals(o.state, 3, 1)
    o = step2(s, [p2(B1, 5, "Flipendo", A1)], dice=2)
    o = step2(o.state, [p2(A1, 6, None, B1, kind="dodge")], dice=4)
    assert rules_of(o) == [] and pv(o.state, A1) == 500


# --- D5: a 2v2 initiative that dodges -------------------------------------------------------------


def test_d5_an_initiative_that_dodges_is_charged_as_in_1v1() -> None:
    """Seed 001: « L'initiative n'offre qu'un choix d'action : 'lancer un sort' » and « Si deux
    duellistes adverses se retrouvent dans la même zone, les règles des duels en un contre un
    s'appliquent ». RULES.md: "Turn: the first duellist to post takes the initiative: their
    only action is cast" and "Two opponents alone in a zone: the 1v1 rules apply between
    them." A 2v2 post with no spell aimed at its author opens an exchange: a dodge there is
    ``initiative_not_cast`` (fatigue.toml: applied, 20 PV), as in 1v1, and is no dodge.

    Hand-computed: Aurora posts first and dodges: 500 - 20 = 480, nothing else happens, and
    Cassius' post is an initiative of his own (nothing waits on him)."""
    s = duel2()
    o = step2(s, [p2(A1, 1, None, B1, kind="dodge")])
    assert rules_of(o) == [(A1, "initiative_not_cast", "applied")]
    assert pv(o.state, A1) == 480 and o.state.pending == ()
    assert o.state.duel.duellist(A1).last_action is None
    # a dodge_riposte whose violation the referee waives is read as the cast, as in 1v1
    o = step2(s, [p2(A1, 1, "Flipendo", B1, kind="dodge_riposte")],
              waived=[(A1, "initiative_not_cast")])  # fmt: skip
    assert rules_of(o) == [(A1, "initiative_not_cast", "waived")]
    assert [(p.attacker, p.target) for p in o.state.pending] == [(A1, B1)]
    assert pv(o.state, A1) == 500


# --- D2: a post naming two targets ---------------------------------------------------------------


def test_d2_the_parser_reports_every_target_named() -> None:
    """Seed 001: « Cette action permet de lancer un sort sur la cible de son choix ». The
    parser (pure) does not pick one of the names: it reports both, in the order written."""
    book = {s.name: s.aliases for s in RS.spells}
    text = "Un long texte.\nFlipendo\nPari : [3,4,5,6]\nCible : Jules Meyer et Irène Vasseur"
    action = parse_action(written(text), book)
    assert action.target == "Jules Meyer et Irène Vasseur"
    assert action.targets == ("Jules Meyer", "Irène Vasseur")
    one = parse_action(written(text.replace(" et Irène Vasseur", "")), book)
    assert (one.target, one.targets) == ("Jules Meyer", ())


def written(text: str) -> Post:
    return Post(post_id=1, author="Aurora", author_id=2, posted_at=None, edited=None, text=text,
                bold=("Flipendo",), quotes=(), line_count=text.count("\n") + 1)  # fmt: skip


def test_d2_a_spell_naming_two_targets_resolves_nothing_and_asks_the_referee() -> None:
    """Seed 001: « Cette action permet de lancer un sort sur la cible de son choix » (one spell,
    one target). RULES.md: "Actions: cast on any target (opponent, teammate, self, creature,
    scenery)" — a target, never two. The engine used to send the spell to the first name in
    roster order (not even the first written); now nothing resolves for that spell and
    ``missing_target`` is proposed to the referee (duo.toml: proposed).

    Hand-computed: all four in zone 1 (no 1v1 pairing to guess from). Aurora's initiative
    « Cible : Dorian et Cassius »: no PV moves, nothing waits, the names in the order written.
    Cassius' Flipendo at Blaise waits; Blaise's defense is a cast naming « Cassius, Dorian »:
    Cassius' Flipendo lands (a defender who casts cannot avoid it: 500 - 20 = 480), Blaise's
    own spell resolves nothing."""
    s = duel2({A1: 0, A2: 0, B1: 0, B2: 0})
    o = step2(s, [p2(A1, 1, "Flipendo", "Dorian et Cassius"),
                  p2(B1, 2, "Flipendo", A2)])  # fmt: skip
    assert rules_of(o) == [(A1, "missing_target", "proposed")]
    assert [(e.who, e.target) for e in o.events if e.kind == "several_targets"] == [
        (A1, "Dorian, Cassius")
    ]
    assert [(p.attacker, p.target) for p in o.state.pending] == [(B1, A2)]
    assert [pv(o.state, n) for n in (A1, A2, B1, B2)] == [500, 500, 500, 500]
    o = step2(o.state, [p2(A2, 3, "Rictusempra", "Cassius, Dorian", move="zone 2"),
                        p2(B2, 4, "Episkey", "moi", move="zone 2")])  # fmt: skip
    assert rules_of(o) == [(A2, "missing_target", "proposed")] and o.turn_closed
    assert [pv(o.state, n) for n in (A1, A2, B1, B2)] == [500, 480, 500, 500]
    assert [(a.attacker, a.defender, a.landed) for a in o.attacks] == [(B1, A2, True)]


# --- « sauf contre-indication »: max_casts, and the named house rule ----------------------------

A, C = "Aurora Vexley", "Cassius Thorne"


def duel1(rs: FatigueRuleset, year: str = "adult") -> DuelState:
    return start_duel(new_fatigue_duel(rs, [(A, year, ("sournoise",)), (C, year, ("sournoise",))]))


def turn1(state: DuelState, rs: FatigueRuleset, pid: int, first: TurnPost | str,
          second: TurnPost | str) -> tuple[TurnOutcome, TurnOutcome]:  # fmt: skip
    def post(who: str, p: TurnPost | str, n: int) -> TurnPost:
        if isinstance(p, TurnPost):
            return p
        return TurnPost(who, n, p, spell_text=p, kind="cast", bet=HIGH)

    one = resolve_fatigue_step(state, [post(A, first, pid)], {pid: (4,)}, ruleset=rs)
    two = resolve_fatigue_step(one.state, [post(C, second, pid + 1)], {pid + 1: (4,)},
                               ruleset=rs)  # fmt: skip
    return one, two


def test_max_casts_limits_a_spell_per_duel() -> None:
    """Seed 001: « Un duelliste peut réutiliser un sort autant de fois qu'il le désire au cours
    d'un duel (sauf contre-indication) »: the contre-indication *limits* reuse. RULES.md:
    "Reuse: a spell may be cast again and again unless the spellbook says otherwise". The
    spellbook says so with ``max_casts``; a cast beyond it is ``cast_limit``: no effect, and
    20 PV (« Si une règle, quelle qu'elle soit, [...] n'est pas respectée, le fautif se verra
    retirer 20 PV »). The count is per duellist: the opponent may still cast it.

    Hand-computed (adults, 500 PV; a heal lands after the damage of the same turn): Episkey
    limited to 2 casts. Turn 1 Aurora's Flipendo, Cassius' Diffindo: Aurora 465. Turn 2
    Episkey against Rictusempra: 465 - 15 + 25 = 475; turn 3 Episkey against Flipendo: 475 - 20
    + 25 = 480. Turn 4 her third Episkey is void: 480 - 20 (cast_limit) - 55 (Confringo) =
    405. Cassius' own first Episkey is fine."""
    book = BOOK.replace('name = "Episkey"\n', 'name = "Episkey"\nmax_casts = 2\n')
    rs = book_ruleset(spells=book)
    assert rs.spell("Episkey").max_casts == 2 and rs.spell("Flipendo").max_casts is None
    _, two = turn1(duel1(rs), rs, 1, "Flipendo", "Diffindo")
    assert two.state.duellist(A).points == 465
    _, two = turn1(two.state, rs, 3, "Episkey", "Rictusempra")
    assert two.state.duellist(A).points == 475 and two.state.duellist(A).cast_count("Episkey") == 1
    _, two = turn1(two.state, rs, 5, "Episkey", "Flipendo")
    assert two.state.duellist(A).points == 480 and two.state.duellist(A).casts == (("Episkey", 2),)
    one, two = turn1(two.state, rs, 7, "Episkey", "Confringo")
    assert [(v.duellist, v.rule, v.status) for v in one.violations] == [
        (A, "cast_limit", "applied")
    ]
    assert two.state.duellist(A).points == 405
    assert two.attacks[0].void_reason == "cast_limit"
    assert two.state.duellist(A).casts == (("Episkey", 2),)  # a void cast is not counted
    _, two = turn1(two.state, rs, 9, "Rictusempra", "Episkey")  # Cassius' first Episkey: fine
    assert two.violations == ()
    # the count survives the state's JSON; a book without limits keeps no count at all
    assert DuelState.from_dict(two.state.to_dict()) == two.state
    assert "casts" not in duel1(RS).duellists[0].to_dict()
    with pytest.raises(RuleError) as err:
        book_ruleset(spells=BOOK.replace('name = "Episkey"\n', 'name = "Episkey"\nmax_casts = 0\n'))
    assert err.value.rule.endswith(".max_casts")


HOUSE = """
[house_rules.recast_same_opponent]
name = "Relance libre"
description = "Un sort peut être relancé sur un adversaire qu'il a déjà touché."
"""


def test_recasting_at_the_same_opponent_is_only_a_named_house_rule() -> None:
    """Seed 001: « à partir du moment où son adversaire est affecté ou directement ciblé par
    un sort, il est formellement interdit au lanceur de le réutiliser une seconde fois sur son
    adversaire ». RULES.md: "once the opponent has been affected or directly targeted by it,
    the caster may not cast it on that opponent again: `reused_spell`". Never a switch: a club
    that wants the variant declares it, with a name and a description the players are shown
    on the opening declaration."""
    s = duel1(RS)
    _, two = turn1(s, RS, 1, "Flipendo", "Rictusempra")
    one, _ = turn1(two.state, RS, 3, "Flipendo", "Rictusempra")
    assert [v.rule for v in one.violations] == ["reused_spell"]
    rs = book_ruleset(extra=HOUSE)
    assert rs.house_rule("recast_same_opponent")
    assert rs.house_rules["recast_same_opponent"].name == "Relance libre"
    s = duel1(rs)
    _, two = turn1(s, rs, 1, "Flipendo", "Rictusempra")
    one, two = turn1(two.state, rs, 3, "Flipendo", "Rictusempra")
    assert one.violations == () and two.state.duellist(C).points == 500 - 20 - 20
    for bad, rule in (
        ("[house_rules]\nrecast_same_opponent = true\n", "house_rules.recast_same_opponent"),
        ('[house_rules.free_for_all]\nname = "x"\ndescription = "y"\n', "house_rules.free_for_all"),
        ('[house_rules.recast_same_opponent]\nname = "x"\n', "description"),
    ):
        with pytest.raises(RuleError) as err:
            book_ruleset(extra=bad)
        assert err.value.rule == rule
    from forumbot.duels.opening import club_variants
    from forumbot.publish.render import render

    shown = club_variants(rs)
    assert shown["house_rules"] == [
        {"name": "Relance libre",
         "description": "Un sort peut être relancé sur un adversaire qu'il a déjà touché."}
    ]  # fmt: skip
    text = render("fatigue_opening.bbcode.j2", {
        "title": "t", "duellists": [], "unit": "PV", "stakes": None, "commitment": "c",
        "dice_source": "bot", "early": [], "referee_name": "Arbitre", "bets": rs.bets,
        "min_lines": 10, "hours": 36, "dice_name": "Pari", **shown,
    }, "fr")  # fmt: skip
    assert "Règle de la maison « Relance libre »" in plain(text)


# --- A duel that truly cannot end ---------------------------------------------------------------


def spent(state: DuelState, rs: FatigueRuleset) -> DuelState:
    """Every damaging spell of the book already spent by each duellist on the other."""
    from rules.stalemate import damaging

    names = [s.name for s in rs.spells if damaging(s)]
    a, c = state.duellists
    return DuelState.from_dict(
        {
            **state.to_dict(),
            "duellists": [
                {**a.to_dict(), "spells_used_on": [[n, c.name] for n in names]},
                {**c.to_dict(), "spells_used_on": [[n, a.name] for n in names]},
            ],
        }
    )


def test_spells_exhausted_is_noticed_at_once_not_after_a_turn_cap() -> None:
    """Seed 001: « il est formellement interdit au lanceur de le réutiliser une seconde fois sur
    son adversaire », and the duel's end is « l'arbitre relancera une dernière fois avant de
    mettre fin au duel ». RULES.md: "Reuse: [...] the caster may not cast it on that opponent
    again" and "after one more delay with no post the duel closes with no winner, no loser and
    no rewards". When no duellist has a damaging spell left for an opponent, the duel cannot
    end by play: the proposal comes at once (no count of quiet turns) and names no winner."""
    from rules.stalemate import castable_attacks, propose_exhausted

    s = duel1(RS)
    assert propose_exhausted(s, RS) is None  # everything still to cast
    stuck = spent(s, RS)
    assert castable_attacks(RS, stuck.duellists[0], stuck.duellists[1]) == ()
    proposal = propose_exhausted(stuck, RS)
    assert proposal is not None and proposal.reason == "spells_exhausted"
    assert proposal.points == {A: 500, C: 500} and "relancera" in proposal.source
    # one spell left to one duellist: the duel can still end
    a, c = stuck.duellists
    left = DuelState.from_dict({**stuck.to_dict(), "duellists": [
        {**a.to_dict(), "spells_used_on": [list(p) for p in a.spells_used_on[1:]]},
        c.to_dict(),
    ]})  # fmt: skip
    assert castable_attacks(RS, left.duellists[0], left.duellists[1]) == ("Flipendo",)
    assert propose_exhausted(left, RS) is None
    # a first-year knows only level 1: Diffindo and Confringo are no way out for him
    young = duel1(RS, year="1")
    a, c = young.duellists
    young = DuelState.from_dict({**young.to_dict(), "duellists": [
        {**a.to_dict(), "spells_used_on": [["Flipendo", C], ["Rictusempra", C]]},
        {**c.to_dict(), "spells_used_on": [["Flipendo", A], ["Rictusempra", A]]},
    ]})  # fmt: skip
    assert propose_exhausted(young, RS) is not None
    # the club's house rule lifts the ban: never exhausted
    assert propose_exhausted(spent(s, book_ruleset(extra=HOUSE)), book_ruleset(extra=HOUSE)) is None
    # 2v2: teammates are no opponents; a creature still standing may take PV
    sides = {A: 0, C: 1}
    assert propose_exhausted(stuck, RS, sides=sides) is not None
    assert propose_exhausted(stuck, RS, sides=sides, other_damage=True) is None


def test_the_bot_opens_one_referee_task_when_no_damaging_spell_is_left() -> None:
    """The running bot (fatigue 1v1, ``club.stalemate_turns`` 8): the turn after which no
    damaging spell is left opens one ``stalemate`` referee task proposing the seed's end; the
    duel stays running (the bot closes nothing, names no winner)."""
    import json

    from forumbot.duels.duo import referee_tasks
    from forumbot.rulesets import load_ruleset
    from tests.unit.test_fatigue_flow import make

    duel = make()
    shipped = load_ruleset("fatigue")
    assert isinstance(shipped, FatigueRuleset)
    row = duel.storage.duels()[0]
    state = spent(DuelState.from_dict(json.loads(row["state_json"])), shipped)
    duel.storage.db["duels"].update(row["id"], {"state_json": json.dumps(state.to_dict())})
    heal = next(s.name for s in shipped.spells if not _damaging(s) and s.level <= 5)
    duel.post(A, "cast", heal, win=True)
    duel.cycle()
    duel.post(C, "cast", heal, win=True)
    duel.cycle()
    tasks = [t for t in referee_tasks(duel.storage, 1, status=None) if t["kind"] == "stalemate"]
    assert len(tasks) == 1
    assert "plus aucun duelliste ne peut lancer de sort d'attaque" in str(tasks[0]["text"])
    assert "relancera une dernière fois" in str(tasks[0]["text"])
    assert duel.storage.duels()[0]["status"] == "running"
    duel.post(A, "cast", heal, win=True)
    duel.cycle()
    duel.post(C, "cast", heal, win=True)
    duel.cycle()
    assert len([t for t in referee_tasks(duel.storage, 1, status=None)
                if t["kind"] == "stalemate"]) == 1  # fmt: skip


def _damaging(spell: object) -> bool:
    from rules.stalemate import damaging

    return damaging(spell)  # type: ignore[arg-type]


# --- D6: a silent duellist at a 2v2 deadline ------------------------------------------------------


def test_d6_a_silent_duellist_passes_the_turn_and_the_spell_waiting_on_him_lands() -> None:
    """Seed 001: « Si 36h ou 48h (selon type de duel) après la première déclaration de
    l'arbitre le second duelliste n'a pas posté sa défense, l'arbitre relancera
    automatiquement le jeu », and the duel ends only when « aucun des deux duellistes n'a
    saisi l'initiative ». RULES.md: "the initiative spell resolves undefended and the turn
    closes" and "A missed deadline is not a violation: the relaunch handles it". One silent
    duellist no longer closes a four-player duel.

    Hand-computed: Cassius' Flipendo waits on Aurora; Blaise heals himself without moving
    (Aurora was to move for their duo), Dorian heals and moves. Aurora stays silent: at the
    deadline Flipendo lands undefended (500 - 20 = 480), she stays in zone 1, her duo is not
    charged ``missing_move``, the turn closes; next turn her dodge is a first dodge."""
    from rules.duo import resolve_duo_silence

    s = duel2()
    o = step2(s, [p2(B1, 1, "Flipendo", A1)])
    o = step2(o.state, [p2(A2, 2, "Episkey", "moi")])
    o = step2(o.state, [p2(B2, 3, "Episkey", "moi", move="zone 2")])
    assert o.state.pending and not o.turn_closed
    silent = resolve_duo_silence(o.state, ruleset=RS, env=ENV, settings=CFG, draw=drawer({}))
    assert silent.turn_closed and not silent.finished and silent.violations == ()
    assert [(a.attacker, a.defender, a.landed, a.damage) for a in silent.attacks] == [
        (B1, A1, True, 20)
    ]
    assert [(e.kind, e.who, e.detail) for e in silent.events if e.kind == "silent"] == [
        ("silent", A1, "aimed")
    ]
    after = silent.state
    assert pv(after, A1) == 480 and after.zone_of(A1) == "mandragores" and after.pending == ()
    assert after.duel.turn == 1 and after.posted == ()
    o = step2(after, [p2(B1, 5, "Rictusempra", A1)], dice=2)
    o = step2(o.state, [p2(A1, 6, None, B1, kind="dodge")], dice=4)
    assert rules_of(o) == [] and pv(o.state, A1) == 480  # a first dodge, and it succeeds
    # nobody posted this turn: that is a relaunch (nobody took the initiative), not a silence
    with pytest.raises(RuleError) as err:
        resolve_duo_silence(s, ruleset=RS, env=ENV, settings=CFG, draw=drawer({}))
    assert err.value.rule == "duo.silence"


# --- Readings RULES.md must decide (docs/rules-readings.md) -------------------------------------


def test_reading_a_creature_is_reached_only_from_its_own_zone() -> None:
    """Seed 001: « La salle en question se divise en 4 zones [...] dans lesquelles les
    duellistes peuvent évoluer » and « Vaincre une créature [...] fait remporter une
    récompense ». RULES.md: "Two opponents alone in a zone: the 1v1 rules apply between them"
    (a zone bounds who faces whom). Reading: a spell reaches a creature only from the
    creature's own zone; from elsewhere it acts on the scenery (the post's action, no effect).

    Hand-computed: the strangulot (40 PV) lives in « Le bassin » (zone 2); Aurora's Flipendo
    from zone 1 leaves it at 40; Blaise's from zone 2 would not (checked below: 40 - 20)."""
    s = duel2({A1: 0, A2: 1, B1: 0, B2: 3})
    o = step2(s, [p2(A1, 1, "Flipendo", "strangulot")])
    assert o.state.creature_pv("strangulot") == 40
    assert [(e.kind, e.detail) for e in o.events] == [("scenery", "not in the caster's zone")]
    o = step2(o.state, [p2(A2, 2, "Flipendo", "strangulot")])
    assert o.state.creature_pv("strangulot") == 20
    assert pv(o.state, A2) == 500 - 10  # « Étreinte »: who hits it without felling it loses 10


def test_reading_the_caster_s_magic_types_apply_to_creature_damage() -> None:
    """Seed 001: « l'utilisation de certains sorts et leurs résultats seront parfois
    différents selon le type de magie du duelliste et le contexte dans lequel il les lance ».
    RULES.md: "Results can depend on the duellist's magic type and on context". Reading
    (duo.toml ``creature_damage = "caster"``): the caster's bonuses follow their spell to a
    creature as to a duellist; a creature has no magic type, so nothing on its side but its
    armour. ``"base"`` is the other reading (the spell's PV only).

    Hand-computed: a brutale Aurora (« tes sorts d'attaque infligent 10 % de dégâts en plus »)
    in zone 2 casts Diffindo (35, attaque) at the strangulot: 35 + 3 = 38 of its 40 PV: 2
    left. Under ``"base"``: 35, 5 left."""
    from dataclasses import replace as evolve

    duos = [[(A1, "adult", ["brutale"]), (A2, "adult", ["sournoise"])],
            [(B1, "adult", ["sournoise"]), (B2, "adult", ["sournoise"])]]  # fmt: skip
    s = start_duo(new_duo_duel(RS, duos, ENV, drawer({A1: 1, A2: 0, B1: 0, B2: 3})))
    o = step2(s, [p2(A1, 1, "Diffindo", "strangulot")])
    assert CFG.creature_damage == "caster" and o.state.creature_pv("strangulot") == 2
    base = resolve_duo_step(
        s, [p2(A1, 1, "Diffindo", "strangulot")], {1: (4,)}, ruleset=RS, env=ENV,
        settings=evolve(CFG, creature_damage="base"), draw=drawer({}),
    )  # fmt: skip
    assert base.state.creature_pv("strangulot") == 5


def test_reading_a_move_takes_effect_with_its_post_unless_the_club_says_end_of_turn() -> None:
    """Seed 001: « Se déplacer : Permet de changer de zone. [...] Cette action peut (et doit)
    être effectuée en même temps que l'une des actions présentées ci-après », and the all-four
    example « Initiative 1 : A1 vise B1 / Initiative 2 : B2 vise A1 / Intervention arbitre /
    Défense 1 [...] / Défense 2 [...] ». RULES.md: "plus move, written at the end of the post
    together with another action"; "Per duo and per turn exactly one duellist moves, and
    must". Reading (duo.toml ``move_effect = "at_once"``): the move happens with its post, so
    the example holds when each duo moves in its last post; ``"end_of_turn"`` (the four stay
    put the whole turn, the moves take effect when it closes) is the club's other choice.

    Hand-computed: all four in zone 1; Aurora's initiative moves her to zone 2. At once: she
    is in zone 2 after her post and the next posts get one declaration each. End of turn: she
    stays in zone 1 (« se déplacera ») until the turn closes, the cadence stays two posts."""
    from dataclasses import replace as evolve

    from rules.duo import posts_per_declaration

    s = duel2({A1: 0, A2: 0, B1: 0, B2: 0})
    first = [p2(A1, 1, "Flipendo", B1, move="zone 2"), p2(B2, 2, "Flipendo", A1, move="zone 2")]
    o = step2(s, first)
    assert o.state.zone_of(A1) == "bassin" and posts_per_declaration(o.state, CFG) == 1
    later = evolve(CFG, move_effect="end_of_turn")
    o = resolve_duo_step(s, first, {1: (4,), 2: (4,)}, ruleset=RS, env=ENV, settings=later,
                         draw=drawer({}))  # fmt: skip
    assert o.state.zone_of(A1) == "mandragores" and posts_per_declaration(o.state, later) == 2
    assert [e.kind for e in o.events if e.kind.startswith("move")] == ["move_planned"] * 2
    assert o.entered == ()
    o = resolve_duo_step(o.state, [p2(B1, 3, "Rictusempra", A2), p2(A2, 4, "Rictusempra", B2)],
                         {3: (4,), 4: (4,)}, ruleset=RS, env=ENV, settings=later,
                         draw=drawer({}))  # fmt: skip
    assert o.turn_closed and o.violations == ()
    assert (o.state.zone_of(A1), o.state.zone_of(B2)) == ("bassin", "bassin")
    assert set(o.entered) == {(A1, "bassin"), (B2, "bassin")} and o.state.moves == ()
