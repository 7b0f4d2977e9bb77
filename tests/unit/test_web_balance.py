"""Balance heatmaps on the review page (issue 17: "admins get the same table as a heatmap on the
review page, one page per ruleset, as an SVG like the duel page's chart"), in process through
httpx.ASGITransport: admins only, one page per shipped ruleset, well-formed escaped SVG, French
with the English switch."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator

import httpx
import pytest

from forumbot.publish.typography import plain
from forumbot.web import create_app
from forumbot.web.balance import BalanceCache, shipped_rulesets
from forumbot.web.routes.balance import heatmap
from rules.balance import Cell, Table
from tests.unit.test_web_app import SECRET, login
from tests.unit.web_scenario import EVIL, Scenario, build

pytestmark = pytest.mark.anyio
SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    scenario: Scenario = build()
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    app.state.deps.balance = BalanceCache(duels=100)  # small and quick: 1 to 4 duels a square
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


def svgs(html: str) -> list[ET.Element]:
    """Every inline SVG of the page, parsed as XML (raises on a malformed one)."""
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", html, flags=re.S)]


def test_the_shipped_rulesets_are_classic_and_fatigue() -> None:
    assert shipped_rulesets() == ["classic", "fatigue"]  # duo.toml holds 2v2 settings only


async def test_admin_sees_one_heatmap_page_per_ruleset(client: httpx.AsyncClient) -> None:
    await login(client, "alice")
    index = await client.get("/balance")
    assert index.status_code == 200
    assert 'href="/balance/classic"' in index.text and 'href="/balance/fatigue"' in index.text
    # 2v2 has no heatmap page (newcomer 7, #15: /balance/duo was a bare 404): the command
    assert "Deux contre deux : pas de carte de couleurs ici" in plain(index.text)
    assert "<code>forumbot simulate --ruleset duo --duels 10000 --seed 1</code>" in index.text
    classic = await client.get("/balance/classic")
    assert classic.status_code == 200
    (svg,) = svgs(classic.text)  # classic: year against year only
    squares = svg.findall(f"{SVG_NS}rect")
    assert len(squares) == 7 * 7  # seven years
    assert "classique : victoires de la ligne (année contre année)" in plain(classic.text)
    # forumbot simulate's tables (newcomer 6 C3): the command that prints the same figures
    assert "100 duels par tableau, graine 1" in plain(classic.text)
    assert "<code>forumbot simulate --ruleset classic --duels 100 --seed 1</code>" in classic.text
    # the figures once, one term (reader pass C42): « clos au plafond de tours »
    assert len(re.findall(r"durée moyenne : \d+,\d tours", plain(classic.text))) == 1
    assert "clos au plafond de tours\u00a0:" in classic.text
    assert "par l&#39;arbitre" not in classic.text
    fatigue = await client.get("/balance/fatigue")
    years, types = svgs(fatigue.text)  # fatigue: years, then magic types
    assert len(years.findall(f"{SVG_NS}rect")) == 8 * 8
    assert len(types.findall(f"{SVG_NS}rect")) == 5 * 5
    assert "magie contre magie" in fatigue.text


async def test_the_english_switch(client: httpx.AsyncClient) -> None:
    await login(client, "alice")
    page = await client.get("/balance/classic?lang=en")
    assert "Rules balance" in page.text
    assert "classic: win rate of the row side (year against year)" in page.text
    assert re.search(r"mean length: \d+\.\d turns", page.text)
    assert "closed at the turn cap:" in page.text


async def test_a_referee_gets_403_and_an_unknown_ruleset_404(client: httpx.AsyncClient) -> None:
    await login(client, "rita")
    assert (await client.get("/balance")).status_code == 403
    assert (await client.get("/balance/classic")).status_code == 403
    client.cookies.clear()
    anonymous = await client.get("/balance/classic")
    assert anonymous.status_code == 303
    await login(client, "alice")
    assert (await client.get("/balance/duo")).status_code == 404
    assert (await client.get("/balance/..%2Fsecrets")).status_code == 404


def test_the_svg_is_well_formed_and_escaped() -> None:
    cell = Cell(EVIL, "7", duels=4, wins=3, losses=1, draws=0, capped=0, turns=20)
    table = Table(EVIL, "years", (EVIL,), ("7",), {(EVIL, "7"): cell})
    for language in ("fr", "en"):
        svg = str(heatmap(table, language))
        root = ET.fromstring(svg)  # well-formed XML
        assert "<script>" not in svg and "&lt;script&gt;" in svg
        texts = "".join(root.itertext())
        assert EVIL in texts  # shown as text, not markup
        assert "75" in texts  # the win rate written in its square


def test_the_clubs_of_a_host_share_one_computation_of_the_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every club's app has its own BalanceCache, but the shipped files are the same: the
    first club's request computes the tables, the next club's reads them (6.6 s of CPU for
    fatigue's default tables, once per process, not once per club)."""
    computed: list[str] = []
    real = BalanceCache._compute

    def counting(self: BalanceCache, name: str) -> object:
        computed.append(name)
        return real(self, name)

    monkeypatch.setattr(BalanceCache, "_compute", counting)
    first, second = BalanceCache(duels=64, seed=3), BalanceCache(duels=64, seed=3)
    assert first.tables("classic") is second.tables("classic")
    assert computed == ["classic"]
    other_seed = BalanceCache(duels=64, seed=4).tables("classic")
    assert computed == ["classic", "classic"] and other_seed is not first.tables("classic")
