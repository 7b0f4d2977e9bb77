"""Issue 18 in a real headless Chromium: a referee takes a draft (« Je m'en occupe »), it does
not publish when its delay ends; releases it; takes it again and approves it: it goes out.
Fixtures (uvicorn on 127.0.0.1, Playwright + /usr/bin/chromium) come from test_web_browser."""

from __future__ import annotations

import pytest

from forumbot.duels.publication import publish_due
from forumbot.publish.typography import plain
from forumbot.storage import open_storage
from tests.e2e.test_web_browser import Page, Served, log_in, page, served  # noqa: F401

pytestmark = pytest.mark.e2e


def test_take_release_approve(served: Served, page: Page) -> None:  # noqa: F811
    base = served.url
    draft_id = served.scenario.draft_id
    log_in(page, base, "rita")
    card = page.locator(f"#draft-{draft_id}")
    card.locator("button.take").click()
    page.wait_for_url(f"{base}/drafts/{draft_id}")
    assert plain(page.locator(".flash.ok").inner_text()) == "Pris : il attend votre décision."
    assert page.locator(".claimed-by").inner_text().startswith("Pris par rita le ")
    assert "attend la décision de rita" in page.locator(".countdown").inner_text()

    check = open_storage(served.db_path)
    try:
        served.scenario.clock.advance(3600)  # the 10-minute review delay is long over
        assert publish_due(check, served.scenario.forum, served.scenario.clock) == []
        assert check.declaration(draft_id)["status"] == "draft"

        page.reload()
        page.locator("button.release").click()
        page.wait_for_url(f"{base}/drafts/{draft_id}")
        assert page.locator(".flash.ok").inner_text() == "Libéré."
        assert page.locator(".claimed-by").count() == 0
        assert check.declaration(draft_id)["claimed_by"] is None

        page.locator("button.take").click()
        page.wait_for_url(f"{base}/drafts/{draft_id}")
        page.locator("footer.actions form:has(input[value=approved]) button").click()
        page.wait_for_url(f"{base}/drafts/{draft_id}")
        assert check.declaration(draft_id)["status"] == "approved"
        assert len(publish_due(check, served.scenario.forum, served.scenario.clock)) == 1
        assert check.declaration(draft_id)["status"] == "published"
        actions = [a["action"] for a in check.audit_entries(f"declaration:{draft_id}")]
        assert actions[-5:] == [
            "draft.take",
            "draft.release",
            "draft.take",
            "draft.approved",
            "declaration.publish",
        ]
    finally:
        check.close()
