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

The records and wordings live in :mod:`forumbot.sandbox.forumactif_model` (re-exported here),
the request handlers in three mixins: :mod:`~forumbot.sandbox.forumactif_views` (reading pages,
login), :mod:`~forumbot.sandbox.forumactif_posting` (reply, new topic, edit, dice) and
:mod:`~forumbot.sandbox.forumactif_pm` (private messages).
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any
from zoneinfo import ZoneInfo

from forumbot.sandbox import forumactif_pages as fp
from forumbot.sandbox.board_model import Request, Response
from forumbot.sandbox.forumactif_members import FaMembers
from forumbot.sandbox.forumactif_model import (
    _FORUM_PATH_RE,
    _TOPIC_PATH_RE,
    BAD_AUTH,
    DEFAULT_FORUMS,
    EDIT_DENIED,
    EMPTY_MESSAGE,
    EMPTY_SUBJECT,
    FLOOD,
    GUEST_ID,
    LOGIN_ERROR,
    NEW_POST,
    NO_FORUM,
    NO_POST,
    NO_TOPIC,
    NOT_LOGGED,
    PM_NO_USER,
    PM_NOT_ALLOWED,
    PM_SENT,
    POSTED,
    Dice,
    DiceRequest,
    FaForum,
    FaPm,
    FaPost,
    FaTopic,
    FaUser,
    _dice_requests,
    _Session,
)
from forumbot.sandbox.forumactif_moderation import FaModeration
from forumbot.sandbox.forumactif_pm import FaPrivateMessages
from forumbot.sandbox.forumactif_posting import FaPosting
from forumbot.sandbox.forumactif_queue import FaQueue
from forumbot.sandbox.forumactif_views import FaViews
from forumbot.sandbox.outages import HOST_MAINTENANCE, OutageSwitch

__all__ = [
    "BAD_AUTH",
    "DEFAULT_FORUMS",
    "Dice",
    "DiceRequest",
    "EDIT_DENIED",
    "EMPTY_MESSAGE",
    "EMPTY_SUBJECT",
    "FLOOD",
    "FaForum",
    "FaPm",
    "FaPost",
    "FaTopic",
    "FaUser",
    "ForumactifSandbox",
    "GUEST_ID",
    "LOGIN_ERROR",
    "NEW_POST",
    "NOT_LOGGED",
    "NO_FORUM",
    "NO_POST",
    "NO_TOPIC",
    "PM_NOT_ALLOWED",
    "PM_NO_USER",
    "PM_SENT",
    "POSTED",
]


class ForumactifSandbox(
    FaViews, FaPosting, FaPrivateMessages, OutageSwitch, FaModeration, FaQueue, FaMembers
):
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
        self._locked_topics: set[int] = set()
        self._locked_forums: set[int] = set()
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
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # stop() returns within 50 ms, not 0.5 s
            name="sandbox-forumactif",
            daemon=True,
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

    def edit_post(
        self, post_id: int, message: str, editor: str | None = None, notice: bool = True
    ) -> None:
        """Replace a post's text; the edit line names ``editor`` (default: its author).
        ``notice=False``: an edit the page does not show (no edit line, issue 16)."""
        with self._lock:
            post = self._posts[post_id]
            post.text = message
            if not notice:
                return
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
            return [
                replace(p)
                for p in sorted(self._posts.values(), key=lambda p: p.post_id)
                if p.topic_id == topic_id
            ]

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
            (p for p in self._posts.values() if p.topic_id == topic_id and p.approved),
            key=lambda p: p.post_id,
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
        """Answer one request (thread-safe); an outage (:meth:`start_outage`) answers first."""
        is_login = req.path.rstrip("/") in ("/login", "/login.forum") and "logout" not in req.query
        blocked = self._outage_answer(
            req, is_login, lambda: Response(200, HOST_MAINTENANCE, [("Content-Type", "text/html")])
        )
        if blocked is not None:
            return blocked
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
        if path == "/memberlist":
            return self._memberlist(req, session)
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
