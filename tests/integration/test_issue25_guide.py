"""Issue 25, `forumbot guide [--post TOPIC]`: the players' guide rendered from the ruleset file
(classic, fatigue, duo), in French, through the BBCode checker and the French lint; --post
posts it once, with its marker, through the club posts' path."""

from __future__ import annotations

import pytest

from forumbot.publish.checks import bbcode_problems, french_problems
from forumbot.publish.guide import guide_context, render_guide
from forumbot.publish.render import marker_text
from forumbot.publish.typography import plain
from forumbot.rulesets import load_ruleset
from rules.ruleset import ruleset_path
from tests.integration.test_cli_duels import _run, _storage, sandbox  # noqa: F401 (the fixture)


@pytest.mark.parametrize("name", ["classic", "fatigue", "duo"])
def test_guide_is_the_ruleset_file_in_french(name: str) -> None:
    typeset = render_guide(name)
    assert bbcode_problems(typeset) == [] and french_problems(typeset) == []
    text = plain(typeset)  # the words, French typography's no-break spaces undone
    rs = load_ruleset("fatigue" if name == "duo" else name)
    for spell in rs.spells:  # every allowed spell, with its level, from the file
        assert f"[b]{spell.name}[/b], niveau {spell.level}" in text, spell.name
    assert "Exemple de message" in text and "[quote]" in text
    assert "[b]Délais[/b]" in text
    if name == "classic":
        assert "Paris" not in text and "« Duel »" in text
    else:
        assert "Pari : [1,2,3,4]" in text and "[1,2,3] ou [4,5,6]" in text
        hours = rs.setting("timeout_2v2_hours" if name == "duo" else "timeout_1v1_hours")
        assert f"un délai de {hours} heures" in text
        assert ("Cible : " in text) is (name == "duo")
    for code in ("pv_damage", "spell_family", "dodge_riposte", "timeout_", "[D]"):
        assert code not in text, code


def test_guide_follows_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = load_ruleset("fatigue")
    path = tmp_path / "club.toml"
    text = ruleset_path("fatigue").read_text(encoding="utf-8")
    path.write_text(text.replace("timeout_1v1_hours = 36", "timeout_1v1_hours = 30"), "utf-8")
    assert guide_context(str(path))["hours"] == 30
    assert "un délai de 30 heures" in render_guide(str(path))
    assert source.setting("timeout_1v1_hours") == 36


def test_guide_prints_then_posts_once(request: pytest.FixtureRequest) -> None:
    cfg, board, topic = request.getfixturevalue("sandbox")
    printed = _run("guide", "--ruleset", "fatigue", "-c", str(cfg))
    assert printed.exit_code == 0, printed.output
    assert printed.output.startswith("[b]Guide des duels de fatigue en un contre un[/b]")
    before = len(board.posts(topic))
    posted = _run("guide", "--ruleset", "fatigue", "--post", str(topic), "-c", str(cfg))
    assert posted.exit_code == 0, posted.output
    assert "guide posted" in posted.output
    again = _run("guide", "--ruleset", "fatigue", "--post", str(topic), "-c", str(cfg))
    assert again.exit_code == 0 and "already posted" in again.output
    posts = board.posts(topic)
    assert len(posts) == before + 1  # exactly once
    [row] = list(_storage(cfg).db["club_posts"].rows_where("kind = 'guide'"))
    assert marker_text(row["idempotency_key"]) in posts[-1].text
    assert "Sorts autorisés" in posts[-1].text


def test_guide_shows_the_reuse_ban_cast_limits_and_the_clubs_house_rules(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 26: the ban on recasting at the same opponent is the seed's (« formellement
    interdit »); a club lifting it declares a named house rule, and the guide shows it; a
    spell's ``max_casts`` is told too."""
    plain_book = plain(render_guide("fatigue"))
    assert "ne peut plus être lancé sur lui par le même lanceur." in plain_book
    assert "Règles propres au club" not in plain_book
    text = ruleset_path("fatigue").read_text(encoding="utf-8")
    text = text.replace('name = "Episkey"', 'name = "Episkey"\nmax_casts = 2', 1)
    text += (
        "\n[house_rules.recast_same_opponent]\nname = \"Relance libre\"\n"
        "description = \"Un sort peut être relancé sur un adversaire qu'il a déjà touché.\"\n"
    )
    path = tmp_path / "club.toml"
    path.write_text(text, encoding="utf-8")
    typeset = render_guide(str(path))
    guide = plain(typeset)
    assert "sauf règle du club ci-dessous" in guide
    assert "[*][b]Relance libre[/b]. Un sort peut être relancé" in guide
    assert "Un duelliste ne peut le lancer que 2 fois par duel" in guide
    assert not bbcode_problems(typeset) and not french_problems(typeset)


def test_guide_of_a_named_ruleset_needs_no_configuration(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Reader after issue 25, C47: the README shows ``-c`` as optional; with ``--ruleset`` and
    no forumbot.toml the guide is printed with the defaults (French, phpBB), and without a
    ruleset the missing configuration is still the error."""
    from click.testing import CliRunner

    from forumbot.cli import main

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["guide", "--ruleset", "fatigue"])
    assert result.exit_code == 0, result.output
    assert result.output == render_guide("fatigue")
    assert CliRunner().invoke(main, ["guide"]).exit_code == 78  # no file, no ruleset named
