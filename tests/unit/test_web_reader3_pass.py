"""The review page after the third reader (issue 25, reader3 W1): a cannot-cast or
cannot-dodge effect of two turns or more says how many turns, not « au tour suivant »."""

from __future__ import annotations

from forumbot.i18n import translator
from forumbot.web.page_words import PageWords


def words() -> PageWords:
    return PageWords("fr", "Europe/Paris", translator("fr"))


def _hit(effect: dict[str, object]) -> dict[str, object]:
    return {
        "attacker": "Cassius Thorne", "defender": "Aurora Vexley", "spell": "Stupéfix",
        "landed": True, "attack_value": 0, "damage": 0, "effects_applied": [effect],
    }  # fmt: skip


def test_a_two_turn_no_dodge_says_two_turns() -> None:
    text = words().attack(_hit({"type": "no_dodge", "duration": 2}), "fatigue", "PV")
    assert text == ("Stupéfix de Cassius Thorne\xa0: "
                    "Aurora Vexley ne peut pas esquiver pendant les 2 tours suivants")


def test_a_one_turn_no_attack_says_the_next_turn() -> None:
    text = words().attack(_hit({"type": "no_attack", "duration": 1}), "fatigue", "PV")
    assert text.endswith("Aurora Vexley ne peut pas lancer de sort au tour suivant")
