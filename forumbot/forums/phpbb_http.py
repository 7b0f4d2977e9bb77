"""HTTP plumbing shared by the phpBB (and Forumactif) clients: retryable statuses, board-disabled
and truncation checks, ``Retry-After`` parsing, fetched forms (see :mod:`forumbot.forums.phpbb`)."""


from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import httpx

from forumbot.errors import (
    BoardNotFound,
    BoardUnavailable,
    ForumError,
    LoginFailed,
    PageNotUnderstood,
    ServerError,
)
from forumbot.forums.http_edges import parse_retry_after as parse_retry_after
from forumbot.forums.outages import account_refusal, challenge_reason, login_outage_reason
from parsers.phpbb import looks_like_phpbb
from parsers.phpbb_forms import (
    WRONG_CREDENTIALS_TEXTS,
    HtmlForm,
    error_messages,
    logged_in_user,
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
    """Why a GET answer must be retried (and whether it is an outage page: the board says it
    is disabled, or a challenge / host limit page answers instead of it), or None when it is
    a usable page."""
    if resp.status_code in RETRYABLE_STATUS:
        disabled = board_disabled_message(resp.text) if resp.content else None
        if disabled is not None:
            return f"HTTP {resp.status_code}, board disabled: «{disabled}»", True
        challenge = challenge_reason(resp)
        if challenge is not None and "challenge" in challenge:
            return challenge, True
        return f"HTTP {resp.status_code}", False
    challenge = challenge_reason(resp)  # a 403 challenge, a 508 host limit, a 52x
    if challenge is not None:
        return challenge, True
    if resp.status_code == 200:
        if is_truncated(resp.content):
            return f"truncated page ({len(resp.content)} bytes, no </html>)", False
        disabled = board_disabled_message(resp.text)
        if disabled is not None:
            return f"board disabled: «{disabled}»", True
    return None


def login_page_fault(resp: httpx.Response) -> tuple[str, bool] | None:
    """Why an answer to ``GET ucp.php?mode=login`` is not the board's login page (retried,
    then :class:`~forumbot.errors.BoardUnavailable`), or None when it is the board's: its
    login form, a page showing a logged-in member, a 404 (the caller says "no board at this
    address") or the board refusing the account (banned: the caller raises LoginFailed)."""
    fault = fault_reason(resp)
    if fault is not None or resp.status_code == 404:
        return fault
    html = resp.text
    if parse_form(html, "login") is not None or logged_in_user(html) is not None:
        return None
    if account_refusal(message_box_text(html) or "") is not None:
        return None
    return login_outage_reason(resp, "login page"), True


def login_page_error(resp: httpx.Response, base: str) -> ForumError:
    """The error of a login page answer that shows neither the login form nor a member: a
    404 is :class:`BoardNotFound`, the board refusing the account (banned) is
    :class:`LoginFailed`, anything else an outage (:class:`BoardUnavailable`)."""
    if resp.status_code == 404:
        url = str(resp.url)
        return BoardNotFound(
            f"no board at this address: {url} answers HTTP 404 (is board.url "
            f"{base.rstrip('/')} the forum's base URL?)",
            url,
        )
    refusal = account_refusal(message_box_text(resp.text) or "")
    if refusal is not None:
        return LoginFailed(refusal[1], refusal[0])
    if resp.status_code == 200 and looks_like_phpbb(resp.text):
        style = STYLE_PATH.search(resp.text)
        return PageNotUnderstood(  # a ServerError too: waited for, never a refused password
            f"login page: a phpBB page without prosilver's login form (style "
            f"{style.group(1) if style else 'unknown'!r})"
        )
    return BoardUnavailable(login_outage_reason(resp, "login page"))


def login_answer_error(answer: httpx.Response, notice: str | None) -> ForumError:
    """The error of a login POST answer that is neither a success nor a CAPTCHA nor
    FORM_INVALID (``notice``: the board's message from ``classify_notice``, if any).

    A refusal only from the board's own page: wrong credentials, a banned or inactive account,
    or the login form shown again (:class:`LoginFailed`); a challenge / host error / 5xx is
    :class:`BoardUnavailable` (or :class:`ServerError`), any other page an outage too.
    """
    outage = fault_reason(answer)
    if outage is not None:
        return (BoardUnavailable if outage[1] else ServerError)(f"login POST: {outage[0]}")
    html = answer.text
    errors = " ".join(error_messages(html))
    if any(text in normalize_text(errors) for text in WRONG_CREDENTIALS_TEXTS):
        return LoginFailed(notice or errors or "wrong user name or password")
    refusal = account_refusal(f"{errors} {message_box_text(html) or ''}")
    if refusal is not None:
        return LoginFailed(refusal[1], refusal[0])
    if parse_form(html, "login") is None:
        return BoardUnavailable(login_outage_reason(answer, "login POST"))
    return LoginFailed(notice or f"login refused (HTTP {answer.status_code})", "refused")


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


