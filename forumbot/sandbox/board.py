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
  missing topic) in the markup of the real pages (:mod:`forumbot.sandbox.pages`); a member's
  "Display posts" order (newest first unless the URL's ``sd`` says otherwise), moved topics
  (with or without a shadow), deleted topics and forums kept to some readers (403) are in
  :mod:`~forumbot.sandbox.board_moderation`.

State can be saved to a JSON file (``state_path``) after every change and is reloaded at start,
so the board survives a restart of the process. Times come from the injectable ``clock``
(epoch seconds).

The records and wordings live in :mod:`forumbot.sandbox.board_model` (re-exported here), the
request handlers in three mixins: :mod:`~forumbot.sandbox.board_pages` (index, viewforum,
viewtopic), :mod:`~forumbot.sandbox.board_ucp` (login, logout, PMs) and
:mod:`~forumbot.sandbox.board_posting` (reply, new topic, edit).
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, replace
from email.utils import formatdate
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

from forumbot.sandbox import pages
from forumbot.sandbox.bbcode import QuoteInfo, render_bbcode
from forumbot.sandbox.board_model import (
    DEFAULT_FORUMS,
    EMPTY_SUBJECT,
    FLOOD_ERROR,
    FORM_INVALID,
    GUEST_ID,
    LOGIN_TO_POST,
    LOGIN_TO_REPLY,
    LOGIN_TO_UCP,
    NO_FORUM,
    NO_TOPIC,
    NOT_LOGGED_OUT,
    PM_EMPTY_SUBJECT,
    PM_NO_MESSAGE,
    PM_NO_RECIPIENT,
    PM_NO_USERS,
    PM_NOT_ALLOWED,
    PM_SENT,
    POST_QUEUED,
    TOO_FEW_CHARS,
    TOO_MANY_ATTEMPTS,
    WRONG_PASSWORD,
    WRONG_USERNAME,
    Forum,
    Pm,
    PostRecord,
    Request,
    Response,
    Session,
    Topic,
    User,
    _spec_forum,
    _spec_user,
    cookie_dict,
    parse_form_body,
    query_dict,
)
from forumbot.sandbox.board_moderation import BoardModeration
from forumbot.sandbox.board_pages import BoardPages
from forumbot.sandbox.board_posting import BoardPosting
from forumbot.sandbox.board_queue import BoardQueue
from forumbot.sandbox.board_ucp import BoardUcp
from forumbot.sandbox.outages import OutageSwitch
from forumbot.sandbox.pages import PostView, Viewer

__all__ = [
    "DEFAULT_FORUMS",
    "EMPTY_SUBJECT",
    "FLOOD_ERROR",
    "FORM_INVALID",
    "Forum",
    "GUEST_ID",
    "LOGIN_TO_POST",
    "LOGIN_TO_REPLY",
    "LOGIN_TO_UCP",
    "NOT_LOGGED_OUT",
    "NO_FORUM",
    "NO_TOPIC",
    "PM_EMPTY_SUBJECT",
    "PM_NOT_ALLOWED",
    "PM_NO_MESSAGE",
    "PM_NO_RECIPIENT",
    "PM_NO_USERS",
    "PM_SENT",
    "POST_QUEUED",
    "Pm",
    "PostRecord",
    "Request",
    "Response",
    "SandboxBoard",
    "Session",
    "TOO_FEW_CHARS",
    "TOO_MANY_ATTEMPTS",
    "Topic",
    "User",
    "WRONG_PASSWORD",
    "WRONG_USERNAME",
    "cookie_dict",
    "parse_form_body",
    "query_dict",
]


BOARD_DISABLED = "Le forum est actuellement désactivé."
"""phpBB's board-disabled sentence (FR), shown by the maintenance outage (issue 22)."""


class SandboxBoard(BoardPages, BoardUcp, BoardPosting, OutageSwitch, BoardModeration, BoardQueue):
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
        self._locked_topics: set[int] = set()
        self._locked_forums: set[int] = set()
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
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},  # stop() returns within 50 ms, not 0.5 s
            name="sandbox-board",
            daemon=True,
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
            "locked_topics": sorted(self._locked_topics),
            "locked_forums": sorted(self._locked_forums),
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
        self._locked_topics = set(state.get("locked_topics", []))
        self._locked_forums = set(state.get("locked_forums", []))

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

    def _post_view(self, post: PostRecord, counts: Counter[int] | None = None) -> PostView:
        """What a page shows of ``post``; ``counts``: :meth:`_approved_counts` when the page
        already counted them (once per page, not once per post)."""

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
            author_posts=(self._approved_counts() if counts is None else counts)[post.poster_id],
            time_s=post.time,
            content_html=render_bbcode(post.text, quote_info),
            edit_by_id=post.edit_user_id,
            edit_by=self._name(post.edit_user_id) if post.edit_user_id is not None else None,
            edit_time_s=post.edit_time,
            edit_count=post.edit_count,
            edit_reason=post.edit_reason,
            unapproved=not post.approved,
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
        """Answer one request (thread-safe). Sets guest cookies on a new session. An outage
        (:meth:`start_outage`) answers first."""
        is_login = req.path.rstrip("/") == "/ucp.php" and req.query.get("mode") == "login"
        blocked = self._outage_answer(req, is_login, lambda: self._disabled_page(req))
        if blocked is not None:
            return blocked
        with self._lock:
            session, fresh = self._session(req)
            resp = self._route(req, session)
            if fresh and not any(k == "Set-Cookie" for k, _ in resp.headers):
                resp.headers.extend(self._cookie_headers(session))
            resp.headers.append(("Content-type", "text/html; charset=UTF-8"))
            self._save()
            return resp

    def _disabled_page(self, req: Request) -> Response:
        """phpBB's board-disabled page (HTTP 200, its message box in the board's layout)."""
        with self._lock:
            resp = self._message(self._session(req)[0], BOARD_DISABLED)
        resp.headers.append(("Content-type", "text/html; charset=UTF-8"))
        return resp

    def _route(self, req: Request, session: Session) -> Response:
        path = req.path.rstrip("/") or "/index.php"
        routes: dict[str, Callable[[Request, Session], Response]] = {
            "/index.php": self._index,
            "/ucp.php": self._ucp,
            "/viewforum.php": self._viewforum,
            "/viewtopic.php": self._viewtopic,
            "/posting.php": self._posting,
            "/memberlist.php": self._memberlist,
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
