"""Newcomer 7's French findings #19-#24 (/work/helpers/newcomer7/report.md), each rendered
with a test context (the suite's conftest lints every render) and read."""

from __future__ import annotations

from typing import Any

from forumbot.publish.checks import deadline_problems
from forumbot.publish.render import render
from forumbot.publish.typography import plain
from tests.unit.test_reader2_duo import rendered
from tests.unit.test_reader25_duo import A1, A2, B1

DEADLINE = "avant le samedi 5 décembre à 12 h 56"


def _text(template: str, **context: Any) -> str:
    return plain(str(render(template, context, "fr")))


def test_one_expected_duellist_takes_a_singular_verb() -> None:
    """#19: « Doivent encore poster ce tour-ci : Dorian Pike, avant … » with one name."""
    one = rendered(expected=[B1], together=False)
    assert f"Doit encore poster ce tour-ci : {B1}, " in one
    assert "Doivent" not in one
    two = rendered(expected=[A2, B1], together=False)
    assert f"Doivent encore poster ce tour-ci : {A2} et {B1}, " in two
    relaunch = {"last": False, "hours": 48, "turn": 3, "deadline": DEADLINE,
                "points": {A1: 30, B1: 12}, "unit": "PV", "referee_name": "L'arbitre"}  # fmt: skip
    assert f"Doit poster pour le tour 3 : {A1}, {DEADLINE}." in _text(
        "duo_relaunch.bbcode.j2", duellists=[A1], **relaunch
    )
    assert f"Doivent poster pour le tour 3 : {A1} et {B1}, {DEADLINE}." in _text(
        "duo_relaunch.bbcode.j2", duellists=[A1, B1], **relaunch
    )


def test_both_forms_and_old_posts_are_recognised_as_waiting_for_players() -> None:
    """checks.py matched the literal « Doivent encore poster »: the singular, and the posts
    already published with the plural, still need a dated deadline."""
    for text in ("Doit encore poster ce tour-ci : Dorian Pike.",
                 "Doivent encore poster ce tour-ci : Dorian Pike.",
                 "Doit poster pour le tour 3 : Dorian Pike.",
                 "Doivent poster pour le tour 3 : Aurora et Dorian."):  # fmt: skip
        assert deadline_problems(text), text
        assert deadline_problems(text.replace(".", f", {DEADLINE}.")) == [], text


def _second_declaration_undefended() -> str:
    """Fatigue 1v1, turn 1: Cassius, barred from casting and dodging, posts his story."""
    from forumbot.duels.fatigue import step_context
    from forumbot.storage.records import Duel
    from rules import TurnPost
    from rules.fatigue import resolve_fatigue_step
    from tests.unit.test_fatigue_no_action import RS, barred, initiative

    state = barred("cast", "dodge")
    one = initiative(state)
    story = TurnPost("Cassius Thorne", 2, None)
    two = resolve_fatigue_step(one.state, [story], {2: ()}, ruleset=RS)
    inputs = {"step": "defense", "state_before": one.state.to_dict(),
              "posts": [story.to_dict()], "dice": {"2": []}}  # fmt: skip
    duel = Duel(1, 1, 1, 3, "Duel", "fatigue", "running", state=one.state.to_dict())
    context = step_context(RS, duel, inputs, two, "L'arbitre")
    context["deadline"] = DEADLINE
    return plain(str(render("fatigue_turn.bbcode.j2", context, "fr")))


def test_the_deadline_is_the_first_posts_not_the_turns() -> None:
    """#20: « prend l'initiative du tour 2, à poster avant le … » (a turn is not posted)."""
    text = _second_declaration_undefended()
    assert (
        "Le premier de vous deux qui poste un sort prend l'initiative du tour 2 : premier "
        f"message à poster {DEADLINE}."
    ) in text
    assert ", à poster" not in text


def test_a_defender_who_could_not_act_is_not_told_nobody_dodges() -> None:
    """#21: « Personne n'esquive : … chaque sort prend effet » after « ne pouvait pas agir »."""
    text = _second_declaration_undefended()
    assert "ne pouvait pas agir ce tour-ci : aucun dé n'est lancé pour sa défense." in text
    assert "Personne n'esquive" not in text


def test_a_reward_draw_is_not_in_nested_parentheses() -> None:
    """#22: « 20 PV (la récompense …, a été tirée au sort avec un dé à 4 faces (tirage : 3)) »;
    « (tirage : 3) » after the colon would be a second colon in the sentence (house lint);
    verify-dice reads the new sentence and the threads already published with the old one."""
    from forumbot.duels.verify import _line_draws

    draw = "reward:creature:strangulot:3 3/4"
    event = {"kind": "reward", "who": A1, "target": None, "detail": "pv", "amount": 20,
             "creature": None, "zone": None, "draw": draw}  # fmt: skip
    names = {"creature:strangulot": "Le strangulot du bassin"}
    text = rendered(events=[event], reward_sources=names)
    sentence = (
        f"{A1} reçoit en récompense 20 PV : la récompense du strangulot du bassin, gagnée au "
        "message n° 3, tirée au sort avec un dé à 4 faces, qui a donné 3."
    )
    assert sentence in text and "))" not in text
    label = ("reward:named:du strangulot du bassin:3", 3, 4)
    assert _line_draws(sentence) == [label]
    old = (
        f"{A1} reçoit en récompense 20 PV (la récompense du strangulot du bassin, gagnée au "
        "message n° 3, a été tirée au sort avec un dé à 4 faces (tirage : 3))."
    )
    assert _line_draws(old) == [label]


def test_a_knocked_out_duellist_no_longer_posts_said_plainly() -> None:
    """#23: « hors de combat, sans plus poster dans ce duel » was stiff; the templates do not
    know a duellist's gender, so no « il » / « elle »."""
    event = {"kind": "knocked_out", "who": B1, "target": None, "detail": None, "amount": -12,
             "creature": None, "zone": None}  # fmt: skip
    text = rendered(events=[event]).replace("-12", "−12")
    assert f"{B1} tombe à −12 PV : hors de combat, ne poste plus dans ce duel (un duo perd" in text
    assert "sans plus poster" not in text


def test_the_demos_count_duplicates_without_parenthesised_plurals() -> None:
    """#24: « 0 doublon(s) » in the demos' summaries; the forms come from the catalogue."""
    from forumbot.demo.classic import duplicates_words

    assert [duplicates_words(n) for n in (0, 1, 2)] == [
        "aucun doublon", "1 doublon", "2 doublons"
    ]  # fmt: skip
