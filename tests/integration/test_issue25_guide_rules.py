"""Issue 25, second French reader pass (W11–W16, C17–C23, T5): the players' guide states the
rules that decide results, generated from the ruleset file's settings, so that a club changing
a setting changes the guide.

RULES.md quoted: classic « An attack is deflected when the defender's effective defense is
strictly greater than the attack (a tie lands) [D]. An attack that lands removes PD equal to
the attack die. », « Charme du Bouclier: caster rolls no attack this turn; +3 to the caster's
defense roll of the same post », « The same spell twice in a row by one duellist:
`repeated_spell`; that spell has no effect »; fatigue « dodge: [...] Succeeds when its own bet
is won and the cast's bet is lost [D] », « once the opponent has been affected or directly
targeted by it, the caster may not cast it on that opponent again: `reused_spell`, the caster
loses 20 PV more », « A spell above the caster's level has no effect and costs 20 PV », « Three
violations by one duellist in a duel: the opponent [...] wins », « a spell's effect starts with
the next turn »; 2v2 « Per duo and per turn exactly one duellist moves, and must ».
"""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.publish.guide import render_guide
from forumbot.publish.typography import MINUS, NBSP, plain
from rules.ruleset import ruleset_path


def _club_file(tmp_path: Path, name: str, old: str, new: str) -> str:
    text = ruleset_path(name).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{name}-{len(list(tmp_path.iterdir()))}.toml"  # one file per variant
    path.write_text(text.replace(old, new), encoding="utf-8")
    return str(path)


def test_classic_guide_states_hit_damage_tie_repeat_unlisted_and_end() -> None:
    text = plain(render_guide("classic", platform="phpbb3"))
    assert "[b]Déroulement d'un tour[/b]" in text
    assert "au moins égal au dé de défense adverse, égalité comprise" in text  # tie_rule lands
    assert "Il enlève alors autant de PD que son dé d'attaque." in text
    assert "Lancer deux fois de suite le même sort est interdit. Le second est sans effet" in text
    # unlisted spell (reader2 C18: the advantage after a colon, the damage as a clause)
    assert "pour l'adversaire : +2 à son dé d'attaque au tour suivant, qui compte aussi pour " \
        "les dégâts." in text  # fmt: skip
    assert "Le duel s'arrête quand un duelliste tombe à 0 PD ou moins." in text
    # W11: the shield as applied (same post, no attack), not « bouclier : protège son lanceur »
    assert (
        "[b]Charme du Bouclier[/b], niveau 2, connu dès la 2e année. Effets : ajoute 3 au dé de "
        "défense de son lanceur dans le même message, et son lanceur n'attaque pas ce tour-là."
    ) in text
    assert "bouclier :" not in text and "antisort :" not in text  # C19: one colon
    assert "7e année et au-delà : 50 PD." in text and "7+e" not in text  # C17
    assert "l'arbitre lance deux dés « Duel » à six faces" in text  # C20, phpBB
    assert "Le sort s'écrit en gras, à la fin du message, une seule fois." in text  # C21
    assert "ne peut plus attaquer" not in text and "ne peut pas attaquer au tour suivant" in text


def test_classic_guide_follows_its_settings(tmp_path: Path) -> None:
    path = _club_file(tmp_path, "classic", 'tie_rule = "lands"', 'tie_rule = "deflects"')
    text = plain(render_guide(path))
    assert "dépasse le dé de défense adverse (à égalité, il est dévié)" in text
    path = _club_file(
        tmp_path, "classic", 'shield_applies = "same_turn"', 'shield_applies = "next_turn"'
    )
    assert "ajoute 3 au dé de défense de son lanceur au tour suivant" in plain(render_guide(path))
    forum = plain(render_guide("classic", platform="forumactif"))
    assert "Chaque duelliste lance avec son message deux dés « Duel » à six faces du forum" in forum


