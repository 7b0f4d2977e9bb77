"""ForumactifClient against respx-mocked boards serving the REAL Forumactif pages.

Real pages (read in place from ``../shared/fixtures/forumactif/rendered``, never copied):
the AwesomeBB topic t8320 (view-source, logged in as "Gaspard Brumebois"), the AwesomeBB full
reply form after Preview (same user), the phpBB3/prosilver board index (logged in as
"Grimoire"). Answers no real capture exists for (login form, confirmation page, flood page,
PM compose form, forum listing) are built minimal, as REPORT.md section 6 describes them; each
test says which.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import pytest
import respx

from forumbot.errors import (
    FloodLimited,
    FormInvalid,
    LoginFailed,
    ServerError,
    SessionExpired,
    TopicMoved,
)
from forumbot.forums.base import ForumClient
from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.forumactif_pages import pm_sender

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "forumactif"
RENDERED = FIXTURES / "rendered"
TOPIC = RENDERED / "awesomebb" / "topic_t8320_page1_viewsource.html"
PREVIEW = RENDERED / "awesomebb" / "post_reply_preview_t8320_viewsource.html"
INDEX = RENDERED / "phpbb3" / "index_jxr-new_foroactivo_saved.html"

pytestmark = pytest.mark.skipif(
    not (TOPIC.exists() and PREVIEW.exists() and INDEX.exists()),
    reason=f"real Forumactif pages not found under {RENDERED} (shared fixtures absent)",
)

BASE = "https://club-de-duel.forumactif.com"
GASPARD = "Gaspard Brumebois"
NOW = datetime(2026, 7, 20, 12, 0, tzinfo=UTC)

# Built per REPORT.md 6.1 (mod_login.tpl field names); no real login page was captured.
LOGIN_FORM = (
    '<html><head><script>_userdata["session_logged_in"] = 0;'
    '_userdata["username"] = "Anonymous";</script></head><body>'
    '<form action="/login" method="post" name="form_login">'
    '<input type="text" name="username" /><input type="password" name="password" />'
    '<input type="checkbox" name="autologin" /><input type="hidden" name="redirect" value="" />'
    '<input type="submit" name="login" value="Connexion" /></form></body></html>'
)


def confirmation(topic_id: int, post_id: int) -> str:
    """Built per REPORT.md 6.3 (message_body, MODERACTOR wording, FAM link); not a capture."""
    link = f"/viewtopic?t={topic_id}&amp;p={post_id}#{post_id}"
    return (
        f'<html><head><meta http-equiv="refresh" content="3;url={link}" /></head><body>'
        '<div class="panel"><h1 class="page-title">Informations</h1><p>Votre message a été '
        f'enregistré avec succès.<br /><br />Cliquez <a href="{link}">ici</a> pour voir votre '
        "message</p></div></body></html>"
    )


def flood_page(seconds: int | None) -> str:
    """Built per REPORT.md 6.3/7 ("Flood control", CHALO; the French delay sentence is
    ASSUMED); not a capture."""
    wait = f" Veuillez patienter {seconds} seconde(s)." if seconds is not None else ""
    return (
        '<html><body><div class="panel"><p>Flood control : vous ne pouvez pas poster un autre '
        f"message si rapidement après le précédent.{wait}</p></div></body></html>"
    )


@pytest.fixture
def topic_html() -> str:
    return TOPIC.read_text(encoding="utf-8")


@pytest.fixture
def last_page_html(topic_html: str) -> str:
    """The real page 1 of 16 presented as the topic's last page ("Page 1 sur 16" changed to
    "Page 16 sur 16" in memory) so that reading it needs no other page."""
    changed = topic_html.replace("Page <strong>1</strong> sur", "Page <strong>16</strong> sur")
    assert changed != topic_html
    return changed


@pytest.fixture
def guest_topic_html(topic_html: str) -> str:
    """The real page as a silently logged-out session would see it: ``session_logged_in``
    set to 0 in memory (no real guest capture exists)."""
    changed = topic_html.replace(
        '_userdata["session_logged_in"] = 1;', '_userdata["session_logged_in"] = 0;'
    )
    assert changed.count('_userdata["session_logged_in"] = 0;') == 2
    return changed


@pytest.fixture
def router() -> Iterator[respx.Router]:
    yield respx.Router(base_url=BASE, assert_all_called=False)


def make_client(
    router: respx.Router, username: str = GASPARD, **kwargs: object
) -> tuple[ForumactifClient, list[float]]:
    sleeps: list[float] = []
    client = ForumactifClient(
        BASE,
        username,
        "secret-pw",
        transport=httpx.MockTransport(router.handler),
        sleep=sleeps.append,
        now=lambda: NOW,
        **kwargs,  # type: ignore[arg-type]
    )
    return client, sleeps


def form_of(request: httpx.Request) -> list[tuple[str, str]]:
    return parse_qsl(request.content.decode("ascii"), keep_blank_values=True)


def test_client_satisfies_the_protocol(router: respx.Router) -> None:
    client, _ = make_client(router)
    assert isinstance(client, ForumClient)


# ---------------------------------------------------------------------------- login


def test_login_posts_the_form_and_checks_userdata_on_the_real_index(router: respx.Router) -> None:
    """GET /login (built form), POST /login -> 302 /, then the REAL prosilver index shows
    ``_userdata["username"] = "Grimoire"``: logged in."""
    router.get("/login").respond(200, html=LOGIN_FORM)
    login = router.post("/login").respond(302, headers={"Location": "/"})
    router.get("/").respond(200, html=INDEX.read_text(encoding="utf-8"))
    client, _ = make_client(router, username="Grimoire")
    client.login()
    assert client.is_logged_in()
    body = form_of(login.calls.last.request)
    assert ("username", "Grimoire") in body
    assert ("password", "secret-pw") in body
    assert ("autologin", "on") in body
    assert ("login", "Connexion") in body
    assert ("redirect", "") in body


def test_login_refused_when_the_answer_still_shows_a_guest(router: respx.Router) -> None:
    """The answer is the login form again with an error (built; wording ASSUMED)."""
    router.get("/login").respond(200, html=LOGIN_FORM)
    refused = LOGIN_FORM.replace(
        "<body>", "<body><p>Vous avez saisi un nom d'utilisateur ou un mot de passe incorrect.</p>"
    )
    router.post("/login").respond(200, html=refused)
    client, _ = make_client(router, username="Grimoire")
    with pytest.raises(LoginFailed) as caught:
        client.login()
    assert "incorrect" in caught.value.reason
    assert not client.is_logged_in()


def test_login_on_the_real_index_of_another_user_is_not_a_success(router: respx.Router) -> None:
    """The REAL index shows "Grimoire": a client logging in as someone else is refused."""
    router.get("/login").respond(200, html=LOGIN_FORM)
    router.post("/login").respond(302, headers={"Location": "/"})
    router.get("/").respond(200, html=INDEX.read_text(encoding="utf-8"))
    client, _ = make_client(router, username="Hibou")
    with pytest.raises(LoginFailed):
        client.login()


# ---------------------------------------------------------------------------- reading


def test_read_topic_incremental_from_the_real_page(
    router: respx.Router, last_page_html: str
) -> None:
    """``/viewtopic?t=T&p=P`` redirects to the page holding P; only later posts come back,
    authors/ids as the expectation file of the real page says."""
    router.get("/viewtopic", params={"t": "8320", "p": "153997"}).respond(
        302, headers={"Location": "/t8320-notification-inutile#153997"}
    )
    router.get("/t8320-notification-inutile").respond(200, html=last_page_html)
    client, _ = make_client(router)
    posts = client.read_topic(8320, 153997)
    assert [p.post_id for p in posts] == [154001, 154006, 154025, 154030, 154040]
    assert all(p.author == "Invité" and p.author_id is None for p in posts)
    assert client.is_logged_in()


def test_read_topic_falls_back_to_view_newest_when_the_post_is_gone(
    router: respx.Router, last_page_html: str
) -> None:
    """A deleted post: the permalink answers 404, the client asks ``?view=newest``."""
    router.get("/viewtopic").respond(404, html="<html><body>Le message n'existe pas.</body></html>")
    newest = router.get("/t8320-a", params={"view": "newest"}).respond(200, html=last_page_html)
    client, _ = make_client(router)
    posts = client.read_topic(8320, 154020)
    assert newest.called
    assert [p.post_id for p in posts] == [154025, 154030, 154040]


def test_redirect_without_a_topic_in_its_url_takes_the_ids_from_the_page(
    router: respx.Router, last_page_html: str
) -> None:
    """Issue 16: the board redirects to a URL naming no topic (no ``t=``, no ``/t12-``); the
    page's canonical link and post anchors say where it is: topic 8320, its posts."""
    router.get("/viewtopic", params={"t": "8320", "p": "153997"}).respond(
        302, headers={"Location": "/notification-inutile#153997"}
    )
    router.get("/notification-inutile").respond(200, html=last_page_html)
    client, _ = make_client(router)
    posts = client.read_topic(8320, 153997)
    assert [p.post_id for p in posts] == [154001, 154006, 154025, 154030, 154040]


