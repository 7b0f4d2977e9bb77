"""HTTP edges of both forum clients (issue 12), each on an ``httpx.MockTransport`` with a fake
clock (nothing waits for real): total deadline against a trickling body, body cap, redirect
loop, a redirect to another topic, pagination that does not advance, ``Retry-After`` (past
date, ``0``, longer than the in-place limit: board paused), another member's session, the
0600 cookie jar and the logout on a clean stop, every listing page read at start-up.

Pages are built minimal (the phpBB header ``li#username_logged_in``, prosilver's
``ul.topiclist.topics``; Forumactif's ``_userdata``), except the real phpBB topic t=2 page 1
(``fixtures/html/phpbb/viewtopic_t2_page1_fr.html``, served to Hibou).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from forumbot.errors import (
    BoardPaused,
    DeadlineExceeded,
    ForumError,
    PaginationStuck,
    RedirectLoop,
    ResponseTooLarge,
    TopicMoved,
)
from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.http_edges import parse_retry_after
from forumbot.forums.phpbb import PhpbbClient

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
PHPBB = "http://127.0.0.1:8080"
FA = "https://club.forumactif.com"


class FakeTime:
    """Monotonic seconds moved only by the client's sleep or a trickling body."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


Handler = Callable[[httpx.Request], httpx.Response]


