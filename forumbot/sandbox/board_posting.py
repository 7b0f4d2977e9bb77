"""The sandbox phpBB board's posting page: reply, new topic, edit, post review, flood
limit, moderator queue."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from forumbot.sandbox import pages
from forumbot.sandbox.board_model import (
    EMPTY_SUBJECT,
    FLOOD_ERROR,
    FORM_INVALID,
    GUEST_ID,
    LOGIN_TO_POST,
    LOGIN_TO_REPLY,
    NO_FORUM,
    NO_TOPIC,
    POST_QUEUED,
    TOO_FEW_CHARS,
    Forum,
    PostRecord,
    Request,
    Response,
    Session,
    Topic,
)
from forumbot.sandbox.pages import esc


class BoardPosting:
    """Request handlers mixed into :class:`forumbot.sandbox.board.SandboxBoard`; they use
    its state (``_users``, ``_topics``, ``_posts``, ``_pms``, ``_lock`` ...) and helpers
    (``_page``, ``_message``, ``_form_key`` ...)."""

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
        refusal = self._lock_refusal(topic, forum.forum_id if forum is not None else None)
        if refusal is not None:  # posting.php: trigger_error(FORUM_LOCKED / TOPIC_LOCKED)
            return self._message(session, refusal)
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
