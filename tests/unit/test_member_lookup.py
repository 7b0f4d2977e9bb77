"""Member look-ups of the forum clients (issue 15: "a free-text phrase names a partner only when
X is a member of the board: the forum client looks the account up, with a cache").

phpBB: the bot's logged-in header is the real captured page (``index_logged_in_fr``); the
profile block and phpBB's ``NO_USER`` message inside it are built as prosilver renders them
(``memberlist_view.html``, ``message_body.html``): no real profile page was captured.
Forumactif: member lists built per REPORT.md (profile links ``/u<id>``); not captures.
"""

from __future__ import annotations

import httpx
import pytest

from forumbot.forums.base import MemberDirectory
from forumbot.forums.forumactif import ForumactifClient
from forumbot.forums.members import MemberCache
from parsers.members import forumactif_member_listed, phpbb_profile_exists
from tests.unit.test_phpbb_client import FIX, FakeTime, Script, make_client

PROFILE = (
    '<h2 class="memberlist-title">Affichage du profil : Odric Fenwick</h2>'
    '<form method="post" id="viewprofile"><div class="panel bg1"><div class="inner">'
    '<dl class="left-box details profile-details"><dt>Nom d’utilisateur :</dt>'
    '<dd><span class="username">Odric Fenwick</span></dd></dl></div></div></form>'
)
NO_USER = (
    '<div class="panel" id="message"><div class="inner"><h2 class="message-title">Information'
    "</h2><p>L’utilisateur demandé n’existe pas.</p></div></div>"
)


def page(body: str) -> str:
    html = (FIX / "index_logged_in_fr.html").read_text(encoding="utf-8")
    marker = '<div id="page-body" class="page-body" role="main">'
    assert marker in html
    start = html.index(marker) + len(marker)
    end = html.index('<div id="page-footer"')
    return html[:start] + body + "</div>" + html[end:]


def test_phpbb_profile_page_reads_member_or_not() -> None:
    assert phpbb_profile_exists(page(PROFILE), "odric fenwick") is True
    assert phpbb_profile_exists(page(NO_USER), "un") is False
    assert phpbb_profile_exists(page("<p>Bienvenue</p>"), "Odric Fenwick") is None


def test_phpbb_client_looks_members_up_once_each() -> None:
    time = FakeTime()
    script = Script(time)
    script.on(
        "GET",
        "memberlist.php?mode=viewprofile&un=Odric+Fenwick",
        httpx.Response(200, text=page(PROFILE)),
    )
    script.on("GET", "memberlist.php?mode=viewprofile&un=un", httpx.Response(
        404, text=page(NO_USER)))  # fmt: skip
    client = make_client(script, time, user="Aurora Vexley")
    assert isinstance(client, MemberDirectory)
    assert client.member_exists("Odric Fenwick") is True
    assert client.member_exists("un") is False
    assert client.member_exists("ODRIC  FENWICK") is True  # cached: folded name
    assert client.member_exists("un") is False
    assert client.find_member("Odric Fenwick") == "Odric Fenwick"
    assert [c.target for c in script.calls] == [
        "memberlist.php?mode=viewprofile&un=Odric+Fenwick",
        "memberlist.php?mode=viewprofile&un=un",
    ]


def test_phpbb_server_error_is_dont_know_and_not_cached() -> None:
    time = FakeTime()
    script = Script(time)
    script.on("GET", "memberlist.php", httpx.Response(503, text="down"),
              httpx.Response(200, text=page(PROFILE)))  # fmt: skip
    client = make_client(script, time, user="Aurora Vexley")
    client.max_retries = 0
    assert client.member_exists("Odric Fenwick") is None
    assert client.member_exists("Odric Fenwick") is True


def test_cache_forgets_after_its_ttl() -> None:
    now = [0.0]
    cache = MemberCache(lambda: now[0], ttl_s=10)
    cache.put("Odric", False)
    cache.put("Aurora", None)
    assert cache.get("odric") is False and cache.get("Aurora") is None
    now[0] = 11
    assert cache.get("Odric") is None


FA_LIST = (
    '<html><head><script>_userdata["session_logged_in"] = 1;'
    '_userdata["username"] = "Hibou";</script></head><body>'
    '<form action="/memberlist" method="get"><input name="username"/></form>'
    '<table><tr><td><a href="/u12">Odric Fenwick</a></td></tr>'
    '<tr><td><a href="/u13-odric">Odrick</a></td></tr></table></body></html>'
)
FA_EMPTY = FA_LIST.split("<table>")[0] + "<p>Aucun membre trouvé.</p></body></html>"


def test_forumactif_member_list_reading() -> None:
    assert forumactif_member_listed(FA_LIST, "odric fenwick") is True
    assert forumactif_member_listed(FA_LIST, "Odric") is False
    assert forumactif_member_listed(FA_EMPTY, "Personne Inconnue") is False
    assert forumactif_member_listed("<html><body>Erreur</body></html>", "X") is None


@pytest.mark.parametrize(("name", "html", "expected"), [
    ("Odric Fenwick", FA_LIST, True), ("Zed", FA_EMPTY, False)])  # fmt: skip
def test_forumactif_client_member_exists(name: str, html: str, expected: bool) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(200, text=html)

    client = ForumactifClient(
        "https://club.forumactif.com", "Hibou", "pw", transport=httpx.MockTransport(handler),
        sleep=lambda s: None,
    )  # fmt: skip
    assert client.member_exists(name) is expected
    assert client.member_exists(name) is expected
    assert len(seen) == 1 and "/memberlist?" in seen[0] and "username=" in seen[0]


def test_the_boards_spelling_is_read_from_the_page() -> None:
    """Issue 24 F11: the review page stores the member's name as the board spells it."""
    from parsers.members import forumactif_member_name, phpbb_profile_name

    coloured = PROFILE.replace(
        'class="username"', 'style="color: #AA0000;" class="username-coloured"'
    )
    assert phpbb_profile_name(page(PROFILE), "odric  FENWICK") == "Odric Fenwick"
    assert phpbb_profile_name(page(coloured), "odric fenwick") == "Odric Fenwick"
    assert phpbb_profile_name(page(NO_USER), "un") is False
    assert forumactif_member_name(FA_LIST, "ODRIC fenwick") == "Odric Fenwick"
    assert forumactif_member_name(FA_EMPTY, "Zed") is False
    assert forumactif_member_name("<html><body>Erreur</body></html>", "X") is None
