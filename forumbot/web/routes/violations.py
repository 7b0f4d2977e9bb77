"""Violations: the filtered list, its CSV export, and admins' confirm / dismiss
(``/violations...``, :mod:`forumbot.web.judging`)."""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from forumbot.web import judging, views
from forumbot.web.routes.common import (
    action,
    deps_of,
    flash,
    here,
    local_path,
    page,
    render,
)
from forumbot.web.users import (
    User,
    visible_duel_ids,
)


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
    storage = deps_of(request).storage
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
                "status_name": views.VIOLATION_STATUS.get(row["status"], row["status"]),
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
            "statuses": [(s, views.VIOLATION_STATUS[s]) for s in judging.STATUSES],
            "csv_url": here(request, "/violations.csv") + (f"?{urlencode(query)}" if query else ""),
            "back": request.url.path + (f"?{urlencode(query)}" if query else ""),
        },
        user=user,
    )


@page
async def violations_csv(request: Request, user: User) -> Response:
    """The filtered violations as CSV (UTF-8)."""
    storage = deps_of(request).storage
    rows = judging.query_violations(storage, _filter(request), visible_duel_ids(storage, user))
    return Response(
        judging.violations_csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"content-disposition": 'attachment; filename="violations.csv"'},
    )


@action(admin=True)
async def violation_decide(request: Request, user: User, form: FormData) -> Response:
    """Confirm or dismiss (``decision``) with a ``reason``; an unknown violation is 404."""
    deps = deps_of(request)
    listed = here(request, "/violations")
    back = local_path(form.get("back"), listed)
    if not back.startswith(listed):
        back = listed
    violation_id = int(request.path_params["violation_id"])
    if deps.storage.web_rows.violation(violation_id) is None:
        raise HTTPException(404)  # as an unknown draft or duel, not a refused decision
    try:
        judging.decide_violation(
            deps.storage,
            violation_id,
            str(form.get("decision", "")),
            str(form.get("reason", "")),
            user.username,
            deps.now(),
        )
    except judging.JudgingError as exc:
        flash(request, "error", "Decision refused: %s", str(exc))
        return RedirectResponse(back, status_code=303)
    flash(request, "ok", "Decision recorded.")
    return RedirectResponse(back, status_code=303)


__all__ = ["violation_decide", "violations_csv", "violations_page"]
