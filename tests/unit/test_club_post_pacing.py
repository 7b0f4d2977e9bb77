"""Issue 23: the club's posting budget (:class:`forumbot.club.posts.ClubPostBudget`): at most
``limit`` club posts per pass, and none while a declaration is due, checked before each post
(a declaration that becomes due in the middle of a pass stops it there)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from forumbot.club.posts import ClubPostBudget, draft_club_post, publish_due_club_posts
from forumbot.storage import Storage, open_storage
from tests.fakes.forum import ClubForum

pytestmark = pytest.mark.usefixtures("on_each_engine")

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def world(n: int) -> tuple[ClubForum, Storage]:
    forum = ClubForum()
    forum.add_topic(20, "Inscriptions", "Arbitre", "Vos fiches.")
    storage = open_storage(":memory:")
    for i in range(n):
        draft_club_post(storage, 1, f"b1-reg20-p{i}-x", "signup_reply", 20, f"Réponse {i}", NOW)
    return forum, storage


def test_at_most_limit_club_posts_per_pass_oldest_first_then_the_rest() -> None:
    forum, storage = world(7)
    first = publish_due_club_posts(storage, forum, lambda: NOW, 1, ClubPostBudget(3))
    assert len(first) == 3
    assert [p.text.splitlines()[0] for p in forum.posts[20][1:]] == [
        "Réponse 0", "Réponse 1", "Réponse 2"]  # fmt: skip
    rest = publish_due_club_posts(storage, forum, lambda: NOW, 1, ClubPostBudget(10))
    assert len(rest) == 4 and len(forum.posts[20]) == 1 + 7


def test_a_declaration_due_mid_pass_stops_the_club_posts_at_once() -> None:
    forum, storage = world(5)
    asked: list[int] = []

    def due() -> bool:
        asked.append(1)
        return len(asked) > 2  # a declaration becomes due after two club posts

    budget = ClubPostBudget(10, due)
    published = publish_due_club_posts(storage, forum, lambda: NOW, 1, budget)
    assert len(published) == 2 and budget.spent == 2 and budget.yielded == 1
    assert not budget.take()  # still due: nothing more this pass
