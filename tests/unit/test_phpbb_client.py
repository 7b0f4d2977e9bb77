"""PhpbbClient against the REAL phpBB 3.3.15 pages (fixtures/html/phpbb), served by an
httpx.MockTransport script; time is a fake clock advanced only by the client's sleep."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import pytest

from forumbot.errors import (
    CaptchaRequired,
    FloodLimited,
    FormInvalid,
    LoginFailed,
    PermissionDenied,
    PostQueued,
    ServerError,
    SessionExpired,
    TopicNotFound,
)
from forumbot.forums.base import ForumClient
from forumbot.forums.phpbb import PhpbbClient, parse_retry_after

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
BASE = "http://127.0.0.1:8080"


VIEWER_RE = re.compile(
    rb'(id="username_logged_in".*?<span class="username(?:-coloured)?"[^>]*>)[^<]*(</span>)', re.S
)


def as_viewer(content: bytes, viewer: str | None) -> bytes:
    """``content`` with the header's logged-in user name replaced by ``viewer`` (the captured
    pages were served to several accounts; the client only trusts pages showing its own)."""
    if viewer is None:
        return content
    return VIEWER_RE.sub(lambda m: m.group(1) + viewer.encode() + m.group(2), content, count=1)


def real(
    name: str, status: int | None = None, viewer: str | None = "Hibou", **extra_headers: str
) -> httpx.Response:
    """A captured page: body bytes as served (shown to ``viewer``), status and headers from
    NAME.headers.txt."""
    lines = (FIX / f"{name}.headers.txt").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("HTTP "))
    code = int(lines[start].split()[1])
    headers = [
        tuple(line.split(": ", 1))
        for line in lines[start + 1 :]
        if ": " in line and line.split(":", 1)[0] in ("Set-Cookie", "Location", "Content-type")
    ]
    headers += list(extra_headers.items())
    return httpx.Response(
        status if status is not None else code,
        headers=headers,
        content=as_viewer((FIX / f"{name}.html").read_bytes(), viewer),
    )


class FakeTime:
    """A clock the client can only move by sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


@dataclass
class Call:
    method: str
    target: str
    body: list[tuple[str, str]]
    at: float


class Script:
    """Routes (method, URL prefix) to queued responses (the last one repeats); records calls."""

    def __init__(self, time: FakeTime) -> None:
        self.time = time
        self.routes: list[tuple[str, str, deque[httpx.Response | Exception]]] = []
        self.calls: list[Call] = []

    def on(self, method: str, prefix: str, *answers: httpx.Response | Exception) -> Script:
        self.routes.append((method, prefix, deque(answers)))
        return self

    def __call__(self, request: httpx.Request) -> httpx.Response:
        target = str(request.url).removeprefix(BASE + "/")
        body = parse_qsl(request.content.decode(), keep_blank_values=True)
        self.calls.append(Call(request.method, target, body, self.time.now))
        for method, prefix, answers in self.routes:
            if method == request.method and target.startswith(prefix) and answers:
                answer = answers.popleft() if len(answers) > 1 else answers[0]
                if isinstance(answer, Exception):
                    raise answer
                return answer
        raise AssertionError(f"unexpected {request.method} {target}")

    def posts(self) -> list[Call]:
        return [c for c in self.calls if c.method == "POST"]


def make_client(script: Script, time: FakeTime, user: str = "Hibou") -> PhpbbClient:
    return PhpbbClient(
        BASE,
        user,
        "secret",
        transport=httpx.MockTransport(script),
        sleep=time.sleep,
        clock=time.clock,
    )


def login_routes(script: Script) -> Script:
    return script.on("GET", "ucp.php?mode=login", real("login_form_before_success")).on(
        "POST", "ucp.php?mode=login", real("login_success_302")
    )


@pytest.fixture
def time() -> FakeTime:
    return FakeTime()


# ---------------------------------------------------------------- login


