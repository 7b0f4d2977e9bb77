"""Issue 25, the owls: the magic-type owl names the spells each modifier concerns (from the
ruleset), « avant modificateurs » only when one applies, the reminder owl says what the deadline
brings with the topic's link and a French date in the board's timezone."""

from __future__ import annotations

from datetime import UTC, datetime

from forumbot.publish.dates import french_datetime
from forumbot.publish.labels import modifier_scope, spell_family, spell_modified
from forumbot.publish.render import Trusted, render
from forumbot.rulesets import load_ruleset
from tests.unit.test_fatigue_flow import A, C, make


def _owl(key: str) -> str:
    rs = load_ruleset("fatigue")
    mtype = rs.magic_type(key)
    return render(
        "owl_magic_types.bbcode.j2",
        {"character": A, "opponent": C, "topic_url": Trusted("http://b.example/viewtopic.php?t=3"),
         "types": [{"label": mtype.label, "traits": mtype.traits, "owl": mtype.owl,
                    "modifiers": [modifier_scope(rs, m) for m in mtype.modifiers]}],
         "referee_name": "L'arbitre"},
    )  # fmt: skip


def test_brutale_owl_lists_the_attack_spells_and_not_confringo() -> None:
    text = _owl("brutale")
    # reader2 T2: « 10 % » with U+202F; C11: the bonus is rounded down, said with an example
    assert "Tes sorts d'attaque infligent 10\u202f% de dégâts en plus." in text
    assert "arrondis à l'unité inférieure (10\u202f% de 29 PV font 2 PV)." in text
    # reader T1: the list items are the bot's words, typeset like the template's own text
    assert "Sorts concernés (famille «\u202fattaque\u202f»)\u00a0: " in text
    # reader W3: the types are public (seed 001: the sign-up gives « votre type de magie »; only
    # « les bonus/malus associés seront signifiés par hibou »), and the opening prints them
    assert "te sont propres" not in text
    assert (
        "Ton type de magie est public\u00a0: la déclaration d'ouverture du duel l'annonce." in text
    )
    assert "Stupéfix" in text and "Sectumsempra" in text
    assert "Confringo" not in text and "Incendio" not in text
    assert "[list]" in text and "\n  -" not in text  # no nested « ␣␣- » list (collapses on phpBB)


def test_every_listed_spell_is_of_the_modifiers_family_in_the_ruleset() -> None:
    rs = load_ruleset("fatigue")
    flamboyante = rs.magic_type("flamboyante").modifiers[0]
    text = modifier_scope(rs, flamboyante)
    fire = [s.name for s in rs.spells if spell_family(s) == "feu"]
    assert fire and all(name in text for name in fire)
    assert "Stupéfix" not in text


def test_avant_modificateurs_only_when_a_modifier_applies() -> None:
    rs = load_ruleset("fatigue")
    assert spell_modified(rs, ["brutale"], [], "Stupéfix")
    assert not spell_modified(rs, ["brutale"], [], "Confringo")
    assert spell_modified(rs, [], ["discrete"], "Stupéfix")  # taken by a discrète defender
    assert not spell_modified(rs, ["sournoise"], ["sournoise"], "Stupéfix")
    for spell, expected in (("Flipendo", True), ("Incendio", False)):
        duel = make()  # Aurora Vexley is brutale: +10 % on « attaque » spells, not « feu »
        duel.post(A, "cast", spell, win=True)
        duel.cycle()
        text = duel.last_bot_text()
        assert f"lance {spell} sur {C}" in text and "sauf esquive réussie" in text, text  # C9
        assert ("avant modificateurs" in text) is expected, text


def test_french_datetime_in_the_boards_timezone() -> None:
    when = datetime(2026, 12, 3, 19, 54, tzinfo=UTC)
    assert french_datetime(when, "Europe/Paris") == "jeudi 3 décembre à 20 h 54"
    assert french_datetime(when, "America/Montreal") == "jeudi 3 décembre à 14 h 54"
    first = datetime(2026, 12, 1, 8, 0)  # naive: UTC
    assert french_datetime(first, "Europe/Paris") == "mardi 1er décembre à 9 h"
    assert french_datetime(when, "Not/AZone") == "jeudi 3 décembre à 19 h 54"  # UTC


def test_reminder_owl_says_what_happens_with_a_date_and_the_topic_link() -> None:
    duel = make()
    duel.post(A, "cast", "Flipendo", win=True)
    duel.cycle()
    duel.clock.advance(24 * 3600 + 1)
    duel.cycle()
    [(name, text)] = duel.forum.owls
    assert name == C
    assert "relancera le duel sans toi" not in text
    assert "Passé ce délai, le sort de ton adversaire sera résolu sans ta défense." in text
    assert "[url]http://board.invalid/viewtopic.php?t=7[/url]" in text
    due = next(
        datetime.fromisoformat(r["due_at"]) for r in duel.storage.db["deadlines"].rows
        if r["phase"] == "awaiting_defense"
    )
    assert f"avant le {french_datetime(due, 'Europe/Paris')}." in text
    assert "UTC" not in text
