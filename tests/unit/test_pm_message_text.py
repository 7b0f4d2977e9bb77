"""Issue 23 (soak speed): the PM text reader works on lxml and reads what BeautifulSoup's
``get_text`` read (the oracle below is the former implementation), on the captured phpBB
pages, the sandbox's PM pages and odd markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from forumbot.sandbox.bbcode import render_bbcode
from parsers.pm_text import parse_pm_message_text

FIX = Path("/work/shared/fixtures/phpbb")
CAPTURES = sorted(FIX.glob("pm_*.html")) + sorted(FIX.glob("*unread_pm*.html"))


def by_soup(html: str | bytes) -> str | None:
    """The former reader (BeautifulSoup, ``div.postbody div.content``)."""
    node = BeautifulSoup(html, "lxml").select_one("div.postbody div.content")
    if node is None:
        return None
    for br in node.find_all("br"):
        br.replace_with("\n")
    return str(node.get_text()).replace("\n\n", "\n").strip()


def pm_page(content: str) -> str:
    return (
        "<!DOCTYPE html><html><body class='section-ucp'><div id='wrap'>"
        "<div class='panel'><div class='postbody'><h3>Sujet</h3>"
        f"<div class='content'>{content}</div></div></div></div></body></html>"
    )


@pytest.mark.skipif(not CAPTURES, reason="no captured PM pages")
@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_captured_pages_read_as_before(path: Path) -> None:
    data = path.read_bytes()
    assert parse_pm_message_text(data) == by_soup(data)


@pytest.mark.parametrize(
    "content",
    [
        "Salut,<br>\nligne deux<br>\n<br>\nfin",
        "<strong class='text-strong'>gras</strong> et <em>italique</em><br>suite",
        "texte <!-- un commentaire --> après",
        "avant<script>var x = 1;</script>après<style>p {}</style>!",
        "&eacute;l&egrave;ve &amp; ma&icirc;tre &lt;b&gt; forumbot·owl17·",
        "<blockquote><div>citée<br>deux</div></blockquote>réponse",
        "<div class='content'>imbriqué</div> dehors",
        "   espaces   <br>   ",
        "",
    ],
)
def test_odd_markup_reads_as_before(content: str) -> None:
    page = pm_page(content)
    assert parse_pm_message_text(page) == by_soup(page)
    assert parse_pm_message_text(page.encode("utf-8")) == by_soup(page.encode("utf-8"))


def test_sandbox_bbcode_reads_as_before() -> None:
    text = "[b]Hibou[/b] : ton duel n°3\n[quote=Nerys]ancien[/quote]\n[url=http://x.invalid/a]lien[/url]"
    page = pm_page(render_bbcode(text))
    assert parse_pm_message_text(page) == by_soup(page)


def test_a_page_without_message_gives_none() -> None:
    assert parse_pm_message_text("<html><body><p>rien</p></body></html>") is None
    assert parse_pm_message_text(b"") is None
    assert by_soup("<html><body><p>rien</p></body></html>") is None
