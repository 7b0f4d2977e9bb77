"""The real ForumactifClient against the Forumactif sandbox board on 127.0.0.1.

Both display versions the sandbox serves (phpBB3/prosilver, AwesomeBB). Time is a fake clock
shared by the board and the client (the client's ``sleep`` advances it), so flood delays cost
nothing. Dice are rolled by the board (its own seeded ``random.Random``) and posted by its
"Maître du Jeu" account right after the rolling post, as on a real Forumactif board.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest

from forumbot.errors import FormInvalid
from forumbot.forums.forumactif import ForumactifClient
from forumbot.sandbox.forumactif import ForumactifSandbox

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()
DUELS = 3


class FakeClock:
    """Epoch seconds that only move when someone sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.now = START
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def aware(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)


@pytest.fixture(params=["prosilver", "awesomebb"])
def version(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def board(version: str, clock: FakeClock) -> Iterator[ForumactifSandbox]:
    sandbox = ForumactifSandbox(
        version=version, clock=clock, posts_per_page=5, flood_interval_s=20.0, seed=11
    )
    sandbox.add_user("Hibou", "hibou-pw")
    sandbox.add_user("Arbitre", "arbitre-pw")
    sandbox.add_user("Aurora Vexley", "a-pw")
    sandbox.add_user("Cassius Thorne", "c-pw")
    sandbox.start()
    yield sandbox
    sandbox.stop()


def client_for(
    board: ForumactifSandbox,
    clock: FakeClock,
    transport: httpx.BaseTransport | None = None,
    name: str = "Hibou",
    password: str = "hibou-pw",
) -> ForumactifClient:
    return ForumactifClient(
        board.base_url,
        name,
        password,
        transport=transport,
        sleep=clock.sleep,
        clock=clock,
        now=clock.aware,
        flood_interval_s=20.0,
        timeout_s=5.0,
    )


def duel_topic(board: ForumactifSandbox, clock: FakeClock, exchanges: int) -> int:
    """A duel topic: the referee's opening, then ``exchanges`` pairs of duellist posts each
    with a "Duel" roll of two d6 (the board adds the Game Master's post after each)."""
    topic = board.create_topic(DUELS, "Arbitre", "Duel : Aurora contre Cassius", "Bienvenue !")
    for turn in range(exchanges):
        clock.now += 60
        board.post_reply(
            topic, "Aurora Vexley", f"Tour {turn}\n[b]Sortilège de Feu[/b]", dice=("Duel", 2)
        )
        clock.now += 60
        board.post_reply(
            topic, "Cassius Thorne", f"Tour {turn}\n[b]Charme du Bouclier[/b]", dice=("Duel", 2)
        )
    return topic


def test_login_list_and_incremental_reading_with_dice(
    board: ForumactifSandbox, clock: FakeClock, version: str
) -> None:
    topic = duel_topic(board, clock, exchanges=4)  # 1 + 4 * 4 = 17 posts, 4 pages of 5
    client = client_for(board, clock)
    client.login()
    assert client.is_logged_in()

    listed = client.list_topics(DUELS)
    stored = board.posts(topic)
    assert [(t.topic_id, t.last_post_id, t.replies, t.author) for t in listed] == [
        (topic, stored[-1].post_id, len(stored) - 1, "Arbitre")
    ]

    posts = client.read_topic(topic, None)
    assert [p.post_id for p in posts] == [p.post_id for p in stored]
    rolled = {p.dice_for: p for p in stored if p.dice}
    for post in posts:
        if post.author == "Maître du Jeu":
            assert post.is_dice_post
            gm = next(s for s in stored if s.post_id == post.post_id)
            assert [(d.name, d.values) for d in post.dice] == [
                (name, values) for name, values in gm.dice
            ]
        elif post.post_id in rolled:  # every duellist post, also across page boundaries
            assert not post.is_dice_post
            assert [(d.name, d.values) for d in post.dice] == list(rolled[post.post_id].dice)
            assert all(len(d.values) == 2 and all(1 <= v <= 6 for v in d.values) for d in post.dice)
            assert post.bold in (("Sortilège de Feu",), ("Charme du Bouclier",))
    assert posts[0].author == "Arbitre" and posts[0].text == "Bienvenue !"

    middle = stored[7].post_id
    newer = client.read_topic(topic, middle)
    assert [p.post_id for p in newer] == [p.post_id for p in stored[8:]]
    assert client.read_topic(topic, stored[-1].post_id) == []


def test_reading_after_a_deleted_post_uses_view_newest(
    board: ForumactifSandbox, clock: FakeClock
) -> None:
    topic = duel_topic(board, clock, exchanges=3)
    stored = board.posts(topic)
    gone = stored[6].post_id
    board.delete_post(gone)
    client = client_for(board, clock)
    assert [p.post_id for p in client.read_topic(topic, gone)] == [p.post_id for p in stored[7:]]


def test_reply_and_reply_with_dice(board: ForumactifSandbox, clock: FakeClock) -> None:
    topic = duel_topic(board, clock, exchanges=1)
    client = client_for(board, clock)
    first = client.reply(topic, "Déclaration du tour 1\n[b]Touche[/b] #m-1", "#m-1")
    assert board.posts(topic)[-1].post_id == first
    assert "#m-1" in board.posts(topic)[-1].text

    clock.now += 30
    rolled = client.reply(topic, "Je lance aussi #m-2", "#m-2", dice=[("Duel", 2)])
    after = board.posts(topic)
    assert after[-2].post_id == rolled and after[-1].dice_for == rolled
    mine = next(p for p in client.read_topic(topic, first) if p.post_id == rolled)
    assert [(d.name, d.values) for d in mine.dice] == list(after[-1].dice)
    with pytest.raises(FormInvalid):
        client.reply(topic, "Pas de tels dés #m-3", "#m-3", dice=[("Destin", 1)])


def test_flood_delay_is_waited_out(board: ForumactifSandbox, clock: FakeClock) -> None:
    topic = duel_topic(board, clock, exchanges=1)
    client = client_for(board, clock)
    one = client.reply(topic, "Premier #f-1", "#f-1")
    clock.now += 5
    two = client.reply(topic, "Second #f-2", "#f-2")
    assert two > one
    assert clock.sleeps == [16.0]  # 15 s left, said by the board, + 1 s margin
    texts = [p.text for p in board.posts(topic)]
    assert sum("#f-1" in t for t in texts) == 1 and sum("#f-2" in t for t in texts) == 1


def test_private_messages(board: ForumactifSandbox, clock: FakeClock) -> None:
    client = client_for(board, clock)
    client.send_pm(None, "Aurora Vexley", "Votre duel", "C'est à vous #p-1", "#p-1")
    clock.now += 30
    client.send_pm(
        board.user_id("Cassius Thorne"), "Cassius Thorne", "Duel", "Et vous #p-2", "#p-2"
    )
    sent = board.pms()
    assert [(m.to_ids, m.subject, m.text) for m in sent] == [
        ([board.user_id("Aurora Vexley")], "Votre duel", "C'est à vous #p-1"),
        ([board.user_id("Cassius Thorne")], "Duel", "Et vous #p-2"),
    ]
    assert client.find_pm_marker("Duel", "#p-2")
    with pytest.raises(FormInvalid):
        clock.now += 30
        client.send_pm(None, "Personne", "Duel", "x #p-3", "#p-3")


def test_silent_logout_is_repaired(board: ForumactifSandbox, clock: FakeClock) -> None:
    topic = duel_topic(board, clock, exchanges=1)
    client = client_for(board, clock)
    client.login()
    board.expire_sessions()
    assert len(client.read_topic(topic, None)) == 5
    assert client.is_logged_in()
    board.expire_sessions()
    post_id = client.reply(topic, "Après la déconnexion #s-1", "#s-1")
    assert board.posts(topic)[-1].post_id == post_id


def test_create_topic_then_list(board: ForumactifSandbox, clock: FakeClock) -> None:
    client = client_for(board, clock)
    topic = client.create_topic(DUELS, "Duel : Hibou contre Aurora", "Ouverture #c-1", "#c-1")
    listed = client.list_topics(DUELS)
    assert [(t.topic_id, t.title, t.author) for t in listed] == [
        (topic, "Duel : Hibou contre Aurora", "Hibou")
    ]


def test_edit_line_is_read(board: ForumactifSandbox, clock: FakeClock) -> None:
    topic = duel_topic(board, clock, exchanges=1)
    target = board.posts(topic)[1].post_id
    clock.now += 600
    board.edit_post(target, "Tour 0 corrigé\n[b]Sortilège de Glace[/b]")
    post = next(p for p in client_for(board, clock).read_topic(topic, None) if p.post_id == target)
    assert post.edited is not None and post.edited.by == "Aurora Vexley"
    assert post.edited.count == 1
    assert post.bold == ("Sortilège de Glace",)


class _Interfering(httpx.BaseTransport):
    """A real transport that misbehaves on the first ``POST /post``: ``mode`` "timeout" sends
    it then raises ReadTimeout (the post IS saved); "meanwhile" lets a duellist post first."""

    def __init__(self, mode: str, board: ForumactifSandbox, topic: int) -> None:
        self.inner = httpx.HTTPTransport()
        self.mode = mode
        self.board = board
        self.topic = topic
        self.posts_sent = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/post":
            self.posts_sent += 1
            if self.posts_sent == 1 and self.mode == "meanwhile":
                self.board.post_reply(self.topic, "Aurora Vexley", "Je passe avant vous !")
            if self.posts_sent == 1 and self.mode == "timeout":
                response = self.inner.handle_request(request)
                response.read()
                raise httpx.ReadTimeout("no answer in time", request=request)
        return self.inner.handle_request(request)


def test_timeout_after_the_post_was_saved_does_not_post_twice(
    board: ForumactifSandbox, clock: FakeClock
) -> None:
    topic = duel_topic(board, clock, exchanges=2)
    transport = _Interfering("timeout", board, topic)
    client = client_for(board, clock, transport=transport)
    post_id = client.reply(topic, "Déclaration unique #t-1", "#t-1")
    texts = [p.text for p in board.posts(topic)]
    assert sum("#t-1" in t for t in texts) == 1
    assert board.posts(topic)[-1].post_id == post_id
    assert transport.posts_sent == 1


def test_new_message_meanwhile_is_resubmitted_once(
    board: ForumactifSandbox, clock: FakeClock
) -> None:
    topic = duel_topic(board, clock, exchanges=1)
    transport = _Interfering("meanwhile", board, topic)
    client = client_for(board, clock, transport=transport)
    post_id = client.reply(topic, "Déclaration #n-1", "#n-1")
    stored = board.posts(topic)
    assert stored[-1].post_id == post_id and stored[-2].text == "Je passe avant vous !"
    assert sum("#n-1" in p.text for p in stored) == 1
    assert transport.posts_sent == 2
