"""Issue 25, fourth reader's « wrong or misleading » items (W1–W4, W6): each test renders the
branch the reader quoted, from a real engine outcome where one exists, and checks the French
the players or the referee read (the suite's conftest lints every render)."""

from __future__ import annotations

from typing import Any

from forumbot.duels.classic import defensive_spells
from forumbot.publish.render import render
from forumbot.publish.typography import plain
from tests.unit.test_rules_classic import ANTISORT, BOUCLIER, DESARMEMENT, GLACE, RS, duel, play

A, C = "Aurora Vexley", "Cassius Thorne"


def _classic(outcome: Any, turn: int) -> str:
    data = outcome.to_dict()
    return plain(render("turn.bbcode.j2", {
        "turn": turn, "unit": "PD", "posts": [], "dice": {}, "stakes": None, "extra_posts": [],
        "referee_name": "L'arbitre", "tie_rule": "lands", "outcome": data,
        "defensive": defensive_spells(RS),
    }))  # fmt: skip


def test_w3_a_repeated_bouclier_is_said_void_and_its_caster_not_to_attack() -> None:
    """W3: « Cassius Thorne (Charme du Bouclier) attaque avec le même sort qu'au tour précédent »
    said the opposite of RULES.md classic, Fine points: « A void Charme du Bouclier or Antisort
    Général gives no bonus and cancels nothing, and its caster still does not attack that
    turn »."""
    first = play(duel(), DESARMEMENT, (1, 6), BOUCLIER, (1, 6))
    second = play(first.state, GLACE, (5, 6), BOUCLIER, (6, 3))
    text = _classic(second, 2)
    assert (
        f"- {C} relance le Charme du Bouclier, comme au tour précédent. Ce second Charme du "
        f"Bouclier est sans effet (pas de +3 en défense), et {C} n'attaque pas ce tour-ci."
    ) in text, text
    assert "attaque avec le même sort" not in text
    # an Antisort cast again, and a Bouclier cancelled by the opponent's Antisort
    first = play(duel(), ANTISORT, (1, 6), DESARMEMENT, (1, 6))
    again = _classic(play(first.state, ANTISORT, (1, 6), GLACE, (1, 6)), 2)
    assert (
        f"- {A} relance l'Antisort Général, comme au tour précédent. Ce second Antisort Général "
        f"n'annule rien, et {A} n'attaque pas ce tour-ci."
    ) in again, again
    cancelled = _classic(play(duel(), ANTISORT, (1, 6), BOUCLIER, (1, 6)), 1)
    assert (
        f"- {C} lance le Charme du Bouclier, mais l'Antisort Général adverse l'annule. Ce Charme "
        f"du Bouclier est sans effet (pas de +3 en défense), et {C} n'attaque pas ce tour-ci."
    ) in cancelled, cancelled
