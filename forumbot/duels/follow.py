"""Duels follow their topic (issue 22): a moderator moves or deletes a running duel's topic.

phpBB moves a topic without a shadow by default, so the watched forum's listing stops showing
it: nothing would read it again, the duel would stay ``running`` with no warning and its
deadlines would count the players as silent. Instead:

* **Read by id.** A live duel whose topic is missing from its forum's whole listing for
  ``poll.follow_after_polls`` polls in a row (default 3), or known to be in another forum now
  (``duels.board_forum_id``), is read by id at every poll (phpBB ``viewtopic.php?t=ID`` /
  ``?p=N``, Forumactif ``/tID-`` and ``/viewtopic?t=ID&p=N``: both answer a topic whatever
  its forum). The listing no longer says when it changes, so each poll reads its last page
  (one request). :meth:`forumbot.duels.topic_watch.TopicWatch.unlisted` picks them.
* **Moved.** After any read, the forum the page names (its breadcrumb: the clients keep it in
  ``client.topic_forums``) is compared with where the duel is known to be. When it differs,
  the bot carries on, says it once (one log line, a ``duel.topic_moved`` audit entry, a
  ``topic_followed`` referee task, which the notify pass turns into a notice) and stores the
  new forum (``duels.board_forum_id``; a forum this process polls becomes the duel's
  ``forum_id``). A shadow topic left in the old forum keeps the topic listed there: it is
  read as before, and the move is told the same way.
* **Gone.** When the read by id answers « Le sujet demandé n'existe pas » / 404 / a page that
  is no topic (:class:`~forumbot.errors.TopicNotFound`) or a refusal
  (:class:`~forumbot.errors.PermissionDenied`: the forum it went to is not readable), the
  duel is held (``duels.held_at``; its pending drafts ``held``; a ``topic_gone`` referee task
  quoting the board; an error line; audit ``duel.held``). A held duel is not read, and its
  deadlines do not count (:func:`forumbot.duels.deadlines.sweep` skips it).
* **The referee's way out.** ``forumbot duels resume TOPIC`` (:func:`resume_duel`): the duel
  is read again at the next poll (held again if the topic is still gone), the drafts the hold
  held go back to ``draft``, and its pending deadlines restart from the resume time
  (``deadlines.started_at``): the players are not charged for the time it was held.
  ``forumbot duels cancel`` ends it instead; both close the hold's tasks.

What is kept per poll is in the duel's row (read once per poll with the listing's duels) and
in :class:`~forumbot.duels.topic_watch.TopicWatch`'s memory: no query per duel per poll.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from forumbot.duels.flows import flow_for
from forumbot.duels.holds import HOLD_TASKS, close_hold_tasks
from forumbot.errors import ForumError, PermissionDenied, PostsOutOfOrder, TopicNotFound
from forumbot.forums.base import TopicSummary
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from forumbot.storage.records import Duel
from rules.timeouts import TimeoutPolicy, next_deadline, owl_reminder_at

log = logging.getLogger("forumbot.duels.referee")

GONE = (TopicNotFound, PermissionDenied)
"""What a read by id answers for a topic that is gone (deleted, or in a forum the bot may not
read): the duel is held."""

@dataclass(frozen=True)
class FollowedTopic(TopicSummary):
    """A duel topic to read by id (no listing row: last post and replies unknown); the
    referee never takes it as unchanged."""

    @classmethod
    def of(cls, duel: Duel) -> FollowedTopic:
        """The summary of ``duel``'s topic, read by id."""
        return cls(duel.topic_id, duel.title or "", None, -1, None)


class FollowError(Exception):
    """A resume refused (no such duel, not held, not live)."""


