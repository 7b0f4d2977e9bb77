"""The fifth newcomer's « wrong » items (W2-W5, /work/helpers/newcomer5/report.md): each test
renders or runs what the newcomer read and checks the French a player or the staff sees."""

from __future__ import annotations

import json
from typing import Any

from forumbot.duels.classic import classic_balance, defensive_spells
from forumbot.publish.render import render
from forumbot.publish.typography import plain
from tests.unit.test_rules_classic import BOUCLIER, DESARMEMENT, FEU, RS, A, C, duel, play


def _turn_text(outcome: Any, before: Any, turn: int = 1) -> str:
    """The classic turn declaration of ``outcome`` (a :class:`rules.TurnOutcome`) played from
    ``before`` (the :class:`rules.DuelState` before it), with its points line, as plain text."""
    data = outcome.to_dict()
    inputs = {"state_before": before.to_dict()}
    return plain(render("turn.bbcode.j2", {
        "turn": turn, "unit": "PD", "posts": [], "dice": {}, "stakes": None, "extra_posts": [],
        "referee_name": "L'arbitre", "tie_rule": "lands", "outcome": data,
        "defensive": defensive_spells(RS), "balance": classic_balance(inputs, data),
    }))  # fmt: skip


def test_w5_a_spells_extra_damage_is_said_where_the_pd_are_lost() -> None:
    """W5: « le sort touche et Cassius Thorne perd 6 PD » after « attaque 4 »: the +2 of the
    Sortilège de Feu (RULES.md classic: « Sortilège de Feu: 2 more PD ») is now given as the
    Bouclier's +3 is; the points line still adds up (the conftest lints every render)."""
    start = duel()
    outcome = play(start, FEU, (4, 1), DESARMEMENT, (1, 2))
    text = _turn_text(outcome, start)
    assert (
        f"attaque 4 contre défense 2, le sort touche et {C} perd 6 PD (dé 4, +2 {FEU})."
    ) in text, text
    assert f"- {C} : 50 - 6 ({FEU} d'{A}) = 44 PD" in text, text
    # a plain hit says nothing more; a deflected Feu says nothing of its +2
    plain_hit = _turn_text(play(start, DESARMEMENT, (4, 1), DESARMEMENT, (1, 2)), start)
    assert f"{C} perd 4 PD." in plain_hit, plain_hit
    deflected = _turn_text(play(start, FEU, (2, 1), BOUCLIER, (1, 2)), start)
    assert (
        f"{A} ({FEU}) contre {C} : attaque 2 contre défense 5 (dé 2, +3 {BOUCLIER}), "
        "le sort est dévié."
    ) in deflected, deflected


def test_w3_a_forced_texts_audit_row_reads_in_french() -> None:
    """W3: the review page's audit row of a text kept with --force showed the raw key
    ``draft.force_text`` and « computed » / « differences : Cassius Thorne's total: the text
    says 32, the draft 30 » among French rows."""
    from functools import partial

    from forumbot.i18n import translate
    from forumbot.web.words import Words

    words = Words("fr", "Europe/Paris", partial(translate, "fr"))
    row = words.audit({
        "at": "2026-12-02T16:00:00+00:00", "actor": "Maelis", "action": "draft.force_text",
        "target": "declaration:1", "before": '{"computed": "[b]Déclaration[/b]"}',
        "after": json.dumps({"differences": [f"{C}'s total: the text says 32, the draft 30"]}),
    })  # fmt: skip
    assert row.what == "texte gardé malgré les nombres du brouillon (--force)", row
    fields = {field: (old, new) for field, old, new in row.changes}
    assert set(fields) == {"texte calculé", "différences"}, row.changes
    assert plain(fields["différences"][1]) == f"total de {C} : le texte dit 32, le brouillon 30"