def test_page_of_another_topic_behind_a_topicless_redirect_is_topic_moved(
    router: respx.Router, last_page_html: str
) -> None:
    """Topic 8400 merged into 8320: the redirect's URL names no topic, the page's canonical
    link names 8320, so the read stops with TopicMoved instead of reading 8320 as 8400."""
    router.get("/t8400-a").respond(302, headers={"Location": "/sujet-fusionne"})
    router.get("/sujet-fusionne").respond(200, html=last_page_html)
    client, _ = make_client(router)
    with pytest.raises(TopicMoved) as caught:
        client.read_topic(8400, None)
    assert (caught.value.topic_id, caught.value.new_topic_id) == (8400, 8320)


def test_page_canonical_link_outranks_a_stale_topic_in_the_final_url(
    router: respx.Router, last_page_html: str
) -> None:
    """The final URL names topic 77 (a stale redirect), the page itself is topic 8320, the one
    asked: the page is the authority and the posts are read."""
    router.get("/t8320-a").respond(302, headers={"Location": "/t77-ancien-titre"})
    router.get("/t77-ancien-titre").respond(200, html=last_page_html)
    client, _ = make_client(router)
    posts = client.read_topic(8320, None)
    assert posts[0].post_id == 153965 and posts[-1].post_id == 154040


