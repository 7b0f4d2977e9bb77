"""2v2 declarations after the second French reader (issue 25, reader2 C3, C6): a creature's
ability hitting several duellists is one line; a creature's PV change is written as a sum, as
the duellists' are. Each test resolves a real step (rules.duo), builds the declaration's context
(forumbot.duels.duo_context) and renders it; the suite's French lint runs on every render."""

from __future__ import annotations

from typing import Any

from forumbot.duels.duo_context import turn_context
from forumbot.publish.render import render
from forumbot.publish.typography import plain
from rules.duo import resolve_duo_step
from tests.unit.test_reader25_duo import A1, A2, B1, CFG, DUEL, ENV, RS, _draw, duel, post


def step_context() -> dict[str, Any]:
    """The declaration context of one real step (Aurora casts at Cassius), with a deadline."""
    state = duel()
    posts = [post(A1, 1, "Flipendo", B1)]
    dice = {1: (4,)}
    out = resolve_duo_step(state, posts, dice, ruleset=RS, env=ENV, settings=CFG,
                           draw=_draw({}))  # type: ignore[arg-type]  # fmt: skip
    context = turn_context(RS, ENV, DUEL, state, posts, dice, out, "L'arbitre")  # type: ignore[arg-type]
    context["deadline"] = "avant le jeudi 3 décembre à 20 h 54"
    return context


def rendered(**change: Any) -> str:
    """The step of :func:`step_context`, its context changed by ``change``, as plain text."""
    return plain(str(render("duo_turn.bbcode.j2", step_context() | change, "fr")))


def aura(who: str) -> dict[str, Any]:
    return {"kind": "creature_ability", "who": who, "target": "La tentacula vénéneuse",
            "detail": "Sève acide", "amount": 5, "creature": None, "zone": None}  # fmt: skip


def test_one_ability_hitting_several_duellists_is_one_line() -> None:
    """serre.toml: « À chaque fin de tour, chaque duelliste de l'allée perd 5 PV. »"""
    text = rendered(events=[aura(A1), aura(A2), aura(B1)])
    assert (
        f"La tentacula vénéneuse utilise « Sève acide » : {A1}, {A2} et {B1} perdent 5 PV "
        "chacun." in text
    )
    assert text.count("utilise « Sève acide »") == 1
    alone = rendered(events=[aura(A1)])
    assert f"La tentacula vénéneuse utilise « Sève acide » et {A1} perd 5 PV." in alone


def test_a_creatures_pv_change_is_a_sum() -> None:
    text = rendered(creatures=[{"name": "La tentacula vénéneuse", "pv": 38, "before": 60},
                               {"name": "Le strangulot du bassin", "pv": 40, "before": 40},
                               {"name": "Le saule", "pv": -4, "before": 10}])  # fmt: skip
    assert "La tentacula vénéneuse : 60 − 22 = 38 PV" in text.replace("-", "−")
    assert "Le strangulot du bassin : 40 PV" in text
    assert "Le saule : 10 − 14 = −4 PV (hors de combat)" in text.replace("-", "−")


def test_a_dodge_names_whose_spell_it_dodges() -> None:
    """C5: « esquive, avec pour cible Cassius Thorne »: a dodge has no target."""
    context = step_context()
    context["posts"][0] |= {"kind": "dodge", "spell": None, "target": B1}
    text = plain(str(render("duo_turn.bbcode.j2", context, "fr")))
    assert f"esquive le sort de {B1}, pari [3,4,5,6]" in text and "avec pour cible" not in text


def test_a_knocked_out_duellist_is_not_told_to_concede() -> None:
    """Fifth reader after issue 25, W1: « hors de combat, abandon obligatoire » read as an
    order to concede (and so to lose the duo's duel). RULES.md 2v2: a duellist at 0 PV or less
    is out of the fight and posts no more; a duo loses when both its members are out."""
    text = rendered(events=[{"kind": "knocked_out", "who": B1, "target": None, "detail": None,
                            "amount": -1, "creature": None, "zone": None}])
    assert (
        f"{B1} tombe à −1 PV : hors de combat, ne poste plus dans ce duel (un duo perd "
        "quand ses deux membres sont hors de combat)." in text.replace("-1", "−1")
    )
    assert "abandon" not in text


def test_a_turn_closed_by_its_deadline_does_not_say_everyone_posted() -> None:
    """Sixth reader after issue 25, W2: three « n'a pas posté dans le délai » lines were
    followed by « Fin du tour : les quatre duellistes ont posté »."""
    def event(kind: str, who: str | None) -> dict[str, Any]:
        return {"kind": kind, "who": who, "target": None, "detail": None, "amount": 0,
                "creature": None, "zone": None}  # fmt: skip

    late = rendered(events=[event("silent", A2), event("silent", B1), event("turn_closed", None)])
    assert "Fin du tour : le délai de 48 h est écoulé." in late
    assert "ont posté" not in late.split("Fin du tour")[1]
    on_time = rendered(events=[event("turn_closed", None)])
    assert "Fin du tour : les quatre duellistes ont posté." in on_time
