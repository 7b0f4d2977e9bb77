"""The bot's own club posts (not declarations): sign-up replies and the leaderboard post.

Each post is a row of ``club_posts`` with a unique idempotency key and a marker
(``forumbot·<key>``), published exactly once like declarations (:mod:`forumbot.publish.poster`):

- ``draft`` -> ``publishing`` (claimed by compare-and-set, committed before the POST) ->
  ``published``;
- before every reply the topic is searched for the marker (from ``after_post_id`` on), so a
  crash after the POST, or a restored database, never posts twice;
- a forum error leaves the row ``publishing``; the next pass checks the marker first.

The leaderboard post is then kept up to date by :func:`edit_club_post` (the bot edits its own
post; ``published_hash`` is the SHA-256 of the text in force, so an unchanged text is not sent).

**Pacing** (issue 23): club posts take a fair share of the posting budget. A
:class:`ClubPostBudget` allows at most ``limit`` club posts per desk pass (setting
``poll.club_posts_per_pass``), and none while a declaration is due (``declaration_due``,
asked before each post): declarations always go first, and a flood of sign-up replies never
holds one back. The declarations' poster (:mod:`forumbot.publish.poster`) is unchanged: it
runs on its own worker; the club side yields to it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import EditingForumClient, ForumClient
from forumbot.publish.clock_pause import delay_paused
from forumbot.publish.poster import due_declarations
from forumbot.publish.render import client_platform, marker_line, marker_text
from forumbot.storage import Storage, content_hash, iso

log = logging.getLogger("forumbot.club.posts")


@dataclass
class ClubPostBudget:
    """How many club posts one desk pass may still publish, and whether a declaration is due.

    Attributes:
        limit: club posts left for this pass (>= 0).
        declaration_due: ``() -> bool``, asked before each club post: True while a declaration
            is due (:func:`forumbot.publish.poster.due_declarations` not empty), so the club
            post waits for a later pass.
        spent: club posts published with this budget.
        yielded: times a club post waited because a declaration was due.
    """

    limit: int
    declaration_due: Callable[[], bool] = field(default=lambda: False)
    spent: int = 0
    yielded: int = 0

    def take(self) -> bool:
        """True (and one post counted) when one more club post may go out now."""
        if self.spent >= self.limit:
            return False
        if self.declaration_due():
            self.yielded += 1
            return False
        self.spent += 1
        return True


def declarations_due(storage: Storage, now: Callable[[], datetime], manual: bool) -> bool:
    """Whether a declaration is due now (approved, left ``publishing``, or a draft whose review
    delay is over; ``manual``: review delay ``"manual"``), as the poster sees it."""
    return bool(due_declarations(storage, now(), manual))


def draft_club_post(
    storage: Storage,
    board_id: int,
    key: str,
    kind: str,
    topic_id: int,
    text: str,
    now: datetime,
    *,
    after_post_id: int | None = None,
    delay_s: int = 0,
) -> int:
    """Record a post to publish in ``topic_id`` (once: a second draft with the same ``key`` is
    ignored). ``after_post_id``: the marker search starts after it (e.g. the sign-up post
    answered). ``delay_s``: seconds before it is due. Returns the row id."""
    existing = club_post(storage, key)
    if existing is not None:
        return int(existing["id"])
    return storage.club_posts.insert(
        {
            "board_id": board_id,
            "idempotency_key": key,
            "kind": kind,
            "topic_id": topic_id,
            "after_post_id": after_post_id,
            "text": text,
            "marker": marker_text(key),
            "status": "draft",
            "attempts": 0,
            "created_at": iso(now),
            "updated_at": iso(now),
            "publish_after": iso(now + timedelta(seconds=delay_s)),
        }
    )


def club_post(storage: Storage, key: str) -> dict[str, Any] | None:
    """The club post with that idempotency key, or None."""
    return storage.club_posts.by_key(key)


def publish_club_post(
    storage: Storage, client: ForumClient, row: dict[str, Any], now: Callable[[], datetime]
) -> int | None:
    """Publish one club post (see module docstring); returns its post id, or None when it
    failed this time or another publisher claimed it. LoginFailed propagates."""
    claimed = storage.club_posts.claim(row["id"], row["status"], iso(now()))  # commits
    if claimed != 1:
        return None
    message = (
        row["text"].rstrip() + "\n" + marker_line(row["idempotency_key"], client_platform(client))
    )
    try:
        post_id = client.find_marker(row["topic_id"], row["marker"], row["after_post_id"])
        if post_id is None:
            post_id = client.reply(row["topic_id"], message, row["marker"])
    except LoginFailed:
        raise
    except ForumError as exc:
        storage.club_posts.update(
            row["id"], {"last_error": f"{type(exc).__name__}: {exc}", "updated_at": iso(now())}
        )
        log.warning("club post %s: publish failed (%s); will retry", row["id"], exc)
        return None
    storage.club_posts.update(
        row["id"],
        {
            "status": "published",
            "post_id": post_id,
            "published_hash": content_hash(message),
            "published_at": iso(now()),
            "last_error": None,
            "updated_at": iso(now()),
        },
    )
    log.info("club post %s (%s) published as post %s", row["id"], row["kind"], post_id)
    return post_id


def publish_due_club_posts(
    storage: Storage,
    client: ForumClient,
    now: Callable[[], datetime],
    board_id: int,
    budget: ClubPostBudget | None = None,
) -> list[int]:
    """Publish the due club posts of the board (drafts whose delay is over, and rows left
    ``publishing`` by an earlier failure), oldest first, within ``budget`` when given (see
    the module doc; the others stay due for the next pass). Returns the post ids published."""
    if delay_paused(storage):
        return []  # the clocks disagree: nothing publishes by its delay (issue 24 F7)
    published = []
    for row in storage.club_posts.due(board_id, iso(now())):
        if budget is not None and not budget.take():
            break
        post_id = publish_club_post(storage, client, row, now)
        if post_id is not None:
            published.append(post_id)
    return published


def edit_club_post(
    storage: Storage, client: EditingForumClient, key: str, text: str, now: datetime
) -> bool:
    """Make the published club post ``key`` show ``text`` (the bot edits its own post).

    Returns True when an edit was sent, False when the post already shows that text.

    Raises:
        KeyError: no published club post with that key.
        ForumError: the edit failed (the stored text is unchanged, so the next call retries).
    """
    row = club_post(storage, key)
    if row is None or row["status"] != "published" or row["post_id"] is None:
        raise KeyError(f"no published club post {key!r}")
    message = text.rstrip() + "\n" + marker_line(key, client_platform(client))
    digest = content_hash(message)
    if digest == row["published_hash"]:
        return False
    client.edit_post(int(row["post_id"]), message)
    storage.club_posts.update(
        row["id"], {"text": text, "published_hash": digest, "updated_at": iso(now)}
    )
    log.info("club post %s (%s): post %s edited", row["id"], row["kind"], row["post_id"])
    return True


__all__ = [
    "ClubPostBudget",
    "club_post",
    "declarations_due",
    "draft_club_post",
    "edit_club_post",
    "publish_club_post",
    "publish_due_club_posts",
]
