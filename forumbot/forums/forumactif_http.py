"""Module-level helpers of the Forumactif client: retryable statuses, dice attached to the posts
they roll for, marker search in texts, topic paths (see :mod:`forumbot.forums.forumactif`)."""


from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from parsers.model import DiceRoll, Post

DEFAULT_USER_AGENT = "forumbot/0.1 (+referee bot for role-play duels)"

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})
PER_PAGE_RE = re.compile(r"start\s*=\s*\(\s*start\s*-\s*1\s*\)\s*\*\s*(\d+)")
CHARSET_RE = re.compile(r"charset=[\"']?([\w.:-]+)", re.IGNORECASE)


def utc_now() -> datetime:
    """The real clock, aware UTC (the default ``now`` of the client)."""
    return datetime.now(UTC)


class RetryableStatus(Exception):
    """Internal: a GET answered 5xx/429 or an outage page (``reason``: a challenge, a host
    limit, not the board's login page); carries the Retry-After delay when given."""

    def __init__(self, status: int, retry_after_s: float | None, reason: str | None = None) -> None:
        super().__init__(reason or f"HTTP {status}")
        self.status = status
        self.retry_after_s = retry_after_s
        self.reason = reason


def attach_dice(posts: Sequence[Post]) -> list[Post]:
    """Re-attach the Game Master's dice to the rollers' posts across page boundaries.

    The parser attaches a dice post's rolls to the nearest preceding post of the roller on the
    same page only; ``posts`` here is a contiguous run of the topic up to its end (several
    pages), so every dice post following a roller's post is in it. Non-dice posts get the rolls
    of the dice posts that designate them (their ``dice`` only ever comes from such posts), and
    those posts' ids (``dice_post_ids``: the moment of the roll, issue 16).
    """
    attached: dict[int, tuple[DiceRoll, ...]] = {}
    sources: dict[int, tuple[int, ...]] = {}
    for index, post in enumerate(posts):
        if not post.is_dice_post or post.dice_roller is None:
            continue
        wanted = post.dice_roller.casefold()
        for back in range(index - 1, -1, -1):
            target = posts[back]
            if not target.is_dice_post and target.author.casefold() == wanted:
                attached[target.post_id] = attached.get(target.post_id, ()) + post.dice
                sources[target.post_id] = (*sources.get(target.post_id, ()), post.post_id)
                break
    return [
        p
        if p.is_dice_post
        or (attached.get(p.post_id, ()) == p.dice and sources.get(p.post_id, ()) == p.dice_post_ids)
        else replace(p, dice=attached.get(p.post_id, ()), dice_post_ids=sources.get(p.post_id, ()))
        for p in posts
    ]


def has_marker(marker: str, *texts: str) -> bool:
    """True when ``marker`` occurs in one of ``texts`` as a whole token: not followed by a
    letter, digit, ``-`` or ``_`` (so ``…-turn1`` is not found inside ``…-turn10``)."""
    pattern = re.compile(re.escape(marker) + r"(?![\w-])")
    return any(pattern.search(text) for text in texts)


def same_text(current: str, wanted: str) -> bool:
    """True when a form's textarea ``current`` already holds ``wanted`` (CR LF / CR read as
    LF, blanks around the whole text ignored: browsers and boards normalise both)."""

    def norm(text: str) -> str:
        return text.replace("\r\n", "\n").replace("\r", "\n").strip()

    return norm(current) == norm(wanted)


def topic_path(topic_id: int, start: int = 0) -> str:
    """``/t{T}-a`` or ``/t{T}p{start}-a`` (Forumactif ignores the slug: LALF uses ``-a``)."""
    return f"/t{topic_id}p{start}-a" if start else f"/t{topic_id}-a"


