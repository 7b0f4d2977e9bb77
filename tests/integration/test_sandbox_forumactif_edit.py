"""Editing posts with the real ForumactifClient on the Forumactif sandbox (both display
versions it serves), read back with the real parser, and the leaderboard post kept up to date
through the registration desk (``forumbot.club.posts.edit_club_post``) on a Forumactif board.

Time is a fake clock shared by the board and the client; the board's flood delay is 20 s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from types import SimpleNamespace

import httpx
import pytest

from forumbot.club.leaderboard import leaderboard_key, record_rewards
from forumbot.club.posts import club_post
from forumbot.club.registrations import RegistrationDesk
from forumbot.errors import PermissionDenied
from forumbot.forums.forumactif import ForumactifClient
from forumbot.sandbox.forumactif import ForumactifSandbox
from forumbot.storage import Storage, open_storage
from parsers.model import Post

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC).timestamp()
CLUB = 2


class FakeClock:
    """Epoch seconds that only move when someone sleeps (or the test says so)."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
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
    sandbox = ForumactifSandbox(version=version, clock=clock, flood_interval_s=20.0, seed=3)
    sandbox.add_user("Hibou", "hibou-pw")
    sandbox.add_user("Arbitre", "arbitre-pw", level=1)  # an admin
    sandbox.add_user("Aurora Vexley", "a-pw")
    sandbox.start()
    yield sandbox
    sandbox.stop()


