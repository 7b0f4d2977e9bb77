"""Forumactif JSON-LD (``BreadcrumbList`` + ``DiscussionForumPosting``).

Forumactif core emits, in ``<head>`` of topic pages, a ``DiscussionForumPosting``
whatever the theme (REPORT.md section 2, real AwesomeBB page): ``headline``, ``url``
(``/t{T}-slug``), ``pageEnd`` (= page count), ``author``, ``text`` (first post, plain
text) and ``comment[]``: every other post of the page with ``text``, ``datePublished``
(ISO 8601 with offset), ``author{name,url:/uN}`` (guests/deleted: ``Anonymous`` and
``/u-1``) and ``url`` ending ``#<post id>``. Caveat (README section 4.11): the topic-level
``datePublished`` is not the first post's date on the real page, so it is not used
as one. ``BreadcrumbList`` gives the forum id (last ``/f{F}-`` item).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

_USER_URL_RE = re.compile(r"/u(-?\d+)(?:[-/?#]|$)")
_POST_URL_RE = re.compile(r"#p?(\d+)$")
_TOPIC_URL_RE = re.compile(r"/t(\d+)(?:p\d+)?(?:-|$)")
_FORUM_URL_RE = re.compile(r"/f(\d+)(?:p\d+)?(?:-|$)")
_MENTION_RE = re.compile(r"\{@=\d+\}(.*?)\{/@\}", re.S)

#: JSON-LD author name Forumactif gives guests and deleted accounts.
ANONYMOUS = "Anonymous"


@dataclass(frozen=True)
class LdPost:
    """One post as the JSON-LD tells it.

    ``post_id`` is None for the topic-level entry (first post); ``author_id`` is None
    for ``/u-1`` (guest/deleted); ``published`` is aware (None for the topic-level
    entry, whose date is not the first post's); ``text`` is plain text with mentions
    rendered ``@name`` as on the page.
    """

    post_id: int | None
    author: str | None
    author_id: int | None
    published: datetime | None
    text: str


@dataclass(frozen=True)
class LdTopic:
    """Topic facts from the JSON-LD of a page.

    ``pages`` is ``pageEnd`` (page count); ``first`` is the topic-level entry (the
    first post's author/text); ``comments`` maps post id -> post for the other posts.
    """

    title: str | None
    url: str | None
    topic_id: int | None
    forum_id: int | None
    pages: int | None
    first: LdPost | None
    comments: dict[int, LdPost]


def _blocks(tree: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for script in tree.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json":
            continue
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        items = data if isinstance(data, list) else [data]
        found.extend(item for item in items if isinstance(item, dict))
    return found


def _int(value: object) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def _author(node: object) -> tuple[str | None, int | None]:
    if not isinstance(node, dict):
        return None, None
    name = node.get("name")
    match = _USER_URL_RE.search(str(node.get("url") or ""))
    user_id = int(match.group(1)) if match else None
    if user_id is not None and user_id <= 0:
        user_id = None
    return (str(name) if name is not None else None), user_id


def _date(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


def plain_text(text: str) -> str:
    """JSON-LD post text with mentions ``{@=ID}name{/@}`` shown as ``@name``."""
    return _MENTION_RE.sub(lambda m: "@" + m.group(1), text)


def parse_jsonld(tree: Any) -> LdTopic | None:
    """Read the JSON-LD of a parsed page; None when it has no ``DiscussionForumPosting``."""
    blocks = _blocks(tree)
    forum_id: int | None = None
    for block in blocks:
        if block.get("@type") != "BreadcrumbList":
            continue
        for item in block.get("itemListElement") or []:
            target = item.get("item") if isinstance(item, dict) else None
            url = str(target.get("@id", "")) if isinstance(target, dict) else ""
            match = _FORUM_URL_RE.search(url)
            if match:
                forum_id = int(match.group(1))
    topic = next((b for b in blocks if b.get("@type") == "DiscussionForumPosting"), None)
    if topic is None:
        return None
    topic_url: str | None = str(topic.get("url") or "") or None
    topic_match = _TOPIC_URL_RE.search(topic_url or "")
    author, author_id = _author(topic.get("author"))
    first = LdPost(None, author, author_id, None, plain_text(str(topic.get("text") or "")))
    comments: dict[int, LdPost] = {}
    for node in topic.get("comment") or []:
        if not isinstance(node, dict):
            continue
        post_match = _POST_URL_RE.search(str(node.get("url") or ""))
        if post_match is None:
            continue
        post_id = int(post_match.group(1))
        c_author, c_author_id = _author(node.get("author"))
        comments[post_id] = LdPost(
            post_id,
            c_author,
            c_author_id,
            _date(node.get("datePublished")),
            plain_text(str(node.get("text") or "")),
        )
    title = topic.get("headline") or topic.get("name")
    return LdTopic(
        title=str(title) if title else None,
        url=topic_url,
        topic_id=int(topic_match.group(1)) if topic_match else None,
        forum_id=forum_id,
        pages=_int(topic.get("pageEnd")),
        first=first,
        comments=comments,
    )