def test_client_satisfies_the_forum_client_protocol(time: FakeTime) -> None:
    assert isinstance(make_client(Script(time), time), ForumClient)


def test_login_success_posts_every_hidden_field_after_the_form_age(time: FakeTime) -> None:
    script = login_routes(Script(time))
    client = make_client(script, time, user="Aurora Vexley")
    client.login()
    assert client.is_logged_in()
    get, post = script.calls
    fields = dict(post.body)
    redirects = [v for k, v in post.body if k == "redirect"]
    assert redirects == ["./ucp.php?mode=login&sid=9e286c68beda43b5c78f1a22aa73bea3", "index.php"]
    assert fields["creation_time"] == "1796038976"
    assert fields["form_token"] == "488ccdb83b89f6706a3d931c1a51222d3797be99"
    assert fields["sid"] == "9e286c68beda43b5c78f1a22aa73bea3"
    assert (fields["username"], fields["password"]) == ("Aurora Vexley", "secret")
    assert (fields["autologin"], fields["login"]) == ("on", "Connexion")
    # the form is at least 1 s old (1.1 s configured) when POSTed, waited on the fake clock
    assert post.at - get.at >= 1.1
    assert time.sleeps == [1.1]
    # the 302's cookies are kept: user 58
    assert client._http.cookies.get("phpbb3_1qtk7_u") == "58"


def test_wrong_password_raises_login_failed_without_retry(time: FakeTime) -> None:
    script = Script(time).on("GET", "ucp.php?mode=login", real("login_page"))
    script.on("POST", "ucp.php?mode=login", real("login_failure_wrong_password"))
    with pytest.raises(LoginFailed, match="mot de passe incorrect") as info:
        make_client(script, time).login()
    assert not isinstance(info.value, CaptchaRequired)
    assert len(script.posts()) == 1


def test_unknown_user_raises_login_failed(time: FakeTime) -> None:
    script = Script(time).on("GET", "ucp.php?mode=login", real("login_page"))
    script.on("POST", "ucp.php?mode=login", real("login_failure_unknown_user"))
    with pytest.raises(LoginFailed, match="nom d’utilisateur incorrect"):
        make_client(script, time).login()
    assert len(script.posts()) == 1


def test_captcha_answer_stops_without_a_second_password_post(time: FakeTime) -> None:
    script = Script(time).on("GET", "ucp.php?mode=login", real("login_page"))
    script.on("POST", "ucp.php?mode=login", real("login_failure_captcha_required"))
    with pytest.raises(CaptchaRequired, match="nombre maximum"):
        make_client(script, time).login()
    assert len(script.posts()) == 1


def test_login_form_already_asking_captcha_sends_no_password(time: FakeTime) -> None:
    script = Script(time).on(
        "GET", "ucp.php?mode=login", real("login_failure_captcha_required", status=200)
    )
    with pytest.raises(CaptchaRequired):
        make_client(script, time).login()
    assert script.posts() == []


def test_form_invalid_refetches_the_form_and_retries_once(time: FakeTime) -> None:
    script = Script(time).on(
        "GET", "ucp.php?mode=login", real("login_page"), real("login_form_before_success")
    )
    script.on(
        "POST",
        "ucp.php?mode=login",
        real("login_failure_too_fast"),
        real("login_success_302"),
    )
    client = make_client(script, time)
    client.login()
    assert client.is_logged_in()
    assert [c.method for c in script.calls] == ["GET", "POST", "GET", "POST"]
    second = dict(script.posts()[1].body)
    assert second["form_token"] == "488ccdb83b89f6706a3d931c1a51222d3797be99"


def test_form_invalid_twice_gives_up(time: FakeTime) -> None:
    script = Script(time).on("GET", "ucp.php?mode=login", real("login_page"))
    script.on("POST", "ucp.php?mode=login", real("login_failure_form_invalid"))
    with pytest.raises(FormInvalid):
        make_client(script, time).login()
    assert len(script.posts()) == 2


