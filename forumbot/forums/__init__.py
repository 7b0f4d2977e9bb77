"""Forum clients: the :class:`~forumbot.forums.base.ForumClient` interface and its
implementations (:class:`~forumbot.forums.phpbb.PhpbbClient`,
:class:`~forumbot.forums.forumactif.ForumactifClient`)."""

from __future__ import annotations

from forumbot.forums.base import ForumClient, TopicSummary

__all__ = ["ForumClient", "TopicSummary"]
