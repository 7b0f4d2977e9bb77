"""One HTTP exchange with a board, bounded on every edge (shared by the phpBB and Forumactif
clients; issue 12, "HTTP edges").

:func:`exchange` sends one request and reads its answer itself instead of letting httpx do it:

* **total deadline** (``HttpLimits.deadline_s``, seconds, on the injected monotonic clock):
  connect + send + the whole body, over every redirect hop. The body is streamed and the
  deadline is checked after each chunk; each socket read is bounded by the time left when the
  hop started. A board trickling one byte every 5 s therefore fails at the first chunk past the
  deadline (:class:`~forumbot.errors.DeadlineExceeded`), instead of never (httpx's timeout
  applies to each read).
* **body cap** (``HttpLimits.max_body_bytes``, default 8 MiB, decoded bytes): a bigger
  ``Content-Length`` is refused before reading, a body growing past it is dropped mid-stream
  (:class:`~forumbot.errors.ResponseTooLarge`); memory stays near the cap.
* **redirects** (GET only, ``HttpLimits.max_redirects``): followed hop by hop; a URL seen twice
  or too many hops is :class:`~forumbot.errors.RedirectLoop` (one line, no traceback). The
  answer's ``url`` is the final URL so the callers can check it is the page they asked for.

Transport errors (connect refused, read timeout) propagate unchanged: the callers retry them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin

import httpx

from forumbot.errors import DeadlineExceeded, RedirectLoop, ResponseTooLarge

REDIRECT_STATUS = frozenset({301, 302, 303, 307, 308})
DROPPED_HEADERS = frozenset({"content-encoding", "content-length", "transfer-encoding"})
#: Shortest wait honoured for a ``Retry-After`` (``0`` would make a tight loop), seconds.
RETRY_AFTER_FLOOR_S = 1.0


@dataclass(frozen=True)
class HttpLimits:
    """Bounds of one request.

    Attributes:
        deadline_s: seconds for connect + send + whole body, all redirect hops included.
        max_body_bytes: largest (decoded) body accepted, bytes (default 8 MiB).
        max_redirects: redirect hops followed by a GET before :class:`RedirectLoop`.
    """

    deadline_s: float = 60.0
    max_body_bytes: int = 8 * 1024 * 1024
    max_redirects: int = 10


def exchange(
    http: httpx.Client,
    method: str,
    url: str,
    *,
    clock: Callable[[], float],
    limits: HttpLimits,
    follow_redirects: bool = False,
    content: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> httpx.Response:
    """Send ``method url`` and return the answer fully read (``.content`` set, ``.url`` the
    final URL, ``.history`` the redirect answers, bodies not kept).

    Raises:
        DeadlineExceeded: the deadline passed (before a hop or while reading a body).
        ResponseTooLarge: the body is larger than ``limits.max_body_bytes``.
        RedirectLoop: a redirect back to a URL already visited, or more than
            ``limits.max_redirects`` hops.
        httpx.TransportError: as httpx raises it (the caller decides on retries).
    """
    deadline = clock() + limits.deadline_s
    seen = [url]
    history: list[httpx.Response] = []
    while True:
        remaining = deadline - clock()
        if remaining <= 0:
            raise DeadlineExceeded(
                f"{method} {_short(url)}: no complete answer within {limits.deadline_s:.0f} s",
                limits.deadline_s,
            )
        request = http.build_request(
            method, url, content=content, headers=headers, timeout=httpx.Timeout(remaining)
        )
        answer = _read_one(http, request, clock, deadline, limits, history)
        location = answer.headers.get("location")
        if not follow_redirects or answer.status_code not in REDIRECT_STATUS or not location:
            return answer
        target = urljoin(str(request.url), location)
        if target in seen or len(history) >= limits.max_redirects:
            raise RedirectLoop(
                f"{method} {_short(seen[0])}: redirect loop "
                f"({' -> '.join(_short(u) for u in [*seen, target][-4:])})",
                [*seen, target],
            )
        seen.append(target)
        history.append(answer)
        if answer.status_code in (301, 302, 303):
            method, content = "GET", None
        url = target


def _read_one(
    http: httpx.Client,
    request: httpx.Request,
    clock: Callable[[], float],
    deadline: float,
    limits: HttpLimits,
    history: Sequence[httpx.Response],
) -> httpx.Response:
    """Send one hop and stream its body under the deadline and the cap."""
    what = f"{request.method} {_short(str(request.url))}"
    cap = limits.max_body_bytes
    streamed = http.send(request, stream=True, follow_redirects=False)
    try:
        declared = streamed.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise ResponseTooLarge(f"{what}: answer of {int(declared)} bytes, cap {cap}", cap)
        chunks: list[bytes] = []
        size = 0
        for chunk in streamed.iter_bytes():
            size += len(chunk)
            if size > cap:
                raise ResponseTooLarge(f"{what}: answer over {cap} bytes, dropped", cap)
            chunks.append(chunk)
            if clock() > deadline:
                raise DeadlineExceeded(
                    f"{what}: body still arriving after {limits.deadline_s:.0f} s "
                    f"({size} bytes so far)",
                    limits.deadline_s,
                )
    finally:
        streamed.close()
    kept = [(k, v) for k, v in streamed.headers.multi_items() if k.lower() not in DROPPED_HEADERS]
    return httpx.Response(
        streamed.status_code,
        headers=kept,
        content=b"".join(chunks),
        request=request,
        history=list(history),
    )


def parse_retry_after(value: str | None, date_header: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    * delta-seconds: the value, at least :data:`RETRY_AFTER_FLOOR_S` (``0`` gives 1 s);
    * an HTTP date is measured against the response's own ``Date`` header (the server's
      clock, so no wall clock is read); a date already past (or without ``Date``) gives None:
      the caller's normal backoff applies, never a tight loop;
    * absent or unreadable: None.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return max(RETRY_AFTER_FLOOR_S, float(value))
    if not date_header:
        return None
    try:
        target = parsedate_to_datetime(value)
        now = parsedate_to_datetime(date_header)
    except (TypeError, ValueError):
        return None
    wait = (target - now).total_seconds()
    return max(RETRY_AFTER_FLOOR_S, wait) if wait > 0 else None


def _short(url: str) -> str:
    """A URL without scheme and host, for log lines."""
    parsed = httpx.URL(url)
    query = parsed.query.decode()
    return parsed.path + (f"?{query}" if query else "")
