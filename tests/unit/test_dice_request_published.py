"""A referee publishes the held « il manque les dés » post (issue 27/25 mend): on Forumactif a
post without the forum's dice holds the step's draft with a request for them
(:func:`forumbot.duels.flow.missing_dice_draft`). Approved and published, it used to be
advanced like a turn declaration with no outcome: a TypeError after the post was on the
forum, the row left ``publishing`` and the step's own declaration never written. The request
now has its own key (``…-dice``, kind ``notice``): published once, it advances nothing, and
the step's declaration follows when the dice come."""

from __future__ import annotations

from forumbot.duels.deadlines import sweep
from forumbot.duels.overrides import set_status
from forumbot.duels.publication import publish_due
from forumbot.duels.referee import Referee
from forumbot.storage import Storage
from parsers.model import DiceRoll
from tests.fakes.clock import Clock
from tests.fakes.forum import FakeForum
from tests.unit.test_reader4_wrong import A, C, _cast, _fatigue_duel
from tests.unit.test_referee_flow import make_forumactif


def bot_posts(forum: FakeForum) -> list[str]:
    return [p.text for p in forum.posts[7] if p.author == "Hibou"]


def publish_request(storage: Storage, forum: FakeForum, clock: Clock) -> dict[str, object]:
    """Approve the one held dice request and publish it (no poll in between, as when the
    publish job runs before the next poll); returns its row."""
    (held,) = storage.declarations(("held",))
    assert held["kind"] == "notice" and str(held["idempotency_key"]).endswith("-dice")
    set_status(storage, held["id"], "approved", "arbitre", clock())
    posts = len(bot_posts(forum))
    published = publish_due(storage, forum, clock)
    assert len(published) == 1 and len(bot_posts(forum)) == posts + 1
    assert "Il manque les dés" in bot_posts(forum)[-1]
    row = storage.declaration(held["id"])
    assert row["status"] == "published" and row["published_post_id"] == published[0]
    return row


def settle(ref: Referee, storage: Storage, forum: FakeForum, clock: Clock) -> list[int]:
    """Two more poll/sweep/publish rounds; the post ids published."""
    out: list[int] = []
    for _ in range(2):
        ref.poll_forum(3)
        sweep(ref, 3)
        out += publish_due(storage, forum, clock)
    return out


def test_a_published_fatigue_dice_request_is_posted_once_and_the_step_follows() -> None:
    forum, ref, storage, clock = _fatigue_duel("forumactif", ["brutale"], ["sournoise"])
    forum.add_post(7, A, _cast("Flipendo"), dice=(DiceRoll("Pari", (2,)),))
    ref.poll_forum(3)
    assert len(publish_due(storage, forum, clock)) == 1  # Aurora's first declaration
    state_before = storage.duels()[0]["state_json"]
    late = forum.add_post(7, C, _cast("Flipendo"))
    ref.poll_forum(3)
    request = publish_request(storage, forum, clock)
    assert storage.duels()[0]["state_json"] == state_before  # a request advances nothing
    assert settle(ref, storage, forum, clock) == []  # still no dice: not posted again
    forum.attach_dice(7, late, (DiceRoll("Pari", (3,)),))
    (step,) = settle(ref, storage, forum, clock)
    keys = [(d["idempotency_key"], d["status"]) for d in storage.declarations()]
    assert keys.count((request["idempotency_key"], "published")) == 1
    assert sum(1 for k, s in keys if s == "published" and k.endswith("-dice")) == 1
    (decl,) = [d for d in storage.declarations() if d["published_post_id"] == step]
    assert decl["kind"] == "turn" and not str(decl["idempotency_key"]).endswith("-dice")
    assert storage.duels()[0]["state_json"] != state_before
    assert not storage.declarations(("held", "publishing"))


def classic_without_dice() -> tuple[FakeForum, Referee, Clock, int]:
    """A classic Forumactif duel whose turn 1 waits for Cassius' dice (the request held);
    returns the forum, referee, clock and Cassius' post id."""
    forum, referee, clock = make_forumactif()
    referee.poll_forum(3)
    publish_due(referee.storage, forum, clock)
    forum.add_post(7, A, "Je lance.\n[b]Sortilège de Désarmement[/b]",
                   dice=(DiceRoll("Duel", (3, 4)),))  # fmt: skip
    late = forum.add_post(7, C, "J'oublie les dés.\n[b]Sortilège de Chatouillis[/b]")
    referee.poll_forum(3)
    return forum, referee, clock, late


def test_a_published_classic_dice_request_then_the_turn() -> None:
    forum, referee, clock, late = classic_without_dice()
    storage = referee.storage
    publish_request(storage, forum, clock)
    referee.poll_forum(3)
    assert publish_due(storage, forum, clock) == []
    forum.attach_dice(7, late, (DiceRoll("Duel", (2, 2)),))
    referee.poll_forum(3)
    assert len(publish_due(storage, forum, clock)) == 1
    assert "attaque 2, défense 2" in bot_posts(forum)[-1]
    assert len(list(storage.db["turns"].rows)) == 1


def test_an_unpublished_dice_request_is_cancelled_when_the_dice_come() -> None:
    forum, referee, clock, late = classic_without_dice()
    storage = referee.storage
    (held,) = storage.declarations(("held",))
    forum.attach_dice(7, late, (DiceRoll("Duel", (2, 2)),))
    referee.poll_forum(3)
    assert storage.declaration(held["id"])["status"] == "cancelled"
    assert len(publish_due(storage, forum, clock)) == 1
    assert sum("Il manque les dés" in t for t in bot_posts(forum)) == 0
