"""Two clubs and a host for the tests of ``forumbot web --boards`` (issue 27).

:func:`build_clubs` writes ``a.toml`` and ``b.toml`` in a folder, each club's database built
by :func:`tests.unit.web_scenario.build` (the same refereed duel, users ``alice`` admin,
``rita`` and ``otto`` referees). Club B also holds rows club A does not have (a second duel,
its draft, violation and task: :class:`Clubs` ``b_only``), so an id of B typed under A's
prefix names nothing of A. B's ``alice`` has another password (:data:`B_PASSWORD`): she is
another person. Each club's duel has a title naming its club (:data:`A_MARK`, :data:`B_MARK`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import httpx

from forumbot.storage import Storage, open_storage
from forumbot.web.host import HostSite
from forumbot.web.site import create_site
from forumbot.web.users import add_user, set_password
from tests.fakes.clock import Clock
from tests.unit.web_scenario import PASSWORD, Scenario, build

SECRET = "h" * 48
B_PASSWORD = "another horse battery"
HOST_PASSWORD = "host horse battery"
A_MARK = "Duel du club A"
B_MARK = "Duel du club B"
TABLES = {
    "decl_id": "declarations",
    "duel_id": "duels",
    "violation_id": "violations",
    "task_id": "referee_tasks",
}
CLUB = """\
[board]
url = "http://{name}.board.invalid"
platform = "phpbb3"
[bot]
username = "Arbitre"
password_env = "FORUMBOT_TEST_UNSET_PASSWORD"
[storage]
database = "{name}.db"
[[watch]]
forum_id = 3
"""


def write_club(folder: Path, name: str, text: str | None = None) -> Path:
    """Write the club file ``<name>.toml`` (mode 0600) with its database ``<name>.db``."""
    path = folder / f"{name}.toml"
    path.write_text(CLUB.format(name=name) if text is None else text, encoding="utf-8")
    path.chmod(0o600)
    return path


def _copy(storage: Storage, table: str, row_id: int, **changes: object) -> int:
    row = {**storage.db[table].get(row_id), **changes}
    row.pop("id")
    return int(storage.db[table].insert(row).last_pk or 0)


@dataclass
class Clubs:
    """What :func:`build_clubs` made."""

    folder: Path
    a: Scenario
    b: Scenario
    host: Storage
    clock: Clock
    b_only: dict[str, int]  # decl_id, duel_id, violation_id, task_id: rows only B has

    def site(self) -> HostSite:
        """The site of the folder (:func:`forumbot.web.site.create_site`)."""
        return create_site(self.folder, self.host, secret_key=SECRET, now=self.clock)


def client(site: HostSite) -> httpx.AsyncClient:
    """A client of ``site`` with its own cookie jar."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=site), base_url="http://testserver")


def build_clubs(folder: Path) -> Clubs:
    """Clubs ``a`` and ``b`` (module docstring) and a host database with the host admin
    ``hector`` (:data:`HOST_PASSWORD`)."""
    a = build(str(folder / "a.db"))
    b = build(str(folder / "b.db"))
    write_club(folder, "a")
    write_club(folder, "b")
    a.storage.db["duels"].update(a.duel_id, {"title": A_MARK})
    b.storage.db["duels"].update(b.duel_id, {"title": B_MARK})
    duel = _copy(b.storage, "duels", b.duel_id, topic_id=8, title=B_MARK + " (2)")
    decl = _copy(b.storage, "declarations", b.draft_id, duel_id=duel, idempotency_key="b-2")
    violation = _copy(b.storage, "violations", 1, duel_id=duel)
    task = _copy(b.storage, "referee_tasks", b.task_id, duel_id=duel, source_key="b-2")
    b_only = {"decl_id": decl, "duel_id": duel, "violation_id": violation, "task_id": task}
    for name, value in b_only.items():
        assert value not in {r["id"] for r in a.storage.db[TABLES[name]].rows}, name
    set_password(b.storage, "alice", B_PASSWORD, b.clock())
    host = open_storage(str(folder / "host.db"))
    host.web_rows.migrate()
    add_user(host, "hector", HOST_PASSWORD, "admin", a.clock())
    return Clubs(folder, a, b, host, a.clock, b_only)


def token(html: str) -> str:
    """The page's CSRF token."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "page has no CSRF field"
    return found.group(1)


async def login(
    c: httpx.AsyncClient, prefix: str, name: str, password: str = PASSWORD
) -> httpx.Response:
    """Log in on the login page under ``prefix`` (``/c/a``, ``/host``)."""
    page = await c.get(f"{prefix}/login")
    assert page.status_code == 200, page.status_code
    return await c.post(
        f"{prefix}/login",
        data={"csrf_token": token(page.text), "username": name, "password": password},
    )
