"""The user's notice settings (``/me/notify``: channels, forum account, quiet hours)."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from forumbot.notify.settings import (
    NotifyConfigError,
    person_settings,
    set_person_settings,
)
from forumbot.web.forum_account import (
    LINKED_BY_BOARD,
    ForumAccountRefused,
    board_spelling,
    check_free,
    wanted_forum_name,
)
from forumbot.web.routes.common import (
    action,
    deps_of,
    flash,
    page,
    redirect,
    render,
)
from forumbot.web.users import (
    User,
)


def _notify_page(request: Request, user: User, status_code: int = 200, error: str = "") -> Response:
    deps = deps_of(request)
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
    """Save channels, forum account and quiet hours (audit-logged, ``notify.settings``). A new
    forum account must be a board member, looked up, stored as the board spells it
    (:mod:`forumbot.web.forum_account`); when it is refused nothing is saved."""
    deps = deps_of(request)
    try:
        typed = form.get("forum_name")  # absent: left as it is
        wanted = (
            None
            if typed is None
            else wanted_forum_name(deps.storage, user, str(typed), deps.notify)
        )
        spelling = None if wanted is None else await board_spelling(deps.members, wanted)
        if spelling is not None:
            check_free(deps.storage, user, spelling, deps.notify)
    except ForumAccountRefused as exc:
        flash(request, "error", exc.text, *exc.args_fr)
        return redirect(request, "/me/notify")
    try:
        set_person_settings(
            deps.storage,
            user.username,
            user.username,
            deps.now(),
            channels=tuple(str(c) for c in form.getlist("channel")),
            quiet=str(form.get("quiet", "")),
            forum_name=spelling,
            cfg=deps.notify,
            linked_by=LINKED_BY_BOARD,
        )
    except NotifyConfigError as exc:
        flash(request, "error", "Setting refused: %s", str(exc))
        return redirect(request, "/me/notify")
    flash(request, "ok", "Saved.")
    return redirect(request, "/me/notify")


__all__ = ["notify_page", "notify_save"]
