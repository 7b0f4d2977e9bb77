"""Issue 14: the review page behind a proxy and under attack.

Proxy headers believed only from ``web.trusted_proxies``; the login limit per address and in
all, with bounded memory; the argon2 check off the event loop; the language link of any
page (the error page included) stays on the site; "Publier maintenant" without a publisher.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from starlette.applications import Starlette

from forumbot.publish.typography import plain as untypeset
from forumbot.web import create_app, users
from forumbot.web.auth import LoginLimiter
from tests.unit.web_scenario import PASSWORD, Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "k" * 40


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scenario() -> Scenario:
    return build()


def token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "no CSRF token in the page"
    return found.group(1)


async def guess(c: httpx.AsyncClient, name: str, password: str, **headers: str) -> httpx.Response:
    page = await c.get("/login", headers=headers)
    return await c.post(
        "/login",
        data={"csrf_token": token(page.text), "username": name, "password": password},
        headers=headers,
    )


def client(app: Starlette, peer: str = "203.0.113.9") -> httpx.AsyncClient:
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=(peer, 50000)),
        base_url="http://testserver",
    )


@pytest.fixture
async def plain(scenario: Scenario) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    async with client(app) as c:
        yield c


# -- proxy headers --------------------------------------------------------------------------
async def test_forged_forwarded_for_does_not_reset_the_limit(scenario: Scenario) -> None:
    """No trusted proxy (the default): a new X-Forwarded-For on each try changes nothing;
    the account stays locked for this client even with the right password."""
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    async with client(app, "127.0.0.1") as c:
        statuses = [
            (
                await guess(c, "rita", f"wrong {i}", **{"x-forwarded-for": f"198.51.100.{i}"})
            ).status_code
            for i in range(8)
        ]
        assert statuses == [401] * 5 + [429] * 3
        locked = await guess(c, "rita", PASSWORD, **{"x-forwarded-for": "198.51.100.200"})
        assert locked.status_code == 429 and "Trop de tentatives" in locked.text


async def test_forwarded_for_believed_from_a_trusted_proxy_only(scenario: Scenario) -> None:
    app = create_app(
        scenario.storage, secret_key=SECRET, now=scenario.clock, trusted_proxies=["127.0.0.1"]
    )
    limiter: LoginLimiter = app.state.deps.limiter
    async with client(app, "127.0.0.1") as c:  # the proxy: its header names the client
        for i in range(5):
            await guess(c, "rita", f"wrong {i}", **{"x-forwarded-for": "198.51.100.7"})
        locked = await guess(c, "rita", PASSWORD, **{"x-forwarded-for": "198.51.100.7"})
        assert locked.status_code == 429
        other = await guess(c, "rita", PASSWORD, **{"x-forwarded-for": "198.51.100.8"})
        assert other.status_code == 303  # another real client is not locked out
    assert limiter.retry_after_s(limiter.key("rita", "198.51.100.7")) > 0
    async with client(app, "203.0.113.50") as c:  # not a proxy: its header is ignored
        for i in range(5):
            await guess(c, "otto", f"wrong {i}", **{"x-forwarded-for": f"198.51.100.{100 + i}"})
    assert limiter.retry_after_s(limiter.key("otto", "203.0.113.50")) > 0
    assert limiter.retry_after_s(limiter.key("otto", "198.51.100.100")) == 0


# -- limiter ----------------------------------------------------------------------------------
def test_limit_per_address_whatever_the_usernames() -> None:
    t = [datetime(2026, 12, 1, tzinfo=UTC)]
    limiter = LoginLimiter(lambda: t[0], max_failures=5, window_s=900, max_ip_failures=20)
    for i in range(20):
        assert limiter.retry_after_s(limiter.key(f"user{i}", "10.0.0.1")) == 0
        limiter.failure(limiter.key(f"user{i}", "10.0.0.1"))
    assert limiter.retry_after_s(limiter.key("someone-new", "10.0.0.1")) == 901
    assert limiter.retry_after_s(limiter.key("someone-new", "10.0.0.2")) == 0
    t[0] += timedelta(seconds=900)
    assert limiter.retry_after_s(limiter.key("someone-new", "10.0.0.1")) == 0


def test_no_global_cap_but_per_account_backoff() -> None:
    """Issue 24 F2: many failures from many addresses refuse no fresh address; an address
    that failed at an account under attack gets no more guesses at it."""
    t = [datetime(2026, 11, 1, tzinfo=UTC)]
    limiter = LoginLimiter(lambda: t[0], max_global_failures=30, max_account_failures=10)
    for i in range(30):
        limiter.failure(limiter.key(f"random{i}", f"10.0.{i}.1"))
    assert limiter.retry_after_s(limiter.key("bob", "192.0.2.1")) == 0
    for i in range(10):
        limiter.failure(limiter.key("alice", f"10.1.{i}.1"))
    assert limiter.retry_after_s(limiter.key("alice", "10.1.0.1")) == 901  # failed once: done
    assert limiter.retry_after_s(limiter.key("alice", "192.0.2.9")) == 0  # fresh: allowed


def test_a_reservation_counts_before_the_check_and_a_success_releases_it() -> None:
    """Issue 24 F1: the attempt is counted when reserved; a right password gives it back."""
    t = [datetime(2026, 11, 1, tzinfo=UTC)]
    limiter = LoginLimiter(lambda: t[0], max_failures=5, max_ip_failures=20)
    key = limiter.key("rita", "10.0.0.1")
    held = [limiter.reserve(key) for _ in range(7)]
    assert [isinstance(r, int) for r in held] == [False] * 5 + [True] * 2
    for r in held[:5]:
        limiter.success(r)  # type: ignore[arg-type]
    assert limiter.retry_after_s(key) == 0
    other = [limiter.reserve(limiter.key(f"u{i}", "10.0.0.1")) for i in range(25)]
    assert sum(not isinstance(r, int) for r in other) == 20  # the 5 released were given back


def test_limiter_memory_is_bounded() -> None:
    t = [datetime(2026, 12, 1, tzinfo=UTC)]
    limiter = LoginLimiter(
        lambda: t[0], max_keys=100, max_ip_failures=10**6, max_global_failures=10**6
    )
    for i in range(5000):
        limiter.failure(limiter.key(f"random-{i}", f"10.{i // 250}.{i % 250}.1"))
    assert limiter.tracked() == (100, 100)
    # the newest keys are the ones kept
    last = limiter.key("random-4999", "10.19.249.1")
    assert limiter._per_user.wait_s(last, t[0], 900) == 0 and last in limiter._per_user._times


# -- argon2 off the event loop -----------------------------------------------------------------
async def test_password_check_runs_off_the_event_loop(
    scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a password check is under way, ``GET /login`` is answered: the check runs in a
    worker thread, not on the event loop."""
    started, release = threading.Event(), threading.Event()
    seen: list[str] = []
    real = users._check_hash

    def slow_check(row: object, password: str) -> bool:
        seen.append(threading.current_thread().name)
        started.set()
        assert release.wait(10), "the test never released the check"
        return real(row, password)  # type: ignore[arg-type]

    monkeypatch.setattr(users, "_check_hash", slow_check)
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    async with client(app) as c:
        page = await c.get("/login")
        login = asyncio.create_task(
            c.post(
                "/login",
                data={"csrf_token": token(page.text), "username": "rita", "password": PASSWORD},
            )
        )
        assert await asyncio.to_thread(started.wait, 10)
        other = await c.get("/login")  # served while the check is blocked in its thread
        assert other.status_code == 200 and not login.done()
        release.set()
        assert (await login).status_code == 303
    assert seen and seen[0] != threading.main_thread().name