def test_silent_logout_is_detected_on_a_page_and_fixed_by_one_login(
    router: respx.Router, guest_topic_html: str, last_page_html: str
) -> None:
    """First read shows a guest (real page, ``session_logged_in`` 0): the client logs in
    again (built login form; the answer is the real logged-in page) and reads again."""
    pages = iter([guest_topic_html, last_page_html])
    router.get("/t8320-a").mock(side_effect=lambda request: httpx.Response(200, html=next(pages)))
    router.get("/login").respond(200, html=LOGIN_FORM)
    login = router.post("/login").respond(200, html=last_page_html)
    client, _ = make_client(router)
    posts = client.read_topic(8320, None)
    assert login.call_count == 1
    assert len(posts) == 10
    assert posts[0].author == "Domitille Tournesort" and posts[0].author_id == 1


def test_still_a_guest_after_the_re_login_raises_session_expired(
    router: respx.Router, guest_topic_html: str, last_page_html: str
) -> None:
    router.get("/t8320-a").respond(200, html=guest_topic_html)
    router.get("/login").respond(200, html=LOGIN_FORM)
    router.post("/login").respond(200, html=last_page_html)
    client, _ = make_client(router)
    with pytest.raises(SessionExpired):
        client.read_topic(8320, None)


def test_get_retries_on_503_with_retry_after_then_succeeds(
    router: respx.Router, last_page_html: str
) -> None:
    answers = iter(
        [
            httpx.Response(503, headers={"Retry-After": "7"}),
            httpx.ConnectError("refused"),
            httpx.Response(200, html=last_page_html),
        ]
    )

    def respond(request: httpx.Request) -> httpx.Response:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    router.get("/t8320-a").mock(side_effect=respond)
    client, sleeps = make_client(router)
    assert len(client.read_topic(8320, None)) == 10
    assert sleeps == [7.0, 2.0]


