"""The sandbox phpBB board's user control panel: login, logout and private messages."""

from __future__ import annotations

import secrets

from forumbot.sandbox import pages
from forumbot.sandbox.bbcode import render_bbcode
from forumbot.sandbox.board_model import (
    _PM_FOLDERS,
    FLOOD_ERROR,
    FORM_INVALID,
    GUEST_ID,
    LOGIN_TO_UCP,
    NOT_LOGGED_OUT,
    PM_EMPTY_SUBJECT,
    PM_NO_MESSAGE,
    PM_NO_RECIPIENT,
    PM_NO_USERS,
    PM_NOT_ALLOWED,
    PM_SENT,
    TOO_FEW_CHARS,
    TOO_MANY_ATTEMPTS,
    WRONG_PASSWORD,
    WRONG_USERNAME,
    Pm,
    Request,
    Response,
    Session,
    User,
)


class BoardUcp:
    """Request handlers mixed into :class:`forumbot.sandbox.board.SandboxBoard`; they use
    its state (``_users``, ``_topics``, ``_posts``, ``_pms``, ``_lock`` ...) and helpers
    (``_page``, ``_message``, ``_form_key`` ...)."""

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
