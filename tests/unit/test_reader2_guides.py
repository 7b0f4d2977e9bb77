"""The players' guides after the second French reader (issue 25, reader2 C16, C17, C19, C20,
T3). The guide is rendered from the ruleset file and checked by the BBCode checker and the
French lint (forumbot.publish.guide.render_guide raises GuideError otherwise)."""

from __future__ import annotations

from forumbot.publish.guide import render_guide
from forumbot.publish.typography import plain
from forumbot.rulesets import load_ruleset


def test_classic_guide_spells_out_pd_and_says_what_a_spell_above_ones_level_does() -> None:
    """RULES.md glossary: « PD, points de défense »; classic.toml known_levels: a spell above
    the caster's level is only a flag (seed 000: « vous pouvez connaître un peu plus de
    sortilège que votre niveau si vous êtes rat de bibliothèque »)."""
    text = plain(render_guide("classic"))
    assert "[b]Points de départ[/b] (PD, points de défense)\n[list]" in text
    assert "Un sort au-dessus de son niveau est signalé à l'arbitre, qui décide" in text


def test_fatigue_guides_say_what_a_magic_type_changes() -> None:
    """RULES.md: magic-type modifiers act on spell families (fatigue.toml ``family``)."""
    rs = load_ruleset("fatigue")
    for kind in ("fatigue", "duo"):
        text = plain(render_guide(kind))
        assert "[b]Types de magie[/b]" in text
        for t in rs.magic_types.values():
            assert f"[*][b]{t.label}[/b] ({t.traits}) : " in text
        assert "+10 % de dégâts pour ses sorts de la famille « attaque »" in text
        assert (
            "-5 PV de dégâts subis pour les sorts de la famille « attaque » qui le touchent" in text
        )


def test_duo_guide_says_which_1v1_rules_apply_in_a_zone_and_typesets_the_syntax() -> None:
    """RULES.md 2v2: « Two opponents alone in a zone: the 1v1 rules apply between them. »;
    the quoted syntax is typeset like the text around it (the parser reads « Déplacement : »
    with a no-break space: parsers.text maps U+00A0 to a space)."""
    raw = render_guide("duo")
    text = plain(raw)
    assert "ils jouent entre eux comme en un contre un : initiative, puis défense." in text
    assert "« Déplacement\u00a0: zone 2 »" in raw.replace("\u202f", " ")
