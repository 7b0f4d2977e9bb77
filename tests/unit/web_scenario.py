"""A refereed classic duel for the web tests, produced by the real referee loop.

:func:`build` runs :class:`forumbot.duels.referee.Referee` against the in-memory
:class:`tests.fakes.forum.FakeForum`: the opening and turn 1 are published, turn 2 is a
pending draft in which Aurora Vexley repeats her spell (``repeated_spell``) and Cassius
Thorne's post carries HTML (``<script>``) that every page must show escaped.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.storage import Storage, open_storage
from forumbot.web.users import add_user, assign_referee
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum

OPENING = "Les adversaires : Aurora Vexley (1re année) contre Cassius Thorne (2e année)."
TOPIC = 7
FORUM = 3
EVIL = "<script>alert('x')</script>"
PASSWORD = "correct horse battery"


@dataclass
class Scenario:
    """What :func:`build` made: the database, the forum, the clock, ids to poke at."""

    storage: Storage
    forum: FakeForum
    referee: Referee
    clock: Clock
    duel_id: int
    draft_id: int
    task_id: int = 0  # an open referee task (a mechanism attempt) on the duel

    def publish_one(self, decl_id: int) -> None:
        """A ``publisher`` for the web app: publish the approved declarations now."""
        publish_due(self.storage, self.forum, self.clock)


def _post(forum: FakeForum, who: str, spell: str, extra: str = "") -> int:
    return forum.add_post(
        TOPIC, who, f"{who} lève sa baguette.{extra}\nIl se concentre.\n[b]{spell}[/b]"
    )


def build(path: str = ":memory:", review_delay_s: int = 600) -> Scenario:
    """The duel described in the module docstring, plus users ``alice`` (admin), ``rita``
    (referee of the duel) and ``otto`` (referee of nothing), all with :data:`PASSWORD`; and an
    open referee task (a mechanism attempt whose text carries :data:`EVIL`)."""
    forum = FakeForum()
    forum.add_topic(TOPIC, "Duel : Aurora contre Cassius", "Arbitre", OPENING)
    clock = Clock()
    storage = open_storage(path)
    referee = Referee(
        storage,
        forum,
        board_url="http://board.invalid",
        platform="phpbb3",
        review_delay_s=review_delay_s,
        now=clock,
        rng=random.Random(1),
    )
    referee.poll_forum(FORUM)
    clock.advance(review_delay_s + 1)
    publish_due(storage, forum, clock)
    _post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    _post(forum, "Cassius Thorne", "Sortilège de Chatouillis")
    referee.poll_forum(FORUM)
    clock.advance(review_delay_s + 1)
    publish_due(storage, forum, clock)
    _post(forum, "Aurora Vexley", "Sortilège de Désarmement")
    _post(forum, "Cassius Thorne", "Sortilège de Désarmement", extra=f" {EVIL}")
    referee.poll_forum(FORUM)
    clock.advance(60)
    duel_id = int(storage.duels()[0]["id"])
    pending = storage.declarations(("draft",), duel_id)
    assert len(pending) == 1, "the scenario expects one pending turn draft"
    add_user(storage, "alice", PASSWORD, "admin", clock())
    add_user(storage, "rita", PASSWORD, "referee", clock())
    add_user(storage, "otto", PASSWORD, "referee", clock())
    assign_referee(storage, duel_id, "rita", "alice", clock())
    task_id = storage.db["referee_tasks"].insert(
        {"board_id": referee.board_id, "duel_id": duel_id, "kind": "mechanism",
         "source_key": "scenario-mech", "duellist": "Aurora Vexley", "zone": None,
         "subject": "Aurora Vexley tente : le cadran", "text": f"Le cadran {EVIL}",
         "mechanism": "cadran", "post_id": None, "status": "open",
         "created_at": clock().isoformat()}
    ).last_pk  # fmt: skip
    return Scenario(
        storage, forum, referee, clock, duel_id, int(pending[0]["id"]), int(task_id or 0)
    )
