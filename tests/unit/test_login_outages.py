"""Issue 22, "only a real refusal stops the bot": what answers the login, on both platforms
(``httpx.MockTransport``, a fake clock: nothing waits for real).

A page that is not the board's (a Cloudflare-style 403/503 challenge, « Attention Required! »,
a host's 508 « Resource Limit Is Reached », a 500, phpBB's 200 board-disabled page, a host's
200 maintenance page) is retried with backoff like any read, then ``BoardUnavailable``: never
``LoginFailed``, and the password is never sent to it. A 404 is ``BoardNotFound``. Only the
board's own refusals are ``LoginFailed``: the real phpBB pages for a wrong password, an
unknown user and the CAPTCHA (``fixtures/html/phpbb/login_failure_*.html``), phpBB's ban and
inactive-account sentences (its language files: ``BOARD_BAN_PERM``, ``ACTIVE_ERROR``), and
Forumactif's login form shown again with its error.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from forumbot.errors import (
    BoardNotFound,
    BoardUnavailable,
    CaptchaRequired,
    LoginFailed,
    ServerError,
)
from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.outages import account_refusal, challenge_reason
from forumbot.forums.phpbb import PhpbbClient
from forumbot.sandbox.outages import HOST_MAINTENANCE, _page

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
PHPBB = "http://127.0.0.1:8080"
FA = "https://club.forumactif.com"


class FakeTime:
    """Monotonic seconds moved only by the client's sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def sandbox_page(kind: str) -> httpx.Response:
    """The sandbox's own outage answer of ``kind`` as an httpx response."""

    def maintenance() -> object:
        raise AssertionError("not a maintenance kind")

    page = _page(kind, maintenance)  # type: ignore[arg-type]
    return httpx.Response(page.status, headers=page.headers, text=page.body)


def fixture(name: str, status: int = 200) -> httpx.Response:
    return httpx.Response(status, html=(FIX / name).read_text(encoding="utf-8"))


def phpbb_message(text: str, status: int = 200) -> httpx.Response:
    """A prosilver message page (guest header: login link), as phpBB's trigger_error shows."""
    html = (
        '<html><head><title>Informations</title></head><body><div id="wrap">'
        '<a href="./ucp.php?mode=login" title="Connexion">Connexion</a>'
        '<div id="page-body"><div class="panel" id="message"><div class="inner">'
        f"<h2>Informations</h2><p>{text}</p></div></div></div></div></body></html>"
    )
    return httpx.Response(status, html=html)


SUCCESS = httpx.Response(
    302, headers=[("Location", "./index.php"), ("Set-Cookie", "phpbb3_x_u=2; path=/")]
)
OUTAGES: dict[str, Callable[[], httpx.Response]] = {
    "Cloudflare 403 challenge": lambda: sandbox_page("challenge403"),
    "Cloudflare 503 challenge": lambda: sandbox_page("challenge503"),
    "Attention Required 403": lambda: sandbox_page("attention403"),
    "host 508 resource limit": lambda: sandbox_page("limit508"),
    "500": lambda: sandbox_page("error500"),
    "phpBB 200 board disabled": lambda: phpbb_message("Le forum est actuellement désactivé."),
    "phpBB 503 board disabled": lambda: phpbb_message("The board is currently disabled.", 503),
    "host 200 maintenance page": lambda: httpx.Response(200, html=HOST_MAINTENANCE),
}


class Login:
    """A board answering ``GET`` of the login page from ``pages`` (the last one repeating)
    and ``POST`` of the login form with ``answer``; every request recorded."""

    def __init__(
        self, login_path: str, pages: list[Callable[[], httpx.Response]], answer: httpx.Response
    ) -> None:
        self.login_path = login_path
        self.pages = pages
        self.answer = answer
        self.seen: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request.method)
        if request.method == "POST":
            return self.answer
        assert request.url.path == self.login_path, request.url
        page = self.pages.pop(0) if len(self.pages) > 1 else self.pages[0]
        return page()


def phpbb(board: Login, time: FakeTime) -> PhpbbClient:
    return PhpbbClient(
        PHPBB, "Hibou", "pw", transport=httpx.MockTransport(board), sleep=time.sleep,
        clock=time.clock,
    )  # fmt: skip


def login_page() -> httpx.Response:
    return fixture("login_page.html")


