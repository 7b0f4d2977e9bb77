"""The review page's French labels elide before a name (a newcomer saw « Points de Aurora
Vexley »), and the English switch is untouched."""

from __future__ import annotations

from forumbot.web.i18n import translator


def test_de_before_a_vowel_or_h_is_elided() -> None:
    _ = translator("fr")
    assert _("Points de %s", "Aurora Vexley") == "Points d'Aurora Vexley"
    assert _("Dé d'attaque de %s", "Odric") == "Dé d'attaque d'Odric"
    assert _("Dégâts de %s", "Hermine") == "Dégâts d'Hermine"
    assert _("Points de %s", "Cassius Thorne") == "Points de Cassius Thorne"
    assert _("Disqualification de %s", "Aurora") == "Disqualification d'Aurora"


def test_english_is_not_elided() -> None:
    assert translator("en")("Points de %s", "Aurora") == "Aurora's points"
