"""The review page's claims and notice settings (issue 18), in process (httpx.ASGITransport):
take, others see who took it, only the taker or an admin releases, the settings form."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta

import httpx
import pytest

from forumbot.duels.publication import publish_due
from forumbot.notify.settings import NotifyConfig, person_settings
from forumbot.publish.typography import plain
from forumbot.web import create_app
from forumbot.web.users import assign_referee
from tests.unit.test_web_app import form_post, login
from tests.unit.web_scenario import Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "s" * 48
CFG = NotifyConfig(claim_limit_s=3600, timezone="Europe/Paris")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scenario() -> Scenario:
    s = build()
    assign_referee(s.storage, s.duel_id, "otto", "alice", s.clock())
    return s


def board_members(name: str) -> str | bool:
    """The board's member look-up (issue 24 F11; the real one against the sandbox board:
    tests/integration/test_web_forum_account.py): the board spells its members its own way."""
    return {"rita skeeter": "Rita Skeeter"}.get(name.casefold(), False)


def app_client(s: Scenario) -> httpx.AsyncClient:
    app = create_app(s.storage, secret_key=SECRET, now=s.clock, notify=CFG, members=board_members)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


@pytest.fixture
async def rita(scenario: Scenario) -> AsyncIterator[httpx.AsyncClient]:
    async with app_client(scenario) as c:
        await login(c, "rita")
        yield c


async def test_take_shows_the_taker_to_others_and_pauses_the_clock(
    scenario: Scenario, rita: httpx.AsyncClient
) -> None:
    path = f"/drafts/{scenario.draft_id}"
    r = await form_post(rita, path, f"{path}/take", {"version": "0"})
    assert r.status_code == 303
    page = await rita.get(path)
    assert "Pris : il attend votre décision." in plain(page.text)
    local = scenario.clock() + timedelta(hours=1)  # Paris in winter
    until = local + timedelta(seconds=CFG.claim_limit_s)
    assert (
        f"Pris par rita le {local:%d/%m %H:%M} (au plus tard le {until:%d/%m %H:%M})" in page.text
    )
    assert "Libérer" in page.text
    async with app_client(scenario) as otto:
        await login(otto, "otto")
        other = await otto.get("/drafts")
        assert "Pris par rita" in other.text
        assert "Pris en charge : attend la décision de rita" in plain(other.text)
        assert f'action="/drafts/{scenario.draft_id}/release"' not in other.text
        r = await form_post(otto, path, f"{path}/release", {})
        assert r.status_code == 303
        assert "Seul rita ou un admin peut le libérer." in (await otto.get(path)).text
    scenario.clock.advance(1200)
    assert publish_due(scenario.storage, scenario.forum, scenario.clock) == []
    await form_post(rita, path, f"{path}/release", {})
    assert scenario.storage.declaration(scenario.draft_id)["claimed_by"] is None
    assert len(publish_due(scenario.storage, scenario.forum, scenario.clock)) == 1


async def test_settings_form_changes_channels_quiet_hours_and_forum_account(
    scenario: Scenario, rita: httpx.AsyncClient
) -> None:
    page = await rita.get("/me/notify")
    assert page.status_code == 200 and "Heures calmes" in page.text
    r = await form_post(
        rita,
        "/me/notify",
        "/me/notify",
        {"channel": "owl", "quiet": "22:00-7:30", "forum_name": "rita skeeter"},
    )
    assert r.status_code == 303
    s = person_settings(scenario.storage, "rita", CFG)
    assert (s.channels, s.quiet_text, s.forum_name) == (("owl",), "22:00-07:30", "Rita Skeeter")
    bad = await form_post(rita, "/me/notify", "/me/notify", {"quiet": "tard"})
    assert bad.status_code == 303
    assert "Réglage refusé" in (await rita.get("/me/notify")).text
    audit = [
        a for a in scenario.storage.audit_entries("user:rita") if a["action"] == "notify.settings"
    ]
    assert len(audit) == 1 and json.loads(audit[0]["after"])["forum"] == "Rita Skeeter"
