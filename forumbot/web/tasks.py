"""Referee tasks on the review page (two-against-two duels, issue 5).

A ``signup_unsure`` task is a sign-up the desk was not sure how to read
(:mod:`forumbot.club.signup_checks`): it has no duel, so only admins see it. A task is a
duellist's owl asking the referee for details about their zone (``owl_question``,
read from the bot's PM inbox by :mod:`forumbot.club.inbox`) or a mechanism attempt to judge
(``mechanism``, drafted by :func:`forumbot.duels.duo.advance_duo`) or a duel nobody lost PV in
for ``club.stalemate_turns`` turns (``stalemate``, :mod:`forumbot.duels.stalemate`: the
referee decides whether to close it). The referees of the duel and
the admins see them; closing one is :func:`forumbot.duels.duo.close_task` (``done`` for an owl
answered, ``solved`` / ``failed`` for a mechanism: a solved one is stated with its reward in the
duel's next declaration), recorded with who and when in the audit log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.i18n import N_, translate
from forumbot.storage import Storage

# A task's kind and status by their names on the page: English messages of the catalogue
# (forumbot.i18n), shown through the page's ``_``.
KIND_NAMES = {
    "owl_question": N_("Owl: asks for details"),
    "mechanism": N_("Mechanism to judge"),
    "signup_unsure": N_("Sign-up to read again"),
    "stalemate": N_("No PV lost: close the duel?"),
    "topic_moved": N_("Topic moved or merged"),
    "topic_gone": N_("Topic not found: duel suspended"),
    "topic_followed": N_("Topic moved: the bot follows it"),
    "publish_queued": N_("Declaration awaiting a moderator"),
    "publish_refused": N_("Declaration refused by the board"),
    "publish_mismatch": N_("Another version is on the board"),
    "owl_queued": N_("Owl awaiting a moderator"),
    "owl_refused": N_("Owl refused by the board"),
    "notice_failed": N_("Notice could not be written"),
    "turn_dropped": N_("Turn dropped: the duel waits"),
    "late_edit": N_("Post edited after the declaration"),
    "erratum_stale": N_("Erratum not applied"),
    "clock_skew": N_("Clock out of step: auto-publishing suspended"),
    "concession_unknown": N_("Concession unknown to the database: close it by hand"),
}
STATUS_NAMES = {
    "open": N_("waiting"), "done": N_("done"), "solved": N_("solved"), "failed": N_("not solved")
}
KIND_FR = {k: translate("fr", v) for k, v in KIND_NAMES.items()}
STATUS_FR = {k: translate("fr", v) for k, v in STATUS_NAMES.items()}
ALLOWED = {"owl_question": ("done",), "mechanism": ("solved", "failed")}


class TaskError(Exception):
    """A task action refused: ``code`` is ``unknown`` (no such task or not visible),
    ``closed`` (not open any more) or ``status`` (a status the task does not take)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TaskView:
    """One task for the template: the row, its kind's and status's names (English messages the
    page's ``_`` translates), the zone's name, the duel's title."""

    row: dict[str, Any]
    kind_name: str
    status_name: str
    zone_name: str
    duel_title: str


def _zone_name(storage: Storage, duel_id: int, zone: str | None) -> str:
    if not zone:
        return ""
    from forumbot.duels.duo import duo_row, load_env

    duo = duo_row(storage, duel_id)
    try:
        return load_env(duo["environment"]).zone(zone).name if duo else zone
    except Exception:  # an environment file changed since: the key is still informative
        return zone


def task_views(
    storage: Storage, visible: set[int] | None, *, closed_limit: int = 20
) -> tuple[list[TaskView], list[TaskView]]:
    """``(open tasks oldest first, the ``closed_limit`` most recently closed)`` of the duels in
    ``visible`` (None: every duel, for admins), across boards."""
    rows = [
        r
        for r in storage.web_rows.referee_tasks()
        if visible is None or r["duel_id"] in visible
    ]
    titles: dict[int, str] = {}

    def view(r: dict[str, Any]) -> TaskView:
        if r["duel_id"] is None:  # a sign-up to read (issue 15): no duel yet
            kind, status = KIND_NAMES.get(r["kind"], r["kind"]), STATUS_NAMES.get(r["status"], "")
            return TaskView(r, kind, status, "", r["subject"] or "")
        duel_id = int(r["duel_id"])
        if duel_id not in titles:
            titles[duel_id] = storage.web_rows.duel_title(duel_id) or ""
        return TaskView(
            r,
            KIND_NAMES.get(r["kind"], r["kind"]),
            STATUS_NAMES.get(r["status"], r["status"]),
            _zone_name(storage, duel_id, r["zone"]),
            titles[duel_id],
        )

    open_rows = [view(r) for r in rows if r["status"] == "open"]
    closed = sorted(
        (r for r in rows if r["status"] != "open"), key=lambda r: (r["done_at"] or "", r["id"])
    )
    return open_rows, [view(r) for r in reversed(closed[-closed_limit:])]


def close(
    storage: Storage,
    task_id: int,
    status: str,
    by: str,
    now: datetime,
    visible: set[int] | None,
    note: str = "",
) -> dict[str, Any]:
    """Close an open task the user may see; returns the task row as it was.

    Raises:
        TaskError: unknown or invisible task, already closed, or a status it does not take
            (an owl is ``done``; a mechanism is ``solved`` or ``failed``).
    """
    from forumbot.duels.duo import close_task

    row = storage.web_rows.referee_task(task_id)
    if row is None or (visible is not None and row["duel_id"] not in visible):
        raise TaskError("unknown", f"no task {task_id}")
    if status not in ALLOWED.get(row["kind"], ("done",)):
        raise TaskError("status", f"task {task_id} ({row['kind']}) cannot be {status!r}")
    if row["status"] != "open":
        raise TaskError("closed", f"task {task_id} is {row['status']}")
    if not close_task(storage, task_id, status, by, now, note.strip()[:500]):
        raise TaskError("closed", f"task {task_id} was closed meanwhile")
    return row


__all__ = [
    "KIND_FR", "KIND_NAMES", "STATUS_FR", "STATUS_NAMES", "TaskError", "TaskView", "close",
    "task_views",
]  # fmt: skip
