"""Is a topic read in the board's order? Post ids must rise, within a page and across pages.

A board sorts a topic's posts by time, oldest first, unless the reader's profile says
otherwise (phpBB UCP → "Display posts" Descending, ``user_post_sortby_dir = 'd'``; the URL's
``sd`` overrides it). Read newest first, an incremental read ("the posts after post 13") keeps
the wrong ones and the page walk stops early: posts are lost. Both boards give posts
increasing ids in the order they are made, so a page (or a run of pages) whose ids do not rise
is not read in topic order, and is refused by the clients
(:class:`forumbot.errors.PostsOutOfOrder`) instead of being read as new posts.

Pure: ids in, the first offending pair out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["OrderBreak", "first_break"]


@dataclass(frozen=True)
class OrderBreak:
    """Where post ids stop rising: ``following`` comes right after ``previous`` in page order
    and is not greater than it (a repeat or a step back)."""

    previous: int
    following: int


def first_break(post_ids: Iterable[int], before: int | None = None) -> OrderBreak | None:
    """The first pair of consecutive ids in ``post_ids`` (page order) that does not rise, or
    None when every id is greater than the one before it.

    Args:
        post_ids: the ids of a page's posts, in the order the page shows them (or of several
            pages, concatenated).
        before: the id shown just before the first one (the last post of the previous page),
            or None.

    Examples:
        >>> first_break([3, 5, 9]) is None
        True
        >>> first_break([15, 14, 13])
        OrderBreak(previous=15, following=14)
        >>> first_break([11, 12], before=20)
        OrderBreak(previous=20, following=11)
    """
    last = before
    for post_id in post_ids:
        if last is not None and post_id <= last:
            return OrderBreak(last, post_id)
        last = post_id
    return None
