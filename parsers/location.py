"""Where a topic page really is: topic id, first-post offset and post ids, from the page itself.

After a redirect (``viewtopic.php?p=23`` -> the page holding post 23; a Forumactif
``/t12p15-slug#305`` link; a moved topic) the request URL no longer names the topic. The page
does: its ``<link rel="canonical">`` (phpBB ``viewtopic.php?t=2&start=10``; Forumactif
``/t12p15-slug``, else ``<meta property="og:url">``) and the anchors of its post containers
(phpBB ``<div id="p23" class="post">``; Forumactif ``class="post--305"`` or ``id="p305"``).
A client that followed a redirect takes the ids from :func:`page_location`, not from the URL
it asked for; a post id it was looking for is on the page when it is in ``post_ids``.

Regexes on the raw page only (no tree): cheap enough to call before a full parse.
"""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass

from parsers.detect import detect_platform
from parsers.forumactif.generic import raw_container_ids
from parsers.model import Platform
from parsers.phpbb import raw_post_ids

__all__ = ["PageLocation", "page_location"]

_CANONICAL_RE = re.compile(
    r"""<link\b(?=[^>]*\brel\s*=\s*["']?canonical\b)[^>]*\bhref\s*=\s*["']([^"']+)["']""",
    re.IGNORECASE,
)
_CANONICAL_HREF_FIRST_RE = re.compile(
    r"""<link\b[^>]*\bhref\s*=\s*["']([^"']+)["'][^>]*\brel\s*=\s*["']?canonical\b""",
    re.IGNORECASE,
)
_OG_URL_RE = re.compile(
    r"""<meta\b(?=[^>]*\bproperty\s*=\s*["']og:url["'])[^>]*\bcontent\s*=\s*["']([^"']+)["']""",
    re.IGNORECASE,
)
_PHPBB_TOPIC_RE = re.compile(r"[?&;]t=(\d+)")
_PHPBB_START_RE = re.compile(r"[?&;]start=(\d+)")
_FA_TOPIC_RE = re.compile(r"/t(\d+)(?:p(\d+))?(?:-|$|[?#])")


@dataclass(frozen=True)
class PageLocation:
    """The page's own idea of where it is.

    ``canonical``: the canonical URL (HTML entities decoded), or None; ``topic_id``: from it,
    or None; ``start``: offset of the page's first post (phpBB ``start``, Forumactif
    ``t12p15`` -> 15; 0 for the first page, None when the page has no canonical link);
    ``post_ids``: the post containers' ids in page order.
    """

    platform: Platform
    canonical: str | None
    topic_id: int | None
    start: int | None
    post_ids: tuple[int, ...]


def _canonical(text: str) -> str | None:
    head = text[:65536]
    for pattern in (_CANONICAL_RE, _CANONICAL_HREF_FIRST_RE, _OG_URL_RE):
        match = pattern.search(head)
        if match:
            return html_lib.unescape(match.group(1))
    return None


def page_location(
    html: str | bytes, platform: Platform | None = None, source: str = "<html>"
) -> PageLocation:
    """Topic id, first-post offset and post ids of a topic page, read from the page.

    Args:
        html: the page as served (bytes are read as UTF-8 with replacement: only ASCII
            markup is searched).
        platform: ``"phpbb3"`` / ``"forumactif"``, or None to detect it.
        source: the page's name, for errors.

    Raises:
        UnknownPageError: ``platform`` is None and the page is neither platform's.

    Examples:
        >>> page_location('<link rel="canonical" href="/viewtopic.php?t=2&amp;start=10">'
        ...               '<div id="p23" class="post bg1">', "phpbb3")
        PageLocation(platform='phpbb3', canonical='/viewtopic.php?t=2&start=10', topic_id=2, \
start=10, post_ids=(23,))
        >>> page_location('<link rel="canonical" href="https://x.forumactif.com/t12p15-duel">'
        ...               '<div class="post post--305">', "forumactif").topic_id
        12
    """
    text = html.decode("utf-8", errors="replace") if isinstance(html, bytes) else html
    chosen: Platform = platform if platform is not None else detect_platform(text, source)
    canonical = _canonical(text)
    topic_id: int | None = None
    start: int | None = None
    if chosen == "phpbb3":
        if canonical is not None:
            topic = _PHPBB_TOPIC_RE.search(canonical)
            topic_id = int(topic.group(1)) if topic else None
            offset = _PHPBB_START_RE.search(canonical)
            start = int(offset.group(1)) if offset else 0
        post_ids = raw_post_ids(html if isinstance(html, bytes) else text.encode("utf-8"))
    else:
        if canonical is not None:
            topic = _FA_TOPIC_RE.search(canonical)
            if topic:
                topic_id = int(topic.group(1))
                start = int(topic.group(2) or 0)
        post_ids = raw_container_ids("class", text) or raw_container_ids("id", text) or []
    return PageLocation(chosen, canonical, topic_id, start, tuple(post_ids))
