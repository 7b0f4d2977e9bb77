"""The Forumactif sandbox's reading pages (index, forum, topic, permalink) and its login."""

from __future__ import annotations

import math
import secrets
from urllib.parse import quote

from forumbot.sandbox import forumactif_pages as fp
from forumbot.sandbox.board_model import Request, Response
from forumbot.sandbox.forumactif_model import (
    LOGIN_ERROR,
    NO_FORUM,
    NO_POST,
    NO_READ,
    NO_TOPIC,
    FaTopic,
    _Session,
)


class FaViews:
    """Request handlers mixed into :class:`forumbot.sandbox.forumactif.ForumactifSandbox`;
    they use its state (``_users``, ``_topics``, ``_posts``, ``_pms``, ``_lock`` ...) and
    helpers (``_page``, ``_message``, ``_session`` ...)."""

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

    def _start_of(self, topic: FaTopic, post_id: int, session: _Session | None = None) -> int:
        ids = [p.post_id for p in self._shown_posts(session, topic.topic_id)]
        index = ids.index(post_id)
        return index // self.posts_per_page * self.posts_per_page

    def _viewforum(self, session: _Session | None, forum_id: int, start: int) -> Response:
        forum = self._forums.get(forum_id)
        if forum is None:
            return self._message(session, "Informations", fp.esc(NO_FORUM), status=404)
        if not self._may_read(session, forum_id):
            return self._message(session, "Informations", fp.esc(NO_READ))
        rows: list[fp.TopicRow] = []
        for topic in self._topics.values():
            posts = self._topic_posts(topic.topic_id)
            listed = topic.forum_id == forum_id or forum_id in topic.shadow_forum_ids
            if not listed or not posts:
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
                    last_post_url=self._topic_url(
                        topic, self._start_of(topic, last.post_id, session)
                    )
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
        start = self._start_of(topic, post.post_id, session)
        return self._redirect(f"{self._topic_url(topic, start)}#{post.post_id}")

    def _viewtopic(
        self, req: Request, session: _Session | None, topic_id: int, start: int
    ) -> Response:
        topic = self._topics.get(topic_id)
        posts = self._topic_posts(topic_id) if topic is not None else []
        if topic is None or not posts:
            return self._message(session, "Informations", fp.esc(NO_TOPIC), status=404)
        if not self._may_read(session, topic.forum_id):
            return self._message(session, "Informations", fp.esc(NO_READ))
        ascending, posts = posts, self._shown_posts(session, topic_id)
        ppp = self.posts_per_page
        if req.query.get("view") == "newest":
            newest = ascending[-1].post_id
            return self._redirect(
                f"{self._topic_url(topic, self._start_of(topic, newest, session))}#{newest}"
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
                    ("lt", str(ascending[-1].post_id)),
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
            first=self._post_view(ascending[0]),
            on_page=views,
            first_on_page=page == 1,
            zone=self.zone,
            texts={p.post_id: self._plain(p) for p in [ascending[0], *shown]},
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
