"""The review web page in process (httpx.ASGITransport): drafts, overrides, stale forms,
access by role, violations, duel page, language switch, escaping and headers."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import AsyncIterator

import httpx
import pytest

from forumbot.publish.typography import plain
from forumbot.web import create_app
from forumbot.web.users import assign_referee
from tests.unit.web_scenario import EVIL, PASSWORD, Scenario, build

pytestmark = pytest.mark.anyio
SECRET = "s" * 48


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def scenario() -> Scenario:
    return build()


@pytest.fixture
async def client(scenario: Scenario) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(
        scenario.storage, secret_key=SECRET, publisher=scenario.publish_one, now=scenario.clock
    )
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


def token(html: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "page has no CSRF field"
    return found.group(1)


async def login(c: httpx.AsyncClient, name: str, password: str = PASSWORD) -> httpx.Response:
    page = await c.get("/login")
    return await c.post(
        "/login", data={"csrf_token": token(page.text), "username": name, "password": password}
    )


async def form_post(
    c: httpx.AsyncClient, page_path: str, action: str, data: dict[str, str]
) -> httpx.Response:
    """Load ``page_path`` and post ``data`` (+ its CSRF token) to ``action``."""
    page = await c.get(page_path)
    assert page.status_code == 200
    return await c.post(action, data={"csrf_token": token(page.text), **data})


def draft(s: Scenario) -> dict:
    return s.storage.declaration(s.draft_id)


def outcome(s: Scenario) -> dict:
    return json.loads(draft(s)["context_json"])["outcome"]


# -- login, session, headers ----------------------------------------------------------
async def test_pages_need_a_login(client: httpx.AsyncClient, scenario: Scenario) -> None:
    for path in ("/drafts", f"/drafts/{scenario.draft_id}", "/duels", "/violations.csv"):
        r = await client.get(path)
        assert r.status_code == 303
        assert r.headers["location"].startswith("/login?next=")


async def test_login_sets_signed_httponly_lax_cookie(client: httpx.AsyncClient) -> None:
    r = await login(client, "alice")
    assert r.status_code == 303 and r.headers["location"] == "/drafts"
    cookie = r.headers["set-cookie"].lower()
    assert "forumbot_session=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    assert (await client.get("/drafts")).status_code == 200
    # a tampered cookie is not a session
    value = client.cookies["forumbot_session"]
    client.cookies.set("forumbot_session", value[:-3] + "AAA")
    assert (await client.get("/drafts")).status_code == 303


async def test_password_change_or_disable_ends_open_sessions(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    from forumbot.web.users import set_disabled, set_password

    await login(client, "rita")
    assert (await client.get("/drafts")).status_code == 200
    set_password(scenario.storage, "rita", "a new long secret", scenario.clock())
    assert (await client.get("/drafts")).status_code == 303  # the old session ended
    assert (await login(client, "rita")).status_code == 401  # old password refused
    assert (await login(client, "rita", "a new long secret")).status_code == 303
    assert (await client.get("/drafts")).status_code == 200
    set_disabled(scenario.storage, "rita", True, scenario.clock())
    assert (await client.get("/drafts")).status_code == 303
    assert (await login(client, "rita", "a new long secret")).status_code == 401
    set_disabled(scenario.storage, "rita", False, scenario.clock())
    assert (await login(client, "rita", "a new long secret")).status_code == 303
    actions = [r["action"] for r in scenario.storage.db["audit_log"].rows_where(
        "target = ?", ["user:rita"], order_by="id")]  # fmt: skip
    assert actions[-3:] == ["user.password", "user.disable", "user.enable"]


async def test_security_headers(client: httpx.AsyncClient) -> None:
    r = await client.get("/login")
    assert r.headers["x-frame-options"] == "DENY"
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"


async def test_wrong_password_then_rate_limited(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    for _ in range(5):
        assert (await login(client, "alice", "wrong password")).status_code == 401
    r = await login(client, "alice")  # right password, but blocked for this user + address
    assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
    assert (await login(client, "rita")).status_code == 303  # another user is not blocked
    client.cookies.clear()
    scenario.clock.advance(15 * 60 + 1)
    assert (await login(client, "alice")).status_code == 303


async def test_unknown_user_and_missing_token(client: httpx.AsyncClient) -> None:
    assert (await login(client, "nobody")).status_code == 401
    r = await client.post("/login", data={"username": "alice", "password": PASSWORD})
    assert r.status_code == 403


async def test_logout_ends_the_session(client: httpx.AsyncClient) -> None:
    await login(client, "alice")
    r = await form_post(client, "/drafts", "/logout", {})
    assert r.status_code == 303
    assert (await client.get("/drafts")).status_code == 303


# -- the queue ------------------------------------------------------------------------
async def test_queue_shows_posts_dice_trail_countdown_escaped(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    html = (await client.get("/drafts")).text
    # the review page's French is typeset like the posts (issue 25): « n° 3 », U+00A0 (T6)
    assert f"Déclaration n°\u00a0{scenario.draft_id}" in html
    assert "Publication automatique dans 9 min 00 s" in html  # publish_after - now = 540 s
    for post_id in (106, 107):
        assert f"Message n°\u00a0{post_id}" in html
    assert "hmac-sha256 v1 phpbb3:7|2|106|Duel" in html  # the rolls and their derivation
    assert "classic.repeated_spell" in html and "Il est par ailleurs interdit" in html
    assert 'name="key" value="Aurora Vexley.points"' in html
    assert EVIL not in html and "&lt;script&gt;" in html


async def test_set_number_text_follows_and_is_audited(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    assert "Aurora Vexley : 12 - 6 (Sortilège de Désarmement de Cassius Thorne) = 6 PD" in plain(
        draft(scenario)["text"]
    )
    r = await form_post(
        client,
        f"/drafts/{scenario.draft_id}",
        f"/drafts/{scenario.draft_id}/numbers",
        {"version": "1", "key": "Aurora Vexley.points", "value": "9"},
    )
    assert r.status_code == 303
    page = (await client.get(r.headers["location"])).text
    assert "Enregistré." in page and "Aurora Vexley : 9 PD" in plain(page)
    row = draft(scenario)
    assert row["version"] == 2 and "Aurora Vexley : 9 PD" in plain(row["text"])
    assert json.loads(row["overrides_json"]) == {"Aurora Vexley.points": 9}
    assert any(t["rule"] == "referee.override" for t in outcome(scenario)["trail"])
    entries = scenario.storage.audit_entries(f"declaration:{scenario.draft_id}")
    assert entries[-1]["actor"] == "rita" and entries[-1]["action"] == "draft.set_numbers"


async def test_landed_flag_follows_through_damage(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "alice")
    r = await form_post(
        client,
        f"/drafts/{scenario.draft_id}",
        f"/drafts/{scenario.draft_id}/numbers",
        {"version": "1", "key": "Cassius Thorne.landed", "value": "non"},
    )
    assert r.status_code == 303
    attack = [a for a in outcome(scenario)["attacks"] if a["attacker"] == "Cassius Thorne"][0]
    assert attack["landed"] is False and attack["damage"] == 0
    assert "Aurora Vexley : 12 PD" in plain(draft(scenario)["text"])


async def test_bad_number_and_unknown_key_are_refused(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "alice")
    path = f"/drafts/{scenario.draft_id}"
    r = await form_post(
        client,
        path,
        path + "/numbers",
        {"version": "1", "key": "Aurora Vexley.points", "value": "beaucoup"},
    )
    assert r.status_code == 400 and "Modification refusée" in r.text
    r = await form_post(
        client, path, path + "/numbers", {"version": "1", "key": "Aurora Vexley.luck", "value": "3"}
    )
    assert r.status_code == 400
    assert draft(scenario)["version"] == 1


async def test_stale_form_gets_409_and_changes_nothing(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    stale = token((await client.get(path)).text)
    ok = await client.post(
        path + "/numbers",
        data={"csrf_token": stale, "version": "1", "key": "Aurora Vexley.points", "value": "9"},
    )
    assert ok.status_code == 303
    r = await client.post(
        path + "/text", data={"csrf_token": stale, "version": "1", "text": "Texte périmé"}
    )
    assert r.status_code == 409
    assert "changé entre-temps" in r.text
    assert draft(scenario)["text"] != "Texte périmé" and draft(scenario)["version"] == 2


async def test_waive_and_restore_violation(client: httpx.AsyncClient, scenario: Scenario) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    data = {"version": "1", "duellist": "Aurora Vexley", "rule": "repeated_spell", "waive": "1"}
    assert (await form_post(client, path, path + "/violation", data)).status_code == 303
    assert [v["status"] for v in outcome(scenario)["violations"]] == ["waived"]
    assert json.loads(draft(scenario)["waived_json"]) == [["Aurora Vexley", "repeated_spell"]]
    assert "Rétablir" in (await client.get(path)).text
    data = {**data, "version": "2", "waive": "0"}
    assert (await form_post(client, path, path + "/violation", data)).status_code == 303
    assert [v["status"] for v in outcome(scenario)["violations"]] == ["applied"]
    actions = [e["action"] for e in scenario.storage.audit_entries(f"declaration:{path[8:]}")]
    assert actions[-2:] == ["draft.waive", "draft.unwaive"]


async def test_an_edited_text_is_rendered_again_when_numbers_change(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    """Issue 13: a text never contradicts the stored numbers. A number set after a hand edit
    renders the text again from the template (the hand-edited text stays in the audit)."""
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    text = "[b]Tour 2[/b]\r\nTexte de l'arbitre."
    assert (
        await form_post(client, path, path + "/text", {"version": "1", "text": text})
    ).status_code == 303
    assert draft(scenario)["text"] == "[b]Tour 2[/b]\nTexte de l'arbitre."
    await form_post(
        client,
        path,
        path + "/numbers",
        {"version": "2", "key": "Aurora Vexley.points", "value": "9"},
    )
    after = draft(scenario)
    assert "Texte de l'arbitre." not in after["text"] and not after["text_edited"]
    assert "Aurora Vexley : 9 PD (décision de l'arbitre)" in plain(after["text"])
    # the referee is told (overrides.TEXT_RERENDERED), in French, then in English
    page = (await client.get(path)).text
    assert 'class="flash warning"' in page
    assert "Le texte avait été modifié à la main : il a été recalculé à partir du modèle" in plain(
        page
    )
    assert "recalculé à partir du modèle" not in (await client.get(path)).text  # shown once
    version = str(after["version"])
    await form_post(client, path, path + "/text", {"version": version, "text": text})
    await form_post(
        client,
        path,
        path + "/numbers",
        {"version": str(int(version) + 1), "key": "Aurora Vexley.points", "value": "8"},
    )
    page = (await client.get(path + "?lang=en")).text
    assert "The text had been edited by hand: it was rendered again from the template" in page
    # a number set over the bot's own text warns nothing
    await form_post(
        client,
        path,
        path + "/numbers",
        {"version": str(int(version) + 2), "key": "Aurora Vexley.points", "value": "7"},
    )
    assert 'class="flash warning"' not in (await client.get(path)).text


async def test_hold_approve_and_publish_now(client: httpx.AsyncClient, scenario: Scenario) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    await form_post(client, path, path + "/status", {"version": "1", "status": "held"})
    assert draft(scenario)["status"] == "held"
    assert "En attente de la décision d" in (await client.get(path)).text
    before = len(scenario.forum.posts[7])
    r = await form_post(client, path, path + "/publish", {"version": "2"})
    assert r.status_code == 303
    row = draft(scenario)
    assert row["status"] == "published"
    assert len(scenario.forum.posts[7]) == before + 1
    assert scenario.forum.posts[7][-1].post_id == row["published_post_id"]
    page = (await client.get(path)).text
    assert f"Publié (message {row['published_post_id']})." in page
    # a form still open elsewhere cannot change it any more
    r = await form_post(
        client, path, path + "/text", {"version": str(row["version"]), "text": "trop tard"}
    )
    assert r.status_code == 409 and "ne peut plus changer" in r.text


async def test_publish_failure_keeps_draft_approved(scenario: Scenario) -> None:
    def broken(decl_id: int) -> None:
        raise RuntimeError("board down")

    app = create_app(scenario.storage, secret_key=SECRET, publisher=broken, now=scenario.clock)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        await login(c, "rita")
        path = f"/drafts/{scenario.draft_id}"
        r = await form_post(c, path, path + "/publish", {"version": "1"})
        assert r.status_code == 303
        assert "board down" in (await c.get(path)).text
    assert draft(scenario)["status"] == "approved"


async def test_publish_without_publisher_only_approves(scenario: Scenario) -> None:
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        await login(c, "alice")
        path = f"/drafts/{scenario.draft_id}"
        await form_post(c, path, path + "/publish", {"version": "1"})
        assert "Approuvé : publié au prochain passage" in plain((await c.get(path)).text)
    assert draft(scenario)["status"] == "approved"


# -- roles ----------------------------------------------------------------------------
async def test_referee_sees_only_their_duels(client: httpx.AsyncClient, scenario: Scenario) -> None:
    await login(client, "otto")
    assert "Aucun brouillon en attente." in (await client.get("/drafts")).text
    path = f"/drafts/{scenario.draft_id}"
    assert (await client.get(path)).status_code == 404
    assert (await client.get(f"/duels/{scenario.duel_id}")).status_code == 404
    assert "Aucune infraction pour ces filtres." in (await client.get("/violations")).text
    r = await form_post(client, "/drafts", path + "/status", {"version": "1", "status": "held"})
    assert r.status_code == 404 and draft(scenario)["status"] == "draft"
    rows = list(csv.reader(io.StringIO((await client.get("/violations.csv")).text)))
    assert len(rows) == 1  # header only
    assign_referee(scenario.storage, scenario.duel_id, "otto", "alice", scenario.clock())
    assert f"Déclaration n°\u00a0{scenario.draft_id}" in (await client.get("/drafts")).text


async def test_admin_only_actions_refused_to_referees(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    duel = f"/duels/{scenario.duel_id}"
    r = await form_post(client, duel, duel + "/referees", {"username": "otto", "op": "add"})
    assert r.status_code == 403
    r = await form_post(
        client,
        "/violations",
        "/violations/1/decide",
        {"decision": "dismissed", "reason": "ok"},
    )
    assert r.status_code == 403
    assert scenario.storage.db["violations"].get(1)["status"] == "applied"


async def test_admin_assigns_and_removes_referee(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "alice")
    duel = f"/duels/{scenario.duel_id}"
    r = await form_post(client, duel, duel + "/referees", {"username": "otto", "op": "add"})
    assert r.status_code == 303
    rows = scenario.storage.db["duel_referees"].rows_where("duel_id = ?", [scenario.duel_id])
    assert sorted(r["username"] for r in rows) == ["otto", "rita"]
    await form_post(client, duel, duel + "/referees", {"username": "rita", "op": "remove"})
    rows = scenario.storage.db["duel_referees"].rows_where("duel_id = ?", [scenario.duel_id])
    assert [r["username"] for r in rows] == ["otto"]
    actions = [e["action"] for e in scenario.storage.audit_entries(f"duel:{scenario.duel_id}")]
    assert actions[-2:] == ["duel.assign_referee", "duel.unassign_referee"]


async def test_identity_comes_from_the_session_not_the_form(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "rita")
    path = f"/drafts/{scenario.draft_id}"
    data = {
        "version": "1",
        "status": "held",
        "user": "alice",
        "actor": "alice",
        "username": "alice",
        "role": "admin",
    }
    await form_post(client, path, path + "/status", data)
    assert scenario.storage.audit_entries(f"declaration:{scenario.draft_id}")[-1]["actor"] == "rita"
    r = await form_post(
        client,
        "/violations",
        "/violations/1/decide",
        {"decision": "dismissed", "reason": "x", "role": "admin", "user": "alice"},
    )
    assert r.status_code == 403


# -- violations -----------------------------------------------------------------------
async def test_violations_list_filter_and_dismiss(
    client: httpx.AsyncClient, scenario: Scenario
) -> None:
    await login(client, "alice")
    html = (await client.get("/violations?rule=repeated_spell")).text
    assert "Sortilège de Désarmement deux fois de suite" in html  # French evidence (issue 14)
    assert "Message n°\u00a0106" in html and "3 lignes" in html
    assert (
        "Aucune infraction pour ces filtres."
        in (await client.get("/violations?duellist=Cassius+Thorne")).text
    )
    r = await form_post(
        client,
        "/violations",
        "/violations/1/decide",
        {"decision": "dismissed", "reason": "  ", "back": "/violations"},
    )
    assert "Décision refusée" in (await client.get(r.headers["location"])).text
    assert scenario.storage.db["violations"].get(1)["status"] == "applied"
    r = await form_post(
        client,
        "/violations",
        "/violations/1/decide",
        {"decision": "dismissed", "reason": "Sort différent, mal lu", "back": "https://evil/x"},
    )
    assert r.status_code == 303 and r.headers["location"] == "/violations"
    row = scenario.storage.db["violations"].get(1)
    assert (row["status"], row["decided_by"], row["reason"]) == (
        "dismissed",
        "alice",
        "Sort différent, mal lu",
    )
    entry = scenario.storage.audit_entries("violation:1")[-1]
    assert entry["action"] == "violation.dismiss" and entry["actor"] == "alice"
    html = (await client.get("/violations?status=dismissed")).text
    assert "décidée par alice : Sort différent, mal lu" in plain(html)


async def test_violations_csv(client: httpx.AsyncClient, scenario: Scenario) -> None:
    scenario.storage.db["violations"].update(1, {"evidence": '=HYPERLINK("http://x")'})
    await login(client, "alice")
    r = await client.get(f"/violations.csv?duel={scenario.duel_id}")
    assert r.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 1
    assert rows[0]["duellist"] == "Aurora Vexley" and rows[0]["rule"] == "repeated_spell"
    assert rows[0]["evidence"].startswith("'=")  # never a live formula
    assert list(csv.reader(io.StringIO((await client.get("/violations.csv?duel=999")).text))) == [
        list(rows[0].keys())
    ]


# -- duel page, language --------------------------------------------------------------
async def test_duel_page(client: httpx.AsyncClient, scenario: Scenario) -> None:
    await login(client, "alice")
    path = f"/drafts/{scenario.draft_id}"
    await form_post(
        client,
        path,
        path + "/numbers",
        {"version": "1", "key": "Aurora Vexley.points", "value": "9"},
    )
    html = (await client.get(f"/duels/{scenario.duel_id}")).text
    assert "<svg" in html and html.count("<polyline") == 2  # one line per duellist
    assert "Tour 1" in html  # the published turn
    assert "hmac-sha256 v1 phpbb3:7|1|104|Duel" in html  # dice audit, turn 1
    assert "draft.set_numbers" in html and "duel.adopt" in html  # audit log
    assert "rita" in html  # referees


async def test_finished_duel_dice_are_verified(scenario: Scenario) -> None:
    s = build(review_delay_s=0)
    from forumbot.duels.publication import publish_due
    from tests.unit.web_scenario import FORUM, _post

    spells = ["Sortilège de Chatouillis", "Sortilège de Désarmement"]
    for turn in range(80):
        if s.storage.duel(s.duel_id)["status"] == "finished":
            break
        publish_due(s.storage, s.forum, s.clock)
        if s.storage.duel(s.duel_id)["status"] == "finished":
            break
        _post(s.forum, "Aurora Vexley", spells[turn % 2])
        _post(s.forum, "Cassius Thorne", spells[(turn + 1) % 2])
        s.referee.poll_forum(FORUM)
    assert s.storage.duel(s.duel_id)["status"] == "finished"
    app = create_app(s.storage, secret_key=SECRET, now=s.clock)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        await login(c, "alice")
        html = (await c.get(f"/duels/{s.duel_id}")).text
    rolls = list(s.storage.db["dice_rolls"].rows)
    assert html.count("<td>✓</td>") == len(rolls) > 0 and "✗" not in html
    assert s.storage.duel(s.duel_id)["dice_secret"] in html


async def test_english_switch(client: httpx.AsyncClient) -> None:
    await login(client, "alice")
    r = await client.get("/drafts?lang=en")
    assert "Draft queue" in r.text and "File des brouillons" not in r.text
    assert "lang=en" in r.headers["set-cookie"]
    assert "Draft queue" in (await client.get("/drafts")).text  # remembered
    assert "File des brouillons" in (await client.get("/drafts?lang=fr")).text
