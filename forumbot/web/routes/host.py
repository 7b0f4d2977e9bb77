"""The host's page of ``forumbot web --boards`` (``/host``, issue 27): the clubs of the folder
and each club's first admin. Its accounts live in the host database; they see no club's
duels (:mod:`forumbot.web.host`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from forumbot.web.host import CLUB_PREFIX, HOST_REALM, ClubFolder
from forumbot.web.routes.common import action, deps_of, flash, page, redirect, render, root_of
from forumbot.web.users import User, UserError, add_first_admin


def folder_of(request: Request) -> ClubFolder:
    """The clubs the host serves (``app.state.folder``)."""
    folder: ClubFolder = request.app.state.folder
    return folder


def club_rows(request: Request) -> list[dict[str, Any]]:
    """The host's view of every club (:meth:`ClubFolder.summaries`) with its page's address."""
    site = root_of(request).removesuffix(HOST_REALM)
    return [
        {**asdict(c), "url": f"{site}{CLUB_PREFIX}{c.name}/"}
        for c in folder_of(request).summaries()
    ]


@page
async def host_clubs(request: Request, user: User) -> Response:
    """The clubs of the folder (served or refused, with why) and their first admin's form."""
    folder = folder_of(request)
    context = {"clubs": club_rows(request), "folder": str(folder.directory)}
    return render(request, "host.html", context, user=user)


@action()
async def host_add_admin(request: Request, user: User, form: FormData) -> Response:
    """Create the club's first admin (``username``, ``password``); refused once the club has
    an enabled admin (:func:`forumbot.web.users.add_first_admin`). Audit-logged in the club's
    database (actor ``host:<name>``) and in the host's."""
    deps = deps_of(request)
    name = str(request.path_params["club"])
    club = folder_of(request).served(name)
    if club is None or club.storage is None:
        raise HTTPException(404)
    username = str(form.get("username", ""))
    try:
        made = add_first_admin(
            club.storage,
            username,
            str(form.get("password", "")),
            deps.now(),
            f"host:{user.username}",
        )
    except UserError as exc:
        flash(request, "error", "Account refused: %s", str(exc))
        return redirect(request, "/")
    deps.storage.audit(
        user.username, "club.first_admin", f"club:{name}", None, made.username, deps.now()
    )
    flash(request, "ok", "%s is the first admin of %s.", made.username, name)
    return redirect(request, "/")


__all__ = ["club_rows", "folder_of", "host_add_admin", "host_clubs"]
