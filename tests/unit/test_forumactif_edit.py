"""ForumactifClient.edit_post against respx-mocked answers.

No real Forumactif edit page or edit answer was ever captured (REPORT.md section 9). The edit
form used here is the REAL AwesomeBB full reply form (``post_reply_preview_t8320_viewsource``,
logged in as "Gaspard Brumebois", read in place from ``../shared/fixtures``) turned into an
edit form in memory, as REPORT.md 6.3 and the AwesomeBB ``posting_body.tpl`` describe one:
``mode=editpost`` and the post id ``p`` instead of ``t``, the ``edit_reason`` field, the
subject and the textarea holding the post's current subject and text. Every answer to the
POST (confirmation, flood, refusals) is BUILT, minimal, per REPORT.md 6.3; the refusal wordings
are ASSUMED.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import pytest
import respx

from forumbot.errors import (
    AmbiguousPost,
    FloodLimited,
    FormInvalid,
    PermissionDenied,
    TopicNotFound,
)
from forumbot.forums.base import EditingForumClient, ForumClient
from forumbot.forums.forumactif import ForumactifClient

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "forumactif"
PREVIEW = FIXTURES / "rendered" / "awesomebb" / "post_reply_preview_t8320_viewsource.html"

pytestmark = pytest.mark.skipif(
    not PREVIEW.exists(), reason=f"real Forumactif page {PREVIEW} not found (shared fixtures)"
)

BASE = "https://club-de-duel.forumactif.com"
NOW = datetime(2026, 7, 20, 12, 0, tzinfo=UTC)
POST_ID = 244990
OLD = "Classement du club\n1. [b]Aurora Vexley[/b] : 1 point"
NEW = "Classement du club\n1. [b]Cassius Thorne[/b] : 2 points\n2. [b]Aurora Vexley[/b] : 1 point"


def edit_form(current: str) -> str:
    """The real AwesomeBB reply form made an edit form of post POST_ID showing ``current``."""
    html = PREVIEW.read_text(encoding="utf-8")
    hidden = '<input type="hidden" name="mode" value="reply" /><input type="hidden" name="t" '
    assert html.count(hidden + 'value="8320" />') == 1
    html = html.replace(
        hidden + 'value="8320" />',
        '<input type="hidden" name="mode" value="editpost" />'
        f'<input type="hidden" name="p" value="{POST_ID}" />',
    )
    assert html.count('name="subject" value=""') == 1  # the post's subject, as when editing
    html = html.replace('name="subject" value=""', 'name="subject" value="Tableau de classement"')
    textarea = '<textarea id="text_editor_textarea" name="message">Test de prévisualisation !'
    assert html.count(textarea) == 1
    current_html = current.replace("&", "&amp;").replace("<", "&lt;")
    return html.replace(
        textarea + "</textarea>",
        textarea.replace("Test de prévisualisation !", current_html)
        + "</textarea>"
        + '<input class="input" type="text" name="edit_reason" value="" maxlength="255" />',
    )


def message_page(text: str) -> str:
    """A built ``message_body`` answer (REPORT.md 6.3), logged in as Gaspard."""
    return (
        '<html><head><script>_userdata["session_logged_in"] = 1;'
        '_userdata["username"] = "Gaspard Brumebois";</script></head><body>'
        f'<div class="panel"><h1 class="page-title">Informations</h1><p>{text}</p></div>'
        "</body></html>"
    )


def confirmation() -> str:
    """Built: the reply's confirmation wording (MODERACTOR) and link (FAM); ASSUMED the same
    for an edit."""
    link = f"/viewtopic?t=8320&amp;p={POST_ID}#{POST_ID}"
    return message_page(
        f'Votre message a été enregistré avec succès.<br /><br />Cliquez <a href="{link}">ici'
        "</a> pour voir votre message"
    )


@pytest.fixture
def router() -> Iterator[respx.Router]:
    yield respx.Router(base_url=BASE, assert_all_called=False)


def make_client(router: respx.Router, **kwargs: object) -> tuple[ForumactifClient, list[float]]:
    sleeps: list[float] = []
    client = ForumactifClient(
        BASE,
        "Gaspard Brumebois",
        "secret-pw",
        transport=httpx.MockTransport(router.handler),
        sleep=sleeps.append,
        now=lambda: NOW,
        **kwargs,  # type: ignore[arg-type]
    )
    return client, sleeps


def form_routes(router: respx.Router, current: Callable[[], str]) -> respx.Route:
    """GET the edit form (showing ``current()``); returns the ``POST /post`` route."""
    router.get("/post", params={"p": str(POST_ID), "mode": "editpost"}).mock(
        side_effect=lambda request: httpx.Response(200, html=edit_form(current()))
    )
    return router.post("/post")


def sent_fields(route: respx.Route, call: int = -1) -> list[tuple[str, str]]:
    body = route.calls[call].request.content.decode("ascii")
    return parse_qsl(body, keep_blank_values=True)


def test_both_clients_and_the_fakes_are_forum_clients(router: respx.Router) -> None:
    from forumbot.forums.phpbb import PhpbbClient
    from tests.fakes.forum import ClubForum, FakeForum

    client, _ = make_client(router)
    phpbb = PhpbbClient(BASE, "Hibou", "pw", transport=httpx.MockTransport(router.handler))
    for candidate in (client, phpbb, FakeForum(), ClubForum()):
        assert isinstance(candidate, ForumClient)
    assert EditingForumClient is ForumClient


def test_edit_sends_every_field_of_the_form_with_the_new_message(router: respx.Router) -> None:
    """Built confirmation answer; the form is the real one made an edit form (module doc)."""
    sent = form_routes(router, lambda: OLD)
    sent.respond(200, html=confirmation())
    client, sleeps = make_client(router)
    client.edit_post(POST_ID, NEW)

    assert sent.call_count == 1 and sleeps == []
    fields = sent_fields(sent)
    assert [v for k, v in fields if k == "auth[]"] == [
        "13a3551b4fc5daa5472e0eb8b222b1c8",
        "f4f141cca073c834e2cbaa1663e7bd88",
    ]
    named = dict(fields)
    assert named["mode"] == "editpost" and named["p"] == str(POST_ID)
    assert named["lt"] == "244997"
    assert named["subject"] == "Tableau de classement"
    assert named["edit_reason"] == ""
    assert named["post"] == "Envoyer"
    assert [v for k, v in fields if k == "message"] == [NEW]
    assert "t" not in named and "preview" not in named and "draft" not in named


def test_same_text_already_shown_sends_nothing(router: respx.Router) -> None:
    """The form's textarea already holds the text (CR LF as the browser sends it)."""
    sent = form_routes(router, lambda: NEW.replace("\n", "\r\n") + "\r\n")
    client, _ = make_client(router)
    client.edit_post(POST_ID, NEW)
    assert sent.call_count == 0