# ---------------------------------------------------------------- reading


def test_list_topics_reads_the_real_viewforum_rows(time: FakeTime) -> None:
    script = Script(time).on("GET", "viewforum.php?f=3", real("viewforum_f3_logged_in_fr"))
    topics = make_client(script, time).list_topics(3)
    assert [(t.topic_id, t.last_post_id, t.replies, t.author) for t in topics] == [
        (4, 34, 2, "Arbitre"),
        (2, 27, 25, "Arbitre"),
    ]
    assert topics[1].title == "Duel n°1 : Aurora Vexley contre Cassius Thorne"
    assert len(script.calls) == 1


def test_read_topic_by_post_id_then_later_pages(time: FakeTime) -> None:
    script = Script(time).on("GET", "viewtopic.php?p=14", real("viewtopic_by_post_id_fr"))
    script.on("GET", "viewtopic.php?t=2&start=20", real("viewtopic_t2_page3_fr"))
    posts = make_client(script, time).read_topic(2, 14)
    assert [p.post_id for p in posts] == list(range(15, 28))
    assert [c.target for c in script.calls] == [  # the order named (issue 22)
        "viewtopic.php?p=14&st=0&sk=t&sd=a", "viewtopic.php?t=2&start=20&st=0&sk=t&sd=a"
    ]


def test_read_topic_falls_back_to_a_scan_when_the_post_was_deleted(time: FakeTime) -> None:
    script = Script(time).on("GET", "viewtopic.php?p=15", real("viewtopic_topic_does_not_exist_fr"))
    script.on("GET", "viewtopic.php?t=2&start=10", real("viewtopic_t2_page2_fr"))
    script.on("GET", "viewtopic.php?t=2&start=20", real("viewtopic_t2_page3_fr"))
    script.on("GET", "viewtopic.php?t=2", real("viewtopic_t2_page1_fr"))
    posts = make_client(script, time).read_topic(2, 15)
    assert [p.post_id for p in posts] == list(range(16, 28))


def test_missing_topic_raises_topic_not_found(time: FakeTime) -> None:
    script = Script(time).on(
        "GET", "viewtopic.php?t=9999", real("viewtopic_topic_does_not_exist_fr")
    )
    with pytest.raises(TopicNotFound):
        make_client(script, time).read_topic(9999, None)


def test_silent_logout_on_a_page_read(time: FakeTime) -> None:
    script = Script(time).on(
        "GET",
        "viewtopic.php?p=21",
        real("viewtopic_t2_page1_guest_fr"),
        real("viewtopic_t2_page2_fr"),
    )
    script.on("GET", "viewtopic.php?t=2&start=20", real("viewtopic_t2_page3_fr"))
    login_routes(script)
    client = make_client(script, time)
    posts = client.read_topic(2, 21)
    assert [p.post_id for p in posts] == [22, 23, 24, 25, 26, 27]
    assert [c.target.split("&sid")[0] for c in script.calls] == [
        "viewtopic.php?p=21&st=0&sk=t&sd=a",
        "ucp.php?mode=login",
        "ucp.php?mode=login",
        "viewtopic.php?p=21&st=0&sk=t&sd=a",
        "viewtopic.php?t=2&start=20&st=0&sk=t&sd=a",
    ]
    assert client.is_logged_in()


def test_still_a_guest_after_relogin_raises_session_expired(time: FakeTime) -> None:
    script = Script(time).on("GET", "viewforum.php?f=3", real("viewforum_f3_guest_fr"))
    login_routes(script)
    with pytest.raises(SessionExpired):
        make_client(script, time).list_topics(3)
    assert len(script.posts()) == 1


