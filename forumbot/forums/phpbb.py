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
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlencode, urljoin

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from forumbot.errors import (
    BoardUnavailable,
    CaptchaRequired,
    FormInvalid,
    ForumError,
    LoginFailed,
    PageNotUnderstood,
    PaginationStuck,
    PermissionDenied,
    ServerError,
    SessionExpired,
    TopicLocked,
    TopicMoved,
    TopicNotFound,
)
from forumbot.forums.base import TopicSummary
from forumbot.forums.board_http import BoardHttp
from forumbot.forums.http_edges import HttpLimits
from forumbot.forums.http_edges import parse_retry_after as parse_retry_after
from forumbot.forums.marker_search import MarkerSearch
from forumbot.forums.members import PhpbbMembers
from forumbot.forums.phpbb_http import (
    DEFAULT_USER_AGENT,
    RETRYABLE_STATUS,
    FetchedForm,
    RetryableStatus,
    about_path,
    check_guest_page,
    fault_reason,
    log,
    login_answer_error,
    login_page_error,
    login_page_fault,
    next_start,
    query_int,
)
from forumbot.forums.phpbb_pm import PhpbbMessages
from forumbot.forums.phpbb_posting import PhpbbPosting
from forumbot.forums.topic_order import PostMemo, check_next, note_page, phpbb_topic
from parsers.errors import ParseError
from parsers.location import page_location
from parsers.model import Post, TopicPage
from parsers.phpbb import parse_topic_page
from parsers.phpbb_forms import (
    classify_notice,
    logged_in_user,
    parse_form,
    parse_topic_list,
)


