"""The review web page (Starlette): routes, sessions, CSRF, security headers.

Routes (every POST needs a logged-in session and the session's CSRF token, except ``/login``
which needs the token only; the user always comes from the session):

====== =================================== ==============================================
GET    /                                   redirect to the draft queue
GET    /login, POST /login                 log in (5 failures / 15 min / user+IP, then 429)
POST   /logout                             log out
GET    /drafts                             the queue of pending declarations
GET    /drafts/{id}                        one declaration
POST   /drafts/{id}/text                   edit the text          (overrides.edit_text)
POST   /drafts/{id}/numbers                set a computed number  (overrides.set_numbers)
POST   /drafts/{id}/violation              waive / restore        (overrides.set_violation)
POST   /drafts/{id}/status                 hold / back to draft / approve (overrides.set_status)
POST   /drafts/{id}/publish                approve, then ``publisher(id)`` when given
POST   /drafts/{id}/drop                   drop (reason; a turn is drafted again unless unticked)
GET    /duels, GET /duels/{id}             duels; turns, points chart, dice audit, audit log
POST   /duels/{id}/referees                admin: assign / remove a referee
GET    /violations, GET /violations.csv    filter by duel, duellist, rule, status; CSV export
POST   /violations/{id}/decide             admin: confirm / dismiss with a reason
GET    /tasks                              2v2 referee tasks (owls asking details, mechanisms)
POST   /tasks/{id}/close                   done / solved / failed, with a note (audit-logged)
POST   /drafts/{id}/take                   « je m'en occupe »: pause the auto-publication
POST   /drafts/{id}/release                give a taken draft back (the taker or an admin)
GET    /me/notify, POST /me/notify         my notice channels, forum account, quiet hours
GET    /me/password, POST /me/password     my password (the current one checked, then every
                                           session of the account ends)
GET    /balance, GET /balance/{ruleset}    admin: win-rate heatmaps of the shipped rulesets
GET    /verification                       public: how players check the dice (French)
====== =================================== ==============================================

The routes live in :mod:`forumbot.web.routes` (one module per area); this module builds
the app. The paths above are relative to the app's prefix: none for ``forumbot web``,
``/c/<club>`` under ``forumbot web --boards`` (:mod:`forumbot.web.host`), where every link
and redirect carries it (:func:`forumbot.web.routes.common.here`). An unknown draft, duel,
violation or task id is 404 on every route.

Every draft form carries the draft's ``version``; a stale one (the draft changed or was
published meanwhile) gets HTTP 409 and a clear message. Referees see only the duels assigned
to them (404 otherwise); admins see everything.

Storage is used from the event-loop thread only (sqlite connections are per thread): every
endpoint is ``async`` and does its short database work inline.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from forumbot.notify.settings import NotifyConfig
from forumbot.storage import Storage
from forumbot.web import auth
from forumbot.web.forum_account import MemberLookup
from forumbot.web.i18n import DEFAULT_LANGUAGE
from forumbot.web.preview import preview_html
from forumbot.web.routes.balance import balance_index, balance_page
from forumbot.web.routes.common import (
    SECURITY_HEADERS,
    SESSION_COOKIE,
    Deps,
    Publisher,
    SecurityHeaders,
    http_error,
)
from forumbot.web.routes.drafts import (
    draft_drop,
    draft_numbers,
    draft_page,
    draft_publish,
    draft_release,
    draft_status,
    draft_take,
    draft_text,
    draft_violation,
    queue,
)
from forumbot.web.routes.duels import duel_page, duel_referees, duels_page
from forumbot.web.routes.login import home, login_page, login_submit, logout
from forumbot.web.routes.notify import notify_page, notify_save
from forumbot.web.routes.password import password_page, password_save
from forumbot.web.routes.tasks import task_close, tasks_page
from forumbot.web.routes.verification import verification_page
from forumbot.web.routes.violations import violation_decide, violations_csv, violations_page
from forumbot.web.sessions import DEFAULT_IDLE_S
from forumbot.web.verification import PATH as VERIFICATION_PATH

HERE = Path(__file__).parent
UNIX_PEER = "unix"  # the web.trusted_proxies entry naming the Unix socket's peer


class UnixPeer:
    """ASGI middleware: a request that came through a Unix socket (uvicorn gives it no
    ``client``) gets the client ``("unix", 0)``, so ``trusted_proxies = ["unix"]`` names the
    socket's peer (the proxy) exactly; only installed when that entry is configured."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and not scope.get("client"):
            scope = {**scope, "client": (UNIX_PEER, 0)}
        await self.app(scope, receive, send)


