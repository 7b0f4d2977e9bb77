"""Duel topics opened by the desks, exactly once each (1v1 pairings and 2v2 matches alike).

A formed duel being opened (a ``queue`` or ``duo_matches`` row, status ``opening``, with its
``idempotency_key``, ``forum_id`` and ``subject``) gets its topic by :func:`create_topic_once`:
the attempt is claimed (``attempts + 1``, committed) before the POST, and a later attempt (after
a crash) first looks for the topic by its marker (:func:`find_topic`). :func:`topic_url` is the
link the owls give; :func:`stakes_written` and :func:`stakes_view` say who proposed the
stakes the topic states.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.duels.stakes import stakes_view
from forumbot.duels.stakes import stakes_written as _stakes_written
from forumbot.forums.forumactif_http import topic_path
from forumbot.publish.owls import restore_window
from forumbot.publish.render import Trusted, client_platform, marker_line, marker_text
from parsers.registration import fold


def find_topic(ctx: DeskContext, forum_id: int, subject: str, marker: str) -> int | None:
    """A topic of ``forum_id`` titled ``subject``, opened by the bot, whose first post holds
    ``marker`` (a topic opened before a crash), or None.

    Raises:
        forumbot.errors.ForumError: the forum could not be read.
    """
    me = fold(ctx.bot_username)
    for summary in ctx.client.list_topics(forum_id):
        if summary.title != subject or fold(summary.author or "") != me:
            continue
        posts = ctx.client.read_topic(summary.topic_id, None)
        if posts and (marker in posts[0].text or marker in posts[0].html):
            return summary.topic_id
    return None


def create_topic_once(ctx: DeskContext, table: str, row: dict[str, Any], text: str) -> int:
    """Open the duel topic of ``row`` (of ``table``: ``"queue"`` or ``"duo_matches"``) with the
    first post ``text`` (its marker line added), once: claimed (attempts + 1, committed) before
    the POST; a later attempt looks for the topic by its marker first, and so does any attempt
    while a restore's check window is open (:func:`forumbot.publish.owls.restore_window`: the
    backup may predate a topic already on the board; the soak found one opened twice).
    Stores and returns the topic id.

    Raises:
        forumbot.errors.ForumError: the topic could not be opened now (retried next cycle).
    """
    rows = ctx.storage.club_rows
    key = row["idempotency_key"]
    marker = marker_text(key)
    found = None
    if row["attempts"] or restore_window(ctx.storage, ctx.now()):
        found = find_topic(ctx, row["forum_id"], row["subject"], marker)
    rows.count_topic_attempt(table, row["id"])
    ctx.storage.commit()
    topic_id = found
    if topic_id is None:
        message = text.rstrip() + "\n" + marker_line(key, client_platform(ctx.client))
        topic_id = ctx.client.create_topic(row["forum_id"], row["subject"], message, marker)
    rows.update_row(table, row["id"], {"topic_id": topic_id})
    ctx.storage.commit()
    return int(topic_id)


def topic_url(ctx: DeskContext, topic_id: int) -> Trusted:
    """The public link of ``topic_id`` on the board (phpBB ``viewtopic.php?t=``, Forumactif
    ``/t<id>-a``: the slug is not checked, so the client's own path is used, see
    :func:`forumbot.forums.forumactif_http.topic_path`). :class:`Trusted`: the bot built it, so
    templates print it as a link, not neutralised like player text."""
    board = ctx.storage.club_rows.board(ctx.board_id)
    base = str(board["url"]).rstrip("/")
    if board["platform"] == "forumactif":
        return Trusted(base + topic_path(topic_id))
    return Trusted(f"{base}/viewtopic.php?t={topic_id}")


def stakes_written(
    ctx: DeskContext, table: str, places: Sequence[tuple[int, str]]
) -> list[tuple[str, str]]:
    """:func:`forumbot.duels.stakes.stakes_written` on the desk's board."""
    return _stakes_written(ctx.storage, ctx.board_id, table, places)


__all__ = ["create_topic_once", "find_topic", "stakes_view", "stakes_written", "topic_url"]
