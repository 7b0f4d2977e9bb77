"""The Forumactif sandbox board: a local test double of a Forumactif (Forumotion) board.

Same public API as :class:`forumbot.sandbox.SandboxBoard` (``start``/``stop``/``add_user``/
``create_topic``/``post_reply``/``posts``/``expire_sessions`` ...), serving Forumactif-like pages
(:mod:`forumbot.sandbox.forumactif_pages`) in the phpBB3 (``prosilver``) or AwesomeBB
(``awesomebb``) display version, over the HTTP flows of ``fixtures/forumactif/REPORT.md``:

* ``/login`` (GET form; POST ``username``/``password``/``autologin``/``login`` -> 302 and cookies
  ``fa_<host>_sid`` / ``fa_<host>_data``; a wrong password -> the form again with an error);
  ``/login?logout=1&tid=...&key=...`` logs out; :meth:`ForumactifSandbox.expire_sessions`
  drops every session silently (the next page shows a guest in ``_userdata``);
* ``/`` (index), ``/f{F}-slug`` (listing, newest activity first), ``/t{T}-slug`` and
  ``/t{T}p{start}-slug`` (``posts_per_page`` per page; the slug is not checked),
  ``?view=newest`` (302 to the page of the newest post), ``/viewtopic?t=T&p=P`` (302 to the page
  holding P);
* ``/post``: full editor (``?t=T&mode=reply`` with the dice block, ``?f=F&mode=newtopic``),
  ``POST /post`` checks both ``auth[]`` of the session, the flood delay (shared with PMs;
  per-user ``ignore_flood``, as admins/moderators are exempt), ``lt`` (a post arrived meanwhile ->
  the form again with "Un nouveau message a été posté ..."), then answers the confirmation page
  "Votre message a été enregistré avec succès." with a link ``/viewtopic?t=T&p=P#P``;
* ``/post?p=N&mode=editpost``: the editor prefilled with the post's text; ``POST /post``
  (``mode=editpost``, ``p``) by the author or an admin replaces it and answers the same
  confirmation page; the edit line "Dernière édition par X le ..., édité N fois" is recorded
  when a post follows the edited one;
* dice: ``post_dice_N`` (dice id) / ``nb_rolls_N`` on a reply (never on a new topic, as on the
  real board) make the board roll with its own seeded ``random.Random`` and add, right after
  the post, a post by the Game Master account (``gm_name``, default "Maître du Jeu") with the
  dice result; :meth:`ForumactifSandbox.post_reply` takes the same request as
  ``dice=("Duel", 2)``;
* ``/privmsg``: compose (``?mode=post[&u=U]``), ``POST /privmsg`` (``username[]``, ``subject``,
  ``message``, ``post``) -> "Votre message a été envoyé.", folders inbox / outbox (unread by the
  recipient) / sentbox, ``&mode=read&p=N``.

The French error wordings of Forumactif are not documented (REPORT.md section 9): the ones here
are assumptions, matched by the client's configurable patterns. Times come from the injectable
``clock`` (epoch seconds); state lives in memory only.
"""

from __future__ import annotations

import math
import random
import re
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from forumbot.sandbox import forumactif_pages as fp
from forumbot.sandbox.board_model import Request, Response

GUEST_ID = -1

LOGIN_ERROR = "Vous avez saisi un nom d'utilisateur ou un mot de passe incorrect."
POSTED = "Votre message a été enregistré avec succès."
PM_SENT = "Votre message a été envoyé."
NEW_POST = (
    "Un nouveau message a été posté dans ce sujet pendant que vous rédigiez le vôtre. "
    "Relisez la revue du sujet avant d'envoyer."
)
FLOOD = (
    "Flood control : vous ne pouvez pas poster un autre message si rapidement après le précédent."
)
NO_TOPIC = "Le sujet demandé n'existe pas."
NO_POST = "Le message demandé n'existe pas."
NO_FORUM = "Le forum demandé n'existe pas."
EMPTY_MESSAGE = "Vous devez entrer un message avant de poster."
EMPTY_SUBJECT = "Vous devez spécifier un sujet avant de poster un nouveau sujet."
BAD_AUTH = "Le formulaire a expiré ou n'est pas valide. Merci de recommencer."
PM_NO_USER = "L'utilisateur demandé n'existe pas."
PM_NOT_ALLOWED = "Vous n'êtes pas autorisé à envoyer des messages privés."
NOT_LOGGED = "Vous devez être connecté pour accéder à cette page."
#: phpBB2's French ``Edit_own_posts``; Forumactif's own wording is not documented (ASSUMED).
EDIT_DENIED = "Désolé, mais vous ne pouvez éditer que vos propres messages."

_TOPIC_PATH_RE = re.compile(r"^/t(\d+)(?:p(\d+))?(?:-.*)?$")
_FORUM_PATH_RE = re.compile(r"^/f(\d+)(?:p(\d+))?(?:-.*)?$")


