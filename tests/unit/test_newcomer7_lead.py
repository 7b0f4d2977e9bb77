"""Newcomer 7's findings fixed by the lead (/work reports: #16, the duel page's chart)."""

from __future__ import annotations

import re
from pathlib import Path

from forumbot.web.chart import points_chart
from forumbot.web.i18n import page_translator
from rules.ruleset import DATA_DIR

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


def test_an_audit_row_shows_no_change_for_blank_lines_or_trailing_spaces() -> None:
    """#17: a text edit whose file ended with one more empty line showed « ligne 21 : — → — »
    beside the real change; blank lines and spaces at a line's end are no change (as
    ``drafts edit`` counts them), the real change is still shown."""
    from forumbot.web.audit_words import text_changes

    before = "Le tour 1 est terminé.\nAurora Vexley : 24 PD\n"
    after = "Le premier tour est terminé.  \nAurora Vexley : 24 PD   \n\n\n"
    rows = text_changes(before, after, str, lambda n: f"line {n}", lambda k: f"+{k}")
    assert rows == (("line 1", "Le tour 1 est terminé.", "Le premier tour est terminé."),)
    assert text_changes(before, before + "\n", str, str, str) == ()
    removed = text_changes(before, "Aurora Vexley : 24 PD\n", str, str, str)
    assert removed == (("1", "Le tour 1 est terminé.", "—"),)


def test_a_spellbook_whose_every_pairing_stalls_gets_one_warning_line(tmp_path: Path) -> None:
    """#9: a spellbook whose attack spells all do 1 PV stalls in every year pairing checked,
    and check printed 15 near-identical lines; now one line for all, then the next step.
    A spellbook stalling in some pairings, or in shares that differ, keeps its line a pairing
    (test_newcomer6_findings)."""
    from forumbot.ops.check import ruleset_warnings

    text = (DATA_DIR / "fatigue.toml").read_text(encoding="utf-8")
    weak = re.sub(r'(type = "(?:pv_damage|damage_over_time)", amount = )\d+', r"\g<1>1", text)
    assert weak != text
    path = tmp_path / "faible.toml"
    path.write_text(weak, encoding="utf-8")
    english = ruleset_warnings([str(path)])
    assert len(english) == 2, english
    assert english[0].startswith(
        f"warning: ruleset {path}: in simulation, in every year pairing checked (15: each year "
        "against itself and the year below), 100 % of duels cannot end "
    ), english[0]
    assert english[1].startswith("next step:")
    french = ruleset_warnings([str(path)], language="fr")
    assert len(french) == 2 and french[0].startswith(
        f"avertissement (règles « {path} ») : en simulation, dans toutes les paires d'années "
        "vérifiées (15 : chaque année contre elle-même et contre l'année d'en dessous), 100 % "
        "des duels ne peuvent pas finir"
    ), french[0]


def test_the_heatmap_page_words_read_plainly() -> None:
    """#13/#14: classic's « 7+ » header reads « 7e et + » beside « 6e »; the median is whole
    turns as the CLI prints it (« 13 », not « 13,0 »); the English page says « cell » as the
    mirror caption does, never « square »; « au-delà de cet écart » names what it counts."""
    from forumbot.web.balance import BalanceTables
    from forumbot.web.routes.balance import labels_for, mirror_note, stats_line
    from rules.balance import Cell, Table

    keys = ("6", "7+")
    cells = {(r, c): Cell(r, c, 10, 5, 5, 0, 0, 130, (13,) * 10) for r in keys for c in keys}
    table = Table("classic", "years", keys, keys, cells)
    tables = BalanceTables("classic", "classic", table, None)
    assert labels_for(tables, table, "fr") == {"6": "6e", "7+": "7e et +"}
    assert labels_for(tables, table, "en") == {"6": "6th", "7+": "7th+"}
    assert "durée médiane\u00a0: 13 tours" in stats_line(table, "fr")
    assert "median length: 13 turns" in stats_line(table, "en")
    english = mirror_note(table, "en") or ""
    assert "square" not in english and "than chance allows" in english
