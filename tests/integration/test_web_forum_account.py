"""Issue 24 F11: ``/me/notify`` takes as forum account only the name of an existing board
member, looked up on the board, stored as the board spells it.

Through the web app in process (``httpx.ASGITransport``, the review page's scenario of
``tests/unit/web_scenario.py``), with the production look-up
(:func:`forumbot.web.serve.board_members`: a real forum client) against the sandbox board on
127.0.0.1, phpBB (``memberlist.php?mode=viewprofile``) and Forumactif (``/memberlist``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from forumbot.config import load_config
from forumbot.notify.settings import (
    NotifyConfig,
    NotifyConfigError,
    person_settings,
    set_person_settings,
)
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.forumactif import ForumactifSandbox
from forumbot.web import create_app, serve
from forumbot.web.forum_account import MemberLookup
from tests.unit.test_web_app import form_post, login
from tests.unit.web_scenario import Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "s" * 48
CFG = NotifyConfig(timezone="Europe/Paris")
CONFIG = """
[board]
url = "{url}"
platform = "{platform}"
[bot]
username = "Hibou"
password_env = "FORUMBOT_TEST_PASSWORD"
[poll]
flood_interval_s = 0
[storage]
database = "bot.db"
[[watch]]
forum_id = 3
"""
MEMBERS = ("Rita Skeeter", "Otto Vance", "Alice Dunbar", "Alice Prewett")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(params=["phpbb3", "forumactif"])
def board(request: pytest.FixtureRequest) -> Iterator[Any]:
    sandbox: Any = (
        SandboxBoard(flood_interval_s=0, state_path=None)
        if request.param == "phpbb3"
        else ForumactifSandbox(flood_interval_s=0)
    )
    sandbox.platform = request.param
    sandbox.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in MEMBERS:
        sandbox.add_user(name, "x")
    sandbox.start()
    yield sandbox
    sandbox.stop()


@pytest.fixture
def lookup(board: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemberLookup:
    monkeypatch.setattr(serve, "LOOKUP_RETRIES", 0)  # a failed board answers at once
    path = tmp_path / "forumbot.toml"
    path.write_text(CONFIG.format(url=board.base_url, platform=board.platform), encoding="utf-8")
    found = serve.board_members(load_config(path), password="pw-hibou")
    assert found is not None
    return found


@pytest.fixture
def scenario() -> Scenario:
    return build()


def client_for(s: Scenario, members: MemberLookup | None) -> httpx.AsyncClient:
    app = create_app(s.storage, secret_key=SECRET, now=s.clock, notify=CFG, members=members)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver")


@pytest.fixture
async def rita(scenario: Scenario, lookup: MemberLookup) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(scenario, lookup) as c:
        await login(c, "rita")
        yield c


async def save(c: httpx.AsyncClient, forum_name: str, quiet: str = "") -> str:
    """Post the settings form; the page shown after the redirect."""
    r = await form_post(
        c, "/me/notify", "/me/notify", {"channel": "owl", "quiet": quiet, "forum_name": forum_name}
    )
    assert r.status_code == 303 and r.headers["location"] == "/me/notify"
    return (await c.get("/me/notify")).text


def nothing_stored(s: Scenario, user: str = "rita") -> bool:
    settings = person_settings(s.storage, user, CFG)
    audit = [a for a in s.storage.audit_entries(f"user:{user}") if a["action"] == "notify.settings"]
    return settings.forum_name == user and not settings.forum_linked_by and not audit


async def test_a_member_is_stored_as_the_board_spells_it(
    scenario: Scenario, rita: httpx.AsyncClient
) -> None:
    page = await save(rita, "  rita   SKEETER ", quiet="22:00-07:30")
    assert "Enregistré." in page
    s = person_settings(scenario.storage, "rita", CFG)
    assert (s.forum_name, s.forum_linked_by, s.quiet_text) == (
        "Rita Skeeter",
        "board",
        "22:00-07:30",
    )
    audit = [
        a for a in scenario.storage.audit_entries("user:rita") if a["action"] == "notify.settings"
    ]
    assert json.loads(audit[-1]["after"])["forum"] == "Rita Skeeter"


@pytest.mark.parametrize(
    ("typed", "case"),
    [
        ("<b>Rita Skeeter</b>", "html"),
        ('Rita Skeeter"><script>alert(1)</script>', "html"),
        ("Rita Skeeter\u202e", "bidi override"),
        ("\u202eRita Skeeter", "bidi override"),
        ("[url=https://evil.example]Rita Skeeter[/url]", "bbcode"),
        ("[b]Rita[/b] Skeeter", "bbcode"),
        ("Rita\u200bSkeeter", "zero-width space"),
        ("Rita Skeeter\u3164", "hangul filler"),
    ],
)
async def test_markup_bidi_and_invisible_names_are_refused(
    scenario: Scenario, typed: str, case: str
) -> None:
    """Refused before the board is asked (the look-up records its calls)."""
    asked: list[str] = []

    def spy(name: str) -> str:
        asked.append(name)
        return name

    async with client_for(scenario, spy) as c:
        await login(c, "rita")
        page = await save(c, typed)
    assert "ni HTML, ni BBCode, ni caractère invisible" in page, case
    assert "<script>alert(1)" not in page and "\u202e" not in page
    assert nothing_stored(scenario) and asked == [], case


async def test_a_name_that_is_no_member_is_refused_saying_so(
    scenario: Scenario, rita: httpx.AsyncClient
) -> None:
    page = await save(rita, "Personne Inconnue")
    assert "« Personne Inconnue » n&#39;est pas un membre du forum" in plain(page)
    assert nothing_stored(scenario)


async def test_a_board_that_cannot_be_reached_stores_nothing(
    scenario: Scenario, rita: httpx.AsyncClient, board: Any
) -> None:
    board.stop()
    page = await save(rita, "Rita Skeeter")
    assert "Le forum ne répond pas" in page and "Réessayez plus tard." in page
    assert nothing_stored(scenario)
    # the quiet hours alone (the forum account left as shown) need no board
    page = await save(rita, "rita", quiet="23:00-06:00")
    assert "Enregistré." in page
    s = person_settings(scenario.storage, "rita", CFG)
    assert (s.forum_name, s.forum_linked_by, s.quiet_text) == ("rita", "", "23:00-06:00")


async def test_no_lookup_wired_refuses_a_new_forum_account(scenario: Scenario) -> None:
    async with client_for(scenario, None) as c:
        await login(c, "rita")
        page = await save(c, "Rita Skeeter")
    assert "Réessayez plus tard." in page
    assert nothing_stored(scenario)


async def test_another_members_name(
    scenario: Scenario, rita: httpx.AsyncClient, lookup: MemberLookup
) -> None:
    """The reading chosen (forumbot.web.forum_account, rule 3 and 5): the first link is
    self-service; once linked, a referee may not move their owls to another member (an admin
    may, on the command line); a member who is another account's forum account is refused."""
    assert "Enregistré." in await save(rita, "Rita Skeeter")
    page = await save(rita, "Otto Vance")  # a real member, but rita is linked already
    assert "Votre compte du forum est déjà relié à « Rita Skeeter »" in plain(page)
    assert "seul un admin peut le changer" in page
    assert person_settings(scenario.storage, "rita", CFG).forum_name == "Rita Skeeter"
    async with client_for(scenario, lookup) as otto:
        await login(otto, "otto")
        page = await save(otto, "rita skeeter")  # rita's forum account
        assert "« Rita Skeeter » est déjà (ou ressemble au) compte du forum" in plain(page)
        assert nothing_stored(scenario, "otto")
        assert "Enregistré." in await save(otto, "Otto Vance")
    async with client_for(scenario, lookup) as alice:  # an admin relinks their own
        await login(alice, "alice")
        assert "Enregistré." in await save(alice, "Alice Dunbar")
        assert "Enregistré." in await save(alice, "alice prewett")
        assert person_settings(scenario.storage, "alice", CFG).forum_name == "Alice Prewett"
        assert "est déjà (ou ressemble au)" in await save(alice, "Otto Vance")
    # An admin relinks a referee on the command line (forumbot users notify --forum-name):
    # not looked up (the admin vouches), but a look-alike of another account's (F12) is refused.
    with pytest.raises(NotifyConfigError, match="looks like 'Otto Vance'"):
        set_person_settings(
            scenario.storage, "rita", "alice", scenario.clock(), forum_name="\u039ftto Vance"
        )
    set_person_settings(scenario.storage, "rita", "alice", scenario.clock(), forum_name="Rita S.")
    assert person_settings(scenario.storage, "rita", CFG).forum_linked_by == "alice"
