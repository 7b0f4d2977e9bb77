"""Fetch every page of a public phpBB topic as a guest (for ``verify-dice`` on a URL)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

import httpx

from parsers.model import TopicPage
from parsers.phpbb import parse_topic_page


def fetch_topic_pages(
    url: str, transport: httpx.BaseTransport | None = None, posts_per_page: int = 10
) -> list[TopicPage]:
    """GET ``viewtopic.php?t=N`` and its following pages (``&start=k*posts_per_page``).

    Raises:
        httpx.HTTPError: on a network error; parsers.errors.ParseError: not a topic page.
    """
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query.pop("start", None)
    pages: list[TopicPage] = []
    with httpx.Client(transport=transport, follow_redirects=True, timeout=30) as client:
        start = 0
        while True:
            q = {**query, "start": str(start)} if start else query
            page_url = urlunsplit(parts._replace(query=urlencode(q)))
            response = client.get(page_url)
            response.raise_for_status()
            page = parse_topic_page(response.content, page_url)
            pages.append(page)
            if page.page >= page.pages:
                return pages
            start += posts_per_page
