"""Logging in and out (``/login``, ``/logout``) and the home redirect."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from forumbot.web import auth, csrf
from forumbot.web.i18n import page_translator
from forumbot.web.routes.common import (
    action,
    current_user,
    deps_of,
    error_page,
    here,
    language_of,
    local_path,
    redirect,
    render,
)
from forumbot.web.users import (
    User,
    authenticate_in_thread,
)


async def login_page(request: Request) -> Response:
    """The login form."""
    user = current_user(request)
    nxt = local_path(request.query_params.get("next"), here(request, deps_of(request).home))
    if user is not None:
        return RedirectResponse(nxt, status_code=303)
    return render(request, "login.html", {"next": nxt})


async def login_submit(request: Request) -> Response:
    """Check the CSRF token, reserve an attempt under the rate limit (counted before the
    password check: a burst cannot pass the limit), then the password; start a session."""
    deps = deps_of(request)
    form = await request.form()
    nxt = local_path(form.get("next"), here(request, deps.home))
    if not csrf.is_valid(request.session, form.get(csrf.FIELD)):
        return error_page(request, 403, "Invalid form token: reload the page.", None)
    username = str(form.get("username", ""))
    password = str(form.get("password", ""))
    client = request.client.host if request.client else "?"
    key = deps.limiter.key(username, client, deps.realm)
    reserved = deps.limiter.reserve(key)
    _ = page_translator(language_of(request))
    if not isinstance(reserved, auth.Reservation):
        wait = reserved
        return render(
            request,
            "login.html",
            {
                "next": nxt,
                "error": _("Too many attempts: try again in %s min.", (wait + 59) // 60),
                "username": username,
            },
            429,
            headers={"Retry-After": str(wait)},
        )
    user = await authenticate_in_thread(deps.storage, username, password)
    if user is None:
        deps.limiter.failure(reserved)
        return render(
            request,
            "login.html",
            {
                "next": nxt,
                "error": _("Wrong username or password."),
                "username": username,
            },
            401,
        )
    deps.limiter.success(reserved)
    auth.log_in(
        request.session, user, deps.storage, deps.now(), deps.session_idle_s, deps.realm
    )
    return RedirectResponse(nxt, status_code=303)


@action()
async def logout(request: Request, user: User, form: FormData) -> Response:
    """End the session (its server-side record is deleted: the old cookie stays dead)."""
    auth.log_out(request.session, deps_of(request).storage)
    return redirect(request, "/login")


async def home(request: Request) -> Response:
    """Redirect to the queue (the app's home page, :attr:`Deps.home`)."""
    return redirect(request, deps_of(request).home)


__all__ = ["home", "login_page", "login_submit", "logout"]
