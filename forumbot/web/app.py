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
GET    /duels, GET /duels/{id}             duels; turns, points chart, dice audit, audit log
POST   /duels/{id}/referees                admin: assign / remove a referee
GET    /violations, GET /violations.csv    filter by duel, duellist, rule, status; CSV export
POST   /violations/{id}/decide             admin: confirm / dismiss with a reason
GET    /tasks                              2v2 referee tasks (owls asking details, mechanisms)
POST   /tasks/{id}/close                   done / solved / failed, with a note (audit-logged)
POST   /drafts/{id}/take                   « je m'en occupe »: pause the auto-publication
POST   /drafts/{id}/release                give a taken draft back (the taker or an admin)
GET    /me/notify, POST /me/notify         my notice channels, forum account, quiet hours
====== =================================== ==============================================

Every draft form carries the draft's ``version``; a stale one (the draft changed or was
published meanwhile) gets HTTP 409 and a clear message. Referees see only the duels assigned
to them (404 otherwise); admins see everything.

Storage is used from the event-loop thread only (sqlite connections are per thread): every
endpoint is ``async`` and does its short database work inline.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.applications import Starlette
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from forumbot.duels import overrides
from forumbot.notify import claims
from forumbot.notify.settings import (
    NotifyConfig,
    NotifyConfigError,
    person_settings,
    set_person_settings,
)
from forumbot.storage import Storage
from forumbot.web import auth, csrf, judging, tasks, views
from forumbot.web.chart import points_chart
from forumbot.web.i18n import LANGUAGES, pick_language, translator
from forumbot.web.sessions import DEFAULT_IDLE_S
from forumbot.web.users import (
    User,
    UserError,
    assign_referee,
    authenticate_in_thread,
    can_see_duel,
    list_users,
    unassign_referee,
    visible_duel_ids,
)
from forumbot.web.words import Words

HERE = Path(__file__).parent
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

Publisher = Callable[[int], Any]
Handler = Callable[[Request, User, FormData], Awaitable[Response]]


def _utc_now() -> datetime:
    return datetime.now(UTC)


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


class SecurityHeaders:
    """ASGI middleware adding :data:`SECURITY_HEADERS` (and ``no-store`` outside /static)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/static/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                extra = dict(SECURITY_HEADERS)
                if not static:
                    extra["cache-control"] = "no-store"
                for name, value in extra.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


# -- helpers ------------------------------------------------------------------------------
def _deps(request: Request) -> Deps:
    deps: Deps = request.app.state.deps
    return deps


def _language(request: Request) -> str:
    return pick_language(request.query_params.get("lang"), request.cookies.get(LANG_COOKIE))


def _flash(request: Request, kind: str, text: str, *args: object) -> None:
    items = list(request.session.get("flash", []))
    items.append([kind, text, [str(a) for a in args]])
    request.session["flash"] = items[-5:]


def _site_path(path: str) -> str:
    """``path`` as a path on this site: leading slashes and backslashes collapse to one
    ``/``, so ``//evil.example/x`` (a link to another host) becomes ``/evil.example/x``."""
    return "/" + path.lstrip("/\\")


def _local_path(raw: object, default: str) -> str:
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
    deps = _deps(request)
    language = _language(request)
    _ = translator(language)
    flashes = [(k, _(t, *a)) for k, t, a in request.session.pop("flash", [])]
    other = "en" if language == "fr" else "fr"
    query = dict(request.query_params)
    query["lang"] = other
    page = deps.env.get_template(template).render(
        {
            "_": _,
            "w": Words(language, deps.timezone, _),
            "lang": language,
            "other_lang": other,
            "other_lang_url": f"{_site_path(request.url.path)}?{urlencode(query)}",
            "user": user,
            "csrf_token": csrf.session_token(request.session),
            "csrf_field": csrf.FIELD,
            "flashes": flashes,
            "request_path": _site_path(request.url.path),
            **(context or {}),
        }
    )
    response = HTMLResponse(page, status_code=status_code, headers=dict(headers or {}))
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie(
            LANG_COOKIE, language, max_age=365 * 86400, httponly=True, samesite="lax"
        )
    return response


