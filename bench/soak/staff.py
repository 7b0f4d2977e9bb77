"""The soak's staff: referees acting on drafts and tasks through the functions the CLI and the
review page call, and moderators acting on topics (pluggable: each moderator event runs only
when the sandbox board has the feature, detected with ``hasattr``).

Referees (per pass, seeded):

- a held draft: approved (``drafts approve``), or dropped (``drafts drop --reason``), or left
  for a later pass;
- a waiting draft: now and then approved at once, its text edited (``drafts edit
  --text-file``: a referee's sentence added), taken (« je m'en occupe », the review page's
  claim, then approved at a later pass), or dropped;
- an open referee task older than an hour: closed (the review page's task form).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from forumbot.duels.ending import EndingError, cancel_duel, drop_draft
from forumbot.duels.overrides import OverrideError, edit_text, set_status
from forumbot.notify.claims import ClaimError, take
from forumbot.notify.settings import notify_config
from forumbot.storage import iso
from soak.world import DUEL_FORUM, REFEREE, World


@dataclass
class Referees:
    """The referees' habits (probabilities per pass and draft) and what they did."""

    rng: random.Random
    approve_held: float = 0.55
    drop_held: float = 0.1
    approve_draft: float = 0.08
    edit_draft: float = 0.04
    claim_draft: float = 0.04
    drop_draft: float = 0.01
    did: Counter[str] = field(default_factory=Counter)
    decided: set[int] = field(default_factory=set)
    claimed: dict[int, float] = field(default_factory=dict)  # decl id -> when to approve

    def act(self, world: World) -> None:
        """One pass over the pending drafts and open tasks."""
        assert world.bot is not None
        storage, now = world.bot.storage, world.clock.utc()
        for decl in storage.declarations(("draft", "held", "approved"), None):
            decl_id = int(decl["id"])
            if decl_id in self.claimed and world.clock() >= self.claimed[decl_id]:
                self._do("approve_claimed", lambda d=decl_id: set_status(
                    storage, d, "approved", REFEREE, now))  # fmt: skip
                self.claimed.pop(decl_id, None)
                continue
            if decl["status"] == "held":
                self._held(world, decl_id, now)
            elif decl["status"] == "draft" and decl_id not in self.decided:
                self.decided.add(decl_id)
                self._draft(world, decl, now)
        self._tasks(world, now)

    def _do(self, what: str, action: Callable[[], object]) -> None:
        try:
            action()
        except (OverrideError, EndingError, ClaimError) as exc:
            self.did[f"{what}_refused"] += 1
            self.last_refusal = f"{what}: {exc}"
        else:
            self.did[what] += 1

    def _held(self, world: World, decl_id: int, now: datetime) -> None:
        assert world.bot is not None
        storage, roll = world.bot.storage, self.rng.random()
        if roll < self.approve_held:
            self._do("approve_held", lambda: set_status(storage, decl_id, "approved", REFEREE, now))
        elif roll < self.approve_held + self.drop_held:
            self._do("drop_held", lambda: drop_draft(
                storage, decl_id, "doublon", REFEREE, now))  # fmt: skip

    def _draft(self, world: World, decl: dict[str, Any], now: datetime) -> None:
        assert world.bot is not None
        storage, decl_id, roll = world.bot.storage, int(decl["id"]), self.rng.random()
        edges = [self.approve_draft, self.edit_draft, self.claim_draft, self.drop_draft]
        if roll < edges[0]:
            self._do("approve", lambda: set_status(storage, decl_id, "approved", REFEREE, now))
        elif roll < sum(edges[:2]):
            text = str(decl["text"]) + "\n\n[i]Précision de l'arbitre : tour vérifié.[/i]"
            self._do("edit", lambda: edit_text(storage, decl_id, text, REFEREE, now))
        elif roll < sum(edges[:3]):
            cfg = notify_config(world.config)
            self._do("claim", lambda: take(storage, decl_id, REFEREE, now, cfg))
            self.claimed[decl_id] = world.clock() + self.rng.uniform(300, 5400)
        elif roll < sum(edges):
            self._do("drop", lambda: drop_draft(storage, decl_id, "erreur", REFEREE, now))

    def _tasks(self, world: World, now: datetime) -> None:
        from forumbot.web.tasks import TaskError, close

        assert world.bot is not None
        storage = world.bot.storage
        old = iso(now - timedelta(hours=1))
        for task in storage.db["referee_tasks"].rows_where(
            "status = 'open' and created_at < ?", [old], order_by="id"
        ):
            if self.rng.random() < 0.5:
                continue
            if task["kind"] == "turn_dropped" and task["duel_id"] is not None:
                # the duel waits for the referee (a dropped turn or closure): one ends it
                waiting = int(task["duel_id"])
                if storage.duel(waiting)["status"] == "running":
                    # cancelling closes the duel's waiting tasks (duels/holds.py)
                    self._do("cancel_waiting", partial(
                        cancel_duel, storage, waiting, "brouillon abandonné", REFEREE, now))
                    continue
                # the duel ended meanwhile: the referee closes the question it leaves
            status = "solved" if task["kind"] == "mechanism" else "done"
            try:
                close(storage, int(task["id"]), status, REFEREE, now, None, "vu (soak)")
            except TaskError:
                self.did["task_refused"] += 1
            else:
                self.did[f"task_{task['kind']}"] += 1


ModeratorEvent = tuple[str, str, Callable[[World, random.Random, int], str]]
"""``(name, board feature it needs, action(world, rng, topic_id) -> what was done)``."""


def _lock(world: World, rng: random.Random, topic_id: int) -> str:
    board: Any = world.board
    board.lock_topic(topic_id)
    world.later(rng.uniform(1800, 6 * 3600), lambda: board.lock_topic(topic_id, False))
    world.note(f"lock t{topic_id}")
    return f"lock t{topic_id}"


def _move(world: World, rng: random.Random, topic_id: int) -> str:
    board: Any = world.board
    target = rng.choice((DUEL_FORUM + 10, DUEL_FORUM))  # an unwatched forum, or back
    if target not in getattr(board, "_forums", {}):
        board.add_forum(target, "Archives des duels")
    board.move_topic(topic_id, target)
    world.note(f"move t{topic_id} f{target}")
    return f"move t{topic_id} -> f{target}"


MODERATOR_EVENTS: list[ModeratorEvent] = [
    ("lock", "lock_topic", _lock),
    ("move", "move_topic", _move),
]
"""The moderator events; each runs only when the board has its feature."""


def enabled_moderator_events(board: object) -> list[ModeratorEvent]:
    """The events of :data:`MODERATOR_EVENTS` the sandbox ``board`` supports."""
    return [event for event in MODERATOR_EVENTS if hasattr(board, event[1])]
