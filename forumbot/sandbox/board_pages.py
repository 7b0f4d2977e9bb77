"""The sandbox phpBB board's reading pages: index, viewforum, viewtopic, a member's profile."""

from __future__ import annotations

import math
from collections import Counter

from forumbot.sandbox import pages
from forumbot.sandbox.board_model import (
    GUEST_ID,
    NO_FORUM,
    NO_TOPIC,
    SORRY_AUTH_READ,
    PostRecord,
    Request,
    Response,
    Session,
    Topic,
)
from forumbot.sandbox.pages_layout import esc


class BoardPages:
    """Request handlers mixed into :class:`forumbot.sandbox.board.SandboxBoard`; they use
    its state (``_users``, ``_topics``, ``_posts``, ``_pms``, ``_lock`` ...) and helpers
    (``_page``, ``_message``, ``_form_key`` ...)."""

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

    def _visible_by_topic(self) -> dict[int, list[PostRecord]]:
        """Every topic's :meth:`_visible_posts` (approved, by post id), in one pass over the
        board's posts (a forum listing shows every topic's last post)."""
        out: dict[int, list[PostRecord]] = {}
        for p in sorted(self._posts.values(), key=lambda p: p.post_id):
            if p.approved:
                out.setdefault(p.topic_id, []).append(p)
        return out

    def _approved_counts(self) -> Counter[int]:
        """Approved posts per poster id (the « Messages » count beside each post)."""
        return Counter(p.poster_id for p in self._posts.values() if p.approved)

    def _viewforum(self, req: Request, session: Session) -> Response:
        forum_id = int(req.query["f"]) if req.query.get("f", "").isdigit() else 0
        forum = self._forums.get(forum_id)
        if forum is None:
            return self._message(session, NO_FORUM, status=404)
        if not self._may_read(session, forum_id):
            return self._refused(req, session)
        rows = []
        by_topic = self._visible_by_topic()
        for topic in self._topics.values():
            if topic.forum_id != forum_id and forum_id not in topic.shadow_forum_ids:
                continue
            visible = by_topic.get(topic.topic_id, [])
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
        per_page = self.topics_per_page
        start = int(req.query["start"]) if req.query.get("start", "").isdigit() else 0
        start = min(start - start % per_page, max(0, len(rows) - 1) // per_page * per_page)
        total_pages = max(1, -(-len(rows) // per_page))
        body = pages.forum_body(
            forum_id, forum.name, rows[start : start + per_page], session.user_id != GUEST_ID,
            page=start // per_page + 1, pages=total_pages, per_page=per_page, total=len(rows),
        )  # fmt: skip
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
            if topic is not None:  # the viewer's own posts awaiting approval too (phpBB 3.3)
                posts = self._shown_posts(topic.topic_id, session.user_id)
        if topic is None or not posts:
            return self._message(session, NO_TOPIC, status=404)
        if not self._may_read(session, topic.forum_id):
            return self._refused(req, session)
        ascending = posts
        if self._post_order(session, q.get("sd")) == "d":  # newest first: p= counts from it
            posts = posts[::-1]
            if q.get("p", "").isdigit():
                index = next(i for i, p in enumerate(posts) if p.post_id == int(q["p"]))
                start = index // self.posts_per_page * self.posts_per_page
        ppp = self.posts_per_page
        pages_count = max(1, math.ceil(len(posts) / ppp))
        start = min(start - start % ppp, (pages_count - 1) * ppp)
        page = start // ppp + 1
        shown = posts[start : start + ppp]
        logged_in = session.user_id != GUEST_ID
        counts = self._approved_counts()
        posts_html = "".join(
            pages.post_html(self._post_view(p, counts), i, logged_in) for i, p in enumerate(shown)
        )
        quick_reply = None
        locked = self._is_locked(topic)
        if logged_in and not locked:  # the real board shows the quick reply on every page
            quick_reply = [
                *self._form_key(session, "posting"),
                ("topic_cur_post_id", str(ascending[-1].post_id)),
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
            locked=locked,
        )
        title = topic.title + (f" - Page {page}" if page > 1 else "")
        canonical = f"http://{req.host}/viewtopic.php?t={topic.topic_id}" + (
            f"&start={start}" if start else ""
        )
        return self._page(session, title, body, section="viewtopic", canonical=canonical)

    def _refused(self, req: Request, session: Session) -> Response:
        """phpBB without ``f_read``: a member gets a 403 SORRY_AUTH_READ page, a guest the
        login box."""
        if session.user_id == GUEST_ID:
            return self._login_box(session, "Connexion", req)
        return self._message(session, SORRY_AUTH_READ, status=403)

    def _memberlist(self, req: Request, session: Session) -> Response:
        """``memberlist.php?mode=viewprofile&un=NAME``: the member's profile as prosilver's
        ``memberlist_view.html`` starts it (``h2.memberlist-title``, ``dl.profile-details``),
        or phpBB's ``NO_USER`` message with HTTP 404 (``msg_handler``)."""
        if session.user_id == GUEST_ID:
            return self._login_box(session, "Connexion", req)
        user = self._user_by_name(req.query.get("un", ""))
        if req.query.get("mode") != "viewprofile" or user is None:
            return self._message(session, "L’utilisateur demandé n’existe pas.", status=404)
        body = (
            f'<h2 class="memberlist-title">Affichage du profil : {esc(user.name)}</h2>'
            '<form method="post" id="viewprofile"><div class="panel bg1"><div class="inner">'
            '<dl class="left-box details profile-details"><dt>Nom d’utilisateur :</dt>'
            f'<dd><span class="username">{esc(user.name)}</span></dd></dl></div></div></form>'
        )
        return self._page(session, f"Affichage du profil : {user.name}", body,
                          section="memberlist")  # fmt: skip
