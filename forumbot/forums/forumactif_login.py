"""What a Forumactif login answer means (issue 22, "only a real refusal stops the bot"): the
board's own page (every Forumactif page prints ``_userdata``, REPORT.md section 2; a login
form is the board's too) refusing the
password or the account is a refusal; a page without ``_userdata`` (a challenge, a host error,
a maintenance page) or any 5xx is an outage, retried. Pure functions of the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

from forumbot.errors import BoardNotFound, BoardUnavailable, ForumError, LoginFailed
from forumbot.forums.forumactif_pages import login_error
from forumbot.forums.outages import account_refusal, challenge_reason, login_outage_reason
from parsers.forumactif.encoding import decode_html
from parsers.forumactif.forms import parse_login_form
from parsers.forumactif.userdata import parse_userdata

BOARD_MARKUP = re.compile(
    r"""href=["'](?:https?://[^/"']+)?/(?:[tfcu]\d+|privmsg|profile|login|post|viewtopic)"""
    r"""|post--\d+|_userdata""",
    re.IGNORECASE,
)
"""Anything of a Forumactif board's markup: a link to a topic, forum, category, profile,
the PM box, the login or posting page, or a post container."""


def read_fault(resp: httpx.Response) -> str | None:
    """Why any GET answer is an outage page (challenge, host limit, 5xx), else None."""
    return challenge_reason(resp)


def read_fault_for(path: str) -> Callable[[httpx.Response], str | None]:
    """The fault check of a session read of ``path``: :func:`listing_fault` for a forum
    listing or a topic page (``/f3-a``, ``/t7p10-a``), :func:`read_fault` otherwise."""
    return listing_fault if _LISTING_PATH.match(path) else read_fault


_LISTING_PATH = re.compile(r"^/?[ft]\d+(?:p\d+)?-")


def listing_fault(resp: httpx.Response) -> str | None:
    """Why a forum listing or topic page answer is an outage page, else None: a challenge,
    a host limit, a 5xx, or a 200 page with nothing of a Forumactif board: no ``_userdata``
    (printed on every page of every version, REPORT.md section 2) and no board link or post
    container (a host's maintenance page, another site's page: never read as an empty forum
    or a missing topic)."""
    reason = challenge_reason(resp)
    if reason is not None or resp.status_code != 200:
        return reason
    html = decode_html(resp.content)
    if parse_userdata(html) or BOARD_MARKUP.search(html):
        return None
    return login_outage_reason(resp, "page").replace("login page", "Forumactif page")


def login_page_fault(resp: httpx.Response) -> str | None:
    """Why an answer to ``GET /login`` is not the board's page (retried with backoff, then
    :class:`BoardUnavailable`), or None: a page with ``_userdata`` or a login form, a 404
    (the caller says "no board at this address") or a page refusing the account."""
    reason = challenge_reason(resp)
    if reason is not None or resp.status_code == 404:
        return reason
    html = decode_html(resp.content)
    if parse_userdata(html) or parse_login_form(html) is not None:
        return None
    if account_refusal(html) is not None:
        return None
    return login_outage_reason(resp, "login page")


def not_found(resp: httpx.Response, base: str) -> BoardNotFound:
    """The error of a ``/login`` answering 404: ``board.url`` names no board."""
    url = str(resp.url)
    return BoardNotFound(
        f"no board at this address: {url} answers HTTP 404 (is board.url "
        f"{base.rstrip('/')} the forum's address?)",
        url,
    )


def login_answer_error(answer: httpx.Response, page: str) -> ForumError:
    """The error of a login POST whose answer (``page``: the answer, or the page its redirect
    leads to) does not show the bot logged in.

    :class:`LoginFailed` only from the board's own page: a refusal sentence (wrong password,
    banned, inactive) or its login form shown again to a guest; anything else (no
    ``_userdata``: a challenge, a host page; a 5xx) is :class:`BoardUnavailable`.
    """
    outage = challenge_reason(answer)
    if outage is not None:
        return BoardUnavailable(f"login POST: {outage}")
    refusal = account_refusal(page)
    if refusal is not None:
        return LoginFailed(refusal[1], refusal[0])
    if not parse_userdata(page) and parse_login_form(page) is None:
        return BoardUnavailable(login_outage_reason(answer, "login POST"))
    reason = login_error(page)
    if reason is not None:
        return LoginFailed(reason)
    if parse_login_form(page) is not None:
        return LoginFailed("the board still shows a guest and its login form after the login")
    return LoginFailed("the board still shows a guest after the login", "refused")
