"""The players' verification page on the review page (issue 25): docs/verification.md rendered
to HTML at a public URL, the posts' default link to it when the review page's public address is
set, and words that say how to verify when there is no link at all."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from forumbot.config import VERIFICATION_PATH, Config, load_config
from forumbot.publish.checks import colon_problems, french_problems, typography_problems
from forumbot.publish.render import VERIFICATION_TOOL, VERIFICATION_UNLINKED, make_environment
from forumbot.storage import open_storage
from forumbot.web import create_app
from forumbot.web.verification import SOURCE, verification_html

pytestmark = pytest.mark.anyio
REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 12, 2, 7, 0, tzinfo=UTC)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(open_storage(":memory:"), secret_key="s" * 48, now=lambda: NOW)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        yield c


def test_the_page_is_docs_verification_md() -> None:
    assert SOURCE.read_text(encoding="utf-8") == (REPO / "docs" / "verification.md").read_text(
        encoding="utf-8"
    )
    html = verification_html()
    assert html.startswith("<h1>Vérifier les dés de l'arbitre</h1>")
    assert "<h2>Vérifier</h2>" in html
    assert "<pre><code>pip install .\nforumbot verify-dice &quot;https://" in html  # fenced code
    assert "**" not in html and "\n## " not in html  # no Markdown left
    assert "(«\u202fgraine révélée\u00a0: …" in html  # French typography on the prose
    assert "<code>club.verify_docs_url</code>" in html


async def test_the_page_is_public_and_french(client: httpx.AsyncClient) -> None:
    page = await client.get(VERIFICATION_PATH)  # no login
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<article class="verification" lang="fr">' in page.text
    assert "<h1>Vérifier les dés de l'arbitre</h1>" in page.text
    assert "<title>Vérifier les dés de l'arbitre</title>" in page.text
    drafts = await client.get("/drafts", follow_redirects=False)
    assert drafts.status_code in (302, 303) and "/login" in drafts.headers["location"]


def _config(tmp_path: Path, club: str = "", notify: str = "") -> Config:
    path = tmp_path / "forumbot.toml"
    path.write_text(
        '[board]\nurl = "http://127.0.0.1:9"\n[bot]\nusername = "Hibou"\n'
        f"[club]\n{club}\n[notify]\n{notify}\n",
        encoding="utf-8",
    )
    path.chmod(0o600)
    return load_config(path)


def test_the_default_link_is_the_review_pages_copy(tmp_path: Path) -> None:
    review = 'review_url = "https://arbitres.monforum.example/"'
    assert _config(tmp_path, notify=review).verification_url == (
        "https://arbitres.monforum.example/verification"
    )
    own = 'verify_docs_url = "https://club.example/verifier"'
    assert _config(tmp_path, club=own, notify=review).verification_url == (
        "https://club.example/verifier"
    )  # the club's own page wins
    assert _config(tmp_path).verification_url == ""
    assert _config(tmp_path, notify='review_url = "/relecture"').verification_url == ""


def test_without_any_link_the_post_says_how_to_verify() -> None:
    sentence = (
        "Son empreinte était publiée à l'ouverture (ab12), et chacun peut recalculer tous les "
        "dés du duel à partir de cette graine avec {{ verification_tool() }}."
    )
    template = make_environment("fr").from_string(sentence)
    unlinked = template.render()
    assert unlinked.endswith(
        f"{VERIFICATION_TOOL}, qui relit ce sujet et refait chaque tirage (demandez le lien "
        "à l'arbitre)."
    )
    assert VERIFICATION_UNLINKED in unlinked and "[url" not in unlinked
    assert "verify-dice" not in unlinked and "forumbot" not in unlinked
    for check in (french_problems, colon_problems, typography_problems):
        assert check(unlinked) == [], check.__name__
    linked = template.render(verify_docs_url="https://arbitres.monforum.example/verification")
    assert re.search(r"\[url=https://arbitres\.monforum\.example/verification\]l'outil de "
                     r"vérification du club\[/url\]\.$", linked)  # fmt: skip
    assert VERIFICATION_UNLINKED not in linked


def test_the_running_bot_links_the_default(tmp_path: Path) -> None:
    from forumbot.app import bootstrap

    config = _config(tmp_path, notify='review_url = "https://arbitres.monforum.example"')
    bot = bootstrap(config, password="unused", storage=open_storage(":memory:"))
    assert bot.referee.verify_docs_url == "https://arbitres.monforum.example/verification"
