"""Find what waits for someone and queue its notices, without touching the referee.

One pass (:func:`scan`) reads the database as the referee and the desks left it:

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
  the duel's referees; a task **without a duel** (a sign-up to read, ``signup_unsure``) goes to
  the admins.

Every item is queued on its own (issue 23): each in its own short transaction with its
watermark, so one bad row (a task whose ``duel_id`` is garbage) is skipped and reported once
(:func:`forumbot.notify.faults.report_once`) while every other item is queued. Every event has
a stable key, and queueing is idempotent (:func:`forumbot.notify.outbox.queue_event`): a crash
between queueing and moving the watermark only re-queues nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from forumbot.notify.faults import report_once
from forumbot.notify.items import held_by
from forumbot.notify.outbox import Event, queue_event, recipients
from forumbot.notify.settings import NotifyConfig, person_settings
from forumbot.storage import Storage, StorageOperationalError


def _mark(storage: Storage, name: str) -> int:
    row = storage.notices.state(name)
    return int(row["value"]) if row else 0


def _set_mark(storage: Storage, name: str, value: int) -> None:
    storage.notices.set_state(name, str(value))


def _duel_of(row: dict[str, Any]) -> int:
    """The row's duel id (raises on a missing or garbage one: the item is then reported)."""
    return int(row["duel_id"])


def _declaration_event(d: dict[str, Any], held: bool) -> Event:
    return Event(
        f"declaration:{d['id']}:{'held' if held else 'created'}",
        "draft_held" if held else "draft_waiting",
        _duel_of(d),
        d["turn"],
        f"declaration:{d['id']}",
    )


def _task_event(t: dict[str, Any]) -> tuple[Event, str]:
    """The task's event and audience: a task without a duel goes to the admins."""
    duel_id = None if t["duel_id"] is None else _duel_of(t)
    event = Event(
        f"referee_task:{t['id']}:opened",
        "task_opened",
        duel_id,
        None,
        f"referee_task:{t['id']}",
        {"kind": str(t["kind"] or "")},
    )
    return event, "referees" if duel_id is not None else "admins"


def scan(storage: Storage, cfg: NotifyConfig, now: datetime) -> list[int]:
    """Queue the notices of everything that started waiting (module docstring). Returns the
    ids of the notices queued in this pass. Each item commits on its own; a bad one is
    skipped and reported once, never stopping the others.

    Who is told about a duel and each person's settings are read once per pass (it runs at
    every publish interval, every undecided violation asked again: issue 12, idle CPU)."""
    queued: list[int] = []
    told = functools.cache(lambda duel_id, audience: recipients(storage, duel_id, audience))
    settings_of = functools.cache(lambda username: person_settings(storage, username, cfg))

    def item(key: str, build: Callable[[], tuple[Event, str] | None], *, mark: tuple[str, int]
             | None = None, duel_id: object = None, needs_task: bool = False) -> None:  # fmt: skip
        """Queue one item (and move its watermark) in one transaction; report a failure."""
        try:
            with storage.atomic():
                built = build()
                ids: list[int] = []
                if built is not None:
                    event, audience = built
                    people = told(event.duel_id, audience)
                    ids = queue_event(storage, event, people, cfg, now, settings_of=settings_of)
                if mark is not None:
                    _set_mark(storage, *mark)
            queued.extend(ids)
        except StorageOperationalError:
            raise  # the database, not the row (locked, disk): the whole pass retries
        except Exception as exc:  # one bad row: reported once, the pass goes on
            report_once(storage, key, exc, now, duel_id=duel_id, needs_task=needs_task)
            if mark is not None:
                with storage.atomic():
                    _set_mark(storage, *mark)

    start = _mark(storage, "declarations")
    top = start
    for d in storage.notices.declarations_after(start):
        top = max(top, int(d["id"]))
        pending = d["status"] in ("draft", "held")
        item(
            f"declaration:{d['id']}",
            (lambda d=d: (_declaration_event(d, d["status"] == "held"), "referees"))
            if pending
            else (lambda: None),
            mark=("declarations", top),
            duel_id=d["duel_id"],
            needs_task=pending,
        )
    # The rows looked at again at every pass (held drafts, undecided violations) are queued
    # in one transaction, each item in its own savepoint: an idle pass is one commit.
    with storage.atomic():
        for d in storage.notices.held_up_to(top):
            if held_by(storage, d) is not None:  # a referee's « Retenir »: nobody is told
                continue
            item(
                f"declaration:{d['id']}",
                lambda d=d: (_declaration_event(d, True), "referees"),
                duel_id=d["duel_id"],
                needs_task=True,
            )
        for v in storage.notices.undecided_violations():
            key = f"violation:{v['duel_id']}:{v['turn']}:{v['duellist']}:{v['rule']}"
            item(
                key,
                lambda v=v, key=key: (
                    Event(
                        key,
                        "violation_waiting",
                        _duel_of(v),
                        v["turn"],
                        key,
                        {"duellist": v["duellist"], "rule": v["rule"]},
                    ),
                    "admins",
                ),  # fmt: skip
                duel_id=v["duel_id"],
                needs_task=True,
            )
    start = _mark(storage, "referee_tasks")
    top = start
    for t in storage.notices.tasks_after(start):
        top = max(top, int(t["id"]))
        item(
            f"referee_task:{t['id']}",
            (lambda t=t: _task_event(t)) if t["status"] == "open" else (lambda: None),
            mark=("referee_tasks", top),
        )
    return queued


__all__ = ["scan"]
