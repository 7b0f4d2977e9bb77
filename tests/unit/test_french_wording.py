"""What players read, as a French reader checks it (issue 15, « Declarations and owls »): the
lint of forumbot.publish.checks, the French filters of the templates, and the branches the
demos showed wrong (leaderboard lines, self spells, magic-type owls, reward draws)."""

from __future__ import annotations

from forumbot.publish.checks import french_problems
from forumbot.publish.labels import describe_modifier, modifier_scope
from forumbot.publish.render import Trusted, _draw, _que, _to, render
from forumbot.publish.typography import plain
from forumbot.rulesets import load_ruleset
from rules.fatigue import MagicModifier


def test_the_lint_finds_the_mistakes_the_demos_showed() -> None:
    assert any("(s)" in p for p in french_problems("effets prolongés de +1 tour(s)"))
    assert any("mixed" in p for p in french_problems("Tes sorts de feu. Vos sorts d'attaque."))
    assert any("contraction" in p for p in french_problems("20 PV de dégâts à le strangulot"))
    assert any("gendered" in p for p in french_problems("Aurora est disqualifié."))
    assert any("gendered" in p for p in french_problems("le perdant reçoit une chocogrenouille"))
    glued = "1. [b]A[/b] : 1 point ; chocogrenouilles : 02. [b]B[/b] : 0 point"
    assert any("run together" in p for p in french_problems(glued))
    assert any("internal" in p for p in french_problems("(tirage reward:creature:x:3 3/4)"))
    clean = "Ton duel est ouvert. Tes sorts de feu infligent 10 PV de plus à l'esprit."
    assert french_problems(clean) == []


def test_player_text_does_not_set_off_the_checks_of_the_bots_own_words() -> None:
    # a hostile spell text saying « disqualifié » and « vous » is a value, not the bot's words
    text = render(
        "owl_result.bbcode.j2",
        {"character": "Aurora", "opponent": "Vous êtes disqualifié", "outcome": "won",
         "topic_url": Trusted("http://b.example/viewtopic.php?t=3"), "stakes": None,
         "referee_name": "L'arbitre"},
    )  # fmt: skip
    assert "Vous êtes disqualifié" in text and "Tu gagnes" in text


def test_french_filters() -> None:
    assert _to("Le strangulot du bassin") == "au strangulot du bassin"
    assert _to("le strangulot") == "au strangulot"
    assert _to("La tentacula vénéneuse") == "à la tentacula vénéneuse"
    assert _to("L'esprit du bibliothécaire") == "à l'esprit du bibliothécaire"
    assert _to("Les lierres") == "aux lierres" and _to("Lara Dune") == "à Lara Dune"
    assert _que("Odric Fenwick") == "qu'Odric Fenwick" and _que("Blaise") == "que Blaise"
    # a sentence (issue 25), typeset (reader after issue 25, T2), read back by verify-dice
    assert _draw("reward:creature:strangulot:42 3/4") == (
        "la récompense de la créature «\u202fstrangulot\u202f», gagnée au message n°\u00a042, "
        "tirée au sort avec un dé à 4\u00a0faces, qui a donné 3"
    )
    assert plain(_draw("reward:mechanism:cadran:12 1/2")) == (
        "la récompense du mécanisme « cadran », gagnée au message n° 12, tirée au sort "
        "avec un dé à 2 faces, qui a donné 1"
    )
    from forumbot.duels.verify import _line_draws

    line = f"[*] Aurora reçoit en récompense 20 PV : {_draw('reward:creature:strangulot:42 3/4')}."
    assert _line_draws(plain(line)) == [("reward:creature:strangulot:42", 3, 4)]


def test_the_bots_links_are_links_and_player_urls_are_not() -> None:
    text = render(
        "owl_result.bbcode.j2",
        {"character": "Aurora", "opponent": "http://evil.example", "outcome": "lost",
         "topic_url": Trusted("https://b.forumactif.com/t3-a"), "stakes": None,
         "referee_name": "L'arbitre"},
    )  # fmt: skip
    assert "[url]https://b.forumactif.com/t3-a[/url]" in text
    assert "http：//evil.example" in text and "Défaite" in text