def test_get_retries_5xx_and_429_honouring_retry_after(time: FakeTime) -> None:
    unavailable = httpx.Response(503, headers={"Retry-After": "7"})
    limited = httpx.Response(
        429,
        headers={
            "Retry-After": "Mon, 30 Nov 2026 11:43:30 GMT",
            "Date": "Mon, 30 Nov 2026 11:43:00 GMT",
        },
    )
    script = Script(time).on(
        "GET", "viewforum.php?f=3", unavailable, limited, real("viewforum_f3_logged_in_fr")
    )
    topics = make_client(script, time).list_topics(3)
    assert len(topics) == 2
    assert time.sleeps == [7.0, 30.0]


def test_get_retries_timeouts_with_capped_exponential_backoff(time: FakeTime) -> None:
    timeout = httpx.ReadTimeout("slow")
    script = Script(time).on(
        "GET", "viewforum.php?f=3", timeout, timeout, timeout, real("viewforum_f3_logged_in_fr")
    )
    make_client(script, time).list_topics(3)
    assert time.sleeps == [1.0, 2.0, 4.0]


def test_get_gives_up_with_server_error(time: FakeTime) -> None:
    script = Script(time).on("GET", "viewforum.php?f=3", httpx.Response(502))
    with pytest.raises(ServerError):
        make_client(script, time).list_topics(3)
    assert len(script.calls) == 5  # 1 + max_retries (4)


def test_retry_after_parsing() -> None:
    assert parse_retry_after("12", None) == 12.0
    assert parse_retry_after("Mon, 30 Nov 2026 11:43:30 GMT", "Mon, 30 Nov 2026 11:43:00 GMT") == 30
    assert parse_retry_after("garbage", "Mon, 30 Nov 2026 11:43:00 GMT") is None
    assert parse_retry_after(None, None) is None


# ---------------------------------------------------------------- posting

REPLY_FORM = "posting.php?mode=reply&t=2"
MARKER_P10 = "Tableau du duel après le tour 2"  # Hibou's p10 on the real page 1


def topic_routes(script: Script) -> Script:
    script.on("GET", "viewtopic.php?p=2", real("viewtopic_t2_page1_fr"))
    script.on("GET", "viewtopic.php?t=2&start=10", real("viewtopic_t2_page2_fr"))
    script.on("GET", "viewtopic.php?t=2&start=20", real("viewtopic_t2_page3_fr"))
    return script


def test_reply_success_returns_the_post_id_from_the_302(time: FakeTime) -> None:
    script = Script(time).on("GET", REPLY_FORM, real("posting_reply_form"))
    script.on("POST", REPLY_FORM, real("posting_reply_submit_302"))
    post_id = make_client(script, time).reply(2, "Bonjour\n[b]Lance de givre[/b] m-1", "m-1")
    assert post_id == 3
    (post,) = script.posts()
    fields = dict(post.body)
    assert fields["topic_cur_post_id"] == "2"
    assert fields["form_token"] == "17b720c2d420eda94bf01999e5f4e5d89763a750"
    assert fields["message"] == "Bonjour\n[b]Lance de givre[/b] m-1"
    assert fields["subject"] == "Re: Duel n°1 : Aurora Vexley contre Cassius Thorne"
    assert fields["post"] == "Envoyer"
    assert fields["disable_magic_url"] == "on"  # no auto-links in player text (issue 15)
    assert not {"preview", "save", "add_file"} & set(fields)
    assert post.at - script.calls[0].at >= 1.1


def test_flood_waits_the_flood_interval_then_posts_with_a_fresh_form(time: FakeTime) -> None:
    script = Script(time).on("GET", REPLY_FORM, real("posting_reply_form"))
    script.on("POST", REPLY_FORM, real("posting_flood_error_fr"), real("posting_reply_submit_302"))
    assert make_client(script, time).reply(2, "texte m-2", "m-2") == 3
    assert 15.0 in time.sleeps
    assert [c.method for c in script.calls] == ["GET", "POST", "GET", "POST"]
    assert script.posts()[1].at - script.posts()[0].at >= 15


