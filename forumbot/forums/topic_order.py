"""The order topics are read in, for both clients: pinned in the URL where the board allows
it, and checked on every page (:func:`check_order`).

phpBB 3.3 (``viewtopic.php``): ``st`` (days of posts shown, 0 = all), ``sk`` (sort key, ``t`` =
post time then post id) and ``sd`` (direction, ``a`` = oldest first) default to the reader's
profile (``user_post_show_days``, ``user_post_sortby_type``, ``user_post_sortby_dir``). A
"newest first" profile reverses every page, and ``start`` and ``p=N`` then count from the
newest post; named in the URL (:data:`PHPBB_TOPIC_ORDER`), they win over the profile, and
``p=N`` lands on the page holding N counted oldest first.

Forumactif: no topic-URL parameter naming the order is known (none in the captured pages,
templates or REPORT.md), so nothing is pinned there; the check alone keeps a reversed page
from being read as new posts.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

from forumbot.errors import PostsOutOfOrder
from parsers.model import Post, TopicPage
from parsers.order import first_break

PHPBB_TOPIC_ORDER = "st=0&sk=t&sd=a"
"""The query every phpBB topic read carries (module doc)."""


def phpbb_topic(query: str) -> str:
    """The phpBB topic path for ``query`` (``"t=7"``, ``"p=13"``, ``"t=7&start=10"``) with
    the order named: ``viewtopic.php?t=7&st=0&sk=t&sd=a``."""
    return f"viewtopic.php?{query}&{PHPBB_TOPIC_ORDER}"


def check_order(topic_id: int, post_ids: Iterable[int], before: int | None, where: str) -> None:
    """Refuse a page whose post ids (page order) do not rise, after ``before`` (the last id
    of the page read before it, or None).

    Raises: PostsOutOfOrder (naming ``where``, the page's path).
    """
    broken = first_break(post_ids, before)
    if broken is not None:
        raise PostsOutOfOrder(topic_id, broken.previous, broken.following, where)


def check_next(topic_id: int, prior: TopicPage | None, page: TopicPage, where: str) -> None:
    """:func:`check_order` of ``page`` read right after ``prior`` (None: the first page):
    its first post must come after ``prior``'s last. Raises: PostsOutOfOrder."""
    before = prior.posts[-1].post_id if prior is not None and prior.posts else None
    check_order(topic_id, (p.post_id for p in page.posts), before, where)


def note_page(forums: dict[int, int], topic_id: int | None, page: TopicPage, where: str) -> None:
    """A topic page just parsed: refuse it when its post ids do not rise
    (:func:`check_order`), else remember the forum it names in ``forums`` (topic id -> forum
    id: a client's ``topic_forums``, read by :mod:`forumbot.duels.follow`). ``topic_id``:
    the topic asked for, or the page's own; None: nothing is checked or kept."""
    if topic_id is None:
        return
    check_order(topic_id, (p.post_id for p in page.posts), None, where)
    if page.forum_id is not None:
        forums[topic_id] = page.forum_id


__all__ = ["PHPBB_TOPIC_ORDER", "check_next", "check_order", "note_page", "phpbb_topic"]


class PostMemo(OrderedDict[bytes, Post]):
    """The posts a client parsed, by their markup (``parse_topic_page``'s ``memo``): an
    unchanged post read again (the edit watch re-reads every running duel's topic) is not
    parsed again. Holds the ``maxsize`` most recently used posts (a few MB)."""

    def __init__(self, maxsize: int = 4096) -> None:
        super().__init__()
        self.maxsize = maxsize

    def get(self, key: bytes, default: Post | None = None) -> Post | None:  # type: ignore[override]
        """The post parsed from ``key``'s markup (now the most recently used), or ``default``."""
        if key not in self:
            return default
        self.move_to_end(key)
        return self[key]

    def __setitem__(self, key: bytes, value: Post) -> None:
        super().__setitem__(key, value)
        self.move_to_end(key)
        while len(self) > self.maxsize:
            self.popitem(last=False)
