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
