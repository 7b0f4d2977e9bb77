"""One review page for many clubs (issue 27).

- A referee or admin of club A never sees club B, by URL, by id, in lists or through a
  session; every route of the club app is tried (the route list is read from the app, as
  tests/unit/test_web_security.py does), each refusal is a 404 (never a 403), and each has its
  positive control.
- The host's page: its own accounts, the clubs of the folder (served or refused, with why,
  never their duels), each club's first admin, the folder followed without a restart, one
  login limit for the whole site; the ``forumbot host`` commands and ``web --boards``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from starlette.routing import Mount, Route

from forumbot.cli import main
from forumbot.storage import open_storage
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
    write_club,
)
from tests.unit.web_scenario import PASSWORD

pytestmark = pytest.mark.anyio
NEW_PASSWORD = "first admin battery"
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


async def test_referees_inside_a_club_see_their_duels_only(clubs: Clubs, site: HostSite) -> None:
    """Today's authorization across duels holds under a club's prefix."""
    draft = f"/c/a/drafts/{clubs.a.draft_id}"
    async with client(site) as otto:  # a referee of no duel of A
        assert (await login(otto, "/c/a", "otto")).status_code == 303
        assert (await otto.get(draft)).status_code == 404
        assert (await otto.get(f"/c/a/duels/{clubs.a.duel_id}")).status_code == 404
    async with client(site) as rita:  # positive control: A's referee of the duel
        assert (await login(rita, "/c/a", "rita")).status_code == 303
        assert (await rita.get(draft)).status_code == 200
        assert (await rita.get(f"/c/b/drafts/{clubs.b.draft_id}")).status_code == 303  # no B login


# -- the host's page and commands -------------------------------------------------------
@pytest.fixture
async def hector(site: HostSite) -> AsyncIterator[httpx.AsyncClient]:
    """The host admin, logged in under /host."""
    async with client(site) as c:
        r = await login(c, "/host", "hector", HOST_PASSWORD)
        assert r.status_code == 303 and r.headers["location"] == "/host/"
        yield c


async def add_admin(c: httpx.AsyncClient, club: str, name: str) -> httpx.Response:
    page = await c.get("/host/")
    return await c.post(
        f"/host/clubs/{club}/admin",
        data={"csrf_token": token(page.text), "username": name, "password": NEW_PASSWORD},
    )


async def test_the_host_page_needs_a_host_login(site: HostSite) -> None:
    async with client(site) as c:
        r = await c.get("/")
        assert r.status_code == 303 and r.headers["location"] == "/host/"
        r = await c.get("/host/")
        assert r.status_code == 303 and r.headers["location"] == "/host/login?next=%2Fhost%2F"
        assert (await login(c, "/host", "alice", PASSWORD)).status_code == 401  # a club's
        r = await c.post("/host/clubs/a/admin", data={"username": "x", "password": "y" * 8})
        assert r.status_code == 303 and r.headers["location"] == "/host/login"


async def test_the_host_sees_the_clubs_not_their_duels(
    clubs: Clubs, hector: httpx.AsyncClient
) -> None:
    (clubs.folder / "broken.toml").write_text('[board]\nurl = "http://x"\nplatform = \n')
    write_club(clubs.folder, "twin", (clubs.folder / "a.toml").read_text())  # a's database
    write_club(clubs.folder, "bad name")
    page = (await hector.get("/host/")).text
    assert 'href="/c/a/"' in page and 'href="/c/b/"' in page
    assert page.count("<td>3</td>") == 2  # a and b: alice, rita, otto
    assert "<td>alice</td>" in page
    assert "broken.toml: " in page and "line 3" in page
    assert "twin.toml: refused: storage.database" in page and "of club a" in page
    assert "bad name.toml: refused: a club" in page
    assert A_MARK not in page and B_MARK not in page and "/drafts" not in page
    assert "/duels" not in page
    for refused in ("twin", "bad%20name", "broken"):
        async with client(clubs.site()) as c:
            assert (await c.get(f"/c/{refused}/login")).status_code == 404, refused


async def test_the_host_creates_a_new_clubs_first_admin_once(
    clubs: Clubs, site: HostSite, hector: httpx.AsyncClient
) -> None:
    write_club(clubs.folder, "c")  # a new club: its database is created when it is served
    page = (await hector.get("/host/")).text
    assert 'action="/host/clubs/c/admin"' in page and 'action="/host/clubs/a/admin"' not in page
    r = await hector.post("/host/clubs/c/admin", data={"username": "cleo", "password": "p" * 9})
    assert r.status_code == 403  # no CSRF token
    r = await add_admin(hector, "c", "cleo")
    assert r.status_code == 303 and r.headers["location"] == "/host/"
    page = (await hector.get("/host/")).text
    assert "cleo est le premier admin de c." in page and "<td>cleo</td>" in page
    async with client(site) as c:  # the new admin logs in on the club's page
        r = await login(c, "/c/c", "cleo", NEW_PASSWORD)
        assert r.status_code == 303 and r.headers["location"] == "/c/c/drafts"
        assert (await c.get("/c/c/drafts")).status_code == 200
    r = await add_admin(hector, "c", "mallory")  # a second "first" admin: refused
    assert r.status_code == 303
    page = (await hector.get("/host/")).text
    assert "Compte refusé\u00a0: the club has an admin already (cleo)" in page
    r = await add_admin(hector, "a", "mallory")
    assert "Compte refusé" in (await hector.get("/host/")).text
    assert (await add_admin(hector, "nowhere", "mallory")).status_code == 404
    club_c = open_storage(str(clubs.folder / "c.db"))
    assert [u["username"] for u in club_c.web_rows.users(enabled_only=False)] == ["cleo"]
    assert [e["actor"] for e in club_c.audit_entries("user:")] == ["forumbot", "host:hector"]
    assert [e["action"] for e in clubs.host.audit_entries("club:")] == ["club.first_admin"]
    assert [u["username"] for u in clubs.a.storage.web_rows.users(False)] == [
        "alice",
        "otto",
        "rita",
    ]


async def test_the_folder_is_followed_without_a_restart(clubs: Clubs, site: HostSite) -> None:
    async with client(site) as c:
        assert (await c.get("/c/b/login")).status_code == 200
        (clubs.folder / "b.toml").unlink()
        assert (await c.get("/c/b/login")).status_code == 404
        write_club(clubs.folder, "d")
        assert (await c.get("/c/d/login")).status_code == 200
        (clubs.folder / "a.toml").write_text("[board]\n", encoding="utf-8")
        assert (await c.get("/c/a/login")).status_code == 404
        write_club(clubs.folder, "a")
        assert (await login(c, "/c/a", "alice")).status_code == 303  # a's database, as it was


async def test_one_login_limit_for_the_whole_site(site: HostSite) -> None:
    async with client(site) as c:
        for _ in range(5):
            assert (await login(c, "/c/a", "alice", "wrong password")).status_code == 401
        assert (await login(c, "/c/a", "alice")).status_code == 429  # per account and address
        assert (await login(c, "/c/b", "alice", B_PASSWORD)).status_code == 303  # B's alice
    async with client(site) as c:
        for i in range(19):  # 5 above + 15 here: the address's 20 attempts, whatever club
            assert (await login(c, f"/c/{'ab'[i % 2]}", f"x{i}", "wrong")).status_code in (
                401,
                429,
            )
        r = await login(c, "/host", "hector", HOST_PASSWORD)
        assert r.status_code == 429 and int(r.headers["retry-after"]) > 0


def test_host_commands(clubs: Clubs) -> None:
    runner = CliRunner()
    folder = str(clubs.folder)
    write_club(clubs.folder, "c")
    r = runner.invoke(main, ["host", "clubs", "--boards", folder])
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].split("\t") == ["club", "status", "accounts", "admins"]
    assert lines[1:] == ["a\tserved\t3\talice", "b\tserved\t3\talice", "c\tserved\t0\t-"]
    args = ["host", "add-admin", "--boards", folder, "c", "cleo", "--password-stdin"]
    r = runner.invoke(main, args, input=NEW_PASSWORD + "\n")
    assert r.exit_code == 0 and "user cleo added (admin)" in r.output, r.output
    assert r.output.rstrip().endswith(f"-c {clubs.folder / 'c.toml'}"), r.output  # C8
    r = runner.invoke(main, args[:-2] + ["mallory"])  # refused before the prompt (C8)
    assert r.exit_code != 0 and "has an admin already (cleo)" in r.output
    assert "Password" not in r.output, r.output
    r = runner.invoke(
        main, ["host", "add-admin", "--boards", folder, "zz", "x", "--password-stdin"]
    )
    assert r.exit_code != 0 and "club zz: no such club file" in r.output
    args = ["host", "add-host-admin", "--boards", folder, "hera", "--password-stdin"]
    r = runner.invoke(main, args, input=HOST_PASSWORD + "\n")
    assert r.exit_code == 0 and "host admin hera added" in r.output, r.output
    assert {u["username"] for u in clubs.host.web_rows.users(enabled_only=False)} == {
        "hector",
        "hera",
    }
    r = runner.invoke(main, ["host", "clubs", "--boards", str(clubs.folder / "nope")])
    assert r.exit_code != 0 and "not a folder" in r.output


def test_web_boards_serves_the_site(clubs: Clubs, monkeypatch: pytest.MonkeyPatch) -> None:
    import forumbot.web.serve as serve_module

    served: list[object] = []
    monkeypatch.setattr(serve_module, "run_page", lambda app, *a: served.append(app))
    monkeypatch.setenv("FORUMBOT_WEB_SECRET", "w" * 40)
    runner = CliRunner()
    r = runner.invoke(main, ["web", "--boards", str(clubs.folder)])
    assert r.exit_code == 0, r.output
    assert isinstance(served[0], HostSite)
    assert sorted(served[0].folder.clubs) == []  # opened at the first request, not before
    r = runner.invoke(main, ["web", "--boards", str(clubs.folder), "--publish-now"])
    assert r.exit_code != 0 and "--publish-now is for one club" in r.output


async def change_password(c: httpx.AsyncClient, prefix: str, password: str) -> None:
    page = await c.get(f"{prefix}/me/password")
    assert page.status_code == 200
    data = {"password": password, "new_password": NEW_PASSWORD, "new_password_again": NEW_PASSWORD}
    r = await c.post(f"{prefix}/me/password", data={"csrf_token": token(page.text), **data})
    assert r.status_code == 303 and r.headers["location"] == f"{prefix}/login"


async def test_the_host_and_a_club_admin_change_their_passwords(
    clubs: Clubs, site: HostSite, hector: httpx.AsyncClient
) -> None:
    await change_password(hector, "/host", HOST_PASSWORD)
    async with client(site) as alice:
        assert (await login(alice, "/c/a", "alice")).status_code == 303
        await change_password(alice, "/c/a", PASSWORD)
    assert clubs.host.audit_entries("user:hector")[-1]["action"] == "user.password"
    assert clubs.a.storage.audit_entries("user:alice")[-1]["actor"] == "alice"
    assert clubs.b.storage.audit_entries("user:alice")[-1]["actor"] == "forumbot"  # B's alice


def test_a_postgresql_host_database_needs_the_secret_variable(
    clubs: Clubs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FORUMBOT_WEB_SECRET", raising=False)
    url = "postgresql://nobody@127.0.0.1:9/none?schema=host"
    r = CliRunner().invoke(main, ["web", "--boards", str(clubs.folder), "--host-db", url])
    assert r.exit_code != 0 and "set $FORUMBOT_WEB_SECRET" in r.output, r.output
