"""Referee tasks on the review page (issue 5): the duel's referees and the admins see the open
tasks of 2v2 duels (an owl asking for zone details, a mechanism attempt), the owl's text
escaped; "done" / "solved" / "not solved" need a login and the CSRF token, are audit-logged
with who and when, and a mechanism judged solved is stated with its reward in the next
declaration."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest

from forumbot.club.inbox import poll_inbox
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from forumbot.web import create_app
from forumbot.web.users import add_user, assign_referee
from tests.unit.test_duo_flow import A1, A2, BODY, NOW, InboxForum, setup

pytestmark = pytest.mark.anyio
PASSWORD = "correct horse battery"
EVIL = "<script>alert('x')</script>"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class World:
    def __init__(self) -> None:
        self.storage: Storage = open_storage(":memory:")
        self.forum = InboxForum()
        self.ref: Referee
        self.ref, self.duel_id = setup(self.storage, self.forum)
        publish_due(self.storage, self.forum, lambda: NOW)
        self.forum.inbox = [(11, A1, "Le cadran ?", f"Que disent les runes ? {EVIL}")]
        poll_inbox(self.storage, self.forum, self.ref.board_id, lambda: NOW, bot_username="Hibou")
        footer = "Pari : [3,4,5,6]\nCible : le cadran runique\nDéplacement : zone 2"
        self.forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\n" + footer)
        self.ref.poll_duel(self.duel_id)
        publish_due(self.storage, self.forum, lambda: NOW)
        for name, role in (("alice", "admin"), ("rita", "referee"), ("otto", "referee")):
            add_user(self.storage, name, PASSWORD, role, NOW)
        assign_referee(self.storage, self.duel_id, "rita", "alice", NOW)

    def task(self, kind: str) -> dict[str, object]:
        return next(r for r in self.storage.db["referee_tasks"].rows if r["kind"] == kind)


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture
async def client(world: World) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(world.storage, secret_key="t" * 40, now=lambda: NOW)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


def token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found
    return found.group(1)


async def login(c: httpx.AsyncClient, name: str) -> None:
    page = await c.get("/login")
    r = await c.post(
        "/login", data={"csrf_token": token(page.text), "username": name, "password": PASSWORD}
    )
    assert r.status_code == 303


async def close(
    c: httpx.AsyncClient, task_id: object, status: str, note: str = ""
) -> httpx.Response:
    page = await c.get("/tasks")
    return await c.post(
        f"/tasks/{task_id}/close",
        data={"csrf_token": token(page.text), "status": status, "note": note},
    )


async def test_tasks_need_a_login_and_only_the_duels_referees_see_them(
    world: World, client: httpx.AsyncClient
) -> None:
    r = await client.get("/tasks")
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    await login(client, "otto")  # referees nothing
    page = await client.get("/tasks")
    assert "Aucune tâche en attente." in page.text and "Que disent" not in page.text
    r = await close(client, world.task("owl_question")["id"], "done")
    assert r.status_code == 404
    assert world.task("owl_question")["status"] == "open"


async def test_the_referee_answers_an_owl_escaped_done_once_and_audited(
    world: World, client: httpx.AsyncClient
) -> None:
    await login(client, "rita")
    page = await client.get("/tasks")
    assert '<a href="/tasks">Tâches</a>' in page.text  # in the nav
    assert "Hibou : demande de détails" in plain(page.text) and "Mécanisme à juger" in page.text
    assert EVIL not in page.text and "&lt;script&gt;alert(" in page.text
    assert (
        "Le cadran ?" in plain(page.text) and "runique" in page.text
    )  # the zone's details to give
    owl = world.task("owl_question")
    r = await close(client, owl["id"], "solved")  # an owl is not solved
    assert r.status_code == 303
    assert "Action impossible" in (await client.get("/tasks")).text
    r = await close(client, owl["id"], "done", "Réponse envoyée par hibou")
    assert r.status_code == 303
    row = world.task("owl_question")
    assert (row["status"], row["done_by"], row["note"]) == (
        "done",
        "rita",
        "Réponse envoyée par hibou",
    )
    assert row["done_at"] == NOW.isoformat()
    audit = world.storage.audit_entries(f"referee_task:{owl['id']}")
    assert [(a["actor"], a["action"], a["at"]) for a in audit] == [
        ("rita", "task.done", NOW.isoformat())
    ]
    await close(client, owl["id"], "done")
    assert "Cette tâche est déjà traitée." in (await client.get("/tasks")).text
    assert len(world.storage.audit_entries(f"referee_task:{owl['id']}")) == 1
    english = await client.get("/tasks?lang=en")
    assert "Referee tasks" in english.text and "Recently closed tasks" in english.text


async def test_a_mechanism_judged_solved_feeds_the_next_declaration(
    world: World, client: httpx.AsyncClient
) -> None:
    await login(client, "alice")
    mech = world.task("mechanism")
    page = await client.get("/tasks")
    assert f'action="/tasks/{mech["id"]}/close"' in page.text
    assert ">Résolu<" in page.text and ">Non résolu<" in page.text
    r = await close(client, mech["id"], "solved")
    assert r.status_code == 303 and world.task("mechanism")["status"] == "solved"
    world.forum.add_post(7, A2, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\n"
                         "Pari : [3,4,5,6]\nCible : le décor")  # fmt: skip
    world.ref.poll_duel(world.duel_id)
    draft = world.storage.declarations(("draft",), world.duel_id)[-1]
    text = plain(draft["text"])
    assert f"{A1} a résolu le cadran runique !" in text
    assert f"{A1} reçoit en récompense 3 PA" in text


async def test_a_mechanism_not_solved_gives_nothing(
    world: World, client: httpx.AsyncClient
) -> None:
    await login(client, "rita")
    mech = world.task("mechanism")
    await close(client, mech["id"], "failed")
    assert world.task("mechanism")["status"] == "failed"
    world.forum.add_post(7, A2, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\n"
                         "Pari : [3,4,5,6]\nCible : le décor")  # fmt: skip
    world.ref.poll_duel(world.duel_id)
    draft = world.storage.declarations(("draft",), world.duel_id)[-1]
    assert "a résolu" not in draft["text"]