@dataclass
class FaUser:
    """A board account. ``last_post_time`` (epoch s) feeds the flood check (posts and PMs);
    ``level`` is ``_userdata["user_level"]`` (1 = admin)."""

    user_id: int
    name: str
    password: str
    ignore_flood: bool = False
    can_pm: bool = True
    level: int = 0
    last_post_time: float = -1e12


@dataclass
class FaForum:
    """A forum."""

    forum_id: int
    name: str


@dataclass
class FaTopic:
    """A topic (its first post is the opening post)."""

    topic_id: int
    forum_id: int
    title: str
    poster_id: int
    time: float


@dataclass
class FaPost:
    """A post as stored: BBCode source in ``text``; for a Game Master dice post, ``dice``
    holds ``(dice name, values)`` per die type and ``dice_for`` the id of the rolling post."""

    post_id: int
    topic_id: int
    poster_id: int
    subject: str
    text: str
    time: float
    edit_count: int = 0
    edit_user_id: int | None = None
    edit_time: float | None = None
    dice: tuple[tuple[str, tuple[int, ...]], ...] = ()
    dice_for: int | None = None


@dataclass
class FaPm:
    """A private message; ``unread_by`` lists recipients who have not opened it yet."""

    msg_id: int
    author_id: int
    to_ids: list[int]
    subject: str
    text: str
    time: float
    unread_by: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Dice:
    """A dice the admins defined (ACP Roleplay > Dice): id, name, faces 1..``faces``."""

    dice_id: int
    name: str
    faces: int


@dataclass
class _Session:
    sid: str
    user_id: int
    tid: str
    auth: tuple[str, str]
    key: str
    last_seen: float


DEFAULT_FORUMS = (
    FaForum(2, "Club de duel"),
    FaForum(3, "Duels en cours"),
    FaForum(4, "Inscriptions"),
)

DiceRequest = tuple[str, int]


def _dice_requests(dice: DiceRequest | Sequence[DiceRequest] | None) -> list[DiceRequest]:
    """``("Duel", 2)`` or ``[("Duel", 2), ...]`` -> a list of requests."""
    if not dice:
        return []
    items: list[Any] = list(dice)
    if isinstance(items[0], str):
        return [(str(items[0]), int(items[1]))]
    return [(str(n), int(c)) for n, c in items]


