"""Late edits in 2v2 duels (found by a break-it pass: a post edited after its declaration was
kept in its version in force but never proposed as ``late_edit``). RULES.md "Ruleset fatigue —
all duels": a post edited after the next post keeps the version in force and the edit is
``late_edit``, proposed to the referee (seed 001: "L'édition d'un poste ..."). Runs on both
sandboxes with the real clients (fixture of test_duo_duel)."""

from __future__ import annotations

import re
from typing import Any

from forumbot.publish.typography import plain
from tests.integration.test_duo_duel import (  # noqa: F401  (fixture)
    A1,
    A2,
    B1,
    PLAYER_PAUSE,
    Duo2v2,
    duel,
)


def _edit(duel: Duo2v2, post_id: int, old: str, new: str) -> None:  # noqa: F811
    """The author edits ``post_id``, replacing ``old`` by ``new`` in its text."""
    (post,) = [p for p in duel.board.posts(duel.topic_id) if p.post_id == post_id]
    assert old in post.text
    text = post.text.replace(old, new)
    duel.clock.advance(PLAYER_PAUSE)  # the author edits a minute after the last event
    if duel.forum:
        duel.board.edit_post(post_id, text)
    else:
        duel.board.edit_post(post_id, text, by=A1)


def _late_rows(duel: Duo2v2) -> list[dict[str, Any]]:  # noqa: F811
    return list(duel.bot.storage.db["violations"].rows_where("rule = 'late_edit'"))


def test_an_edit_after_the_declaration_is_proposed_as_late_edit_once(
    duel: Duo2v2,  # noqa: F811
) -> None:
    assert len(duel.cycle()) == 1  # the opening
    first = duel.post(A1, "Rictusempra", "le décor", "zone 2")
    assert len(duel.cycle()) == 1  # A1's post declared
    declared = duel.bot_texts()[-1]
    # « (message n° 3) », or on Forumactif « ([url=…]message n° 3[/url]) »; never n° 30
    assert re.search(rf"message n° {first}(?!\d)", plain(declared)) and "Rictusempra" in declared
    _edit(duel, first, "[b]Rictusempra[/b]", "[b]Expelliarmus[/b]")  # after its declaration

    t = duel.play(A2, "Protego", "moi")
    # the version in force is kept: A1's declared spell stands, the edit changes nothing
    assert "Expelliarmus" not in t
    assert ("Infraction possible d'Aurora Vexley, à l'appréciation de l'arbitre : son message a "
            "été modifié après le message suivant") in plain(t), t
    which = rf"a été modifié après le message suivant \((\[url=[^\]]*\])?message n° {first}(?!\d)"
    assert re.search(which, plain(t)), t  # which post (linked on Forumactif)
    rows = _late_rows(duel)
    assert [(r["duellist"], r["post_id"], r["status"]) for r in rows] == [(A1, first, "proposed")]

    # later polls and the next declaration neither repeat nor duplicate it
    duel.cycle()
    t = duel.play(B1, "Flipendo", "Le strangulot du bassin")
    assert "a été modifié après le message suivant" not in t
    duel.cycle()
    rows = _late_rows(duel)
    assert [(r["duellist"], r["post_id"], r["status"]) for r in rows] == [(A1, first, "proposed")]
    assert sum("a été modifié après le message suivant" in x for x in duel.bot_texts()) == 1


def test_an_edit_before_the_next_post_is_no_late_edit(duel: Duo2v2) -> None:  # noqa: F811
    assert len(duel.cycle()) == 1  # the opening
    first = duel.post(A1, "Rictusempra", "le décor", "zone 2")
    _edit(duel, first, "[b]Rictusempra[/b]", "[b]Expelliarmus[/b]")  # nobody posted since
    assert len(duel.cycle()) == 1
    assert "Expelliarmus" in duel.bot_texts()[-1]  # the edit is the version in force
    t = duel.play(A2, "Protego", "moi")
    assert "a été modifié après le message suivant" not in t
    assert _late_rows(duel) == []
