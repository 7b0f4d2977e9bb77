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

from forumbot.storage import Storage

KIND_FR = {
    "owl_question": "Hibou : demande de détails",
    "mechanism": "Mécanisme à juger",
    "signup_unsure": "Inscription à relire",
    "stalemate": "Aucun PV perdu : clore le duel ?",
    "topic_moved": "Sujet déplacé ou fusionné",
    "topic_gone": "Sujet introuvable : duel suspendu",
    "topic_followed": "Sujet déplacé : le bot le suit",
    "publish_queued": "Déclaration en attente d'un modérateur",
    "publish_refused": "Déclaration refusée par le forum",
    "publish_mismatch": "Une autre version est sur le forum",
    "owl_queued": "Hibou en attente d'un modérateur",
    "owl_refused": "Hibou refusé par le forum",
    "notice_failed": "Notification impossible",
    "turn_dropped": "Tour abandonné : le duel attend",
    "late_edit": "Message modifié après la déclaration",
    "erratum_stale": "Erratum non appliqué",
    "clock_skew": "Horloge déréglée : publication automatique suspendue",
    "concession_unknown": "Abandon inconnu de la base : à clore à la main",
}
STATUS_FR = {"open": "en attente", "done": "fait", "solved": "résolu", "failed": "non résolu"}
ALLOWED = {"owl_question": ("done",), "mechanism": ("solved", "failed")}


class TaskError(Exception):
    """A task action refused: ``code`` is ``unknown`` (no such task or not visible),
    ``closed`` (not open any more) or ``status`` (a status the task does not take)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class TaskView:
    """One task for the template: the row, French labels, the zone's name, the duel's title."""

    row: dict[str, Any]
    kind_fr: str
    status_fr: str
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
        for r in storage.db["referee_tasks"].rows_where(order_by="id")
        if visible is None or r["duel_id"] in visible
    ]
    titles: dict[int, str] = {}

    def view(r: dict[str, Any]) -> TaskView:
        if r["duel_id"] is None:  # a sign-up to read (issue 15): no duel yet
            kind, status = KIND_FR.get(r["kind"], r["kind"]), STATUS_FR.get(r["status"], "")
            return TaskView(r, kind, status, "", r["subject"] or "")
        duel_id = int(r["duel_id"])
        if duel_id not in titles:
            found = list(storage.db["duels"].rows_where("id = ?", [duel_id]))
            titles[duel_id] = str(found[0]["title"] or "") if found else ""
        return TaskView(
            r,
            KIND_FR.get(r["kind"], r["kind"]),
            STATUS_FR.get(r["status"], r["status"]),
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

    found = list(storage.db["referee_tasks"].rows_where("id = ?", [task_id]))
    if not found or (visible is not None and found[0]["duel_id"] not in visible):
        raise TaskError("unknown", f"no task {task_id}")
    row = found[0]
    if status not in ALLOWED.get(row["kind"], ("done",)):
        raise TaskError("status", f"task {task_id} ({row['kind']}) cannot be {status!r}")
    if row["status"] != "open":
        raise TaskError("closed", f"task {task_id} is {row['status']}")
    if not close_task(storage, task_id, status, by, now, note.strip()[:500]):
        raise TaskError("closed", f"task {task_id} was closed meanwhile")
    return row


__all__ = ["KIND_FR", "STATUS_FR", "TaskError", "TaskView", "close", "task_views"]