class ForumactifSandbox:
    """A Forumactif test double served over HTTP on 127.0.0.1.

    Args:
        users: ``(name, password)`` tuples or dicts of :class:`FaUser` fields.
        forums: ``(forum_id, name)`` tuples or FaForums; default forums 2-4 (3 = duels).
        version: display version, ``"prosilver"`` (phpBB3; ``"phpbb3"`` accepted) or
            ``"awesomebb"``.
        port: port :meth:`start` uses when given none (0 = a free port).
        flood_interval_s: the admin-set flood delay, seconds (posts and PMs).
        flood_says_delay: whether the flood page tells how many seconds are left.
        clock: epoch seconds (tests: a fake clock).
        posts_per_page: posts per topic page (Forumactif default 15); topics_per_page: 50.
        session_length_s: idle session lifetime, seconds.
        seed: seed of the board's own dice ``random.Random``.
        gm_name: the Game Master account posting dice results (created at construction).
        dice: the dice the admins defined, ``(name, faces)``; ids are 1, 2, ...
        timezone: zone the board displays dates in.
    """

    def __init__(
        self,
        users: Iterable[Any] | None = None,
        forums: Iterable[Any] | None = None,
        *,
        version: str = "prosilver",
        port: int = 0,
        flood_interval_s: float = 15.0,
        flood_says_delay: bool = True,
        clock: Callable[[], float] = time.time,
        posts_per_page: int = 15,
        topics_per_page: int = 50,
        session_length_s: float = 3600.0,
        seed: int = 0,
        gm_name: str = "Maître du Jeu",
        dice: Sequence[tuple[str, int]] = (("Duel", 6),),
        timezone: str = "Europe/Paris",
    ) -> None:
        version = "prosilver" if version == "phpbb3" else version
        if version not in fp.VERSIONS:
            raise ValueError(f"version must be one of {fp.VERSIONS}, got {version!r}")
        self.version = version
        self.port = port
        self.flood_interval_s = flood_interval_s
        self.flood_says_delay = flood_says_delay
        self.clock = clock
        self.posts_per_page = posts_per_page
        self.topics_per_page = topics_per_page
        self.session_length_s = session_length_s
        self.zone = ZoneInfo(timezone)
        self.dice = tuple(Dice(i + 1, name, faces) for i, (name, faces) in enumerate(dice))
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._users: dict[int, FaUser] = {}
        self._forums: dict[int, FaForum] = {}
        self._topics: dict[int, FaTopic] = {}
        self._posts: dict[int, FaPost] = {}
        self._pms: dict[int, FaPm] = {}
        self._sessions: dict[str, _Session] = {}
        self._next = {"post": 1, "topic": 1, "pm": 1}
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self.base_url = ""
        for spec in forums if forums is not None else DEFAULT_FORUMS:
            forum = spec if isinstance(spec, FaForum) else FaForum(int(spec[0]), str(spec[1]))
            self._forums[forum.forum_id] = replace(forum)
        for spec in users or ():
            if isinstance(spec, tuple):
                self.add_user(spec[0], spec[1])
            else:
                self.add_user(**dict(spec))
        self.gm_id = self.add_user(gm_name, secrets.token_hex(16), ignore_flood=True)
        self.gm_name = gm_name

    # ------------------------------------------------------------------ server

    def start(self, port: int | None = None, host: str = "127.0.0.1") -> str:
        """Serve on ``host:port`` (default: the constructor's ``port``; 0 = a free port) in a
        daemon thread; returns the base URL ``http://127.0.0.1:<port>``."""
        from forumbot.sandbox.server import make_server

        board: Any = self
        self._server = make_server(board, host, self.port if port is None else port)
        real_port = self._server.server_address[1]
        self.base_url = f"http://{host}:{real_port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="sandbox-forumactif", daemon=True
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving (the state stays in memory)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # ------------------------------------------------------------------ helpers for tests

    def add_user(
        self,
        name: str,
        password: str,
        user_id: int | None = None,
        ignore_flood: bool = False,
        *,
        can_pm: bool = True,
        level: int = 0,
    ) -> int:
        """Create an account; returns its user id (next free id from 1 when None)."""
        with self._lock:
            uid = user_id if user_id is not None else max([0, *self._users]) + 1
            if uid in self._users or uid <= 0:
                raise ValueError(f"user id {uid} is taken or invalid")
            if self._user_by_name(name) is not None:
                raise ValueError(f"user {name!r} exists")
            self._users[uid] = FaUser(uid, name, password, ignore_flood, can_pm, level)
            return uid

    def add_forum(self, forum_id: int, name: str) -> None:
        """Create a forum."""
        with self._lock:
            self._forums[forum_id] = FaForum(forum_id, name)

    def user_id(self, name: str) -> int:
        """Id of user ``name``. Raises KeyError when unknown."""
        user = self._user_by_name(name)
        if user is None:
            raise KeyError(name)
        return user.user_id

    def create_topic(self, forum_id: int, author: str, subject: str, message: str) -> int:
        """Open a topic server-side (no flood check); returns the topic id."""
        with self._lock:
            if forum_id not in self._forums:
                raise KeyError(f"forum {forum_id}")
            return self._new_topic(forum_id, self.user_id(author), subject, message)

    def post_reply(
        self,
        topic_id: int,
        author: str,
        message: str,
        dice: DiceRequest | Sequence[DiceRequest] | None = None,
    ) -> int:
        """Reply server-side as ``author`` (a scripted player, no flood check); returns the
        post id. ``dice=("Duel", 2)`` (or a list of such) asks the board to roll: the Game
        Master's result post follows right after (id = returned id + 1).

        Raises: KeyError (unknown topic/user/dice name).
        """
        with self._lock:
            topic = self._topics[topic_id]
            user = self._users[self.user_id(author)]
            rolls = [(self._dice_by_name(name), count) for name, count in _dice_requests(dice)]
            user.last_post_time = self.clock()
            return self._reply(topic, user, f"Re: {topic.title}", message, rolls)

    def edit_post(self, post_id: int, message: str, editor: str | None = None) -> None:
        """Replace a post's text; the edit line names ``editor`` (default: its author)."""
        with self._lock:
            post = self._posts[post_id]
            post.text = message
            post.edit_count += 1
            post.edit_user_id = self.user_id(editor) if editor else post.poster_id
            post.edit_time = self.clock()

    def delete_post(self, post_id: int) -> None:
        """Delete a post (later pages shift, as on the real board)."""
        with self._lock:
            del self._posts[post_id]

    def posts(self, topic_id: int) -> list[FaPost]:
        """Copies of the topic's posts (Game Master dice posts included), in order."""
        with self._lock:
            return [replace(p) for p in self._topic_posts(topic_id)]

    def topics(self, forum_id: int | None = None) -> list[FaTopic]:
        """Copies of the topics (of one forum when ``forum_id`` is given)."""
        with self._lock:
            return [
                replace(t)
                for t in self._topics.values()
                if forum_id is None or t.forum_id == forum_id
            ]

    def pms(self) -> list[FaPm]:
        """Copies of every private message, oldest first."""
        with self._lock:
            return [
                replace(m, to_ids=list(m.to_ids), unread_by=list(m.unread_by))
                for m in sorted(self._pms.values(), key=lambda m: m.msg_id)
            ]

    def expire_sessions(self) -> None:
        """Silently drop every session: the next request of any client is a guest's."""
        with self._lock:
            self._sessions.clear()

    # ------------------------------------------------------------------ model

    def _user_by_name(self, name: str) -> FaUser | None:
        clean = name.strip().casefold()
        return next((u for u in self._users.values() if u.name.casefold() == clean), None)

    def _dice_by_name(self, name: str) -> Dice:
        for dice in self.dice:
            if dice.name.casefold() == name.casefold():
                return dice
        raise KeyError(f"dice {name!r}")

    def _name(self, user_id: int) -> str:
        user = self._users.get(user_id)
        return user.name if user is not None else "Invité"

    def _topic_posts(self, topic_id: int) -> list[FaPost]:
        return sorted(
            (p for p in self._posts.values() if p.topic_id == topic_id), key=lambda p: p.post_id
        )

    def _new_post(self, topic: FaTopic, poster_id: int, subject: str, text: str) -> FaPost:
        post = FaPost(self._next["post"], topic.topic_id, poster_id, subject, text, self.clock())
        self._next["post"] += 1
        self._posts[post.post_id] = post
        return post

    def _new_topic(self, forum_id: int, poster_id: int, subject: str, message: str) -> int:
        topic = FaTopic(self._next["topic"], forum_id, subject, poster_id, self.clock())
        self._next["topic"] += 1
        self._topics[topic.topic_id] = topic
        self._new_post(topic, poster_id, subject, message)
        return topic.topic_id

    def _reply(
        self,
        topic: FaTopic,
        user: FaUser,
        subject: str,
        message: str,
        rolls: Sequence[tuple[Dice, int]],
    ) -> int:
        """Store a reply, then the Game Master's dice post when dice were asked for."""
        post = self._new_post(topic, user.user_id, subject or f"Re: {topic.title}", message)
        if rolls:
            results = tuple(
                (dice.name, tuple(self._rng.randint(1, dice.faces) for _ in range(count)))
                for dice, count in rolls
            )
            lines = [f"Le membre '{user.name}' a effectué l'action suivante : Lancer des dés"]
            lines += [f"'{name}' : {' '.join(map(str, values))}" for name, values in results]
            gm = self._new_post(topic, self.gm_id, f"Re: {topic.title}", "\n".join(lines))
            gm.dice = results
            gm.dice_for = post.post_id
        return post.post_id

    def _post_view(self, post: FaPost) -> fp.PostView:
        author = self._users.get(post.poster_id)
        if post.dice:
            content = fp.dice_html(self._name(self._posts_author(post.dice_for)), post.dice)
        else:
            content = fp.render_message(post.text)
        return fp.PostView(
            post_id=post.post_id,
            subject=post.subject,
            author_id=author.user_id if author is not None else None,
            author=author.name if author is not None else "Invité",
            author_posts=sum(1 for p in self._posts.values() if p.poster_id == post.poster_id),
            time_s=post.time,
            content_html=content,
            edit_by=self._name(post.edit_user_id) if post.edit_user_id is not None else None,
            edit_time_s=post.edit_time,
            edit_count=post.edit_count,
        )

    def _posts_author(self, post_id: int | None) -> int:
        post = self._posts.get(post_id) if post_id is not None else None
        return post.poster_id if post is not None else GUEST_ID

    def _plain(self, post: FaPost) -> str:
        if post.dice:
            return fp.dice_text(self._name(self._posts_author(post.dice_for)), post.dice)
        return fp.plain_text(post.text)

    # ------------------------------------------------------------------ sessions

    def _cookie_name(self, req: Request) -> str:
        host = req.host.split(":")[0].replace(".", "_")
        return f"fa_{host}"

    def _session(self, req: Request) -> _Session | None:
        sid = req.cookies.get(self._cookie_name(req) + "_sid", "")
        session = self._sessions.get(sid)
        if session is None:
            return None
        if self.clock() - session.last_seen > self.session_length_s:
            del self._sessions[sid]
            return None
        session.last_seen = self.clock()
        return session

    def _viewer(self, session: _Session | None) -> fp.Viewer:
        if session is None:
            return fp.Viewer(GUEST_ID, None)
        user = self._users[session.user_id]
        return fp.Viewer(
            user.user_id,
            user.name,
            level=user.level,
            posts=sum(1 for p in self._posts.values() if p.poster_id == user.user_id),
            unread_pms=sum(1 for m in self._pms.values() if user.user_id in m.unread_by),
            logout=f"/login?logout=1&tid={session.tid}&key={session.key}",
        )

    # ------------------------------------------------------------------ dispatch

    def handle(self, req: Request) -> Response:
        """Answer one request (thread-safe)."""
        with self._lock:
            session = self._session(req)
            resp = self._route(req, session)
            resp.headers.append(("Content-Type", "text/html; charset=UTF-8"))
            return resp

    def _route(self, req: Request, session: _Session | None) -> Response:
        path = req.path.rstrip("/") or "/"
        if path in ("/", "/forum", "/index.htm"):
            return self._index(session)
        if path in ("/login", "/login.forum"):
            return self._login(req, session)
        if path == "/viewtopic":
            return self._permalink(req, session)
        if path == "/post":
            return self._posting(req, session)
        if path == "/privmsg":
            return self._privmsg(req, session)
        match = _TOPIC_PATH_RE.match(path)
        if match:
            start = int(match.group(2) or 0)
            return self._viewtopic(req, session, int(match.group(1)), start)
        match = _FORUM_PATH_RE.match(path)
        if match:
            return self._viewforum(session, int(match.group(1)), int(match.group(2) or 0))
        return self._message(session, "Informations", "Cette page n'existe pas.", status=404)

    def _page(
        self,
        session: _Session | None,
        title: str,
        body: str,
        *,
        status: int = 200,
        head_extra: str = "",
        canonical: str | None = None,
        refresh: str | None = None,
    ) -> Response:
        html = fp.layout(
            f"{title} - Club de duel (bac à sable)",
            body,
            self._viewer(session),
            self.version,
            head_extra=head_extra,
            canonical=canonical,
            refresh=refresh,
        )
        return Response(status, html)

    def _message(
        self,
        session: _Session | None,
        title: str,
        text_html: str,
        *,
        status: int = 200,
        refresh: str | None = None,
    ) -> Response:
        body = fp.message_page(title, text_html, self.version)
        return self._page(session, title, body, status=status, refresh=refresh)

    def _login_page(self, session: _Session | None, error: str | None = None) -> Response:
        return self._page(session, "Connexion", fp.login_form(error))

    @staticmethod
    def _redirect(target: str, extra: Sequence[tuple[str, str]] = ()) -> Response:
        return Response(302, "", [("Location", target), *extra])

    # ------------------------------------------------------------------ pages

    def _index(self, session: _Session | None) -> Response:
        rows = [
            (f.forum_id, f.name, sum(1 for t in self._topics.values() if t.forum_id == f.forum_id))
            for f in sorted(self._forums.values(), key=lambda f: f.forum_id)
        ]
        return self._page(session, "Accueil", fp.index_body(rows))

    def _topic_url(self, topic: FaTopic, start: int = 0) -> str:
        part = f"p{start}" if start else ""
        return f"/t{topic.topic_id}{part}-{fp.slug(topic.title)}"

    def _start_of(self, topic: FaTopic, post_id: int) -> int:
        ids = [p.post_id for p in self._topic_posts(topic.topic_id)]
        index = ids.index(post_id)
        return index // self.posts_per_page * self.posts_per_page

    def _viewforum(self, session: _Session | None, forum_id: int, start: int) -> Response:
        forum = self._forums.get(forum_id)
        if forum is None:
            return self._message(session, "Informations", fp.esc(NO_FORUM), status=404)
        rows: list[fp.TopicRow] = []
        for topic in self._topics.values():
            posts = self._topic_posts(topic.topic_id)
            if topic.forum_id != forum_id or not posts:
                continue
            last = posts[-1]
            rows.append(
                fp.TopicRow(
                    topic_id=topic.topic_id,
                    title=topic.title,
                    author_id=topic.poster_id,
                    author=self._name(topic.poster_id),
                    replies=len(posts) - 1,
                    last_post_id=last.post_id,
                    last_post_url=self._topic_url(topic, self._start_of(topic, last.post_id))
                    + f"#{last.post_id}",
                    last_author_id=last.poster_id,
                    last_author=self._name(last.poster_id),
                    last_time=fp.format_date(last.time, self.zone),
                )
            )
        rows.sort(key=lambda r: r.last_post_id, reverse=True)
        shown = rows[start : start + self.topics_per_page]
        return self._page(session, forum.name, fp.forum_body(forum.name, shown, self.version))

    def _permalink(self, req: Request, session: _Session | None) -> Response:
        post_id = req.query.get("p", "")
        post = self._posts.get(int(post_id)) if post_id.isdigit() else None
        if post is None:
            return self._message(session, "Informations", fp.esc(NO_POST), status=404)
        topic = self._topics[post.topic_id]
        start = self._start_of(topic, post.post_id)
        return self._redirect(f"{self._topic_url(topic, start)}#{post.post_id}")

    def _viewtopic(
        self, req: Request, session: _Session | None, topic_id: int, start: int
    ) -> Response:
        topic = self._topics.get(topic_id)
        posts = self._topic_posts(topic_id) if topic is not None else []
        if topic is None or not posts:
            return self._message(session, "Informations", fp.esc(NO_TOPIC), status=404)
        ppp = self.posts_per_page
        if req.query.get("view") == "newest":
            newest = posts[-1].post_id
            return self._redirect(
                f"{self._topic_url(topic, self._start_of(topic, newest))}#{newest}"
            )
        pages = max(1, math.ceil(len(posts) / ppp))
        start = min(start - start % ppp, (pages - 1) * ppp)
        page = start // ppp + 1
        shown = posts[start : start + ppp]
        views = [self._post_view(p) for p in shown]
        page_url = self._topic_url(topic, start)
        base = f"http://{req.host}"
        posts_html = "".join(
            fp.post_html(v, i, page_url, self.version, self.zone) for i, v in enumerate(views)
        )
        quick = ""
        if session is not None:
            quick = fp.quick_reply(
                [
                    ("attach_sig", "1"),
                    ("mode", "reply"),
                    ("tid", session.tid),
                    ("t", str(topic_id)),
                    ("lt", str(posts[-1].post_id)),
                    ("notify", "0"),
                    ("auth[]", session.auth[0]),
                    ("auth[]", session.auth[1]),
                ]
            )
        forum = self._forums[topic.forum_id]
        ld = fp.jsonld(
            base=base,
            forum_id=forum.forum_id,
            forum_name=forum.name,
            topic_url=base + self._topic_url(topic),
            page_url=base + page_url,
            title=topic.title,
            pages=pages,
            first=self._post_view(posts[0]),
            on_page=views,
            first_on_page=page == 1,
            zone=self.zone,
            texts={p.post_id: self._plain(p) for p in [posts[0], *shown]},
        )
        body = fp.topic_body(
            title=topic.title,
            topic_url=self._topic_url(topic),
            posts_html=posts_html,
            pagination_html=fp.pagination(topic_id, fp.slug(topic.title), page, pages, ppp),
            quick_reply_html=quick,
            version=self.version,
        )
        return self._page(session, topic.title, body, head_extra=ld, canonical=base + page_url)

    # ------------------------------------------------------------------ login

    def _login(self, req: Request, session: _Session | None) -> Response:
        if req.query.get("logout"):
            if session is not None and req.query.get("tid") == session.tid:
                del self._sessions[session.sid]
            return self._redirect("/")
        if req.method != "POST":
            if session is not None:
                return self._redirect("/")
            return self._login_page(None)
        user = self._user_by_name(req.field("username"))
        if user is None or not secrets.compare_digest(user.password, req.field("password")):
            return self._login_page(None, LOGIN_ERROR)
        new = _Session(
            secrets.token_hex(16),
            user.user_id,
            secrets.token_hex(16),
            (secrets.token_hex(16), secrets.token_hex(16)),
            secrets.token_hex(3),
            self.clock(),
        )
        self._sessions[new.sid] = new
        name = self._cookie_name(req)
        data = (
            f'a:2:{{s:9:"autologin";b:1;s:6:"userid";s:{len(str(user.user_id))}:"{user.user_id}";}}'
        )
        cookies = [
            ("Set-Cookie", f"{name}_sid={new.sid}; path=/; HttpOnly"),
            ("Set-Cookie", f"{name}_data={quote(data, safe='')}; path=/"),
        ]
        target = req.field("redirect") or "/"
        return self._redirect(target if target.startswith("/") else "/", cookies)

    # ------------------------------------------------------------------ posting

    def _posting(self, req: Request, session: _Session | None) -> Response:
        if session is None:
            return self._login_page(None, NOT_LOGGED)
        mode = req.field("mode") if req.method == "POST" else req.query.get("mode", "")
        source = req.field if req.method == "POST" else (lambda k: req.query.get(k, ""))
        topic = forum = None
        if mode == "editpost":
            raw = source("p")
            post = self._posts.get(int(raw)) if raw.isdigit() else None
            if post is None:
                return self._message(session, "Informations", fp.esc(NO_POST), status=404)
            return self._editing(req, session, post)
        if mode == "reply":
            raw = source("t")
            topic = self._topics.get(int(raw)) if raw.isdigit() else None
            if topic is None:
                return self._message(session, "Informations", fp.esc(NO_TOPIC), status=404)
        elif mode == "newtopic":
            raw = source("f")
            forum = self._forums.get(int(raw)) if raw.isdigit() else None
            if forum is None:
                return self._message(session, "Informations", fp.esc(NO_FORUM), status=404)
        else:
            return self._message(session, "Informations", fp.esc(NO_POST), status=404)
        if req.method != "POST":
            subject = "" if topic is None else f"Re: {topic.title}"
            return self._form(session, topic, forum, subject, "", None)
        return self._submit(req, session, topic, forum)

    def _form(
        self,
        session: _Session,
        topic: FaTopic | None,
        forum: FaForum | None,
        subject: str,
        message: str,
        error: str | None,
        *,
        preview: bool = False,
        review: bool = False,
    ) -> Response:
        fields = [("auth[]", session.auth[0]), ("auth[]", session.auth[1])]
        if topic is not None:
            last = self._topic_posts(topic.topic_id)[-1].post_id
            fields += [("mode", "reply"), ("t", str(topic.topic_id)), ("lt", str(last))]
            dice = [(d.dice_id, d.name) for d in self.dice]
        else:
            assert forum is not None
            fields += [("mode", "newtopic"), ("f", str(forum.forum_id))]
            dice = []
        views = []
        if review and topic is not None:
            views = [self._post_view(p) for p in reversed(self._topic_posts(topic.topic_id))][:5]
        body = fp.posting_form(
            fields=fields,
            subject=subject,
            message=message,
            dice=dice,
            error=error,
            preview_html=fp.render_message(message) if preview else "",
            review=views,
            zone=self.zone,
        )
        return self._page(session, "Poster un message", body)

    def _editing(self, req: Request, session: _Session, post: FaPost) -> Response:
        """``/post?p=N&mode=editpost`` (REPORT.md 6.3): GET gives the full editor prefilled
        with the post's BBCode (hidden ``auth[]`` x2, ``mode=editpost``, ``p``, ``lt``; the
        subject; ``edit_reason``; no dice block: "You can't roll a dice while ... editing a
        message"); POST checks ``auth[]``, applies the edit and answers the reply's
        confirmation page. Only the author or an admin (``level`` 1) may edit (else
        :data:`EDIT_DENIED`); edits are not flood-limited (ASSUMED, as phpBB2 checks the flood
        delay for new posts only); ``edit_reason`` is accepted and not shown."""
        user = self._users[session.user_id]
        if user.user_id != post.poster_id and user.level != 1:
            return self._message(session, "Informations", fp.esc(EDIT_DENIED))
        topic = self._topics[post.topic_id]
        if req.method != "POST":
            return self._edit_form(session, topic, post, post.subject, post.text, None)
        subject, message = req.field("subject"), req.field("message")
        auth = tuple(v for k, v in req.form if k == "auth[]")
        if auth != session.auth:
            return self._message(session, "Informations", fp.esc(BAD_AUTH))
        if not req.has("post"):
            return self._edit_form(session, topic, post, subject, message, None, preview=True)
        if not message.strip():
            return self._message(session, "Informations", fp.esc(EMPTY_MESSAGE))
        first = self._topic_posts(topic.topic_id)[0].post_id == post.post_id
        if first and subject.strip():
            topic.title = subject.strip()
            post.subject = topic.title
        self._apply_edit(post, message, user.user_id)
        link = f"/viewtopic?t={topic.topic_id}&p={post.post_id}#{post.post_id}"
        forum = self._forums[topic.forum_id]
        text = (
            f'{fp.esc(POSTED)}<br /><br />Cliquez <a href="{fp.esc(link)}">ici</a> pour voir '
            f'votre message<br /><br />Cliquez <a href="/f{forum.forum_id}-'
            f'{fp.slug(forum.name)}">ici</a> pour retourner au forum'
        )
        return self._message(session, "Informations", text, refresh=link)

    def _apply_edit(self, post: FaPost, message: str, editor_id: int) -> None:
        """Store an edit made through the editor. The edit line ("Dernière édition par X le
        ..., édité N fois", REPORT.md section 4) is recorded only when a post follows this one
        in the topic, as phpBB2 (Forumactif's ancestor) does: an edit of the topic's last post
        leaves no trace. ASSUMED: it is recorded whoever edits (author or admin)."""
        post.text = message
        if post.post_id != self._topic_posts(post.topic_id)[-1].post_id:
            post.edit_count += 1
            post.edit_user_id = editor_id
            post.edit_time = self.clock()

    def _edit_form(
        self,
        session: _Session,
        topic: FaTopic,
        post: FaPost,
        subject: str,
        message: str,
        error: str | None,
        *,
        preview: bool = False,
    ) -> Response:
        last = self._topic_posts(topic.topic_id)[-1].post_id
        fields = [
            ("auth[]", session.auth[0]),
            ("auth[]", session.auth[1]),
            ("mode", "editpost"),
            ("p", str(post.post_id)),
            ("lt", str(last)),
        ]
        body = fp.posting_form(
            fields=fields,
            subject=subject,
            message=message,
            dice=[],
            error=error,
            preview_html=fp.render_message(message) if preview else "",
            zone=self.zone,
            edit_reason="",
        )
        return self._page(session, "Éditer le message", body)

    def _flood_error(self, user: FaUser) -> str | None:
        left = self.flood_interval_s - (self.clock() - user.last_post_time)
        if user.ignore_flood or left <= 0:
            return None
        if self.flood_says_delay:
            return f"{FLOOD} Veuillez patienter {math.ceil(left)} seconde(s)."
        return FLOOD

    def _requested_rolls(self, req: Request) -> list[tuple[Dice, int]]:
        rolls: list[tuple[Dice, int]] = []
        for index in range(10):
            raw = req.field(f"post_dice_{index}")
            if not raw.isdigit():
                continue
            dice = next((d for d in self.dice if d.dice_id == int(raw)), None)
            count = req.field(f"nb_rolls_{index}", "1")
            if dice is not None and count.isdigit() and int(count) > 0:
                rolls.append((dice, min(int(count), 999)))
        return rolls

    def _submit(
        self,
        req: Request,
        session: _Session,
        topic: FaTopic | None,
        forum: FaForum | None,
    ) -> Response:
        user = self._users[session.user_id]
        subject, message = req.field("subject"), req.field("message")
        auth = tuple(v for k, v in req.form if k == "auth[]")
        if auth != session.auth:
            return self._message(session, "Informations", fp.esc(BAD_AUTH))
        if not req.has("post"):
            return self._form(session, topic, forum, subject, message, None, preview=True)
        error = self._flood_error(user)
        if error is None and not message.strip():
            error = EMPTY_MESSAGE
        if error is None and topic is None and not subject.strip():
            error = EMPTY_SUBJECT
        if error is not None:
            return self._message(session, "Informations", fp.esc(error))
        if topic is not None:
            last = self._topic_posts(topic.topic_id)[-1].post_id
            lt = req.field("lt")
            if lt.isdigit() and int(lt) < last:
                return self._form(session, topic, None, subject, message, NEW_POST, review=True)
            user.last_post_time = self.clock()
            post_id = self._reply(topic, user, subject, message, self._requested_rolls(req))
            target_topic = topic
        else:
            assert forum is not None
            user.last_post_time = self.clock()
            target_topic = self._topics[
                self._new_topic(forum.forum_id, user.user_id, subject.strip(), message)
            ]
            post_id = self._topic_posts(target_topic.topic_id)[0].post_id
        link = f"/viewtopic?t={target_topic.topic_id}&p={post_id}#{post_id}"
        forum_obj = self._forums[target_topic.forum_id]
        text = (
            f'{fp.esc(POSTED)}<br /><br />Cliquez <a href="{fp.esc(link)}">ici</a> pour voir '
            f'votre message<br /><br />Cliquez <a href="/f{forum_obj.forum_id}-'
            f'{fp.slug(forum_obj.name)}">ici</a> pour retourner au forum'
        )
        return self._message(session, "Informations", text, refresh=link)

    # ------------------------------------------------------------------ private messages

    def _privmsg(self, req: Request, session: _Session | None) -> Response:
        if session is None:
            return self._login_page(None, NOT_LOGGED)
        user = self._users[session.user_id]
        mode = req.field("mode") if req.method == "POST" else req.query.get("mode", "")
        if req.method == "POST" and req.has("post"):
            return self._pm_send(req, session, user)
        if mode == "post":
            if not user.can_pm:
                return self._message(session, "Informations", fp.esc(PM_NOT_ALLOWED))
            raw = req.query.get("u", "")
            recipient = self._name(int(raw)) if raw.isdigit() and int(raw) in self._users else ""
            fields = [("folder", "inbox"), ("mode", "post")]
            body = fp.pm_form(recipient, "", "", fields)
            return self._page(session, "Envoyer un message privé", body)
        folder = req.query.get("folder", "inbox")
        if mode == "read" and req.query.get("p", "").isdigit():
            pm = self._pms.get(int(req.query["p"]))
            if pm is None or user.user_id not in (pm.author_id, *pm.to_ids):
                return self._message(session, "Informations", fp.esc(NO_POST))
            if user.user_id in pm.unread_by:
                pm.unread_by.remove(user.user_id)
            body = fp.pm_read(
                pm.subject,
                pm.author_id,
                self._name(pm.author_id),
                fp.format_date(pm.time, self.zone),
                fp.render_message(pm.text),
            )
            return self._page(session, pm.subject, body)
        rows: list[tuple[int, str, int, str, str]] = []
        for pm in sorted(self._pms.values(), key=lambda m: m.msg_id, reverse=True):
            mine = pm.author_id == user.user_id
            other = None
            if folder == "inbox" and user.user_id in pm.to_ids:
                other = pm.author_id
            elif folder == "outbox" and mine and pm.unread_by:
                other = pm.to_ids[0]
            elif folder == "sentbox" and mine and not pm.unread_by:
                other = pm.to_ids[0]
            if other is not None:
                date = fp.format_date(pm.time, self.zone)
                rows.append((pm.msg_id, pm.subject, other, self._name(other), date))
        return self._page(session, "Messagerie", fp.pm_folder(folder, rows))

    def _pm_send(self, req: Request, session: _Session, user: FaUser) -> Response:
        if not user.can_pm:
            return self._message(session, "Informations", fp.esc(PM_NOT_ALLOWED))
        names = [v for k, v in req.form if k in ("username[]", "username") and v.strip()]
        subject, message = req.field("subject"), req.field("message")
        error = self._flood_error(user)
        recipients: list[int] = []
        for name in names:
            found = self._user_by_name(name)
            if found is None and error is None:
                error = PM_NO_USER
            elif found is not None and found.user_id not in recipients:
                recipients.append(found.user_id)
        if error is None and not recipients:
            error = PM_NO_USER
        if error is None and not subject.strip():
            error = "Vous devez spécifier un sujet pour ce message."
        if error is None and not message.strip():
            error = EMPTY_MESSAGE
        if error is not None:
            return self._message(session, "Informations", fp.esc(error))
        msg_id = self._next["pm"]
        self._next["pm"] += 1
        now = self.clock()
        self._pms[msg_id] = FaPm(
            msg_id, user.user_id, recipients, subject, message, now, list(recipients)
        )
        user.last_post_time = now
        text = (
            f'{fp.esc(PM_SENT)}<br /><br />Cliquez <a href="/privmsg?folder=inbox">ici</a> pour '
            "retourner à votre boîte de réception"
        )
        return self._message(session, "Informations", text, refresh="/privmsg?folder=inbox")
