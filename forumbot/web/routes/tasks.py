"""Referee tasks: the list and closing one with a note (``/tasks...``,
:mod:`forumbot.web.tasks`)."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from forumbot.web import tasks
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
from forumbot.web.users import (
    User,
    visible_duel_ids,
)


@page
async def tasks_page(request: Request, user: User) -> Response:
    """Open referee tasks of the duels the user referees (all for admins), and recent ones."""
    storage = deps_of(request).storage
    open_tasks, closed_tasks = tasks.task_views(storage, visible_duel_ids(storage, user))
    return render(
        request, "tasks.html", {"open_tasks": open_tasks, "closed_tasks": closed_tasks}, user=user
    )


@action()
async def task_close(request: Request, user: User, form: FormData) -> Response:
    """Close a task (``status``: ``done``; a mechanism ``solved`` or ``failed``; ``note``)."""
    deps = deps_of(request)
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
            flash(request, "error", "This task is already closed.")
        else:
            flash(request, "error", "Not possible on this task.")
        return redirect(request, "/tasks")
    _ = page_translator(language_of(request))
    flash(request, "ok", "Task #%s: %s.", task_id, _(tasks.STATUS_NAMES[status]))
    return redirect(request, "/tasks")


__all__ = ["task_close", "tasks_page"]