def test_timeout_after_the_edit_was_saved_is_not_sent_again(router: respx.Router) -> None:
    """The POST is applied, then the answer is lost: the fresh form shows the new text."""
    shown = [OLD]

    def lost(request: httpx.Request) -> httpx.Response:
        shown[0] = dict(parse_qsl(request.content.decode("ascii")))["message"]
        raise httpx.ReadTimeout("no answer in time", request=request)

    sent = form_routes(router, lambda: shown[0])
    sent.mock(side_effect=lost)
    client, sleeps = make_client(router)
    client.edit_post(POST_ID, NEW)
    assert sent.call_count == 1 and shown == [NEW]
    assert sleeps == [2.0]


def test_timeout_before_the_edit_was_saved_sends_it_again(router: respx.Router) -> None:
    answers = iter([httpx.ConnectError("connection reset"), None])

    def respond(request: httpx.Request) -> httpx.Response:
        error = next(answers)
        if error is not None:
            raise error
        return httpx.Response(200, html=confirmation())

    sent = form_routes(router, lambda: OLD)
    sent.mock(side_effect=respond)
    client, _ = make_client(router)
    client.edit_post(POST_ID, NEW)
    assert sent.call_count == 2
    assert dict(sent_fields(sent, 1))["message"] == NEW


def test_flood_is_waited_out_then_the_edit_is_sent_with_a_fresh_form(
    router: respx.Router,
) -> None:
    """Built flood page ("Flood control", CHALO; French delay sentence ASSUMED)."""
    flood = message_page(
        "Flood control : vous ne pouvez pas poster un autre message si rapidement après le "
        "précédent. Veuillez patienter 7 seconde(s)."
    )
    answers = iter([flood, confirmation()])
    sent = form_routes(router, lambda: OLD)
    sent.mock(side_effect=lambda request: httpx.Response(200, html=next(answers)))
    client, sleeps = make_client(router, flood_margin_s=1.0)
    client.edit_post(POST_ID, NEW)
    assert sleeps == [8.0] and sent.call_count == 2


