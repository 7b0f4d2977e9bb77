"""Server-side sessions of the review page (:mod:`forumbot.web.sessions`): a session ends for
good at logout, password change, disable *and* enable, or after inactivity; replaying a copy of
an older cookie never brings it back (the newcomer's break-it pass); a user's own password
change on ``/me/password`` ends them all too."""

from __future__ import annotations

import json
import re
from base64 import b64decode, b64encode
from collections.abc import AsyncIterator

import httpx
import itsdangerous
import pytest
from starlette.applications import Starlette

from forumbot.web import create_app
from forumbot.web.sessions import (
    TABLE,
    TOUCH_INTERVAL_S,
    end_session,
    end_user_sessions,
    live_session,
    open_session,
    purge_idle,
)
from forumbot.web.users import authenticate, set_disabled, set_password
from tests.unit.web_scenario import PASSWORD, Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "k" * 40
IDLE_S = 3600
COOKIE = "forumbot_session"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scenario() -> Scenario:
    return build()


@pytest.fixture
def app(scenario: Scenario) -> Starlette:
    return create_app(
        scenario.storage,
        secret_key=SECRET,
        publisher=scenario.publish_one,
        now=scenario.clock,
        session_idle_s=IDLE_S,
    )


@pytest.fixture
async def client(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(app) as c:
        yield c


def _client(app: Starlette, cookies: dict[str, str] | None = None) -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver", cookies=cookies
    )


def _token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "page has no CSRF field"
    return found.group(1)


async def _login(c: httpx.AsyncClient, name: str = "rita", password: str = PASSWORD) -> str:
    """Log in and return a copy of the session cookie (what a thief would keep)."""
    page = await c.get("/login")
    r = await c.post(
        "/login", data={"csrf_token": _token(page.text), "username": name, "password": password}
    )
    assert r.status_code == 303, r.text[:300]
    return c.cookies[COOKIE]


async def _status(app: Starlette, cookie: str) -> int:
    """``GET /drafts`` with only ``cookie``: 200 logged in, 303 sent to the login page."""
    async with _client(app, {COOKIE: cookie}) as c:
        return (await c.get("/drafts")).status_code


def _records(s: Scenario) -> list[dict[str, object]]:
    return list(s.storage.db.table(TABLE).rows)


