"""The review page in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

uvicorn serves the app on 127.0.0.1 (a free port) in a thread; the duel comes from the real
referee loop against the in-memory forum (tests/unit/web_scenario.py). A referee logs in,
changes a number and sees the text follow, publishes the draft now; an admin dismisses a
violation. Screenshots go to a temporary folder, or to docs/review-queue.png and
docs/duel-page.png when FORUMBOT_SCREENSHOTS=docs (to refresh the documentation).

Skipped (with the reason) when Playwright for Python or a ``chromium`` binary is missing:
``apt-get install -y chromium`` and ``pip install playwright`` (never ``playwright install``).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from forumbot.duels.publication import publish_due
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.unit.web_scenario import PASSWORD, Scenario, build

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
DOCS = (
    (ROOT / "docs")
    if os.environ.get("FORUMBOT_SCREENSHOTS") == "docs"
    else Path(tempfile.mkdtemp(prefix="forumbot-shots-"))
)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None  # type: ignore[assignment]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Served:
    """A running review app: its URL, the scenario behind it, the publisher's calls."""

    url: str
    scenario: Scenario
    db_path: str
    published: list[int] = field(default_factory=list)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    import uvicorn

    from forumbot.web import create_app
    from forumbot.web.serve import uvicorn_config

    db_path = str(tmp_path / "forumbot.db")
    scenario = build(db_path)
    scenario.storage.close()  # the server thread opens its own connection (sqlite: per thread)
    port = _free_port()
    result = Served(f"http://127.0.0.1:{port}", scenario, db_path)
    holder: dict[str, uvicorn.Server] = {}
    ready = threading.Event()

    def run() -> None:
        storage = open_storage(db_path)

        def publisher(decl_id: int) -> None:
            result.published.append(decl_id)
            publish_due(storage, scenario.forum, scenario.clock)

        app = create_app(
            storage, secret_key="e2e-" + "x" * 40, publisher=publisher, now=scenario.clock
        )
        # the configuration `forumbot web` runs with (no proxy trusted: web.trusted_proxies = [])
        server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, log_level="warning"))
        holder["server"] = server
        ready.set()
        server.run()
        storage.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    deadline = time.monotonic() + 120  # readiness bound only, generous for a loaded machine
    while not holder["server"].started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield result
    holder["server"].should_exit = True
    thread.join(10)


@pytest.fixture
def page() -> Iterator[Page]:
    if sync_playwright is None:
        pytest.skip("Playwright for Python is not installed (pip install playwright)")
    executable = shutil.which("chromium")
    if executable is None:
        pytest.skip("no chromium binary on PATH (apt-get install -y chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="fr-FR")
        pg = context.new_page()
        pg.set_default_timeout(15_000)
        yield pg
        context.close()
        browser.close()


def log_in(page: Page, base: str, name: str) -> None:
    page.goto(base + "/drafts")
    assert "/login" in page.url
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.login button[type=submit]")
    page.wait_for_url(base + "/drafts")


def test_referee_edits_publishes_admin_dismisses(served: Served, page: Page) -> None:
    base = served.url
    draft_id = served.scenario.draft_id
    log_in(page, base, "rita")
    card = page.locator(f"#draft-{draft_id}")
    assert "Aurora Vexley : 12 - 6 (Sortilège de Désarmement de Cassius Thorne) = 6 PD" in plain(
        card.locator("textarea[name=text]").input_value()
    )
    assert "&lt;script&gt;" not in card.inner_text()  # escaped once, shown as text
    assert "<script>alert('x')</script>" in card.inner_text()
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "review-queue.png"), full_page=True)

    # change a computed number: the text follows
    form = card.locator('form[data-key="Aurora Vexley.points"]')
    form.locator("input[name=value]").fill("9")
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{base}/drafts/{draft_id}")
    assert page.locator(".flash.ok").inner_text() == "Enregistré."
    text = page.locator("textarea[name=text]").input_value()
    assert "Aurora Vexley : 9 PD" in plain(text) and "Aurora Vexley : 6 PD" not in plain(text)

    # publish now
    page.click("button.primary")
    page.wait_for_url(f"{base}/drafts/{draft_id}")
    assert served.published == [draft_id]
    flash = page.locator(".flash.ok").inner_text()
    assert flash.startswith("Publié (message ")
    posted = served.scenario.forum.posts[7][-1]
    assert "Aurora Vexley : 9 PD" in plain(posted.text) and str(posted.post_id) in flash

    # an admin dismisses the violation of that turn
    page.click("header.top form button[type=submit]")  # log out
    page.wait_for_url(base + "/login")
    log_in(page, base, "alice")
    page.goto(base + "/violations")
    report = page.locator("article.violation-report").first
    report.locator("input[name=reason]").fill("Deux sorts différents, mal lus")
    report.locator("button[value=dismissed]").click()
    page.wait_for_url(base + "/violations")
    assert page.locator(".flash.ok").inner_text() == "Décision enregistrée."
    check = open_storage(served.db_path)
    rows = list(check.db["violations"].rows_where("duel_id = ?", [served.scenario.duel_id]))
    assert [(r["status"], r["decided_by"]) for r in rows] == [("dismissed", "alice")]
    decl = check.declaration(draft_id)
    assert decl["status"] == "published"
    assert json.loads(decl["overrides_json"]) == {"Aurora Vexley.points": 9}
    check.close()

    # the duel page: chart, turns, dice audit, audit log
    page.goto(f"{base}/duels/{served.scenario.duel_id}")
    assert page.locator("svg.chart polyline").count() == 2
    assert page.locator("table.audit td.what[title='draft.set_numbers']").count() == 1
    page.screenshot(path=str(DOCS / "duel-page.png"), full_page=True)


