"""What a Forumactif moderator or a member's profile does to the Forumactif sandbox's reading:
move a topic (with or without a shadow left in the old forum), delete a topic, keep a forum to
some readers, and a "newest first" order for a member's topic pages.

Forumactif's own pages for these are not captured (fixtures/forumactif/REPORT.md has none):
a moved topic keeps its id and its ``/t{id}-`` URLs and its JSON-LD breadcrumb names the new
forum (as the real pages name theirs); a deleted one is « Le sujet demandé n'existe pas. »; a
refused one a message page (ASSUMED wording, :data:`NO_READ`). No URL parameter overrides the
order preference: none is known for Forumactif topic URLs.

Mixed into :class:`forumbot.sandbox.forumactif.ForumactifSandbox`.
"""

from __future__ import annotations

from forumbot.sandbox.forumactif_model import NO_READ, FaForum, FaPost, _Session

__all__ = ["NO_READ", "FaModeration"]


class FaModeration:
    """Moderator actions and the order preference (module doc)."""

    def set_post_order(self, name: str, direction: str) -> None:
        """Member ``name``'s topic pages: ``"a"`` oldest first, ``"d"`` newest first.
        Raises ValueError for another direction, KeyError for no member."""
        if direction not in ("a", "d"):
            raise ValueError(f"direction {direction!r}: 'a' or 'd'")
        with self._lock:
            self._users[self.user_id(name)].post_order = direction

    def move_topic(self, topic_id: int, forum_id: int, *, shadow: bool = False) -> None:
        """Move a topic to ``forum_id``; with ``shadow`` the old forum keeps listing it."""
        with self._lock:
            if forum_id not in self._forums:
                raise KeyError(f"forum {forum_id}")
            topic = self._topics[topic_id]
            if shadow and topic.forum_id not in topic.shadow_forum_ids:
                topic.shadow_forum_ids.append(topic.forum_id)
            topic.forum_id = forum_id

    def delete_topic(self, topic_id: int) -> None:
        """Delete a topic and its posts."""
        with self._lock:
            self._topics.pop(topic_id)
            for post_id in [p.post_id for p in self._posts.values() if p.topic_id == topic_id]:
                del self._posts[post_id]

    def set_forum_readers(self, forum_id: int, readers: list[str] | None) -> None:
        """Who may read ``forum_id`` (None: every member)."""
        with self._lock:
            forum: FaForum = self._forums[forum_id]
            forum.readers = list(readers) if readers is not None else None

    def _may_read(self, session: _Session | None, forum_id: int) -> bool:
        forum: FaForum | None = self._forums.get(forum_id)
        if forum is None or forum.readers is None:
            return True
        if session is None:
            return False
        name = self._name(session.user_id).casefold()
        return any(reader.casefold() == name for reader in forum.readers)

    def _shown_posts(self, session: _Session | None, topic_id: int) -> list[FaPost]:
        """The topic's posts in the order the session's member sees them."""
        posts: list[FaPost] = self._topic_posts(topic_id)
        user = self._users.get(session.user_id) if session is not None else None
        return posts[::-1] if user is not None and user.post_order == "d" else posts
