"""Newcomer 7's findings fixed by the lead (/work reports: #16, the duel page's chart)."""

from __future__ import annotations

from forumbot.web.chart import points_chart
from forumbot.web.i18n import page_translator

POINT = "%(name)s, turn %(turn)s: %(value)s %(unit)s"


def test_the_chart_tooltips_say_the_turn_and_the_unit_in_the_pages_language() -> None:
    """#16: the points' tooltips read « Aurora Vexley: 35 » (an English colon, no unit, no
    turn) on a French page; now « Aurora Vexley, tour 1 : 24 PD » with French typography
    (the page's typesetting: narrow no-break spaces around the figures)."""
    series = {"Aurora Vexley": [30, 24], "Cassius Thorne": [30, -2]}
    french = str(points_chart(series, unit="PD", point=page_translator("fr")(POINT)))
    assert "<title>Aurora Vexley, tour\u202f1\u00a0:\u202f24\u202fPD</title>" in french
    assert "<title>Cassius Thorne, tour\u202f1\u00a0:\u202f\u22122\u202fPD</title>" in french
    english = str(points_chart(series, unit="PD"))
    assert "<title>Aurora Vexley, turn 0: 30 PD</title>" in english
    no_unit = str(points_chart(series))
    assert "<title>Aurora Vexley, turn 1: 24</title>" in no_unit
