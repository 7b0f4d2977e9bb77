"""The Forumactif sandbox's posting page: reply, new topic, edit, flood limit, the forum's
dice rolled by the Game Master."""

from __future__ import annotations

import math

from forumbot.sandbox import forumactif_pages as fp
from forumbot.sandbox.board_model import Request, Response
from forumbot.sandbox.forumactif_model import (
    BAD_AUTH,
    EDIT_DENIED,
    EMPTY_MESSAGE,
    EMPTY_SUBJECT,
    FLOOD,
    NEW_POST,
    NO_FORUM,
    NO_POST,
    NO_TOPIC,
    NOT_LOGGED,
    POSTED,
    Dice,
    FaForum,
    FaPost,
    FaTopic,
    FaUser,
    _Session,
)
from forumbot.sandbox.forumactif_queue import POST_QUEUED


class FaPosting:
    """Request handlers mixed into :class:`forumbot.sandbox.forumactif.ForumactifSandbox`;
    they use its state (``_users``, ``_topics``, ``_posts``, ``_pms``, ``_lock`` ...) and
    helpers (``_page``, ``_message``, ``_session`` ...)."""

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
        refusal = self._lock_refusal(topic, forum.forum_id if forum is not None else None)
        if refusal is not None:  # ASSUMED wording (forumactif_queue)
            return self._message(session, "Informations", fp.esc(refusal))
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
            if user.needs_approval:
                for post in self._posts.values():
                    if post.post_id == post_id or post.dice_for == post_id:
                        post.approved = False
                return self._message(session, "Informations", fp.esc(POST_QUEUED))
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
