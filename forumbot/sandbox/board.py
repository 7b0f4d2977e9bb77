"""The sandbox board: a local test double of a phpBB 3.3.15 board (French UI, prosilver).

It speaks the HTTP flows recorded in ``fixtures/html/phpbb/FLOWS.md`` — and no more:

* sessions in cookies ``<cookie_name>_u`` / ``_k`` / ``_sid`` (path=/, HttpOnly, no Domain),
  tied to the User-Agent (browser_check), idle timeout ``session_length_s`` (3600 s), a hook
  (:meth:`SandboxBoard.expire_sessions`) to drop them silently; autologin keys are not issued
  (``_k`` stays empty, as in the captures), so an expired session really makes you a guest;
* forms carry ``creation_time`` + ``form_token`` = sha1(creation_time + user salt + form name
  [+ sid for guests]); accepted when ``1 <= int(now) - creation_time <= 7200`` (phpBB's
  ``check_form_key``), FORM_INVALID otherwise; a (creation_time, form_token) that already made a
  post is refused for ``flood_interval_s`` (the posting lock);
* login: 302 + cookies on success, 200 + ``div.error`` on failure, CAPTCHA after
  ``max_login_attempts`` wrong passwords (the CAPTCHA can never be solved here);
* posting (reply / new topic): 302 ``viewtopic.php?p=N#pN`` / ``viewtopic.php?t=N``; flood
  limit shared with PMs (per-user ``ignore_flood``); post review when ``topic_cur_post_id`` is
  stale; moderator queue for users flagged ``needs_approval``;
* PMs: compose (``u=`` short way, ``add_to`` step), 200 confirmation with meta refresh,
  inbox / outbox (unread by the recipient) / sentbox, message view (marks it read);
* viewforum / viewtopic (posts_per_page 10, ``?p=N`` renders the page holding N, 404 for a
  missing topic) in the markup of the real pages (:mod:`forumbot.sandbox.pages`).

State can be saved to a JSON file (``state_path``) after every change and is reloaded at start,
so the board survives a restart of the process. Times come from the injectable ``clock``
(epoch seconds).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from email.utils import formatdate
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from forumbot.sandbox import pages
from forumbot.sandbox.bbcode import QuoteInfo, render_bbcode
from forumbot.sandbox.pages import PostView, Viewer, esc

GUEST_ID = 1

FORM_INVALID = "Le formulaire envoyé n’est pas valide. Essayez à nouveau."
FLOOD_ERROR = "Vous ne pouvez pas poster un nouveau message, si tôt après le dernier."
WRONG_PASSWORD = (
    "Vous avez indiqué un mot de passe incorrect. Vérifiez votre mot de passe et réessayez. "
    "Si vous continuez à rencontrer des problèmes, contactez l’administrateur du forum."
)
WRONG_USERNAME = (
    "Vous avez indiqué un nom d’utilisateur incorrect. Vérifiez votre nom d’utilisateur et "
    "réessayez. Si vous continuez à rencontrer des problèmes, contactez l’administrateur du "
    "forum."
)
TOO_MANY_ATTEMPTS = (
    "Vous avez dépassé le nombre maximum autorisé de tentatives de connexion. En plus de votre "
    "nom d’utilisateur et de votre mot de passe, vous devez également valider le test CAPTCHA."
)
NO_TOPIC = "Le sujet demandé n’existe pas."
NO_FORUM = "Le forum que vous avez tenté d’atteindre n’existe pas."
TOO_FEW_CHARS = "Votre message contient trop peu de caractères."
EMPTY_SUBJECT = "Vous devez indiquer un sujet lors de la publication d’un nouveau sujet."
LOGIN_TO_REPLY = "Vous devez être connecté pour répondre aux sujets de ce forum."
LOGIN_TO_POST = "Vous devez être connecté pour écrire de nouveaux sujets dans ce forum."
LOGIN_TO_UCP = "Connectez-vous pour accéder à votre panneau d’utilisateur."
POST_QUEUED = (
    "Votre message a été posté, mais requiert l’approbation d’un modérateur avant d’être rendu "
    "visible publiquement. Vous serez averti lorsque votre message sera approuvé."
)
PM_SENT = "Votre message a été envoyé."
PM_NO_USERS = "Les utilisateurs demandés pour être ajoutés n’existent pas."
PM_NO_RECIPIENT = "Vous devez indiquer au moins un destinataire."
PM_EMPTY_SUBJECT = "Vous devez indiquer un sujet lors de la rédaction d’un nouveau message."
PM_NOT_ALLOWED = (
    "Nous sommes désolés, mais vous n’êtes pas autorisé à utiliser cette fonctionnalité. "
    "Vous venez juste de vous enregistrer et devez participer davantage pour pouvoir "
    "l’utiliser."
)
PM_NO_MESSAGE = "Le message privé demandé n’existe pas."
NOT_LOGGED_OUT = (
    "Vous n’avez pas été déconnecté, car la requête ne correspond pas à votre session. "
    "Contactez l’administrateur du forum si vous continuez à rencontrer des problèmes."
)

_PM_FOLDERS = {
    "inbox": (0, "Boîte de réception"),
    "outbox": (-2, "Boîte d’envoi"),
    "sentbox": (-1, "Messages envoyés"),
}


@dataclass
class User:
    """A board account. ``last_post_time`` (epoch s) feeds the flood check (posts and PMs)."""

    user_id: int
    name: str
    password: str
    ignore_flood: bool = False
    needs_approval: bool = False
    can_pm: bool = True
    form_salt: str = ""
    last_post_time: float = 0.0
    login_attempts: int = 0


@dataclass
class Forum:
    """A forum (``is_category`` forums hold no topics)."""

    forum_id: int
    name: str
    parent_id: int | None = None
    is_category: bool = False


@dataclass
class Topic:
    """A topic: its first post is the opening post."""

    topic_id: int
    forum_id: int
    title: str
    poster_id: int
    time: float


@dataclass
class PostRecord:
    """A post as stored (BBCode source in ``text``)."""

    post_id: int
    topic_id: int
    poster_id: int
    subject: str
    text: str
    time: float
    approved: bool = True
    edit_count: int = 0
    edit_user_id: int | None = None
    edit_time: float | None = None
    edit_reason: str | None = None


@dataclass
class Pm:
    """A private message; ``unread_by`` lists recipients who have not opened it yet."""

    msg_id: int
    author_id: int
    to_ids: list[int]
    subject: str
    text: str
    time: float
    unread_by: list[int] = field(default_factory=list)


@dataclass
class Session:
    """A board session (guests too): who, the User-Agent it is bound to, last activity."""

    sid: str
    user_id: int
    user_agent: str
    last_seen: float


@dataclass
class Request:
    """One HTTP request as the board sees it (query and form: last value of a name wins)."""

    method: str
    path: str
    query: dict[str, str]
    form: list[tuple[str, str]]
    cookies: dict[str, str]
    user_agent: str = ""
    host: str = "127.0.0.1"

    def field(self, name: str, default: str = "") -> str:
        """Form value of ``name`` (the last one, as PHP), or ``default``."""
        found = default
        for key, value in self.form:
            if key == name:
                found = value
        return found

    def has(self, name: str) -> bool:
        """True when the form has a field ``name``."""
        return any(key == name for key, _ in self.form)


@dataclass
class Response:
    """The board's answer: status, headers (Set-Cookie may repeat), HTML body."""

    status: int
    body: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)


