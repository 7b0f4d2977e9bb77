"""The sandbox phpBB board's moderators (issue 22): the approval queue (an account flagged
``needs_approval`` posts into it; its posts stay invisible to others until
:meth:`BoardQueue.approve_post`; its author sees them with phpBB's "unapproved" notice,
as ``display_unapproved_posts = 1``, phpBB 3.3's default, does) and locked topics and forums
(the real locked reply button, no quick reply, and ``posting.php`` answering phpBB's
``TOPIC_LOCKED`` / ``FORUM_LOCKED`` message).

Markup and sentences from phpBB 3.3.x (``styles/prosilver/template/viewtopic_body.html``:
``S_IS_LOCKED`` button, ``S_POST_UNAPPROVED`` -> ``p.post-notice.unapproved``;
``language/en/common.php`` ``TOPIC_LOCKED``, ``FORUM_LOCKED``, ``POST_UNAPPROVED_EXPLAIN``;
``posting.php``: the lock is checked after the login box, a moderator is exempt). The French
sentences are the phpBB-fr pack's as far as known (``TOPIC_LOCKED`` is quoted by issue 22;
``FORUM_LOCKED`` and ``POST_UNAPPROVED_EXPLAIN`` are ASSUMED translations)."""

from __future__ import annotations

from forumbot.sandbox.board_model import FORUM_LOCKED, TOPIC_LOCKED, PostRecord, Topic
from forumbot.sandbox.queue_locks import QueueLocks


class BoardQueue(QueueLocks):
    """Moderator actions and checks mixed into :class:`forumbot.sandbox.board.SandboxBoard`
    (they use its ``_users``, ``_topics``, ``_forums``, ``_posts``, ``_lock``, ``_save``)."""

    def set_needs_approval(self, name: str, needs: bool = True) -> None:
        """Put the account ``name`` on (or off) the moderator queue: its next posts wait for
        :meth:`approve_post`."""
        with self._lock:
            self._users[self.user_id(name)].needs_approval = needs
            self._save()

    def approve_post(self, post_id: int) -> None:
        """A moderator approves the queued post ``post_id``: it becomes visible to all.

        Raises: KeyError when there is no such post."""
        with self._lock:
            self._posts[post_id].approved = True
            self._save()

    def _lock_refusal(self, topic: Topic | None, forum_id: int | None) -> str | None:
        """phpBB's sentence refusing a post in ``topic`` (or a new topic in ``forum_id``), or
        None when it is open (posting.php: ``FORUM_LOCKED`` first, then ``TOPIC_LOCKED``)."""
        forum = topic.forum_id if topic is not None else forum_id
        if forum is not None and forum in self._locked_forums:
            return FORUM_LOCKED
        if topic is not None and topic.topic_id in self._locked_topics:
            return TOPIC_LOCKED
        return None

    def _is_locked(self, topic: Topic) -> bool:
        return topic.topic_id in self._locked_topics or topic.forum_id in self._locked_forums

    def _shown_posts(self, topic_id: int, viewer_id: int) -> list[PostRecord]:
        """The posts of ``topic_id`` a viewer sees: the approved ones, and the viewer's own
        waiting for approval (phpBB 3.3 ``display_unapproved_posts``)."""
        return sorted(
            (p for p in self._posts.values()
             if p.topic_id == topic_id and (p.approved or p.poster_id == viewer_id)),
            key=lambda p: p.post_id,
        )  # fmt: skip
