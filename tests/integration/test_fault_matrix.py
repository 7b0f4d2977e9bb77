"""Fault matrix: the whole bot (Referee + poster + the real PhpbbClient) against the sandbox
phpBB board, with one fault injected per test between the client and the board.

The board is reached in-process through :class:`SandboxTransport` (an ``httpx`` transport
calling ``SandboxBoard.handle``), which can answer a request with a fault instead: a timeout,
a 5xx, a 429 with ``Retry-After``, phpBB's board-disabled page, a page cut mid-post, a page in
another style or of another forum software, or a real captured phpBB page (flood). Other faults
are the board's own (silent logout, FORM_INVALID on an expired form token, post review when
someone posts meanwhile) or the database's (another connection holding the write lock).

Board and client share a fake clock: every wait (form age, backoff, Retry-After, flood) moves it,
so nothing really waits (the database-lock tests wait the 0.2 s busy timeout a few times).

Each test checks that the bot:
* recovers (at once or at the next cycle) - the duellists' posts of the turn are read and the
  turn is declared;
* logs ONE warning/error naming the fault and the topic (or forum);
* publishes every declaration exactly once (markers counted on the board).
"""

from __future__ import annotations

import logging
import random
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from forumbot.app import Bot
from forumbot.config import Config, WatchedForum
from forumbot.duels.referee import Referee
from forumbot.forums.phpbb import PhpbbClient
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.board import Request, cookie_dict, parse_form_body, query_dict
from forumbot.storage import Storage, open_storage

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html"
BASE = "http://board.test"
TOPIC_TITLE = "Duel n°1 : Aurora Vexley contre Cassius Thorne"
OPENING = "Les adversaires : Aurora Vexley (3e année) contre Cassius Thorne (3e année)."
USERS = [
    {"name": "Aurora Vexley", "password": "pw-a", "user_id": 58},
    {"name": "Cassius Thorne", "password": "pw-c", "user_id": 59},
    {"name": "Arbitre", "password": "pw-r", "user_id": 62},
    {"name": "Hibou", "password": "pw-h", "user_id": 63, "ignore_flood": True},
]
BOARD_DISABLE_FR = "Désolé mais ce forum est actuellement indisponible."
BOARD_DISABLED_ADMIN_MSG = "Le forum est actuellement désactivé pour maintenance."


class Clock:
    """Epoch seconds shared by the board and the client; only sleeps (and tests) move it."""

    def __init__(self) -> None:
        self.now = 1796038969.0
        self.sleeps: list[float] = []
        self.pending_jump = 0.0  # added to the next sleep: a long wait between two requests

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds + self.pending_jump
        self.pending_jump = 0.0

    def utc(self) -> datetime:
        return datetime.fromtimestamp(self.now, UTC)


Answer = Callable[[httpx.Request, "SandboxTransport"], httpx.Response]


@dataclass
class Fault:
    """Answer the next ``times`` requests matching ``method`` and ``pattern`` (a regex searched
    in ``path?query``) with ``answer`` instead of the board."""

    method: str
    pattern: str
    answer: Answer
    times: int = 1
    hits: int = 0

    def matches(self, method: str, target: str) -> bool:
        return (
            self.times > 0 and method == self.method and re.search(self.pattern, target) is not None
        )


@dataclass
class SandboxTransport(httpx.BaseTransport):
    """httpx transport to the sandbox board in-process, with injectable faults; records every
    request as ``(method, path?query)``."""

    board: SandboxBoard
    faults: list[Fault] = field(default_factory=list)
    calls: list[tuple[str, str]] = field(default_factory=list)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        target = request.url.raw_path.decode("ascii")
        self.calls.append((request.method, target))
        for fault in self.faults:
            if fault.matches(request.method, target):
                fault.times -= 1
                fault.hits += 1
                return fault.answer(request, self)
        return self.forward(request)

    def forward(self, request: httpx.Request) -> httpx.Response:
        """The board's real answer."""
        body = request.read()
        req = Request(
            method=request.method,
            path=request.url.path,
            query=query_dict(request.url.query.decode("ascii")),
            form=parse_form_body(request.headers.get("content-type", ""), body)
            if request.method == "POST"
            else [],
            cookies=cookie_dict(request.headers.get("cookie")),
            user_agent=request.headers.get("user-agent", ""),
            host=request.url.netloc.decode("ascii"),
        )
        resp = self.board.handle(req)
        return httpx.Response(resp.status, headers=resp.headers, content=resp.body.encode())


