"""Automatic publication pauses while the clocks disagree (issue 24 F7).

Reading of the issue (a setting-free choice, said in the report): only publication *by a
review delay* pauses, since only it trusts the local clock (``publish_after <= now``): turn
drafts and club posts wait; declarations a referee approved, and the review page's "publish
now", still go (a person decided, not the clock).

The pause is an open referee task of kind :data:`TASK_KIND` (no duel), so every process (the
run, the review page) sees it in the database and the referee sees it on the page and in a
notice. :func:`sync_clock_pause` opens it with one warning when
:meth:`~forumbot.forums.clock_watch.ClockWatch.problem` finds one, and closes it with one line
when the clocks agree again.
"""

from __future__ import annotations

import logging
from datetime import datetime

from forumbot.forums.clock_watch import ClockWatch
from forumbot.storage import Storage, iso

log = logging.getLogger("forumbot.publish")

TASK_KIND = "clock_skew"
"""``referee_tasks.kind`` of the pause."""


def delay_paused(storage: Storage) -> bool:
    """True while a :data:`TASK_KIND` task is open: no draft publishes by its delay."""
    return storage.publish_rows.open_task_of_kind(TASK_KIND)


def sync_clock_pause(storage: Storage, watch: ClockWatch | None, now: datetime) -> bool:
    """Open or close the pause after what ``watch`` saw (None: nothing watched, the pause
    stays as it is); returns whether publication by delay is paused now.

    Opening: one WARNING line and one open task (French text for the referee). Closing: one
    INFO line, the task ``done`` by ``forumbot`` with a note.
    """
    paused = delay_paused(storage)
    if watch is None:
        return paused
    problem = watch.problem()
    if problem is not None and not paused:
        with storage.atomic():
            storage.publish_rows.open_clock_task(
                TASK_KIND,
                f"clock-{iso(now)}",
                "Horloge du bot déréglée : publication automatique suspendue",
                "L'horloge de la machine du bot ne s'accorde plus avec celle du forum. "
                "Aucun brouillon ne part tout seul à la fin de son délai de relecture tant "
                "qu'elles ne s'accordent pas ; les brouillons approuvés partent toujours. "
                "Faites régler l'horloge (NTP) : la tâche se ferme d'elle-même ensuite.",
                iso(now),
                problem,
            )
        log.warning(
            "clock: %s: publication by review delay paused (referee task %s) until the clocks "
            "agree again",
            problem,
            TASK_KIND,
        )
        return True
    if problem is None and paused:
        with storage.atomic():
            storage.publish_rows.close_clock_tasks(
                TASK_KIND, iso(now), " ; horloges de nouveau d'accord"
            )
        log.info("clock: the local clock agrees with the board again: publication by delay resumes")
        return False
    return paused