async def test_old_cookie_stays_dead_after_disable_then_enable(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    old = await _login(client)
    assert await _status(app, old) == 200
    set_disabled(scenario.storage, "rita", True, scenario.clock())
    assert await _status(app, old) == 303
    set_disabled(scenario.storage, "rita", False, scenario.clock())
    assert await _status(app, old) == 303  # the enable does not revive it
    async with _client(app) as fresh:
        assert await _status(app, await _login(fresh)) == 200  # a new login works


async def test_enable_alone_ends_open_sessions(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    old = await _login(client)
    set_disabled(scenario.storage, "rita", False, scenario.clock())  # already enabled
    assert await _status(app, old) == 303
    assert _records(scenario) == []


async def test_cookie_replayed_after_logout_is_anonymous(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    old = await _login(client)
    page = await client.get("/drafts")
    r = await client.post("/logout", data={"csrf_token": _token(page.text)})
    assert r.status_code == 303 and r.headers["location"] == "/login"
    assert (await client.get("/drafts")).status_code == 303
    assert await _status(app, old) == 303  # the pre-logout cookie, replayed
    assert _records(scenario) == []
    # the replayed cookie cannot post either
    async with _client(app, {COOKIE: old}) as c:
        r = await c.post(f"/drafts/{scenario.draft_id}/status", data={"status": "held"})
        assert r.status_code == 303 and r.headers["location"] == "/login"
    assert scenario.storage.declaration(scenario.draft_id)["status"] != "held"


async def test_password_change_ends_every_session_of_the_account_only(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    first = await _login(client)
    async with _client(app) as other_browser, _client(app) as admin_browser:
        second = await _login(other_browser)
        admin = await _login(admin_browser, "alice")
    set_password(scenario.storage, "RITA", "another-long-password", scenario.clock())
    assert await _status(app, first) == 303
    assert await _status(app, second) == 303
    assert await _status(app, admin) == 200  # other accounts keep their sessions
    async with _client(app) as fresh:
        assert await _status(app, await _login(fresh, "rita", "another-long-password")) == 200


async def test_logout_ends_only_that_session(app: Starlette, scenario: Scenario) -> None:
    async with _client(app) as a, _client(app) as b:
        cookie_a = await _login(a)
        cookie_b = await _login(b)
        page = await a.get("/drafts")
        await a.post("/logout", data={"csrf_token": _token(page.text)})
    assert await _status(app, cookie_a) == 303
    assert await _status(app, cookie_b) == 200


async def test_relogin_ends_the_previous_session_of_the_cookie(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    first = await _login(client)
    assert (await client.get("/login")).status_code == 303  # logged in: sent on
    second = await _login_from_form(client)
    assert second != first
    assert await _status(app, first) == 303
    assert await _status(app, second) == 200
    assert len(_records(scenario)) == 1


async def _login_from_form(c: httpx.AsyncClient) -> str:
    """Post the login form from a page that already carries the session's CSRF token."""
    page = await c.get("/drafts")
    r = await c.post(
        "/login", data={"csrf_token": _token(page.text), "username": "rita", "password": PASSWORD}
    )
    assert r.status_code == 303
    return c.cookies[COOKIE]


async def test_session_expires_after_inactivity(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    cookie = await _login(client)
    scenario.clock.advance(IDLE_S - 1)
    assert await _status(app, cookie) == 200  # in use: the idle time starts again
    scenario.clock.advance(IDLE_S - 1)
    assert await _status(app, cookie) == 200
    scenario.clock.advance(IDLE_S)
    assert await _status(app, cookie) == 303  # idle for IDLE_S: ended, record deleted
    assert _records(scenario) == []
    scenario.clock.advance(-10 * IDLE_S)  # even with the clock turned back
    assert await _status(app, cookie) == 303


async def test_last_seen_is_written_at_most_once_a_minute(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await _login(client)
    login_time = scenario.clock().isoformat()
    scenario.clock.advance(TOUCH_INTERVAL_S - 1)
    await client.get("/drafts")
    assert _records(scenario)[0]["last_seen_at"] == login_time
    scenario.clock.advance(1)
    await client.get("/drafts")
    touched = scenario.clock().isoformat()
    assert _records(scenario)[0]["last_seen_at"] == touched
    scenario.clock.advance(30)
    await client.get("/drafts")
    assert _records(scenario)[0]["last_seen_at"] == touched
    assert _records(scenario)[0]["created_at"] == login_time


async def test_cookie_carries_only_the_session_id_and_csrf_token(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    cookie = await _login(client)
    payload = json.loads(b64decode(cookie.split(".")[0]))
    assert set(payload) == {"sid", "csrf"}
    assert "rita" not in json.dumps(payload)
    assert len(payload["sid"]) == 43  # secrets.token_urlsafe(32)
    (record,) = _records(scenario)
    assert record["username"] == "rita"
    assert payload["sid"] not in json.dumps(record)  # only its hash is stored


async def test_old_style_signed_cookie_is_anonymous(app: Starlette) -> None:
    """A cookie from before server-side sessions (username + stamp), validly signed."""
    data = b64encode(json.dumps({"user": "alice", "stamp": "0" * 16, "csrf": "x"}).encode())
    legacy = itsdangerous.TimestampSigner(SECRET).sign(data).decode()
    assert await _status(app, legacy) == 303


# -- /me/password: the user's own change ---------------------------------------------------
NEW = "a brand new battery"


async def _change(
    c: httpx.AsyncClient, current: str, new: str = NEW, again: str | None = None
) -> httpx.Response:
    page = await c.get("/me/password")
    assert page.status_code == 200
    data = {"password": current, "new_password": new, "new_password_again": again or new}
    return await c.post("/me/password", data={"csrf_token": _token(page.text), **data})


async def test_own_password_change_ends_every_session(
    app: Starlette, client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await _login(client)
    async with _client(app) as other:  # another open session of rita's
        stolen = await _login(other)
        r = await _change(client, PASSWORD)
        assert r.status_code == 303 and r.headers["location"] == "/login"
        assert "Mot de passe changé" in (await client.get("/login")).text
        assert (await client.get("/drafts")).status_code == 303
        assert await _status(app, stolen) == 303
    assert authenticate(scenario.storage, "rita", PASSWORD) is None
    entry = scenario.storage.audit_entries("user:rita")[-1]
    assert (entry["actor"], entry["action"]) == ("rita", "user.password")
    await _login(client, "rita", NEW)


async def test_own_password_refusals_change_nothing(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await _login(client)
    r = await _change(client, PASSWORD, NEW, NEW + "x")
    assert r.status_code == 400 and "Les deux nouveaux mots de passe diffèrent." in r.text
    r = await _change(client, PASSWORD, "short")
    assert r.status_code == 400 and "at least 8 characters" in r.text
    r = await _change(client, "not her password")
    assert r.status_code == 401 and "Mot de passe erroné." in r.text
    r = await client.post("/me/password", data={"password": PASSWORD, "new_password": NEW})
    assert r.status_code == 403  # no CSRF token
    assert authenticate(scenario.storage, "rita", PASSWORD) is not None
    assert (await client.get("/drafts")).status_code == 200  # still logged in
    for _ in range(4):  # 5 wrong current passwords per account and address, as at login
        assert (await _change(client, "wrong guess")).status_code == 401
    r = await _change(client, PASSWORD)
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0


# -- the record functions ------------------------------------------------------------------
def test_records_open_live_end_purge(scenario: Scenario) -> None:
    storage, now = scenario.storage, scenario.clock()
    a = open_session(storage, "rita", now)
    b = open_session(storage, "rita", now)
    c = open_session(storage, "alice", now)
    assert len({a, b, c}) == 3
    record = live_session(storage, a, now, IDLE_S)
    assert record is not None and record.username == "rita" and record.created_at == now
    assert live_session(storage, "not-a-session", now, IDLE_S) is None
    end_session(storage, a)
    assert live_session(storage, a, now, IDLE_S) is None
    assert end_user_sessions(storage, "Rita") == 1
    assert live_session(storage, b, now, IDLE_S) is None
    scenario.clock.advance(IDLE_S)
    assert purge_idle(storage, scenario.clock(), IDLE_S) == 1
    assert _records(scenario) == []