def test_leaderboard_lines_are_one_per_line_with_a_blank_line_before_the_rules() -> None:
    line = {"points": 0, "wins": 0, "losses": 1, "draws": 0, "purse": 0, "frogs": 1, "extras": ""}
    text = render(
        "leaderboard.bbcode.j2",
        {"kind": "1v1", "lines": [
            {**line, "rank": 1, "character": "Aurora Vexley", "points": 1, "wins": 1,
             "losses": 0, "purse": 3, "frogs": 0},
            {**line, "rank": 2, "character": "Cassius Thorne"},
        ]},
    )  # fmt: skip
    lines = text.splitlines()
    first = next(i for i, ln in enumerate(lines) if ln.startswith("1. "))
    # reader2 C10: « aucune chocogrenouille », « aucun gallion », never « 0 gallion »
    assert lines[first].endswith("bourse de 3 gallions, aucune chocogrenouille")
    assert lines[first + 1].startswith("2. [b]Cassius Thorne[/b]")
    assert lines[first + 1].endswith("aucun gallion, 1 chocogrenouille")
    assert lines[first + 2] == "" and lines[first + 3].startswith("Chaque victoire")


def test_magic_type_owl_says_tu_and_names_the_type_once() -> None:
    rs = load_ruleset("fatigue")
    for key in ("brutale", "discrete", "flamboyante", "protectrice", "sournoise"):
        mtype = rs.magic_type(key)
        text = render(
            "owl_magic_types.bbcode.j2",
            {"character": "Aurora", "opponent": "Cassius",
             "topic_url": Trusted("http://b.example/viewtopic.php?t=3"),
             "types": [{"label": mtype.label, "traits": mtype.traits, "owl": mtype.owl,
                        "modifiers": [modifier_scope(rs, m) for m in mtype.modifiers]}],
             "referee_name": "L'arbitre"},
        )  # fmt: skip
        assert text.count(mtype.label.lower()) + text.count(mtype.label) == 1, text
        assert "vos " not in text and "vous" not in text and "ton type de magie" in text


def test_duration_bonus_is_a_proper_plural() -> None:
    one = describe_modifier(MagicModifier(kind="duration_bonus", family="entrave", value=1))
    two = describe_modifier(MagicModifier(kind="duration_bonus", family="*", value=2))
    assert one.endswith("effets prolongés d'un tour") and two.endswith("prolongés de 2 tours")


def _fatigue_step(
    attacks: list[dict[str, object]], step: str, **extra: object
) -> str:
    duellists = [
        {"name": n, "points": p, "violations": [], "disqualified": False}
        for n, p in (("Aurora Vexley", 330), ("Cassius Thorne", 95))
    ]
    return render(
        "fatigue_turn.bbcode.j2",
        {"turn": 2, "step": step, "unit": "PV", "dice_name": "Pari", "dice_source": "bot",
         "posts": [{"duellist": "Cassius Thorne", "post_id": 14, "role": "initiative",
                    "action": "lancer un sort", "spell": "Protego", "bet": [1, 2, 3, 4],
                    "die": 6, "bet_won": False}],
         "outcome": {"attacks": attacks, "effects_next": {}, "violations": [],
                     "finished": False, "state": {"duellists": duellists}},
         "defender": "Aurora Vexley", "dodged": None, "riposte": None, "hours": 36,
         "self_spells": ["Protego"], "referee_name": "L'arbitre", "late_edits": [],
         "extra_posts": [], "stakes": None, **extra},
    )  # fmt: skip


