"""The 2v2 declarations and owls after the independent French reader's pass (issue 25): W7-W10,
C1-C7, C39, T2-T3 (see /work/helpers/reader/findings.md as filed). Each test runs the pure 2v2
engine (rules.duo), builds the declaration's context (forumbot.duels.duo_context) and renders
it; the suite's French lint (tests/conftest.py: typography, colons, balances, damage
breakdowns) runs on every render."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from forumbot.duels.balance import duo_changes
from forumbot.duels.duo_context import turn_context
from forumbot.duels.stakes import StakesTerms, public_stakes, stakes_terms
from forumbot.publish.checks import breakdown_problems, typography_problems
from forumbot.publish.render import Trusted, of_name, render
from forumbot.publish.typography import plain
from forumbot.rulesets import load_ruleset
from forumbot.storage import open_storage
from forumbot.storage.records import Duel
from rules.duo import (
    DuoPost,
    DuoState,
    load_duo_settings,
    load_environment,
    new_duo_duel,
    resolve_duo_step,
    start_duo,
)
from rules.effects import NoAttack
from rules.fatigue.effects import Ward
from rules.model import TurnPost

DATA = Path(__file__).resolve().parents[2] / "rules" / "data"
RS = load_ruleset(str(Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"))
ENV = load_environment((DATA / "environments" / "serre.toml").read_text(encoding="utf-8"))
CFG = load_duo_settings((DATA / "duo.toml").read_text(encoding="utf-8"))
A1, A2, B1, B2 = "Aurora", "Blaise", "Cassius", "Dorian"
DUEL = Duel(1, 1, None, 1, "2v2", "fatigue", "running")


def _draw(zones: dict[str, int]) -> Any:
    def draw(label: str, n: int) -> int:
        return zones[label.split(":", 1)[1]] if label.startswith("place:") else 0

    return draw


def duel(year: str = "adult") -> DuoState:
    """A1 (brutale: +10 % on attack spells) and B1 (discrète: −5 PV per attack spell taken)
    share zone 1; the two others stand apart."""
    duos = [[(A1, year, ["brutale"]), (A2, year, ["protectrice"])],
            [(B1, year, ["discrete"]), (B2, year, ["protectrice"])]]  # fmt: skip
    zones = {A1: 0, B1: 0, A2: 1, B2: 2}
    return start_duo(new_duo_duel(RS, duos, ENV, _draw(zones)))  # type: ignore[arg-type]


def with_effect(state: DuoState, who: str, effect: object) -> DuoState:
    d = state.duel
    members = tuple(replace(x, effects=(*x.effects, effect)) if x.name == who else x
                    for x in d.duellists)  # fmt: skip
    return replace(state, duel=replace(d, duellists=members))


def post(who: str, pid: int, spell: str | None, target: str | None = None,
         move: str | None = None, kind: str | None = "cast") -> DuoPost:  # fmt: skip
    return DuoPost(TurnPost(who, pid, spell, kind=kind, bet=(3, 4, 5, 6) if kind else None,
                            target=target), move_to=move)  # fmt: skip


def declare(state: DuoState, *posts: DuoPost, **extra: Any) -> tuple[str, Any]:
    """Resolve ``posts`` as one step, render its declaration: (plain text, outcome)."""
    dice = {p.post.post_id: (4,) for p in posts}
    out = resolve_duo_step(state, list(posts), dice, ruleset=RS, env=ENV,  # type: ignore[arg-type]
                           settings=CFG, draw=_draw({}))  # fmt: skip
    context = turn_context(RS, ENV, DUEL, state, list(posts), dice, out, "L'arbitre")  # type: ignore[arg-type]
    context |= {"deadline": "avant le jeudi 3 décembre à 20 h 54", **extra}
    return plain(str(render("duo_turn.bbcode.j2", context, "fr"))), out


def test_a_damage_a_magic_type_or_a_ward_changed_shows_how_as_in_1v1() -> None:
    """W8: « qui perd 40 PV (46 de base, Fianto Duri −6 en défense) » as the 1v1 posts say
    it; the lint (breakdown_problems) checks the parts add up on every render."""
    s = declare(duel(), post(B1, 1, "Flipendo", "le décor", "zone 2"))[1].state
    text, _ = declare(s, post(A1, 2, "Flipendo", B1, "zone 3"))
    # Flipendo 20 PV, +2 (brutale, 10 %), −5 (discrète, en défense)
    assert ("Flipendo d'Aurora touche Cassius, qui a déjà joué ce tour-ci et n'a donc pas de "
            "défense : Cassius perd 17 PV (20 de base, magie brutale +2, magie discrète -5 en "
            "défense).") in text  # plain(): « − » read back as « - »  # fmt: skip
    assert breakdown_problems(text) == []
    assert breakdown_problems("qui perd 18 PV (20 de base, magie brutale +2, Protego −5).") != []
    assert breakdown_problems("qui perd 0 PV (20 de base, Protego Maxima −35 en défense).") == []


def test_a_ward_that_absorbs_the_whole_spell_says_so() -> None:
    """W9: « Reducto … touche Aurora Vexley » gave no figure when a ward took it all."""
    s = declare(duel(), post(B1, 1, "Flipendo", "le décor", "zone 2"))[1].state
    s = with_effect(s, B1, Ward(amount=35, duration=1, source="Protego Maxima", caster=B1))
    text, out = declare(s, post(A1, 2, "Flipendo", B1, "zone 3"))
    assert out.state.duel.duellist(B1).points == s.duel.duellist(B1).points
    assert ("mais magie discrète (-5) et Protego Maxima (-35) absorbent les 22 PV du sort : "
            "Cassius ne perd aucun PV.") in text  # fmt: skip


def test_a_self_cast_names_no_target_and_a_void_one_does_not_act() -> None:
    """C2: « lance Impervius sur moi » copied the player's « Cible : moi »; W7: a spell with
    no effect was still said to act on its caster."""
    text, _ = declare(duel(), post(A1, 1, "Protego", "moi", "zone 2"))
    assert "sur moi" not in text and "lance Protego, pari [3,4,5,6]" in text
    # reader2 C4: the sentence says what the ward will do, and from when (as in 1v1)
    assert "Aurora lance Protego, un sort qui agit sur son lanceur. À partir du tour 2" in text
    assert "chaque sort qui touche Aurora lui fera" in text
    young = duel(year="1")  # Protego Maxima is level 7: above a first year's level
    text, out = declare(young, post(A1, 1, "Protego Maxima", "moi", "zone 2"))
    assert "Protego Maxima d'Aurora est sans effet (sort au-dessus de son niveau)." in text
    assert "agit sur son lanceur" not in text
    assert [v.rule for v in out.violations] == ["spell_above_level"]


def test_the_scenery_promises_nothing_and_a_barred_duellist_says_why() -> None:
    """W10: « L'arbitre décrira ce qui se passe » was never kept (no referee task exists for
    the scenery); C3: « ne lance aucun sort ; dé « Pari » 2 » gave no reason and a die with
    no bet."""
    text, _ = declare(duel(), post(A1, 1, "Flipendo", "le décor", "zone 2"))
    assert "Flipendo d'Aurora vise le décor et ne change rien au duel." in text
    assert "décrira" not in text
    barred = with_effect(duel(), A1, NoAttack(duration=1, source="Stupéfix", caster=B1))
    text, _ = declare(barred, post(A1, 1, None, None, "zone 2", kind=None))
    line = next(ln for ln in text.splitlines() if ln.startswith("[*] Aurora ("))
    assert line.endswith("ne peut pas lancer de sort ce tour-ci (Stupéfix de Cassius).")
    assert "dé « Pari »" not in line


def test_an_effect_is_listed_from_the_post_where_it_lands() -> None:
    """C4: Confundo landed but « Effets en cours » came only with the end of the turn."""
    s = declare(duel(), post(B1, 1, "Flipendo", "le décor", "zone 2"))[1].state
    text, _ = declare(s, post(A1, 2, "Stupéfix", B1, "zone 3"))
    assert "[b]Effets en cours[/b]" in text
    assert "Cassius : ne peut pas lancer de sort (Stupéfix d'Aurora), à partir du tour 2" in text


def test_infractions_are_sentences() -> None:
    """C6: « Aurora Vexley, acharnement déloyal (sort déjà lancé sur cette cible) (−20 PV) »
    stacked a label and two parentheses."""
    s = declare(duel(), post(A1, 1, "Flipendo", "le décor", "zone 2"))[1].state
    text, out = declare(s, post(A2, 2, "Rictusempra", "le décor", "zone 3"))
    assert [v.rule for v in out.violations] == ["extra_move"]
    assert ("[*] Blaise perd 20 PV : son duo s'était déjà déplacé ce tour-ci, et ce second "
            "déplacement est refusé.") in text  # fmt: skip


def test_a_creature_is_named_with_its_article() -> None:
    """C5: « 235 − 5 (Sève acide, La tentacula vénéneuse) »; C39: « PV de Le strangulot »."""
    event = {"kind": "creature_ability", "who": A1, "target": "La tentacula vénéneuse",
             "detail": "Sève acide", "amount": 5}  # fmt: skip
    assert duo_changes([], [event], [], {}) == {A1: [(-5, "Sève acide de la tentacula vénéneuse")]}
    assert [of_name(n) for n in ("Le strangulot du bassin", "L'esprit", "Les lierres", "Aurora")] \
        == ["du strangulot du bassin", "de l'esprit", "des lierres", "d'Aurora"]  # fmt: skip
    from forumbot.web.i18n import translator
    from forumbot.web.views import FIELD_LABEL

    label = translator("fr")(FIELD_LABEL["creature_points"], of_name("Le strangulot du bassin"))
    assert label == "PV du strangulot du bassin"


def test_the_zone_owls_and_the_environment_are_typeset() -> None:
    """T3: « sous le dôme de verre ; un établi » had an ordinary space before « ; » (the
    environment's texts are the club's words, printed as values)."""
    for name in ("serre", "bibliotheque"):
        env = load_environment((DATA / "environments" / f"{name}.toml").read_text("utf-8"))
        for zone in env.zones:
            text = render("duo_owl_zone.bbcode.j2", {
                "character": A1, "number": 1, "zone_name": zone.name,
                "description": Trusted(zone.owl), "topic_url": "http://board.invalid/t1",
                "referee_name": "L'arbitre"}, "fr")  # fmt: skip
            assert typography_problems(text) == [], zone.key  # the club's words are own words


def test_the_final_post_names_who_owes_the_stakes_and_whether_the_duel_counts() -> None:
    """C7: « Enjeux à honorer : une mandragore en pot » named no debtor; and a 2v2 opened by
    hand promised « 1 point au classement » though only the sign-up desk's duels count (the
    leaderboard post: « Seuls les duels ouverts par les inscriptions du club comptent au
    classement »), as for 1v1 since issue 25."""
    owed = public_stakes(StakesTerms("une mandragore en pot", True), [A1, A2], [B1, B2])
    text = plain(str(render("_stakes_public.bbcode.j2", {"owed": owed}, "fr")))
    # reader2 C14: the stakes are never the object of « doivent » (seventh reader C7: after
    # « les enjeux du duel : », no « les » for one mandrake)
    assert "Cassius et Dorian doivent à Aurora et Blaise les enjeux du duel : une mandragore " \
        "en pot." in text  # fmt: skip
    refused = public_stakes(StakesTerms("une plume", False, (A1,)), [A1, A2], [B1, B2])
    text = plain(str(render("_stakes_public.bbcode.j2", {"owed": refused}, "fr")))
    assert "proposés par Aurora (« une plume ») n'ont pas été acceptés" in text
    owl = {"character": A1, "outcome": "won", "galleons": 5, "rewards": [], "owed": None,
           "topic_url": "http://board.invalid/t1", "referee_name": "L'arbitre"}  # fmt: skip
    assert "1 point au classement" in plain(str(render("duo_owl_result.bbcode.j2", owl, "fr")))
    text = plain(str(render("duo_owl_result.bbcode.j2", owl | {"counted": False}, "fr")))
    assert "1 point" not in text and "ne compte pas au classement" in text


def test_stakes_are_due_only_when_every_duo_member_wrote_them() -> None:
    """forumbot.duels.stakes.stakes_terms (moved from forumbot.club for the final posts):
    a desk's 2v2 match whose four sign-ups did not all write the stakes."""
    storage = open_storage(":memory:")
    entries = [[{"post_id": 11, "character": A1}, {"post_id": 12, "character": A2}],
               [{"post_id": 13, "character": B1}, {"post_id": 14, "character": B2}]]  # fmt: skip
    import json

    storage.db["duo_matches"].insert({"board_id": 1, "duel_id": 9, "status": "running",
                                      "duos_json": json.dumps(entries)})  # fmt: skip
    for pid, who in ((11, A1), (12, A2), (13, B1), (14, B2)):
        stakes = "une plume" if pid != 14 else None
        storage.db["duo_entries"].insert({"board_id": 1, "post_id": pid, "character": who,
                                          "stakes": stakes})  # fmt: skip
    terms = stakes_terms(storage, 1, {"id": 9, "stakes": "une plume"})
    assert not terms.agreed and terms.proposed_by == (A1, A2, B1)
    storage.db["duo_entries"].update(4, {"stakes": "Une plume"})
    assert stakes_terms(storage, 1, {"id": 9, "stakes": "une plume"}).agreed
    assert stakes_terms(storage, 1, {"id": 10, "stakes": "x"}).agreed  # opened by hand: terms