def report_failure(topic_id: int, exc: ForumError) -> None:
    """The one line of a poll that failed on a topic: an error for a page read in the wrong
    order (:class:`~forumbot.errors.PostsOutOfOrder`: nothing was read, nothing advanced; it
    needs someone to fix the bot's profile), a warning otherwise (retried next cycle)."""
    if isinstance(exc, PostsOutOfOrder):
        log.error("topic %s: read refused, nothing recorded (%s); will retry next cycle",
                  topic_id, exc)  # fmt: skip
        return
    log.warning(
        "topic %s: poll failed (%s: %s); will retry next cycle", topic_id, type(exc).__name__, exc
    )


@dataclass
class TopicFollow:
    """Tells where a duel's topic went, holds a duel whose topic is gone (module doc).

    Args:
        storage: the bot's database; board_id: the board row.
        now: clock (aware UTC datetime).
        polled_forums: the forums this process polls (a move into one of them makes it the
            duel's ``forum_id``).
    """

    storage: Storage
    board_id: int
    now: Callable[[], datetime]
    polled_forums: Callable[[], set[int]]

    def note_forum(self, duel: Duel, client: object) -> Duel:
        """After a read of ``duel``'s topic: when the page named another forum than the one
        the duel is known to be in, record it and say it once (module doc). Returns the duel
        as it is now."""
        shown = getattr(client, "topic_forums", {}).get(duel.topic_id)
        known = duel.board_forum_id if duel.board_forum_id is not None else duel.forum_id
        if shown is None or duel.forum_id is None or shown == known:
            return duel
        if shown == duel.forum_id or shown in self.polled_forums():
            fields: dict[str, Any] = {"forum_id": shown, "board_forum_id": None}
        else:
            fields = {"board_forum_id": shown}
        now = self.now()
        log.warning(
            "duel %s: topic %s was moved from forum %s to forum %s; the bot follows it there%s",
            duel.id, duel.topic_id, known, shown,
            "" if fields.get("board_forum_id") is None else " (read by id at every poll)",
        )  # fmt: skip
        text = (
            f"Le sujet {duel.topic_id} du duel « {duel.title or ''} » a été déplacé du forum "
            f"{known} vers le forum {shown}. Le bot le suit et continue d'arbitrer le duel : "
            "rien à faire, sinon vérifier que ce déplacement est voulu."
        )
        with self.storage.atomic():
            self.storage.update_duel(duel.id, **fields)
            self.storage.audit(
                "forumbot", "duel.topic_moved", f"duel:{duel.id}", {"forum_id": known},
                {"forum_id": shown, "topic_id": duel.topic_id}, now,
            )  # fmt: skip
            subject = f"Sujet {duel.topic_id} déplacé : forum {known} -> {shown}"
            self._task(duel, "topic_followed", f"moved-{known}-{shown}-{iso(now)}", subject,
                       text, now)  # fmt: skip
        return replace(duel, **fields)

    def hold_gone(self, duel: Duel, exc: ForumError) -> None:
        """The duel's topic is gone or unreadable (``exc``: the board's answer): hold the
        duel for a referee, loudly (module doc)."""
        now = self.now()
        reason = f"{type(exc).__name__}: {exc}"
        log.error(
            "duel %s: topic %s is gone or unreadable (%s): duel held, its deadlines frozen, its "
            "drafts held; a referee decides (forumbot duels resume %s, or duels cancel)",
            duel.id, duel.topic_id, reason, duel.topic_id,
        )  # fmt: skip
        text = (
            f"Le sujet {duel.topic_id} du duel « {duel.title or ''} » est introuvable ou "
            f"illisible pour le bot (réponse du forum : {exc}). Le duel est suspendu et ses "
            "délais ne courent plus. Remettez le sujet en place puis « forumbot duels resume "
            f"{duel.topic_id} », ou annulez le duel (« forumbot duels cancel "
            f"{duel.topic_id} »)."
        )
        with self.storage.atomic():
            self.storage.update_duel(duel.id, held_at=iso(now), held_reason=reason)
            self.storage.duel_rows.hold_drafts(duel.id, f"topic gone: {reason}", iso(now))
            self.storage.audit(
                "forumbot", "duel.held", f"duel:{duel.id}", {"held_at": None},
                {"held_at": iso(now), "reason": reason}, now,
            )  # fmt: skip
            self._task(duel, "topic_gone", f"gone-{iso(now)}",
                       f"Sujet {duel.topic_id} introuvable : duel suspendu", text, now)  # fmt: skip

    def _task(
        self, duel: Duel, kind: str, key: str, subject: str, text: str, now: datetime
    ) -> None:
        """Open a referee task (the notify pass tells the duel's referees); its key counts
        the duel's tasks of that kind, so a second hold at the same second is a new task."""
        count = self.storage.duel_tasks.kind_count(duel.id, kind)
        key = f"{key}-{int(count) + 1}"
        self.storage.duel_tasks.add_hold_task(
            [self.board_id, duel.id, kind, f"b{self.board_id}t{duel.topic_id}-{key}", subject,
             text, iso(now)],
        )  # fmt: skip