def _error(request: Request, status: int, text: str, user: User | None, *args: object) -> Response:
    _ = translator(_language(request))
    return render(request, "error.html", {"message": _(text, *args)}, status, user)


def _current_user(request: Request) -> User | None:
    """The logged-in account of this request (:func:`forumbot.web.auth.current_user`)."""
    deps = _deps(request)
    return auth.current_user(deps.storage, request.session, deps.now(), deps.session_idle_s)


def _login_redirect(request: Request) -> RedirectResponse:
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse("/login?" + urlencode({"next": target}), status_code=303)


def page(
    fn: Callable[[Request, User], Awaitable[Response]],
) -> Callable[[Request], Awaitable[Response]]:
    """A GET page for logged-in users (others are sent to /login with 303)."""

    async def endpoint(request: Request) -> Response:
        user = _current_user(request)
        if user is None:
            return _login_redirect(request)
        return await fn(request, user)

    endpoint.__name__ = fn.__name__
    endpoint.__doc__ = fn.__doc__
    return endpoint


def action(*, admin: bool = False) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """A state-changing POST: needs a login (else 303 to /login), the session's CSRF token
    (else 403) and, with ``admin=True``, the admin role (else 403)."""

    def wrap(fn: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            user = _current_user(request)
            if user is None:
                return RedirectResponse("/login", status_code=303)
            form = await request.form()
            if not csrf.is_valid(request.session, form.get(csrf.FIELD)):
                return _error(
                    request, 403, "Jeton de formulaire invalide : rechargez la page.", user
                )
            if admin and not user.is_admin:
                return _error(request, 403, "Réservé aux administrateurs.", user)
            return await fn(request, user, form)

        endpoint.__name__ = fn.__name__
        endpoint.__doc__ = fn.__doc__
        return endpoint

    return wrap


def _visible_decl(request: Request, user: User) -> dict[str, Any]:
    """The declaration in the path, when ``user`` may see its duel (else 404)."""
    storage = _deps(request).storage
    try:
        decl = storage.declaration(int(request.path_params["decl_id"]))
    except Exception as exc:
        raise HTTPException(404) from exc
    if not can_see_duel(storage, user, int(decl["duel_id"])):
        raise HTTPException(404)
    return decl


def _version(form: FormData) -> int:
    try:
        return int(str(form.get("version", "")))
    except ValueError as exc:
        raise HTTPException(400, "missing draft version") from exc


# -- login --------------------------------------------------------------------------------
async def login_page(request: Request) -> Response:
    """The login form."""
    user = _current_user(request)
    nxt = _local_path(request.query_params.get("next"), "/drafts")
    if user is not None:
        return RedirectResponse(nxt, status_code=303)
    return render(request, "login.html", {"next": nxt})


async def login_submit(request: Request) -> Response:
    """Check the CSRF token, the rate limit, then the password; start a session."""
    deps = _deps(request)
    form = await request.form()
    nxt = _local_path(form.get("next"), "/drafts")
    if not csrf.is_valid(request.session, form.get(csrf.FIELD)):
        return _error(request, 403, "Jeton de formulaire invalide : rechargez la page.", None)
    username = str(form.get("username", ""))
    password = str(form.get("password", ""))
    client = request.client.host if request.client else "?"
    key = deps.limiter.key(username, client)
    wait = deps.limiter.retry_after_s(key)
    _ = translator(_language(request))
    if wait:
        return render(
            request,
            "login.html",
            {
                "next": nxt,
                "error": _("Trop de tentatives : réessayez dans %s min.", (wait + 59) // 60),
                "username": username,
            },
            429,
            headers={"Retry-After": str(wait)},
        )
    user = await authenticate_in_thread(deps.storage, username, password)
    if user is None:
        deps.limiter.failure(key)
        return render(
            request,
            "login.html",
            {
                "next": nxt,
                "error": _("Identifiant ou mot de passe incorrect."),
                "username": username,
            },
            401,
        )
    deps.limiter.success(key)
    auth.log_in(request.session, user, deps.storage, deps.now(), deps.session_idle_s)
    return RedirectResponse(nxt, status_code=303)


@action()
async def logout(request: Request, user: User, form: FormData) -> Response:
    """End the session (its server-side record is deleted: the old cookie stays dead)."""
    auth.log_out(request.session, _deps(request).storage)
    return RedirectResponse("/login", status_code=303)


async def home(request: Request) -> Response:
    """Redirect to the queue."""
    return RedirectResponse("/drafts", status_code=303)


# -- drafts -------------------------------------------------------------------------------
@page
async def queue(request: Request, user: User) -> Response:
    """Every pending declaration of the duels the user may see, oldest first."""
    deps = _deps(request)
    visible = visible_duel_ids(deps.storage, user)
    rows = [
        d
        for d in deps.storage.declarations(views.PENDING)
        if visible is None or d["duel_id"] in visible
    ]
    now = deps.now()
    drafts = [views.draft_view(deps.storage, d, now) for d in rows]
    no_duel = visible is not None and not visible  # a referee no admin assigned yet
    return render(request, "queue.html", {"drafts": drafts, "no_duel": no_duel}, user=user)


@page
async def draft_page(request: Request, user: User) -> Response:
    """One declaration (any status)."""
    decl = _visible_decl(request, user)
    deps = _deps(request)
    view = views.draft_view(deps.storage, decl, deps.now())
    return render(request, "draft.html", {"d": view}, user=user)


async def _apply(
    request: Request,
    user: User,
    decl: dict[str, Any],
    expected: int,
    change: Callable[[], None],
) -> Response:
    """Run one override; a stale or refused change re-renders the draft with 409 / 400."""
    deps = _deps(request)
    try:
        change()
    except overrides.OverrideError as exc:
        current = deps.storage.declaration(decl["id"])
        _ = translator(_language(request))
        if current["version"] != expected:
            message, status = (
                _("Ce brouillon a changé entre-temps : rechargez la page avant de le modifier."),
                409,
            )
        elif current["status"] not in overrides.EDITABLE:
            message, status = (
                _(
                    "Ce brouillon ne peut plus changer (%s).",
                    _(views.DRAFT_STATUS_FR.get(current["status"], "?")),
                ),
                409,
            )
        else:
            message, status = _("Modification refusée : %s", str(exc)), 400
        view = views.draft_view(deps.storage, current, deps.now())
        return render(request, "draft.html", {"d": view, "error": message}, status, user)
    _flash(request, "ok", "Enregistré.")
    return RedirectResponse(f"/drafts/{decl['id']}", status_code=303)


@action()
async def draft_text(request: Request, user: User, form: FormData) -> Response:
    """Replace the text (``text``)."""
    decl = _visible_decl(request, user)
    expected = _version(form)
    text = str(form.get("text", "")).replace("\r\n", "\n")
    deps = _deps(request)
    return await _apply(
        request,
        user,
        decl,
        expected,
        lambda: overrides.edit_text(
            deps.storage, decl["id"], text, user.username, deps.now(), expected_version=expected
        ),
    )


@action()
async def draft_numbers(request: Request, user: User, form: FormData) -> Response:
    """Set one computed number (``key``, ``value``); the text follows unless edited by hand."""
    decl = _visible_decl(request, user)
    expected = _version(form)
    deps = _deps(request)
    key = str(form.get("key", ""))
    stored = json.loads(decl["context_json"] or "{}")
    allowed = {
        f.key: f.kind
        for f in views.draft_number_fields(decl, stored, json.loads(decl["overrides_json"] or "{}"))
    }
    if key not in allowed:
        raise HTTPException(400, "unknown number")

    def change() -> None:
        value = overrides.parse_value(str(form.get("value", "")))
        if allowed[key] == "int" and isinstance(value, bool):
            raise overrides.OverrideError(f"{key} wants a number")
        if allowed[key] == "bool" and not isinstance(value, bool):
            raise overrides.OverrideError(f"{key} wants oui/non")
        overrides.set_numbers(
            deps.storage,
            decl["id"],
            {key: value},
            user.username,
            deps.now(),
            expected_version=expected,
        )

    return await _apply(request, user, decl, expected, change)


@action()
async def draft_violation(request: Request, user: User, form: FormData) -> Response:
    """Waive (``waive=1``) or restore (``waive=0``) a violation (``duellist``, ``rule``)."""
    decl = _visible_decl(request, user)
    expected = _version(form)
    deps = _deps(request)
    duellist = str(form.get("duellist", ""))
    rule = str(form.get("rule", ""))
    waive = form.get("waive") == "1"
    outcome = json.loads(decl["context_json"] or "{}").get("outcome") or {}
    known = {(v["duellist"], v["rule"]) for v in outcome.get("violations") or []}
    known |= {tuple(w) for w in json.loads(decl["waived_json"] or "[]")}
    if (duellist, rule) not in known:
        raise HTTPException(400, "unknown violation")
    return await _apply(
        request,
        user,
        decl,
        expected,
        lambda: overrides.set_violation(
            deps.storage,
            decl["id"],
            duellist,
            rule,
            waive,
            user.username,
            deps.now(),
            expected_version=expected,
        ),
    )


@action()
async def draft_status(request: Request, user: User, form: FormData) -> Response:
    """Hold, approve or put back to draft (``status``)."""
    decl = _visible_decl(request, user)
    expected = _version(form)
    deps = _deps(request)
    status = str(form.get("status", ""))
    if status not in overrides.EDITABLE:
        raise HTTPException(400, "unknown status")
    return await _apply(
        request,
        user,
        decl,
        expected,
        lambda: overrides.set_status(
            deps.storage, decl["id"], status, user.username, deps.now(), expected_version=expected
        ),
    )


@action()
async def draft_publish(request: Request, user: User, form: FormData) -> Response:
    """Approve, then publish at once through the app's ``publisher`` when there is one."""
    decl = _visible_decl(request, user)
    expected = _version(form)
    deps = _deps(request)
    response = await _apply(
        request,
        user,
        decl,
        expected,
        lambda: overrides.set_status(
            deps.storage,
            decl["id"],
            "approved",
            user.username,
            deps.now(),
            expected_version=expected,
        ),
    )
    if response.status_code != 303:
        return response
    if deps.publisher is None:  # `forumbot web` without --publish-now: `run` posts it
        request.session.pop("flash", None)
        _flash(request, "ok", "Approuvé : il partira au prochain passage du bot.")
        return response
    request.session.pop("flash", None)
    try:
        deps.publisher(decl["id"])
    except Exception as exc:  # the forum failed: the draft stays approved, say why
        _flash(
            request,
            "error",
            "Approuvé ; la publication a échoué : %s",
            f"{type(exc).__name__}: {exc}",
        )
        return response
    row = deps.storage.declaration(decl["id"])
    if row["status"] == "published":
        _flash(request, "ok", "Publié (message %s).", row["published_post_id"])
    else:
        _flash(
            request,
            "error",
            "Approuvé ; la publication a échoué : %s",
            row["last_error"] or row["status"],
        )
    return response


# -- claims and notice settings (issue 18) -----------------------------------------------
@action()
async def draft_take(request: Request, user: User, form: FormData) -> Response:
    """Take the draft (« je m'en occupe »): it waits for this user's decision."""
    decl = _visible_decl(request, user)
    deps = _deps(request)
    try:
        claims.take(deps.storage, decl["id"], user.username, deps.now(), deps.notify)
    except claims.ClaimError as exc:
        current = deps.storage.declaration(decl["id"])
        if exc.code == "taken":
            _flash(request, "error", "Déjà pris par %s.", current["claimed_by"])
        else:
            _flash(request, "error", "Ce brouillon ne peut plus être pris.")
        return RedirectResponse(f"/drafts/{decl['id']}", status_code=303)
    _flash(request, "ok", "Pris : il attend votre décision.")
    return RedirectResponse(f"/drafts/{decl['id']}", status_code=303)


@action()
async def draft_release(request: Request, user: User, form: FormData) -> Response:
    """Give the draft back: its review delay applies again."""
    decl = _visible_decl(request, user)
    deps = _deps(request)
    try:
        claims.release(deps.storage, decl["id"], user.username, deps.now(), is_admin=user.is_admin)
    except claims.ClaimError as exc:
        if exc.code == "not_yours":
            _flash(request, "error", "Seul %s ou un admin peut le libérer.", decl["claimed_by"])
        else:
            _flash(request, "error", "Ce brouillon n'est pas pris.")
        return RedirectResponse(f"/drafts/{decl['id']}", status_code=303)
    _flash(request, "ok", "Libéré.")
    return RedirectResponse(f"/drafts/{decl['id']}", status_code=303)


def _notify_page(request: Request, user: User, status_code: int = 200, error: str = "") -> Response:
    deps = _deps(request)
    return render(
        request,
        "notify.html",
        {
            "s": person_settings(deps.storage, user.username, deps.notify),
            "gather_min": deps.notify.owl_gather_s // 60,
            "timezone": deps.notify.timezone,
            "has_apprise": deps.notify.apprise_source(user.username, user.role) is not None,
            "error": error,
        },
        status_code,
        user,
    )


@page
async def notify_page(request: Request, user: User) -> Response:
    """The user's notice settings."""
    return _notify_page(request, user)


@action()
async def notify_save(request: Request, user: User, form: FormData) -> Response:
    """Save channels, forum account and quiet hours (audit-logged, ``notify.settings``)."""
    deps = _deps(request)
    try:
        set_person_settings(
            deps.storage,
            user.username,
            user.username,
            deps.now(),
            channels=tuple(str(c) for c in form.getlist("channel")),
            quiet=str(form.get("quiet", "")),
            forum_name=str(form.get("forum_name", "")),
            cfg=deps.notify,
        )
    except NotifyConfigError as exc:
        _flash(request, "error", "Réglage refusé : %s", str(exc))
        return RedirectResponse("/me/notify", status_code=303)
    _flash(request, "ok", "Enregistré.")
    return RedirectResponse("/me/notify", status_code=303)


# -- duels --------------------------------------------------------------------------------
@page
async def duels_page(request: Request, user: User) -> Response:
    """The duels the user may see."""
    storage = _deps(request).storage
    visible = visible_duel_ids(storage, user)
    rows = [
        {
            "duel": d,
            "status_fr": views.DUEL_STATUS_FR.get(d["status"], d["status"]),
            "state": json.loads(d["state_json"] or "{}"),
        }
        for d in storage.duels()
        if d["status"] != "ignored" and (visible is None or d["id"] in visible)
    ]
    return render(request, "duels.html", {"duels": rows}, user=user)


@page
async def duel_page(request: Request, user: User) -> Response:
    """A duel: turns, points chart, dice audit, audit log, referees."""
    storage = _deps(request).storage
    duel_id = int(request.path_params["duel_id"])
    if not list(storage.db.table("duels").rows_where("id = ?", [duel_id])):
        raise HTTPException(404)
    if not can_see_duel(storage, user, duel_id):
        raise HTTPException(404)
    view = views.duel_view(storage, duel_id)
    _ = translator(_language(request))
    from forumbot.rulesets import load_ruleset

    try:
        unit = load_ruleset(view["duel"]["ruleset"]).unit if view["duel"]["ruleset"] else ""
    except Exception:  # an unreadable ruleset only loses the axis label
        unit = ""
    chart = points_chart(view["series"], unit=unit, title=_("Points dans le temps"))
    candidates = [
        u.username
        for u in list_users(storage)
        if u.role == "referee" and u.username not in view["referees"]
    ]
    return render(
        request,
        "duel.html",
        {"v": view, "chart": chart, "candidates": candidates, "unit": unit},
        user=user,
    )


@action(admin=True)
async def duel_referees(request: Request, user: User, form: FormData) -> Response:
    """Assign (``op=add``) or remove (``op=remove``) the referee ``username``."""
    deps = _deps(request)
    duel_id = int(request.path_params["duel_id"])
    username = str(form.get("username", ""))
    try:
        if form.get("op") == "remove":
            unassign_referee(deps.storage, duel_id, username, user.username, deps.now())
        else:
            assign_referee(deps.storage, duel_id, username, user.username, deps.now())
    except UserError as exc:
        raise HTTPException(400, str(exc)) from exc
    _flash(request, "ok", "Enregistré.")
    return RedirectResponse(f"/duels/{duel_id}", status_code=303)


# -- violations ---------------------------------------------------------------------------
def _filter(request: Request) -> judging.ViolationFilter:
    q = request.query_params
    duel = q.get("duel", "")
    status = q.get("status") or None
    return judging.ViolationFilter(
        duel_id=int(duel) if duel.isdigit() else None,
        duellist=q.get("duellist") or None,
        rule=q.get("rule") or None,
        status=status if status in judging.STATUSES else None,
    )


@page
async def violations_page(request: Request, user: User) -> Response:
    """Violations, filterable; admins confirm or dismiss."""
    storage = _deps(request).storage
    visible = visible_duel_ids(storage, user)
    flt = _filter(request)
    rows = judging.query_violations(storage, flt, visible)
    items = []
    for row in rows:
        duel = storage.duel(row["duel_id"])
        post = (
            views.post_view(storage, duel["board_id"], row["post_id"]) if row["post_id"] else None
        )
        items.append(
            {
                "row": row,
                "duel": duel,
                "post": post,
                "status_fr": views.VIOLATION_STATUS_FR.get(row["status"], row["status"]),
            }
        )
    duels = [d for d in storage.duels() if visible is None or d["id"] in visible]
    query = {k: v for k, v in request.query_params.items() if k != "lang"}
    return render(
        request,
        "violations.html",
        {
            "items": items,
            "flt": flt,
            "duels": duels,
            "duellists": judging.distinct_values(storage, "duellist", visible),
            "rules": judging.distinct_values(storage, "rule", visible),
            "statuses": [(s, views.VIOLATION_STATUS_FR[s]) for s in judging.STATUSES],
            "csv_url": "/violations.csv" + (f"?{urlencode(query)}" if query else ""),
            "back": request.url.path + (f"?{urlencode(query)}" if query else ""),
        },
        user=user,
    )


@page
async def violations_csv(request: Request, user: User) -> Response:
    """The filtered violations as CSV (UTF-8)."""
    storage = _deps(request).storage
    rows = judging.query_violations(storage, _filter(request), visible_duel_ids(storage, user))
    return Response(
        judging.violations_csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": 'attachment; filename="violations.csv"'},
    )


@action(admin=True)
async def violation_decide(request: Request, user: User, form: FormData) -> Response:
    """Confirm or dismiss (``decision``) with a ``reason``."""
    deps = _deps(request)
    back = _local_path(form.get("back"), "/violations")
    if not back.startswith("/violations"):
        back = "/violations"
    try:
        judging.decide_violation(
            deps.storage,
            int(request.path_params["violation_id"]),
            str(form.get("decision", "")),
            str(form.get("reason", "")),
            user.username,
            deps.now(),
        )
    except judging.JudgingError as exc:
        _flash(request, "error", "Décision refusée : %s", str(exc))
        return RedirectResponse(back, status_code=303)
    _flash(request, "ok", "Décision enregistrée.")
    return RedirectResponse(back, status_code=303)


# -- referee tasks (2v2) ------------------------------------------------------------------
@page
async def tasks_page(request: Request, user: User) -> Response:
    """Open referee tasks of the duels the user referees (all for admins), and recent ones."""
    storage = _deps(request).storage
    open_tasks, closed_tasks = tasks.task_views(storage, visible_duel_ids(storage, user))
    return render(
        request, "tasks.html", {"open_tasks": open_tasks, "closed_tasks": closed_tasks}, user=user
    )


@action()
async def task_close(request: Request, user: User, form: FormData) -> Response:
    """Close a task (``status``: ``done``; a mechanism ``solved`` or ``failed``; ``note``)."""
    deps = _deps(request)
    task_id = int(request.path_params["task_id"])
    status = str(form.get("status", ""))
    try:
        tasks.close(
            deps.storage,
            task_id,
            status,
            user.username,
            deps.now(),
            visible_duel_ids(deps.storage, user),
            str(form.get("note", "")),
        )
    except tasks.TaskError as exc:
        if exc.code == "unknown":
            raise HTTPException(404) from exc
        if exc.code == "closed":
            _flash(request, "error", "Cette tâche est déjà traitée.")
        else:
            _flash(request, "error", "Action impossible sur cette tâche.")
        return RedirectResponse("/tasks", status_code=303)
    _flash(request, "ok", "Tâche n°%s : %s.", task_id, tasks.STATUS_FR[status])
    return RedirectResponse("/tasks", status_code=303)


# -- errors -------------------------------------------------------------------------------
async def http_error(request: Request, exc: Exception) -> Response:
    """Render HTTP errors as a page in the user's language."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    user = None
    if "session" in request.scope:
        user = _current_user(request)
    texts = {403: "Accès refusé.", 404: "Page introuvable."}
    detail = exc.detail if isinstance(exc, HTTPException) else ""
    if status in texts:
        return _error(request, status, texts[status], user)
    return _error(request, status, "%s", user, detail)


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
) -> Starlette:
    """The review web app.

    Args:
        storage: the bot's database (used from the event-loop thread only).
        secret_key: signs the session cookie (at least 32 characters; keep it secret).
        publisher: ``publisher(declaration_id)`` publishes one approved declaration at once
            ("publish now"); without it, approved drafts go out at the bot's next pass.
        now: clock (aware UTC datetime).
        https_only: mark the session cookie ``Secure`` (when served over HTTPS).
        session_max_age_s: lifetime of the session cookie in seconds (renewed by every
            response, so it counts from the last request).
        session_idle_s: a session whose record saw no request for this many seconds ends
            (server-side, whatever the cookie says); see :mod:`forumbot.web.sessions`.
        max_login_failures, login_window_s, max_ip_login_failures,
            max_global_login_failures: the login rate limit (per username and address,
            per address, in all; :class:`forumbot.web.auth.LoginLimiter`).
        trusted_proxies: addresses or networks of the reverse proxies whose
            ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (``web.trusted_proxies``);
            empty: none, the client is the TCP peer, whatever headers it sends.
        timezone: the board's timezone (IANA name): times on the page are shown in it.
        notify: the ``[notify]`` settings (claim limit, timezone, Apprise URLs; issue 18).

    Raises:
        ValueError: when ``secret_key`` is shorter than 32 characters.
    """
    if len(secret_key) < 32:
        raise ValueError("secret_key must have at least 32 characters")
    from forumbot.storage import MIGRATIONS

    MIGRATIONS.apply(storage.db)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    env.filters["json"] = lambda v: json.dumps(v, ensure_ascii=False, default=str)
    notify_cfg = notify or NotifyConfig()
    env.filters["local"] = lambda ts: (
        datetime.fromisoformat(ts).astimezone(notify_cfg.tz).strftime("%d/%m %H:%M") if ts else ""
    )
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
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            *(
                [Middleware(ProxyHeadersMiddleware, trusted_hosts=list(trusted_proxies))]
                if trusted_proxies
                else []
            ),
            Middleware(SecurityHeaders),
            Middleware(
                SessionMiddleware,
                secret_key=secret_key,
                session_cookie=SESSION_COOKIE,
                max_age=session_max_age_s,
                same_site="lax",
                https_only=https_only,
            ),
        ],
        exception_handlers={HTTPException: http_error},
    )
    app.state.deps = Deps(
        storage=storage,
        now=now,
        publisher=publisher,
        limiter=auth.LoginLimiter(
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
    )
    return app


def new_secret_key() -> str:
    """A fresh random session key (64 hex characters)."""
    return secrets.token_hex(32)
