"""The Forumactif sandbox's private messages: compose, send, folders, read."""

from __future__ import annotations

from forumbot.sandbox import forumactif_pages as fp
from forumbot.sandbox.board_model import Request, Response
from forumbot.sandbox.forumactif_model import (
    EMPTY_MESSAGE,
    NO_POST,
    NOT_LOGGED,
    PM_NO_USER,
    PM_NOT_ALLOWED,
    PM_SENT,
    FaPm,
    FaUser,
    _Session,
)
from forumbot.sandbox.forumactif_queue import INBOX_FULL


class FaPrivateMessages:
    """Request handlers mixed into :class:`forumbot.sandbox.forumactif.ForumactifSandbox`;
    they use its state (``_users``, ``_topics``, ``_posts``, ``_pms``, ``_lock`` ...) and
    helpers (``_page``, ``_message``, ``_session`` ...)."""

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
            elif found is not None and self._inbox_full(found.user_id) and error is None:
                error = INBOX_FULL  # ASSUMED wording (forumactif_queue)
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