def test_get_gives_up_with_server_error(router: respx.Router) -> None:
    route = router.get("/t8320-a").respond(500)
    client, sleeps = make_client(router, max_retries=2)
    with pytest.raises(ServerError):
        client.read_topic(8320, None)
    assert route.call_count == 3
    assert sleeps == [1.0, 2.0]


def test_list_topics_reads_ids_and_last_post_ids(router: respx.Router) -> None:
    """Listing built per topics_list_box (prosilver: ``a.topictitle``, ``dd.posts``, last-post
    link ``/t{T}p{start}-slug#P``); with the real prosilver ``_userdata`` lines."""
    userdata = (
        '<script>_userdata["session_logged_in"] = 1;_userdata["username"] = "Gaspard Brumebois";'
        "</script>"
    )
    rows = "".join(
        f'<li class="row"><dl><dd class="dterm"><a class="topictitle" href="/t{t}-duel-{t}">'
        f'Duel {t}</a> <a href="/t{t}p15-duel-{t}">2</a><span>par <strong><a href="/u{u}">'
        f'Joueur {u}</a></strong></span></dd><dd class="posts">{r} <dfn>Réponses</dfn></dd>'
        f'<dd class="lastpost"><a href="/u9">Autre</a> <a href="/t{t}p15-duel-{t}#{p}">'
        '<img alt="Voir le dernier message" /></a></dd></dl></li>'
        for t, u, r, p in ((12, 14, 24, 371), (13, 15, 3, 380))
    )
    router.get("/f3-a").respond(
        200, html=f"<html><head>{userdata}</head><body><ul>{rows}</ul></body></html>"
    )
    client, _ = make_client(router)
    topics = client.list_topics(3)
    assert [(t.topic_id, t.last_post_id, t.replies, t.author) for t in topics] == [
        (12, 371, 24, "Joueur 14"),
        (13, 380, 3, "Joueur 15"),
    ]
    assert topics[0].title == "Duel 12"


# ---------------------------------------------------------------------------- reply


def _reply_routes(router: respx.Router) -> respx.Route:
    router.get("/post", params={"t": "8320", "mode": "reply"}).respond(
        200, html=PREVIEW.read_text(encoding="utf-8")
    )
    return router.post("/post")


def test_reply_posts_every_field_of_the_real_form(router: respx.Router) -> None:
    """The REAL full reply form: both ``auth[]`` in order, ``mode``, ``t``, ``lt``, the
    (empty) dice slot, the message and the ``post`` button; the built confirmation's
    ``/viewtopic`` link gives the new post id."""
    post = _reply_routes(router).respond(200, html=confirmation(8320, 245001))
    client, _ = make_client(router)
    assert client.reply(8320, "Déclaration de l'arbitre #k1", "#k1") == 245001
    body = form_of(post.calls.last.request)
    assert [v for k, v in body if k == "auth[]"] == [
        "13a3551b4fc5daa5472e0eb8b222b1c8",
        "f4f141cca073c834e2cbaa1663e7bd88",
    ]
    fields = dict(body)
    assert fields["mode"] == "reply"
    assert fields["t"] == "8320"
    assert fields["lt"] == "244997"
    assert fields["post"] == "Envoyer"
    assert fields["message"] == "Déclaration de l'arbitre #k1"
    assert fields["post_dice_0"] == "" and fields["nb_rolls_0"] == "1"
    assert "preview" not in fields and "draft" not in fields


