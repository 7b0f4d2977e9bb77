"""What the sixth newcomer found on a fresh install (issue 26, items W2-W4, C4, C6, C7 of
the eighth session's brief; the report itself was lost, each finding reproduced first)."""

from __future__ import annotations

from pathlib import Path

from forumbot.ops.check import ruleset_warnings

STALLING = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
"""The issue-17 spellbook: most of its pairings stall (tests/unit/test_balance_readable.py)."""


def test_check_stall_warnings_say_adultes_in_year_order_with_sample_and_next_step() -> None:
    """W2: « élèves d'adult » is « entre adultes » (the catalogue's year words); the warnings
    follow the years (1re année mirror, 2e contre 1re, 2e mirror...), each says its sample
    (« 11 sur 20 duels simulés »), and a last line says what to do next."""
    french = ruleset_warnings([str(STALLING)], language="fr")
    assert not any("adult " in line or "d'adult" in line for line in french), french
    head = f"avertissement (règles {STALLING})\u00a0: en simulation, "
    assert all(line.startswith(head) for line in french[:-1]), french
    assert any("% des duels entre adultes ne peuvent pas finir" in line for line in french)
    assert any(
        "% des duels d'un adulte face à un élève de 7e année ne peuvent" in line for line in french
    )
    assert "% des duels entre élèves de 1re année ne peuvent" in french[0]
    assert "d'un élève de 2e année face à un élève de 1re année" in french[1]
    assert all(line.endswith(" sur 20 duels simulés") for line in french[:-1]), french
    assert french[-1] == (
        "prochaine étape\u00a0: voir le tableau complet avec forumbot simulate --ruleset "
        f"{STALLING}, puis donner plus de sorts d'attaque (ou moins de points de départ) aux "
        "années dont les duels ne peuvent pas finir, et relancer forumbot check"
    )
    english = ruleset_warnings([str(STALLING)])
    assert len(english) == len(french)
    assert "1st-year mirror duels cannot end" in english[0]
    assert english[0].endswith("with no winner): 20 of 20 simulated duels"), english[0]
    assert "2nd-year against 1st-year duels" in english[1]
    assert english[-1].startswith("next step: see the whole table with forumbot simulate")