# ----------------------------------------------------------------------------- fault answers


def raising(exc: type[httpx.TransportError]) -> Answer:
    def answer(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        raise exc(f"injected {exc.__name__}", request=request)

    return answer


def status(code: int, **headers: str) -> Answer:
    def answer(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        body = f"<html><body><h1>{code}</h1></body></html>"
        return httpx.Response(code, headers=headers, content=body.encode())

    return answer


def real_page(name: str, code: int = 200) -> Answer:
    """A page captured on the real phpBB 3.3.15 board (fixtures/html/phpbb)."""

    def answer(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        content = (FIX / "phpbb" / f"{name}.html").read_bytes()
        return httpx.Response(
            code, headers={"Content-Type": "text/html; charset=UTF-8"}, content=content
        )

    return answer


def board_disabled(code: int, message: str = BOARD_DISABLE_FR, **headers: str) -> Answer:
    """phpBB 3.3's answer while the board is disabled (ACP "Désactiver le forum"): the
    ``trigger_error`` information page in the board's layout, the user still shown logged in,
    with the default BOARD_DISABLE text or the admin's own message; HTTP 200 for users (503 for
    crawlers or behind a maintenance proxy). Built from the real captured information page."""

    def answer(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        html = (FIX / "phpbb" / "viewtopic_topic_does_not_exist_fr.html").read_text("utf-8")
        assert "<p>Le sujet demandé n’existe pas.</p>" in html
        html = html.replace("<p>Le sujet demandé n’existe pas.</p>", f"<p>{message}</p>")
        return httpx.Response(
            code,
            headers={"Content-Type": "text/html; charset=UTF-8", **headers},
            content=html.encode(),
        )

    return answer


def truncated(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
    """The board's real page, cut in the middle of its last post (PHP died mid-page)."""
    real = transport.forward(request)
    html = real.text
    starts = [m.start() for m in re.finditer(r'<div id="p\d+"', html)]
    assert starts, "a topic page with posts"
    start = starts[-1]
    content = html.index('class="content"', start)
    cut = html[: content + 40]
    return httpx.Response(200, headers=real.headers, content=cut.encode())


def subsilver2(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
    """The same topic in a subsilver2-like style (phpBB 3.0 table layout): the user is logged
    in ("Déconnexion [ Hibou ]") but nothing has prosilver's markup."""
    board = transport.board
    rows = "".join(
        f'<tr class="row{i % 2 + 1}"><td class="postauthor" valign="top">'
        f'<b class="postauthor">{p.poster_id}</b></td>'
        f'<td width="100%"><div class="postbody">{p.text.replace(chr(10), "<br />")}</div>'
        "</td></tr>\n"
        for i, p in enumerate(board.posts(1))
    )
    html = (
        '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
        '<html xmlns="http://www.w3.org/1999/xhtml" dir="ltr" lang="fr" xml:lang="fr">\n<head>\n'
        '<meta http-equiv="content-type" content="text/html; charset=UTF-8" />\n'
        f"<title>Club de duel &bull; Voir le sujet - {TOPIC_TITLE}</title>\n"
        '<link rel="stylesheet" href="./styles/subsilver2/theme/stylesheet.css" '
        'type="text/css" />\n</head>\n<body class="ltr">\n<div id="wrapheader">\n'
        '<div id="menubar"><table width="100%" cellspacing="0"><tr><td class="genmed">'
        '<a href="./ucp.php?mode=logout&amp;sid=0123">Déconnexion [ Hibou ]</a> &nbsp; '
        '<a href="./ucp.php">Panneau de l’utilisateur</a></td></tr></table></div>\n</div>\n'
        '<div id="wrapcentre">\n<table class="tablebg" width="100%" cellspacing="1">\n'
        f"{rows}</table>\n</div>\n"
        '<div id="wrapfooter"><span class="copyright">Powered by '
        '<a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited'
        "</span></div>\n</body>\n</html>\n"
    )
    return httpx.Response(200, headers={"Content-Type": "text/html"}, content=html.encode())


def forumactif_page(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
    """A real Forumactif page served where a phpBB page is expected."""
    content = (FIX / "forumactif" / "custom_theme_topic_page2.html").read_bytes()
    return httpx.Response(200, headers={"Content-Type": "text/html"}, content=content)


def then_forward(action: Callable[[SandboxTransport], None]) -> Answer:
    """Do ``action`` (a change on the board), then let the board answer."""

    def answer(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        action(transport)
        return transport.forward(request)

    return answer


def forward_then(action: Callable[[SandboxTransport], None]) -> Answer:
    """Let the board answer, then do ``action`` before the answer reaches the client."""

    def answer(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        resp = transport.forward(request)
        action(transport)
        return resp

    return answer


# ----------------------------------------------------------------------------- the bot


@dataclass
class World:
    board: SandboxBoard
    clock: Clock
    transport: SandboxTransport
    bot: Bot
    topic: int
    armed_at: int = 0

    def calls(self, method: str, prefix: str) -> list[tuple[str, str]]:
        """Requests made since the fault was armed."""
        return [
            c
            for c in self.transport.calls[self.armed_at :]
            if c[0] == method and c[1].startswith(prefix)
        ]

    def cycle(self) -> list[int]:
        """One poll then one publish pass (what the scheduler does)."""
        self.bot.poll()
        return self.bot.publish()

    def turn_posts(self) -> list[int]:
        return [
            self.board.post_reply(
                self.topic, who, f"{who} salue.\nPuis lève sa baguette.\n[b]{spell}[/b]"
            )
            for who, spell in (
                ("Aurora Vexley", "Sortilège de Désarmement"),
                ("Cassius Thorne", "Sortilège de Chatouillis"),
            )
        ]

    def markers(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for post in self.board.posts(self.topic):
            if post.poster_id != 63:
                continue
            for key in re.findall(r"forumbot·([^\s·\[\]]+)·?", post.text):
                counts[key] = counts.get(key, 0) + 1
        return counts

    def published_keys(self) -> list[str]:
        return [d["idempotency_key"] for d in self.bot.storage.declarations(("published",))]

    def seen(self, post_ids: list[int]) -> bool:
        storage = self.bot.storage
        return all(storage.seen_post(self.bot.referee.board_id, p) for p in post_ids)


def make_bot(
    board: SandboxBoard, clock: Clock, transport: SandboxTransport, storage: Storage
) -> Bot:
    config = Config(
        board_url=BASE,
        platform="phpbb3",
        username="Hibou",
        review_delay_s=0,
        watch=(WatchedForum(3),),
    )
    client = PhpbbClient(
        BASE, "Hibou", "pw-h", transport=transport, sleep=clock.sleep, clock=clock,
        max_inline_wait_s=config.poll_interval_s,  # as app.make_client wires it (issue 12)
    )
    referee = Referee(
        storage,
        client,
        board_url=BASE,
        platform="phpbb3",
        review_delay_s=0,
        now=clock.utc,
        rng=random.Random(5),
        bot_username="Hibou",
    )
    return Bot(config=config, storage=storage, client=client, referee=referee, now=clock.utc)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    clock = Clock()
    # form_token_lifetime 900 s (an ACP setting; phpBB's default is 7200 s), below the
    # 3600 s session length, so a form can expire while the session lives.
    board = SandboxBoard(users=USERS, clock=clock, flood_interval_s=15, form_token_lifetime_s=900)
    topic = board.create_topic(3, "Arbitre", TOPIC_TITLE, OPENING)
    transport = SandboxTransport(board)
    storage = open_storage(tmp_path / "bot.db")
    bot = make_bot(board, clock, transport, storage)
    w = World(board, clock, transport, bot, topic)
    # cycle 1: the topic is adopted and the opening declaration published
    assert len(w.cycle()) == 1
    assert storage.duels("running")
    yield w
    bot.client.close()  # type: ignore[attr-defined]
    storage.close()


def problems(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [
        r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("forumbot")
    ]


def run_fault(
    w: World, caplog: pytest.LogCaptureFixture, faults: list[Fault], max_cycles: int = 3
) -> tuple[int, logging.LogRecord]:
    """Duellists post turn 1, the faults are armed, cycles run until the turn is published.

    Returns the number of cycles it took and the one warning/error logged meanwhile.
    """
    posts = w.turn_posts()
    w.transport.faults = faults
    w.armed_at = len(w.transport.calls)
    caplog.clear()
    caplog.set_level(logging.INFO, logger="forumbot")
    cycles = 0
    while len(w.published_keys()) < 2:
        cycles += 1
        assert cycles <= max_cycles, f"turn 1 not published after {max_cycles} cycles"
        w.cycle()
    assert all(f.hits >= 1 for f in faults), "the fault was injected"
    assert w.seen(posts), "no post lost"
    counts = w.markers()
    assert sorted(counts) == sorted(w.published_keys()), "every declaration on the board"
    assert set(counts.values()) == {1}, f"nothing published twice: {counts}"
    # a later cycle does not post anything again
    assert w.cycle() == []
    assert w.markers() == counts
    found = problems(caplog)
    assert len(found) == 1, [r.getMessage() for r in found]
    return cycles, found[0]


# ----------------------------------------------------------------------------- GET faults

RETRYABLE = {
    "connect_timeout": (raising(httpx.ConnectTimeout), r"ConnectTimeout"),
    "read_timeout": (raising(httpx.ReadTimeout), r"ReadTimeout"),
    "http_500": (status(500), r"HTTP 500"),
    "http_502": (status(502), r"HTTP 502"),
    "http_429_retry_after": (status(429, **{"Retry-After": "120"}), r"HTTP 429"),
    "maintenance_200": (board_disabled(200), r"board disabled: «Désolé mais ce forum"),
    "maintenance_503_admin_message": (
        board_disabled(503, BOARD_DISABLED_ADMIN_MSG, **{"Retry-After": "90"}),
        r"HTTP 503, board disabled: «Le forum est actuellement désactivé",
    ),
    "truncated_page": (truncated, r"truncated page"),
}


@pytest.mark.parametrize("name", sorted(RETRYABLE))
def test_transient_fault_on_a_topic_read_is_retried_within_the_cycle(
    world: World, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    answer, fault_text = RETRYABLE[name]
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/viewtopic\.php", answer)])
    assert cycles == 1
    message = record.getMessage()
    assert record.levelno == logging.WARNING
    assert re.search(fault_text, message), message
    assert f"topic {world.topic}" in message and "recovered after 1 retry" in message
    if name == "http_429_retry_after":
        assert 120.0 in world.clock.sleeps  # Retry-After honoured (on the fake clock)
    if name == "maintenance_503_admin_message":
        assert 90.0 in world.clock.sleeps  # under the poll interval: waited in place


@pytest.mark.parametrize("name", sorted(RETRYABLE))
def test_lasting_fault_on_a_topic_read_fails_the_cycle_and_the_next_one_reads_the_posts(
    world: World, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    answer, fault_text = RETRYABLE[name]
    # 1 try + 4 retries: every attempt of this cycle fails
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/viewtopic\.php", answer, 5)])
    assert cycles == 2
    message = record.getMessage()
    assert re.search(fault_text, message), message
    assert message.startswith(f"topic {world.topic}: poll failed")
    assert "will retry next cycle" in message
    expected = "BoardUnavailable" if name.startswith("maintenance") else "ServerError"
    assert f"({expected}:" in message


@pytest.mark.parametrize("name", ["read_timeout", "http_503", "maintenance_200", "truncated"])
def test_lasting_fault_on_the_forum_listing_is_one_line_naming_the_forum(
    world: World, caplog: pytest.LogCaptureFixture, name: str
) -> None:
    answer = {
        "read_timeout": raising(httpx.ReadTimeout),
        "http_503": status(503),
        "maintenance_200": board_disabled(200),
        "truncated": truncated_listing,
    }[name]
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/viewforum\.php", answer, 5)])
    assert cycles == 2
    message = record.getMessage()
    assert message.startswith("forum 3: poll failed"), message
    assert "still after 4 retries" in message


def truncated_listing(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
    """The real forum listing, cut in the middle of its topic list."""
    real = transport.forward(request)
    html = real.text
    cut = html[: html.index('class="topiclist topics"') + 30]
    return httpx.Response(200, headers=real.headers, content=cut.encode())


def test_fault_on_the_reply_form_is_retried_before_posting(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    cycles, record = run_fault(
        world, caplog, [Fault("GET", r"^/posting\.php\?mode=reply", status(503))]
    )
    assert cycles == 1
    message = record.getMessage()
    assert f"topic {world.topic}: GET posting.php?mode=reply" in message
    assert "HTTP 503" in message and "recovered" in message


# ------------------------------------------------------------------ pages not understood


def test_page_in_another_style_is_one_line_and_no_relogin_loop(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/viewtopic\.php", subsilver2)])
    assert cycles == 2
    message = record.getMessage()
    assert message.startswith(f"topic {world.topic}: poll failed (PageNotUnderstood:")
    assert "subsilver2" in message
    assert (
        world.calls("GET", "/ucp.php?mode=login") == []
    )  # the user is logged in on that page: no futile re-login


def test_forumactif_page_where_a_phpbb_page_is_expected(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/viewforum\.php", forumactif_page)])
    assert cycles == 2
    message = record.getMessage()
    assert message.startswith("forum 3: poll failed (PageNotUnderstood:")
    assert "not a phpBB page" in message


# ------------------------------------------------------------------ the board's own faults


def test_silent_logout_mid_poll_logs_in_again(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    expire = forward_then(lambda t: t.board.expire_sessions())
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/viewforum\.php", expire)])
    assert cycles == 1
    message = record.getMessage()
    assert message.startswith(f"topic {world.topic}: the board shows a guest")
    assert "logging in again" in message
    assert len(world.calls("POST", "/ucp.php?mode=login")) == 1  # one re-login


def test_expired_form_token_gets_a_fresh_form(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    def age_the_form(t: SandboxTransport) -> None:
        # The bot's wait before the POST lasts 1000 s: the reply form (900 s lifetime) expires.
        # (Time moves between requests, not inside one: each request has a total deadline.)
        world.clock.pending_jump = 1000

    stale = forward_then(age_the_form)
    cycles, record = run_fault(world, caplog, [Fault("GET", r"^/posting\.php", stale)])
    assert cycles == 1
    message = record.getMessage()
    assert message.startswith(f"topic {world.topic}: form refused (FORM_INVALID")
    assert len(world.calls("POST", "/posting.php")) == 2


def test_flood_control_waits_the_interval(world: World, caplog: pytest.LogCaptureFixture) -> None:
    # the real board's answer to a post sent too soon (captured page)
    cycles, record = run_fault(
        world, caplog, [Fault("POST", r"^/posting\.php", real_page("posting_flood_error_fr"))]
    )
    assert cycles == 1
    message = record.getMessage()
    assert message.startswith(f"topic {world.topic}: flood limit")
    assert world.bot.client.flood_interval_s in world.clock.sleeps  # type: ignore[attr-defined]


def test_sandbox_flood_control_when_the_bot_is_not_exempt(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    def just_posted(t: SandboxTransport) -> None:
        hibou = t.board._users[63]
        hibou.ignore_flood = False
        hibou.last_post_time = world.clock.now

    cycles, record = run_fault(
        world, caplog, [Fault("POST", r"^/posting\.php", then_forward(just_posted))]
    )
    assert cycles == 1
    assert record.getMessage().startswith(f"topic {world.topic}: flood limit")


def test_someone_posted_meanwhile_post_review(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    def spectator(t: SandboxTransport) -> None:
        t.board.post_reply(world.topic, "Arbitre", "Quel beau duel !")

    cycles, record = run_fault(
        world, caplog, [Fault("POST", r"^/posting\.php", then_forward(spectator))]
    )
    assert cycles == 1
    message = record.getMessage()
    assert message.startswith(f"topic {world.topic}: someone posted meanwhile (post review)")


@pytest.mark.parametrize("when", ["lost_answer", "http_502"])
def test_post_whose_answer_is_lost_is_found_by_its_marker(
    world: World, caplog: pytest.LogCaptureFixture, when: str
) -> None:
    def lost(request: httpx.Request, transport: SandboxTransport) -> httpx.Response:
        transport.forward(request)  # the board saves the post...
        if when == "http_502":
            return httpx.Response(502, content=b"<html><body>Bad Gateway</body></html>")
        raise httpx.ReadTimeout("answer lost", request=request)  # ...the answer never comes

    cycles, record = run_fault(world, caplog, [Fault("POST", r"^/posting\.php", lost)])
    assert cycles == 1
    message = record.getMessage()
    assert message.startswith(f"topic {world.topic}: POST posting.php?mode=reply")
    assert "looking for the marker" in message
    assert len(world.calls("POST", "/posting.php")) == 1  # found by its marker: never resent


# ----------------------------------------------------------------------------- the database


@pytest.fixture
def short_busy(world: World) -> Iterator[Callable[[], sqlite3.Connection]]:
    """The bot waits 0.2 s for a lock (30 s in production); ``hold()`` returns another
    connection holding the write lock until it is rolled back."""
    world.bot.storage.db.execute("PRAGMA busy_timeout = 200")
    held: list[sqlite3.Connection] = []

    def hold() -> sqlite3.Connection:
        con = sqlite3.connect(world.bot.storage.path, timeout=5, isolation_level=None)
        con.execute("BEGIN IMMEDIATE")
        held.append(con)
        return con

    yield hold
    for con in held:
        if con.in_transaction:
            con.rollback()
        con.close()


def test_database_locked_during_a_poll_is_one_line_and_the_next_cycle_reads(
    world: World, caplog: pytest.LogCaptureFixture, short_busy: Callable[[], sqlite3.Connection]
) -> None:
    posts = world.turn_posts()
    caplog.clear()
    caplog.set_level(logging.INFO, logger="forumbot")
    other = short_busy()
    world.bot.poll()
    (record,) = problems(caplog)
    assert record.getMessage().startswith("forum 3: poll stopped, database error")
    assert "database is locked" in record.getMessage()
    other.rollback()
    caplog.clear()
    world.cycle()
    assert world.seen(posts)
    assert set(world.markers().values()) == {1} and len(world.markers()) == 2
    assert problems(caplog) == []


def test_database_locked_after_the_post_never_posts_twice(
    world: World, caplog: pytest.LogCaptureFixture, short_busy: Callable[[], sqlite3.Connection]
) -> None:
    # another process takes the write lock while the reply is on its way: the bot cannot
    # record "published"; the row stays "publishing" and the next pass finds the marker
    locker = forward_then(lambda t: held.append(short_busy()))
    held: list[sqlite3.Connection] = []
    posts = world.turn_posts()
    world.bot.poll()
    world.transport.faults = [Fault("POST", r"^/posting\.php", locker)]
    caplog.clear()
    caplog.set_level(logging.INFO, logger="forumbot")
    assert world.bot.publish() == []
    (record,) = problems(caplog)
    assert record.getMessage().startswith("publish: stopped, database error (database is locked)")
    assert len(world.markers()) == 2  # the turn is on the board...
    statuses = [d["status"] for d in world.bot.storage.declarations() if d["kind"] == "turn"]
    assert statuses == ["publishing"]  # ...but not recorded yet
    held[0].rollback()
    caplog.clear()
    assert len(world.bot.publish()) == 1  # recognised by its marker
    assert problems(caplog) == []
    assert world.seen(posts)
    assert sorted(world.markers()) == sorted(world.published_keys())
    assert set(world.markers().values()) == {1}
    posted = [c for c in world.transport.calls if c[0] == "POST" and "posting.php" in c[1]]
    assert len(posted) == 2  # the opening and the turn, each once