def test_reply_with_dice_selects_the_dice_by_name(router: respx.Router) -> None:
    """``dice=[("4 FACES", 2)]`` -> ``post_dice_0`` = its option value in the REAL form."""
    post = _reply_routes(router).respond(200, html=confirmation(8320, 245002))
    client, _ = make_client(router)
    assert client.reply(8320, "Je lance #k2", "#k2", dice=[("4 faces", 2)]) == 245002
    fields = dict(form_of(post.calls.last.request))
    assert fields["post_dice_0"] == "3" and fields["nb_rolls_0"] == "2"


def test_reply_with_an_unknown_dice_sends_nothing(router: respx.Router) -> None:
    post = _reply_routes(router).respond(200, html=confirmation(8320, 245002))
    client, _ = make_client(router)
    with pytest.raises(FormInvalid):
        client.reply(8320, "Je lance #k3", "#k3", dice=[("Duel", 2)])
    assert not post.called


def test_flood_delay_from_the_message_is_waited_out(router: respx.Router) -> None:
    answers = iter([flood_page(12), confirmation(8320, 245003)])
    post = _reply_routes(router).mock(
        side_effect=lambda request: httpx.Response(200, html=next(answers))
    )
    client, sleeps = make_client(router, flood_interval_s=30.0)
    assert client.reply(8320, "Encore #k4", "#k4") == 245003
    assert post.call_count == 2
    assert sleeps == [13.0]  # 12 s said + 1 s margin


def test_flood_without_a_delay_waits_flood_interval(router: respx.Router) -> None:
    answers = iter([flood_page(None), confirmation(8320, 245004)])
    _reply_routes(router).mock(side_effect=lambda request: httpx.Response(200, html=next(answers)))
    client, sleeps = make_client(router, flood_interval_s=30.0)
    assert client.reply(8320, "Encore #k5", "#k5") == 245004
    assert sleeps == [30.0]


def test_flood_that_never_ends_raises_flood_limited(router: respx.Router) -> None:
    post = _reply_routes(router).respond(200, html=flood_page(20))
    client, sleeps = make_client(router, max_retries=2)
    with pytest.raises(FloodLimited) as caught:
        client.reply(8320, "Encore #k6", "#k6")
    assert post.call_count == 3
    assert caught.value.wait_s == 21.0
    assert sleeps == [21.0, 21.0, 21.0]


def test_timeout_on_post_looks_for_the_marker_before_sending_again(
    router: respx.Router, last_page_html: str
) -> None:
    """The POST times out: the client reads the topic after ``lt`` (the real page as the
    last page: no post of the bot) and only then sends again."""
    order: list[str] = []
    answers = iter([httpx.ReadTimeout("slow"), httpx.Response(200, html=confirmation(8320, 9))])

    def respond(request: httpx.Request) -> httpx.Response:
        order.append("POST")
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    _reply_routes(router).mock(side_effect=respond)
    router.get("/viewtopic").mock(
        side_effect=lambda request: (order.append("viewtopic"), httpx.Response(404, html=""))[1]
    )
    router.get("/t8320-a", params={"view": "newest"}).mock(
        side_effect=lambda request: (
            order.append("newest"),
            httpx.Response(200, html=last_page_html),
        )[1]
    )
    client, _ = make_client(router)
    assert client.reply(8320, "Déclaration #k7", "#k7") == 9
    assert order == ["POST", "viewtopic", "newest", "POST"]


def test_new_message_meanwhile_checks_the_marker_then_resubmits(
    router: respx.Router, last_page_html: str
) -> None:
    """ "A new message has been posted" (CHALO wording, built page): marker search, then a
    fresh form and a second POST."""
    answers = iter(
        [
            "<html><body><p>A new message has been posted since you started writing.</p>"
            "</body></html>",
            confirmation(8320, 245010),
        ]
    )
    post = _reply_routes(router).mock(
        side_effect=lambda request: httpx.Response(200, html=next(answers))
    )
    router.get("/viewtopic").respond(404, html="")
    newest = router.get("/t8320-a", params={"view": "newest"}).respond(200, html=last_page_html)
    client, _ = make_client(router)
    assert client.reply(8320, "Déclaration #k8", "#k8") == 245010
    assert post.call_count == 2 and newest.called