def client_for(
    board: ForumactifSandbox,
    clock: FakeClock,
    name: str = "Hibou",
    password: str = "hibou-pw",
    transport: httpx.BaseTransport | None = None,
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


def read_post(client: ForumactifClient, topic: int, post_id: int) -> Post:
    return next(p for p in client.read_topic(topic, None) if p.post_id == post_id)


class _CountingPosts(httpx.BaseTransport):
    """A real transport counting ``POST /post``; with ``lose_first`` the first one is sent
    (and applied) but its answer is lost (ReadTimeout)."""

    def __init__(self, lose_first: bool = False) -> None:
        self.inner = httpx.HTTPTransport()
        self.lose_first = lose_first
        self.posts_sent = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and request.url.path == "/post":
            self.posts_sent += 1
            if self.posts_sent == 1 and self.lose_first:
                self.inner.handle_request(request).read()
                raise httpx.ReadTimeout("no answer in time", request=request)
        return self.inner.handle_request(request)


def test_edit_own_post_and_read_it_back(board: ForumactifSandbox, clock: FakeClock) -> None:
    topic = board.create_topic(CLUB, "Arbitre", "Tableau de classement", "Le classement.")
    counting = _CountingPosts()
    client = client_for(board, clock, transport=counting)
    post_id = client.reply(topic, "Classement v1\n[b]Personne[/b] #lb", "#lb")

    clock.now += 60
    client.edit_post(post_id, "Classement v2\n1. [b]Aurora Vexley[/b] : 1 point #lb")
    mine = read_post(client, topic, post_id)
    assert mine.text == "Classement v2\n1. Aurora Vexley : 1 point #lb"
    assert mine.bold == ("Aurora Vexley",)
    assert mine.edited is None  # the topic's last post: Forumactif records no edit line
    assert counting.posts_sent == 2  # the reply, the edit

    clock.now += 60
    board.post_reply(topic, "Aurora Vexley", "Merci pour le classement !")
    clock.now += 600
    text = "Classement v3\n1. [b]Cassius Thorne[/b] : 2 points #lb"
    client.edit_post(post_id, text)
    mine = read_post(client, topic, post_id)
    assert mine.bold == ("Cassius Thorne",)
    assert mine.edited is not None and mine.edited.by == "Hibou" and mine.edited.count == 1
    assert mine.edited.at == clock.aware()  # a whole minute: the board shows no seconds
    assert board.posts(topic)[1].text == text

    client.edit_post(post_id, text)  # the same text again: nothing sent, no second edit line
    assert counting.posts_sent == 3
    assert read_post(client, topic, post_id).edited == mine.edited


def test_only_the_author_or_an_admin_may_edit(board: ForumactifSandbox, clock: FakeClock) -> None:
    topic = board.create_topic(CLUB, "Arbitre", "Salle commune", "Bienvenue.")
    clock.now += 60
    hers = board.post_reply(topic, "Aurora Vexley", "Mon texte\n[b]Expelliarmus[/b]")
    clock.now += 60
    board.post_reply(topic, "Hibou", "Une réponse après elle")

    with pytest.raises(PermissionDenied):
        client_for(board, clock).edit_post(hers, "Texte de Hibou")
    assert board.posts(topic)[1].text == "Mon texte\n[b]Expelliarmus[/b]"

    clock.now += 60
    admin = client_for(board, clock, "Arbitre", "arbitre-pw")
    admin.edit_post(hers, "Texte corrigé par l'arbitre\n[b]Stupefix[/b]")
    post = read_post(admin, topic, hers)
    assert post.author == "Aurora Vexley" and post.bold == ("Stupefix",)
    assert post.edited is not None and post.edited.by == "Arbitre" and post.edited.count == 1


def test_lost_answer_after_the_edit_is_not_sent_again(
    board: ForumactifSandbox, clock: FakeClock
) -> None:
    topic = board.create_topic(CLUB, "Arbitre", "Tableau de classement", "Le classement.")
    post_id = client_for(board, clock).reply(topic, "Classement v1 #lt", "#lt")
    board.post_reply(topic, "Aurora Vexley", "Après le classement")
    lossy = _CountingPosts(lose_first=True)
    client_for(board, clock, transport=lossy).edit_post(post_id, "Classement v2 #lt")
    assert lossy.posts_sent == 1
    stored = board.posts(topic)[1]
    assert stored.text == "Classement v2 #lt" and stored.edit_count == 1


def _finished_duel(
    storage: Storage, board_id: int, winner: str, topic_id: int
) -> dict[str, object]:
    state = {
        "winner": winner,
        "draw": False,
        "duellists": [{"name": "Aurora Vexley"}, {"name": "Cassius Thorne"}],
    }
    duel_id = (
        storage.db["duels"]
        .insert(
            {
                "board_id": board_id,
                "topic_id": topic_id,
                "ruleset": "fatigue",
                "status": "finished",
                "state_json": json.dumps(state),
                "stakes": "",
            }
        )
        .last_pk
    )
    return storage.duel(int(duel_id))


def test_leaderboard_post_is_edited_on_forumactif(
    board: ForumactifSandbox, clock: FakeClock
) -> None:
    """The registration desk's leaderboard step with the real ForumactifClient: the post is
    published once, then edited in place (no longer "unsupported")."""
    ranking = board.create_topic(CLUB, "Arbitre", "Tableau de classement", "Le classement.")
    client = client_for(board, clock)
    storage = open_storage(":memory:")
    board_id = storage.board_id(board.base_url, "forumactif", clock.aware())
    desk = RegistrationDesk(
        storage,
        client,
        SimpleNamespace(board_id=board_id),
        [],
        now=clock.aware,
        bot_username="Hibou",
        leaderboard_topic_id=ranking,
    )
    duel = _finished_duel(storage, board_id, "Aurora Vexley", 9)
    record_rewards(storage, board_id, duel, clock.aware())
    assert desk.refresh_leaderboard() == "drafted"  # and published at once
    row = club_post(storage, leaderboard_key(board_id))
    assert row is not None and row["status"] == "published"
    post_id = int(row["post_id"])
    first = read_post(client, ranking, post_id)
    assert first.author == "Hibou" and "Aurora Vexley" in first.bold
    assert desk.refresh_leaderboard() == "unchanged"

    clock.now += 3600
    board.post_reply(ranking, "Aurora Vexley", "Bravo à tous !")
    for duel_topic in (10, 11):
        duel = _finished_duel(storage, board_id, "Cassius Thorne", duel_topic)
        record_rewards(storage, board_id, duel, clock.aware())
    assert desk.refresh_leaderboard() == "edited"
    edited = read_post(client, ranking, post_id)
    names = [b for b in edited.bold if b in ("Cassius Thorne", "Aurora Vexley")]
    assert names == ["Cassius Thorne", "Aurora Vexley"]  # 2 points, then 1
    assert edited.edited is not None and edited.edited.by == "Hibou"
    assert f"forumbot·{leaderboard_key(board_id)}" in edited.text
    hibou = board.user_id("Hibou")
    assert [p.post_id for p in board.posts(ranking) if p.poster_id == hibou] == [post_id]
    assert desk.refresh_leaderboard() == "unchanged"
