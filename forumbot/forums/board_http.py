"""What both forum clients share around their ``httpx.Client``: bounded exchanges
(:mod:`forumbot.forums.http_edges`), the ``Retry-After`` policy with board pauses, the cookie
jar kept in a 0600 file across restarts, and a lock so two worker threads (poll, publish)
never log in at the same time (issue 12).

``Retry-After`` policy (:meth:`BoardHttp._retry_after`):

* absent, or an HTTP date already past: None -> the caller's exponential backoff;
* ``0`` (or any value under 1 s): 1 s;
* up to ``max_inline_wait_s`` (the lead wires the poll interval): waited in place by the
  caller's retry loop;
* longer: the board is *paused* until ``clock() + wait`` and :class:`BoardPaused` is raised at
  once (no sleeping inside the job). Until then every request of that scope fails fast with
  :class:`BoardPaused` without touching the network; :meth:`BoardHttp.pause_remaining_s` lets the
  scheduler skip the board's jobs. A refused read pauses everything (scope ``"all"``), a refused
  post only publishing (scope ``"publish"``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable
from http.cookiejar import Cookie
from pathlib import Path

import httpx
from tenacity import RetryCallState

from forumbot.config import refuse_writable_by_others
from forumbot.errors import BoardPaused, DeadlineExceeded, ResponseTooLarge
from forumbot.forums.clock_watch import ClockWatch
from forumbot.forums.http_edges import HttpLimits, exchange, parse_retry_after
from forumbot.forums.tls import verify_for
from parsers.page_language import page_language

log = logging.getLogger("forumbot.forums")

PAUSE_SCOPES = ("all", "publish")
LANGUAGE_READS = 3
"""Board pages read for their ``<html lang>`` before the client stops looking."""


class BoardHttp:
    """Mixin: set up with :meth:`_setup_http` from the client's constructor.

    Attributes (after setup):
        limits: the :class:`HttpLimits` of every request.
        max_inline_wait_s: longest ``Retry-After`` waited in place, seconds.
        cookie_file: where the cookie jar is kept (None: not kept).
        page_language: the language the board's pages say (``"fr"``), None until a page
            says one (:meth:`_read_language`).
    """

    _clock: Callable[[], float]
    _sleep: Callable[[float], None]
    backoff_cap_s: float
    max_retry_after_s: float

    def _setup_http(
        self,
        *,
        transport: httpx.BaseTransport | None,
        user_agent: str,
        timeout_s: float,
        limits: HttpLimits,
        max_inline_wait_s: float,
        cookie_file: str | Path | None,
    ) -> None:
        self.limits = limits
        self.max_inline_wait_s = max_inline_wait_s
        self.cookie_file = Path(cookie_file) if cookie_file is not None else None
        self._pause_until: dict[str, float] = {}
        self._session_lock = threading.RLock()
        self.page_language: str | None = None
        self._language_reads = 0
        self._http = httpx.Client(
            transport=transport,
            verify=verify_for(transport),
            headers={"User-Agent": user_agent},
            follow_redirects=False,
            timeout=timeout_s,
        )
        self._load_cookies()

    # ------------------------------------------------------------------ exchanges

    def _exchange(
        self,
        method: str,
        url: str,
        *,
        follow_redirects: bool,
        content: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> httpx.Response:
        """One bounded request (see :func:`forumbot.forums.http_edges.exchange`); its
        ``Date`` header goes to ``self.clock_watch`` when there is one
        (:mod:`forumbot.forums.clock_watch`).

        Raises: BoardPaused (paused: nothing sent), DeadlineExceeded, ResponseTooLarge,
            RedirectLoop, httpx.TransportError.
        """
        self._check_pause("all" if method == "GET" else "publish", url)
        response = exchange(
            self._http,
            method,
            url,
            clock=self._clock,
            limits=self.limits,
            follow_redirects=follow_redirects,
            content=content,
            headers=headers,
        )
        watch: ClockWatch | None = getattr(self, "clock_watch", None)
        if watch is not None:  # the clock watched on every answer (issue 24 F7)
            watch.observe(response.headers.get("date"))
        if method == "GET":
            self._read_language(response)
        return response

    def _read_language(self, response: httpx.Response) -> None:
        """``page_language``: the language the board's pages say (``<html lang>``,
        :func:`parsers.page_language.page_language`), read from the first HTML pages
        answered 200 until one says it; at most :data:`LANGUAGE_READS` pages are tried (a
        board whose theme writes none costs nothing more)."""
        if self.page_language is not None or self._language_reads >= LANGUAGE_READS:
            return
        if response.status_code != 200 or "html" not in response.headers.get("content-type", ""):
            return
        self._language_reads += 1
        self.page_language = page_language(response.text)

    def _post_form(self, url: str, content: bytes) -> httpx.Response:
        """One urlencoded POST, redirects not followed. An answer cut by the deadline or the
        cap is a transport error here (httpx.ReadTimeout / ReadError): the post's outcome is
        unknown, so the posting loops look for the marker before anything is sent again.
        A 429/503 whose ``Retry-After`` is too long pauses publishing (:class:`BoardPaused`).
        """
        try:
            resp = self._exchange(
                "POST",
                url,
                follow_redirects=False,
                content=content,
                headers={"Content-Type": "application/x-www-form-urlencoded"},
            )
        except DeadlineExceeded as exc:
            raise httpx.ReadTimeout(str(exc)) from exc
        except ResponseTooLarge as exc:
            raise httpx.ReadError(str(exc)) from exc
        if resp.status_code in (429, 503):
            self._retry_after(resp, f"POST {httpx.URL(url).path}", scope="publish")
        return resp

    # ------------------------------------------------------------------ pacing

    def pause_remaining_s(self, scope: str = "all") -> float:
        """Seconds before requests of ``scope`` may go to the board again (0.0: not paused).
        ``"publish"`` also counts a pause of everything."""
        now = self._clock()
        scopes = ("all",) if scope == "all" else PAUSE_SCOPES
        return max(0.0, *(self._pause_until.get(s, now) - now for s in scopes))

    def _check_pause(self, scope: str, what: str) -> None:
        remaining = self.pause_remaining_s(scope)
        if remaining > 0:
            until = self._clock() + remaining
            raise BoardPaused(
                f"{httpx.URL(what).path}: board paused for {remaining:.0f} s more (Retry-After)",
                remaining,
                until,
                scope,
            )

    def _retry_after(self, resp: httpx.Response, what: str, scope: str = "all") -> float | None:
        """The in-place wait a 429/5xx answer asks for (None: normal backoff).

        Raises: BoardPaused when it is longer than ``max_inline_wait_s`` (the pause is
            recorded first, so later requests fail fast).
        """
        wait = parse_retry_after(resp.headers.get("retry-after"), resp.headers.get("date"))
        if wait is None or wait <= self.max_inline_wait_s:
            return wait
        wait = min(wait, self.max_retry_after_s)
        until = self._clock() + wait
        self._pause_until[scope] = max(self._pause_until.get(scope, 0.0), until)
        raise BoardPaused(
            f"{what}: HTTP {resp.status_code}, the board asks to wait {wait:.0f} s "
            f"(Retry-After): paused until then",
            wait,
            until,
            scope,
        )

    def _wait(self, retry_state: RetryCallState) -> float:
        """tenacity wait: the ``Retry-After`` delay when the answer gave one, else
        ``2**(attempt-1)`` seconds capped at ``backoff_cap_s``."""
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        retry_after = getattr(exc, "retry_after_s", None)
        if isinstance(retry_after, float):
            return min(retry_after, self.max_retry_after_s)
        return float(min(self.backoff_cap_s, 2 ** (retry_state.attempt_number - 1)))

    # ------------------------------------------------------------------ cookie jar

    def _credential_check(self, salt: bytes) -> str:
        """A slow salted hash (PBKDF2-SHA256) of the account's username and password: the jar
        is reused only by the same credentials, so a changed (or wrong) password is tried
        against the board at once instead of riding on the old session."""
        secret = f"{getattr(self, 'username', '')}\0{getattr(self, '_password', '')}".encode()
        return hashlib.pbkdf2_hmac("sha256", secret, salt, 100_000).hex()

    def _load_cookies(self) -> None:
        """Fill the jar from ``cookie_file`` (written by :meth:`save_cookies`); a missing or
        unreadable file, or one saved with other credentials, starts a new session (logged),
        and a file readable by others is made 0600 again."""
        path = self.cookie_file
        if path is None or not path.exists():
            return
        refuse_writable_by_others(path, "cookie jar")  # a planted session (issue 24)
        try:
            if path.stat().st_mode & 0o077:
                os.chmod(path, 0o600)
                log.warning("cookie file %s was readable by others: made 0600", path)
            saved = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(saved, dict) or saved.get("check") != self._credential_check(
                bytes.fromhex(str(saved.get("salt", "")))
            ):
                log.info(
                    "cookie file %s: saved for other credentials (or an older format): "
                    "logging in anew",
                    path,
                )
                return
            for row in saved.get("cookies", []):
                self._http.cookies.jar.set_cookie(_cookie(row))
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning("cookie file %s unreadable (%s): starting a new session", path, exc)

    def save_cookies(self) -> None:
        """Write the jar to ``cookie_file`` (mode 0600, replaced atomically); no-op without
        a file."""
        path = self.cookie_file
        if path is None:
            return
        rows = [
            {
                "name": c.name,
                "value": c.value,
                "domain": c.domain,
                "path": c.path,
                "expires": c.expires,
                "secure": c.secure,
            }
            for c in self._http.cookies.jar
        ]
        salt = os.urandom(16)
        saved = {"salt": salt.hex(), "check": self._credential_check(salt), "cookies": rows}
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(saved, out)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)

    def _forget_session(self) -> None:
        """Drop every cookie (another member's session, or after a logout)."""
        self._http.cookies.clear()


def _cookie(row: dict[str, object]) -> Cookie:
    domain = str(row.get("domain") or "")
    expires = row.get("expires")
    return Cookie(
        version=0,
        name=str(row["name"]),
        value=str(row["value"]),
        port=None,
        port_specified=False,
        domain=domain,
        domain_specified=bool(domain),
        domain_initial_dot=domain.startswith("."),
        path=str(row.get("path") or "/"),
        path_specified=True,
        secure=bool(row.get("secure")),
        expires=int(expires) if isinstance(expires, int | float) else None,
        discard=False,
        comment=None,
        comment_url=None,
        rest={},
    )
