"""Pages put in front of a board, told from the board's own refusals (issue 22, "only a real
refusal stops the bot"). Shared by the phpBB and Forumactif clients; pure functions of an
answer (status, headers, body).

* :func:`challenge_reason`: a Cloudflare-style challenge (403/503 « Just a moment... »,
  « Checking your browser », « Attention Required! », a ``cf-mitigated`` / ``cf-ray``
  header on a 403/503), a host's 508 « Resource Limit Is Reached », any 5xx: the board is
  not answering, whatever asks. Every GET retries these (with backoff), like a 503.
* :func:`account_refusal`: the board's own sentence refusing the *account* (banned, not
  activated), on either platform: a real refusal (``LoginFailed``), never retried.
* :func:`page_title`: the ``<title>`` of a page, for log lines.

The login answers themselves are classified by each client (``_login``): the board's login
form with an error box is a refusal (wrong password, CAPTCHA, banned, inactive); a 404 is
:class:`~forumbot.errors.BoardNotFound`; anything else that is not the board's page is an
outage (:class:`~forumbot.errors.BoardUnavailable`), retried with backoff.
"""

from __future__ import annotations

import re
from html import unescape

import httpx

#: Words of a challenge or host interstitial (lower case), looked for in the first 64 KiB.
CHALLENGE_TEXTS: tuple[str, ...] = (
    "just a moment...",
    "checking your browser",
    "attention required",
    "cf-browser-verification",
    "challenge-platform",
    "cf_chl_opt",
    "enable javascript and cookies to continue",
    "ddos protection by",
    "ddos-guard",
    "sucuri website firewall",
    "vérification de votre navigateur",
    "un instant…",
)
#: A shared host's resource limit page (cPanel / CloudLinux LVE, LiteSpeed: HTTP 508).
HOST_LIMIT_TEXTS: tuple[str, ...] = ("resource limit is reached",)
#: Statuses a challenge comes with (Cloudflare: 403 "managed challenge", 503 "I'm under attack",
#: 429 rate limit).
CHALLENGE_STATUS = frozenset({403, 429, 503})

#: The board refusing the account itself. phpBB 3.3 language files: ``BOARD_BAN_PERM`` /
#: ``BOARD_BAN_TIME`` ("You have been banned from this board…", « Vous avez été banni… »),
#: ``ACTIVE_ERROR`` ("The specified username is currently inactive…", « … est actuellement
#: inactif »), ``ACCOUNT_NOT_ACTIVATED``. Forumactif: no capture (docs/forumactif.md), the
#: same words assumed. Lower case, typographic apostrophes folded to ``'``.
BANNED_TEXTS: tuple[str, ...] = (
    "vous avez été banni",
    "banni de ce forum",
    "banned from this board",
    "you have been banned",
    "you have been permanently banned",
    "vous êtes banni",
    "banned from this forum",
)
INACTIVE_TEXTS: tuple[str, ...] = (
    "is currently inactive",
    "actuellement inactif",
    "has not been activated",
    "n'a pas encore été activé",
    "n'est pas activé",
    "n'est pas encore activé",
    "compte est désactivé",
    "account is inactive",
    "not been activated yet",
)

_TITLE_RE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")
_HEAD_BYTES = 65536


def _fold(text: str) -> str:
    return " ".join(text.replace("\u2019", "'").replace("\xa0", " ").lower().split())


def page_title(html: str) -> str | None:
    """The page's ``<title>`` (entities decoded, white space collapsed), or None."""
    match = _TITLE_RE.search(html[:_HEAD_BYTES])
    if match is None:
        return None
    title = " ".join(unescape(_TAG_RE.sub("", match.group(1))).split())
    return title or None


def _head_text(resp: httpx.Response) -> str:
    try:
        return resp.content[:_HEAD_BYTES].decode(resp.encoding or "utf-8", errors="replace")
    except LookupError:
        return resp.content[:_HEAD_BYTES].decode("utf-8", errors="replace")


def challenge_reason(resp: httpx.Response) -> str | None:
    """Why ``resp`` is a page in front of the board (challenge, host limit, 5xx), or None.

    Returns a short English reason for the logs, e.g. ``"HTTP 503, challenge page «Just a
    moment...»"`` or ``"HTTP 508 «Resource Limit Is Reached»"``. A 2xx/3xx/404 answer is never
    one; a 403/429 only with a challenge's words or Cloudflare's ``cf-mitigated`` header (a
    ``cf-ray`` header alone is on every page of a board behind Cloudflare).
    """
    status = resp.status_code
    if status < 400 or status == 404:
        return None
    html = _head_text(resp) if resp.content else ""
    folded = _fold(html)
    title = page_title(html)
    shown = f" «{title[:80]}»" if title else ""
    challenged = (
        any(text in folded for text in CHALLENGE_TEXTS)
        or resp.headers.get("cf-mitigated", "").lower() == "challenge"
    )
    if challenged and (status in CHALLENGE_STATUS or status >= 500):
        return f"HTTP {status}, challenge page{shown}"
    if any(text in folded for text in HOST_LIMIT_TEXTS):
        return f"HTTP {status}, host limit{shown}"
    if status >= 500:
        return f"HTTP {status}{shown}"
    return None


def account_refusal(text: str) -> tuple[str, str] | None:
    """``(kind, sentence)`` when ``text`` (a page's text or error box) refuses the account:
    kind ``"banned"`` or ``"inactive"`` (see :data:`BANNED_TEXTS`, :data:`INACTIVE_TEXTS`);
    None otherwise. ``sentence`` is the text around the words found (at most 200 chars)."""
    folded = _fold(_TAG_RE.sub(" ", text))
    for kind, texts in (("banned", BANNED_TEXTS), ("inactive", INACTIVE_TEXTS)):
        for words in texts:
            at = folded.find(words)
            if at >= 0:
                start = max(0, folded.rfind(".", 0, at) + 1)
                end = folded.find(".", at + len(words))
                sentence = folded[start : end + 1 if end >= 0 else at + 160].strip()
                return kind, sentence[:200]
    return None


def login_outage_reason(resp: httpx.Response, what: str) -> str:
    """The one-line reason of a login answer that is not the board's page (for
    :class:`~forumbot.errors.BoardUnavailable`): the challenge reason, else the status and
    the page's title."""
    reason = challenge_reason(resp)
    if reason is not None:
        return f"{what}: {reason}"
    html = _head_text(resp) if resp.content else ""
    title = page_title(html)
    shown = f" «{title[:80]}»" if title else ""
    return f"{what}: HTTP {resp.status_code}, not the board's login page{shown}"
