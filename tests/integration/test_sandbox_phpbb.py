"""The real PhpbbClient against a SandboxBoard served on 127.0.0.1 inside the test.

Board and client share one fake clock: the client's sleep advances it, so form ages and flood
intervals are honoured without real waiting.
"""

from __future__ import annotations

import html as htmllib
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import lxml.html
import pytest

from forumbot.errors import CaptchaRequired, LoginFailed, TopicNotFound
from forumbot.forums.phpbb import PhpbbClient
from forumbot.sandbox import SandboxBoard
from parsers.model import Post, TopicPage
from parsers.phpbb import parse_topic_page
from parsers.phpbb_forms import classify_notice, parse_form

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
USERS = [
    {"name": "admin", "password": "pw-admin", "user_id": 2, "ignore_flood": True},
    {"name": "Aurora Vexley", "password": "pw-a", "user_id": 58},
    {"name": "Cassius Thorne", "password": "pw-c", "user_id": 59},
    {"name": "Maelis Dunbar", "password": "pw-m", "user_id": 60},
    {"name": "Odric Fenwick", "password": "pw-o", "user_id": 61},
    {"name": "Arbitre", "password": "pw-r", "user_id": 62},
    {"name": "Hibou", "password": "pw-h", "user_id": 63, "ignore_flood": True},
]


class SharedClock:
    """Epoch seconds shared by the board and the client; only sleeps move it."""

    def __init__(self) -> None:
        self.now = 1796038969.0
        self.sleeps: list[float] = []
        self.on_sleep: Callable[[], None] | None = None

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        hook, self.on_sleep = self.on_sleep, None
        if hook is not None:
            hook()


@pytest.fixture
def clock() -> SharedClock:
    return SharedClock()


@pytest.fixture
def board(clock: SharedClock) -> Iterator[SandboxBoard]:
    sandbox = SandboxBoard(users=USERS, clock=clock, flood_interval_s=15)
    sandbox.start()
    yield sandbox
    sandbox.stop()


def client_for(board: SandboxBoard, clock: SharedClock, name: str, password: str) -> PhpbbClient:
    return PhpbbClient(board.base_url, name, password, sleep=clock.sleep, clock=clock)


def duel(board: SandboxBoard, replies: int) -> int:
    topic = board.create_topic(3, "Arbitre", "Duel n°7 : Aurora contre Cassius", "Ouverture")
    for i in range(replies):
        who = "Aurora Vexley" if i % 2 == 0 else "Cassius Thorne"
        board.post_reply(topic, who, f"Tour {i}\n[b]Lance de givre[/b]")
    return topic


def test_login_list_and_incremental_read(board: SandboxBoard, clock: SharedClock) -> None:
    topic = duel(board, 24)  # 25 posts: 3 pages of 10
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.login()
    assert hibou.is_logged_in()
    (summary,) = hibou.list_topics(3)
    ids = [p.post_id for p in board.posts(topic)]
    assert (summary.topic_id, summary.last_post_id, summary.replies) == (topic, ids[-1], 24)
    assert summary.author == "Arbitre"
    everything = hibou.read_topic(topic, None)
    assert [p.post_id for p in everything] == ids
    assert everything[1].bold == ("Lance de givre",)
    assert [p.post_id for p in hibou.read_topic(topic, ids[13])] == ids[14:]
    assert hibou.read_topic(topic, ids[-1]) == []


def test_wrong_password_and_captcha(board: SandboxBoard, clock: SharedClock) -> None:
    bad = client_for(board, clock, "Maelis Dunbar", "nope")
    for _ in range(3):
        with pytest.raises(LoginFailed, match="mot de passe incorrect"):
            bad.login()
    with pytest.raises(CaptchaRequired):
        bad.login()
    with pytest.raises(CaptchaRequired):  # even the right password needs the CAPTCHA now
        client_for(board, clock, "Maelis Dunbar", "pw-m").login()


def test_reply_returns_the_new_post_and_marker_finds_it(
    board: SandboxBoard, clock: SharedClock
) -> None:
    topic = duel(board, 3)
    hibou = client_for(board, clock, "Hibou", "pw-h")
    post_id = hibou.reply(topic, "Tableau\n[size=70]forumbot·k1[/size]", "forumbot·k1")
    last = board.posts(topic)[-1]
    assert (last.post_id, board.user_id("Hibou")) == (post_id, last.poster_id)
    assert hibou.find_marker(topic, "forumbot·k1", None) == post_id
    assert hibou.find_marker(topic, "forumbot·k1", post_id) is None
    new_topic = hibou.create_topic(3, "Compte rendu", "Résumé forumbot·k2", "forumbot·k2")
    assert board.posts(new_topic)[0].text == "Résumé forumbot·k2"


def test_board_accepts_multipart_bodies_like_a_browser(
    board: SandboxBoard, clock: SharedClock
) -> None:
    topic = duel(board, 1)
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.login()
    url = f"{board.base_url}/posting.php?mode=reply&t={topic}"
    form = parse_form(hibou._http.get(url).text, "postform")
    assert form is not None
    clock.now += 2
    body = dict(form.payload({"message": "envoyé en multipart é"}, "post"))
    resp = hibou._http.post(url, data=body, files={"fileupload": ("", b"")})
    assert resp.status_code == 302
    assert board.posts(topic)[-1].text == "envoyé en multipart é"


