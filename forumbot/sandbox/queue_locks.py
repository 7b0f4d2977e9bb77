"""What both sandbox flavours' moderators share (issue 22): the approval queue's listing and
locked topics and forums. Mixed into :class:`~forumbot.sandbox.board_queue.BoardQueue` and
:class:`~forumbot.sandbox.forumactif_queue.FaQueue`, which give the state (``_posts``,
``_locked_topics``, ``_locked_forums``, ``_lock``) and how a change is kept (``_save``: the
phpBB sandbox writes its state file; the Forumactif one keeps everything in memory)."""

from __future__ import annotations

from typing import Any


class QueueLocks:
    """The queue listing and the lock switches (module doc)."""

    _posts: dict[int, Any]
    _locked_topics: set[int]
    _locked_forums: set[int]
    _lock: Any

    def _save(self) -> None:
        """Keep a change (nothing by default: the phpBB board overrides it)."""

    def queued_posts(self, topic_id: int | None = None) -> list[Any]:
        """The posts waiting for approval (of one topic when ``topic_id`` is given), by id."""
        with self._lock:
            return sorted(
                (p for p in self._posts.values()
                 if not p.approved and (topic_id is None or p.topic_id == topic_id)),
                key=lambda p: p.post_id,
            )  # fmt: skip

    def lock_topic(self, topic_id: int, locked: bool = True) -> None:
        """Lock (or unlock) a topic: replies are refused with the board's locked sentence."""
        self._switch(self._locked_topics, topic_id, locked)

    def lock_forum(self, forum_id: int, locked: bool = True) -> None:
        """Lock (or unlock) a forum: replies and new topics are refused."""
        self._switch(self._locked_forums, forum_id, locked)

    def _switch(self, ids: set[int], item: int, on: bool) -> None:
        with self._lock:
            ids.discard(item)
            if on:
                ids.add(item)
            self._save()