def test_english_switch_and_login_refusal(served: Served, page: Page) -> None:
    base = served.url
    page.goto(base + "/login?lang=en")
    assert page.locator("h1").inner_text() == "Log in"
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", "not the password")
    page.click("form.login button[type=submit]")
    assert page.locator(".flash.error").inner_text() == "Wrong username or password."
    log_in(page, base, "rita")
    assert page.locator("h1").inner_text() == "Draft queue"


def test_referee_changes_pv_and_the_sandbox_topic_shows_it_once(tmp_path: Path, page: Page) -> None:
    """Issue 6, done when: a referee changes the points of a draft in the browser and
    publishes it; the sandbox board's topic (real phpBB client over HTTP) shows the changed
    declaration exactly once, and the audit log says who changed what."""
    import random

    import uvicorn

    from forumbot.app import bootstrap
    from forumbot.config import Config, WatchedForum
    from forumbot.duels.overrides import set_status
    from forumbot.duels.publication import apply_published
    from forumbot.publish.poster import publish_one
    from forumbot.sandbox import SandboxBoard
    from forumbot.web import create_app
    from forumbot.web.users import add_user, assign_referee

    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne"):
        board.add_user(name, "x")
    board_url = board.start()
    db_path = str(tmp_path / "bot.db")
    try:
        topic = board.create_topic(
            3, "Arbitre", "Duel : Aurora contre Cassius",
            "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
        )  # fmt: skip
        config = Config(
            board_url=board_url,
            platform="phpbb3",
            username="Hibou",
            review_delay_s="manual",
            database=db_path,
            watch=(WatchedForum(3),),
        )
        bot = bootstrap(config, password="pw-hibou", rng=random.Random(4))
        bot.poll()
        opening = bot.storage.declarations(("draft",))[0]
        set_status(bot.storage, opening["id"], "approved", "Arbitre", bot.now())
        assert bot.publish()
        board.post_reply(topic, "Aurora Vexley", "J'attaque.\n[b]Sortilège de Désarmement[/b]")
        board.post_reply(topic, "Cassius Thorne", "Je riposte.\n[b]Sortilège de Chatouillis[/b]")
        bot.poll()
        draft = bot.storage.declarations(("draft",))[0]
        duel_id = int(draft["duel_id"])
        add_user(bot.storage, "rita", PASSWORD, "referee", bot.now())
        add_user(bot.storage, "alice", PASSWORD, "admin", bot.now())
        assign_referee(bot.storage, duel_id, "rita", "alice", bot.now())
        bot.close()

        port = _free_port()
        holder: dict[str, uvicorn.Server] = {}

        def run() -> None:
            served_bot = bootstrap(config, password="pw-hibou")

            def publisher(decl_id: int) -> None:
                decl = served_bot.storage.declaration(decl_id)
                publish_one(
                    served_bot.storage, served_bot.client, decl, served_bot.now,
                    on_published=lambda r: apply_published(served_bot.storage, r, served_bot.now()),
                )  # fmt: skip

            app = create_app(served_bot.storage, secret_key="e2e-" + "y" * 40, publisher=publisher)
            server = uvicorn.Server(
                uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                               lifespan="off")
            )  # fmt: skip
            holder["server"] = server
            server.run()
            served_bot.close()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 120  # readiness bound only, generous for a loaded machine
        while "server" not in holder or not holder["server"].started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        base = f"http://127.0.0.1:{port}"
        try:
            log_in(page, base, "rita")
            card = page.locator(f"#draft-{draft['id']}")
            form = card.locator('form[data-key="Cassius Thorne.points"]')
            form.locator("input[name=value]").fill("11")
            form.locator("button[type=submit]").click()
            page.wait_for_url(f"{base}/drafts/{draft['id']}")
            assert "Cassius Thorne : 11 PD" in plain(
                page.locator("textarea[name=text]").input_value()
            )
            page.click("button.primary")  # publish now
            page.wait_for_url(f"{base}/drafts/{draft['id']}")
            assert page.locator(".flash.ok").inner_text().startswith("Publié (message ")
        finally:
            holder["server"].should_exit = True
            thread.join(10)

        hibou = board.user_id("Hibou")
        declarations = [p.text for p in board.posts(topic) if p.poster_id == hibou]
        turn = [t for t in declarations if "tour 1" in t]
        assert len(turn) == 1 and "Cassius Thorne : 11 PD" in plain(turn[0])
        check = open_storage(db_path)
        audit = [
            a for a in check.audit_entries("declaration:") if a["action"] == "draft.set_numbers"
        ]
        # The audit row keeps the override and the state after it (issue 13: before and after).
        assert [(a["actor"], json.loads(a["after"])["overrides"]) for a in audit] == [
            ("rita", {"Cassius Thorne.points": 11})
        ]
        check.close()
    finally:
        board.stop()