def test_flood_limit_is_waited_out(board: SandboxBoard, clock: SharedClock) -> None:
    topic = duel(board, 1)
    aurora = client_for(board, clock, "Aurora Vexley", "pw-a")
    aurora.reply(topic, "premier m1", "m1")
    before = len(board.posts(topic))
    aurora.reply(topic, "second m2", "m2")
    assert len(board.posts(topic)) == before + 1
    assert 15.0 in clock.sleeps
    # PMs share the flood clock with posts
    clock.sleeps.clear()
    aurora.send_pm(59, "Cassius Thorne", "Bravo", "Salut m3", "m3")
    assert 15.0 in clock.sleeps
    assert [m.subject for m in board.pms()] == ["Bravo"]


def test_post_review_then_resubmit_posts_once(board: SandboxBoard, clock: SharedClock) -> None:
    topic = duel(board, 2)
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.login()
    # a duellist posts while the bot waits the form age of its reply form
    clock.on_sleep = lambda: board.post_reply(topic, "Cassius Thorne", "Je contre !")
    post_id = hibou.reply(topic, "Tableau m-review", "m-review")
    mine = [p for p in board.posts(topic) if "m-review" in p.text]
    assert [p.post_id for p in mine] == [post_id]
    assert board.posts(topic)[-2].text == "Je contre !"


def test_board_refuses_young_forms_and_reused_tokens(
    board: SandboxBoard, clock: SharedClock
) -> None:
    topic = duel(board, 1)
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.login()
    http = hibou._http
    url = f"{board.base_url}/posting.php?mode=reply&t={topic}"
    form = parse_form(http.get(url).text, "postform")
    assert form is not None
    body = form.payload({"message": "trop vite"}, "post")
    young = http.post(url, data=dict(body))
    assert young.status_code == 200 and classify_notice(young.text).kind == "form_invalid"
    clock.now += 2
    ok = http.post(url, data=dict(body))
    assert ok.status_code == 302 and "viewtopic.php?p=" in ok.headers["location"]
    again = http.post(url, data=dict(body))  # the posting lock
    assert classify_notice(again.text).kind == "form_invalid"
    assert sum("trop vite" in p.text for p in board.posts(topic)) == 1


def test_pm_short_way_and_add_to_step(board: SandboxBoard, clock: SharedClock) -> None:
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.send_pm(62, "Arbitre", "Tableau final", "Voici [b]le tableau[/b] p1", "p1")
    hibou.send_pm(None, "Odric Fenwick", "Rappel", "À toi de jouer p2", "p2")
    first, second = board.pms()
    assert (first.to_ids, first.subject) == ([62], "Tableau final")
    assert (second.to_ids, second.text) == ([61], "À toi de jouer p2")
    assert hibou.find_pm_marker("Rappel", "p2")  # outbox: not read yet
    arbitre = client_for(board, clock, "Arbitre", "pw-r")
    arbitre.login()
    inbox = arbitre._http.get(f"{board.base_url}/ucp.php?i=pm&folder=inbox").text
    assert "Tableau final" in inbox


def test_silent_session_expiry_relogs_in(board: SandboxBoard, clock: SharedClock) -> None:
    topic = duel(board, 2)
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.login()
    assert len(hibou.read_topic(topic, None)) == 3
    board.expire_sessions()
    assert len(hibou.read_topic(topic, None)) == 3
    assert hibou.is_logged_in()
    board.expire_sessions()
    post_id = hibou.reply(topic, "après expiration m9", "m9")
    assert board.posts(topic)[-1].post_id == post_id


def test_state_survives_a_restart(tmp_path: Path, clock: SharedClock) -> None:
    state = tmp_path / "board.json"
    first = SandboxBoard(users=USERS, clock=clock, state_path=state)
    topic = duel(first, 2)
    first.start()
    hibou = client_for(first, clock, "Hibou", "pw-h")
    post_id = hibou.reply(topic, "avant redémarrage m10", "m10")
    first.stop()
    second = SandboxBoard(clock=clock, state_path=state)
    second.start()
    try:
        assert [p.post_id for p in second.posts(topic)][-1] == post_id
        again = PhpbbClient(second.base_url, "Hibou", "pw-h", sleep=clock.sleep, clock=clock)
        assert again.find_marker(topic, "m10", None) == post_id
    finally:
        second.stop()


def test_missing_topic_is_a_404(board: SandboxBoard, clock: SharedClock) -> None:
    hibou = client_for(board, clock, "Hibou", "pw-h")
    with pytest.raises(TopicNotFound):
        hibou.read_topic(999, None)
    resp = httpx.get(f"{board.base_url}/viewtopic.php?t=999")
    assert resp.status_code == 404 and classify_notice(resp.text).kind == "not_found"


# ---------------------------------------------------------------- same facts as the real board


