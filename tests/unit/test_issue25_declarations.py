"""Issue 25, declarations: French typography in one renderer filter, dated deadlines, every
PV/PD change listed so it adds up, and the French lint's new checks."""

from __future__ import annotations

from datetime import UTC, datetime

from forumbot.duels.balance import balances, duo_changes, fatigue_changes
from forumbot.publish.checks import (
    balance_problems,
    colon_problems,
    deadline_problems,
    internal_name_problems,
    typography_problems,
)
from forumbot.publish.deadline_text import deadline_phrase, fill_deadline, french_datetime, redate
from forumbot.publish.render import Rendered, render
from forumbot.publish.typography import MINUS, NBSP, NNBSP, plain, typeset


def test_typeset_applies_the_french_rules_to_the_bots_words() -> None:
    text = typeset("Top ! Le dé « Duel » : n°3 ; -5 PV, SHA-256 et [1,2,3,4] ?")
    assert text == (
        f"Top{NNBSP}! Le dé «{NNBSP}Duel{NNBSP}»{NBSP}: n°{NBSP}3{NNBSP}; {MINUS}5 PV, "
        f"SHA-256 et [1,2,3,4]{NNBSP}?"
    )
    assert typeset(text) == text  # idempotent
    assert plain(text) == "Top ! Le dé « Duel » : n° 3 ; -5 PV, SHA-256 et [1,2,3,4] ?"


def test_code_blocks_and_urls_keep_what_players_type() -> None:
    text = "Exemple :\n[code]Nom : Aurora\nAnnée : 5e année[/code] [url=http://x/?t=3]ici[/url]"
    out = typeset(text)
    assert "[code]Nom : Aurora\nAnnée : 5e année[/code]" in plain(out)
    assert "[url=http://x/?t=3]" in out and out.startswith(f"Exemple{NBSP}:")


def test_the_filter_touches_template_text_never_a_players_value() -> None:
    ctx = {
        "author": "Qui ? Moi !",
        "post_id": 5,
        "message": "Il manque ton année : « 5e ».",
        "kind": "1v1",
        "own": {"name": "Aurora : la vraie", "types": "brutale"},
    }
    text = render("signup_invalid.bbcode.j2", ctx)
    assert "Qui ? Moi !" in plain(text)  # a player's name as typed
    assert "Aurora : la vraie" in plain(text) and "Type de magie : brutale" in plain(
        text
    )  # inside [code]
    assert f"message n°{NBSP}5" in text
    # reader W5: no invented opponent when the player wrote no such line; 1v1: « Adversaire »
    assert "Blaise Corvin" not in text and "La ligne « Adversaire »" in plain(text)
    assert "Modifier l'ancien message ne suffit pas, car il n'est pas relu" in text


def test_negative_totals_print_with_the_minus_sign() -> None:
    text = render(
        "fatigue_relaunch.bbcode.j2",
        {"last": False, "hours": 36, "duellists": ["A", "B"], "turn": 2,
         "points": {"A": -4, "B": 10}, "unit": "PV", "referee_name": "L'arbitre",
         "planned_at": "2026-12-02T07:54:00+00:00", "timezone": "Europe/Paris"},
    )  # fmt: skip
    assert f"- A{NBSP}: {MINUS}4 PV" in text
    assert "avant le jeudi 3 décembre à 20\u00a0h\u00a054" in text


def test_french_datetime_and_deadline_phrase() -> None:
    at = datetime(2026, 12, 3, 19, 54, 30, tzinfo=UTC)
    assert french_datetime(at, "Europe/Paris") == "jeudi 3 décembre à 20\u00a0h\u00a054"
    assert french_datetime(datetime(2027, 1, 1, 8, tzinfo=UTC), "Europe/Paris",
                           reference=at) == "vendredi 1er janvier 2027 à 9\u00a0h"  # fmt: skip
    start = datetime(2026, 12, 2, 7, 54, 59, tzinfo=UTC)
    assert deadline_phrase(start, 36, "Europe/Paris") == (
        "avant le jeudi 3 décembre à 20\u00a0h\u00a054"
    )