# -- issue 14 ---------------------------------------------------------------------------------
def test_login_limit_holds_against_forged_forwarded_for(served: Served, page: Page) -> None:
    """A client on 127.0.0.1 (where a local proxy would be) sends a new X-Forwarded-For
    with every guess: no proxy is trusted, so the sixth try gets 429 and even the right
    password is refused while the account is locked for that client."""
    base = served.url
    for i in range(7):
        page.set_extra_http_headers({"X-Forwarded-For": f"198.51.100.{i + 1}"})
        page.goto(base + "/login")
        page.fill("input[name=username]", "rita")
        page.fill("input[name=password]", f"guess number {i}")
        with page.expect_response(lambda r: r.request.method == "POST") as answer:
            page.click("form.login button[type=submit]")
        expected = 401 if i < 5 else 429
        assert answer.value.status == expected, (i, answer.value.status)
    assert page.locator(".flash.error").inner_text().startswith("Trop de tentatives")
    page.set_extra_http_headers({"X-Forwarded-For": "203.0.113.77"})
    page.goto(base + "/login")
    page.fill("input[name=username]", "rita")
    page.fill("input[name=password]", PASSWORD)
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("form.login button[type=submit]")
    assert answer.value.status == 429 and "/login" in page.url
    page.goto(base + "/drafts")
    assert "/login" in page.url  # not logged in


def test_french_rule_trail(served: Served, page: Page) -> None:
    base = served.url
    log_in(page, base, "rita")
    page.goto(f"{base}/drafts/{served.scenario.draft_id}")
    trail = page.locator("details.trail table")
    rows = [
        [c.inner_text().strip() for c in row.locator("td").all()[:4]]
        for row in trail.locator("tr").all()
        if row.locator("td").count()
    ]
    assert [
        "Cassius Thorne : attaque touche",
        "oui",
        "déviation",
        "défense effective 6 d'Aurora Vexley contre attaque 6, à égalité, le sort touche",
    ] in [plain(r) for r in rows]  # typeset like the posts (issue 25): plain() undoes it
    text = " ".join(" ".join(r) for r in rows)
    for english in ("effective defense", "the tie lands", "first die", "twice in a row"):
        assert english not in text
    evidence = page.locator(".violation .evidence").first.inner_text()
    assert evidence == "Sortilège de Désarmement deux fois de suite"
    assert page.locator(".violation .rule").first.inner_text() == "sort répété"
    # the English switch shows the engine's own words
    page.click("a.lang")
    assert "the tie lands" in page.locator("details.trail table").inner_text()
    page.click("a.lang")
    assert "à égalité, le sort touche" in plain(page.locator("details.trail table").inner_text())


def test_audit_log_table(served: Served, page: Page) -> None:
    base = served.url
    log_in(page, base, "alice")
    page.goto(f"{base}/duels/{served.scenario.duel_id}")
    table = page.locator("table.audit")
    headers = [h.inner_text().strip() for h in table.locator("th").all()]
    assert headers == ["Qui", "Quand", "Quoi", "Cible", "Avant → après"]
    published = table.locator("tr", has=page.locator("td.what[title='declaration.publish']"))
    first = [c.inner_text().strip() for c in published.first.locator("td").all()]
    assert plain(first[:4]) == [
        "forumbot",
        "30/11/2026 13:10 (CET)",
        "déclaration publiée",
        "Déclaration n° 1",
    ]
    assert "état : brouillon → publié" in plain(first[4])  # issue 25: French, no raw keys
    assets = table.inner_text()
    assert '{"status"' not in assets and "+00:00" not in assets
    assigned = table.locator("tr", has=page.locator("td.what[title='duel.assign_referee']"))
    assert assigned.locator("td.who").inner_text() == "alice"
