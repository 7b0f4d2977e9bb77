"""``GET /verification``: how players check the referee's dice (public, no login;
:mod:`forumbot.web.verification`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from forumbot.web.routes.common import current_user, render
from forumbot.web.verification import verification_html


async def verification_page(request: Request) -> Response:
    """docs/verification.md as a page, in French, for anyone (players have no account)."""
    return render(
        request, "verification.html", {"body": verification_html()}, user=current_user(request)
    )


__all__ = ["verification_page"]