def test_flood_forever_raises_flood_limited(time: FakeTime) -> None:
    script = Script(time).on("GET", REPLY_FORM, real("posting_reply_form"))
    script.on("POST", REPLY_FORM, real("posting_flood_error_en"))
    with pytest.raises(FloodLimited) as info:
        make_client(script, time).reply(2, "texte m-3", "m-3")
    assert info.value.wait_s == 15.0


def test_post_review_checks_the_marker_then_resubmits_the_refreshed_form(
    time: FakeTime,
) -> None:
    script = topic_routes(Script(time).on("GET", REPLY_FORM, real("posting_reply_form")))
    script.on(
        "POST",
        REPLY_FORM,
        real("posting_post_review_new_post_en"),
        real("posting_reply_submit_302"),
    )
    assert make_client(script, time).reply(2, "texte m-4", "marker-not-on-the-board") == 3
    first, second = script.posts()
    between = [
        c.target for c in script.calls if first.at <= c.at <= second.at and c.method == "GET"
    ]
    assert "viewtopic.php?p=2&st=0&sk=t&sd=a" in between  # marker checked before resubmitting
    fields = dict(second.body)
    assert fields["topic_cur_post_id"] == "10"
    assert fields["form_token"] == "edc905b402d3dc4fdbca6d8a6b0df8ca40a258ef"
    assert fields["message"] == "texte m-4"


def test_form_invalid_after_the_post_went_through_finds_the_marker(time: FakeTime) -> None:
    script = topic_routes(Script(time).on("GET", REPLY_FORM, real("posting_reply_form")))
    script.on("POST", REPLY_FORM, real("posting_form_invalid_double_submit"))
    post_id = make_client(script, time).reply(2, f"{MARKER_P10} …", MARKER_P10)
    assert post_id == 10
    assert len(script.posts()) == 1


def test_timeout_on_post_checks_the_marker_and_never_posts_twice(time: FakeTime) -> None:
    script = topic_routes(Script(time).on("GET", REPLY_FORM, real("posting_reply_form")))
    script.on("POST", REPLY_FORM, httpx.ReadTimeout("no answer"))
    assert make_client(script, time).reply(2, f"{MARKER_P10} …", MARKER_P10) == 10
    assert len(script.posts()) == 1


def test_timeout_then_no_marker_posts_again_with_a_fresh_form(time: FakeTime) -> None:
    script = topic_routes(Script(time).on("GET", REPLY_FORM, real("posting_reply_form")))
    script.on("POST", REPLY_FORM, httpx.ReadTimeout("lost"), real("posting_reply_submit_302"))
    assert make_client(script, time).reply(2, "texte m-5", "m-5-absent") == 3
    assert len(script.posts()) == 2
    gets = [c.target for c in script.calls if c.method == "GET"]
    marker_read = gets.index("viewtopic.php?p=2&st=0&sk=t&sd=a")
    assert marker_read < len(gets) - 1  # marker read before the new form


def test_queued_for_approval_raises_post_queued(time: FakeTime) -> None:
    script = Script(time).on("GET", "posting.php?mode=reply&t=3", real("posting_reply_form"))
    # the captured form (t=2) posts to its own action; only the answer matters here
    script.on("POST", "posting.php?mode=reply", real("posting_reply_queued_for_approval"))
    with pytest.raises(PostQueued, match="approbation"):
        make_client(script, time).reply(3, "texte m-6", "m-6")
    assert len(script.posts()) == 1


def test_reply_form_as_guest_logs_in_again_first(time: FakeTime) -> None:
    script = Script(time).on(
        "GET",
        REPLY_FORM,
        real("posting_reply_as_guest_login_required"),
        real("posting_reply_form"),
    )
    login_routes(script)
    script.on("POST", REPLY_FORM, real("posting_reply_submit_302"))
    assert make_client(script, time).reply(2, "texte m-7", "m-7") == 3
    assert [c.target.split("?")[0] for c in script.posts()] == ["ucp.php", "posting.php"]


