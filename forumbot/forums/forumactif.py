"""Forumactif (Forumotion) HTTP client: log in, list a forum, read topics, reply (optionally
asking the board to roll dice), open topics, edit the bot's own posts, send private messages.

Flows from ``fixtures/forumactif/REPORT.md`` (section 6; real AwesomeBB pages + production
scripts), with the same safety rules as :mod:`forumbot.forums.phpbb`:

* one ``httpx.Client`` with a cookie jar and one User-Agent; GETs follow redirects, POSTs do not;
* every page read checks ``_userdata["session_logged_in"]`` / ``_userdata["username"]`` (core
  prints them on every page, every version): a page showing a guest (or somebody else) means
  the session was silently lost -> one re-login, then :class:`~forumbot.errors.SessionExpired`;
* GETs are retried (tenacity) on transport errors, 5xx and 429, exponential backoff capped at
  ``backoff_cap_s``, ``Retry-After`` honoured; every wait goes through the injected ``sleep``;
* POSTs are never retried blindly: after a timeout, a 5xx, "a new message has been posted" or
  an unreadable answer, the topic is searched for the message's ``marker`` (posts after the
  form's ``lt``) before anything is sent again;
* the admin-set flood delay ("Flood control ..." page) is waited out: the delay the message
  gives (e.g. "10 second(s)") plus ``flood_margin_s``, else ``flood_interval_s``, then a fresh
  form is posted.

Pages are read with :func:`parsers.forumactif.parse_topic_page` (``timezone``, ``gm_names``,
``gm_ids`` and the injected ``now`` are passed to it), so dice rolled by the board arrive as
``Post.dice`` on the roller's post and ``is_dice_post`` on the Game Master's post.
Boards created before 2008 serve windows-1252: pages are decoded per their charset and forms are
sent in it, characters outside it as ``&#NNNN;`` (REPORT.md section 8).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from urllib.parse import urlencode, urljoin

import httpx
from tenacity import Retrying, retry_if_exception_type, stop_after_attempt

from forumbot.errors import (
    BoardUnavailable,
    CaptchaRequired,
    ForumError,
    PaginationStuck,
    ServerError,
    SessionExpired,
    TopicMoved,
    TopicNotFound,
)
from forumbot.forums.base import TopicSummary
from forumbot.forums.board_http import BoardHttp, log
from forumbot.forums.forumactif_http import (
    CHARSET_RE,
    DEFAULT_USER_AGENT,
    PER_PAGE_RE,
    RETRYABLE_STATUS,
    RetryableStatus,
    attach_dice,
    has_marker,
    topic_path,
    utc_now,
)
from forumbot.forums.forumactif_login import (
    login_answer_error,
    login_page_fault,
    not_found,
    read_fault,
    read_fault_for,
)
from forumbot.forums.forumactif_pages import parse_topic_listing
from forumbot.forums.forumactif_pm import ForumactifMessages
from forumbot.forums.forumactif_posting import ForumactifPosting
from forumbot.forums.http_edges import HttpLimits
from forumbot.forums.marker_search import MarkerSearch
from forumbot.forums.members import ForumactifMembers
from forumbot.forums.outages import challenge_reason
from forumbot.forums.topic_order import check_next, note_page
from parsers.errors import UnknownPageError
from parsers.forumactif import parse_topic_page
from parsers.forumactif.dice import DEFAULT_DICE_ACTIONS
from parsers.forumactif.encoding import decode_html, normalise_charset
from parsers.forumactif.forms import (
    DEFAULT_FLOOD_PATTERNS,
    parse_login_form,
)
from parsers.forumactif.topic import DEFAULT_GM_NAMES
from parsers.forumactif.userdata import logged_in_username, parse_userdata
from parsers.location import page_location
from parsers.model import Post, TopicPage


class ForumactifClient(
    ForumactifPosting, ForumactifMessages, ForumactifMembers, MarkerSearch, BoardHttp
):
    """A :class:`~forumbot.forums.base.ForumClient` for Forumactif boards (all six versions).

    Args:
        base_url: the board's root, e.g. ``"https://club-de-duel.forumactif.com"``.
        username, password: the bot's account.
        transport: httpx transport (tests: respx / ``httpx.MockTransport``); None = network.
        sleep: called with seconds to wait (tests: a fake advancing a fake clock).
        clock: monotonic seconds (unused by the flows today except through ``sleep``; kept for
            the common client signature).
        now: aware "now" used to resolve the board's displayed dates (``Aujourd'hui à``,
            year-less dates).
        timezone: the board's IANA zone (its dates carry no offset), default Europe/Paris.
        gm_names, gm_ids: the board's "Game Master" account(s) posting dice results.
        dice_names: only keep these dice from the Game Master's posts (None: all).
        dice_actions: the dice action labels the Game Master's posts print (config
            ``board.dice_actions``; default the French variants, « Lancer des dés »...).
        user_agent: sent on every request.
        max_retries: retries of a GET after a transport error / 5xx / 429; also bounds how many
            times a post is re-attempted after flood or "new message meanwhile".
        flood_interval_s: seconds to wait after a flood refusal that gives no delay (the
            admin-set flood delay of the board; Forumactif has no documented default).
        flood_margin_s: seconds added to a delay the flood message gives.
        posts_per_page: used only when a topic page does not tell its page size.
        backoff_cap_s: upper bound of one exponential-backoff wait, seconds.
        max_retry_after_s: upper bound honoured for a ``Retry-After``, seconds.
        timeout_s: httpx timeout of one socket operation, seconds.
        deadline_s, max_body_bytes, max_redirects, max_inline_wait_s, cookie_file,
            max_listing_pages: as for :class:`~forumbot.forums.phpbb.PhpbbClient` (total
            deadline per request, body cap, redirect hops, longest ``Retry-After`` waited in
            place, the 0600 cookie jar file, listing pages read with ``all_pages``).
        flood_patterns: regexes recognising the flood error (see
            :data:`parsers.forumactif.forms.DEFAULT_FLOOD_PATTERNS`).
    """
    platform = "forumactif"  # the marker's style (forumbot.publish.render.MARKER_STYLES)

    def __init__(
        self,
        base_url: str,
        username: str,
        password: str,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = utc_now,
        timezone: str = "Europe/Paris",
        gm_names: Sequence[str] = DEFAULT_GM_NAMES,
        gm_ids: Sequence[int] = (),
        dice_names: Sequence[str] | None = None,
        dice_actions: Sequence[str] = DEFAULT_DICE_ACTIONS,
        user_agent: str = DEFAULT_USER_AGENT,
        max_retries: int = 4,
        flood_interval_s: float = 15.0,
        flood_margin_s: float = 1.0,
        posts_per_page: int = 15,
        backoff_cap_s: float = 60.0,
        max_retry_after_s: float = 600.0,
        timeout_s: float = 30.0,
        flood_patterns: Sequence[str] = DEFAULT_FLOOD_PATTERNS,
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
        self._now = now
        self.timezone = timezone
        self.gm_names = tuple(gm_names)
        self.gm_ids = tuple(gm_ids)
        self.dice_names = tuple(dice_names) if dice_names is not None else None
        self.dice_actions = tuple(dice_actions)
        self.max_retries = max_retries
        self.flood_interval_s = flood_interval_s
        self.flood_margin_s = flood_margin_s
        self.posts_per_page = posts_per_page
        self.backoff_cap_s = backoff_cap_s
        self.max_retry_after_s = max_retry_after_s
        self.flood_patterns = tuple(flood_patterns)
        self.charset = "utf-8"
        self.max_listing_pages = max_listing_pages
        # forum id -> the last listing page read has a next page (the referee asks it).
        self.listing_more: dict[int, bool] = {}
        self.topic_forums: dict[int, int] = {}  # topic -> forum its last page named
        self._logged_in = False
        self._logout_path: str | None = None
        self._warned: set[tuple[int, int, str]] = set()  # Post.warnings already logged
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

    def logout(self) -> None:
        """Log out with the page's own logout link (``_userdata["page_logout"]``,
        ``/login?logout=1&tid=…&key=…``, REPORT.md 6.1) and remove ``cookie_file``. Nothing is
        sent when no page read so far gave the link. Errors are logged, never raised."""
        try:
            if self._logout_path and self._logged_in:
                self._exchange("GET", self._url(self._logout_path), follow_redirects=False)
        except (ForumError, httpx.HTTPError) as exc:
            log.warning("logout failed (%s): the session will expire on its own", exc)
        finally:
            self._logged_in = False
            self._forget_session()
            if self.cookie_file is not None:
                self.cookie_file.unlink(missing_ok=True)

    def _url(self, path: str) -> str:
        return urljoin(self._base, path.lstrip("/"))

    def _text(self, resp: httpx.Response) -> str:
        """The body decoded per the ``Content-Type`` charset / ``<meta charset>``; remembers
        the board's charset for the forms sent later."""
        match = CHARSET_RE.search(resp.headers.get("content-type", ""))
        declared = match.group(1) if match else None
        text = decode_html(resp.content, declared)
        if declared:
            self.charset = normalise_charset(declared)
        else:
            meta = CHARSET_RE.search(text[:4096])
            if meta:
                self.charset = normalise_charset(meta.group(1))
        return text

    def _get(
        self, path: str, fault: Callable[[httpx.Response], str | None] = read_fault
    ) -> httpx.Response:
        """GET (redirects followed) with retries on transport errors, 5xx, 429 and the pages
        ``fault`` names (default: challenges and host limits; the login page's own check,
        :func:`~forumbot.forums.forumactif_login.login_page_fault`, for ``/login``).

        Every attempt is one bounded exchange (:mod:`forumbot.forums.http_edges`).

        Raises: BoardUnavailable (an outage page) / ServerError after ``max_retries``
            retries; DeadlineExceeded, ResponseTooLarge, RedirectLoop (not retried);
            BoardPaused (a ``Retry-After`` longer than ``max_inline_wait_s``).
        """

        def once() -> httpx.Response:
            resp = self._exchange("GET", self._url(path), follow_redirects=True)
            reason = fault(resp)
            if resp.status_code in RETRYABLE_STATUS or reason is not None:
                wait = self._retry_after(resp, f"GET {path}")
                raise RetryableStatus(resp.status_code, wait, reason)
            return resp

        retrying = Retrying(
            stop=stop_after_attempt(self.max_retries + 1),
            wait=self._wait,
            retry=retry_if_exception_type((httpx.TransportError, RetryableStatus)),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return retrying(once)
        except RetryableStatus as exc:
            error = ServerError if exc.reason is None else BoardUnavailable
            raise error(f"GET {path}: {exc.reason or f'HTTP {exc.status}'} after retries") from exc
        except httpx.TransportError as exc:
            raise ServerError(f"GET {path}: {type(exc).__name__} after retries") from exc

    def _encode(self, body: Sequence[tuple[str, str]]) -> bytes:
        """urlencoded in the board's charset; characters outside it as ``&#NNNN;``."""
        return urlencode(list(body), encoding=self.charset, errors="xmlcharrefreplace").encode(
            "ascii"
        )

    def _post(self, action: str, body: Sequence[tuple[str, str]]) -> httpx.Response:
        """One POST (urlencoded, redirects not followed). Transport errors propagate."""
        return self._post_form(self._url(action), self._encode(body))

    def _answer_text(self, resp: httpx.Response) -> str:
        """The answer page of a POST: the body, or the page a redirect points to."""
        if resp.status_code in (301, 302, 303, 307) and resp.headers.get("location"):
            return self._text(self._get(resp.headers["location"]))
        return self._text(resp)

    def _is_me(self, html: str) -> bool | None:
        """True/False when the page's ``_userdata`` says who is logged in; None without it."""
        data = parse_userdata(html)
        if not data:
            return None
        name = logged_in_username(data)
        mine = name is not None and name.casefold() == self.username.casefold()
        logout = data.get("page_logout")
        if mine and isinstance(logout, str) and logout.startswith("/login"):
            self._logout_path = logout
        if name is not None and not mine:
            log.warning(
                "the page shows another member (%s), not %s: dropping that session",
                name,
                self.username,
            )
            self._forget_session()
        return mine

    def _read(self, path: str) -> tuple[str, str]:
        """GET a page that needs the session; re-login once when it shows a guest.

        Returns: ``(html, final_url)``.
        Raises: TopicNotFound (404), SessionExpired, LoginFailed, ServerError.
        """
        for attempt in range(2):
            resp = self._get(path, read_fault_for(path))  # a host page is no empty forum
            html = self._text(resp)
            me = self._is_me(html)
            if me is not None:
                self._logged_in = me
            if me is False and attempt == 0:
                self.login()
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{path}: HTTP 404")
            if me is False:
                raise SessionExpired(f"{path}: still not logged in after logging in again")
            if resp.status_code >= 400:
                raise ServerError(f"GET {path}: HTTP {resp.status_code}")
            return html, str(resp.url)
        raise SessionExpired(f"{path}: still a guest")  # pragma: no cover - loop always returns

    # ------------------------------------------------------------------ session

    def login(self) -> None:
        """Log in: GET ``/login``, POST its form with ``username``, ``password``,
        ``autologin=on`` and ``login`` (REPORT.md 6.1), follow the redirect, and check that the
        page's ``_userdata`` shows this user.

        Raises:
            CaptchaRequired: the login page or its answer asks for a CAPTCHA.
            LoginFailed: the board's own page still shows a guest (its refusal text as
                ``reason``: wrong password, banned or inactive account).
            BoardNotFound: ``/login`` answers 404 (``board.url`` is wrong).
            BoardUnavailable: a page not the board's (no ``_userdata``: a challenge, a host
                error, a maintenance page) answers, after the GET's retries.
            ServerError: network / 5xx (the login POST itself is not retried).
        """
        with self._session_lock:
            self._login()
            self.save_cookies()

    def _login(self) -> None:
        resp = self._get("/login", login_page_fault)  # not the board's page: retried (issue 22)
        if resp.status_code == 404:
            raise not_found(resp, self._base)
        html = self._text(resp)
        me = self._is_me(html)
        if me:
            self._logged_in = True
            return
        if me is False and logged_in_username(parse_userdata(html)) is not None:
            html = self._text(self._get("/login", login_page_fault))  # another member dropped
        form = parse_login_form(html)
        items: list[tuple[str, str]]
        action = "/login"
        if form is None:
            items = []
        else:
            action = form.form.action or "/login"
            skip = {form.username_field, form.password_field, "autologin", "login"}
            items = [(k, v) for k, v in form.form.items if k not in skip]
        if any(marker in html.lower() for marker in ("g-recaptcha", "funcaptcha", "h-captcha")):
            raise CaptchaRequired("the login page asks for a CAPTCHA")
        button = "Connexion"
        if form is not None:
            button = next((v for k, v in form.form.buttons if k == "login"), "") or button
        body = [
            *items,
            (form.username_field if form else "username", self.username),
            (form.password_field if form else "password", self._password),
            ("autologin", "on"),
            ("login", button),
        ]
        try:
            answer = self._post(action, body)
        except httpx.TransportError as exc:
            raise ServerError(f"login POST: {type(exc).__name__}") from exc
        if answer.status_code >= 500 or answer.status_code == 429 or challenge_reason(answer):
            raise login_answer_error(answer, "")
        page = self._answer_text(answer)
        if self._is_me(page):
            self._logged_in = True
            return
        if answer.status_code in (301, 302, 303) and self._is_me(page) is None:
            check = self._text(self._get("/"))
            if self._is_me(check):
                self._logged_in = True
                return
        self._logged_in = False
        if any(marker in page.lower() for marker in ("g-recaptcha", "funcaptcha", "h-captcha")):
            raise CaptchaRequired("the board asks for a CAPTCHA after the login")
        raise login_answer_error(answer, page)

    def is_logged_in(self) -> bool:
        """True when the last page read showed this user in ``_userdata`` (no request)."""
        return self._logged_in

    # ------------------------------------------------------------------ reading

    def list_topics(self, forum_id: int, all_pages: bool = False) -> list[TopicSummary]:
        """Topics of ``/f{forum_id}-a`` in page order: announcements and stickies first (the
        board puts them at the top of every page / the first page), then the others by last
        post, newest first (Forumactif's only listing order; there is no sort parameter to
        send).

        ``all_pages=False``: the first page (one request). ``all_pages=True`` (start-up, or a
        topic that cannot be accounted for): every page ``/f{F}p{start}-a``, following the
        pagination links; a topic shown on several pages is listed once.

        Raises: TopicNotFound (no such forum), SessionExpired, ServerError, PaginationStuck
            (the board sent the same page again).
        """
        rows: dict[int, TopicSummary] = {}
        start = 0
        previous: list[int] = []
        for _page in range(self.max_listing_pages):
            path = f"/f{forum_id}p{start}-a" if start else f"/f{forum_id}-a"
            html, _url = self._read(path)
            listed = parse_topic_listing(html)
            ids = [row.topic_id for row in listed]
            if start and ids and ids == previous:
                raise PaginationStuck(
                    f"forum {forum_id}: start={start} shows the previous page again: "
                    "listing stopped"
                )
            for row in listed:
                rows.setdefault(row.topic_id, row)
            starts = [int(m) for m in re.findall(rf"/f{forum_id}p(\d+)-", html)]
            following = min((n for n in starts if n > start), default=None)
            self.listing_more[forum_id] = following is not None
            if not all_pages or following is None:
                break
            previous, start = ids, following
        return list(rows.values())

    def _parse(self, html: str, source: str) -> TopicPage:
        return parse_topic_page(
            html,
            source,
            now=self._now(),
            board_tz=self.timezone,
            gm_names=self.gm_names,
            gm_ids=self.gm_ids,
            dice_names=self.dice_names,
            dice_actions=self.dice_actions,
        )

    def _topic_page(self, path: str) -> tuple[TopicPage, int]:
        """Parsed page and its page size (posts per page).

        Raises: TopicNotFound (404 or no post on the page), SessionExpired, ServerError,
            TopicMoved (the page, by its canonical link, else the URL after redirects, is
            another topic than the path's).
        """
        html, final_url = self._read(path)
        asked = _topic_of(path)
        # The page's own ids are the authority (its canonical link; issue 16): after a redirect
        # the final URL may name no topic (``/viewtopic?p=P``, a slug) or a stale one.
        own = page_location(html, "forumactif", path).topic_id
        landed = own if own is not None else _topic_of(httpx.URL(final_url).path)
        if asked is not None and landed is not None and landed != asked:
            raise TopicMoved(
                f"topic {asked}: the board answered topic {landed} (merged or moved)",
                asked,
                landed,
            )
        try:
            page = self._parse(html, path)
        except UnknownPageError as exc:
            raise TopicNotFound(f"{path}: not a topic page ({exc.reason})") from exc
        note_page(self.topic_forums, page.topic_id if asked is None else asked, page, path)
        match = PER_PAGE_RE.search(html)
        if match and int(match.group(1)) > 0:
            per_page = int(match.group(1))
        elif page.page < page.pages and page.posts:
            per_page = len(page.posts)
        else:
            per_page = self.posts_per_page
        return page, per_page

    def _scan(
        self, topic_id: int, first: TopicPage, per_page: int, after: int | None
    ) -> list[Post]:
        """Posts newer than ``after`` on ``first`` and every later page."""
        posts = [p for p in first.posts if after is None or p.post_id > after]
        page = first
        while page.page < page.pages:
            prior, previous = page, page.page
            page, per_page = self._topic_page(topic_path(topic_id, page.page * per_page))
            if page.page <= previous:  # the board did not move on: never loop
                raise PaginationStuck(
                    f"topic {topic_id}: the page after page {previous} is page {page.page} "
                    "again: read stopped"
                )
            check_next(topic_id, prior, page, f"topic {topic_id} page {page.page}")
            posts.extend(p for p in page.posts if after is None or p.post_id > after)
        return posts

    def read_topic(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        """Posts of ``topic_id`` with id > ``after_post_id`` (all when None), in topic order,
        dice rolled by the board attached (``Post.dice``).

        Incremental by post id, not by page offset (deleted posts shift pages):

        * ``after_post_id`` given: GET ``/viewtopic?t=T&p=<after_post_id>`` (the board
          redirects to the page holding that post, ``/t{T}p{start}-slug#P``), then the later
          pages ``/t{T}p{start}-a``;
        * that post gone: GET ``/t{T}-a?view=newest`` (the page of the newest post) and walk
          back page by page until a page starts at or before ``after_post_id``;
        * ``after_post_id`` None: page 1, then every later page.

        Requests: one per page read.
        Raises: TopicNotFound, SessionExpired, ServerError.
        """
        posts = attach_dice(self._read_posts(topic_id, after_post_id))
        for post in posts:  # the parser's doubts, once each per client (issue 16)
            for warning in post.warnings:
                if (topic_id, post.post_id, warning) not in self._warned:
                    self._warned.add((topic_id, post.post_id, warning))
                    log.warning(
                        'topic %s post %s: %s (docs/forumactif.md, section "Reading topics"); '
                        "the bot's deadlines use its own sight of posts, never this date",
                        topic_id,
                        post.post_id,
                        warning,
                    )
        return posts

    def _read_posts(self, topic_id: int, after_post_id: int | None) -> list[Post]:
        if after_post_id is None:
            first, per_page = self._topic_page(topic_path(topic_id))
            return self._scan(topic_id, first, per_page, None)
        try:
            page, per_page = self._topic_page(f"/viewtopic?t={topic_id}&p={after_post_id}")
        except TopicNotFound:
            page = None
        if page is not None and page.topic_id in (None, topic_id):
            if any(p.post_id == after_post_id for p in page.posts):
                return self._scan(topic_id, page, per_page, after_post_id)
        page, per_page = self._topic_page(f"{topic_path(topic_id)}?view=newest")
        collected: list[TopicPage] = [page]
        while page.page > 1 and page.posts and page.posts[0].post_id > after_post_id:
            previous = page.page
            page, per_page = self._topic_page(topic_path(topic_id, (page.page - 2) * per_page))
            if page.page >= previous:  # the board did not move back: never loop
                break
            collected.insert(0, page)
        posts: list[Post] = []
        for prior, item in zip([None, *collected], collected, strict=False):
            check_next(topic_id, prior, item, f"topic {topic_id} page {item.page}")
            posts.extend(p for p in item.posts if p.post_id > after_post_id)
        last = collected[-1]
        if last.page < last.pages:  # "newest" was not the last page: read on
            later = self._scan(topic_id, last, per_page, after_post_id)
            posts.extend(later[sum(1 for p in last.posts if p.post_id > after_post_id) :])
        return posts

    def _post_has_marker(self, marker: str, post: Post) -> bool:
        return has_marker(marker, post.text, post.html)

    def _find_topic_marker(self, forum_id: int, subject: str, marker: str) -> int | None:
        """Topic id of a topic titled ``subject`` opened by this user whose first post
        contains ``marker``, or None."""
        me = self.username.casefold()
        for row in self.list_topics(forum_id):
            if row.title != subject or (row.author is not None and row.author.casefold() != me):
                continue
            posts = self.read_topic(row.topic_id, None)
            if posts and posts[0].author.casefold() == me:
                if has_marker(marker, posts[0].text, posts[0].html):
                    return row.topic_id
        return None


def _topic_of(path: str) -> int | None:
    """The topic id a board path names: ``/t12-slug``, ``/t12p30-a`` or ``/viewtopic?t=12``."""
    match = re.match(r"^/t(\d+)(?:p\d+)?-", path)
    if match:
        return int(match.group(1))
    match = re.search(r"[?&]t=(\d+)", path)
    return int(match.group(1)) if match else None


__all__ = ["ForumactifClient", "attach_dice", "has_marker", "topic_path", "utc_now"]
