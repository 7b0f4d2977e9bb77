"""The soak's world: the sandbox board on the shared fake clock, the real bot, and what can
happen to them (restart, a crash in the middle of a write, the nightly backup and a restore,
the board answering 503).

The bot runs in-process (one seed stays fast and deterministic): it is the real
:func:`forumbot.app.bootstrap` wiring (the real phpBB client, referee, desk, poster, notify),
its client's waits move the :class:`forumbot.demo.season.DemoClock`. Its HTTP requests go to
the board through :class:`BoardTransport` (``board.handle`` in-process: the same requests,
cookies, redirects and pages as over a socket, without a server thread); ``http=True`` serves
the board on 127.0.0.1 instead.
A ``kill -9`` is simulated by :class:`CrashPlan`: a write call of the client (reply, new
topic, PM, edit) raises :class:`Killed` (a ``BaseException``: nothing in the bot catches it)
either just before or just after the board took it; the bot is then abandoned without a
commit (its SQLite connection closed as a killed process leaves it) and a new one is
bootstrapped on the same database.
"""

from __future__ import annotations

import heapq
import itertools
import os
import random
import re
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from forumbot.app import Bot, bootstrap
from forumbot.config import Config, parse_config
from forumbot.demo.season import DemoClock
from forumbot.ops.backup import backup, list_backups, restore
from forumbot.sandbox import SandboxBoard
from forumbot.sandbox.board_model import (
    Request,
    Response,
    cookie_dict,
    parse_form_body,
    query_dict,
)

BOT, BOT_PASSWORD = "Hibou", "hibou-soak-password"
REFEREE, ADMIN = "Arbitre", "Maitre"  # review-page accounts (and their board accounts)
PASSWORD = "duellist-soak"
DUEL_FORUM, REGISTRATION_FORUM, CLUB_FORUM = 3, 4, 2
FLOOD_INTERVAL_S = 15.0
DAY_S = 86400.0
APPRISE_ENV = "FORUMBOT_SOAK_APPRISE"
_SEQ = itertools.count()  # ties of the event queue, in scheduling order
WRITES = ("reply", "create_topic", "send_pm", "edit_post")


class Killed(BaseException):  # noqa: N818 - a process death, not an error
    """The bot process dies here (simulated ``kill -9``)."""