def test_reply_after_a_silent_logout_logs_in_once(router: respx.Router, topic_html: str) -> None:
    """The reply form page shows a guest (the real preview with ``session_logged_in`` 0):
    one login, then the form again."""
    preview = PREVIEW.read_text(encoding="utf-8")
    guest = preview.replace(
        '_userdata["session_logged_in"] = 1;', '_userdata["session_logged_in"] = 0;'
    )
    pages = iter([guest, preview])
    router.get("/post", params={"t": "8320", "mode": "reply"}).mock(
        side_effect=lambda request: httpx.Response(200, html=next(pages))
    )
    router.get("/login").respond(200, html=LOGIN_FORM)
    login = router.post("/login").respond(200, html=topic_html)
    router.post("/post").respond(200, html=confirmation(8320, 245020))
    client, _ = make_client(router)
    assert client.reply(8320, "Déclaration #k9", "#k9") == 245020
    assert login.call_count == 1


# ---------------------------------------------------------------------------- owl (PM)

PM_FORM = (
    # Built per REPORT.md 6.4 (posting_body switch_privmsg: username[], subject, message);
    # no real compose page was captured.
    '<html><head><script>_userdata["session_logged_in"] = 1;'
    '_userdata["username"] = "Gaspard Brumebois";</script></head><body>'
    '<form action="/privmsg" method="post" name="post">'
    '<input type="text" name="username[]" value="Clemence Salpetre" />'
    '<input type="text" name="subject" value="" /><textarea name="message"></textarea>'
    '<input type="hidden" name="folder" value="inbox" /><input type="hidden" name="mode" '
    'value="post" /><input type="submit" name="post" value="Envoyer" /></form></body></html>'
)


def test_send_pm_posts_the_compose_form(router: respx.Router) -> None:
    router.get("/privmsg", params={"mode": "post", "u": "587"}).respond(200, html=PM_FORM)
    sent = router.post("/privmsg").respond(
        200, html="<html><body><p>Votre message a été envoyé.</p></body></html>"
    )
    client, _ = make_client(router)
    client.send_pm(587, "Clemence Salpetre", "Duel", "Votre tour #o1", "#o1")
    fields = dict(form_of(sent.calls.last.request))
    assert fields == {
        "folder": "inbox",
        "mode": "post",
        "username[]": "Clemence Salpetre",
        "subject": "Duel",
        "message": "Votre tour #o1",
        "post": "Envoyer",
    }


def test_send_pm_flood_then_success(router: respx.Router) -> None:
    router.get("/privmsg", params={"mode": "post"}).respond(200, html=PM_FORM)
    answers = iter(
        [
            "<html><body><p>You cannot make another post so soon after your last; please try "
            "again in a short while.</p></body></html>",
            "<html><body><p>Your message has been sent.</p></body></html>",
        ]
    )
    sent = router.post("/privmsg").mock(
        side_effect=lambda request: httpx.Response(200, html=next(answers))
    )
    client, sleeps = make_client(router, flood_interval_s=9.0)
    client.send_pm(None, "Clemence Salpetre", "Duel", "Votre tour #o2", "#o2")
    assert sent.call_count == 2 and sleeps == [9.0]


def test_send_pm_to_an_unknown_user_is_form_invalid(router: respx.Router) -> None:
    router.get("/privmsg", params={"mode": "post"}).respond(200, html=PM_FORM)
    router.post("/privmsg").respond(
        200, html="<html><body><p>The users you requested do not exist.</p></body></html>"
    )
    client, _ = make_client(router)
    with pytest.raises(FormInvalid):
        client.send_pm(None, "Personne", "Duel", "x #o3", "#o3")


