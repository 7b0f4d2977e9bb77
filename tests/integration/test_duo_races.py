"""2v2 posts that arrive while a declaration is still unpublished (found by a break-it pass:
a post written between a post and the publication of its declaration was skipped for good).
Runs on both sandboxes with the real clients (fixture of test_duo_duel)."""

from __future__ import annotations

import re

from forumbot.publish.typography import plain
from tests.integration.test_duo_duel import A1, A2, Duo2v2, duel  # noqa: F401  (fixture)


def _refs(text: str, post_id: int) -> list[str]:
    """Every « message n° <post_id> » of a bot post (plain or linked; not n° <post_id>0)."""
    return re.findall(rf"message n° {post_id}(?!\d)", plain(text))


def _names(text: str, post_id: int) -> bool:
    """Whether a bot post names message ``post_id``."""
    return bool(_refs(text, post_id))


def test_a_post_written_before_the_previous_declaration_is_published_is_declared(
    duel: Duo2v2,  # noqa: F811
) -> None:
    assert len(duel.cycle()) == 1  # the opening
    first = duel.post(A1, "Rictusempra", "le décor", "zone 2")
    second = duel.post(A2, "Protego", "moi")  # before the bot has declared A1's post
    duel.cycle()
    duel.cycle()
    texts = duel.bot_texts()
    assert any(_names(t, first) for t in texts)
    assert any(_names(t, second) for t in texts), texts[-1]
    assert set(duel.state().posted) == {A1, A2}
    # each post is declared once: no declaration answers a post twice
    assert sum(len(_refs(t, second)) for t in texts) == 1
