"""One review page for many clubs (issue 27): a referee or admin of club A never sees club
B, by URL, by id, in lists or through a session; every route of the club app is tried (the
route list is read from the app, as tests/unit/test_web_security.py does), each refusal is a
404 (never a 403), and each has its positive control."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from starlette.routing import Mount, Route

from forumbot.web.host import HostSite
from tests.unit.web_clubs import (
    A_MARK,
    B_MARK,
    B_PASSWORD,
    HOST_PASSWORD,
    Clubs,
    build_clubs,
    client,
    login,
    token,
)
from tests.unit.web_scenario import PASSWORD

pytestmark = pytest.mark.anyio
ID_PARAM = re.compile(r"\{(decl_id|duel_id|violation_id|task_id)(:[a-z]+)?\}")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def clubs(tmp_path: Path) -> Clubs:
    return build_clubs(tmp_path)


@pytest.fixture
def site(clubs: Clubs) -> HostSite:
    return clubs.site()


@pytest.fixture
async def a_admin(site: HostSite) -> AsyncIterator[httpx.AsyncClient]:
    """Club A's admin, logged in under /c/a."""
    async with client(site) as c:
        assert (await login(c, "/c/a", "alice")).status_code == 303
        yield c


@pytest.fixture
async def b_admin(site: HostSite) -> AsyncIterator[httpx.AsyncClient]:
    """Club B's admin (another person, another password), logged in under /c/b."""
    async with client(site) as c:
        assert (await login(c, "/c/b", "alice", B_PASSWORD)).status_code == 303
        yield c


def routes(site: HostSite, ids: dict[str, int], with_id: bool = False) -> list[tuple[str, str]]:
    """Every (method, path) of a club's app, path parameters filled from ``ids`` (the
    ruleset of /balance/{ruleset}: ``classic``; the static mount: its style sheet); with
    ``with_id``, only the routes naming a row by id."""
    club = site.folder.served("a")
    assert club is not None and club.app is not None
    out = []
    for route in club.app.routes:  # type: ignore[attr-defined]
        if isinstance(route, Mount):
            if not with_id:
                out.append(("GET", route.path + "/style.css"))
            continue
        assert isinstance(route, Route)
        if with_id and not ID_PARAM.search(route.path):
            continue
        path = ID_PARAM.sub(lambda m: str(ids[m.group(1)]), route.path)
        path = path.replace("{ruleset}", "classic")
        assert "{" not in path, route.path
        out.extend((m, path) for m in sorted(route.methods or ()) if m in ("GET", "POST"))
    return out


def form(csrf: str) -> dict[str, str]:
    """A form any route would act on if it accepted it."""
    return {
        "csrf_token": csrf,
        "version": "1",
        "text": "changé",
        "key": "Aurora Vexley.points",
        "value": "1",
        "status": "held",
        "username": "otto",
        "password": PASSWORD,
        "op": "add",
        "decision": "dismissed",
        "reason": "test",
        "note": "test",
        "outcome": "done",
    }


def snapshot(clubs: Clubs) -> tuple[object, ...]:
    out: list[object] = []
    for s in (clubs.a.storage, clubs.b.storage):
        db = s.db
        out += [
            list(db["declarations"].rows),
            list(db["violations"].rows),
            list(db["duel_referees"].rows),
            list(db["referee_tasks"].rows),
            db["audit_log"].count,
        ]
    return tuple(out)


async def send(c: httpx.AsyncClient, method: str, path: str, csrf: str) -> httpx.Response:
    if method == "GET":
        return await c.get(path)
    return await c.post(path, data=form(csrf))


async def csrf_of(c: httpx.AsyncClient, prefix: str) -> str:
    page = await c.get(f"{prefix}/drafts")
    assert page.status_code == 200
    return token(page.text)


async def test_ids_of_b_under_a_are_404_on_every_route(
    clubs: Clubs, site: HostSite, a_admin: httpx.AsyncClient, b_admin: httpx.AsyncClient
) -> None:
    with_ids = routes(site, clubs.b_only, with_id=True)
    assert len(with_ids) >= 13  # a draft (1 GET, 8 POST), a duel (GET, POST), violation, task
    before = snapshot(clubs)
    csrf = await csrf_of(a_admin, "/c/a")
    for method, path in with_ids:
        r = await send(a_admin, method, "/c/a" + path, csrf)
        assert r.status_code == 404, (method, path, r.status_code)
    assert snapshot(clubs) == before
    # positive control: the same ids under B's prefix, B's admin: found (changes allowed)
    csrf = await csrf_of(b_admin, "/c/b")
    for method, path in with_ids:
        r = await send(b_admin, method, "/c/b" + path, csrf)
        assert r.status_code != 404, (method, path)
        if method == "GET":
            assert r.status_code == 200, (method, path)


