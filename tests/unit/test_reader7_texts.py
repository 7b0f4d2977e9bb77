"""Issue 25, seventh reader (section C, clumsy items): each case rendered with a test context
(the suite's conftest lints every render) and its new wording asserted. Each test quotes the
reader's item."""

from __future__ import annotations

from typing import Any

from forumbot.publish.render import render
from forumbot.publish.typography import plain
from rules.duo import resolve_duo_step

A, B, C, D = "Aurora Vexley", "Blaise Corvin", "Cassius Thorne", "Dorian Pike"
LINK = "http://board.invalid/viewtopic.php?p={id}#p{id}"


def _text(template: str, **context: Any) -> str:
    return plain(render(template, context))


def test_missing_dice_says_who_must_post_again() -> None:
    """C12: « Pour compléter ce tour, X poste un nouveau message » read as a description."""
    one = _text("missing_dice.bbcode.j2", turn=3, missing=[{"duellist": C, "post_id": 40}],
                dice_name="Duel", dice_per_post=2, referee_name="L'arbitre")  # fmt: skip
    assert f"Pour compléter ce tour, {C} doit poster un nouveau message depuis" in one
    assert f"{C} poste un" not in one
    two = _text("missing_dice.bbcode.j2", turn=3, dice_name="Duel", dice_per_post=2,
                missing=[{"duellist": C, "post_id": 40}, {"duellist": A, "post_id": 41}],
                referee_name="L'arbitre")  # fmt: skip
    assert "Pour compléter ce tour, chaque duelliste concerné doit poster un nouveau" in two


def test_sign_up_replies_name_the_teammate_without_ton_ou_ta() -> None:
    """C18: « ton ou ta partenaire de duo », « ton coéquipier ou ta coéquipière »."""
    base = {"author": A, "post_id": 12, "post_link": LINK}
    withdrawn = _text("signup_withdrawn.bbcode.j2", **base, kind_label="un contre un",
                      is_author=False, player=B, duo=True)  # fmt: skip
    assert f"vient d'être formé pour {B}, avec qui tu faisais équipe, et on ne" in withdrawn
    mine = _text("signup_withdrawn.bbcode.j2", **base, kind_label="un contre un",
                 is_author=True, player=A, duo=True, mate=B)  # fmt: skip
    assert f"{B}, avec qui tu faisais équipe, peut se réinscrire ici dès maintenant." in mine
    busy = _text("signup_partner_busy.bbcode.j2", **base, code="teammate_signed_up", other=B,
                 kind_label="deux contre deux", stage="queued")  # fmt: skip
    assert "Choisis un autre partenaire, ou inscris-toi sans partenaire." in busy
    unknown = _text("signup_unknown_partner.bbcode.j2", **base, partner="Blase", kind="2v2")
    assert "Vérifie l'orthographe du nom de ton partenaire (c'est le nom" in unknown
    for text in (withdrawn, mine, busy, unknown):
        assert "ton ou ta" not in text.lower() and "coéquipière" not in text


def test_a_dissolved_pairing_does_not_read_as_if_the_opponent_waited() -> None:
    """C18: « ton duel contre Cassius Thorne, qui attendait son tour dans la file d'attente »
    (« qui » could be Cassius)."""
    text = _text("signup_withdrawal.bbcode.j2", case="pairing", author=A, post_id=12,
                 post_link=LINK, partner=C, reopened=False)  # fmt: skip
    assert f"ton duel contre {C}, encore dans la file d'attente, est annulé." in text
    assert "qui attendait" not in text