def _spec_user(spec: Any, next_id: int) -> User:
    if isinstance(spec, User):
        return spec
    if isinstance(spec, tuple):
        return User(user_id=next_id, name=spec[0], password=spec[1])
    data = dict(spec)
    data.setdefault("user_id", next_id)
    return User(**data)


def _spec_forum(spec: Any) -> Forum:
    if isinstance(spec, Forum):
        return spec
    if isinstance(spec, tuple):
        return Forum(forum_id=spec[0], name=spec[1], parent_id=spec[2] if len(spec) > 2 else None)
    return Forum(**dict(spec))


DEFAULT_FORUMS = (
    Forum(1, "Le Club", None, True),
    Forum(2, "Club de duel", 1),
    Forum(3, "Duels en cours", 2),
    Forum(4, "Inscriptions", 1),
)


class SandboxBoard:
    """A phpBB 3.3 test double served over HTTP on 127.0.0.1.

    Args:
        users: accounts: ``(name, password)`` tuples, dicts of :class:`User` fields, or Users.
        forums: ``(forum_id, name[, parent_id])`` tuples, dicts or Forums; default: the real
            capture board's forums 1-4 (1 is a category).
        flood_interval_s: seconds between two posts/PMs of a user (phpBB default 15).
        clock: epoch seconds (tests: a fake clock).
        posts_per_page, topics_per_page: 10 / 25 (phpBB defaults).
        session_length_s: idle session lifetime (3600).
        form_token_lifetime_s: 7200; form_min_age_s: 1 (phpBB's ``check_form_key``).
        max_login_attempts: wrong passwords before the CAPTCHA (3).
        cookie_name: cookie prefix (``phpbb3_sbx01`` -> ``phpbb3_sbx01_u``/``_k``/``_sid``).
        state_path: JSON file to load at construction and save after every change, or None.
    """

    def __init__(
        self,
        users: Iterable[Any] | None = None,
        forums: Iterable[Any] | None = None,
        *,
        flood_interval_s: float = 15.0,
        clock: Callable[[], float] = time.time,
        posts_per_page: int = 10,
        topics_per_page: int = 25,
        session_length_s: float = 3600.0,
        form_token_lifetime_s: float = 7200.0,
        form_min_age_s: int = 1,
        max_login_attempts: int = 3,
        cookie_name: str = "phpbb3_sbx01",
        state_path: str | Path | None = None,
    ) -> None:
        self.flood_interval_s = flood_interval_s
        self.clock = clock
        self.posts_per_page = posts_per_page
        self.topics_per_page = topics_per_page
        self.session_length_s = session_length_s
        self.form_token_lifetime_s = form_token_lifetime_s
        self.form_min_age_s = form_min_age_s
        self.max_login_attempts = max_login_attempts
        self.cookie_name = cookie_name
        self.state_path = Path(state_path) if state_path is not None else None
        self._lock = threading.RLock()
        self._users: dict[int, User] = {}
        self._forums: dict[int, Forum] = {}
        self._topics: dict[int, Topic] = {}
        self._posts: dict[int, PostRecord] = {}
        self._pms: dict[int, Pm] = {}
        self._sessions: dict[str, Session] = {}
        self._post_locks: dict[tuple[int, str, str], float] = {}
        self._next = {"post": 1, "topic": 1, "pm": 1}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.base_url = ""
        if self.state_path is not None and self.state_path.exists():
            self._load(self.state_path)
        else:
            for forum in forums if forums is not None else DEFAULT_FORUMS:
                f = _spec_forum(forum)
                self._forums[f.forum_id] = replace(f) if isinstance(forum, Forum) else f
            for spec in users or ():
                user = _spec_user(spec, self._next_user_id())
                self._add(user)
            self._save()

    # ------------------------------------------------------------------ server

    def start(self, port: int = 0, host: str = "127.0.0.1") -> str:
        """Serve on ``host:port`` (0 = a free port) in a daemon thread; returns the base URL
        (``http://127.0.0.1:<port>``)."""
        from forumbot.sandbox.server import make_server

        self._server = make_server(self, host, port)
        real_port = self._server.server_address[1]
        self.base_url = f"http://{host}:{real_port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="sandbox-board", daemon=True
        )
        self._thread.start()
        return self.base_url

    def stop(self) -> None:
        """Stop serving (state stays in memory and, with ``state_path``, on disk)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    # ------------------------------------------------------------------ helpers for tests

    def _next_user_id(self) -> int:
        return max([GUEST_ID, *self._users]) + 1

    def _add(self, user: User) -> None:
        if not user.form_salt:
            user.form_salt = secrets.token_hex(8)
        self._users[user.user_id] = user

    def add_user(
        self,
        name: str,
        password: str,
        user_id: int | None = None,
        ignore_flood: bool = False,
        *,
        needs_approval: bool = False,
        can_pm: bool = True,
    ) -> int:
        """Create an account; returns its user id (next free id when ``user_id`` is None)."""
        with self._lock:
            uid = user_id if user_id is not None else self._next_user_id()
            if uid in self._users or uid == GUEST_ID:
                raise ValueError(f"user id {uid} is taken")
            if self._user_by_name(name) is not None:
                raise ValueError(f"user {name!r} exists")
            self._add(User(uid, name, password, ignore_flood, needs_approval, can_pm=can_pm))
            self._save()
            return uid

    def add_forum(self, forum_id: int, name: str, parent_id: int | None = None) -> None:
        """Create a forum."""
        with self._lock:
            self._forums[forum_id] = Forum(forum_id, name, parent_id)
            self._save()

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
            topic_id = self._new_topic(forum_id, self.user_id(author), subject, message)
            self._save()
            return topic_id

    def post_reply(self, topic_id: int, author: str, message: str) -> int:
        """Reply server-side as ``author`` (a scripted duellist); returns the post id.
        Updates the author's last post time, as a real post would."""
        with self._lock:
            topic = self._topics[topic_id]
            user = self._users[self.user_id(author)]
            post_id = self._new_post(topic, user.user_id, f"Re: {topic.title}", message)
            user.last_post_time = self.clock()
            self._save()
            return post_id

    def edit_post(self, post_id: int, message: str, by: str, reason: str | None = None) -> None:
        """Edit a post as ``by``. As on the real board, the "Modifié en dernier par" notice is
        recorded unless the author edits the topic's last post without a reason; a reason is
        kept only when ``by`` is not the author (a moderator)."""
        with self._lock:
            post = self._posts[post_id]
            editor = self.user_id(by)
            post.text = message
            is_last = post.post_id == self._visible_posts(post.topic_id)[-1].post_id
            moderator = editor != post.poster_id
            if moderator or not is_last:
                post.edit_count += 1
                post.edit_user_id = editor
                post.edit_time = self.clock()
                post.edit_reason = reason if moderator and reason else post.edit_reason
            self._save()

    def delete_post(self, post_id: int) -> None:
        """Delete a post (a moderator's soft action, seen by readers as a vanished post)."""
        with self._lock:
            del self._posts[post_id]
            self._save()

    def posts(self, topic_id: int) -> list[PostRecord]:
        """Copies of the topic's posts (approved and queued), in order."""
        with self._lock:
            return [
                replace(p)
                for p in sorted(self._posts.values(), key=lambda p: p.post_id)
                if p.topic_id == topic_id
            ]

    def topics(self, forum_id: int | None = None) -> list[Topic]:
        """Copies of the topics (of one forum when ``forum_id`` is given)."""
        with self._lock:
            return [
                replace(t)
                for t in self._topics.values()
                if forum_id is None or t.forum_id == forum_id
            ]

    def pms(self) -> list[Pm]:
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
            self._save()

    def reset_login_attempts(self, name: str) -> None:
        """Forget a user's wrong passwords (an admin resetting the CAPTCHA counter)."""
        with self._lock:
            self._users[self.user_id(name)].login_attempts = 0
            self._save()

    # ------------------------------------------------------------------ persistence

    def _save(self) -> None:
        if self.state_path is None:
            return
        state = {
            "next": self._next,
            "users": [asdict(u) for u in self._users.values()],
            "forums": [asdict(f) for f in self._forums.values()],
            "topics": [asdict(t) for t in self._topics.values()],
            "posts": [asdict(p) for p in self._posts.values()],
            "pms": [asdict(m) for m in self._pms.values()],
            "sessions": [asdict(s) for s in self._sessions.values()],
        }
        tmp = self.state_path.with_suffix(self.state_path.suffix + ".tmp")
        tmp.write_text(json.dumps(state, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(tmp, self.state_path)

    def _load(self, path: Path) -> None:
        state = json.loads(path.read_text(encoding="utf-8"))
        self._next = dict(state["next"])
        self._users = {u["user_id"]: User(**u) for u in state["users"]}
        self._forums = {f["forum_id"]: Forum(**f) for f in state["forums"]}
        self._topics = {t["topic_id"]: Topic(**t) for t in state["topics"]}
        self._posts = {p["post_id"]: PostRecord(**p) for p in state["posts"]}
        self._pms = {m["msg_id"]: Pm(**m) for m in state["pms"]}
        self._sessions = {s["sid"]: Session(**s) for s in state["sessions"]}

    # ------------------------------------------------------------------ model

    def _user_by_name(self, name: str) -> User | None:
        clean = name.strip().casefold()
        return next((u for u in self._users.values() if u.name.casefold() == clean), None)

    def _name(self, user_id: int) -> str:
        user = self._users.get(user_id)
        return user.name if user is not None else "Invité"

    def _new_topic(self, forum_id: int, poster_id: int, subject: str, message: str) -> int:
        topic_id = self._next["topic"]
        self._next["topic"] += 1
        topic = Topic(topic_id, forum_id, subject, poster_id, self.clock())
        self._topics[topic_id] = topic
        self._new_post(topic, poster_id, subject, message)
        return topic_id

    def _new_post(
        self, topic: Topic, poster_id: int, subject: str, message: str, approved: bool = True
    ) -> int:
        post_id = self._next["post"]
        self._next["post"] += 1
        self._posts[post_id] = PostRecord(
            post_id, topic.topic_id, poster_id, subject, message, self.clock(), approved
        )
        return post_id

    def _visible_posts(self, topic_id: int) -> list[PostRecord]:
        return sorted(
            (p for p in self._posts.values() if p.topic_id == topic_id and p.approved),
            key=lambda p: p.post_id,
        )

    def _post_view(self, post: PostRecord) -> PostView:
        def quote_info(pid: int) -> QuoteInfo:
            quoted = self._posts.get(pid)
            if quoted is None:
                return QuoteInfo()
            return QuoteInfo(user_id=quoted.poster_id, time_s=quoted.time)

        return PostView(
            post_id=post.post_id,
            subject=post.subject,
            author_id=post.poster_id,
            author=self._name(post.poster_id),
            author_posts=sum(
                1 for p in self._posts.values() if p.poster_id == post.poster_id and p.approved
            ),
            time_s=post.time,
            content_html=render_bbcode(post.text, quote_info),
            edit_by_id=post.edit_user_id,
            edit_by=self._name(post.edit_user_id) if post.edit_user_id is not None else None,
            edit_time_s=post.edit_time,
            edit_count=post.edit_count,
            edit_reason=post.edit_reason,
        )

    # ------------------------------------------------------------------ sessions & forms

    def _cookie_headers(self, session: Session) -> list[tuple[str, str]]:
        expires = formatdate(max(self.clock(), time.time()) + 31536000, usegmt=True)
        return [
            ("Set-Cookie", f"{self.cookie_name}_{key}={value}; expires={expires}; path=/; HttpOnly")
            for key, value in (("u", str(session.user_id)), ("k", ""), ("sid", session.sid))
        ]

    def _new_session(self, user_id: int, user_agent: str) -> Session:
        session = Session(secrets.token_hex(16), user_id, user_agent, self.clock())
        self._sessions[session.sid] = session
        return session

    def _session(self, req: Request) -> tuple[Session, bool]:
        """The request's session and whether it was just created (cookies to send)."""
        now = self.clock()
        sid = req.cookies.get(f"{self.cookie_name}_sid") or req.query.get("sid", "")
        session = self._sessions.get(sid)
        if session is not None and (
            now - session.last_seen > self.session_length_s
            or session.user_agent != req.user_agent
            or (session.user_id != GUEST_ID and session.user_id not in self._users)
        ):
            del self._sessions[sid]
            session = None
        if session is None:
            return self._new_session(GUEST_ID, req.user_agent), True
        session.last_seen = now
        return session, False

    def _form_token(self, session: Session, creation_time: int, form_name: str) -> str:
        user = self._users.get(session.user_id)
        salt = user.form_salt if user is not None else "guest"
        extra = session.sid if session.user_id == GUEST_ID else ""
        raw = f"{creation_time}{salt}{form_name}{extra}"
        return hashlib.sha1(raw.encode("utf-8")).hexdigest()

    def _form_key(self, session: Session, form_name: str) -> list[tuple[str, str]]:
        creation_time = int(self.clock())
        token = self._form_token(session, creation_time, form_name)
        return [("creation_time", str(creation_time)), ("form_token", token)]

    def _check_form_key(self, session: Session, req: Request, form_name: str) -> bool:
        raw_time = req.field("creation_time")
        if not raw_time.isdigit():
            return False
        creation_time = int(raw_time)
        diff = int(self.clock()) - creation_time
        if diff < self.form_min_age_s or diff > self.form_token_lifetime_s:
            return False
        expected = self._form_token(session, creation_time, form_name)
        return secrets.compare_digest(expected, req.field("form_token"))

    def _viewer(self, session: Session) -> Viewer:
        if session.user_id == GUEST_ID:
            return Viewer(GUEST_ID, None, session.sid)
        unread = sum(1 for m in self._pms.values() if session.user_id in m.unread_by)
        return Viewer(session.user_id, self._name(session.user_id), session.sid, unread)

    # ------------------------------------------------------------------ dispatch

    def handle(self, req: Request) -> Response:
        """Answer one request (thread-safe). Sets guest cookies on a new session."""
        with self._lock:
            session, fresh = self._session(req)
            resp = self._route(req, session)
            if fresh and not any(k == "Set-Cookie" for k, _ in resp.headers):
                resp.headers.extend(self._cookie_headers(session))
            resp.headers.append(("Content-type", "text/html; charset=UTF-8"))
            self._save()
            return resp

    def _route(self, req: Request, session: Session) -> Response:
        path = req.path.rstrip("/") or "/index.php"
        routes: dict[str, Callable[[Request, Session], Response]] = {
            "/index.php": self._index,
            "/ucp.php": self._ucp,
            "/viewforum.php": self._viewforum,
            "/viewtopic.php": self._viewtopic,
            "/posting.php": self._posting,
        }
        handler = routes.get(path)
        if handler is None:
            return Response(404, "<!DOCTYPE html><html><body><h1>404</h1></body></html>")
        return handler(req, session)

    def _page(
        self,
        session: Session,
        title: str,
        body: str,
        *,
        status: int = 200,
        section: str = "index",
        canonical: str | None = None,
        refresh: tuple[int, str] | None = None,
    ) -> Response:
        html = pages.layout(
            f"{title} - Club de duel (bac à sable)",
            body,
            self._viewer(session),
            section=section,
            canonical=canonical,
            refresh=refresh,
        )
        return Response(status, html)

    def _message(
        self,
        session: Session,
        text: str,
        status: int = 200,
        links: str = "",
        refresh: tuple[int, str] | None = None,
    ) -> Response:
        return self._page(
            session, "Informations", pages.message_box(text, links), status=status, refresh=refresh
        )

    def _login_box(self, session: Session, title: str, req: Request) -> Response:
        body = pages.login_form(
            "./ucp.php?mode=login", self._form_key(session, "login"), session.sid, title=title
        )
        return self._page(session, "Connexion", body, section="ucp")

    def _redirect(
        self, req: Request, target: str, extra: Sequence[tuple[str, str]] = ()
    ) -> Response:
        return Response(302, "", [("Location", f"http://{req.host}/{target}"), *extra])

    # ------------------------------------------------------------------ pages

    def _index(self, req: Request, session: Session) -> Response:
        rows = []
        for forum in sorted(self._forums.values(), key=lambda f: f.forum_id):
            if forum.is_category:
                continue
            topic_ids = {t.topic_id for t in self._topics.values() if t.forum_id == forum.forum_id}
            posts = sum(1 for p in self._posts.values() if p.topic_id in topic_ids and p.approved)
            rows.append((forum.forum_id, forum.name, len(topic_ids), posts))
        return self._page(session, "Index du forum", pages.index_body(rows))

    def _viewforum(self, req: Request, session: Session) -> Response:
        forum_id = int(req.query["f"]) if req.query.get("f", "").isdigit() else 0
        forum = self._forums.get(forum_id)
        if forum is None:
            return self._message(session, NO_FORUM, status=404)
        rows = []
        for topic in self._topics.values():
            if topic.forum_id != forum_id:
                continue
            visible = self._visible_posts(topic.topic_id)
            if not visible:
                continue
            last = visible[-1]
            rows.append(
                pages.TopicRowView(
                    topic_id=topic.topic_id,
                    title=topic.title,
                    poster_id=topic.poster_id,
                    poster=self._name(topic.poster_id),
                    time_s=topic.time,
                    replies=len(visible) - 1,
                    last_post_id=last.post_id,
                    last_poster_id=last.poster_id,
                    last_poster=self._name(last.poster_id),
                    last_time_s=last.time,
                )
            )
        rows.sort(key=lambda r: r.last_post_id, reverse=True)
        rows = rows[: self.topics_per_page]
        body = pages.forum_body(forum_id, forum.name, rows, session.user_id != GUEST_ID)
        return self._page(session, forum.name, body, section="viewforum")

    def _viewtopic(self, req: Request, session: Session) -> Response:
        q = req.query
        topic: Topic | None = None
        posts: list[PostRecord] = []
        start = int(q["start"]) if q.get("start", "").isdigit() else 0
        if q.get("p", "").isdigit():
            post = self._posts.get(int(q["p"]))
            if post is not None and post.approved:
                topic = self._topics.get(post.topic_id)
                posts = self._visible_posts(post.topic_id)
                index = next(i for i, p in enumerate(posts) if p.post_id == post.post_id)
                start = index // self.posts_per_page * self.posts_per_page
        elif q.get("t", "").isdigit():
            topic = self._topics.get(int(q["t"]))
            if topic is not None:
                posts = self._visible_posts(topic.topic_id)
        if topic is None or not posts:
            return self._message(session, NO_TOPIC, status=404)
        ppp = self.posts_per_page
        pages_count = max(1, math.ceil(len(posts) / ppp))
        start = min(start - start % ppp, (pages_count - 1) * ppp)
        page = start // ppp + 1
        shown = posts[start : start + ppp]
        logged_in = session.user_id != GUEST_ID
        posts_html = "".join(
            pages.post_html(self._post_view(p), i, logged_in) for i, p in enumerate(shown)
        )
        quick_reply = None
        if logged_in:  # the real board shows the quick reply on every page
            quick_reply = [
                *self._form_key(session, "posting"),
                ("topic_cur_post_id", str(posts[-1].post_id)),
                ("topic_id", str(topic.topic_id)),
                ("forum_id", str(topic.forum_id)),
                ("attach_sig", "1"),
            ]
        forum = self._forums[topic.forum_id]
        body = pages.topic_body(
            topic_id=topic.topic_id,
            forum_id=forum.forum_id,
            forum_name=forum.name,
            title=topic.title,
            start=start,
            posts_html=posts_html,
            pagination=pages.topic_pagination(topic.topic_id, len(posts), page, pages_count, ppp),
            logged_in=logged_in,
            quick_reply=quick_reply,
        )
        title = topic.title + (f" - Page {page}" if page > 1 else "")
        canonical = f"http://{req.host}/viewtopic.php?t={topic.topic_id}" + (
            f"&start={start}" if start else ""
        )
        return self._page(session, title, body, section="viewtopic", canonical=canonical)

    # ------------------------------------------------------------------ ucp: login, logout, PMs

    def _ucp(self, req: Request, session: Session) -> Response:
        mode = req.query.get("mode", "")
        if mode == "login":
            if req.method == "POST":
                return self._login_post(req, session)
            if session.user_id != GUEST_ID:
                return self._redirect(req, "index.php")
            return self._login_box(session, "Connexion", req)
        if mode == "logout":
            if req.query.get("sid") != session.sid or session.user_id == GUEST_ID:
                return self._message(session, NOT_LOGGED_OUT)
            del self._sessions[session.sid]
            guest = self._new_session(GUEST_ID, req.user_agent)
            return self._redirect(req, f"index.php?sid={guest.sid}", self._cookie_headers(guest))
        if req.query.get("i") in ("pm", "ucp_pm"):
            if session.user_id == GUEST_ID:
                return self._login_box(session, LOGIN_TO_UCP, req)
            return self._pm(req, session)
        if session.user_id == GUEST_ID:
            return self._login_box(session, LOGIN_TO_UCP, req)
        return self._page(
            session, "Panneau de l’utilisateur", "<h2>Panneau de l’utilisateur</h2>", section="ucp"
        )

    def _login_post(self, req: Request, session: Session) -> Response:
        def again(error: str, captcha: bool = False) -> Response:
            body = pages.login_form(
                "./ucp.php?mode=login",
                self._form_key(session, "login"),
                session.sid,
                error=error,
                captcha_id=secrets.token_hex(16) if captcha else None,
            )
            return self._page(session, "Connexion", body, section="ucp")

        if not self._check_form_key(session, req, "login"):
            return again(FORM_INVALID)
        user = self._user_by_name(req.field("username"))
        if user is None:
            return again(WRONG_USERNAME)
        if user.login_attempts >= self.max_login_attempts:
            user.login_attempts += 1
            return again(TOO_MANY_ATTEMPTS, captcha=True)
        if not secrets.compare_digest(user.password, req.field("password")):
            user.login_attempts += 1
            return again(WRONG_PASSWORD)
        user.login_attempts = 0
        self._sessions.pop(session.sid, None)
        new = self._new_session(user.user_id, req.user_agent)
        return self._redirect(req, f"index.php?sid={new.sid}", self._cookie_headers(new))

    # PMs ---------------------------------------------------------------

    def _pm(self, req: Request, session: Session) -> Response:
        q = req.query
        user = self._users[session.user_id]
        if q.get("mode") == "compose":
            if not user.can_pm:
                return self._page(
                    session, "Rédiger un message", pages.message_box(PM_NOT_ALLOWED), section="ucp"
                )
            if req.method == "POST":
                return self._pm_post(req, session, user)
            recipients: list[int] = []
            if q.get("u", "").isdigit() and int(q["u"]) in self._users:
                recipients.append(int(q["u"]))
            return self._pm_form(session, recipients, "", "", None)
        if q.get("p", "").isdigit():
            return self._pm_view(session, int(q["p"]))
        folder = q.get("folder", "inbox")
        if folder not in _PM_FOLDERS:
            folder = "inbox"
        return self._pm_folder(session, folder)

    def _pm_form(
        self,
        session: Session,
        recipients: list[int],
        subject: str,
        message: str,
        error: str | None,
    ) -> Response:
        fields = [(f"address_list[u][{uid}]", "to") for uid in recipients]
        fields += [("status_switch", "0"), *self._form_key(session, "ucp_pm_compose")]
        body = pages.posting_form(
            action=f"./ucp.php?i=pm&mode=compose&action=post&sid={session.sid}",
            heading="Rédiger un message",
            title_html='<h2 class="posting-title">Rédiger un message</h2>',
            subject=subject,
            message=message,
            fields=fields,
            error=error,
            pm_recipients=[(uid, self._name(uid)) for uid in recipients],
        )
        return self._page(session, "Rédiger un message", body, section="ucp")

    def _pm_post(self, req: Request, session: Session, user: User) -> Response:
        recipients = []
        for key, value in req.form:
            if key.startswith("address_list[u][") and value in ("to", "bcc"):
                raw = key[len("address_list[u][") : -1]
                if raw.isdigit() and int(raw) in self._users and int(raw) not in recipients:
                    recipients.append(int(raw))
        for key, _ in req.form:
            if key.startswith("remove_u[") and key[9:-1].isdigit():
                recipients = [r for r in recipients if r != int(key[9:-1])]
        subject, message = req.field("subject"), req.field("message")
        names = [n.strip() for n in req.field("username_list").splitlines() if n.strip()]
        if names or req.has("add_to") or req.has("add_bcc"):
            error = None
            for name in names:
                found = self._user_by_name(name)
                if found is None:
                    error = PM_NO_USERS
                elif found.user_id not in recipients:
                    recipients.append(found.user_id)
            return self._pm_form(session, recipients, subject, message, error)
        if not req.has("post"):
            return self._pm_form(session, recipients, subject, message, None)
        now = self.clock()
        error = None
        if not self._check_form_key(session, req, "ucp_pm_compose"):
            error = FORM_INVALID
        elif not user.ignore_flood and now - user.last_post_time < self.flood_interval_s:
            error = FLOOD_ERROR
        elif not recipients:
            error = PM_NO_RECIPIENT
        elif not subject.strip():
            error = PM_EMPTY_SUBJECT
        elif not message.strip():
            error = TOO_FEW_CHARS
        if error is not None:
            return self._pm_form(session, recipients, subject, message, error)
        msg_id = self._next["pm"]
        self._next["pm"] += 1
        self._pms[msg_id] = Pm(
            msg_id, user.user_id, recipients, subject, message, now, list(recipients)
        )
        user.last_post_time = now
        view = f"./ucp.php?i=pm&amp;mode=view&amp;p={msg_id}"
        links = (
            f'<a href="{view}">Voir le message privé envoyé</a><br /><br />'
            '<a href="./ucp.php?i=pm&amp;folder=outbox"> Retour à votre dossier '
            "« Boîte d’envoi » </a>"
        )
        target = f"http://{req.host}/ucp.php?i=pm&mode=view&p={msg_id}"
        return self._page(
            session,
            "Informations",
            pages.message_box(PM_SENT, links),
            section="ucp",
            refresh=(3, target),
        )

    def _pm_folder(self, session: Session, folder: str) -> Response:
        uid = session.user_id
        rows = []
        for pm in sorted(self._pms.values(), key=lambda m: m.msg_id, reverse=True):
            if folder == "inbox" and uid in pm.to_ids:
                other = pm.author_id
                unread = uid in pm.unread_by
            elif folder == "outbox" and pm.author_id == uid and pm.unread_by:
                other, unread = pm.to_ids[0], False
            elif folder == "sentbox" and pm.author_id == uid and not pm.unread_by:
                other, unread = pm.to_ids[0], False
            else:
                continue
            rows.append(
                pages.PmRowView(pm.msg_id, pm.subject, other, self._name(other), pm.time, unread)
            )
        folder_id, title = _PM_FOLDERS[folder]
        return self._page(
            session, title, pages.pm_folder_body(folder, folder_id, title, rows), section="ucp"
        )

    def _pm_view(self, session: Session, msg_id: int) -> Response:
        pm = self._pms.get(msg_id)
        uid = session.user_id
        if pm is None or (uid != pm.author_id and uid not in pm.to_ids):
            return self._page(
                session, "Informations", pages.message_box(PM_NO_MESSAGE), section="ucp"
            )
        if uid in pm.unread_by:
            pm.unread_by.remove(uid)
        body = pages.pm_view_body(
            pm.msg_id,
            pm.subject,
            pm.author_id,
            self._name(pm.author_id),
            pm.to_ids[0],
            self._name(pm.to_ids[0]),
            pm.time,
            render_bbcode(pm.text),
        )
        return self._page(session, pm.subject, body, section="ucp")

    # ------------------------------------------------------------------ posting

    def _posting(self, req: Request, session: Session) -> Response:
        q = req.query
        mode = q.get("mode", "")
        if mode == "edit":
            return self._posting_edit(req, session)
        topic: Topic | None = None
        forum: Forum | None = None
        prefill = ""
        if mode == "quote" and q.get("p", "").isdigit():
            quoted = self._posts.get(int(q["p"]))
            if quoted is not None and quoted.approved:
                topic = self._topics.get(quoted.topic_id)
                prefill = (
                    f'[quote="{self._name(quoted.poster_id)}" post_id={quoted.post_id} '
                    f"time={int(quoted.time)} user_id={quoted.poster_id}]\n{quoted.text}\n"
                    "[/quote]\n"
                )
            mode = "reply"
        elif mode == "reply" and q.get("t", "").isdigit():
            topic = self._topics.get(int(q["t"]))
        elif mode == "post" and q.get("f", "").isdigit():
            forum = self._forums.get(int(q["f"]))
            if forum is not None and forum.is_category:
                forum = None
        else:
            return self._message(session, NO_TOPIC, status=404)
        if mode == "reply" and (topic is None or not self._visible_posts(topic.topic_id)):
            return self._message(session, NO_TOPIC, status=404)
        if mode == "post" and forum is None:
            return self._message(session, NO_FORUM, status=404)
        if session.user_id == GUEST_ID:
            return self._login_box(
                session, LOGIN_TO_REPLY if mode == "reply" else LOGIN_TO_POST, req
            )
        if req.method == "POST" and req.has("post"):
            return self._posting_submit(req, session, mode, topic, forum)
        if req.method == "POST":
            return self._posting_form(
                session, mode, topic, forum, req.field("subject"), req.field("message"), None
            )
        subject = f"Re: {topic.title}" if topic is not None else ""
        return self._posting_form(session, mode, topic, forum, subject, prefill, None)

    def _posting_form(
        self,
        session: Session,
        mode: str,
        topic: Topic | None,
        forum: Forum | None,
        subject: str,
        message: str,
        error: str | None,
        review: Sequence[PostRecord] = (),
    ) -> Response:
        fields: list[tuple[str, str]] = []
        if topic is not None:
            action = f"./posting.php?mode=reply&t={topic.topic_id}"
            fields.append(
                ("topic_cur_post_id", str(self._visible_posts(topic.topic_id)[-1].post_id))
            )
            title_html = (
                f'<h2 class="posting-title"><a href="./viewtopic.php?t={topic.topic_id}">'
                f"{esc(topic.title)}</a></h2>"
            )
            heading = "Répondre"
        else:
            assert forum is not None
            action = f"./posting.php?mode=post&f={forum.forum_id}"
            title_html = (
                f'<h2 class="posting-title"><a href="./viewforum.php?f={forum.forum_id}">'
                f"{esc(forum.name)}</a></h2>"
            )
            heading = "Écrire un nouveau sujet"
        fields += [("show_panel", "options-panel"), *self._form_key(session, "posting")]
        review_html = (
            pages.post_review_block([self._post_view(p) for p in review]) if review else ""
        )
        body = pages.posting_form(
            action=action,
            heading=heading,
            title_html=title_html,
            subject=subject,
            message=message,
            fields=fields,
            error=error,
            review_html=review_html,
        )
        return self._page(session, heading, body, section="posting")

    def _posting_submit(
        self, req: Request, session: Session, mode: str, topic: Topic | None, forum: Forum | None
    ) -> Response:
        user = self._users[session.user_id]
        now = self.clock()
        subject, message = req.field("subject"), req.field("message")
        self._post_locks = {k: v for k, v in self._post_locks.items() if v > now}
        lock = (user.user_id, req.field("creation_time"), req.field("form_token"))
        error = None
        if not self._check_form_key(session, req, "posting") or lock in self._post_locks:
            error = FORM_INVALID
        elif not user.ignore_flood and now - user.last_post_time < self.flood_interval_s:
            error = FLOOD_ERROR
        elif not message.strip():
            error = TOO_FEW_CHARS
        elif mode == "post" and not subject.strip():
            error = EMPTY_SUBJECT
        if error is not None:
            return self._posting_form(session, mode, topic, forum, subject, message, error)
        if topic is not None:
            visible = self._visible_posts(topic.topic_id)
            cur = req.field("topic_cur_post_id")
            if cur.isdigit() and int(cur) < visible[-1].post_id:
                newer = [p for p in visible if p.post_id > int(cur)]
                return self._posting_form(
                    session,
                    mode,
                    topic,
                    forum,
                    subject,
                    message,
                    None,
                    review=list(reversed(newer)),
                )
        self._post_locks[lock] = now + self.flood_interval_s
        user.last_post_time = now
        if topic is not None:
            post_id = self._new_post(
                topic,
                user.user_id,
                subject or f"Re: {topic.title}",
                message,
                approved=not user.needs_approval,
            )
            if user.needs_approval:
                return self._queued(
                    req, session, f"viewtopic.php?t={topic.topic_id}", topic.forum_id
                )
            return self._redirect(req, f"viewtopic.php?p={post_id}#p{post_id}")
        assert forum is not None
        topic_id = self._new_topic(forum.forum_id, user.user_id, subject.strip(), message)
        if user.needs_approval:
            self._posts[max(self._posts)].approved = False
            return self._queued(req, session, f"viewforum.php?f={forum.forum_id}", forum.forum_id)
        return self._redirect(req, f"viewtopic.php?t={topic_id}")

    def _posting_edit(self, req: Request, session: Session) -> Response:
        """``posting.php?mode=edit&p=N`` (FLOWS.md "Edit"): GET gives ``form#postform`` with
        the current message and the hidden ``edit_post_message_checksum`` /
        ``edit_post_subject_checksum`` (md5); POST ``message`` (+ ``post``) saves it and answers
        **302** ``viewtopic.php?p=N#pN``. Only the post's author may edit here (the sandbox has
        no moderator rights); an edit reason is dropped, as phpBB does for ordinary users.
        Edits are exempt from the flood limit."""
        raw = req.query.get("p", "")
        post = self._posts.get(int(raw)) if raw.isdigit() else None
        if post is None or not post.approved:
            return self._message(session, NO_TOPIC, status=404)
        topic = self._topics[post.topic_id]
        if session.user_id == GUEST_ID:
            return self._login_box(session, LOGIN_TO_REPLY, req)
        if session.user_id != post.poster_id:
            return self._message(
                session, "Vous n’êtes pas autorisé à éditer les messages de ce forum."
            )
        if req.method == "POST" and req.has("post"):
            message = req.field("message")
            error = None
            if not self._check_form_key(session, req, "posting"):
                error = FORM_INVALID
            elif not message.strip():
                error = TOO_FEW_CHARS
            if error is None:
                self.edit_post(post.post_id, message, by=self._name(session.user_id))
                return self._redirect(req, f"viewtopic.php?p={post.post_id}#p{post.post_id}")
            return self._edit_form(session, topic, post, req.field("subject"), message, error)
        return self._edit_form(session, topic, post, post.subject, post.text, None)

    def _edit_form(
        self,
        session: Session,
        topic: Topic,
        post: PostRecord,
        subject: str,
        message: str,
        error: str | None,
    ) -> Response:
        checksums = [
            ("edit_post_message_checksum", hashlib.md5(post.text.encode("utf-8")).hexdigest()),
            ("edit_post_subject_checksum", hashlib.md5(post.subject.encode("utf-8")).hexdigest()),
        ]
        fields = [*checksums, ("show_panel", "options-panel"), *self._form_key(session, "posting")]
        title_html = (
            f'<h2 class="posting-title"><a href="./viewtopic.php?t={topic.topic_id}">'
            f"{esc(topic.title)}</a></h2>"
        )
        body = pages.posting_form(
            action=f"./posting.php?mode=edit&p={post.post_id}",
            heading="Éditer le message",
            title_html=title_html,
            subject=subject,
            message=message,
            fields=fields,
            error=error,
        )
        return self._page(session, "Éditer le message", body, section="posting")

    def _queued(self, req: Request, session: Session, target: str, forum_id: int) -> Response:
        links = f'<a href="./viewforum.php?f={forum_id}">Retourner au dernier forum visité</a>'
        return self._message(
            session, POST_QUEUED, links=links, refresh=(10, f"http://{req.host}/{target}")
        )


def parse_form_body(content_type: str, body: bytes) -> list[tuple[str, str]]:
    """Fields of a POST body: ``application/x-www-form-urlencoded`` or ``multipart/form-data``
    (file parts ignored). Order and repeated names are kept."""
    if content_type.startswith("multipart/form-data"):
        from email.parser import BytesParser
        from email.policy import HTTP

        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + body
        )
        out: list[tuple[str, str]] = []
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not name or part.get_filename():
                continue
            raw = part.get_payload(decode=True)
            payload = raw if isinstance(raw, bytes) else b""
            out.append((str(name), payload.decode("utf-8", "replace")))
        return out
    return parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)


def query_dict(query: str) -> dict[str, str]:
    """Query string -> dict (the last value of a name wins, as PHP)."""
    return dict(parse_qsl(query, keep_blank_values=True))


def cookie_dict(header: str | None) -> dict[str, str]:
    """``Cookie`` header -> dict."""
    out: dict[str, str] = {}
    for part in (header or "").split(";"):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out