async def test_a_session_is_404_on_every_route_of_b_and_of_the_host(
    clubs: Clubs, site: HostSite, a_admin: httpx.AsyncClient, b_admin: httpx.AsyncClient
) -> None:
    set_cookie = None
    async with client(site) as fresh:
        page = await fresh.get("/c/a/login")
        r = await fresh.post(
            "/c/a/login",
            data={"csrf_token": token(page.text), "username": "alice", "password": PASSWORD},
        )
        set_cookie = r.headers["set-cookie"]
        cookie = fresh.cookies["forumbot_session"]
    assert "path=/c/a;" in set_cookie.lower()  # the browser sends it under /c/a only
    csrf = await csrf_of(a_admin, "/c/a")
    unknown = await a_admin.get("/c/nowhere/drafts")
    assert unknown.status_code == 404
    before = snapshot(clubs)
    everything = routes(site, {"decl_id": 3, "duel_id": 1, "violation_id": 1, "task_id": 1})
    assert len(everything) >= 28  # 27 routes and the static files
    async with client(site) as thief:  # A's cookie sent by hand where the browser would not
        for prefix in ("/c/b", "/host"):
            for method, path in everything:
                thief.cookies.set("forumbot_session", cookie)
                r = await send(thief, method, prefix + path, csrf)
                assert r.status_code == 404, (prefix, method, path, r.status_code)
                assert r.text == unknown.text  # the same page as a club that does not exist
    assert snapshot(clubs) == before
    # positive controls: B's own session sees B; no cookie at all gets B's login page
    for method, path in everything:
        if method == "GET" and "{" not in path:
            assert (await b_admin.get("/c/b" + path)).status_code in (200, 303), path
    async with client(site) as anonymous:
        assert (await anonymous.get("/c/b/login")).status_code == 200
        r = await anonymous.get("/c/b/drafts")
        assert r.status_code == 303 and r.headers["location"].startswith("/c/b/login?next=")


async def test_the_host_session_is_404_under_a_club(clubs: Clubs, site: HostSite) -> None:
    async with client(site) as c:
        assert (await login(c, "/host", "hector", HOST_PASSWORD)).status_code == 303
        host_cookie = c.cookies["forumbot_session"]
        assert (await c.get("/host/")).status_code == 200
    async with client(site) as c:
        c.cookies.set("forumbot_session", host_cookie)
        for path in ("/c/a/", "/c/a/drafts", "/c/a/login", f"/c/a/duels/{clubs.a.duel_id}"):
            assert (await c.get(path)).status_code == 404, path
    async with client(site) as c:  # the host admin has no account in the club
        r = await login(c, "/c/a", "hector", HOST_PASSWORD)
        assert r.status_code == 401


async def test_lists_of_a_hold_nothing_of_b(
    clubs: Clubs, a_admin: httpx.AsyncClient, b_admin: httpx.AsyncClient
) -> None:
    b = clubs.b_only
    duels = (await a_admin.get("/c/a/duels")).text
    assert A_MARK in duels and B_MARK not in duels
    drafts = (await a_admin.get("/c/a/drafts")).text
    assert f'href="/c/a/drafts/{clubs.a.draft_id}"' in drafts
    assert f"/drafts/{b['decl_id']}" not in drafts
    violations = (await a_admin.get("/c/a/violations")).text
    assert "/c/a/violations/1/decide" in violations
    assert f"/violations/{b['violation_id']}/" not in violations
    tasks = (await a_admin.get("/c/a/tasks")).text
    assert f"/c/a/tasks/{clubs.a.task_id}/close" in tasks and f"/tasks/{b['task_id']}/" not in tasks
    rows = list(csv.reader(io.StringIO((await a_admin.get("/c/a/violations.csv")).text)))
    assert len(rows) == 2  # header + A's one violation
    # positive control: B's lists hold B's rows, both duels, under B's prefix
    duels = (await b_admin.get("/c/b/duels")).text
    assert B_MARK in duels and A_MARK not in duels and f"/c/b/duels/{b['duel_id']}" in duels
    assert f"/c/b/drafts/{b['decl_id']}" in (await b_admin.get("/c/b/drafts")).text
    assert (
        f"/c/b/violations/{b['violation_id']}/decide" in (await b_admin.get("/c/b/violations")).text
    )
    rows = list(csv.reader(io.StringIO((await b_admin.get("/c/b/violations.csv")).text)))
    assert len(rows) == 3


async def test_an_account_of_a_does_not_log_in_under_b(site: HostSite) -> None:
    async with client(site) as c:
        r = await login(c, "/c/b", "alice", PASSWORD)  # A's alice; B's has another password
        assert r.status_code == 401
        assert (await c.get("/c/b/drafts")).status_code == 303
        r = await login(c, "/c/a", "alice", PASSWORD)  # positive control
        assert r.status_code == 303 and r.headers["location"] == "/c/a/drafts"
        assert (await c.get("/c/a/drafts")).status_code == 200


async def test_links_and_redirects_stay_under_the_club(a_admin: httpx.AsyncClient) -> None:
    page = (await a_admin.get("/c/a/drafts")).text
    paths = re.findall(r'(?:href|action|src)="(/[^"]*)"', page)
    assert paths and all(p.startswith("/c/a/") for p in paths), paths
    r = await a_admin.get("/c/a/")
    assert r.status_code == 303 and r.headers["location"] == "/c/a/drafts"
    r = await a_admin.get("/c/a")
    assert r.status_code == 303 and r.headers["location"] == "/c/a/"
    r = await a_admin.post("/c/a/logout", data={"csrf_token": await csrf_of(a_admin, "/c/a")})
    assert r.status_code == 303 and r.headers["location"] == "/c/a/login"
    assert (await a_admin.get("/c/a/drafts")).headers["location"].startswith("/c/a/login")
