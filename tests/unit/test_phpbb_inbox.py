"""PhpbbClient.read_pm_inbox on the captured phpBB 3.3.15 pages (respx): the inbox folder
(``pm_inbox_recipient``, ``pm_inbox_after_reply``), each new message's page
(``pm_view_message``), ids already read skipped without a request; and forumbot.club.inbox reading
through it (an owl from a duellist of a running 2v2 becomes one referee task)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import respx

from forumbot.club.inbox import inbox_rows
from forumbot.forums.phpbb import PhpbbClient

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
BASE = "http://127.0.0.1:8080"


VIEWER_RE = re.compile(
    rb'(id="username_logged_in".*?<span class="username(?:-coloured)?"[^>]*>)[^<]*(</span>)', re.S
)


def as_viewer(content: bytes, viewer: str | None) -> bytes:
    """``content`` with the header's logged-in user name replaced by ``viewer`` (the captured
    pages were served to several accounts; the client only trusts pages showing its own)."""
    if viewer is None:
        return content
    return VIEWER_RE.sub(lambda m: m.group(1) + viewer.encode() + m.group(2), content, count=1)


def page(name: str, viewer: str = "Cassius Thorne") -> httpx.Response:
    return httpx.Response(
        200,
        headers={"Content-Type": "text/html; charset=UTF-8"},
        content=as_viewer((FIX / f"{name}.html").read_bytes(), viewer),
    )


def client() -> PhpbbClient:
    return PhpbbClient(BASE, "Cassius Thorne", "secret", sleep=lambda s: None, max_retries=0)


@respx.mock
def test_read_pm_inbox_lists_and_reads_each_new_message() -> None:
    inbox = respx.get(f"{BASE}/ucp.php", params__contains={"i": "pm", "folder": "inbox"}).mock(
        return_value=page("pm_inbox_recipient")
    )
    view = respx.get(f"{BASE}/ucp.php", params__contains={"mode": "view", "p": "1"}).mock(
        return_value=page("pm_view_message")
    )
    c = client()
    (msg,) = c.read_pm_inbox()
    assert msg[:3] == (1, "Aurora Vexley", "Bravo pour le phénix")
    assert msg[3].splitlines() == [
        "Salut Cassius,",
        "ton Souffle du phénix m'a vraiment surprise.",
        "Revanche au duel n°3 ?",
    ]
    assert inbox.call_count == 1 and view.call_count == 1
    # a message already handled is listed without reading its page again
    assert c.read_pm_inbox(skip={1}) == [(1, "Aurora Vexley", "Bravo pour le phénix", "")]
    assert inbox.call_count == 2 and view.call_count == 1


@respx.mock
def test_read_pm_inbox_of_another_account_and_through_forumbot_inbox() -> None:
    respx.get(f"{BASE}/ucp.php", params__contains={"folder": "inbox"}).mock(
        return_value=page("pm_inbox_after_reply")
    )
    view = respx.get(f"{BASE}/ucp.php", params__contains={"mode": "view", "p": "2"}).mock(
        return_value=page("pm_view_message")
    )
    rows = inbox_rows(client())
    assert [(m, who, subject) for m, who, subject, _ in rows] == [
        (2, "Cassius Thorne", "Re: Bravo pour le phénix")
    ]
    assert rows[0][3]().startswith("Salut Cassius,") and view.call_count == 1
    assert inbox_rows(client(), {2})[0][3]() == "" and view.call_count == 1