# -- phpBB -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(OUTAGES))
def test_phpbb_an_outage_page_at_login_is_retried_then_board_unavailable(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    time = FakeTime()
    board = Login("/ucp.php", [OUTAGES[name]], SUCCESS)
    with caplog.at_level(logging.INFO), pytest.raises(ServerError) as caught:
        phpbb(board, time).login()
    assert not isinstance(caught.value, LoginFailed)
    assert isinstance(caught.value, BoardUnavailable) or name == "500"  # a 500: as any read
    assert board.seen == ["GET"] * 5  # 4 retries, the password never sent
    assert time.sleeps == [1.0, 2.0, 4.0, 8.0]  # the backoff of every read
    assert "fix the bot's password" not in caplog.text


@pytest.mark.parametrize("name", list(OUTAGES))
def test_phpbb_logs_in_when_the_outage_page_goes_away(name: str) -> None:
    time = FakeTime()
    board = Login("/ucp.php", [OUTAGES[name], OUTAGES[name], login_page], SUCCESS)
    client = phpbb(board, time)
    client.login()
    assert client.is_logged_in() and board.seen == ["GET", "GET", "GET", "POST"]


def test_phpbb_the_real_refusals_stay_login_failed() -> None:
    wrong = Login("/ucp.php", [login_page], fixture("login_failure_wrong_password.html"))
    with pytest.raises(LoginFailed, match="mot de passe incorrect") as caught:
        phpbb(wrong, FakeTime()).login()
    assert caught.value.kind == "password"
    unknown = Login("/ucp.php", [login_page], fixture("login_failure_unknown_user.html"))
    with pytest.raises(LoginFailed, match="nom d’utilisateur incorrect"):
        phpbb(unknown, FakeTime()).login()
    captcha = Login("/ucp.php", [login_page], fixture("login_failure_captcha_required.html"))
    with pytest.raises(CaptchaRequired):
        phpbb(captcha, FakeTime()).login()


def test_phpbb_a_banned_account_is_a_refusal_on_the_page_and_after_the_post() -> None:
    ban = "Vous avez été <strong>banni de manière permanente</strong> de ce forum."
    on_page = Login("/ucp.php", [lambda: phpbb_message(ban)], SUCCESS)
    with pytest.raises(LoginFailed) as caught:
        phpbb(on_page, FakeTime()).login()
    assert caught.value.kind == "banned" and on_page.seen == ["GET"]
    after_post = Login(
        "/ucp.php", [login_page], phpbb_message("You have been permanently banned from this board.")
    )
    with pytest.raises(LoginFailed) as caught:
        phpbb(after_post, FakeTime()).login()
    assert caught.value.kind == "banned"


def test_phpbb_an_inactive_account_is_a_refusal() -> None:
    html = (FIX / "login_failure_wrong_password.html").read_text(encoding="utf-8")
    inactive = html.replace(
        "Vous avez indiqué un mot de passe incorrect.",
        "The specified username is currently inactive.",
    )
    board = Login("/ucp.php", [login_page], httpx.Response(200, html=inactive))
    with pytest.raises(LoginFailed) as caught:
        phpbb(board, FakeTime()).login()
    assert caught.value.kind == "inactive"


@pytest.mark.parametrize("kind", ["challenge403", "limit508", "error500"])
def test_phpbb_a_challenge_answering_the_login_post_is_an_outage(kind: str) -> None:
    board = Login("/ucp.php", [login_page], sandbox_page(kind))
    with pytest.raises(ServerError) as caught:
        phpbb(board, FakeTime()).login()
    assert not isinstance(caught.value, LoginFailed) and board.seen == ["GET", "POST"]


def test_phpbb_a_404_login_page_is_no_board_at_this_address() -> None:
    board = Login("/ucp.php", [lambda: httpx.Response(404, text="Not Found")], SUCCESS)
    with pytest.raises(BoardNotFound, match="no board at this address") as caught:
        phpbb(board, FakeTime()).login()
    assert caught.value.url == f"{PHPBB}/ucp.php?mode=login" and board.seen == ["GET"]


def test_a_read_hitting_a_challenge_is_retried_like_a_503() -> None:
    assert challenge_reason(sandbox_page("challenge403").__class__(403, text="<p>x</p>")) is None
    assert challenge_reason(sandbox_page("challenge403")) == (
        "HTTP 403, challenge page «Just a moment...»"
    )
    assert challenge_reason(httpx.Response(200, text="Just a moment...")) is None
    assert challenge_reason(httpx.Response(404, text="Just a moment...")) is None
    assert account_refusal("Bienvenue") is None


# -- Forumactif --------------------------------------------------------------------------


def fa_page(body: str, user: str | None = None) -> httpx.Response:
    logged = 1 if user else 0
    script = (
        f'<script>_userdata["session_logged_in"] = {logged};_userdata["username"] = '
        f'"{user or "Anonymous"}";_userdata["page_logout"] = "/login?logout=1&tid=a&key=b";'
        "</script>"
    )
    return httpx.Response(200, html=f"<html><head>{script}</head><body>{body}</body></html>")


FA_FORM = (
    '<form action="/login" method="post" name="form_login"><input name="username">'
    '<input type="password" name="password"><input type="submit" name="login" '
    'value="Connexion"></form>'
)


def fa_login_page() -> httpx.Response:
    return fa_page(FA_FORM)


def forumactif(board: Login, time: FakeTime) -> ForumactifClient:
    return ForumactifClient(
        FA, "Hibou", "pw", transport=httpx.MockTransport(board), sleep=time.sleep,
        clock=time.clock, now=lambda: datetime(2026, 7, 20, 12, 0, tzinfo=UTC),
    )  # fmt: skip


FA_OUTAGES = {k: v for k, v in OUTAGES.items() if not k.startswith("phpBB")}


@pytest.mark.parametrize("name", list(FA_OUTAGES))
def test_forumactif_an_outage_page_at_login_is_retried_then_board_unavailable(name: str) -> None:
    time = FakeTime()
    board = Login("/login", [FA_OUTAGES[name]], fa_page("", "Hibou"))
    with pytest.raises(ServerError) as caught:
        forumactif(board, time).login()
    assert not isinstance(caught.value, LoginFailed)
    assert isinstance(caught.value, BoardUnavailable) or name == "500"  # a 500: as any read
    assert board.seen == ["GET"] * 5 and time.sleeps == [1.0, 2.0, 4.0, 8.0]


@pytest.mark.parametrize("name", list(FA_OUTAGES))
def test_forumactif_logs_in_when_the_outage_page_goes_away(name: str) -> None:
    board = Login("/login", [FA_OUTAGES[name], fa_login_page], fa_page("", "Hibou"))
    client = forumactif(board, FakeTime())
    client.login()
    assert client.is_logged_in() and board.seen == ["GET", "GET", "POST"]


def test_forumactif_the_real_refusals_stay_login_failed() -> None:
    wrong = fa_page(
        '<div class="error">Vous avez spécifié un nom d\'utilisateur incorrect ou un mot de '
        f"passe invalide.</div>{FA_FORM}"
    )
    board = Login("/login", [fa_login_page], wrong)
    with pytest.raises(LoginFailed, match="incorrect") as caught:
        forumactif(board, FakeTime()).login()
    assert caught.value.kind == "password"
    banned = Login("/login", [fa_login_page], fa_page("<p>Vous avez été banni de ce forum.</p>"))
    with pytest.raises(LoginFailed) as caught:
        forumactif(banned, FakeTime()).login()
    assert caught.value.kind == "banned"
    captcha = Login("/login", [fa_login_page], fa_page('<div class="g-recaptcha"></div>'))
    with pytest.raises(CaptchaRequired):
        forumactif(captcha, FakeTime()).login()


@pytest.mark.parametrize("kind", ["challenge403", "limit508"])
def test_forumactif_a_challenge_answering_the_login_post_is_an_outage(kind: str) -> None:
    board = Login("/login", [fa_login_page], sandbox_page(kind))
    with pytest.raises(BoardUnavailable):
        forumactif(board, FakeTime()).login()
    host = Login("/login", [fa_login_page], httpx.Response(200, html=HOST_MAINTENANCE))
    with pytest.raises(BoardUnavailable):
        forumactif(host, FakeTime()).login()


def test_forumactif_a_404_login_page_is_no_board_at_this_address() -> None:
    board = Login("/login", [lambda: httpx.Response(404, text="Not Found")], fa_page(""))
    with pytest.raises(BoardNotFound, match="no board at this address"):
        forumactif(board, FakeTime()).login()
    assert board.seen == ["GET"]
