"""What a phpBB moderator or a member's profile does to the sandbox board's reading: move a
topic (with or without the shadow topic phpBB can leave behind, off by default), delete a
topic, keep a forum to some readers (``f_read``), and a member's "Display posts" order
(UCP → Board preferences: newest first is ``user_post_sortby_dir = 'd'``).

Mixed into :class:`forumbot.sandbox.board.SandboxBoard` (its state: ``_users``, ``_forums``,
``_topics``, ``_posts``, ``_lock``, ``_save``).
"""

from __future__ import annotations

from forumbot.sandbox.board_model import GUEST_ID, Forum, Session


class BoardModeration:
    """Moderator actions and the sort preference (module doc)."""

    def set_post_order(self, name: str, direction: str) -> None:
        """Member ``name``'s "Display posts" preference: ``"a"`` (oldest first) or ``"d"``
        (newest first). Raises ValueError for another direction, KeyError for no member."""
        if direction not in ("a", "d"):
            raise ValueError(f"direction {direction!r}: 'a' or 'd'")
        with self._lock:
            user = self._users[self.user_id(name)]
            user.post_sortby_dir = direction
            self._save()

    def move_topic(self, topic_id: int, forum_id: int, *, shadow: bool = False) -> None:
        """Move a topic to ``forum_id`` (phpBB MCP "Move topic"); with ``shadow``, the old
        forum keeps a shadow row linking to it ("Leave shadow topic in old forum", unticked
        by default). Its id and its posts' ids do not change."""
        with self._lock:
            if forum_id not in self._forums:
                raise KeyError(f"forum {forum_id}")
            topic = self._topics[topic_id]
            if shadow and topic.forum_id not in topic.shadow_forum_ids:
                topic.shadow_forum_ids.append(topic.forum_id)
            topic.forum_id = forum_id
            self._save()

    def delete_topic(self, topic_id: int) -> None:
        """Delete a topic and its posts (readers get « Le sujet demandé n’existe pas. »)."""
        with self._lock:
            self._topics.pop(topic_id)
            posts = self._posts
            for post_id in [p.post_id for p in posts.values() if p.topic_id == topic_id]:
                del posts[post_id]
            self._save()

    def set_forum_readers(self, forum_id: int, readers: list[str] | None) -> None:
        """Who may read ``forum_id`` (None: every member): the others get phpBB's 403
        SORRY_AUTH_READ page on its topics and its listing."""
        with self._lock:
            forum: Forum = self._forums[forum_id]
            forum.readers = list(readers) if readers is not None else None
            self._save()

    def _may_read(self, session: Session, forum_id: int) -> bool:
        """True when the session's member may read forum ``forum_id``."""
        forum: Forum | None = self._forums.get(forum_id)
        if forum is None or forum.readers is None:
            return True
        if session.user_id == GUEST_ID:
            return False
        name = self._name(session.user_id).casefold()
        return any(reader.casefold() == name for reader in forum.readers)

    def _post_order(self, session: Session, asked: str | None) -> str:
        """The direction a topic page is shown in: the URL's ``sd`` when it is ``a`` or
        ``d``, else the member's preference (phpBB: ``request->variable('sd', default)``)."""
        if asked in ("a", "d"):
            return asked
        user = self._users.get(session.user_id)
        return user.post_sortby_dir if user is not None else "a"