def _bbcode_of(node: lxml.html.HtmlElement) -> str:
    """BBCode that phpBB would have rendered as ``node``'s children (test helper)."""
    out = [htmllib.escape(node.text or "").replace("\n", "")]
    for child in node:
        tag = child.tag
        if tag == "br":
            out.append("\n")
        elif tag == "strong":
            out.append(f"[b]{_bbcode_of(child)}[/b]")
        elif tag == "img":
            out.append(child.get("alt") or "")
        elif tag == "blockquote":
            inner = child.find("div")
            cite = inner.find("cite")
            name = cite.find("a").text_content()
            post_id = cite.xpath(".//a/@data-post-id")[0]
            body = [htmllib.escape(cite.tail or "").replace("\n", "")]
            for grandchild in inner:
                if grandchild is cite:
                    continue
                wrapper = lxml.html.fromstring("<div></div>")
                wrapper.append(grandchild)
                body.append(_bbcode_of(wrapper))
            out.append(f'[quote="{name}" post_id={post_id}]{"".join(body)}[/quote]')
        else:
            out.append(_bbcode_of(child))
        out.append(htmllib.escape(child.tail or "").replace("\n", ""))
    return htmllib.unescape("".join(out))


def _real_sources() -> list[tuple[int, str, str]]:
    """(post id, author, BBCode source) of topic t=2 rebuilt from the real pages 1-3."""
    out = []
    for n in (1, 2, 3):
        root = lxml.html.fromstring((FIX / f"viewtopic_t2_page{n}_fr.html").read_bytes())
        for div in root.xpath("//div[starts-with(@id, 'p')][contains(@class, 'post')]"):
            author = div.xpath(".//p[contains(@class,'author')]//a[contains(@class,'username')]")
            content = div.xpath(".//div[@class='content']")[0]
            out.append((int(div.get("id")[1:]), author[0].text_content(), _bbcode_of(content)))
    return out


def _facts(page: TopicPage) -> tuple[object, ...]:
    def post(p: Post) -> tuple[object, ...]:
        edited = (p.edited.by, p.edited.count) if p.edited else None
        return (p.post_id, p.author, p.author_id, p.text, p.bold, p.quotes, p.line_count, edited)

    return (
        page.platform,
        page.topic_id,
        page.forum_id,
        page.title,
        page.page,
        page.pages,
        page.logged_in_as,
        page.reply_form is not None,
        tuple(post(p) for p in page.posts),
    )


def test_sandbox_topic_pages_parse_to_the_same_facts_as_the_real_pages(
    board: SandboxBoard, clock: SharedClock
) -> None:
    sources = _real_sources()
    assert [pid for pid, _, _ in sources] == list(range(2, 28))
    board.create_topic(2, "admin", "Welcome to phpBB3", "Bienvenue")  # t=1, p=1 as on the board
    opening = sources[0]
    topic = board.create_topic(
        3, opening[1], "Duel n°1 : Aurora Vexley contre Cassius Thorne", opening[2]
    )
    assert topic == 2
    for post_id, author, text in sources[1:]:
        clock.now += 3
        assert board.post_reply(topic, author, text) == post_id
    board.edit_post(3, dict((p, t) for p, _, t in sources)[3], by="Aurora Vexley")
    board.edit_post(13, dict((p, t) for p, _, t in sources)[13], by="Cassius Thorne")
    hibou = client_for(board, clock, "Hibou", "pw-h")
    hibou.login()
    for n, start in ((1, 0), (2, 10), (3, 20)):
        real = parse_topic_page((FIX / f"viewtopic_t2_page{n}_fr.html").read_bytes())
        html = hibou._http.get(f"{board.base_url}/viewtopic.php?t=2&start={start}").text
        mine = parse_topic_page(html)
        assert _facts(mine) == _facts(real), f"page {n}"
    by_post = parse_topic_page(hibou._http.get(f"{board.base_url}/viewtopic.php?p=14").text)
    assert (by_post.page, by_post.posts[0].post_id) == (2, 12)


def test_an_owl_sent_before_many_others_of_its_subject_is_found_by_a_deep_search(
    board: SandboxBoard, clock: SharedClock
) -> None:
    """Issue 23, season soak seed 5: 12 owls sent between a backup and its restore, looked
    for one by one among the 10 newest, were all sent again. The search before a first send
    (:data:`forumbot.publish.owls.RESTORE_PM_SEARCH`) reads far enough, and each PM's text is
    read once per client."""
    from forumbot.publish.owls import RESTORE_PM_SEARCH

    hibou = client_for(board, clock, "Hibou", "pw-h")
    for n in range(14):
        clock.now += 30  # the board's PM flood interval
        hibou.send_pm(61, "Odric Fenwick", "Ton type de magie", f"détail m{n:02d}", f"m{n:02d}")
    assert not hibou.find_pm_marker("Ton type de magie", "m00")  # beyond the 10 newest
    assert hibou.find_pm_marker("Ton type de magie", "m00", limit=RESTORE_PM_SEARCH)
    reads = len(hibou.__dict__["_pm_texts"])
    assert hibou.find_pm_marker("Ton type de magie", "m00", limit=RESTORE_PM_SEARCH)
    assert len(hibou.__dict__["_pm_texts"]) == reads  # no PM page read twice
