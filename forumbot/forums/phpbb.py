"""phpBB 3.3 HTTP client: log in, read forums and topics, reply, open topics, edit the bot's
posts, send PMs.

Follows the flows observed on a real phpBB 3.3.15 board (``fixtures/html/phpbb/FLOWS.md``):

* one ``httpx.Client`` with a cookie jar and the same User-Agent for the whole session
  (phpBB's browser_check); POSTs never follow redirects (success of a post/login is a 302);
* every form is fetched fresh, then POSTed at least ``min_form_age_s`` seconds later with all its
  fields (phpBB's ``check_form_key``: "0 < now - creation_time", FORM_INVALID otherwise);
* every page read checks the header: a silently expired session looks like a normal 200 page
  without the user menu -> one re-login, then :class:`~forumbot.errors.SessionExpired`;
* GETs are retried (tenacity) on transport errors, 5xx and 429 with exponential backoff capped at
  ``backoff_cap_s`` and honouring ``Retry-After``; all waiting goes through the injected ``sleep``;
* POSTs are never retried blindly: after a timeout, a 5xx, FORM_INVALID or a post review, the topic
  (or the PM folders) is searched for the message's ``marker`` first, so nothing is posted twice.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Container
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from forumbot.errors import (
    AmbiguousPost,
    BoardUnavailable,
    CaptchaRequired,
    FloodLimited,
    FormInvalid,
    ForumError,
    LoginFailed,
    PageNotUnderstood,
    PermissionDenied,
    PostQueued,
    PostReview,
    ServerError,
    SessionExpired,
    TopicNotFound,
)
from forumbot.forums.base import TopicSummary
from parsers.errors import ParseError
from parsers.model import Post, TopicPage
from parsers.phpbb import looks_like_phpbb, parse_topic_page
from parsers.phpbb_forms import (
    HtmlForm,
    classify_notice,
    logged_in_user,
    message_box_text,
    normalize_text,
    parse_form,
    parse_pm_folder,
    parse_pm_message_text,
    parse_topic_list,
)

DEFAULT_USER_AGENT = "forumbot/0.1 (+referee bot for role-play duels)"

log = logging.getLogger("forumbot.phpbb")

_RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})

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
_LOGIN_LINK = re.compile(r"href=[\"'][^\"']*ucp\.php\?mode=login", re.IGNORECASE)
_LOGOUT_LINK = re.compile(r"ucp\.php\?mode=logout", re.IGNORECASE)


class _RetryableStatus(Exception):
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


_STYLE = re.compile(r"styles/([\w.-]+)/theme/")


def _check_guest_page(html: str, path: str) -> None:
    """Return when ``html`` is a phpBB page shown to a guest (a login form, or the header's
    login link and no logout link); otherwise the page is not one the client can read.

    Raises:
        PageNotUnderstood: another forum software's page, or a phpBB page whose header is not
            prosilver's (another style: the user may well be logged in, so no re-login).
    """
    if parse_form(html, "login") is not None:
        return
    if _LOGIN_LINK.search(html) and not _LOGOUT_LINK.search(html):
        return
    if not looks_like_phpbb(html):
        raise PageNotUnderstood(f"GET {path}: not a phpBB page (another forum software?)")
    style = _STYLE.search(html)
    raise PageNotUnderstood(
        f"GET {path}: phpBB page without prosilver's header "
        f"(style {style.group(1) if style else 'unknown'!r})"
    )


def _fault_reason(resp: httpx.Response) -> tuple[str, bool] | None:
    """Why a GET answer must be retried (and whether the board says it is disabled), or
    None when it is a usable page."""
    if resp.status_code in _RETRYABLE_STATUS:
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
class _FetchedForm:
    """A form and the injected-clock time its page arrived (for the minimum form age)."""

    form: HtmlForm
    fetched_at: float


def parse_retry_after(value: str | None, date_header: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date).

    An HTTP date is measured against the response's own ``Date`` header (the server's clock),
    so no wall clock is read. Returns None when absent or unreadable; never negative.
    """
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    if not date_header:
        return None
    try:
        target = parsedate_to_datetime(value)
        now = parsedate_to_datetime(date_header)
    except (TypeError, ValueError):
        return None
    return max(0.0, (target - now).total_seconds())


