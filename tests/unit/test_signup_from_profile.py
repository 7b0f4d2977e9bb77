"""A sign-up without the year (the season soak's phrasings, issue 23): a returning duellist's
one recorded profile says it; a newcomer is refused for what is missing; a post naming a
partner is refused too, never read as the profile's open request."""

from __future__ import annotations

import pytest

from forumbot.publish.typography import plain
from tests.unit.test_registrations import (
    THREAD,
    bot_replies,
    finish_by_concession,
    make,
    queue,
    signup,
)

NO_YEAR = (
    "Nom : Aurora Vexley\nType de magie : brutale",
    "Je m'inscris !\nType de magie : brutale",
)


def returning() -> tuple[object, object]:
    """Aurora (5e année, brutale) played one duel, which is over."""
    forum, desk = make()
    signup(forum, "Aurora Vexley", "5", "brutale")
    signup(forum, "Cassius Thorne", "5", "sournoise")
    desk.cycle()
    finish_by_concession(desk, int(str(queue(desk)[0]["duel_id"])), "Cassius Thorne")
    desk.cycle()
    return forum, desk


def read_as(desk: object, post_id: int) -> tuple[str, str]:
    (row,) = desk.storage.db["registration_posts"].rows_where("post_id = ?", [post_id])  # type: ignore[attr-defined]
    return str(row["status"]), str(row["code"])


@pytest.mark.parametrize("text", NO_YEAR)
def test_a_newcomer_without_a_year_is_refused_for_the_year(text: str) -> None:
    forum, desk = make()
    post_id = forum.add_post(THREAD, "Aurora Vexley", text)
    desk.cycle()
    assert read_as(desk, post_id) == ("invalid", "missing_year")
    (reply,) = bot_replies(forum)
    assert "il manque ton année d'études" in plain(reply)
    assert queue(desk) == []


@pytest.mark.parametrize("text", NO_YEAR)
def test_a_returning_duellist_without_a_year_is_read_with_the_profile(text: str) -> None:
    forum, desk = returning()
    before = len(bot_replies(forum))
    post_id = forum.add_post(THREAD, "Aurora Vexley", text)
    desk.cycle()
    assert read_as(desk, post_id) == ("accepted", "open_request")
    assert len(bot_replies(forum)) == before  # no refusal
    signup(forum, "Maelis Dunbar", "3", "discrète")  # the next lone sign-up pairs with her
    desk.cycle()
    last = queue(desk)[-1]
    assert {last["first_player"], last["second_player"]} == {"Aurora Vexley", "Maelis Dunbar"}


def test_a_returning_duellist_naming_a_partner_without_a_year_is_refused() -> None:
    forum, desk = returning()
    before = len(queue(desk))
    post_id = forum.add_post(
        THREAD, "Aurora Vexley",
        "Nom : Aurora Vexley\nType de magie : brutale\nPartenaire : Maelis Dunbar, 3e année, "
        "sournoise",
    )  # fmt: skip
    desk.cycle()
    assert read_as(desk, post_id) == ("invalid", "missing_year")
    assert "il manque ton année d'études" in plain(bot_replies(forum)[-1])
    assert len(queue(desk)) == before  # neither an open request nor a pairing


def test_a_returning_account_naming_another_character_without_a_year_is_refused() -> None:
    forum, desk = returning()
    post_id = forum.add_post(THREAD, "Aurora Vexley", "Nom : Bellatrix Moor\nType : sournoise")
    desk.cycle()
    assert read_as(desk, post_id) == ("invalid", "missing_year")