class Board:
    """Answers by exact path+query (``"viewforum.php?f=3&sk=t&sd=d"``); queued answers, the
    last one repeating; every request recorded."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.routes: dict[str, list[httpx.Response | Handler]] = {}
        self.seen: list[str] = []

    def on(self, target: str, *answers: httpx.Response | Handler) -> Board:
        self.routes[target] = list(answers)
        return self

    def __call__(self, request: httpx.Request) -> httpx.Response:
        target = str(request.url).removeprefix(self.base + "/")
        self.seen.append(f"{request.method} {target}")
        answers = self.routes.get(target)
        if not answers:
            raise AssertionError(f"unexpected {request.method} {target}")
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        return answer(request) if callable(answer) else answer


def phpbb_page(body: str, user: str = "Hibou") -> httpx.Response:
    header = (
        f'<ul><li id="username_logged_in"><span class="username">{user}</span></li></ul>'
        '<a href="./ucp.php?mode=logout&amp;sid=abc">Déconnexion</a>'
    )
    html = f"<html><body>{header}{body}</body></html>"
    return httpx.Response(200, html=html)


def listing(*topics: int, next_start: int | None = None) -> str:
    rows = "".join(
        f'<li class="row"><dl><dt><a class="topictitle" href="./viewtopic.php?t={t}">Duel {t}'
        f'</a></dt><dd class="posts">1</dd><dd class="lastpost">'
        f'<a href="./viewtopic.php?p={t * 10}#p{t * 10}">x</a></dd></dl></li>'
        for t in topics
    )
    nxt = (
        f'<a class="button" href="./viewforum.php?f=3&amp;sk=t&amp;sd=d&amp;start={next_start}"'
        ' rel="next" role="button">Suivante</a>'
        if next_start is not None
        else ""
    )
    return f'<ul class="topiclist topics">{rows}</ul>{nxt}'


def fa_page(body: str, user: str = "Hibou", logged_in: int = 1) -> httpx.Response:
    script = (
        f'<script>_userdata["session_logged_in"] = {logged_in};_userdata["username"] = "{user}";'
        '_userdata["page_logout"] = "/login?logout=1&tid=abc&key=def";</script>'
    )
    return httpx.Response(200, html=f"<html><head>{script}</head><body>{body}</body></html>")


def phpbb_client(board: Board, time: FakeTime, **kwargs: object) -> PhpbbClient:
    return PhpbbClient(
        PHPBB,
        "Hibou",
        "pw",
        transport=httpx.MockTransport(board),
        sleep=time.sleep,
        clock=time.clock,
        **kwargs,  # type: ignore[arg-type]
    )


def fa_client(board: Board, time: FakeTime, **kwargs: object) -> ForumactifClient:
    return ForumactifClient(
        FA,
        "Hibou",
        "pw",
        transport=httpx.MockTransport(board),
        sleep=time.sleep,
        clock=time.clock,
        now=lambda: datetime(2026, 7, 20, 12, 0, tzinfo=UTC),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
def time() -> FakeTime:
    return FakeTime()


class Trickle(httpx.SyncByteStream):
    """A body that never ends: one byte per chunk, each arriving 5 s (fake) after the last."""

    def __init__(self, time: FakeTime) -> None:
        self.time = time
        self.sent = 0

    def __iter__(self) -> Iterator[bytes]:
        while True:
            self.time.now += 5.0
            self.sent += 1
            yield b"<"


FORUM = "viewforum.php?f=3&sk=t&sd=d"

# ---------------------------------------------------------------- total deadline


def test_phpbb_trickling_body_fails_at_the_deadline_without_retry(time: FakeTime) -> None:
    trickle = Trickle(time)
    board = Board(PHPBB).on(FORUM, lambda r: httpx.Response(200, stream=trickle))
    client = phpbb_client(board, time, deadline_s=30.0)
    with pytest.raises(DeadlineExceeded) as caught:
        client.list_topics(3)
    assert time.now - 1000.0 <= 30.0 + 5.0  # the first chunk past the deadline stops it
    assert trickle.sent == 7 and len(board.seen) == 1 and time.sleeps == []
    assert "30 s" in str(caught.value) and isinstance(caught.value, ForumError)


def test_forumactif_trickling_body_fails_at_the_deadline(time: FakeTime) -> None:
    trickle = Trickle(time)
    board = Board(FA).on("f3-a", lambda r: httpx.Response(200, stream=trickle))
    with pytest.raises(DeadlineExceeded):
        fa_client(board, time, deadline_s=20.0).list_topics(3)
    assert time.now - 1000.0 <= 25.0 and len(board.seen) == 1


# ---------------------------------------------------------------- body cap


def test_phpbb_body_over_the_cap_by_content_length_is_refused(time: FakeTime) -> None:
    board = Board(PHPBB).on(FORUM, httpx.Response(200, content=b"x" * 5000))
    with pytest.raises(ResponseTooLarge, match="5000 bytes, cap 4096"):
        phpbb_client(board, time, max_body_bytes=4096).list_topics(3)


def test_forumactif_streamed_body_over_the_cap_is_dropped(time: FakeTime) -> None:
    class Big(httpx.SyncByteStream):
        def __iter__(self) -> Iterator[bytes]:
            for _ in range(100):  # no Content-Length: the cap applies while streaming
                yield b"y" * 1024

    board = Board(FA).on("f3-a", lambda r: httpx.Response(200, stream=Big()))
    with pytest.raises(ResponseTooLarge, match="over 10000 bytes"):
        fa_client(board, time, max_body_bytes=10_000).list_topics(3)


def test_default_cap_is_8_mib(time: FakeTime) -> None:
    client = phpbb_client(Board(PHPBB), time)
    assert client.limits.max_body_bytes == 8 * 1024 * 1024


# ---------------------------------------------------------------- redirects


def test_phpbb_redirect_loop_is_one_forum_error_line(time: FakeTime) -> None:
    board = Board(PHPBB)
    board.on(FORUM, httpx.Response(302, headers={"Location": "./viewforum.php?f=3&x=1"}))
    board.on("viewforum.php?f=3&x=1", httpx.Response(302, headers={"Location": FORUM}))
    with pytest.raises(RedirectLoop) as caught:
        phpbb_client(board, time).list_topics(3)
    assert "\n" not in str(caught.value) and "redirect loop" in str(caught.value)
    assert len(board.seen) == 2  # not retried


def test_forumactif_redirect_loop(time: FakeTime) -> None:
    board = Board(FA).on("f3-a", httpx.Response(301, headers={"Location": "/f3-a"}))
    with pytest.raises(RedirectLoop):
        fa_client(board, time).list_topics(3)


def test_phpbb_redirect_to_another_topic_is_topic_moved(time: FakeTime) -> None:
    page = (FIX / "viewtopic_t2_page1_fr.html").read_bytes()
    board = Board(PHPBB)
    moved = httpx.Response(301, headers={"Location": "./viewtopic.php?t=2"})
    board.on("viewtopic.php?t=7&st=0&sk=t&sd=a", moved)
    board.on("viewtopic.php?t=2", httpx.Response(200, content=page))
    with pytest.raises(TopicMoved) as caught:
        phpbb_client(board, time).read_topic(7, None)
    assert (caught.value.topic_id, caught.value.new_topic_id) == (7, 2)


def test_forumactif_redirect_to_another_topic_is_topic_moved(time: FakeTime) -> None:
    board = Board(FA).on("t7-a", httpx.Response(301, headers={"Location": "/t2-duel-2"}))
    board.on("t2-duel-2", fa_page("<p>page</p>"))
    with pytest.raises(TopicMoved) as caught:
        fa_client(board, time).read_topic(7, None)
    assert caught.value.new_topic_id == 2


# ---------------------------------------------------------------- pagination


def test_phpbb_topic_page_that_does_not_advance_stops_with_an_error(time: FakeTime) -> None:
    page1 = httpx.Response(200, content=(FIX / "viewtopic_t2_page1_fr.html").read_bytes())
    board = Board(PHPBB).on("viewtopic.php?t=2&st=0&sk=t&sd=a", page1)
    board.on("viewtopic.php?t=2&start=10&st=0&sk=t&sd=a", page1)
    with pytest.raises(PaginationStuck, match="start=10 gave page 1 again"):
        phpbb_client(board, time).read_topic(2, None)
    assert len(board.seen) == 2


def test_phpbb_listing_next_link_pointing_back_stops(time: FakeTime) -> None:
    board = Board(PHPBB).on(FORUM, phpbb_page(listing(5, next_start=25)))
    board.on(FORUM + "&start=25", phpbb_page(listing(6, next_start=0)))
    with pytest.raises(PaginationStuck):
        phpbb_client(board, time).list_topics(3, all_pages=True)


def test_forumactif_listing_page_repeating_page_one_stops(time: FakeTime) -> None:
    rows = '<a class="topictitle" href="/t5-duel">Duel 5</a><a href="/f3p25-liste">2</a>'
    board = Board(FA).on("f3-a", fa_page(rows)).on("f3p25-a", fa_page(rows))
    with pytest.raises(PaginationStuck):
        fa_client(board, time).list_topics(3, all_pages=True)


# ---------------------------------------------------------------- listings


def test_phpbb_all_pages_reads_every_page_sorted_by_last_post_once_each(time: FakeTime) -> None:
    board = Board(PHPBB).on(FORUM, phpbb_page(listing(1, 9, 8, next_start=25)))
    board.on(FORUM + "&start=25", phpbb_page(listing(1, 7, 6, next_start=50)))
    board.on(FORUM + "&start=50", phpbb_page(listing(1, 5)))
    client = phpbb_client(board, time)
    assert [t.topic_id for t in client.list_topics(3, all_pages=True)] == [1, 9, 8, 7, 6, 5]
    assert [t.topic_id for t in client.list_topics(3)] == [1, 9, 8]  # first page only
    assert board.seen == [f"GET {FORUM}", f"GET {FORUM}&start=25", f"GET {FORUM}&start=50"] + [
        f"GET {FORUM}"
    ]


def test_forumactif_all_pages_follows_the_pagination_links(time: FakeTime) -> None:
    def rows(*ids: int, pages: str = "") -> str:
        return "".join(f'<a class="topictitle" href="/t{t}-d">Duel {t}</a>' for t in ids) + pages

    board = Board(FA).on("f3-a", fa_page(rows(1, 9, pages='<a href="/f3p25-l">2</a>')))
    board.on("f3p25-a", fa_page(rows(1, 7, pages='<a href="/f3-l">1</a>')))
    topics = fa_client(board, time).list_topics(3, all_pages=True)
    assert [t.topic_id for t in topics] == [1, 9, 7]


# ---------------------------------------------------------------- Retry-After


def test_retry_after_values() -> None:
    date = "Mon, 30 Nov 2026 11:43:00 GMT"
    assert parse_retry_after("Mon, 30 Nov 2026 11:42:00 GMT", date) is None  # past: backoff
    assert parse_retry_after("0", None) == 1.0  # floor
    assert parse_retry_after("12", None) == 12.0


def test_phpbb_retry_after_past_date_and_zero(time: FakeTime) -> None:
    past = {"Retry-After": "Mon, 30 Nov 2026 11:42:00 GMT", "Date": "Mon, 30 Nov 2026 11:43:00 GMT"}
    board = Board(PHPBB).on(
        FORUM,
        httpx.Response(503, headers=past),  # past date: backoff 1 s
        httpx.Response(503, headers=past),  # backoff 2 s
        httpx.Response(503, headers={"Retry-After": "0"}),  # floor 1 s (backoff would be 4)
        phpbb_page(listing(5)),
    )
    assert [t.topic_id for t in phpbb_client(board, time).list_topics(3)] == [5]
    assert time.sleeps == [1.0, 2.0, 1.0]


def test_phpbb_long_retry_after_pauses_the_board_without_sleeping(time: FakeTime) -> None:
    board = Board(PHPBB).on(
        FORUM, httpx.Response(503, headers={"Retry-After": "600"}), phpbb_page(listing(5))
    )
    client = phpbb_client(board, time, max_inline_wait_s=60.0)
    with pytest.raises(BoardPaused) as caught:
        client.list_topics(3)
    assert caught.value.wait_s == 600.0 and caught.value.until == 1600.0
    assert time.sleeps == [] and client.pause_remaining_s() == 600.0
    with pytest.raises(BoardPaused):  # no request while paused
        client.list_topics(3)
    assert len(board.seen) == 1
    time.now += 600.0
    assert client.pause_remaining_s() == 0.0
    assert [t.topic_id for t in client.list_topics(3)] == [5]


def test_forumactif_long_retry_after_pauses_the_board(time: FakeTime) -> None:
    board = Board(FA).on("f3-a", httpx.Response(429, headers={"Retry-After": "300"}))
    client = fa_client(board, time, max_inline_wait_s=30.0)
    with pytest.raises(BoardPaused):
        client.list_topics(3)
    assert time.sleeps == [] and client.pause_remaining_s("publish") == 300.0


def test_a_post_refused_with_a_long_retry_after_pauses_publishing_only(time: FakeTime) -> None:
    board = Board(PHPBB).on("posting.php", httpx.Response(429, headers={"Retry-After": "500"}))
    board.on(FORUM, phpbb_page(listing(5)))
    client = phpbb_client(board, time)
    with pytest.raises(BoardPaused) as caught:
        client._post("posting.php", [("message", "x")])
    assert caught.value.scope == "publish"
    assert client.pause_remaining_s("publish") == 500.0 and client.pause_remaining_s() == 0.0
    assert [t.topic_id for t in client.list_topics(3)] == [5]  # reading goes on


# ---------------------------------------------------------------- session hygiene

LOGIN_FORM = (
    '<html><body><form id="login" method="post" action="./ucp.php?mode=login">'
    '<input type="text" name="username"><input type="password" name="password">'
    '<input type="hidden" name="creation_time" value="1"><input type="hidden" '
    'name="form_token" value="t"><input type="submit" name="login" value="Connexion">'
    '</form><a href="./ucp.php?mode=login">Connexion</a></body></html>'
)


def logged_in_302() -> httpx.Response:
    return httpx.Response(
        302,
        headers=[
            ("Location", f"{PHPBB}/index.php"),
            ("Set-Cookie", "phpbb3_x_u=63; path=/; HttpOnly"),
            ("Set-Cookie", "phpbb3_x_k=remember; path=/; HttpOnly"),
            ("Set-Cookie", "phpbb3_x_sid=s1d; path=/; HttpOnly"),
        ],
    )


def test_phpbb_page_of_another_member_is_a_logout(time: FakeTime) -> None:
    board = Board(PHPBB).on(
        FORUM, phpbb_page(listing(5), user="Aurora Vexley"), phpbb_page(listing(5))
    )
    board.on("ucp.php?mode=login", httpx.Response(200, html=LOGIN_FORM), logged_in_302())
    client = phpbb_client(board, time)
    assert [t.topic_id for t in client.list_topics(3)] == [5]
    assert board.seen == [
        f"GET {FORUM}",
        "GET ucp.php?mode=login",
        "POST ucp.php?mode=login",
        f"GET {FORUM}",
    ]
    assert client.is_logged_in()


def test_phpbb_cookie_jar_kept_0600_across_restarts_and_logout_removes_it(
    time: FakeTime, tmp_path: Path
) -> None:
    jar = tmp_path / "forumbot.cookies.json"
    board = Board(PHPBB).on(FORUM, httpx.Response(200, html=LOGIN_FORM), phpbb_page(listing(5)))
    board.on("ucp.php?mode=login", httpx.Response(200, html=LOGIN_FORM), logged_in_302())
    first = phpbb_client(board, time, cookie_file=jar)
    first.list_topics(3)
    assert stat.S_IMODE(os.stat(jar).st_mode) == 0o600
    assert "remember" in jar.read_text()
    first.close()  # a crash or a plain close keeps the jar

    seen: list[str] = []

    def by_cookie(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("cookie", ""))
        return phpbb_page(listing(5))

    again = Board(PHPBB).on(FORUM, by_cookie)
    again.on("ucp.php?mode=logout&sid=s1d", httpx.Response(302, headers={"Location": "/"}))
    second = phpbb_client(again, time, cookie_file=jar)
    second.list_topics(3)
    assert "phpbb3_x_k=remember" in seen[0]  # no new login: the session is reused
    second.close(logout=True)
    assert again.seen[-1] == "GET ucp.php?mode=logout&sid=s1d" and not jar.exists()


def test_a_cookie_file_readable_by_others_is_made_0600(time: FakeTime, tmp_path: Path) -> None:
    jar = tmp_path / "c.json"
    jar.write_text("[]")
    os.chmod(jar, 0o644)
    phpbb_client(Board(PHPBB), time, cookie_file=jar)
    assert stat.S_IMODE(os.stat(jar).st_mode) == 0o600


def test_forumactif_other_member_dropped_and_logout_uses_page_logout(time: FakeTime) -> None:
    board = Board(FA).on("f3-a", fa_page("", user="Autre"), fa_page(""))
    board.on(
        "login",
        httpx.Response(
            200,
            html='<html><form action="/login" method="post" name="form_login"><input '
            'name="username"><input type="password" name="password"><input type="submit" '
            'name="login" value="Connexion"></form></html>',
        ),
    )
    board.routes["login"].append(fa_page(""))
    board.on("login?logout=1&tid=abc&key=def", httpx.Response(302, headers={"Location": "/"}))
    client = fa_client(board, time)
    client.list_topics(3)
    assert "POST login" in board.seen and client.is_logged_in()
    client.close(logout=True)
    assert board.seen[-1] == "GET login?logout=1&tid=abc&key=def"


def test_a_changed_password_does_not_ride_on_the_saved_session(
    time: FakeTime, tmp_path: Path
) -> None:
    """A jar saved with other credentials is not reused: a wrong (or changed) password is
    tried against the board at start-up instead of hiding behind the old session (found by a
    newcomer: `run` with a wrong password kept running on the saved cookies)."""
    jar = tmp_path / "forumbot.cookies.json"
    board = Board(PHPBB).on(FORUM, httpx.Response(200, html=LOGIN_FORM), phpbb_page(listing(5)))
    board.on("ucp.php?mode=login", httpx.Response(200, html=LOGIN_FORM), logged_in_302())
    first = phpbb_client(board, time, cookie_file=jar)
    first.list_topics(3)
    first.close()
    assert "pw" not in jar.read_text()  # only a salted slow hash of the credentials is kept
    seen: list[str] = []

    def by_cookie(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("cookie", ""))
        return phpbb_page(listing(5))

    again = Board(PHPBB).on(FORUM, by_cookie)
    other = PhpbbClient(
        PHPBB, "Hibou", "another password", transport=httpx.MockTransport(again),
        sleep=time.sleep, clock=time.clock, cookie_file=jar,
    )  # fmt: skip
    assert len(other._http.cookies.jar) == 0  # the old session is not loaded
