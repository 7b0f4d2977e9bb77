"""What ``duels adopt`` checks on the board before it drafts an opening: the topic exists, its
title, and that each duellist is a member (:mod:`forumbot.duels.adoption`)."""

from __future__ import annotations

from typing import Any

from forumbot.cli._common import LibraryText, error, warn
from forumbot.i18n import N_


def listed_title(client: Any, forum_id: int, topic_id: int) -> str:
    """The topic's title as the forum's listing shows it (first page: a fresh topic is on
    it); ``topic N`` when the listing cannot be read or does not show it."""
    from forumbot.errors import ForumError

    try:
        listed = client.list_topics(forum_id)
    except ForumError:
        listed = []
    found = next((t.title for t in listed if t.topic_id == topic_id and t.title), None)
    return str(found) if found else f"topic {topic_id}"


def check_members(bot: Any, names: list[str], title: str, posts: Any, force: bool) -> None:
    """Refuse duellist names the board does not confirm as members (issue 22), unless
    ``force`` (then a warning each)."""
    from forumbot.duels.adoption import known_names, unknown_names

    unknown = unknown_names(bot.client, names, known_names(bot.storage, title, posts))
    if not unknown:
        return
    if force:
        for item in unknown:
            warn(N_("warning: %s: adopted anyway (--force)"), LibraryText(item.describe()))
        return
    raise error(
        "%s: nothing adopted (fix the name, or --force to adopt anyway)",
        LibraryText("; ".join(item.describe() for item in unknown)),
    )


def topic_exists(client: Any, topic_id: int) -> Any:
    """The topic's posts; refuse a topic the board does not have (issue 13: its opening
    would fail to publish on every pass, forever)."""
    from forumbot.errors import TopicNotFound

    try:
        return client.read_topic(topic_id, None)
    except TopicNotFound as exc:
        raise error(
            "topic %s does not exist on the board (%s): nothing adopted", topic_id, exc
        ) from exc