def test_fatigue_guide_states_bets_reuse_penalties_and_wards() -> None:
    typeset = render_guide("fatigue")
    text = plain(typeset)
    # W13: what a bet decides
    assert "Le pari d'un sort lancé ne compte que contre une esquive." in text
    assert "Une esquive réussit quand son pari est gagné et celui du sort esquivé perdu." in text
    # W14: the ban's scope, its cost, the spell above one's level, three infractions
    assert "Un sort qui a déjà touché ou visé (même esquivé) un adversaire ne peut plus" in text
    assert "Il reste sans effet et coûte 20 PV (acharnement déloyal)." in text
    assert "Un sort au-dessus de son niveau est sans effet et coûte 20 PV." in text
    assert "Trois infractions dans un même duel donnent la victoire à l'adversaire." in text
    # W15: who a ward protects, from when, for how long
    assert (
        "[b]Impervius[/b], niveau 1, connu dès la 1re année, famille « protection ». "
        "Effets : 11 PV "
        "de dégâts à la cible ; au tour suivant, chaque sort qui touche le lanceur lui fait 4 PV "
        "de moins."
    ) in text
    assert (
        "Effets : pendant les 2 tours suivants, chaque sort qui touche le lanceur lui fait 6 PV"
        in text
    )
    assert "Un sort de protection ne protège donc pas du sort du tour où il est lancé." in text
    # C22: one subject, from the next turn
    assert "la cible perd 3 PV par tour pendant les 2 tours suivants" in text
    assert "ne peut plus" not in text.replace("ne peut plus être lancé", "")  # C18
    assert text.startswith("[b]Guide des duels de fatigue en un contre un[/b]")  # C23
    # T5: the effects are the bot's words, typeset like the template's
    assert f"Effets{NBSP}:" in typeset and " Effets :" not in typeset


def test_fatigue_guide_follows_its_settings(tmp_path: Path) -> None:
    path = _club_file(tmp_path, "fatigue", "reused_spell_penalty = 20", "reused_spell_penalty = 30")
    assert "coûte 30 PV (acharnement déloyal)" in plain(render_guide(path))
    path = _club_file(
        tmp_path, "fatigue", 'dodge_success = "own_won_and_cast_lost"', 'dodge_success = "own_won"'
    )
    assert "Le pari d'un sort lancé ne change rien." in plain(render_guide(path))
    path = _club_file(tmp_path, "fatigue", "violations_to_lose = 3", "violations_to_lose = 4")
    assert "Quatre infractions dans un même duel" in plain(render_guide(path))


def test_duo_guide_states_zones_moves_and_knockouts() -> None:
    text = plain(render_guide("duo"))
    assert text.startswith("[b]Guide des duels de fatigue en deux contre deux[/b]")
    assert "[b]Zones et déplacements[/b]" in text  # W16
    assert (
        "À chaque tour, un seul membre de chaque duo se déplace, et ce déplacement est obligatoire."
        in text
    )
    assert "une ligne comme « Déplacement : zone 2 »" in text
    assert "Un second déplacement du même duo dans un tour coûte 20 PV, et il est refusé" in text
    assert "Un tour sans déplacement pour un duo coûte 20 PV" in text
    assert "ceux-ci ne peuvent pas le viser tous les deux dans le même tour" in text
    assert "Un duo perd quand ses deux membres sont hors de combat." in text
    assert "la victoire au duo adverse" in text


@pytest.mark.parametrize("name", ["classic", "fatigue", "duo"])
def test_guide_has_no_hyphen_minus_and_one_colon_per_sentence(name: str) -> None:
    from forumbot.publish.checks import colon_problems, typography_problems

    typeset = render_guide(name)
    assert colon_problems(typeset) == []
    body = typeset.replace("Déplacement : zone 2", "")  # players' syntax, printed as typed
    assert typography_problems(body) == []
    if name == "classic":
        assert f"{MINUS}2 au dé de défense de la cible au tour suivant" in typeset  # T5


def test_a_target_that_cannot_dodge_cannot_dodge_and_riposte_either() -> None:
    """Second reader after issue 25, W2: the guide said « ne peut pas esquiver » and that a
    dodge-riposte is no dodge for the two-dodges rule, so players took the riposte as still
    open; fatigue.toml ``no_dodge_bars_riposte = true`` bars it, and the guide says so."""
    for name in ("fatigue", "duo"):
        text = plain(render_guide(name))
        assert "Une cible qui ne peut pas esquiver ne peut pas non plus esquiver et riposter." in (
            text
        )
