"""The review page's French labels elide before a name (a newcomer saw « Points de Aurora
Vexley »), and the English switch is untouched."""

from __future__ import annotations

from forumbot.web.i18n import translator


def test_de_before_a_vowel_or_h_is_elided() -> None:
    _ = translator("fr")  # the page's English messages, French from the catalogue (issue 25)
    assert _("%s's points", "Aurora Vexley") == "Points d'Aurora Vexley"
    assert _("%s's attack die", "Odric") == "Dé d'attaque d'Odric"
    assert _("%s's damage", "Hermine") == "Dégâts d'Hermine"
    assert _("%s's points", "Cassius Thorne") == "Points de Cassius Thorne"
    assert _("%s disqualified", "Aurora") == "Disqualification d'Aurora"


def test_english_is_not_elided() -> None:
    assert translator("en")("%s's points", "Aurora") == "Aurora's points"