@dataclass
class CrashPlan:
    """When the next simulated kill happens: after ``countdown`` more client writes,
    ``when`` = ``"before"`` (the request never left) or ``"after"`` (the board took it, the bot
    did not record it). ``countdown`` None: not armed. ``fired`` counts the kills."""

    countdown: int | None = None
    when: str = "after"
    fired: int = 0

    def arm(self, countdown: int, when: str) -> None:
        """Kill at the ``countdown``-th write from now (1 = the next one)."""
        self.countdown, self.when = max(1, countdown), when

    def wrap(self, client: Any) -> None:
        """Wrap the write methods of ``client`` (instance attributes)."""
        for name in WRITES:
            real = getattr(client, name, None)
            if real is not None:
                setattr(client, name, self._wrapped(real, name))

    def _wrapped(self, real: Callable[..., Any], name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.countdown is not None:
                self.countdown -= 1
                if self.countdown <= 0:
                    self.countdown = None
                    self.fired += 1
                    if self.when == "before":
                        raise Killed(f"killed before {name}")
                    real(*args, **kwargs)
                    raise Killed(f"killed after {name}")
            return real(*args, **kwargs)

        return call


@dataclass
class Outage:
    """The board answers 503 (with ``Retry-After``) to every request until ``until``."""

    clock: DemoClock
    until: float = 0.0
    count: int = 0
    refused: int = 0

    def install(self, board: SandboxBoard) -> None:
        """Put the outage in front of ``board.handle`` (the HTTP server calls it per request)."""
        real = board.handle

        def handle(req: Request) -> Response:
            if self.clock() < self.until:
                self.refused += 1
                return Response(
                    503,
                    "<!DOCTYPE html><html><body><h1>503 Service Unavailable</h1></body></html>",
                    [("Retry-After", "120")],
                )
            return real(req)

        board.handle = handle  # type: ignore[method-assign]

    def start(self, seconds: float) -> None:
        """The board is down for ``seconds`` from now."""
        self.until = self.clock() + seconds
        self.count += 1

    @property
    def active(self) -> bool:
        """True while the board answers 503."""
        return self.clock() < self.until


@dataclass
class BoardTransport(httpx.BaseTransport):
    """The bot's HTTP requests answered in-process by ``board.handle`` (what the sandbox's
    HTTP server calls per request), without a socket or a server thread: the same requests,
    headers, cookies, redirects and pages, a hundred times cheaper. ``--http`` keeps the real
    server on 127.0.0.1 instead."""

    board: SandboxBoard

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """One request to the board, one answer (as :func:`forumbot.sandbox.server.make_server`
        builds them)."""
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
        headers = [*resp.headers, ("Cache-Control", 'private, no-cache="set-cookie"')]
        content = b"" if request.method == "HEAD" else resp.body.encode("utf-8")
        return httpx.Response(resp.status, headers=headers, content=content)


@dataclass
class World:
    """The board, the clock, the bot and the folder of one seed.

    Attributes:
        restarts / kills / restores: how many of each happened.
        apprise: the Apprise messages the notify job sent ``(urls, title, body)``.
    """

    seed: int
    folder: Path
    clock: DemoClock
    board: SandboxBoard
    players: list[str]
    thread: int = 0
    duo_thread: int = 0  # the 2v2 registration thread
    ranking: int = 0
    config: Config | None = None
    bot: Bot | None = None
    crash: CrashPlan = field(default_factory=CrashPlan)
    outage: Outage | None = None
    transport: httpx.BaseTransport | None = None  # None: the real HTTP server
    restarts: int = 0
    kills: int = 0
    restores: int = 0
    backups: list[Path] = field(default_factory=list)
    apprise: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    deliveries: Counter[str] = field(default_factory=Counter)  # notice -> times it went out
    timers: list[tuple[float, int, Callable[[], object]]] = field(default_factory=list)
    events: list[tuple[float, str]] = field(default_factory=list)  # (clock, restart/kill/...)
    config_text: str = ""  # the configuration (also FOLDER/forumbot.toml, for a real process)
    real_kill: Any = None  # a soak.real_kill.RealKill while a real bot process runs
    real_kills: Counter[str] = field(default_factory=Counter)  # how the real processes died

    def note(self, what: str) -> None:
        """Remember that ``what`` happened now (restarts, kills, restores, outages)."""
        self.events.append((self.clock(), f"{what}@{self.clock.utc():%m-%dT%H:%M}"))

    def later(self, delay_s: float, action: Callable[[], object]) -> None:
        """Run ``action`` once ``delay_s`` seconds of the clock have passed (the script's
        event queue, :meth:`due_timers`)."""
        heapq.heappush(self.timers, (self.clock() + delay_s, next(_SEQ), action))

    def due_timers(self) -> list[Callable[[], object]]:
        """Pop the actions that are due, in time order."""
        out = []
        while self.timers and self.timers[0][0] <= self.clock():
            out.append(heapq.heappop(self.timers)[2])
        return out

    @property
    def database(self) -> Path:
        """The bot's SQLite file."""
        return self.folder / "bot.db"

    def start(self) -> None:
        """Open the club's topics, write the configuration, start the first bot."""
        self.thread = self.board.create_topic(
            REGISTRATION_FORUM, REFEREE, "Inscriptions : duels en un contre un",
            "Postez ici votre fiche : nom, année, type de magie (et votre adversaire si vous "
            "en avez choisi un).",
        )  # fmt: skip
        self.duo_thread = self.board.create_topic(
            REGISTRATION_FORUM, REFEREE, "Inscriptions : duels en deux contre deux",
            "Postez ici la fiche de votre duo (une ligne par membre), ou la vôtre seule : le bot "
            "vous trouve un coéquipier.",
        )  # fmt: skip
        self.ranking = self.board.create_topic(
            CLUB_FORUM, REFEREE, "Tableau de classement", "Le classement du club de duel."
        )
        (self.folder / "apprise.txt").write_text("json://127.0.0.1:9/soak\n", encoding="utf-8")
        os.environ.setdefault(APPRISE_ENV, "json://127.0.0.1:9/soak")
        self.config_text = f"""
[board]
url = "{self.board.base_url}"
timezone = "Europe/Paris"
[bot]
username = "{BOT}"
[club]
ruleset = "fatigue"
review_delay_s = 600
[poll]
flood_interval_s = {FLOOD_INTERVAL_S}
edit_watch_interval_s = 900
[storage]
database = "{self.database}"
[[registration]]
topic_id = {self.thread}
thread_forum_id = {REGISTRATION_FORUM}
forum_id = {DUEL_FORUM}
kind = "1v1"
ruleset = "fatigue"
[[registration]]
topic_id = {self.duo_thread}
thread_forum_id = {REGISTRATION_FORUM}
forum_id = {DUEL_FORUM}
kind = "2v2"
ruleset = "fatigue"
[leaderboard]
topic_id = {self.ranking}
[notify.referee]
urls_file = "{self.folder / "apprise.txt"}"
[notify.admin]
urls_file = "{self.folder / "apprise.txt"}"
"""
        (self.folder / "forumbot.toml").write_text(self.config_text, encoding="utf-8")
        self.config = parse_config(self.config_text, self.folder)
        self.bot = self._bootstrap()
        self._review_accounts()

    def _review_accounts(self) -> None:
        """The review page's accounts (a referee and an admin), as ``forumbot users add``."""
        from forumbot.web.users import add_user

        assert self.bot is not None
        now = self.clock.utc()
        add_user(self.bot.storage, REFEREE, "arbitre-soak-pw", "referee", now)
        add_user(self.bot.storage, ADMIN, "maitre-soak-pw", "admin", now)

    def _bootstrap(self) -> Bot:
        assert self.config is not None
        rng = random.Random(self.seed * 7919 + self.restarts + 31 * self.kills)
        bot = bootstrap(
            self.config, password=BOT_PASSWORD, now=self.clock.utc, rng=rng,
            sleep=self.clock.sleep, clock=self.clock, transport=self.transport,
        )  # fmt: skip
        if bot.notify_job is not None:
            bot.notify_job.sender = self._send_apprise
        self.crash.countdown = None
        self._record_owl_notices(bot.client)
        self.crash.wrap(bot.client)
        return bot

    def _record_owl_notices(self, client: Any) -> None:
        """Count, at the board's side, the notices each PM of the bot carries (the notices
        ``batched`` under the PM's marker key): a PM that reached the board counts, one
        killed before it does not (:class:`CrashPlan` wraps this one)."""
        real = client.send_pm

        def send_pm(*args: Any, **kwargs: Any) -> Any:
            out = real(*args, **kwargs)
            text = " ".join(str(a) for a in args) + " ".join(str(v) for v in kwargs.values())
            assert self.bot is not None
            for key in set(re.findall(r"forumbot·(notice-[^·\s]+)·", text)):
                self._delivered("owl", key)
            return out

        client.send_pm = send_pm

    def _delivered(self, channel: str, batch: str | None) -> None:
        """Count one delivery of each notice now going out on ``channel`` (``batch``: the
        owl's key; Apprise: the notices claimed ``sending``), by its durable name
        (:func:`forumbot.notify.journal.durable_key`: the declaration's key, not its row id,
        so a notice sent again after a restore is counted twice)."""
        from forumbot.notify.journal import durable_key

        assert self.bot is not None
        storage = self.bot.storage
        if channel == "owl":
            rows = storage.db["notices"].rows_where("channel = 'owl' and batch_key = ?", [batch])
        else:
            rows = storage.db["notices"].rows_where("channel = 'apprise' and status = 'sending'")
        for row in rows:
            self.deliveries[durable_key(storage, row)] += 1

    def _send_apprise(self, urls: tuple[str, ...], title: str, body: str) -> bool:
        self.apprise.append((urls, title, body))
        self._delivered("apprise", None)
        return True

    def restart(self) -> None:
        """Stop the bot cleanly and start a new one on the same database."""
        assert self.bot is not None
        self.bot.close()
        self.restarts += 1
        self.note("restart")
        self.bot = self._bootstrap()

    def killed(self) -> None:
        """The bot died (:class:`Killed`): drop its uncommitted work, start a new one."""
        assert self.bot is not None
        self.bot.storage.db.conn.close()  # no commit: what a killed process leaves
        self.kills += 1
        self.note(f"kill {self.crash.when}")
        self.bot = self._bootstrap()

    def killed_for_real(self, how: str) -> None:
        """A real bot process was SIGKILLed (:mod:`soak.real_kill`): start the bot again."""
        self.kills += 1
        self.real_kills[how] += 1
        self.note(f"real kill {how}")
        self.bot = self._bootstrap()

    def install_real_kills(self) -> None:
        """Put the real kill's trigger in front of ``board.handle`` (:class:`RealKill`)."""
        real = self.board.handle

        def handle(req: Request) -> Response:
            plan = self.real_kill
            how = plan.on_request(req.method, req.path, req.query) if plan else None
            if how == "before":
                plan.kill()
                return Response(503, "<html><body>killed</body></html>", [])
            resp = real(req)
            if how == "after":
                plan.kill()
            return resp

        self.board.handle = handle  # type: ignore[method-assign]

    def nightly_backup(self) -> None:
        """``forumbot run``'s daily online backup (keeps 7)."""
        path = backup(self.database, self.folder / "backups", self.clock.utc(), keep=7)
        if path not in self.backups:
            self.backups.append(path)

    def restore_last_backup(self) -> bool:
        """Stop the bot, ``forumbot restore`` the newest backup, start the bot again; False
        when there is no backup yet."""
        found = list_backups(self.database, self.folder / "backups")
        if not found or self.bot is None:
            return False
        self.bot.close()
        restore(found[-1], self.database, now=self.clock.utc())
        self.restores += 1
        self.note(f"restore {found[-1].name}")
        self.bot = self._bootstrap()
        return True

    def close(self) -> None:
        """Stop the bot and the board."""
        if self.bot is not None:
            try:
                self.bot.close()
            except Exception:  # noqa: BLE001 - a killed bot's connection is already closed
                pass
        self.board.stop()


def make_world(
    seed: int, folder: Path, players: list[str], http: bool = False, serve: bool = False
) -> World:
    """A started board with the bot, the staff and ``players`` accounts; the bot running.

    ``http``: the board served on 127.0.0.1 by its HTTP server (a socket and a server thread
    per request, as ``forumbot sandbox``); False (default): the bot's client talks to the
    board in-process through :class:`BoardTransport` (same requests and pages). ``serve``:
    serve the board on 127.0.0.1 all the same (for the real bot processes of
    :mod:`soak.real_kill`; the in-process bot keeps its transport)."""
    clock = DemoClock()
    # Sessions last a day (a board with a long session, or the bot's remember-me cookie):
    # with phpBB's default hour, every idle jump of the clock would cost a login, and each
    # login rewrites the bot's encrypted cookie jar (a PBKDF2: most of a seed's time).
    board = SandboxBoard(clock=clock, flood_interval_s=FLOOD_INTERVAL_S, session_length_s=DAY_S)
    board.add_user(BOT, BOT_PASSWORD, ignore_flood=True)
    board.add_user(REFEREE, "arbitre-soak")
    board.add_user(ADMIN, "maitre-soak")
    for name in players:
        board.add_user(name, PASSWORD)
    outage = Outage(clock)
    outage.install(board)
    transport: httpx.BaseTransport | None = None
    if http or serve:
        board.start()
    else:
        board.base_url = "http://127.0.0.1:8089"  # never connected to: BoardTransport answers
    if not http:
        transport = BoardTransport(board)
    world = World(seed, folder, clock, board, players, outage=outage, transport=transport)
    if serve:
        world.install_real_kills()
        server: Any = getattr(board, "_server", None)
        if server is not None:  # a killed process resets its connection: not an error here
            report = server.handle_error

            def handle_error(request: Any, address: Any) -> None:
                if not isinstance(sys.exc_info()[1], ConnectionError):
                    report(request, address)

            server.handle_error = handle_error
    world.start()
    return world