def test_a_draft_is_dated_from_its_planned_publication_then_moved_to_the_real_one() -> None:
    ctx = {"hours": 36, "planned_at": "2026-12-02T07:54:00+00:00", "timezone": "Europe/Paris"}
    fill_deadline(ctx)
    assert ctx["deadline"] == "avant le jeudi 3 décembre à 20\u00a0h\u00a054"
    text = f"À Cassius de se défendre {ctx['deadline']} : lancer un sort."
    later = redate(text, ctx, datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    assert "avant le jeudi 3 décembre à 22\u00a0h" in later
    assert redate("texte réécrit", ctx, datetime(2026, 12, 2, 9, tzinfo=UTC)) == "texte réécrit"


def test_fatigue_balance_names_carried_effects_so_the_changes_add_up() -> None:
    state_before = {"duellists": [
        {"name": "Cassius", "points": 40, "effects": [
            {"type": "damage_over_time", "amount": 10, "source": "Sectumsempra",
             "caster": "Aurora", "duration": 2}]},
        {"name": "Aurora", "points": 325, "effects": [
            {"type": "damage_over_time", "amount": 5, "source": "Incendio",
             "caster": "Cassius", "duration": 1}]},
    ]}  # fmt: skip
    outcome = {
        "attacks": [{"attacker": "Aurora", "defender": "Cassius", "spell": "Stupéfix",
                     "landed": True, "damage": 34}],
        "trail": [{"quantity": "Cassius.damage_over_time", "value": 10},
                  {"quantity": "Aurora.damage_over_time", "value": 5}],
        "violations": [],
    }  # fmt: skip
    out = balances(
        {"Cassius": 40, "Aurora": 325}, {"Cassius": -4, "Aurora": 320},
        fatigue_changes(outcome, state_before),
    )  # fmt: skip
    assert [i["label"] for i in out["Cassius"]["changes"]] == [
        "Stupéfix d'Aurora",
        "Sectumsempra d'Aurora, effet en cours",
    ]
    assert out["Aurora"]["changes"] == [
        {"amount": -5, "label": "Incendio de Cassius, effet en cours"}
    ]


def test_a_total_the_engine_cannot_explain_is_still_listed() -> None:
    out = balances({"A": 30}, {"A": 12}, {"A": [(-4, "Sortilège de Feu de B")]})
    assert out["A"]["changes"][-1] == {"amount": -14, "label": "autres effets"}
    assert 30 + sum(i["amount"] for i in out["A"]["changes"]) == 12
    set_by_referee = balances({"A": 30}, {"A": 12}, {"A": [(-4, "x")]}, decided=["A.points"])
    assert set_by_referee["A"]["changes"] == []  # « 12 PD (décision de l'arbitre) »


def test_duo_changes_count_creatures_rewards_and_violations() -> None:
    changes = duo_changes(
        [{"attacker": "D", "defender": "A", "spell": "Flipendo", "landed": True, "damage": 20}],
        [{"kind": "reward", "who": "A", "detail": "pv", "amount": 20},
         {"kind": "creature_ability", "who": "A", "target": "La tentacula",
          "detail": "Sève acide", "amount": 5},
         {"kind": "reward", "who": "A", "detail": "galleons", "amount": 3}],
        [{"duellist": "A", "status": "applied", "penalty": 20}],
        {},
    )  # fmt: skip
    assert sorted(a for a, _ in changes["A"]) == [-20, -20, -5, 20]


def test_balance_lint_checks_the_sums_and_the_losses() -> None:
    good = "- Cassius : 40 − 34 (Stupéfix d'Aurora) − 10 (Sectumsempra) = −4 PV"
    assert balance_problems(good) == []
    assert balance_problems(good.replace("−4 PV", "−5 PV"))
    text = "- Le Stupéfix touche et Cassius perd 34 PV.\n- Cassius : 40 − 10 (Sectumsempra) = 30 PV"
    assert any("perd 34" in p for p in balance_problems(text))


def test_colon_typography_deadline_and_internal_name_lints() -> None:
    assert colon_problems("X contre Y : attaque 4 contre défense 2 : le sort touche.")
    assert colon_problems(f"Points{NBSP}: 3. Tour{NBSP}: 2.") == []
    assert typography_problems("Top ! Le dé « Duel » : -5")
    assert typography_problems(f"Top{NNBSP}! Le dé «{NNBSP}Duel{NNBSP}»{NBSP}: {MINUS}5") == []
    assert deadline_problems("À Cassius de se défendre dans les 36 h.")
    assert deadline_problems("À Cassius de se défendre avant le jeudi 3 décembre à 20 h 54.") == []
    assert internal_name_problems("recalculer (forumbot verify-dice) attack_modifier")
    rendered = Rendered("Nom : Aurora")
    rendered.own_words = f"Nom{NBSP}: "
    assert typography_problems(rendered) == []  # a player's words are not the bot's


def test_classic_opening_gives_the_tie_rule_and_a_consistent_early_cast() -> None:
    ctx = {
        "duellists": [{"name": "A", "year": "1", "points": 15}], "unit": "PD", "stakes": None,
        "commitment": "ab" * 32, "referee_name": "L'arbitre", "tie_rule": "lands",
        "early": [{"duellist": "A", "post_id": 3, "spell": "Sortilège de Feu"}],
    }  # fmt: skip
    text = plain(render("opening.bbcode.j2", ctx))
    # reader C16: the tie once, and what a hit costs (RULES.md classic: « a tie lands [D]. An
    # attack that lands removes PD equal to the attack die. »)
    assert (
        "Un sort touche quand son dé d'attaque est au moins égal au dé de défense adverse, "
        "égalité comprise ; il enlève alors autant de PD que son dé d'attaque."
    ) in text
    assert "À égalité, le sort touche." not in text
    assert "L'arbitre rendra sa décision dans la prochaine déclaration" in text
    assert "le duel suit son cours" in text
