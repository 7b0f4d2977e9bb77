"""Every POST route of the review app refuses a request without a login and without a valid
CSRF token; the route list is read from the app itself, so a new route is covered at once."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.routing import Route

from forumbot.web import create_app
from tests.unit.web_scenario import PASSWORD, Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "k" * 40
# Routes that work without a login (they still need the CSRF token).
ANONYMOUS = {"/login"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scenario() -> Scenario:
    return build()


@pytest.fixture
def app(scenario: Scenario) -> Starlette:
    return create_app(
        scenario.storage, secret_key=SECRET, publisher=scenario.publish_one, now=scenario.clock
    )


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


def post_paths(app: Starlette, scenario: Scenario) -> list[str]:
    """Every POST route, with its path parameters filled with existing ids."""
    ids = {
        "decl_id": scenario.draft_id,
        "duel_id": scenario.duel_id,
        "violation_id": 1,
        "task_id": scenario.task_id,
    }
    paths = []
    for route in app.routes:
        if isinstance(route, Route) and route.methods and "POST" in route.methods:
            path = route.path
            for name, value in ids.items():
                path = re.sub(r"\{" + name + r"(:[a-z]+)?\}", str(value), path)
            assert "{" not in path, f"no id to fill {route.path}"
            paths.append(path)
    return paths


def form_for(scenario: Scenario) -> dict[str, str]:
    """A form that would change state on any route if it were accepted."""
    return {
        "version": str(scenario.storage.declaration(scenario.draft_id)["version"]),
        "text": "changé",
        "key": "Aurora Vexley.points",
        "value": "1",
        "duellist": "Aurora Vexley",
        "rule": "repeated_spell",
        "waive": "1",
        "status": "held",
        "username": "alice",
        "password": PASSWORD,
        "op": "add",
        "decision": "dismissed",
        "reason": "test",
        "note": "test",
    }


def snapshot(scenario: Scenario) -> tuple[object, ...]:
    db = scenario.storage.db
    return (
        scenario.storage.declaration(scenario.draft_id),
        list(db["violations"].rows),
        list(db["duel_referees"].rows),
        list(db["referee_tasks"].rows),
        db["audit_log"].count,
    )


def test_the_app_has_the_expected_post_routes(app: Starlette, scenario: Scenario) -> None:
    paths = post_paths(app, scenario)
    d = scenario.draft_id
    assert len(paths) == 15
    for expected in (
        "/login",
        "/logout",
        f"/drafts/{d}/numbers",
        f"/drafts/{d}/publish",
        f"/drafts/{d}/drop",
        "/violations/1/decide",
        f"/duels/{scenario.duel_id}/referees",
        f"/tasks/{scenario.task_id}/close",
        f"/drafts/{d}/take",
        f"/drafts/{d}/release",
        "/me/notify",
        "/me/password",
    ):
        assert expected in paths


async def test_every_post_refuses_without_login(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    before = snapshot(scenario)
    for path in post_paths(app, scenario):
        if path in ANONYMOUS:
            continue
        r = await client.post(path, data=form_for(scenario))
        assert r.status_code in (303, 401, 403), path
        if r.status_code == 303:
            assert r.headers["location"].startswith("/login"), path
    assert snapshot(scenario) == before
    assert scenario.forum.replies_sent == 2  # the opening and turn 1, before the requests


async def test_every_post_refuses_without_a_valid_csrf_token(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    page = await client.get("/login")
    good = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert good
    r = await client.post(
        "/login",
        data={"csrf_token": good.group(1), "username": "alice", "password": PASSWORD},
    )
    assert r.status_code == 303
    before = snapshot(scenario)
    for path in post_paths(app, scenario):
        for bad in (None, "", "forged-token"):
            data = form_for(scenario)
            if bad is not None:
                data["csrf_token"] = bad
            r = await client.post(path, data=data)
            assert r.status_code == 403, (path, bad)
    assert snapshot(scenario) == before
    assert scenario.forum.replies_sent == 2  # the opening and turn 1, before the requests
    # still logged in: /logout without a token did nothing
    assert (await client.get("/drafts")).status_code == 200


async def test_token_of_another_session_is_refused(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as other:
        foreign = re.search(r'name="csrf_token" value="([^"]+)"', (await other.get("/login")).text)
        assert foreign
    page = await client.get("/login")
    mine = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert mine and mine.group(1) != foreign.group(1)
    r = await client.post(
        "/login",
        data={"csrf_token": foreign.group(1), "username": "alice", "password": PASSWORD},
    )
    assert r.status_code == 403


async def test_login_rotates_the_csrf_token(client: httpx.AsyncClient) -> None:
    page = await client.get("/login")
    before = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert before
    await client.post(
        "/login",
        data={"csrf_token": before.group(1), "username": "alice", "password": PASSWORD},
    )
    after = re.search(r'name="csrf_token" value="([^"]+)"', (await client.get("/drafts")).text)
    assert after and after.group(1) != before.group(1)
    r = await client.post("/logout", data={"csrf_token": before.group(1)})
    assert r.status_code == 403


async def test_login_next_never_leaves_the_site(client: httpx.AsyncClient) -> None:
    page = await client.get("/login?next=//evil.example/x")
    assert 'value="/drafts"' in page.text
    tok = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert tok
    r = await client.post(
        "/login",
        data={
            "csrf_token": tok.group(1),
            "username": "alice",
            "password": PASSWORD,
            "next": "https://evil.example/",
        },
    )
    assert r.headers["location"] == "/drafts"
