"""The Forumactif sandbox's moderators and full inboxes (issue 22).

No Forumactif source describes an approval queue, a locked-topic answer or a full-inbox
refusal (shared/fixtures/forumactif/REPORT.md has none): the sentences below are ASSUMED,
modelled on phpBB2's (which Forumactif descends from), and the client reads them as
unconfirmed wordings (``forumbot.forums.forumactif_pages``):

- an account flagged ``needs_approval`` posts into a queue: its posts stay off the topic for
  everybody until :meth:`FaQueue.approve_post` (:data:`POST_QUEUED`);
- a locked topic or forum answers the reply form and the POST with :data:`TOPIC_LOCKED` /
  :data:`FORUM_LOCKED`;
- a member whose inbox holds ``inbox_limit`` messages gets no more: the sender is told
  :data:`INBOX_FULL` and nothing is stored."""

from __future__ import annotations

from forumbot.sandbox.forumactif_model import FaTopic
from forumbot.sandbox.queue_locks import QueueLocks

POST_QUEUED = (
    "Votre message a été enregistré, mais il doit être approuvé par un modérateur avant "
    "d'être visible."
)
TOPIC_LOCKED = (
    "Ce sujet est verrouillé, vous ne pouvez pas éditer de messages ou faire de réponses."
)
FORUM_LOCKED = "Ce forum est verrouillé, vous ne pouvez pas poster, répondre ou éditer."
INBOX_FULL = (
    "Désolé, mais la boîte de réception de ce membre est pleine : votre message n'a pas été envoyé."
)


class FaQueue(QueueLocks):
    """Mixed into :class:`forumbot.sandbox.forumactif.ForumactifSandbox` (uses its
    ``_users``, ``_posts``, ``_pms``, ``_lock``)."""

    def set_needs_approval(self, name: str, needs: bool = True) -> None:
        """Put the account ``name`` on (or off) the moderator queue."""
        with self._lock:
            self._users[self.user_id(name)].needs_approval = needs

    def approve_post(self, post_id: int) -> None:
        """A moderator approves the queued post ``post_id`` (and its dice post, if any).

        Raises: KeyError when there is no such post."""
        with self._lock:
            self._posts[post_id].approved = True
            for post in self._posts.values():
                if post.dice_for == post_id:
                    post.approved = True

    def set_inbox_limit(self, name: str, limit: int | None) -> None:
        """The most messages ``name``'s inbox holds (None: no limit)."""
        with self._lock:
            self._users[self.user_id(name)].inbox_limit = limit

    def _lock_refusal(self, topic: FaTopic | None, forum_id: int | None) -> str | None:
        forum = topic.forum_id if topic is not None else forum_id
        if forum is not None and forum in self._locked_forums:
            return FORUM_LOCKED
        if topic is not None and topic.topic_id in self._locked_topics:
            return TOPIC_LOCKED
        return None

    def _inbox_full(self, user_id: int) -> bool:
        limit = self._users[user_id].inbox_limit
        if limit is None:
            return False
        return sum(1 for pm in self._pms.values() if user_id in pm.to_ids) >= limit
