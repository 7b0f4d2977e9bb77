"""The duels list and one duel: turns, points chart, dice audit, audit log, referees
(``/duels...``; assigning referees is for admins)."""

from __future__ import annotations

import json

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from forumbot.duels.duo_board import is_duo
from forumbot.web import views
from forumbot.web.chart import points_chart
from forumbot.web.history import turn_read
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
    UserError,
    assign_referee,
    can_see_duel,
    list_users,
    unassign_referee,
    visible_duel_ids,
)


@page
async def duels_page(request: Request, user: User) -> Response:
    """The duels the user may see."""
    storage = deps_of(request).storage
    visible = visible_duel_ids(storage, user)
    rows = [
        {
            "duel": d,
            "status_name": views.DUEL_STATUS.get(d["status"], d["status"]),
            "state": json.loads(d["state_json"] or "{}"),
            "turn_read": turn_read(storage, d),  # the turn players last read (W20)
        }
        for d in storage.duels()
        if d["status"] != "ignored" and (visible is None or d["id"] in visible)
    ]
    return render(request, "duels.html", {"duels": rows}, user=user)


@page
async def duel_page(request: Request, user: User) -> Response:
    """A duel: turns, points chart, dice audit, audit log, referees."""
    storage = deps_of(request).storage
    duel_id = visible_duel(request, user)
    view = views.duel_view(storage, duel_id)
    _ = page_translator(language_of(request))
    from forumbot.rulesets import load_ruleset

    engine = "classic"
    try:
        rs = load_ruleset(view["duel"]["ruleset"]) if view["duel"]["ruleset"] else None
        unit, engine = (rs.unit, rs.engine) if rs is not None else ("", engine)
    except Exception:  # an unreadable ruleset only loses the axis label
        unit = ""
    chart = points_chart(
        view["series"],
        unit=unit,
        title=_("Points over time"),
        point=_("%(name)s, turn %(turn)s: %(value)s %(unit)s"),
    )
    candidates = [
        u.username
        for u in list_users(storage)
        if u.role == "referee" and u.username not in view["referees"]
    ]
    return render(
        request,
        "duel.html",
        {
            "v": view,
            "chart": chart,
            "candidates": candidates,
            "unit": unit,
            "engine": engine,
            "ruleset": "duo" if is_duo(storage, duel_id) else view["duel"]["ruleset"],
        },
        user=user,
    )


def visible_duel(request: Request, user: User) -> int:
    """The duel id in the path, when the duel exists and ``user`` may see it (else 404)."""
    storage = deps_of(request).storage
    duel_id = int(request.path_params["duel_id"])
    if not storage.web_rows.duel_exists(duel_id) or not can_see_duel(storage, user, duel_id):
        raise HTTPException(404)
    return duel_id


@action(admin=True)
async def duel_referees(request: Request, user: User, form: FormData) -> Response:
    """Assign (``op=add``) or remove (``op=remove``) the referee ``username``."""
    deps = deps_of(request)
    duel_id = visible_duel(request, user)  # an unknown duel is 404, as on its page
    username = str(form.get("username", ""))
    try:
        if form.get("op") == "remove":
            unassign_referee(deps.storage, duel_id, username, user.username, deps.now())
        else:
            assign_referee(deps.storage, duel_id, username, user.username, deps.now())
    except UserError as exc:
        raise HTTPException(400, str(exc)) from exc
    flash(request, "ok", "Saved.")
    return redirect(request, f"/duels/{duel_id}")


__all__ = ["duel_page", "duel_referees", "duels_page"]
