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
    assert _draw("reward:creature:strangulot:42 3/4") == (  # a sentence (issue 25)
        "la récompense de la créature « strangulot », gagnée au message n° 42, a été tirée "
        "au sort : 3 sur 4"
    )
    assert _draw("reward:mechanism:cadran:12 1/2") == (
        "la récompense du mécanisme « cadran », gagnée au message n° 12, a été tirée au sort : "
        "1 sur 2"
    )


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
    assert lines[first].endswith("bourse de 3 gallions, 0 chocogrenouille")
    assert lines[first + 1].startswith("2. [b]Cassius Thorne[/b]")
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


def _fatigue_step(attacks: list[dict[str, object]], step: str) -> str:
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
         "extra_posts": [], "stakes": None},
    )  # fmt: skip


def test_a_ward_is_cast_on_the_caster_not_at_the_opponent() -> None:
    base = {"attacker": "Cassius Thorne", "defender": "Aurora Vexley", "spell": "Protego",
            "attack_modifiers": [], "defense_modifiers": [], "attack_value": 0, "damage": 0}
    first = _fatigue_step([{**base, "landed": False, "void_reason": "pending"}], "initiative")
    first = plain(first)
    assert "lance Protego, un sort qui agit sur son lanceur" in first
    assert "d'Aurora Vexley" in first
    assert "sur Aurora Vexley" not in first and "attend la défense" not in first
    assert "À Aurora Vexley de se défendre" in first
    second = plain(_fatigue_step([{**base, "landed": True, "void_reason": None}], "defense"))
    assert "Protego de Cassius Thorne prend effet sur son lanceur" in second
    assert "le sort touche" not in second
