"""Fetch every page of a public duel topic as a guest (for ``verify-dice`` on a URL).

phpBB: ``viewtopic.php?t=N`` and ``&start=k*posts_per_page``. Forumactif: ``/t{T}-slug`` and
``/t{T}p{start}-slug`` (the start of each page is counted from the first page's post count;
:func:`forumbot.forums.forumactif.topic_path`). The platform is recognised from the URL's
shape, else from the first page (:func:`parsers.detect.detect_platform`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx

from parsers.contract import parse_page
from parsers.model import TopicPage

_FORUMACTIF_PATH = re.compile(r"^/t(\d+)(?:p\d+)?(?:-[^/]*)?/?$")


def fetch_topic_pages(
    url: str,
    transport: httpx.BaseTransport | None = None,
    posts_per_page: int = 10,
    *,
    now: datetime | None = None,
) -> list[TopicPage]:
    """Every page of the topic at ``url``, first to last.

    Args:
        url: a phpBB ``.../viewtopic.php?t=N`` or a Forumactif ``.../t123-slug`` URL.
        transport: httpx transport (tests); None = network.
        posts_per_page: phpBB's page size (the ``start`` step).
        now: capture time for Forumactif's relative dates (default: the clock).

    Raises:
        httpx.HTTPError: on a network error or an HTTP error status.
        parsers.errors.ParseError: a page is not a topic page.
    """
    parts = urlsplit(url)
    match = _FORUMACTIF_PATH.match(parts.path)
    at = now or datetime.now(UTC)
    with httpx.Client(transport=transport, follow_redirects=True, timeout=30) as client:

        def get(page_url: str) -> TopicPage:
            response = client.get(page_url)
            response.raise_for_status()
            return parse_page(response.content, "auto", source=page_url, now=at)

        if match is not None:
            topic_id = int(match.group(1))
            first = get(urlunsplit(parts._replace(path=f"/t{topic_id}-a", query="")))
            pages = [first]
            per_page = max(1, len(first.posts))
            while pages[-1].page < pages[-1].pages:
                start = pages[-1].page * per_page
                path = f"/t{topic_id}p{start}-a"
                page = get(urlunsplit(parts._replace(path=path, query="")))
                if page.page <= pages[-1].page:  # the board did not move on: never loop
                    break
                pages.append(page)
            return pages
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        query.pop("start", None)
        pages = []
        start = 0
        while True:
            q = {**query, "start": str(start)} if start else query
            page = get(urlunsplit(parts._replace(query=urlencode(q))))
            pages.append(page)
            if page.page >= page.pages:
                return pages
            start += posts_per_page
