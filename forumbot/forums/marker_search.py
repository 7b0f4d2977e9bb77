"""The marker search both forum clients share: the bot's own published post carrying an
idempotency marker ``forumbot·<key>`` (exactly once: the poster looks before posting again).

Mixed into :class:`~forumbot.forums.phpbb.PhpbbClient` and
:class:`~forumbot.forums.forumactif.ForumactifClient`, which give ``read_topic``,
``username`` and how a marker is matched in one post (``_post_has_marker``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from parsers.model import Post


class _Reads(Protocol):
    username: str

    def read_topic(self, topic_id: int, after_post_id: int | None) -> Sequence[Post]: ...

    def _post_has_marker(self, marker: str, post: Post) -> bool: ...


class MarkerSearch:
    """``find_marker`` over the client's own topic reads (module doc)."""

    def find_marker(
        self: _Reads, topic_id: int, marker: str, after_post_id: int | None
    ) -> int | None:
        """Id of the first post by this client's user after ``after_post_id`` carrying
        ``marker`` (its text or raw HTML); None when there is none. A post still waiting for a
        moderator (shown to its author only, ``Post.unapproved``) is not published yet and is
        not found (issue 22).

        Raises: what ``read_topic`` raises (ForumError subclasses)."""
        me = self.username.casefold()
        for post in self.read_topic(topic_id, after_post_id):
            if post.unapproved:
                continue
            if post.author.casefold() == me and self._post_has_marker(marker, post):
                return post.post_id
        return None


PM_TEXT_CACHE_SIZE = 512
"""Most PM texts a client keeps (:func:`pm_text_cache`); beyond it the cache starts again."""


def pm_text_cache(client: object) -> dict[str, str]:
    """The texts of the sent PMs ``client`` has read, by the message's link (``href`` ->
    text, ``""`` when the page showed none): a sent PM never changes, so a marker search
    reads each one once per process (issue 23, owls looked for after a restore). Bounded by
    :data:`PM_TEXT_CACHE_SIZE` (emptied when full)."""
    texts: dict[str, str] = client.__dict__.setdefault("_pm_texts", {})
    if len(texts) >= PM_TEXT_CACHE_SIZE:
        texts.clear()
    return texts
