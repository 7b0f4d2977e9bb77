"""Issue 25, the review page: the audit table in French words, the trail's sources in French
(the seed's own sentence, never RULES.md's English nor a code name), the referee's wording,
and a rendered preview of the draft (bbcode library) where player text stays inert."""

from __future__ import annotations

import re

import httpx
import pytest

from forumbot.web.audit_words import changes_fr, source_fr, value_words
from forumbot.web.preview import preview_html
from tests.unit.test_web_french import client, login, scenario, text_of  # noqa: F401 (fixtures)
from tests.unit.web_scenario import Scenario


@pytest.fixture
def anyio_backend() -> str:  # the page test runs on anyio, like test_web_french
    return "asyncio"


def _short(v: object) -> str:
    return str(v)


def test_audit_changes_in_french_words() -> None:
    adopt = changes_fr(
        None,
        {"topic_id": 7, "duellists": [["Aurora Vexley", "5", ["brutale"]], ["Cassius Thorne", "7"]],
         "ruleset": "classic"},
        _short,
    )  # fmt: skip
    assert adopt == (
        ("sujet", "", "n° 7"),
        ("duellistes", "", "Aurora Vexley (5e année, brutale) et Cassius Thorne (7e année)"),
        ("règles", "", "classique"),
    )
    published = changes_fr({"status": "draft"}, {"status": "published", "post_id": 102}, _short)
    assert published == (("état", "brouillon", "publié"), ("message", "", "102"))
    assert value_words("duos", [["A", "B"], ["C", "D"]]) == "A et B contre C et D"
    assert value_words("placement", [["A", 1], ["C", 2]]) == "A en zone 1 et C en zone 2"


def test_trail_sources_in_french() -> None:
    seed = (
        'seed 001: "Chaque post doit, au minimum, faire 10 lignes." (RULES.md, Ruleset fatigue: '
        '"A short post is proposed to the referee as `short_post`, not applied automatically [D]")'
    )
    assert source_fr(seed, "fatigue.short_post") == (
        "Règlement du club : « Chaque post doit, au minimum, faire 10 lignes. »"
    )
    book = "fatigue.toml default spellbook (club's to set): Flipendo, level 1, 20 PV"
    assert source_fr(book) == "Liste des sorts du club : Flipendo, niveau 1, 20 PV"
    rules = 'RULES.md, Ruleset classic: "Effective defense has no floor: it is only compared."'
    french = source_fr(rules, "classic.no_floor")
    assert french == "Précision des règles de l'arbitrage (défense sans plancher)"
    assert "RULES.md" not in french and "defense" not in french
    code = source_fr("effect attack_modifier", "classic.spell.attack_modifier")
    assert "attack_modifier" not in code


def test_preview_renders_bbcode_and_keeps_player_text_inert() -> None:
    text = "[b]Tour 1[/b]\nAurora : <script>alert(1)</script> [url=javascript:alert(2)]x[/url]"
    out = str(preview_html(text, "b1t3-turn1"))
    assert "<strong>Tour 1</strong>" in out
    assert "<script" not in out and "&lt;script&gt;" in out
    assert "javascript:" not in out
    assert 'font-size:50%' in out and "forumbot·b1t3-turn1·" in out  # the marker, discreet


@pytest.mark.anyio
async def test_draft_page_has_the_preview_and_the_referees_words(
    client: httpx.AsyncClient,  # noqa: F811
    scenario: Scenario,  # noqa: F811
) -> None:
    scenario.storage.db["declarations"].update(
        scenario.draft_id,
        {"text": "[b]Déclaration[/b]\nAurora Vexley écrit : <script>alert('x')</script>"},
    )
    scenario.storage.db.conn.commit()
    await login(client, "rita")
    page = (await client.get(f"/drafts/{scenario.draft_id}")).text
    preview = re.search(r'<div class="preview postbody">(.*?)</div>', page, re.S)
    assert preview and "<strong>Déclaration</strong>" in preview.group(1)
    assert "<script>alert" not in page  # neither in the preview nor in the source textarea
    visible = re.sub(r"\s+", " ", text_of(page))
    assert "Infractions" in visible and "Violations proposées" not in visible
    assert "Mettre en attente" in visible and "Retenir" not in visible
    assert "Pénalité 0" not in visible
    sources = re.findall(r'<td class="source"[^>]*>(.*?)</td>', page, re.S)
    assert sources and not [s for s in sources if "RULES.md" in s or "seed 0" in s]
    assert "aucune attaque touchée" not in visible
    duel = re.sub(r"\s+", " ", text_of((await client.get(f"/duels/{scenario.duel_id}")).text))
    assert "Évolution des points" in duel and "Empreinte de la graine des dés" in duel
    assert re.search(r"Aurora Vexley \((1re|\d+e) année\)", duel), duel


def test_years_as_players_say_them() -> None:
    from forumbot.web.words import Words

    fr = Words("fr", "Europe/Paris", lambda t, *a: t)
    assert (fr.year("5"), fr.year("1"), fr.year("adult")) == ("5e année", "1re année", "adulte")