@dataclass(frozen=True)
class Resumed:
    """What :func:`resume_duel` did: the duel, its deadlines restarted (ids), its drafts
    released (ids), the tasks closed (ids)."""

    duel_id: int
    deadlines: tuple[int, ...]
    drafts: tuple[int, ...]
    tasks: tuple[int, ...]


def resume_duel(storage: Storage, duel_id: int, actor: str, now: datetime) -> Resumed:
    """A referee resumes a held duel (module doc): not held any more, read again at the next
    poll; the drafts the hold held back to ``draft``; every pending deadline restarted at
    ``now`` (its due and reminder times recomputed from ``now``, as if its declaration had
    just been published); the hold's tasks closed; audit ``duel.resume``.

    Raises:
        FollowError: no such duel, a duel over, or one that is not held.
    """
    try:
        duel = Duel.from_row(storage.duel(duel_id))
    except Exception as exc:  # sqlite_utils NotFoundError
        raise FollowError(f"no duel {duel_id}") from exc
    if duel.status not in ("open", "running"):
        raise FollowError(f"duel {duel_id} is {duel.status}: nothing to resume")
    if duel.held_at is None:
        raise FollowError(f"duel {duel_id} is not held (topic {duel.topic_id} is followed)")
    pending = storage.duel_tasks.pending_of(duel_id)
    restarted: list[int] = []
    with storage.atomic():
        if pending:  # only duels with deadlines (fatigue, 2v2) have a timeout policy
            ruleset = load_ruleset(str(duel.ruleset))
            kind = flow_for(storage, duel, ruleset).timeout_kind or "1v1"
            policy = TimeoutPolicy.from_ruleset(ruleset)
        for row in pending:
            due = next_deadline(row["phase"], now, kind, policy=policy)  # type: ignore[arg-type]
            remind = owl_reminder_at(due, policy=policy)
            storage.duel_tasks.update_deadline(
                row["id"],
                {"started_at": iso(now), "due_at": iso(due),
                 "remind_at": iso(remind) if remind is not None else None},
            )  # fmt: skip
            restarted.append(int(row["id"]))
        drafts = storage.duel_rows.held_for_gone_topic(duel_id)
        for decl_id in drafts:
            storage.duel_rows.unhold(decl_id, iso(now))
        tasks = close_hold_tasks(storage, duel_id, actor, now, "resumed")
        storage.update_duel(duel_id, held_at=None, held_reason=None)
        storage.audit(
            actor, "duel.resume", f"duel:{duel_id}",
            {"held_at": duel.held_at, "reason": duel.held_reason},
            {"deadlines_restarted": restarted, "drafts_released": drafts, "tasks_closed": tasks},
            now,
        )  # fmt: skip
    log.info("duel %s: resumed by %s (held since %s)", duel_id, actor, duel.held_at)
    return Resumed(duel_id, tuple(restarted), tuple(drafts), tuple(tasks))


__all__ = [
    "FollowError",
    "FollowedTopic",
    "GONE",
    "HOLD_TASKS",
    "Resumed",
    "TopicFollow",
    "close_hold_tasks",
    "report_failure",
    "resume_duel",
]