def test_flood_that_never_ends_raises_flood_limited(router: respx.Router) -> None:
    flood = message_page("Flood control : vous ne pouvez pas poster si rapidement.")
    form_routes(router, lambda: OLD).respond(200, html=flood)
    client, sleeps = make_client(router, max_retries=2, flood_interval_s=20.0)
    with pytest.raises(FloodLimited):
        client.edit_post(POST_ID, NEW)
    assert sleeps == [20.0, 20.0, 20.0]


def test_expired_form_is_fetched_again_then_ambiguous_when_it_never_works(
    router: respx.Router,
) -> None:
    """Built "form expired" answer (ASSUMED wording): no rule knows it, so it is retried with
    a fresh form; forever -> AmbiguousPost after max_retries."""
    expired = message_page("Le formulaire a expiré ou n'est pas valide. Merci de recommencer.")
    answers = iter([expired, confirmation()])
    sent = form_routes(router, lambda: OLD)
    sent.mock(side_effect=lambda request: httpx.Response(200, html=next(answers)))
    client, _ = make_client(router)
    client.edit_post(POST_ID, NEW)
    assert sent.call_count == 2

    router.routes.clear()
    stuck = form_routes(router, lambda: OLD)
    stuck.respond(200, html=expired)
    client, _ = make_client(router, max_retries=1)
    with pytest.raises(AmbiguousPost):
        client.edit_post(POST_ID, NEW)
    assert stuck.call_count == 2


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("Désolé, mais vous ne pouvez éditer que vos propres messages.", PermissionDenied),
        ("Désolé, mais seuls les administrateurs peuvent éditer ce message.", PermissionDenied),
        ("Le message demandé n'existe pas.", TopicNotFound),
        ("Votre message est trop long.", FormInvalid),
    ],
)
def test_refusals_raise_at_once(router: respx.Router, answer: str, error: type[Exception]) -> None:
    """Built refusal pages; the French wordings are ASSUMED (REPORT.md section 9)."""
    sent = form_routes(router, lambda: OLD)
    sent.respond(200, html=message_page(answer))
    client, _ = make_client(router)
    with pytest.raises(error):
        client.edit_post(POST_ID, NEW)
    assert sent.call_count == 1


def test_no_form_for_somebody_elses_post_raises_permission_denied(router: respx.Router) -> None:
    """The board answers the GET with a refusal instead of the form (built page)."""
    router.get("/post", params={"p": "7", "mode": "editpost"}).respond(
        200, html=message_page("Désolé, mais vous ne pouvez éditer que vos propres messages.")
    )
    sent = router.post("/post")
    client, _ = make_client(router)
    with pytest.raises(PermissionDenied):
        client.edit_post(7, NEW)
    assert sent.call_count == 0
