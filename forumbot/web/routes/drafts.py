"""The draft queue and one draft: text, numbers, violations, status, publish now, take and
release (``/drafts...``; every change goes through :mod:`forumbot.duels.overrides`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from forumbot.duels import overrides
from forumbot.duels.ending import EndingError, drop_draft
from forumbot.i18n import N_
from forumbot.notify import claims
from forumbot.web import views
from forumbot.web.i18n import page_translator
from forumbot.web.routes.common import (
    action,
    deps_of,
    flash,
    form_version,
    language_of,
    page,
    redirect,
    render,
    visible_decl,
)
from forumbot.web.users import (
    User,
    visible_duel_ids,
)


@page
async def queue(request: Request, user: User) -> Response:
    """Every pending declaration of the duels the user may see, oldest first."""
    deps = deps_of(request)
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
    decl = visible_decl(request, user)
    deps = deps_of(request)
    view = views.draft_view(deps.storage, decl, deps.now())
    return render(request, "draft.html", {"d": view}, user=user)


RERENDERED = N_(
    "The text had been edited by hand: it was rendered again from the template to give "
    "the new numbers (the hand-edited text stays in the audit log)."
)
"""The flash a referee gets when a set number or a waiver replaced their hand-edited text."""

UNCHANGED = N_("Text unchanged: no new version.")
"""The flash of a text saved as it was (:class:`forumbot.duels.overrides.TextUnchanged`)."""


async def _apply(
    request: Request,
    user: User,
    decl: dict[str, Any],
    expected: int,
    change: Callable[[], list[str] | None],
) -> Response:
    """Run one override; a stale or refused change re-renders the draft with 409 / 400."""
    deps = deps_of(request)
    try:
        warnings = change() or []
    except overrides.TextUnchanged:  # nothing to save: no new version (newcomer5 C1)
        flash(request, "ok", UNCHANGED)
        return redirect(request, f"/drafts/{decl['id']}")
    except overrides.OverrideError as exc:
        current = deps.storage.declaration(decl["id"])
        _ = page_translator(language_of(request))
        if current["version"] != expected:
            message, status = (
                _("This draft changed meanwhile: reload the page before changing it."),
                409,
            )
        elif current["status"] not in overrides.EDITABLE:
            message, status = (
                _(
                    "This draft can no longer change (%s).",
                    _(views.DRAFT_STATUS.get(current["status"], "?")),
                ),
                409,
            )
        else:
            message, status = _("Change refused: %s", str(exc)), 400
        view = views.draft_view(deps.storage, current, deps.now())
        return render(request, "draft.html", {"d": view, "error": message}, status, user)
    flash(request, "ok", "Saved.")
    if overrides.TEXT_RERENDERED in warnings:
        flash(request, "warning", RERENDERED)
    return redirect(request, f"/drafts/{decl['id']}")


@action()
async def draft_text(request: Request, user: User, form: FormData) -> Response:
    """Replace the text (``text``)."""
    decl = visible_decl(request, user)
    expected = form_version(form)
    text = str(form.get("text", "")).replace("\r\n", "\n")
    deps = deps_of(request)
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
    decl = visible_decl(request, user)
    expected = form_version(form)
    deps = deps_of(request)
    key = str(form.get("key", ""))
    stored = json.loads(decl["context_json"] or "{}")
    allowed = {
        f.key: f.kind
        for f in views.draft_number_fields(decl, stored, json.loads(decl["overrides_json"] or "{}"))
    }
    if key not in allowed:
        raise HTTPException(400, "unknown number")

    def change() -> list[str]:
        value = overrides.parse_value(str(form.get("value", "")))
        if allowed[key] == "int" and isinstance(value, bool):
            raise overrides.OverrideError(f"{key} wants a number")
        if allowed[key] == "bool" and not isinstance(value, bool):
            raise overrides.OverrideError(f"{key} wants oui/non")
        return overrides.set_numbers(
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
    decl = visible_decl(request, user)
    expected = form_version(form)
    deps = deps_of(request)
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
    decl = visible_decl(request, user)
    expected = form_version(form)
    deps = deps_of(request)
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
    decl = visible_decl(request, user)
    expected = form_version(form)
    deps = deps_of(request)
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
        flash(request, "ok", "Approved: it goes out at the bot's next pass.")
        return response
    request.session.pop("flash", None)
    try:
        deps.publisher(decl["id"])
    except Exception as exc:  # the forum failed: the draft stays approved, say why
        flash(
            request,
            "error",
            "Approved; publishing failed: %s",
            f"{type(exc).__name__}: {exc}",
        )
        return response
    row = deps.storage.declaration(decl["id"])
    if row["status"] == "published":
        flash(request, "ok", "Published (post %s).", row["published_post_id"])
    else:
        flash(
            request,
            "error",
            "Approved; publishing failed: %s",
            row["last_error"] or row["status"],
        )
    return response


@action()
async def draft_drop(request: Request, user: User, form: FormData) -> Response:
    """Drop the draft (``reason``; a turn draft: ``redraft=1``, the form's default, drafts
    the turn again at the next poll; unticked, the duel waits with a referee task), as
    ``forumbot drafts drop`` (:func:`forumbot.duels.ending.drop_draft`)."""
    decl = visible_decl(request, user)
    expected = form_version(form)
    deps = deps_of(request)
    # a form without the box (an older page) keeps the default; an unticked box says no
    redraft = form.get("redraft") == "1" or "redraft_field" not in form
    current = deps.storage.declaration(decl["id"])
    if current["version"] != expected:
        flash(
            request, "error", "This draft changed meanwhile: reload the page before changing it."
        )  # fmt: skip
        return redirect(request, f"/drafts/{decl['id']}")
    try:
        ended = drop_draft(
            deps.storage, decl["id"], str(form.get("reason", "")), user.username, deps.now(),
            redraft=redraft,
        )  # fmt: skip
    except EndingError as exc:
        flash(request, "error", "Drop refused: %s", str(exc))
        return redirect(request, f"/drafts/{decl['id']}")
    row = deps.storage.declaration(decl["id"])
    if row["status"] == "redraft":
        flash(
            request, "ok", "Dropped: the turn will be drafted again at the bot's next pass."
        )
    elif row["kind"] == "turn" and ended.duel_status == "running":
        flash(request, "warning", "Dropped: the duel waits for a referee (task opened).")
    else:
        flash(request, "ok", "Dropped.")
    return redirect(request, f"/drafts/{decl['id']}")


@action()
async def draft_take(request: Request, user: User, form: FormData) -> Response:
    """Take the draft (« je m'en occupe »): it waits for this user's decision."""
    decl = visible_decl(request, user)
    deps = deps_of(request)
    try:
        claims.take(deps.storage, decl["id"], user.username, deps.now(), deps.notify)
    except claims.ClaimError as exc:
        current = deps.storage.declaration(decl["id"])
        if exc.code == "taken":
            flash(request, "error", "Already taken by %s.", current["claimed_by"])
        elif exc.code == "expired":
            flash(request, "error", "Held long enough already: it can no longer be taken.")
        else:
            flash(request, "error", "This draft can no longer be taken.")
        return redirect(request, f"/drafts/{decl['id']}")
    flash(request, "ok", "Taken: it waits for your decision.")
    return redirect(request, f"/drafts/{decl['id']}")


@action()
async def draft_release(request: Request, user: User, form: FormData) -> Response:
    """Give the draft back: its review delay applies again."""
    decl = visible_decl(request, user)
    deps = deps_of(request)
    try:
        claims.release(deps.storage, decl["id"], user.username, deps.now(), is_admin=user.is_admin)
    except claims.ClaimError as exc:
        if exc.code == "not_yours":
            flash(request, "error", "Only %s or an admin can release it.", decl["claimed_by"])
        else:
            flash(request, "error", "This draft is not taken.")
        return redirect(request, f"/drafts/{decl['id']}")
    flash(request, "ok", "Released.")
    return redirect(request, f"/drafts/{decl['id']}")


__all__ = [
    "draft_drop",
    "draft_numbers",
    "draft_page",
    "draft_publish",
    "draft_release",
    "draft_status",
    "draft_take",
    "draft_text",
    "draft_violation",
    "queue",
]