def test_a_concession_ends_as_the_other_final_posts_without_the_title() -> None:
    """C10: « Aurora Vexley abandonne le duel « Duel : Aurora contre Cassius ». » and
    « [b]Fin du duel[/b] : victoire de … »; the board's post is still read back after a
    restore (« abandonne le duel » of earlier posts too)."""
    from forumbot.duels.concession_recovery import _conceder

    duellists = [{"name": A, "points": 30}, {"name": C, "points": 12}]
    text = _text("concession.bbcode.j2", title="Duel : Aurora contre Cassius", conceded_by=A,
                 winners=[C], stakes=None, teammate=None, unit="PV", duellists=duellists,
                 dice_secret=None, referee_name="L'arbitre")  # fmt: skip
    assert f"{A} abandonne.\n\n[b]Fin du duel.[/b] {C} remporte le duel !" in text
    assert "Duel : Aurora" not in text and "victoire" not in text
    duo = _text("concession.bbcode.j2", title="Duel", conceded_by=A, winners=[C, D],
                stakes=None, teammate=B, unit="PV", duellists=duellists, dice_secret=None,
                referee_name="L'arbitre")  # fmt: skip
    assert f"{A} abandonne : son duo, avec {B}, perd le duel." in duo
    assert f"[b]Fin du duel.[/b] {C} et {D} remportent le duel !" in duo
    none = _text("concession.bbcode.j2", title="Duel", conceded_by=A, winners=[],
                 stakes=None, teammate=None, unit="PV", duellists=duellists, dice_secret=None,
                 referee_name="L'arbitre")  # fmt: skip
    assert "[b]Fin du duel.[/b] Le duel est clos sans vainqueur ni perdant" in none
    for posted in (text, duo, none):
        assert _conceder(posted, [A, C]) == A
    assert _conceder(f"{C} abandonne le duel « Duel : A contre C ».", [A, C]) == C
    assert _conceder(f"{A} abandonne la partie ; {C} reste.", [A, C]) is None


def test_duels_list_gives_the_unit_and_the_minus_sign_on_a_french_board() -> None:
    """C16: `duels list` printed « Blaise Corvin -15, Cassius Thorne -13 »."""
    from forumbot.cli.trail_lines import points_line
    from forumbot.web.i18n import page_translator
    from forumbot.web.page_words import PageWords

    people = [{"name": B, "points": -15}, {"name": C, "points": 13}]
    french = PageWords("fr", "Europe/Paris", page_translator("fr"))
    assert points_line(people, "fatigue", french) == f"{B} \u221215 PV, {C} 13 PV"
    english = PageWords("en", "Europe/Paris", page_translator("en"))
    assert points_line(people, "classic", english) == f"{B} -15 PD, {C} 13 PD"
    assert points_line(people, "no such ruleset", english) == f"{B} -15, {C} 13"


def test_stakes_owed_are_the_object_of_one_sentence_without_les() -> None:
    """C7: « Enjeux du duel : « une mandragore en pot ». Cassius Thorne et Dorian Pike les
    doivent à … » (« les » for one mandrake); the same in the owls (« Tu les dois à … »)."""
    from forumbot.club.stakes import stakes_owed
    from forumbot.duels.stakes import StakesTerms, public_stakes

    terms = StakesTerms("une mandragore en pot.", True)  # a player's final stop is not doubled
    final = _text("_stakes_public.bbcode.j2", owed=public_stakes(terms, [A, B], [C, D]))
    assert final.strip() == (
        f"{C} et {D} doivent à {A} et {B} les enjeux du duel : une mandragore en pot."
    )
    owls = {
        name: _text("_stakes_owed.bbcode.j2", owed=stakes_owed(terms, name, [A, B], [C, D]))
        for name in (A, C)
    }
    assert owls[A].strip() == f"{C} et {D} doivent à ton duo les enjeux du duel : une " \
        "mandragore en pot."  # fmt: skip
    assert owls[C].strip() == f"Ton duo doit à {A} et {B} les enjeux du duel : une mandragore " \
        "en pot."  # fmt: skip
    one = StakesTerms("un hibou", True)
    assert _text("_stakes_owed.bbcode.j2", owed=stakes_owed(one, A, [A], [C])).strip() == (
        f"{C} te doit les enjeux du duel : un hibou."
    )
    assert _text("_stakes_owed.bbcode.j2", owed=stakes_owed(one, C, [A], [C])).strip() == (
        f"Tu dois à {A} les enjeux du duel : un hibou."
    )
    for text in (final, *owls.values()):
        assert " les doi" not in text and "«" not in text