def test_windows_1252_board_gets_entities_for_characters_outside_it(router: respx.Router) -> None:
    """A pre-2008 board (``charset=windows-1252``): the message is sent in cp1252, an emoji as
    ``&#128293;`` (REPORT.md section 8)."""
    page = PM_FORM.replace("<head>", '<head><meta charset="windows-1252" />')
    router.get("/privmsg", params={"mode": "post"}).mock(
        side_effect=lambda request: httpx.Response(
            200,
            content=page.encode("cp1252"),
            headers={"Content-Type": "text/html; charset=windows-1252"},
        )
    )
    sent = router.post("/privmsg").respond(
        200, html="<html><body><p>Votre message a été envoyé.</p></body></html>"
    )
    client, _ = make_client(router)
    client.send_pm(None, "Clemence Salpetre", "Duel", "Été 🔥 #o4", "#o4")
    raw = sent.calls.last.request.content
    assert b"message=%C9t%E9+%26%23128293%3B+%23o4" in raw


def test_marker_is_matched_as_a_whole_token() -> None:
    """``…-turn1`` must not be found inside ``…-turn10`` (a later declaration)."""
    from forumbot.forums.forumactif import has_marker

    assert has_marker("forumbot·b1t1-turn1", "fin [size=70]forumbot·b1t1-turn1[/size]")
    assert not has_marker("forumbot·b1t1-turn1", "fin forumbot·b1t1-turn10")
    assert has_marker("#k1", "texte", "<p>#k1</p>")


# --- the bot's PM inbox -----------------------------------------------------------------------
# No real inbox page was captured: the pages are the default ``privmsgs_body`` and
# ``privmsgs_read_body`` templates of phpBB2 and phpBB3 (read in place from
# ``../shared/fixtures/forumactif/templates``) with their variables filled in here.
TEMPLATES = FIXTURES / "templates"
_BLOCK = re.compile(r"<!-- BEGIN (\w+) -->(.*?)<!-- END \1 -->", re.S)


def fill(template: str, values: dict[str, str], rows: list[dict[str, str]]) -> str:
    """A template with ``{VAR}`` from ``values``, the ``listrow`` block once per row
    (``{listrow.VAR}``), every other switch block dropped, other variables emptied."""

    def block(match: re.Match[str]) -> str:
        if match.group(1) != "listrow":
            return ""
        return "".join(
            re.sub(r"\{listrow\.(\w+)\}", lambda m, r=row: r.get(m.group(1), ""), match.group(2))
            for row in rows
        )

    body = _BLOCK.sub(block, template)
    return re.sub(r"\{(\w+)\}", lambda m: values.get(m.group(1), ""), body)


VERSIONS = ["phpbb2", "phpbb3", "modernbb", "awesomebb", "punbb", "invision"]
LINKED = '<a href="/u587"><span style="color:#0A0"><strong>Clemence Salpetre</strong></span></a>'