def test_a_ward_is_cast_on_the_caster_not_at_the_opponent() -> None:
    base = {"attacker": "Cassius Thorne", "defender": "Aurora Vexley", "spell": "Protego",
            "attack_modifiers": [], "defense_modifiers": [], "attack_value": 0, "damage": 0}
    first = _fatigue_step([{**base, "landed": False, "void_reason": "pending"}], "initiative")
    first = plain(first)
    assert "lance Protego, un sort qui agit sur son lanceur." in first
    assert "sur Aurora Vexley" not in first and "attend la défense" not in first
    assert "À Aurora Vexley de se défendre" in first
    second = plain(_fatigue_step([{**base, "landed": True, "void_reason": None}], "defense"))
    assert "Protego de Cassius Thorne prend effet sur son lanceur" in second  # no effect known
    assert "le sort touche" not in second


def _spellbook_effect(spell: str, kind: str) -> dict[str, int]:
    """The effect ``kind`` of ``spell`` in the shipped rules/data/fatigue.toml (its numbers are
    the club's to set, so the texts are checked against the file, not against a copy)."""
    import tomllib
    from pathlib import Path

    data = tomllib.loads((Path(__file__).parents[2] / "rules/data/fatigue.toml").read_text())
    (entry,) = [s for s in data["spells"] if s["name"] == spell]
    (effect,) = [e for e in entry["effects"] if e["type"] == kind]
    return effect


def test_a_ward_says_it_starts_next_turn_and_not_against_this_turns_spell() -> None:
    """Issue 25, reader W2: « Il prendra effet avec la défense » promised a protection the engine
    never gives. RULES.md, Fine points (fatigue): « a spell's effect starts with the next turn
    (it never binds the post that answers it) and lasts its spellbook duration in turns »;
    fatigue.toml ``effect_start = "next_turn"``; the engine's trail « 2 turn(s) from next turn »."""
    from forumbot.publish.labels import caster_effects

    rs = load_ruleset("fatigue")
    own = {"Cassius Thorne|Protego": caster_effects(rs, ["sournoise"], "Protego")}
    ward = _spellbook_effect("Protego", "ward")  # the shipped spellbook's, club's to set
    assert own["Cassius Thorne|Protego"] == [
        {"kind": "ward", "amount": ward["amount"], "turns": ward["duration"],
         "base": ward["duration"], "bonus": 0, "by": ""}
    ]
    base = {"attacker": "Cassius Thorne", "defender": "Aurora Vexley", "spell": "Protego",
            "attack_modifiers": [], "defense_modifiers": [], "attack_value": 0, "damage": 0}
    first = plain(_fatigue_step([{**base, "landed": False, "void_reason": "pending"}],
                                "initiative", caster_effects=own))  # fmt: skip
    assert (
        "- Cassius Thorne lance Protego, un sort qui agit sur son lanceur. À partir du tour 3, "
        "et pendant 2 tours, "
        f"chaque sort qui touche Cassius Thorne lui fera {ward['amount']} PV de moins. Protego ne "
        "protège pas du sort de ce tour-ci."
    ) in first
    assert "prendra effet avec la défense" not in first
    second = plain(_fatigue_step([{**base, "landed": True, "void_reason": None}], "defense",
                                 caster_effects=own))  # fmt: skip
    assert (
        "- Protego de Cassius Thorne ne protège pas du sort de ce tour-ci. À partir du tour 3, et "
        f"pendant 2 tours, chaque sort qui touche Cassius Thorne lui fera {ward['amount']} PV de "
        "moins."
    ) in second
    # a protective caster's ward lasts a turn more (fatigue.toml magic type « protectrice »)
    assert caster_effects(rs, ["protectrice"], "Impervius") == [
        {"kind": "ward", "amount": 4, "turns": 2, "base": 1, "bonus": 1, "by": "protectrice"}
    ]
    heal = caster_effects(rs, ["protectrice"], "Episkey")
    # the spellbook's heal + 5 (« rendent 5 PV de plus »)
    assert heal == [{"kind": "heal", "amount": _spellbook_effect("Episkey", "heal")["amount"] + 5}]