def _utc_now() -> datetime:
    return datetime.now(UTC)


def page_env(notify: NotifyConfig | None = None) -> jinja2.Environment:
    """The templates of the review page (autoescaped, undefined names are errors) with the
    ``json``, ``preview`` and ``local`` filters (times in ``notify``'s timezone)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["json"] = lambda v: json.dumps(v, ensure_ascii=False, default=str)
    env.filters["preview"] = preview_html  # a draft as phpBB shows it (forumbot.web.preview)
    tz = (notify or NotifyConfig()).tz
    env.filters["local"] = lambda ts: (
        datetime.fromisoformat(ts).astimezone(tz).strftime("%d/%m %H:%M") if ts else ""
    )
    return env


def starlette_app(
    routes: Sequence[BaseRoute],
    *,
    secret_key: str,
    https_only: bool,
    trusted_proxies: Sequence[str],
    session_max_age_s: int,
    cookie_path: str = "/",
) -> Starlette:
    """The Starlette app around ``routes`` with the review page's middleware: the Unix-socket
    peer and proxy headers (``trusted_proxies`` only), the security headers (HSTS with
    ``https_only``), the signed session cookie (``SameSite=Lax``, HttpOnly, ``Secure`` with
    ``https_only``, lifetime ``session_max_age_s`` seconds, sent under ``cookie_path`` only)
    and the error pages. The caller sets ``app.state.deps``."""
    return Starlette(
        routes=list(routes),
        middleware=[
            *([Middleware(UnixPeer)] if UNIX_PEER in trusted_proxies else []),
            *(
                [Middleware(ProxyHeadersMiddleware, trusted_hosts=list(trusted_proxies))]
                if trusted_proxies
                else []
            ),
            Middleware(SecurityHeaders, hsts=https_only),
            Middleware(
                SessionMiddleware,
                secret_key=secret_key,
                session_cookie=SESSION_COOKIE,
                max_age=session_max_age_s,
                path=cookie_path,
                same_site="lax",
                https_only=https_only,
            ),
        ],
        exception_handlers={HTTPException: http_error},
    )


def create_app(
    storage: Storage,
    *,
    secret_key: str,
    publisher: Publisher | None = None,
    now: Callable[[], datetime] = _utc_now,
    https_only: bool = False,
    session_max_age_s: int = 12 * 3600,
    session_idle_s: int = DEFAULT_IDLE_S,
    max_login_failures: int = 5,
    login_window_s: int = 900,
    max_ip_login_failures: int = 20,
    max_global_login_failures: int = 200,
    trusted_proxies: Sequence[str] = (),
    timezone: str = "Europe/Paris",
    notify: NotifyConfig | None = None,
    members: MemberLookup | None = None,
    language: str = DEFAULT_LANGUAGE,
    realm: str = "",
    limiter: auth.LoginLimiter | None = None,
) -> Starlette:
    """The review web app.

    Args:
        storage: the bot's database (used from the event-loop thread only).
        secret_key: signs the session cookie (at least 32 characters; keep it secret).
        publisher: ``publisher(declaration_id)`` publishes one approved declaration at once
            ("publish now"); without it, approved drafts go out at the bot's next pass.
        now: clock (aware UTC datetime).
        https_only: mark the session cookie ``Secure`` and send ``Strict-Transport-Security``
            (when served over HTTPS).
        session_max_age_s: lifetime of the session cookie in seconds (renewed by every
            response, so it counts from the last request).
        session_idle_s: a session whose record saw no request for this many seconds ends
            (server-side, whatever the cookie says); see :mod:`forumbot.web.sessions`.
        max_login_failures, login_window_s, max_ip_login_failures,
            max_global_login_failures: the login rate limit (per username and address,
            per address, in all; :class:`forumbot.web.auth.LoginLimiter`).
        trusted_proxies: addresses or networks of the reverse proxies whose
            ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (``web.trusted_proxies``;
            ``"unix"``: the peer of the Unix socket the app is served on, :class:`UnixPeer`);
            empty: none, the client is the TCP peer, whatever headers it sends.
        timezone: the board's timezone (IANA name): times on the page are shown in it.
        notify: the ``[notify]`` settings (claim limit, timezone, Apprise URLs; issue 18).
        members: the board's member look-up (the forum client's ``member_spelling``): a new
            forum account on ``/me/notify`` must be a member (issue 24 F11); None refuses
            every new forum account (:mod:`forumbot.web.forum_account`).
        language: the page's language when the user has not chosen one (``?lang=``):
            ``"fr"`` or ``"en"``; ``forumbot web`` passes the club's ``board.language``
            (:func:`forumbot.i18n.staff_language`).
        realm: the club's name when one process serves many clubs (``forumbot web --boards``,
            :mod:`forumbot.web.host`): the app is then mounted under ``/c/<realm>``, its
            session cookie is scoped to that path and records the realm, and a session of
            another realm is anonymous here. ``""``: the one club of ``forumbot web``.
        limiter: the login rate limit to count in (the host shares one among its clubs, so
            an address has its 20 guesses in all, not per club); None: a new one from the
            ``max_*`` arguments.

    Raises:
        ValueError: when ``secret_key`` is shorter than 32 characters.
    """
    if len(secret_key) < 32:
        raise ValueError("secret_key must have at least 32 characters")
    storage.web_rows.migrate()
    notify_cfg = notify or NotifyConfig()
    env = page_env(notify_cfg)
    routes = [
        Route("/", home),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/drafts", queue),
        Route("/drafts/{decl_id:int}", draft_page),
        Route("/drafts/{decl_id:int}/text", draft_text, methods=["POST"]),
        Route("/drafts/{decl_id:int}/numbers", draft_numbers, methods=["POST"]),
        Route("/drafts/{decl_id:int}/violation", draft_violation, methods=["POST"]),
        Route("/drafts/{decl_id:int}/status", draft_status, methods=["POST"]),
        Route("/drafts/{decl_id:int}/publish", draft_publish, methods=["POST"]),
        Route("/drafts/{decl_id:int}/drop", draft_drop, methods=["POST"]),
        Route("/duels", duels_page),
        Route("/duels/{duel_id:int}", duel_page),
        Route("/duels/{duel_id:int}/referees", duel_referees, methods=["POST"]),
        Route("/violations", violations_page),
        Route("/violations.csv", violations_csv),
        Route("/violations/{violation_id:int}/decide", violation_decide, methods=["POST"]),
        Route("/tasks", tasks_page),
        Route("/tasks/{task_id:int}/close", task_close, methods=["POST"]),
        Route("/drafts/{decl_id:int}/take", draft_take, methods=["POST"]),
        Route("/drafts/{decl_id:int}/release", draft_release, methods=["POST"]),
        Route("/me/notify", notify_page, methods=["GET"]),
        Route("/me/notify", notify_save, methods=["POST"]),
        Route("/me/password", password_page, methods=["GET"]),
        Route("/me/password", password_save, methods=["POST"]),
        Route("/balance", balance_index),
        Route("/balance/{ruleset}", balance_page),
        Route(VERIFICATION_PATH, verification_page),  # public: the players' page (no login)
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = starlette_app(
        routes,
        secret_key=secret_key,
        https_only=https_only,
        trusted_proxies=trusted_proxies,
        session_max_age_s=session_max_age_s,
        cookie_path=f"/c/{realm}" if realm else "/",
    )
    app.state.deps = Deps(
        storage=storage,
        now=now,
        publisher=publisher,
        limiter=limiter
        or auth.LoginLimiter(
            now,
            max_login_failures,
            login_window_s,
            max_ip_failures=max_ip_login_failures,
            max_global_failures=max_global_login_failures,
        ),
        env=env,
        session_idle_s=session_idle_s,
        timezone=timezone,
        notify=notify_cfg,
        members=members,
        language=language,
        realm=realm,
    )
    return app


def new_secret_key() -> str:
    """A fresh random session key (64 hex characters)."""
    return secrets.token_hex(32)


__all__ = ["SECURITY_HEADERS", "create_app", "new_secret_key", "page_env", "starlette_app"]