# -- links stay on the site --------------------------------------------------------------------
@pytest.mark.parametrize("path", ["//evil.example/x", "/\\evil.example/x", "///evil.example/x"])
async def test_language_link_of_the_error_page_stays_on_site(
    plain: httpx.AsyncClient, path: str
) -> None:
    r = await plain.get(path)
    assert r.status_code == 404
    link = re.search(r'<a class="lang" href="([^"]+)"', r.text)
    assert link is not None
    href = link.group(1)
    assert href.startswith("/") and not href.startswith(("//", "/\\"))
    assert httpx.URL("http://testserver").join(href).host == "testserver"


# -- publish now without --publish-now ---------------------------------------------------------
async def test_publish_now_without_publisher_says_next_pass(scenario: Scenario) -> None:
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)  # no publisher
    async with client(app) as c:
        assert (await guess(c, "rita", PASSWORD)).status_code == 303
        page = await c.get(f"/drafts/{scenario.draft_id}")
        version = scenario.storage.declaration(scenario.draft_id)["version"]
        r = await c.post(
            f"/drafts/{scenario.draft_id}/publish",
            data={"csrf_token": token(page.text), "version": str(version)},
            follow_redirects=True,
        )
        assert "Approuvé : il partira au prochain passage du bot." in untypeset(r.text)
        assert "Enregistré." not in r.text
        page = await c.get(f"/drafts/{scenario.draft_id}?lang=en")  # the English switch
        en = await c.post(
            f"/drafts/{scenario.draft_id}/publish",
            data={
                "csrf_token": token(page.text),
                "version": str(scenario.storage.declaration(scenario.draft_id)["version"]),
            },
            follow_redirects=True,
        )
        assert "Approved: it goes out at the bot&#39;s next pass." in en.text
    assert scenario.storage.declaration(scenario.draft_id)["status"] == "approved"


async def test_hsts_is_sent_when_https_only(scenario: Scenario) -> None:
    """Issue 24 F3: Strict-Transport-Security from the app with web.https_only, not without."""
    secure = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock, https_only=True)
    async with client(secure) as c:
        page = await c.get("/login")
    assert page.headers["strict-transport-security"] == "max-age=31536000"
    plain_app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    async with client(plain_app) as c:
        page = await c.get("/login")
    assert "strict-transport-security" not in page.headers