def test_create_topic_reads_the_topic_id_from_the_302(time: FakeTime) -> None:
    script = Script(time).on("GET", "posting.php?mode=post&f=3", real("posting_newtopic_form"))
    script.on("POST", "posting.php?mode=post&f=3", real("posting_newtopic_submit_302"))
    assert make_client(script, time).create_topic(3, "Duel n°9", "Bienvenue m-8", "m-8") == 2
    fields = dict(script.posts()[0].body)
    assert (fields["subject"], fields["message"], fields["post"]) == (
        "Duel n°9",
        "Bienvenue m-8",
        "Envoyer",
    )


# ---------------------------------------------------------------- private messages

PM_U62 = "ucp.php?i=pm&mode=compose&u=62"
PM_ACTION = "ucp.php?i=pm&mode=compose&action=post"


def test_pm_short_way_posts_the_preset_recipient(time: FakeTime) -> None:
    script = Script(time).on("GET", PM_U62, real("pm_compose_form_prefilled_u"))
    script.on("POST", PM_ACTION, real("pm_sent_confirmation"))
    make_client(script, time).send_pm(62, "Arbitre", "Tableau final", "Voici m-9", "m-9")
    (post,) = script.posts()
    fields = dict(post.body)
    assert fields["address_list[u][62]"] == "to"
    assert (fields["subject"], fields["message"], fields["post"]) == (
        "Tableau final",
        "Voici m-9",
        "Envoyer",
    )
    assert post.target.endswith("sid=9e990781b3bee6bdc7c5249ea43d61aa")


def test_pm_by_username_adds_the_recipient_first(time: FakeTime) -> None:
    script = Script(time).on("GET", "ucp.php?i=pm&mode=compose", real("pm_compose_form"))
    script.on("POST", PM_ACTION, real("pm_compose_recipient_added"), real("pm_sent_confirmation"))
    make_client(script, time).send_pm(None, "Cassius Thorne", "Bravo", "Salut m-10", "m-10")
    add, send = script.posts()
    assert ("add_to", "Ajouter") in add.body and ("username_list", "Cassius Thorne") in add.body
    assert "post" not in dict(add.body)
    assert dict(send.body)["address_list[u][59]"] == "to"
    assert dict(send.body)["post"] == "Envoyer"
    assert send.at - add.at >= 1.1


def test_pm_flood_waits_then_sends(time: FakeTime) -> None:
    script = Script(time).on("GET", PM_U62, real("pm_compose_form_prefilled_u"))
    script.on("POST", PM_ACTION, real("pm_flood_error"), real("pm_sent_confirmation"))
    make_client(script, time).send_pm(62, "Arbitre", "Sujet", "Texte m-11", "m-11")
    assert 15.0 in time.sleeps
    assert len(script.posts()) == 2


def test_pm_timeout_finds_the_marker_in_the_outbox(time: FakeTime) -> None:
    script = Script(time).on("GET", PM_U62, real("pm_compose_form_prefilled_u"))
    script.on("POST", PM_ACTION, httpx.ReadTimeout("lost"))
    script.on("GET", "ucp.php?i=pm&folder=outbox", real("pm_outbox_sender"))
    script.on("GET", "ucp.php?i=pm&mode=view&f=-2&p=1", real("pm_view_message"))
    client = make_client(script, time)
    client.send_pm(62, "Arbitre", "Bravo pour le phénix", "…", "Revanche au duel n°3")
    assert len(script.posts()) == 1


def test_pm_not_allowed_raises_permission_denied(time: FakeTime) -> None:
    script = Script(time).on("GET", PM_U62, real("pm_compose_not_allowed_new_member"))
    with pytest.raises(PermissionDenied):
        make_client(script, time).send_pm(62, "Arbitre", "S", "M m-12", "m-12")
    assert script.posts() == []