class PhpbbClient(PhpbbPosting, PhpbbMessages, PhpbbMembers, MarkerSearch, BoardHttp):
    """A :class:`~forumbot.forums.base.ForumClient` for phpBB 3.3 (prosilver).

    Args:
        base_url: the board's root, e.g. ``"http://127.0.0.1:8080"`` or ``"https://x/forum"``.
        username, password: the bot's account.
        transport: httpx transport (tests: ``httpx.MockTransport``); None = network.
        sleep: called with seconds to wait (tests: a fake advancing a fake clock).
        clock: monotonic seconds (tests: a fake clock).
        user_agent: sent on every request (phpBB ties the session to it).
        min_form_age_s: seconds between receiving a form and sending its POST. phpBB accepts
            a form when ``time() - creation_time`` is at least 1 (whole seconds, both taken
            on the board: the GET's before its answer was sent, the POST's after it arrived),
            so a wait of 1 s measured here is enough; 1.1 s keeps a margin (was 1.5 s: the
            wait is on the path of every declaration, issue 12).
        max_retries: retries of a GET after a transport error / 5xx / 429; also bounds how many
            times a post is re-attempted after flood or post review.
        flood_interval_s: seconds to wait after a flood refusal (phpBB flood_interval, default 15).
        backoff_cap_s: upper bound of one exponential-backoff wait, seconds.
        max_retry_after_s: upper bound honoured for a ``Retry-After``, seconds.
        timeout_s: httpx timeout of one socket operation, seconds.
        deadline_s: total seconds for one request: connect + send + whole body, redirects
            included (:class:`~forumbot.errors.DeadlineExceeded`).
        max_body_bytes: largest answer read, bytes (default 8 MiB;
            :class:`~forumbot.errors.ResponseTooLarge`).
        max_redirects: redirect hops of a GET (:class:`~forumbot.errors.RedirectLoop`).
        max_inline_wait_s: longest ``Retry-After`` waited in place; a longer one pauses the
            board (:class:`~forumbot.errors.BoardPaused`; wire the poll interval here).
        cookie_file: file keeping the cookie jar (remember-me key) across restarts, mode 0600
            (None: not kept). Written after each login; removed by :meth:`logout`.
        max_listing_pages: upper bound of listing pages read by ``list_topics(all_pages=True)``.
    """
    platform = "phpbb3"  # the marker's style (forumbot.publish.render.MARKER_STYLES)

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
        min_form_age_s: float = 1.1,
        max_retries: int = 4,
        flood_interval_s: float = 15.0,
        backoff_cap_s: float = 60.0,
        max_retry_after_s: float = 600.0,
        timeout_s: float = 30.0,
        deadline_s: float = 60.0,
        max_body_bytes: int = 8 * 1024 * 1024,
        max_redirects: int = 10,
        max_inline_wait_s: float = 60.0,
        cookie_file: str | Path | None = None,
        max_listing_pages: int = 200,
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
        self.max_listing_pages = max_listing_pages
        # forum id -> the last listing page read has a next page (the referee asks it).
        self.listing_more: dict[int, bool] = {}
        self.topic_forums: dict[int, int] = {}  # topic -> forum its last page named
        self.post_memo = PostMemo()  # posts parsed, by their markup (edit-watch re-reads)
        self._logged_in = False
        self._ever_logged_in = False  # the first guest page is no "session expired"
        self.retry_log_level = logging.INFO  # DEBUG while an outage is waited out (ops.session)
        self._setup_http(
            transport=transport,
            user_agent=user_agent,
            timeout_s=timeout_s,
            limits=HttpLimits(deadline_s, max_body_bytes, max_redirects),
            max_inline_wait_s=max_inline_wait_s,
            cookie_file=cookie_file,
        )

    # ------------------------------------------------------------------ plumbing

    def close(self, logout: bool = False) -> None:
        """Close the HTTP connection pool; with ``logout`` (a clean stop) log out first
        (:meth:`logout`), else keep the cookie jar in ``cookie_file`` for the next start."""
        try:
            if logout:
                self.logout()
            else:
                self.save_cookies()
        finally:
            self._http.close()

    def _url(self, path: str) -> str:
        return urljoin(self._base, path)

    def _get(
        self,
        path: str,
        about: str | None = None,
        fault: Callable[[httpx.Response], tuple[str, bool] | None] = fault_reason,
    ) -> httpx.Response:
        """GET with retries on transport errors, 5xx, 429, truncated pages and phpBB's
        board-disabled page. Each retry is logged at INFO; a GET that succeeds after retries
        logs ONE warning naming ``about`` (e.g. ``"topic 5"``, default: the path) and the fault.

        Every attempt is one bounded exchange (total deadline, body cap, redirect loop
        check: :mod:`forumbot.forums.http_edges`); those three faults are not retried.
        ``fault`` decides which answers are retried (default
        :func:`~forumbot.forums.phpbb_http.fault_reason`; the login page's:
        :func:`~forumbot.forums.phpbb_http.login_page_fault`).

        Raises: BoardUnavailable (still disabled), ServerError (others) after
            ``max_retries`` retries; DeadlineExceeded, ResponseTooLarge, RedirectLoop;
            BoardPaused (a ``Retry-After`` longer than ``max_inline_wait_s``).
        """
        faults: list[str] = []

        def once() -> httpx.Response:
            try:
                resp = self._exchange("GET", self._url(path), follow_redirects=True)
            except httpx.TransportError as exc:
                faults.append(type(exc).__name__)
                raise
            found = fault(resp)
            if found is not None:
                faults.append(found[0])
                raise RetryableStatus(
                    resp.status_code,
                    self._retry_after(resp, about or path)
                    if resp.status_code in RETRYABLE_STATUS
                    else None,
                    found[0],
                    found[1],
                )
            return resp

        def before_sleep(state: RetryCallState) -> None:
            log.log(
                self.retry_log_level,
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
            retry=retry_if_exception_type((httpx.TransportError, RetryableStatus)),
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )
        try:
            resp = retrying(once)
        except RetryableStatus as exc:
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
        return self._post_form(self._url(action), urlencode(body).encode("ascii"))

    def _is_me(self, user: str | None) -> bool:
        """True when the header's user name ``user`` is this client's account."""
        return user is not None and user.casefold() == self.username.casefold()

    def _read(self, path: str, about: str | None = None) -> str:
        """GET a page that needs the session (see :meth:`_read_page`); the HTML."""
        return self._read_page(path, about)[0]

    def _read_page(self, path: str, about: str | None = None) -> tuple[str, str]:
        """GET a page that needs the session; re-login once when it shows a guest or another
        member (another member's session in the jar is a logout; logged as ONE warning naming
        ``about``, default the path).

        Returns: ``(html, final_url)`` (the URL after redirects).
        Raises: TopicNotFound (404), SessionExpired, LoginFailed, ServerError,
            PageNotUnderstood (a page without prosilver's header: another style or software).
        """
        for attempt in range(2):
            resp = self._get(path, about)
            html = resp.text
            header_user = logged_in_user(html)
            user = header_user if self._is_me(header_user) else None
            self._logged_in = user is not None
            if header_user is None:
                check_guest_page(html, path)
            elif user is None:
                log.warning(
                    "%s: the page shows another member (%s), not %s: dropping that session",
                    about or path,
                    header_user,
                    self.username,
                )
                self._forget_session()
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
                self._raise_for_notice(html, path)  # 403 SORRY_AUTH_READ: PermissionDenied
                raise ServerError(f"GET {path}: HTTP {resp.status_code}")
            return html, str(resp.url)
        raise SessionExpired(f"{path}: still a guest")  # pragma: no cover - loop always returns

    def _wait_form_age(self, fetched_at: float) -> None:
        age = self._clock() - fetched_at
        if age < self.min_form_age_s:
            self._sleep(self.min_form_age_s - age)

    def _fetch_form(self, path: str, form_id: str = "postform") -> FetchedForm:
        """GET ``path`` (session checked) and return its form.

        Raises: PermissionDenied / TopicNotFound when the board answers a message instead.
        """
        html = self._read(path, about_path(path))
        fetched_at = self._clock()
        form = parse_form(html, form_id)
        if form is None:
            self._raise_for_notice(html, path)
            raise ForumError(f"{path}: no form {form_id!r} on the page")
        return FetchedForm(form, fetched_at)

    def _raise_for_notice(self, html: str, what: str) -> None:
        notice = classify_notice(html)
        if notice.kind == "not_found":
            raise TopicNotFound(f"{what}: {notice.message}")
        if notice.kind == "locked":
            raise TopicLocked(f"{what}: {notice.message}", notice.message or "")
        if notice.kind == "permission_denied":
            raise PermissionDenied(f"{what}: {notice.message}", notice.message)
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

        Only the board's own pages refuse (issue 22): a login page or answer that is not the
        board's (a challenge, a host error, a maintenance page, any 5xx) is an outage.

        Raises:
            CaptchaRequired: the form carries ``confirm_code``/``confirm_id`` or the board says
                the maximum number of attempts was exceeded (the password is not sent again).
            LoginFailed: wrong password / unknown user / banned or inactive account / the
                board's login form shown again with its refusal (no retry).
            BoardNotFound: the login page answers 404 (``board.url`` is wrong).
            BoardUnavailable: a page not the board's answers the login, after the retries.
            FormInvalid: FORM_INVALID twice in a row.
            ServerError: network / 5xx (the login POST itself is not retried).
        """
        with self._session_lock:
            self._login()
            self.save_cookies()

    def _login(self) -> None:
        invalids = 0
        for _attempt in range(3):
            # a page that is not the board's (challenge, host error, maintenance) is retried
            # here with backoff, then BoardUnavailable: never a refused password (issue 22)
            resp = self._get("ucp.php?mode=login", "login", fault=login_page_fault)
            fetched_at = self._clock()
            if resp.status_code == 404:
                raise login_page_error(resp, self._base)
            form = parse_form(resp.text, "login")
            header_user = logged_in_user(resp.text)
            if header_user is not None and not self._is_me(header_user):
                log.warning("login: the jar holds %s's session: dropping it", header_user)
                self._forget_session()
                continue
            if form is None:
                if header_user is not None:
                    self._logged_in = self._ever_logged_in = True
                    return
                raise login_page_error(resp, self._base)
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
                    raise LoginFailed("redirected without a user cookie", "refused")
                self._logged_in = self._ever_logged_in = True
                return
            notice = classify_notice(answer.text) if fault_reason(answer) is None else None
            if notice is None:
                raise login_answer_error(answer, None)
            if notice.kind == "captcha":
                raise CaptchaRequired(notice.message or "CAPTCHA required")
            if notice.kind == "form_invalid":
                invalids += 1
                if invalids < 2:
                    continue
                raise FormInvalid(notice.message or "FORM_INVALID on login, twice")
            raise login_answer_error(answer, notice.message)
        raise LoginFailed("login: the board keeps showing another member's session", "refused")

    def logout(self) -> None:
        """Log out (``GET ucp.php?mode=logout&sid=<sid>``, FLOWS.md "Logout": the sid is
        mandatory) and remove ``cookie_file``: a clean stop leaves no session behind. Without a
        session cookie nothing is sent. Errors are logged, never raised (the bot is stopping).
        """
        sid = next(
            (c.value for c in self._http.cookies.jar if c.name.endswith("_sid") and c.value),
            None,
        )
        try:
            if sid is not None and self._logged_in:
                self._exchange(
                    "GET", self._url(f"ucp.php?mode=logout&sid={sid}"), follow_redirects=False
                )
        except (ForumError, httpx.HTTPError) as exc:
            log.warning("logout failed (%s): the session will expire on its own", exc)
        finally:
            self._logged_in = False
            self._forget_session()
            if self.cookie_file is not None:
                self.cookie_file.unlink(missing_ok=True)

    def is_logged_in(self) -> bool:
        """True when the last page read showed the user menu (no request is made)."""
        return self._logged_in

    # ------------------------------------------------------------------ reading

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        """Topics of ``viewforum.php?f=forum_id`` sorted by last post, newest first
        (``sk=t&sd=d``, phpBB's default made explicit), announcements and stickies included
        (phpBB puts them in their own list at the top: global announcements and announcements
        on every page, stickies on the first).

        ``all_pages=False``: the first page only (one request; with the listing sorted by last
        post, every topic with a new post is on it). ``all_pages=True`` (start-up, or a topic
        that cannot be accounted for): every page, following the "next" link (a topic shown
        on several pages, e.g. an announcement, is listed once).

        Raises: TopicNotFound (no such forum), SessionExpired, ServerError, PaginationStuck
            (the next page does not advance), PageNotUnderstood.
        """
        rows: dict[int, TopicSummary] = {}
        start = 0
        for _page in range(self.max_listing_pages):
            path = f"viewforum.php?f={forum_id}&sk=t&sd=d" + (f"&start={start}" if start else "")
            html = self._read(path, f"forum {forum_id}")
            try:
                parsed = parse_topic_list(html, source=path)
            except ParseError as exc:
                raise PageNotUnderstood(f"GET {path}: {exc.reason}") from exc
            for row in parsed:
                rows.setdefault(
                    row.topic_id,
                    TopicSummary(
                        topic_id=row.topic_id,
                        title=row.title,
                        last_post_id=row.last_post_id,
                        replies=row.replies,
                        author=row.author,
                    ),
                )
            following = next_start(html, "viewforum.php")
            self.listing_more[forum_id] = following is not None
            if not all_pages or following is None:
                break
            if following <= start:
                raise PaginationStuck(
                    f"forum {forum_id}: the page after start={start} points back to "
                    f"start={following}: listing stopped"
                )
            start = following
        return list(rows.values())

    def _topic_page(
        self, path: str, about: str | None = None, topic_id: int | None = None
    ) -> TopicPage:
        """GET and parse a topic page; with ``topic_id``, check that the board answered that
        topic (the page's canonical link, else the URL after redirects; then the parsed page's
        topic id).

        Raises: like :meth:`_read`; PageNotUnderstood when the page cannot be parsed;
            TopicMoved when it is another topic (a merge or a move redirected the request).
        """
        html, final_url = self._read_page(path, about)
        # The page's own ids are the authority (its canonical link; issue 16): after a redirect
        # the final URL may name no topic (``viewtopic.php?p=P``) or a stale one.
        own = page_location(html, "phpbb3", path).topic_id
        landed = own if own is not None else query_int(final_url, "t")
        if topic_id is not None and landed is not None and landed != topic_id:
            raise TopicMoved(
                f"topic {topic_id}: the board redirects to topic {landed} (merged or moved)",
                topic_id,
                landed,
            )
        try:
            page = parse_topic_page(html, source=path, memo=self.post_memo)
        except ParseError as exc:
            self._raise_for_notice(html, path)  # a message page: not found / not allowed
            raise PageNotUnderstood(f"GET {path}: {exc.reason}") from exc
        if topic_id is not None and page.topic_id is not None and page.topic_id != topic_id:
            raise TopicMoved(
                f"topic {topic_id}: the board answered topic {page.topic_id} (merged or moved)",
                topic_id,
                page.topic_id,
            )
        note_page(self.topic_forums, page.topic_id if topic_id is None else topic_id, page, path)
        return page

    def _scan(self, topic_id: int, first: TopicPage, after_post_id: int | None) -> list[Post]:
        """Posts newer than ``after_post_id`` on ``first`` and every later page."""
        posts = [p for p in first.posts if after_post_id is None or p.post_id > after_post_id]
        page = first
        per_page = len(first.posts)
        while page.page < page.pages and per_page > 0:
            start = page.page * per_page
            prior, previous = page, page.page
            path = phpbb_topic(f"t={topic_id}&start={start}")
            page = self._topic_page(path, f"topic {topic_id}", topic_id)
            if page.page <= previous:
                raise PaginationStuck(
                    f"topic {topic_id}: start={start} gave page {page.page} again after page "
                    f"{previous}: read stopped"
                )
            check_next(topic_id, prior, page, path)
            posts.extend(
                p for p in page.posts if after_post_id is None or p.post_id > after_post_id
            )
        return posts

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        """Posts of ``topic_id`` with id > ``after_post_id`` (all when None), in topic order.

        With ``after_post_id``: GET ``viewtopic.php?p=<after_post_id>`` (the page holding that
        post), then the later pages. When that post is gone (deleted / moved), scan the topic
        from its first page instead. Requests: 1 per page read; the order is named, ids rise.

        Raises: TopicNotFound, SessionExpired, ServerError, PageNotUnderstood (a page that
            cannot be parsed: truncated, another style, another forum software), TopicMoved
            (the board answers another topic: never read as this one), PaginationStuck,
            PermissionDenied (SORRY_AUTH_READ), PostsOutOfOrder (nothing returned).
        """
        if after_post_id is not None:
            try:
                page = self._topic_page(phpbb_topic(f"p={after_post_id}"), f"topic {topic_id}")
            except TopicNotFound:
                page = None
            if (
                page is not None
                and page.topic_id in (None, topic_id)
                and any(p.post_id == after_post_id for p in page.posts)
            ):
                return self._scan(topic_id, page, after_post_id)
        first = self._topic_page(phpbb_topic(f"t={topic_id}"), f"topic {topic_id}", topic_id)
        return self._scan(topic_id, first, after_post_id)

    def _post_has_marker(self, marker: str, post: Post) -> bool:
        return marker in post.text or marker in post.html

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
