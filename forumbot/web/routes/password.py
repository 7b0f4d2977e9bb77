"""The user's own password (``/me/password``): a club's first admin, whose password the host
typed (``forumbot web --boards``), and anyone else, change it without a terminal."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from forumbot.web import auth
from forumbot.web.i18n import page_translator
from forumbot.web.routes.common import (
    action,
    deps_of,
    flash,
    language_of,
    page,
    redirect,
    render,
)
from forumbot.web.users import User, UserError, authenticate_in_thread, set_password


def _password_page(
    request: Request, user: User, status_code: int = 200, error: str = "", **headers: str
) -> Response:
    return render(request, "password.html", {"error": error}, status_code, user, headers)


@page
async def password_page(request: Request, user: User) -> Response:
    """The form: the current password, the new one twice."""
    return _password_page(request, user)


@action()
async def password_save(request: Request, user: User, form: FormData) -> Response:
    """Check the current password (counted by the login limit, as a login: a stolen session
    cannot guess it faster), then set the new one (:func:`forumbot.web.users.set_password`,
    audit-logged by the user). Every session of the account ends, this one too: the user
    logs in again with the new password."""
    deps = deps_of(request)
    _ = page_translator(language_of(request))
    new = str(form.get("new_password", ""))
    if new != str(form.get("new_password_again", "")):
        return _password_page(request, user, 400, _("The two new passwords differ."))
    client = request.client.host if request.client else "?"
    reserved = deps.limiter.reserve(deps.limiter.key(user.username, client, deps.realm))
    if not isinstance(reserved, auth.Reservation):
        text = _("Too many attempts: try again in %s min.", (reserved + 59) // 60)
        return _password_page(request, user, 429, text, **{"Retry-After": str(reserved)})
    current = str(form.get("password", ""))
    if await authenticate_in_thread(deps.storage, user.username, current) is None:
        deps.limiter.failure(reserved)
        return _password_page(request, user, 401, _("Wrong password."))
    deps.limiter.success(reserved)
    try:
        set_password(deps.storage, user.username, new, deps.now(), actor=user.username)
    except UserError as exc:
        return _password_page(request, user, 400, _("Password refused: %s", str(exc)))
    auth.log_out(request.session, deps.storage)
    flash(request, "ok", "Password changed: log in again with the new one.")
    return redirect(request, "/login")


__all__ = ["password_page", "password_save"]
