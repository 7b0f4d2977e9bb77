"""What every page of the review web app shares: the :class:`Deps` on ``app.state``, the
security headers, the page renderer (language, user, CSRF token, flashes), the login and CSRF
guards (:func:`page`, :func:`action`) and the error page."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette._utils import get_route_path
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from forumbot.i18n import N_
from forumbot.notify.settings import (
    NotifyConfig,
)
from forumbot.storage import Storage
from forumbot.web import auth, csrf
from forumbot.web.balance import BalanceCache
from forumbot.web.forum_account import MemberLookup
from forumbot.web.i18n import LANGUAGES, page_translator, pick_language
from forumbot.web.page_words import PageWords, guide_spell_text
from forumbot.web.sessions import DEFAULT_IDLE_S
from forumbot.web.users import (
    User,
    can_see_duel,
)

SESSION_COOKIE = "forumbot_session"
LANG_COOKIE = "lang"
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; "
        "object-src 'none'"
    ),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}
HSTS = "max-age=31536000"
"""``Strict-Transport-Security`` sent when ``web.https_only`` is set (one year; no
``includeSubDomains``: the board's other hosts are not ours to pin; issue 24 F3)."""

Publisher = Callable[[int], Any]
Handler = Callable[[Request, User, FormData], Awaitable[Response]]


@dataclass
class Deps:
    """What the endpoints share (stored on ``app.state.deps``)."""

    storage: Storage
    now: Callable[[], datetime]
    publisher: Publisher | None
    limiter: auth.LoginLimiter
    env: jinja2.Environment
    session_idle_s: float = DEFAULT_IDLE_S
    timezone: str = "Europe/Paris"
    notify: NotifyConfig = NotifyConfig()
    balance: BalanceCache = field(default_factory=BalanceCache)
    #: The board's member look-up for ``/me/notify`` (:mod:`forumbot.web.forum_account`);
    #: None: a new forum account is refused (« réessayez plus tard »).
    members: MemberLookup | None = None
    #: The page's language when the user chose none (``?lang=``): the club's.
    language: str = "fr"
    #: The club's name under ``forumbot web --boards`` (``""``: the one club of ``forumbot
    #: web``): a session records it, and one of another realm is anonymous here.
    realm: str = ""
    #: Where ``/`` and a login without ``next`` lead (under the app's prefix).
    home: str = "/drafts"
    #: True for the host's page of ``forumbot web --boards`` (its own menu).
    host_page: bool = False


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` (and ``no-store`` outside /static);
    with ``hsts=True`` (``web.https_only``) also ``Strict-Transport-Security`` (:data:`HSTS`)."""

    def __init__(self, app: ASGIApp, hsts: bool = False) -> None:
        self.app = app
        self.hsts = hsts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = get_route_path(scope).startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                extra = dict(SECURITY_HEADERS)
                if self.hsts:
                    extra["strict-transport-security"] = HSTS
                if not static:
                    extra["cache-control"] = "no-store"
                for name, value in extra.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def deps_of(request: Request) -> Deps:
    deps: Deps = request.app.state.deps
    return deps


def language_of(request: Request) -> str:
    return pick_language(
        request.query_params.get("lang"),
        request.cookies.get(LANG_COOKIE),
        deps_of(request).language,
    )


def flash(request: Request, kind: str, text: str, *args: object) -> None:
    items = list(request.session.get("flash", []))
    items.append([kind, text, [str(a) for a in args]])
    request.session["flash"] = items[-5:]


def root_of(request: Request) -> str:
    """The prefix this app is served under: ``""`` for ``forumbot web`` (one club), e.g.
    ``"/c/dumbledore"`` or ``"/host"`` under ``forumbot web --boards`` (the ASGI
    ``root_path`` the host dispatcher sets, :mod:`forumbot.web.host`)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def here(request: Request, path: str) -> str:
    """``path`` (``"/drafts"``) under this app's prefix (:func:`root_of`)."""
    return root_of(request) + path


def redirect(request: Request, path: str) -> RedirectResponse:
    """303 to ``path`` (``"/drafts/3"``) under this app's prefix (:func:`here`)."""
    return RedirectResponse(here(request, path), status_code=303)


def site_path(path: str) -> str:
    """``path`` as a path on this site: leading slashes and backslashes collapse to one
    ``/``, so ``//evil.example/x`` (a link to another host) becomes ``/evil.example/x``."""
    return "/" + path.lstrip("/\\")


def local_path(raw: object, default: str) -> str:
    """``raw`` when it is a path on this site (no scheme, no host), else ``default``."""
    if isinstance(raw, str) and raw.startswith("/") and not raw.startswith(("//", "/\\")):
        return raw
    return default


def render(
    request: Request,
    template: str,
    context: Mapping[str, Any] | None = None,
    status_code: int = 200,
    user: User | None = None,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """Render ``template`` with the common context (language, user, CSRF token, flashes)."""
    deps = deps_of(request)
    language = language_of(request)
    _ = page_translator(language)
    flashes = [(k, _(t, *a)) for k, t, a in request.session.pop("flash", [])]
    other = "en" if language == "fr" else "fr"
    query = dict(request.query_params)
    query["lang"] = other
    page = deps.env.get_template(template).render(
        {
            "_": _,
            "w": PageWords(language, deps.timezone, _, guide_spell_text),
            "lang": language,
            "other_lang": other,
            "other_lang_url": f"{site_path(request.url.path)}?{urlencode(query)}",
            "user": user,
            "csrf_token": csrf.session_token(request.session),
            "csrf_field": csrf.FIELD,
            "flashes": flashes,
            "request_path": site_path(request.url.path),
            "root": root_of(request),
            "host_page": deps.host_page,
            **(context or {}),
        }
    )
    response = HTMLResponse(page, status_code=status_code, headers=dict(headers or {}))
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie(
            LANG_COOKIE, language, max_age=365 * 86400, httponly=True, samesite="lax"
        )
    return response


def error_page(
    request: Request, status: int, text: str, user: User | None, *args: object
) -> Response:
    _ = page_translator(language_of(request))
    return render(request, "error.html", {"message": _(text, *args)}, status, user)


def current_user(request: Request) -> User | None:
    """The logged-in account of this request (:func:`forumbot.web.auth.current_user`)."""
    deps = deps_of(request)
    return auth.current_user(
        deps.storage, request.session, deps.now(), deps.session_idle_s, deps.realm
    )


def login_redirect(request: Request) -> RedirectResponse:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return redirect(request, "/login?" + urlencode({"next": target}))


def page(
    fn: Callable[[Request, User], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """A GET page for logged-in users (others are sent to /login with 303)."""

    async def endpoint(request: Request) -> Response:
        user = current_user(request)
        if user is None:
            return login_redirect(request)
        return await fn(request, user)

    endpoint.__name__ = fn.__name__
    endpoint.__doc__ = fn.__doc__
    return endpoint


def action(*, admin: bool = False) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """A state-changing POST: needs a login (else 303 to /login), the session's CSRF token
    (else 403) and, with ``admin=True``, the admin role (else 403)."""

    def wrap(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            user = current_user(request)
            if user is None:
                return redirect(request, "/login")
            form = await request.form()
            if not csrf.is_valid(request.session, form.get(csrf.FIELD)):
                return error_page(
                    request, 403, "Invalid form token: reload the page.", user
                )
            if admin and not user.is_admin:
                return error_page(request, 403, "Admins only.", user)
            return await fn(request, user, form)

        endpoint.__name__ = fn.__name__
        endpoint.__doc__ = fn.__doc__
        return endpoint

    return wrap


def visible_decl(request: Request, user: User) -> dict[str, Any]:
    """The declaration in the path, when ``user`` may see its duel (else 404)."""
    storage = deps_of(request).storage
    try:
        decl = storage.declaration(int(request.path_params["decl_id"]))
    except Exception as exc:
        raise HTTPException(404) from exc
    if not can_see_duel(storage, user, int(decl["duel_id"])):
        raise HTTPException(404)
    return decl


def form_version(form: FormData) -> int:
    try:
        return int(str(form.get("version", "")))
    except ValueError as exc:
        raise HTTPException(400, "missing draft version") from exc


async def http_error(request: Request, exc: Exception) -> Response:
    """Render HTTP errors as a page in the user's language."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    user = None
    if "session" in request.scope:
        user = current_user(request)
    texts = {403: N_("Access denied."), 404: N_("Page not found.")}
    detail = exc.detail if isinstance(exc, HTTPException) else ""
    if status in texts:
        return error_page(request, status, texts[status], user)
    return error_page(request, status, "%s", user, detail)


__all__ = [
    "Deps",
    "Handler",
    "LANG_COOKIE",
    "Publisher",
    "SECURITY_HEADERS",
    "SESSION_COOKIE",
    "SecurityHeaders",
    "action",
    "current_user",
    "deps_of",
    "error_page",
    "flash",
    "form_version",
    "http_error",
    "language_of",
    "local_path",
    "login_redirect",
    "page",
    "redirect",
    "render",
    "root_of",
    "here",
    "site_path",
    "visible_decl",
]