def test_the_won_duo_owl_tells_the_galleons_total() -> None:
    """C8: « 1 point au classement … et 5 gallions pour toi. » then « Récompenses gagnées
    pendant le duel : 5 gallions. » (5 or 10?)."""
    base = {"character": A, "outcome": "won", "galleons": 5, "owed": None,
            "topic_url": "http://board.invalid/t1", "referee_name": "L'arbitre"}  # fmt: skip
    won = _text("duo_owl_result.bbcode.j2", **base, rewards=["5 gallions", "2 PA"],
                duel_galleons=5)  # fmt: skip
    assert (
        "Ton duo l'emporte ! 1 point au classement des duels en deux contre deux et la bourse "
        "de victoire, 5 gallions, pour toi.\n\nEn plus de la bourse de victoire, tu as gagné "
        "pendant le duel : 5 gallions, 2 PA. Cela fait 10 gallions en tout."
    ) in won
    no_galleons = _text("duo_owl_result.bbcode.j2", **base, rewards=["2 PA"], duel_galleons=0)
    assert "tu as gagné pendant le duel : 2 PA.\n" in no_galleons and "en tout" not in no_galleons
    lost = _text("duo_owl_result.bbcode.j2", **base | {"outcome": "lost"},
                 rewards=["5 gallions"], duel_galleons=5)  # fmt: skip
    assert "Pendant le duel, tu as gagné : 5 gallions.\n" in lost and "en tout" not in lost


def test_a_creature_killed_beyond_its_pv_shows_the_damage_and_the_floor() -> None:
    """C1: « Aurora Vexley inflige 51 PV de dégâts au strangulot du bassin » then « Le
    strangulot du bassin : 40 − 40 = 0 PV (hors de combat) ». A real step (rules.duo: a
    Bombarda Maxima on the strangulot, PV never below 0), its context and its declaration."""
    from forumbot.duels.duo_context import turn_context
    from forumbot.publish.checks import balance_problems
    from tests.unit.test_duo_rules import CFG, ENV, RS, drawer, duel, post
    from tests.unit.test_reader25_duo import DUEL

    state = duel({"Aurora": 1, "Blaise": 0, "Cassius": 2, "Dorian": 3})
    posts = [post("Aurora", 1, "Bombarda Maxima", "le strangulot")]
    out = resolve_duo_step(state, posts, {1: (4,)}, ruleset=RS, env=ENV, settings=CFG,
                           draw=drawer({}, 2))  # type: ignore[arg-type]  # fmt: skip
    context = turn_context(RS, ENV, DUEL, state, posts, {1: (4,)}, out, "L'arbitre")  # type: ignore[arg-type]
    context["deadline"] = "avant le jeudi 3 décembre à 20 h 54"
    text = _text("duo_turn.bbcode.j2", **context)
    start = ENV.creature("strangulot").pv
    (hit,) = [e for e in context["events"] if e["kind"] == "creature_hit"]
    assert hit["amount"] > start  # the case: more damage than the creature had
    assert f"inflige {hit['amount']} PV de dégâts au strangulot du bassin" in text
    assert (
        f"Le strangulot du bassin : {start} \u2212 {hit['amount']}, ramené à 0 PV (hors de combat)"
    ) in text.replace("-", "\u2212")
    assert f"{start} − {start} = 0 PV" not in text and balance_problems(text) == []
    # a loss that leaves PV is still a sum
    alive = _text("duo_turn.bbcode.j2", **context | {"creatures": [
        {"name": "Le strangulot du bassin", "pv": 12, "before": 40, "dealt": 28}]})  # fmt: skip
    assert "Le strangulot du bassin : 40 − 28 = 12 PV" in alive.replace("-", "−")


def test_the_lint_checks_a_floor_at_zero() -> None:
    """C1: « 40 − 51, ramené à 0 PV » must have gone below 0 (checks.balance_problems)."""
    from forumbot.publish.checks import balance_problems

    assert balance_problems("[*] Le strangulot du bassin : 40 − 51, ramené à 0 PV") == []
    assert balance_problems("[*] Le strangulot du bassin : 40 − 30, ramené à 0 PV") != []
