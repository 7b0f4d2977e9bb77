"""HTTP plumbing shared by the phpBB (and Forumactif) clients: retryable statuses, board-disabled
and truncation checks, ``Retry-After`` parsing, fetched forms (see :mod:`forumbot.forums.phpbb`)."""


from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx

from forumbot.errors import (
    PageNotUnderstood,
)
from forumbot.forums.http_edges import parse_retry_after as parse_retry_after
from parsers.phpbb import looks_like_phpbb
from parsers.phpbb_forms import (
    HtmlForm,
    message_box_text,
    normalize_text,
    parse_form,
)

DEFAULT_USER_AGENT = "forumbot/0.1 (+referee bot for role-play duels)"

log = logging.getLogger("forumbot.phpbb")

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})

# phpBB 3.3 BOARD_DISABLE (users), BOARD_DISABLED (admin notice), BOARD_UNAVAILABLE (load
# limit), FR then EN, after normalize_text; an admin's own board_disable_msg is shown instead
# of BOARD_DISABLE and cannot be recognised by its words.
BOARD_DISABLED_TEXTS = (
    "ce forum est actuellement indisponible",
    "le forum est actuellement désactivé",
    "temporairement indisponible",
    "this board is currently unavailable",
    "the board is currently disabled",
    "this board is currently disabled",
    "temporarily unavailable",
)
LOGIN_LINK = re.compile(r"href=[\"'][^\"']*ucp\.php\?mode=login", re.IGNORECASE)
LOGOUT_LINK = re.compile(r"ucp\.php\?mode=logout", re.IGNORECASE)


class RetryableStatus(Exception):
    """Internal: a GET answered 5xx/429, a truncated page or the board-disabled page;
    carries the Retry-After delay when given and a short reason for the logs."""

    def __init__(
        self,
        status: int,
        retry_after_s: float | None,
        reason: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(reason or f"HTTP {status}")
        self.status = status
        self.retry_after_s = retry_after_s
        self.reason = reason or f"HTTP {status}"
        self.disabled = disabled


def board_disabled_message(html: str) -> str | None:
    """The board's message when ``html`` is phpBB's "board disabled/unavailable" page (its
    ``div#message`` says so), else None."""
    box = message_box_text(html)
    if box is None:
        return None
    folded = normalize_text(box)
    return box if any(text in folded for text in BOARD_DISABLED_TEXTS) else None


def is_truncated(content: bytes) -> bool:
    """True when an HTML page ends before its ``</html>`` (PHP died mid-page, a proxy cut
    the answer)."""
    return b"</html>" not in content[-4096:].lower()


STYLE_PATH = re.compile(r"styles/([\w.-]+)/theme/")


def check_guest_page(html: str, path: str) -> None:
    """Return when ``html`` is a phpBB page shown to a guest (a login form, or the header's
    login link and no logout link); otherwise the page is not one the client can read.

    Raises:
        PageNotUnderstood: another forum software's page, or a phpBB page whose header is not
            prosilver's (another style: the user may well be logged in, so no re-login).
    """
    if parse_form(html, "login") is not None:
        return
    if LOGIN_LINK.search(html) and not LOGOUT_LINK.search(html):
        return
    if not looks_like_phpbb(html):
        raise PageNotUnderstood(f"GET {path}: not a phpBB page (another forum software?)")
    style = STYLE_PATH.search(html)
    raise PageNotUnderstood(
        f"GET {path}: phpBB page without prosilver's header "
        f"(style {style.group(1) if style else 'unknown'!r})"
    )


def fault_reason(resp: httpx.Response) -> tuple[str, bool] | None:
    """Why a GET answer must be retried (and whether the board says it is disabled), or
    None when it is a usable page."""
    if resp.status_code in RETRYABLE_STATUS:
        disabled = board_disabled_message(resp.text) if resp.content else None
        if disabled is not None:
            return f"HTTP {resp.status_code}, board disabled: «{disabled}»", True
        return f"HTTP {resp.status_code}", False
    if resp.status_code == 200:
        if is_truncated(resp.content):
            return f"truncated page ({len(resp.content)} bytes, no </html>)", False
        disabled = board_disabled_message(resp.text)
        if disabled is not None:
            return f"board disabled: «{disabled}»", True
    return None


@dataclass
class FetchedForm:
    """A form and the injected-clock time its page arrived (for the minimum form age)."""

    form: HtmlForm
    fetched_at: float


def query_int(url: str, key: str) -> int | None:
    values = parse_qs(urlsplit(url).query).get(key)
    if values and values[0].isdigit():
        return int(values[0])
    return None


NEXT_LINK = re.compile(r"<a\b[^>]*\brel=[\"']next[\"'][^>]*>", re.IGNORECASE)
HREF = re.compile(r"\bhref=[\"']([^\"']*)[\"']", re.IGNORECASE)


def next_start(html: str, script: str) -> int | None:
    """The ``start`` of the page a ``rel="next"`` pagination link to ``script`` (e.g.
    ``"viewforum.php"``) points to; None when the page has no next link (the last page)."""
    for tag in NEXT_LINK.finditer(html):
        href = HREF.search(tag.group(0))
        if href is None or script not in href.group(1):
            continue
        return query_int(href.group(1).replace("&amp;", "&"), "start") or 0
    return None


def about_path(path: str) -> str:
    """What a board path is about, for log lines: ``"topic 5"``, ``"forum 3"``, else the path."""
    for key, name in (("t", "topic"), ("f", "forum"), ("p", "post")):
        value = query_int(path, key)
        if value is not None:
            return f"{name} {value}"
    return path


