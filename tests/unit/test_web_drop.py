"""The review page's drop button (issue 22): the same choice as ``forumbot drafts drop``
with the same default (the turn is drafted again at the next poll); unticked, the duel waits
with a referee task."""

from __future__ import annotations

import httpx
import pytest

from tests.unit.test_web_app import (  # noqa: F401  (fixtures)
    anyio_backend,
    client,
    draft,
    form_post,
    login,
    scenario,
)
from tests.unit.web_scenario import FORUM, Scenario

pytestmark = pytest.mark.anyio


async def test_the_drop_button_redrafts_by_default(
    client: httpx.AsyncClient,  # noqa: F811
    scenario: Scenario,  # noqa: F811
) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    page = (await client.get(path)).text
    assert 'name="redraft" value="1" checked' in page and "Supprimer ce brouillon" in page
    before = draft(scenario)
    dice = before["context_json"]
    r = await form_post(
        client, path, path + "/drop",
        {"version": str(before["version"]), "reason": "doublon", "redraft": "1",
         "redraft_field": "1"},
    )  # fmt: skip
    assert r.status_code == 303
    assert draft(scenario)["status"] == "redraft"
    assert "rédigé de nouveau" in (await client.get(path)).text
    scenario.referee.poll_forum(FORUM)  # the next poll drafts the turn again
    again = draft(scenario)
    assert again["status"] == "draft" and again["context_json"] == dice
    [entry] = [
        e for e in scenario.storage.audit_entries(f"declaration:{scenario.draft_id}")
        if e["action"] == "draft.drop"
    ]  # fmt: skip
    assert entry["actor"] == "rita"


async def test_the_drop_button_unticked_opens_a_referee_task(
    client: httpx.AsyncClient,  # noqa: F811
    scenario: Scenario,  # noqa: F811
) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    r = await form_post(
        client, path, path + "/drop",
        {"version": str(draft(scenario)["version"]), "reason": "doublon", "redraft_field": "1"},
    )  # fmt: skip
    assert r.status_code == 303
    assert draft(scenario)["status"] == "cancelled"
    assert "tâche ouverte" in (await client.get(path)).text
    tasks = list(scenario.storage.db["referee_tasks"].rows_where("kind = 'turn_dropped'"))
    assert [t["status"] for t in tasks] == ["open"]
    scenario.referee.poll_forum(FORUM)
    assert draft(scenario)["status"] == "cancelled"  # waits for the referee, and says so


async def test_a_drop_without_a_reason_is_refused_and_changes_nothing(
    client: httpx.AsyncClient,  # noqa: F811
    scenario: Scenario,  # noqa: F811
) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    before = draft(scenario)
    r = await form_post(
        client, path, path + "/drop", {"version": str(before["version"]), "reason": " "}
    )
    assert r.status_code == 303
    assert draft(scenario) == before
    assert "Abandon refusé" in (await client.get(path)).text
