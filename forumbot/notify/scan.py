"""Find what waits for someone and queue its notices, without touching the referee.

One pass (:func:`scan`) reads the database as the referee and the 2v2 desk left it:

- declarations created since the last pass (watermark ``declarations``: highest id seen)
  that are ``draft`` -> ``draft_waiting``, ``held`` -> ``draft_held``, for the duel's referees
  (admins when it has none);
- any declaration the *bot* holds now (held after its creation: inputs changed after an edit,
  dice missing) -> ``draft_held`` once per declaration; a referee who pressed « Retenir »
  is not told about it (the audit log's last ``draft.*`` line is their ``draft.held``);
- violations undecided (``proposed`` / ``applied`` / ``waived``) -> ``violation_waiting`` for
  the admins, once per (duel, turn, duellist, rule): a recomputed draft re-inserts its rows
  but tells nobody twice;
- referee tasks opened since the last pass (watermark ``referee_tasks``) -> ``task_opened`` for
  the duel's referees.

Every event has a stable key, and queueing is idempotent (:func:`forumbot.notify.outbox.
queue_event`): a crash between queueing and moving the watermark only re-queues nothing.
"""

from __future__ import annotations

import functools
from datetime import datetime

from forumbot.notify.outbox import Event, queue_event, recipients
from forumbot.notify.settings import NotifyConfig, person_settings
from forumbot.storage import Storage


def _mark(storage: Storage, name: str) -> int:
    rows = list(storage.db["notify_state"].rows_where("name = ?", [name]))
    return int(rows[0]["value"]) if rows else 0


def _set_mark(storage: Storage, name: str, value: int, before: int) -> None:
    if value != before:  # an idle pass writes nothing (no commit to sync)
        storage.db.table("notify_state").upsert({"name": name, "value": str(value)}, pk="name")


def _held_by_person(storage: Storage, decl_id: int) -> bool:
    row = storage.db.execute(
        "select actor, action from audit_log where target = ? and action like 'draft.%' "
        "order by id desc limit 1",
        [f"declaration:{decl_id}"],
    ).fetchone()
    return bool(row and row[1] == "draft.held" and row[0] != "forumbot")


def scan(storage: Storage, cfg: NotifyConfig, now: datetime) -> list[int]:
    """Queue the notices of everything that started waiting (module docstring). Returns the
    ids of the notices queued in this pass. Commits once at the end.

    Who is told about a duel and each person's settings are read once per pass (it runs at
    every publish interval, every undecided violation asked again: issue 12, idle CPU)."""
    queued: list[int] = []
    told = functools.cache(lambda duel_id, audience: recipients(storage, duel_id, audience))
    settings_of = functools.cache(lambda username: person_settings(storage, username, cfg))

    def tell(event: Event, audience: str) -> None:
        people = told(event.duel_id, audience)
        queued.extend(queue_event(storage, event, people, cfg, now, settings_of=settings_of))

    with storage.db.atomic():
        mark = _mark(storage, "declarations")
        top = mark
        for d in storage.db["declarations"].rows_where("id > ?", [mark], order_by="id"):
            top = max(top, int(d["id"]))
            if d["status"] not in ("draft", "held"):
                continue
            kind = "draft_held" if d["status"] == "held" else "draft_waiting"
            event = Event(
                f"declaration:{d['id']}:{'held' if kind == 'draft_held' else 'created'}",
                kind,
                int(d["duel_id"]),
                d["turn"],
                f"declaration:{d['id']}",
            )
            tell(event, "referees")
        _set_mark(storage, "declarations", top, mark)
        for d in storage.db["declarations"].rows_where("status = 'held' and id <= ?", [top]):
            if _held_by_person(storage, int(d["id"])):
                continue
            event = Event(
                f"declaration:{d['id']}:held",
                "draft_held",
                int(d["duel_id"]),
                d["turn"],
                f"declaration:{d['id']}",
            )
            tell(event, "referees")
        for v in storage.db["violations"].rows_where(
            "status in ('proposed', 'applied', 'waived')", order_by="id"
        ):
            key = f"violation:{v['duel_id']}:{v['turn']}:{v['duellist']}:{v['rule']}"
            event = Event(
                key,
                "violation_waiting",
                int(v["duel_id"]),
                v["turn"],
                key,
                {"duellist": v["duellist"], "rule": v["rule"]},
            )
            tell(event, "admins")
        mark = _mark(storage, "referee_tasks")
        top = mark
        for t in storage.db["referee_tasks"].rows_where("id > ?", [mark], order_by="id"):
            top = max(top, int(t["id"]))
            if t["status"] != "open":
                continue
            event = Event(
                f"referee_task:{t['id']}:opened",
                "task_opened",
                int(t["duel_id"]),
                None,
                f"referee_task:{t['id']}",
            )
            tell(event, "referees")
        _set_mark(storage, "referee_tasks", top, mark)
    return queued


__all__ = ["scan"]