def _query_int(url: str, key: str) -> int | None:
    values = parse_qs(urlsplit(url).query).get(key)
    if values and values[0].isdigit():
        return int(values[0])
    return None


def _about(path: str) -> str:
    """What a board path is about, for log lines: ``"topic 5"``, ``"forum 3"``, else the path."""
    for key, name in (("t", "topic"), ("f", "forum"), ("p", "post")):
        value = _query_int(path, key)
        if value is not None:
            return f"{name} {value}"
    return path


class PhpbbClient:
    """A :class:`~forumbot.forums.base.ForumClient` for phpBB 3.3 (prosilver).

    Args:
        base_url: the board's root, e.g. ``"http://127.0.0.1:8080"`` or ``"https://x/forum"``.
        username, password: the bot's account.
        transport: httpx transport (tests: ``httpx.MockTransport``); None = network.
        sleep: called with seconds to wait (tests: a fake advancing a fake clock).
        clock: monotonic seconds (tests: a fake clock).
        user_agent: sent on every request (phpBB ties the session to it).
        min_form_age_s: seconds between fetching a form and POSTing it (phpBB needs > 1 s).
        max_retries: retries of a GET after a transport error / 5xx / 429; also bounds how many
            times a post is re-attempted after flood or post review.
        flood_interval_s: seconds to wait after a flood refusal (phpBB flood_interval, default 15).
        backoff_cap_s: upper bound of one exponential-backoff wait, seconds.
        max_retry_after_s: upper bound honoured for a ``Retry-After``, seconds.
        timeout_s: httpx timeout of one request, seconds.
    """

    def __init__(
        self,
        base_url: str,
        username: str,
        password: str,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        user_agent: str = DEFAULT_USER_AGENT,
        min_form_age_s: float = 1.5,
        max_retries: int = 4,
        flood_interval_s: float = 15.0,
        backoff_cap_s: float = 60.0,
        max_retry_after_s: float = 600.0,
        timeout_s: float = 30.0,
    ) -> None:
        self._base = base_url.rstrip("/") + "/"
        self.username = username
        self._password = password
        self._sleep = sleep
        self._clock = clock
        self.min_form_age_s = min_form_age_s
        self.max_retries = max_retries
        self.flood_interval_s = flood_interval_s
        self.backoff_cap_s = backoff_cap_s
        self.max_retry_after_s = max_retry_after_s
        self._logged_in = False
        self._ever_logged_in = False  # the first guest page is no "session expired"
        self._http = httpx.Client(
            transport=transport,
            headers={"User-Agent": user_agent},
            follow_redirects=False,
            timeout=timeout_s,
        )

    # ------------------------------------------------------------------ plumbing

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def _url(self, path: str) -> str:
        return urljoin(self._base, path)

    def _wait(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        exc = outcome.exception() if outcome is not None else None
        if isinstance(exc, _RetryableStatus) and exc.retry_after_s is not None:
            return min(exc.retry_after_s, self.max_retry_after_s)
        return float(min(self.backoff_cap_s, 2 ** (retry_state.attempt_number - 1)))

    def _get(self, path: str, about: str | None = None) -> httpx.Response:
        """GET with retries on transport errors, 5xx, 429, truncated pages and phpBB's
        board-disabled page. Each retry is logged at INFO; a GET that succeeds after retries
        logs ONE warning naming ``about`` (e.g. ``"topic 5"``, default: the path) and the fault.

        Raises: BoardUnavailable (still disabled), ServerError (others) after
            ``max_retries`` retries.
        """
        faults: list[str] = []

        def once() -> httpx.Response:
            try:
                resp = self._http.get(self._url(path), follow_redirects=True)
            except httpx.TransportError as exc:
                faults.append(type(exc).__name__)
                raise
            fault = _fault_reason(resp)
            if fault is not None:
                faults.append(fault[0])
                raise _RetryableStatus(
                    resp.status_code,
                    parse_retry_after(resp.headers.get("retry-after"), resp.headers.get("date")),
                    fault[0],
                    fault[1],
                )
            return resp

        def before_sleep(state: RetryCallState) -> None:
            log.info(
                "%s: GET %s: %s; retry %d/%d in %.0f s",
                about or path,
                path,
                faults[-1],
                state.attempt_number,
                self.max_retries,
                state.upcoming_sleep,
            )

        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type((httpx.TransportError, _RetryableStatus)),
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            resp = retrying(once)
        except _RetryableStatus as exc:
            error = BoardUnavailable if exc.disabled else ServerError
            raise error(
                f"GET {path}: {exc.reason}, still after {self.max_retries} retries"
            ) from exc
        except httpx.TransportError as exc:
            raise ServerError(
                f"GET {path}: {type(exc).__name__}, still after {self.max_retries} retries"
            ) from exc
        if faults:
            log.warning(
                "%s: GET %s recovered after %d %s (%s)",
                about or path,
                path,
                len(faults),
                "retry" if len(faults) == 1 else "retries",
                ", ".join(dict.fromkeys(faults)),
            )
        return resp

    def _post(self, action: str, body: list[tuple[str, str]]) -> httpx.Response:
        """One POST (urlencoded, redirects not followed). Transport errors propagate."""
        return self._http.post(
            self._url(action),
            content=urlencode(body).encode("ascii"),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
            follow_redirects=False,
        )

    def _read(self, path: str, about: str | None = None) -> str:
        """GET a page that needs the session; re-login once when it shows a guest (logged as
        ONE warning naming ``about``, default the path).

        Raises: TopicNotFound (404), SessionExpired, LoginFailed, ServerError,
            PageNotUnderstood (a page without prosilver's header: another style or software).
        """
        for attempt in range(2):
            resp = self._get(path, about)
            html = resp.text
            user = logged_in_user(html)
            self._logged_in = user is not None
            if user is None:
                _check_guest_page(html, path)
            if user is None and attempt == 0:
                if self._ever_logged_in:
                    log.warning(
                        "%s: the board shows a guest on %s (session expired): logging in again",
                        about or path,
                        path,
                    )
                else:
                    log.info("%s: not logged in yet: logging in", about or path)
                self.login()
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{path}: HTTP 404")
            if user is None:
                raise SessionExpired(f"{path}: still a guest after logging in again")
            if resp.status_code >= 400:
                raise ServerError(f"GET {path}: HTTP {resp.status_code}")
            return html
        raise SessionExpired(f"{path}: still a guest")  # pragma: no cover - loop always returns

    def _wait_form_age(self, fetched_at: float) -> None:
        age = self._clock() - fetched_at
        if age < self.min_form_age_s:
            self._sleep(self.min_form_age_s - age)

    def _fetch_form(self, path: str, form_id: str = "postform") -> _FetchedForm:
        """GET ``path`` (session checked) and return its form.

        Raises: PermissionDenied / TopicNotFound when the board answers a message instead.
        """
        html = self._read(path, _about(path))
        fetched_at = self._clock()
        form = parse_form(html, form_id)
        if form is None:
            self._raise_for_notice(html, path)
            raise ForumError(f"{path}: no form {form_id!r} on the page")
        return _FetchedForm(form, fetched_at)

    def _raise_for_notice(self, html: str, what: str) -> None:
        notice = classify_notice(html)
        if notice.kind == "not_found":
            raise TopicNotFound(f"{what}: {notice.message}")
        if notice.kind == "permission_denied":
            raise PermissionDenied(f"{what}: {notice.message}")
        if notice.kind == "login_required":
            raise SessionExpired(f"{what}: {notice.message}")

    def _cookie_user_id(self) -> int | None:
        for cookie in self._http.cookies.jar:
            if cookie.name.endswith("_u") and cookie.value and cookie.value.isdigit():
                return int(cookie.value)
        return None

    # ------------------------------------------------------------------ session

    def login(self) -> None:
        """Log in (GET the login form, wait its minimum age, POST it).

        Success is a 302 with a user cookie ``<cookie_name>_u`` other than 1 (guest).
        FORM_INVALID refetches the form and retries once.

        Raises:
            CaptchaRequired: the form carries ``confirm_code``/``confirm_id`` or the board says
                the maximum number of attempts was exceeded (the password is not sent again).
            LoginFailed: wrong password / unknown user / any other refusal (no retry).
            FormInvalid: FORM_INVALID twice in a row.
            ServerError: network / 5xx (the login POST itself is not retried).
        """
        for attempt in range(2):
            resp = self._get("ucp.php?mode=login")
            fetched_at = self._clock()
            form = parse_form(resp.text, "login")
            if form is None:
                if logged_in_user(resp.text) is not None:
                    self._logged_in = self._ever_logged_in = True
                    return
                raise LoginFailed("no login form on ucp.php?mode=login")
            if form.has_captcha:
                raise CaptchaRequired("the login form asks for a CAPTCHA")
            self._wait_form_age(fetched_at)
            body = form.payload(
                {"username": self.username, "password": self._password, "autologin": "on"},
                "login",
            )
            try:
                answer = self._post(form.action or "ucp.php?mode=login", body)
            except httpx.TransportError as exc:
                raise ServerError(f"login POST: {type(exc).__name__}") from exc
            if answer.status_code in (301, 302, 303):
                uid = self._cookie_user_id()
                if uid is None or uid == 1:
                    raise LoginFailed("redirected without a user cookie")
                self._logged_in = self._ever_logged_in = True
                return
            if answer.status_code >= 500:
                raise ServerError(f"login POST: HTTP {answer.status_code}")
            notice = classify_notice(answer.text)
            if notice.kind == "captcha":
                raise CaptchaRequired(notice.message or "CAPTCHA required")
            if notice.kind == "form_invalid" and attempt == 0:
                continue
            if notice.kind == "form_invalid":
                raise FormInvalid(notice.message or "FORM_INVALID on login, twice")
            raise LoginFailed(notice.message or f"login refused (HTTP {answer.status_code})")
        raise FormInvalid("FORM_INVALID on login, twice")  # pragma: no cover

    def is_logged_in(self) -> bool:
        """True when the last page read showed the user menu (no request is made)."""
        return self._logged_in

    # ------------------------------------------------------------------ reading

    def list_topics(self, forum_id: int) -> list[TopicSummary]:
        """Topics of ``viewforum.php?f=forum_id`` (first listing page, one request).

        Raises: TopicNotFound (no such forum), SessionExpired, ServerError.
        """
        path = f"viewforum.php?f={forum_id}"
        html = self._read(path, f"forum {forum_id}")
        try:
            rows = parse_topic_list(html, source=path)
        except ParseError as exc:
            raise PageNotUnderstood(f"GET {path}: {exc.reason}") from exc
        return [
            TopicSummary(
                topic_id=row.topic_id,
                title=row.title,
                last_post_id=row.last_post_id,
                replies=row.replies,
                author=row.author,
            )
            for row in rows
        ]

    def _topic_page(self, path: str, about: str | None = None) -> TopicPage:
        """GET and parse a topic page.

        Raises: like :meth:`_read`; PageNotUnderstood when the page cannot be parsed.
        """
        html = self._read(path, about)
        try:
            return parse_topic_page(html, source=path)
        except ParseError as exc:
            raise PageNotUnderstood(f"GET {path}: {exc.reason}") from exc

    def _scan(self, topic_id: int, first: TopicPage, after_post_id: int | None) -> list[Post]:
        """Posts newer than ``after_post_id`` on ``first`` and every later page."""
        posts = [p for p in first.posts if after_post_id is None or p.post_id > after_post_id]
        page = first
        per_page = len(first.posts)
        while page.page < page.pages and per_page > 0:
            start = page.page * per_page
            page = self._topic_page(
                f"viewtopic.php?t={topic_id}&start={start}", f"topic {topic_id}"
            )
            posts.extend(
                p for p in page.posts if after_post_id is None or p.post_id > after_post_id
            )
        return posts

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        """Posts of ``topic_id`` with id > ``after_post_id`` (all when None), in topic order.

        With ``after_post_id``: GET ``viewtopic.php?p=<after_post_id>`` (the page holding that
        post), then the later pages. When that post is gone (deleted / moved), scan the topic
        from its first page instead. Requests: 1 per page read.

        Raises: TopicNotFound, SessionExpired, ServerError, PageNotUnderstood (a page that
            cannot be parsed: truncated, another style, another forum software).
        """
        if after_post_id is not None:
            try:
                page = self._topic_page(f"viewtopic.php?p={after_post_id}", f"topic {topic_id}")
            except TopicNotFound:
                page = None
            if (
                page is not None
                and page.topic_id in (None, topic_id)
                and any(p.post_id == after_post_id for p in page.posts)
            ):
                return self._scan(topic_id, page, after_post_id)
        first = self._topic_page(f"viewtopic.php?t={topic_id}", f"topic {topic_id}")
        return self._scan(topic_id, first, after_post_id)

    def find_marker(self, topic_id: int, marker: str, after_post_id: int | None) -> int | None:
        """Id of the first post by this client's user after ``after_post_id`` whose text (or
        raw HTML) contains ``marker``; None when there is none."""
        me = self.username.casefold()
        for post in self.read_topic(topic_id, after_post_id):
            if post.author.casefold() == me and (marker in post.text or marker in post.html):
                return post.post_id
        return None

    def _find_topic_marker(self, forum_id: int, subject: str, marker: str) -> int | None:
        """Topic id of a topic titled ``subject`` opened by this user whose first post
        contains ``marker``, or None."""
        me = self.username.casefold()
        for row in self.list_topics(forum_id):
            if row.title != subject or (row.author or "").casefold() != me:
                continue
            posts = self.read_topic(row.topic_id, None)
            if posts and (marker in posts[0].text or marker in posts[0].html):
                return row.topic_id
        return None

    # ------------------------------------------------------------------ posting

    def reply(self, topic_id: int, message: str, marker: str) -> int:
        """Reply in ``topic_id`` with ``message`` (which must contain ``marker``).

        Flow: GET ``posting.php?mode=reply&t=T``, wait the form age, POST all its fields with
        ``message`` and ``post=<label>``; a 302 to ``viewtopic.php?p=N#pN`` gives N. Flood: wait
        ``flood_interval_s`` then a fresh form. Post review / FORM_INVALID / timeout / 5xx: search
        the topic for ``marker`` (posts after the form's ``topic_cur_post_id``) and return that
        post if found, else submit again (post review: with the refreshed form it carries).

        Returns: the new post id.
        Raises: FloodLimited, FormInvalid, PostReview, PostQueued, TopicNotFound,
            PermissionDenied, SessionExpired, AmbiguousPost, ServerError.
        """
        after: list[int | None] = [None]

        def find() -> int | None:
            return self.find_marker(topic_id, marker, after[0])

        def on_form(form: HtmlForm) -> None:
            if after[0] is None:
                cur = form.value("topic_cur_post_id")
                after[0] = int(cur) if cur and cur.isdigit() else None

        return self._submit(
            f"posting.php?mode=reply&t={topic_id}", message, None, "p", find, on_form
        )

    def create_topic(self, forum_id: int, subject: str, message: str, marker: str) -> int:
        """Open a topic ``subject`` in ``forum_id``; a 302 to ``viewtopic.php?t=N`` gives N.

        Same safety as :meth:`reply`; the marker is looked for in the first post of topics of
        the forum titled ``subject`` and opened by this user.

        Raises: like :meth:`reply`.
        """
        return self._submit(
            f"posting.php?mode=post&f={forum_id}",
            message,
            subject,
            "t",
            lambda: self._find_topic_marker(forum_id, subject, marker),
            lambda form: None,
        )

    def edit_post(self, post_id: int, message: str) -> None:
        """Replace the text of the bot's own post ``post_id`` with ``message``.

        Flow (``FLOWS.md`` "Edit"): GET ``posting.php?mode=edit&p=N`` (form ``postform`` with
        the current message and the hidden ``edit_post_message_checksum`` /
        ``edit_post_subject_checksum``), wait the form age, POST every field with ``message``
        and ``post=<label>``; success is a **302** to ``viewtopic.php?p=N#pN``. An edit is
        idempotent (same text again changes nothing), so after a timeout, a 5xx or
        FORM_INVALID it is simply done again with a fresh form. Edits are exempt from the
        flood limit; a flood answer is waited out all the same.

        Raises: TopicNotFound (no such post), PermissionDenied (not the bot's post, or the
            board's edit time limit is over), FormInvalid, SessionExpired, AmbiguousPost,
            ServerError.
        """
        path = f"posting.php?mode=edit&p={post_id}"
        relogged = False
        floods = invalids = failures = 0
        while True:
            if floods > self.max_retries:
                raise FloodLimited("edit still flood-limited", self.flood_interval_s)
            if invalids > 2:
                raise FormInvalid("FORM_INVALID on edit, repeatedly")
            if failures > self.max_retries:
                raise AmbiguousPost(f"{path}: no answer after {failures} tries")
            fetched = self._fetch_form(path)
            self._wait_form_age(fetched.fetched_at)
            body = fetched.form.payload({"message": message}, "post")
            try:
                resp = self._post(fetched.form.action or path, body)
            except httpx.TransportError:
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code in (301, 302, 303):
                return
            if resp.status_code >= 500 or resp.status_code == 429:
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{path}: HTTP 404")
            notice = classify_notice(resp.text)
            if notice.kind == "form_invalid":
                invalids += 1
            elif notice.kind == "flood":
                floods += 1
                self._sleep(self.flood_interval_s)
            elif notice.kind == "login_required":
                if relogged:
                    raise SessionExpired(f"{path}: logged out while editing")
                relogged = True
                self.login()
            elif notice.kind == "not_found":
                raise TopicNotFound(notice.message or path)
            elif notice.kind == "permission_denied":
                raise PermissionDenied(notice.message or path)
            elif notice.kind == "other_error":
                raise FormInvalid(f"the board refused the edit: {notice.message}")
            else:
                raise AmbiguousPost(f"{path}: unexpected HTTP {resp.status_code} answer")

    def _submit(
        self,
        form_path: str,
        message: str,
        subject: str | None,
        location_key: str,
        find: Callable[[], int | None],
        on_form: Callable[[HtmlForm], None],
    ) -> int:
        """The posting loop shared by reply and create_topic (see :meth:`reply`).

        Every fault it gets over (timeout, 5xx, flood, post review, FORM_INVALID, logged out)
        is logged as ONE warning naming the topic (or forum) and what is done about it.
        """
        about = _about(form_path)
        uncertain = False  # a previous POST may have been saved
        relogged = False
        carried: _FetchedForm | None = None
        last_error: ForumError | None = None
        floods = reviews = invalids = failures = 0
        while True:
            if uncertain:
                found = find()
                if found is not None:
                    return found
            if floods > self.max_retries:
                raise FloodLimited("still flood-limited", self.flood_interval_s)
            if reviews > self.max_retries:
                raise PostReview("other posts keep arriving (post review)")
            if invalids > 2:
                raise FormInvalid(str(last_error) if last_error else "FORM_INVALID")
            if failures > self.max_retries:
                raise AmbiguousPost(f"{form_path}: no answer and no trace of the post")
            fetched = carried if carried is not None else self._fetch_form(form_path)
            carried = None
            on_form(fetched.form)
            self._wait_form_age(fetched.fetched_at)
            overrides = {"message": message}
            if subject is not None:
                overrides["subject"] = subject
            body = fetched.form.payload(overrides, "post")
            try:
                resp = self._post(fetched.form.action or form_path, body)
            except httpx.TransportError as exc:
                uncertain = True
                failures += 1
                wait = min(self.backoff_cap_s, 2.0**failures)
                log.warning(
                    "%s: POST %s: %s (outcome unknown); looking for the marker in %.0f s "
                    "before posting again",
                    about,
                    form_path,
                    type(exc).__name__,
                    wait,
                )
                self._sleep(wait)
                continue
            if resp.status_code in (301, 302, 303):
                location = resp.headers.get("location", "")
                new_id = _query_int(location, location_key)
                if new_id is not None:
                    return new_id
                uncertain = True
                failures += 1
                continue
            if resp.status_code >= 500 or resp.status_code == 429:
                uncertain = True
                failures += 1
                wait = min(self.backoff_cap_s, 2.0**failures)
                log.warning(
                    "%s: POST %s: HTTP %d; looking for the marker in %.0f s before posting again",
                    about,
                    form_path,
                    resp.status_code,
                    wait,
                )
                self._sleep(wait)
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{form_path}: HTTP 404")
            notice = classify_notice(resp.text)
            if notice.kind == "flood":
                floods += 1
                log.warning(
                    "%s: flood limit (%s); waiting %.0f s, then a fresh form",
                    about,
                    notice.message,
                    self.flood_interval_s,
                )
                self._sleep(self.flood_interval_s)
            elif notice.kind == "post_review":
                reviews += 1
                uncertain = True
                log.warning(
                    "%s: someone posted meanwhile (post review); looking for the marker, then "
                    "submitting the refreshed form",
                    about,
                )
                refreshed = parse_form(resp.text, "postform")
                if refreshed is not None:
                    carried = _FetchedForm(refreshed, self._clock())
            elif notice.kind == "form_invalid":
                invalids += 1
                uncertain = True
                log.warning(
                    "%s: form refused (FORM_INVALID: %s); looking for the marker, then a fresh "
                    "form",
                    about,
                    notice.message,
                )
                last_error = FormInvalid(notice.message or "FORM_INVALID")
            elif notice.kind == "queued":
                raise PostQueued(notice.message or "post awaits moderator approval")
            elif notice.kind == "login_required":
                if relogged:
                    raise SessionExpired(f"{form_path}: logged out while posting")
                relogged = True
                log.warning("%s: logged out while posting: logging in again", about)
                self.login()
            elif notice.kind == "not_found":
                raise TopicNotFound(notice.message or form_path)
            elif notice.kind == "permission_denied":
                raise PermissionDenied(notice.message or form_path)
            elif notice.kind == "other_error":
                raise FormInvalid(f"the board refused the post: {notice.message}")
            else:
                found = find()
                if found is not None:
                    return found
                raise AmbiguousPost(f"{form_path}: unexpected HTTP {resp.status_code} answer")

    # ------------------------------------------------------------------ private messages

    def _pm_form(self, user_id: int | None, username: str) -> _FetchedForm:
        """The compose form with the recipient set (``u=`` short way, else ``add_to`` step)."""
        if user_id is not None:
            return self._fetch_form(f"ucp.php?i=pm&mode=compose&u={user_id}")
        fetched = self._fetch_form("ucp.php?i=pm&mode=compose")
        self._wait_form_age(fetched.fetched_at)
        body = fetched.form.payload({"username_list": username}, "add_to")
        try:
            resp = self._post(fetched.form.action, body)
        except httpx.TransportError as exc:
            raise ServerError(f"PM add_to: {type(exc).__name__}") from exc
        if resp.status_code >= 500:
            raise ServerError(f"PM add_to: HTTP {resp.status_code}")
        at = self._clock()
        form = parse_form(resp.text, "postform")
        if form is None or not any(k.startswith("address_list[") for k, _ in form.fields):
            notice = classify_notice(resp.text)
            self._raise_for_notice(resp.text, "PM add_to")
            raise FormInvalid(f"recipient {username!r} not accepted: {notice.message}")
        return _FetchedForm(form, at)

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        """True when a PM in the outbox or sentbox (the ``limit`` newest of each) has
        ``marker`` in its subject, or has subject ``subject`` and ``marker`` in its text."""
        for folder in ("outbox", "sentbox"):
            rows = parse_pm_folder(self._read(f"ucp.php?i=pm&folder={folder}"))
            for row in rows[:limit]:
                if marker in row.subject:
                    return True
                if row.subject != subject:
                    continue
                text = parse_pm_message_text(self._read(row.href))
                if text is not None and marker in text:
                    return True
        return False

    def read_pm_inbox(
        self, skip: Container[int] = frozenset(), limit: int = 50
    ) -> list[tuple[int, str, str, str]]:
        """The bot's PM inbox (``ucp.php?i=pm&folder=inbox``, first page), newest first:
        ``(msg_id, sender, subject, text)`` for the ``limit`` newest messages. Each message's
        page (``ucp.php?i=pm&mode=view&p=N``) is read for its text, except for the ids in
        ``skip`` (messages already handled), whose text is ``""`` (no request).

        Raises: SessionExpired, LoginFailed, ServerError, PageNotUnderstood (like every page
            read); a message page that shows no message gives ``""``.
        """
        rows = parse_pm_folder(self._read("ucp.php?i=pm&folder=inbox", "PM inbox"))
        out: list[tuple[int, str, str, str]] = []
        for row in rows[:limit]:
            text = ""
            if row.msg_id not in skip:
                text = parse_pm_message_text(self._read(row.href, f"PM {row.msg_id}")) or ""
            out.append((row.msg_id, row.other_user or "", row.subject, text))
        return out

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        """Send a PM to ``user_id`` (short way ``compose&u=``) or ``username`` (``add_to``).

        Success: HTTP 200 "Votre message a été envoyé." / "Your message has been sent
        successfully.". Flood: wait ``flood_interval_s``, fresh form. Timeout / 5xx /
        FORM_INVALID: look for ``marker`` in the outbox and sentbox before sending again.

        Raises: FloodLimited, FormInvalid, PermissionDenied, SessionExpired, AmbiguousPost,
            ServerError.
        """
        uncertain = False
        floods = invalids = failures = 0
        while True:
            if uncertain and self.find_pm_marker(subject, marker):
                return
            if floods > self.max_retries:
                raise FloodLimited("PM still flood-limited", self.flood_interval_s)
            if invalids > 2:
                raise FormInvalid("FORM_INVALID on PM, repeatedly")
            if failures > self.max_retries:
                raise AmbiguousPost("PM: no answer and no trace of it in the outbox/sentbox")
            fetched = self._pm_form(user_id, username)
            self._wait_form_age(fetched.fetched_at)
            body = fetched.form.payload({"subject": subject, "message": message}, "post")
            try:
                resp = self._post(fetched.form.action, body)
            except httpx.TransportError:
                uncertain = True
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code >= 500 or resp.status_code == 429:
                uncertain = True
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            notice = classify_notice(resp.text)
            if notice.kind == "pm_sent":
                return
            if notice.kind == "flood":
                floods += 1
                self._sleep(self.flood_interval_s)
            elif notice.kind == "form_invalid":
                invalids += 1
                uncertain = True
            elif notice.kind == "permission_denied":
                raise PermissionDenied(notice.message or "PMs not allowed")
            elif notice.kind == "login_required":
                raise SessionExpired("logged out while sending a PM")
            elif notice.kind == "other_error":
                raise FormInvalid(f"the board refused the PM: {notice.message}")
            else:
                if self.find_pm_marker(subject, marker):
                    return
                raise AmbiguousPost(f"PM: unexpected answer (HTTP {resp.status_code})")
