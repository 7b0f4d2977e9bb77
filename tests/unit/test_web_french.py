"""Issue 14: the French page is French all through (rule trail, violation evidence, rule
ids, void reasons such as "(shield)", times in the board's timezone, the audit log as a
table), with hints for a referee with no duel; the English switch still works."""

from __future__ import annotations

import html as html_lib
import json
import re
from collections.abc import AsyncIterator

import httpx
import pytest

from forumbot.publish.typography import plain
from forumbot.web import create_app
from forumbot.web.i18n import page_translator, translator
from forumbot.web.words import Words, detail_fr, quantity_fr, rule_name
from tests.unit.web_scenario import PASSWORD, Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "k" * 40
# English the engine writes in this scenario's trail (must not reach the French page).
ENGLISH_TRAIL = (
    "effective defense",
    "the tie lands",
    "twice in a row",
    "first die",
    "no landed attack",
    "in the list of allowed spells",
    "no effect, no damage",
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scenario() -> Scenario:
    return build()


@pytest.fixture
async def client(scenario: Scenario) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(
        scenario.storage, secret_key=SECRET, now=scenario.clock, timezone="Europe/Paris"
    )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


async def login(c: httpx.AsyncClient, name: str) -> None:
    page = await c.get("/login")
    found = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert found
    r = await c.post(
        "/login", data={"csrf_token": found.group(1), "username": name, "password": PASSWORD}
    )
    assert r.status_code == 303


def text_of(page: str) -> str:
    """The visible text (tags and attributes dropped, entities decoded)."""
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", page))


def trail_rows(page: str) -> list[list[str]]:
    table = re.search(r'<details class="trail".*?</details>', page, re.S)
    assert table, "no rule trail on the page"
    return [
        [text_of(cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)
        if "<td" in row
    ]


async def test_rule_trail_and_evidence_in_french(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    page = (await client.get(f"/drafts/{scenario.draft_id}")).text
    rows = trail_rows(page)
    assert [
        "Cassius Thorne : attaque touche",
        "oui",
        "déviation",
        # one colon a sentence (reader pass C40)
        "défense effective 6 d'Aurora Vexley contre attaque 6, à égalité, le sort touche",
    ] in [plain(r[:4]) for r in rows]  # typeset like the posts (issue 25): plain() undoes it
    assert ["Aurora Vexley : dé d'attaque", "1", "dés", "message 106, premier dé"] in [
        plain(r[:4]) for r in rows
    ]
    # the Source column quotes the seed / RULES.md as written: left out of the check
    visible = text_of(re.sub(r'<td class="source">.*?</td>', "", page, flags=re.S))
    for english in ENGLISH_TRAIL:
        assert english not in visible, english
    assert "repeated_spell" not in visible  # the rule id is named, the raw id in a title only
    assert 'title="classic.repeated_spell"' in page
    assert "sort répété" in visible
    assert "Sortilège de Désarmement deux fois de suite" in visible
    assert "sans effet ni dégâts ; le dé de défense compte" in plain(visible)


async def test_english_switch_shows_the_engine_text(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    page = (await client.get(f"/drafts/{scenario.draft_id}?lang=en")).text
    visible = text_of(page)
    assert "Aurora Vexley's effective defense 6 vs attack 6: equal: the tie lands" in visible
    assert "repeated spell" in visible and "Sortilège de Désarmement twice in a row" in visible
    assert "14:46 (CET)" in visible  # the post's time, in the board's timezone
    assert "Rule trail" in visible or "Why these numbers" in visible


async def test_void_reason_shield_in_french(client: httpx.AsyncClient, scenario: Scenario) -> None:
    decl = scenario.storage.declaration(scenario.draft_id)
    stored = json.loads(decl["context_json"])
    stored["outcome"]["attacks"][0]["void_reason"] = "shield"
    scenario.storage.db["declarations"].update(
        scenario.draft_id, {"context_json": json.dumps(stored, ensure_ascii=False)}
    )
    await login(client, "rita")
    page = text_of((await client.get(f"/drafts/{scenario.draft_id}")).text)
    assert "sans attaque (bouclier)" in page and "(shield)" not in page
    en = text_of((await client.get(f"/drafts/{scenario.draft_id}?lang=en")).text)
    assert "no attack (shield)" in en


async def test_times_in_the_board_timezone(client: httpx.AsyncClient, scenario: Scenario) -> None:
    await login(client, "rita")
    page = text_of((await client.get(f"/drafts/{scenario.draft_id}")).text)
    assert "30/11/2026 14:46 (CET)" in page  # stored 2026-11-30T13:46:00+00:00
    assert "T13:46:00+00:00" not in page
    duel = text_of((await client.get(f"/duels/{scenario.duel_id}")).text)
    assert "30/11/2026 13:20 (CET)" in duel and "+00:00" not in duel


async def test_audit_log_is_a_readable_table(client: httpx.AsyncClient, scenario: Scenario) -> None:
    await login(client, "alice")
    page = (await client.get(f"/duels/{scenario.duel_id}")).text
    table = re.search(r'<table class="audit">.*?</table>', page, re.S)
    assert table
    rows = [
        [text_of(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)
        if "<td" in row
    ]
    headers = [text_of(h).strip() for h in re.findall(r"<th>(.*?)</th>", table.group(0))]
    assert headers == ["Qui", "Quand", "Quoi", "Cible", "Avant → après"]
    assert [
        "forumbot",
        "30/11/2026 13:10 (CET)",
        "déclaration publiée",
        "Déclaration n° 1",  # reader pass T6
        "état : brouillon → publié  message : 102",
    ] in [plain(r[:4]) + [re.sub(r"\s+", " ", r[4]).replace(" message", "  message")] for r in rows]
    # issue 25: French field names and values, no raw key or JSON list
    audit = re.sub(r"\s+", " ", text_of(table.group(0)))
    assert "topic_id" not in audit and "duellists" not in audit and "[[" not in audit
    assert "sujet : n° 7" in audit and "duellistes : Aurora Vexley (1re année" in audit
    assert ["alice", "30/11/2026 13:21 (CET)", "arbitre désigné"] in [r[:3] for r in rows]
    assert '{"status"' not in page and "&#34;status&#34;" not in page  # no raw JSON
    en = text_of((await client.get(f"/duels/{scenario.duel_id}?lang=en")).text)
    assert "declaration published" in en and "Declaration #1" in en and "Who" in en


async def test_referee_without_duel_gets_a_hint(client: httpx.AsyncClient) -> None:
    await login(client, "otto")
    page = text_of((await client.get("/drafts")).text)
    assert "Aucun brouillon en attente." in page
    assert "un administrateur doit vous désigner comme arbitre d'un duel" in page
    en = text_of((await client.get("/drafts?lang=en")).text)
    assert "an admin must make you a referee of a duel" in en


async def test_no_hint_for_an_assigned_referee_or_admin(client: httpx.AsyncClient) -> None:
    await login(client, "alice")
    assert "doit vous désigner" not in text_of((await client.get("/drafts")).text)


def test_words_units() -> None:
    assert rule_name("classic.spell.shield", "fr") == "bouclier"
    assert rule_name("fatigue.dodge", "en") == "dodge"
    assert rule_name("never.heard_of", "fr") == "heard of"
    assert quantity_fr("Aurora Vexley.violation.repeated_spell", ("Aurora Vexley",)) == (
        "Aurora Vexley : infraction « sort répété »"
    )
    assert detail_fr("computed 6, referee set True") == "calculé 6, fixé par l'arbitre à oui"
    assert detail_fr("no attack this turn (counter_spell)") == "pas d'attaque ce tour (contre-sort)"
    w = Words("fr", "Not/AZone", translator("fr"))
    assert w.when("2026-11-30T13:46:00+00:00") == "30/11/2026 13:46 (UTC)"
    assert w.when("") == "" and w.when("hier") == "hier"


async def test_the_page_is_typeset_in_french_only(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    """Issue 25: the page's own French gets the posts' typography (U+00A0 before « : »,
    U+202F before « ? » and inside « »); what was written by someone else (a task's subject,
    the posts) and the English page are left as they are."""
    await login(client, "rita")
    page = (await client.get("/tasks")).text
    assert "Connecté\u00a0: rita (arbitre)" in page  # the page's own words
    # the task's subject as one sentence (reader pass C36), its names and object untouched
    assert "Aurora Vexley tente d&#39;actionner le cadran" in page
    assert "Connecté : " not in page
    en = (await client.get("/tasks?lang=en")).text
    assert "Logged in: rita (referee)" in en
    assert "\u00a0:" not in text_of(en) and "\u202f" not in text_of(en)
    _ = page_translator("fr")
    assert _("Already taken by %s.", "Aurora ; « x » !") == "Déjà pris par Aurora ; « x » !."
    assert _("Change refused: %s", "a : b") == "Modification refusée\u00a0: a : b"
    assert _("No PV lost: close the duel?") == "Aucun PV perdu\u00a0: clore le duel\u202f?"


def test_audit_status_changes_and_rules_in_french() -> None:
    """A bare status change (« brouillon → approuvé », not « draft → approved ») and a rule id
    (« sort répété », not « repeated_spell ») read as French in the audit table."""
    from forumbot.web.audit_words import changes_fr

    assert changes_fr("draft", "approved", str) == (("", "brouillon", "approuvé"),)
    rows = changes_fr({"points": 6}, {"points": 9, "rule": "repeated_spell"}, str)
    assert ("règle", "", "sort répété") in rows and ("points", "6", "9") in rows
    w = Words("fr", "Europe/Paris", page_translator("fr"))
    row = w.audit({"action": "violation.dismissed.state", "target": "duel:1", "actor": "alice"})
    assert row.what == "état du duel recalculé (infraction rejetée)"
    assert plain(row.target) == "Duel n° 1"
