"""Pages put in front of the sandbox board (issue 22): a switch that makes the login URL (and
optionally every URL) answer a Cloudflare-style challenge, a host's 508, a 500, or a 200
maintenance page, for N requests or until it is turned off. Both flavours (phpBB 3.3 and
Forumactif) mix it in: :meth:`OutageSwitch.start_outage` / :meth:`OutageSwitch.end_outage`.

The challenge pages copy what Cloudflare serves (``Server: cloudflare``, a ``cf-ray`` header,
``cf-mitigated: challenge``, the « Just a moment... » / « Attention Required! » pages whose
script loads ``/cdn-cgi/challenge-platform/``); the 508 is the cPanel / LiteSpeed « Resource
Limit Is Reached » page. The maintenance page is the flavour's own: phpBB's board-disabled
message box in its layout (« Le forum est actuellement désactivé. »); on Forumactif a plain
host page without ``_userdata`` (no capture of a Forumactif outage page exists:
docs/forumactif.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from forumbot.sandbox.board_model import Request, Response

OUTAGE_KINDS = (
    "challenge403",
    "challenge503",
    "attention403",
    "limit508",
    "error500",
    "maintenance",
)
"""What :meth:`OutageSwitch.start_outage` can put in front of the board."""

_CF_HEADERS = [
    ("Server", "cloudflare"),
    ("cf-ray", "8f1c2b3a4d5e6f70-CDG"),
    ("cf-mitigated", "challenge"),
    ("Content-Type", "text/html; charset=UTF-8"),
]
_JUST_A_MOMENT = (
    '<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>'
    '<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>'
    '<div class="main-wrapper" role="main"><div class="main-content">'
    '<h1 class="zone-name-title h1">board.example</h1>'
    '<h2 class="h2" id="challenge-running">Checking your browser before accessing '
    "board.example.</h2><noscript>Enable JavaScript and cookies to continue</noscript>"
    "</div></div><script>window._cf_chl_opt={cvId: '3',cType: 'managed'};</script>"
    '<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8f1c2b3a4d5e6f70">'
    "</script></body></html>"
)
_ATTENTION = (
    '<!DOCTYPE html><html lang="en-US"><head><title>Attention Required! | Cloudflare</title>'
    "</head><body><div id=\"cf-wrapper\"><h1>Sorry, you have been blocked</h1>"
    "<h2>You are unable to access board.example</h2></div></body></html>"
)
_LIMIT_508 = (
    "<!DOCTYPE html><html><head><title>508 Resource Limit Is Reached</title></head><body>"
    "<h1>Resource Limit Is Reached</h1><p>The website is temporarily unable to service your "
    "request as it exceeded resource limit. Please try again later.</p><hr>"
    "<address>Proudly powered by LiteSpeed Web Server</address></body></html>"
)
_ERROR_500 = (
    "<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body>"
    "<h1>Internal Server Error</h1></body></html>"
)
HOST_MAINTENANCE = (
    "<!DOCTYPE html><html lang=\"fr\"><head><title>Maintenance en cours</title></head><body>"
    "<h1>Maintenance en cours</h1><p>Le site est en maintenance, revenez dans quelques "
    "minutes.</p></body></html>"
)
"""A host's own 200 maintenance page (no ``_userdata``, no board markup)."""


@dataclass
class OutagePlan:
    """The outage in force.

    Attributes:
        kind: one of :data:`OUTAGE_KINDS`.
        requests: answers still to give (None: until :meth:`OutageSwitch.end_outage`).
        every_url: every URL answers it, not only the login URL.
        retry_after_s: a ``Retry-After`` header (seconds) on each answer (None: none).
    """

    kind: str
    requests: int | None
    every_url: bool
    retry_after_s: int | None = None


class OutageSwitch:
    """Mixin of the sandbox boards: an outage in front of the board (module doc).

    Attributes:
        outage_served: answers the outage gave so far (all outages of this board).
        login_posts: login form submissions that reached the board (an outage answer is not
            one): how many times the bot sent its password.
    """

    _outage: OutagePlan | None = None
    outage_served: int = 0
    login_posts: int = 0
    _outage_lock = threading.Lock()

    def start_outage(
        self,
        kind: str = "challenge503",
        *,
        requests: int | None = None,
        every_url: bool = False,
        retry_after_s: int | None = None,
    ) -> None:
        """Put ``kind`` (:data:`OUTAGE_KINDS`) in front of the login URL (``every_url``: of
        every URL) for the next ``requests`` answers (None: until :meth:`end_outage`);
        ``retry_after_s``: each answer also says ``Retry-After: <seconds>`` (a host that
        asks to come back later, as a 503 or 429 may).

        Raises:
            ValueError: an unknown kind, or ``requests`` < 1.
        """
        if kind not in OUTAGE_KINDS:
            raise ValueError(f"unknown outage {kind!r}; one of {', '.join(OUTAGE_KINDS)}")
        if requests is not None and requests < 1:
            raise ValueError("requests must be at least 1 (or None: until end_outage)")
        with self._outage_lock:
            self._outage = OutagePlan(kind, requests, every_url, retry_after_s)

    def end_outage(self) -> None:
        """Take the outage away: the board answers again."""
        with self._outage_lock:
            self._outage = None

    @property
    def outage_active(self) -> bool:
        """True while an outage answers."""
        return self._outage is not None

    def _outage_answer(
        self, req: Request, is_login: bool, maintenance: Callable[[], Response]
    ) -> Response | None:
        """The outage's answer to ``req`` (counted), or None when the board answers it.
        ``maintenance`` builds the flavour's 200 maintenance page."""
        with self._outage_lock:
            plan = self._outage
            if plan is None or not (plan.every_url or is_login):
                if is_login and req.method == "POST":
                    self.login_posts += 1
                return None
            if plan.requests is not None:
                plan.requests -= 1
                if plan.requests <= 0:
                    self._outage = None
            self.outage_served += 1
        page = _page(plan.kind, maintenance)
        if plan.retry_after_s is not None:
            page.headers.append(("Retry-After", str(plan.retry_after_s)))
        return page


def _page(kind: str, maintenance: Callable[[], Response]) -> Response:
    if kind == "challenge403":
        return Response(403, _JUST_A_MOMENT, list(_CF_HEADERS))
    if kind == "challenge503":
        return Response(503, _JUST_A_MOMENT, list(_CF_HEADERS))
    if kind == "attention403":
        return Response(403, _ATTENTION, [h for h in _CF_HEADERS if h[0] != "cf-mitigated"])
    if kind == "limit508":
        return Response(508, _LIMIT_508, [("Content-Type", "text/html; charset=UTF-8")])
    if kind == "error500":
        return Response(500, _ERROR_500, [("Content-Type", "text/html; charset=UTF-8")])
    return maintenance()