@pytest.mark.parametrize("sender", [LINKED, "Clemence Salpetre"], ids=["link", "plain"])
@pytest.mark.parametrize("version", VERSIONS)
def test_read_pm_inbox_on_the_default_templates(
    router: respx.Router, version: str, sender: str
) -> None:
    tpl = TEMPLATES / version / "default_tpl"
    rows = [
        {"U_READ": "/privmsg?folder=inbox&amp;mode=read&amp;p=42", "SUBJECT": "Le bassin ?",
         "FROM": sender, "DATE": "Lun 30 Nov 2026 - 16:24", "S_MARK_ID": "42", "L_BY": "par"},
        {"U_READ": "/privmsg?folder=inbox&amp;mode=read&amp;p=41", "SUBJECT": "L&#039;allée",
         "FROM": sender, "DATE": "Dim 29 Nov 2026 - 9:05", "S_MARK_ID": "41", "L_BY": "par"},
    ]  # fmt: skip
    listing = fill((tpl / "privmsgs_body.tpl").read_text(encoding="utf-8"), {}, rows)
    read = fill(
        (tpl / "privmsgs_read_body.tpl").read_text(encoding="utf-8"),
        {"MESSAGE_FROM": sender, "POST_SUBJECT": "Le bassin ?", "L_FROM": "De", "L_TO": "à",
         "MESSAGE_TO": '<a href="/u1">Hibou</a>',
         "MESSAGE": "Que voit-on au fond&nbsp;?<br />Merci."},
        [],
    )  # fmt: skip
    page = router.get("/privmsg", params={"mode": "read", "p": "42"}).respond(200, html=read)
    router.get("/privmsg", params={"folder": "inbox"}).respond(200, html=listing)
    client, _ = make_client(router)
    got = client.read_pm_inbox(skip={41})
    assert got[0][:3] == (42, "Clemence Salpetre", "Le bassin ?")
    assert got[0][3] == "Que voit-on au fond ?\nMerci."  # the body only, lines kept
    assert got[1] == (41, "Clemence Salpetre", "L'allée", "")  # skipped: no request
    assert page.call_count == 1
    # the read page alone names the sender too, never the recipient (the bot)
    assert pm_sender(read) == "Clemence Salpetre"


def test_an_empty_inbox_lists_nothing(router: respx.Router) -> None:
    listing = fill(
        (TEMPLATES / "phpbb3" / "default_tpl" / "privmsgs_body.tpl").read_text(encoding="utf-8"),
        {"L_NO_MESSAGES": "Vous n'avez aucun message dans ce dossier"},
        [],
    )
    router.get("/privmsg", params={"folder": "inbox"}).respond(200, html=listing)
    client, _ = make_client(router)
    assert client.read_pm_inbox() == []


# ------------------------------------------------------------- doubts logged (issue 16)


def test_post_warnings_are_logged_once_per_post(
    router: respx.Router, last_page_html: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A parser doubt (``Post.warnings``, e.g. a year-less date no weekday fits) is one WARNING
    naming the topic, the post and the doc section, not one per poll."""
    from dataclasses import replace

    router.get("/t8320-a").respond(200, html=last_page_html)
    client, _ = make_client(router)
    real = client._read_posts

    def doubtful(topic_id: int, after: int | None) -> list[object]:
        posts = real(topic_id, after)
        return [replace(posts[0], warnings=("posted_at: weekday_mismatch ('Lun 2 Jan')",)),
                *posts[1:]]  # fmt: skip

    client._read_posts = doubtful  # type: ignore[method-assign,assignment]
    with caplog.at_level(logging.WARNING, logger="forumbot.forums"):
        client.read_topic(8320, None)
        client.read_topic(8320, None)
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 1
    assert lines[0].startswith("topic 8320 post 153965: posted_at: weekday_mismatch")
    assert 'docs/forumactif.md, section "Reading topics"' in lines[0]


def test_unknown_and_unconfirmed_answers_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    from forumbot.forums import forumactif_pages
    from forumbot.forums.forumactif_pages import classify_answer, note_answer

    forumactif_pages._NOTED.clear()  # once per process: start from a fresh process's state
    with caplog.at_level(logging.WARNING, logger="forumbot.forums"):
        unknown = note_answer(classify_answer("<html><body>Bizarre</body></html>"), "/post", "")
        flood = note_answer(classify_answer(flood_page(None)), "/post")
        posted = note_answer(classify_answer(confirmation(8320, 154041)), "/post")
        note_answer(classify_answer(flood_page(None)), "/post")  # the same wording: said once
    assert (unknown.kind, flood.kind, posted.kind) == ("unknown", "flood", "posted")
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(lines) == 2
    assert "answer not understood (kind unknown" in lines[0]
    assert 'section "What stays unconfirmed"' in lines[0]
    assert "flood decided by an unconfirmed wording" in lines[1]
    assert 'section "Posting and editing"' in lines[1]
