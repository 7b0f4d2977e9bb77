"""The review page's computed-number fields on fatigue drafts (issue 5 for 2v2, issue 6): the
fields are the fatigue engines' override keys (die, bet won, PV after the step, a creature's PV),
a change re-runs the step and the text follows, the fatigue-unknown classic keys are not offered."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator

import httpx
import pytest

from forumbot.duels.overrides import OverrideError
from forumbot.duels.publication import publish_due
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from forumbot.web import create_app
from forumbot.web.users import add_user
from forumbot.web.views import draft_number_fields
from tests.unit.test_duo_flow import A1, A2, BODY, NOW, InboxForum, setup

pytestmark = pytest.mark.anyio
PASSWORD = "correct horse battery staple"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def duo() -> tuple[Storage, int]:
    """A 2v2 duel (environment "bibliotheque") with A1's first post drafted."""
    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]")
    ref.poll_duel(duel_id)
    add_user(storage, "alice", PASSWORD, "admin", NOW)
    return storage, storage.declarations(("draft",), duel_id)[-1]["id"]


@pytest.fixture
async def client(duo: tuple[Storage, int]) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(duo[0], secret_key="s" * 48, now=lambda: NOW)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


def token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "page has no CSRF field"
    return found.group(1)


async def set_number(c: httpx.AsyncClient, decl_id: int, data: dict[str, str]) -> httpx.Response:
    page = await c.get(f"/drafts/{decl_id}")
    assert page.status_code == 200
    return await c.post(f"/drafts/{decl_id}/numbers", data={"csrf_token": token(page.text), **data})


def test_fields_of_a_2v2_draft_are_the_fatigue_override_keys(duo: tuple[Storage, int]) -> None:
    storage, decl_id = duo
    decl = storage.declaration(decl_id)
    fields = draft_number_fields(decl, json.loads(decl["context_json"]), {})
    keys = {f.key: (f.kind, f.value) for f in fields}
    assert keys[f"{A1}.die"] == ("int", 4)
    assert keys[f"{A1}.bet_won"] == ("bool", True)
    assert keys[f"{A2}.points"] == ("int", 500)
    assert keys["Le grimoire mordeur.points"] == ("int", 30)
    assert not [k for k in keys if k.endswith((".attack_die", ".defense_die", ".disqualified"))]
    bet = next(f for f in fields if f.key == f"{A1}.bet_won")
    assert [t["rule"] for t in bet.trail] == ["fatigue.bet"]


async def test_setting_2v2_numbers_on_the_page(
    client: httpx.AsyncClient, duo: tuple[Storage, int]
) -> None:
    storage, decl_id = duo
    page = await client.get("/login")
    await client.post(
        "/login",
        data={"csrf_token": token(page.text), "username": "alice", "password": PASSWORD},
    )
    html = (await client.get(f"/drafts/{decl_id}")).text
    for key in (f"{A1}.die", f"{A2}.points", "Le grimoire mordeur.points"):
        assert f'data-key="{key}"' in html
    r = await set_number(client, decl_id, {"version": "1", "key": f"{A2}.points", "value": "321"})
    assert r.status_code == 303
    r = await set_number(
        client, decl_id, {"version": "2", "key": "Le grimoire mordeur.points", "value": "12"}
    )
    assert r.status_code == 303
    row = storage.declaration(decl_id)
    text = plain(row["text"])
    # a creature's PV as a sum when they changed (issue 25, reader2 C6)
    assert f"{A2} : 321 PV" in text and re.search(r"Le grimoire mordeur : (\d+ − \d+ = )?12 PV",
                                                  text.replace("-", "−")), text  # fmt: skip
    assert json.loads(row["overrides_json"]) == {
        f"{A2}.points": 321,
        "Le grimoire mordeur.points": 12,
    }
    page = (await client.get(f"/drafts/{decl_id}")).text
    assert "calculé 30, fixé par l&#39;arbitre à 12" in page  # the trail shows the override
    # a value the engine refuses re-renders the draft with 400; an unknown key is refused
    r = await set_number(
        client, decl_id, {"version": "3", "key": "Le grimoire mordeur.points", "value": "99"}
    )
    assert r.status_code == 400 and storage.declaration(decl_id)["version"] == 3
    r = await set_number(client, decl_id, {"version": "3", "key": f"{A1}.attack_die", "value": "2"})
    assert r.status_code == 400


def test_every_field_offered_is_a_key_the_engine_takes_2v2_and_1v1_fatigue() -> None:
    from forumbot.duels.overrides import set_numbers
    from tests.unit.test_duo_flow import setup as duo_setup
    from tests.unit.test_fatigue_flow import A, C, make

    storage, forum = open_storage(":memory:"), InboxForum()
    ref, duel_id = duo_setup(storage, forum)
    publish_due(storage, forum, lambda: NOW)
    forum.add_post(7, A1, BODY + "\n[b]Flipendo[/b]\nAction : lancer un sort\nPari : [3,4,5,6]")
    ref.poll_duel(duel_id)
    duo_draft = storage.declarations(("draft",), duel_id)[-1]

    duel = make()  # a 1v1 fatigue duel: A's initiative published, C's dodge drafted
    duel.post(A, "cast", "Flipendo", win=False)
    assert len(duel.cycle()) == 1
    duel.post(C, "dodge", None, win=True)
    duel.ref.poll_forum(3)
    one_draft = duel.storage.declarations(("draft",), None)[-1]
    for store, decl in ((storage, duo_draft), (duel.storage, one_draft)):
        fields = draft_number_fields(decl, json.loads(decl["context_json"]), {})
        assert not [f for f in fields if f.key.endswith((".attack_die", ".disqualified"))]
        for f in fields:  # each offered key, set to its own value: a key the engine takes
            # (an unknown one says "unknown override key"), already so: refused (issue 22)
            with pytest.raises(OverrideError, match="already so, nothing changed"):
                set_numbers(store, decl["id"], {f.key: f.value}, "Maelis", NOW)
        after = store.declaration(decl["id"])
        assert after["text"] == decl["text"] and after["version"] == decl["version"]
        assert json.loads(after["overrides_json"]) == {}
    one_keys = {
        f.key for f in draft_number_fields(one_draft, json.loads(one_draft["context_json"]), {})
    }
    assert {f"{A}.die", f"{C}.die", f"{C}.dodged", f"{C}.bet_won", f"{A}.points"} <= one_keys
