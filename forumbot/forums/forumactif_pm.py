"""Private messages half of :class:`forumbot.forums.forumactif.ForumactifClient`: send exactly
once, find a sent PM by its marker, read the inbox.

A mixin: it uses the session plumbing of :class:`~forumbot.forums.forumactif.ForumactifClient`."""


from __future__ import annotations

from collections.abc import Container

import httpx

from forumbot.errors import (
    AmbiguousPost,
    FloodLimited,
    FormInvalid,
    ServerError,
    SessionExpired,
)
from forumbot.forums.forumactif_http import (
    has_marker,
)
from forumbot.forums.forumactif_pages import (
    classify_answer,
    note_answer,
    parse_pm_folder,
    pm_message_text,
    pm_sender,
)
from forumbot.forums.marker_search import pm_text_cache
from parsers.forumactif.forms import (
    parse_pm_form,
)


class ForumactifMessages:
    """send_pm / find_pm_marker / read_pm_inbox of the Forumactif client (mixin)."""

    # ------------------------------------------------------------------ private messages

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        """True when a PM among the ``limit`` newest of the outbox and the sentbox has
        ``marker`` in its subject, or has subject ``subject`` and ``marker`` in its text."""
        texts = pm_text_cache(self)
        for folder in ("outbox", "sentbox"):
            html, _url = self._read(f"/privmsg?folder={folder}")
            for row in parse_pm_folder(html)[:limit]:
                if has_marker(marker, row.subject):
                    return True
                if row.subject != subject:
                    continue
                if row.href not in texts:  # a sent PM never changes: read once per process
                    page, _url = self._read(row.href)
                    texts[row.href] = pm_message_text(page) or ""
                if has_marker(marker, texts[row.href]):
                    return True
        return False

    def read_pm_inbox(
        self, skip: Container[int] = frozenset(), limit: int = 50
    ) -> list[tuple[int, str, str, str]]:
        """The bot's PM inbox (``/privmsg?folder=inbox``, first page), newest first:
        ``(msg_id, sender, subject, text)`` for the ``limit`` newest messages, like
        :meth:`forumbot.forums.phpbb.PhpbbClient.read_pm_inbox`. Each message's page (the
        row's ``U_READ`` link, ``/privmsg?folder=inbox&mode=read&p=N``) is read for its text
        and, when the listing does not name the sender, for its ``p.author`` line; the ids in
        ``skip`` (messages already handled) cost no request and come with ``""`` as text.

        Markup from the default ``privmsgs_body``/``privmsgs_read_body`` templates (REPORT.md
        6.4, [M]: no real inbox page was captured).

        Raises: SessionExpired, LoginFailed, ServerError, PageNotUnderstood (like every page
            read).
        """
        html, _url = self._read("/privmsg?folder=inbox")
        out: list[tuple[int, str, str, str]] = []
        for row in parse_pm_folder(html)[:limit]:
            text, sender = "", row.other_user or ""
            if row.msg_id not in skip:
                page, _url = self._read(row.href)
                text = pm_message_text(page)
                sender = sender or pm_sender(page) or ""
            out.append((row.msg_id, sender, row.subject, text))
        return out

    def _pm_body(
        self, user_id: int | None, username: str, subject: str, message: str
    ) -> tuple[str, list[tuple[str, str]]]:
        """Action and fields of a PM: the compose form's fields when it can be read, else the
        plain fields production scripts send (REPORT.md 6.4)."""
        path = "/privmsg?mode=post" + (f"&u={user_id}" if user_id is not None else "")
        html, _url = self._read(path)
        form = parse_pm_form(html)
        if form is None:
            self._raise_for_answer(note_answer(classify_answer(html), path, html), path)
            base: list[tuple[str, str]] = [("folder", "inbox"), ("mode", "post")]
            return "/privmsg", [
                *base,
                ("username[]", username),
                ("subject", subject),
                ("message", message),
                ("post", "1"),
            ]
        recipients = [v for k, v in form.items if k in ("username[]", "username") and v.strip()]
        body = [
            (k, v)
            for k, v in form.items
            if k not in ("username[]", "username", "subject", "message")
        ]
        if not any(k == "folder" for k, _ in body):
            body.append(("folder", "inbox"))
        if not any(k == "mode" for k, _ in body):
            body.append(("mode", "post"))
        name = username or (recipients[0] if recipients else "")
        body += [("username[]", name), ("subject", subject), ("message", message)]
        button = next((v for k, v in form.buttons if k == "post"), "") or "1"
        body.append(("post", button))
        return form.action or "/privmsg", body

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        """Send a PM to ``username`` (compose form ``/privmsg?mode=post[&u=user_id]``, then
        ``POST /privmsg`` with ``username[]``, ``subject``, ``message``, ``mode=post``,
        ``folder=inbox``, ``post``).

        Success: "Votre message a été envoyé" / "Your message has been sent". Flood: wait, a
        fresh form. Timeout / 5xx / unreadable answer: look for ``marker`` in the outbox and
        sentbox before sending again.

        Raises: FloodLimited, FormInvalid (unknown recipient, refused text), PermissionDenied,
            InboxFull (the recipient's inbox is full: nothing sent), PostQueued (the board holds
            it for a moderator), CaptchaRequired, SessionExpired, AmbiguousPost, ServerError.
        """
        uncertain = False
        relogged = False
        floods = failures = 0
        last_wait = self.flood_interval_s
        while True:
            if uncertain and self.find_pm_marker(subject, marker):
                return
            if floods > self.max_retries:
                raise FloodLimited("PM still flood-limited", last_wait)
            if failures > self.max_retries:
                raise AmbiguousPost("PM: no answer and no trace of it in the outbox/sentbox")
            action, body = self._pm_body(user_id, username, subject, message)
            try:
                resp = self._post(action, body)
            except httpx.TransportError:
                uncertain = True
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code >= 500 or resp.status_code == 429:
                uncertain = True
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            try:
                html = self._answer_text(resp)
            except ServerError:
                uncertain = True
                failures += 1
                continue
            answer = note_answer(
                classify_answer(html, flood_patterns=self.flood_patterns), action, html
            )
            if answer.kind == "pm_sent":
                return
            if answer.kind == "flood":
                floods += 1
                last_wait = self._flood_wait(answer)
                self._sleep(last_wait)
            elif answer.kind == "login_required":
                if relogged:
                    raise SessionExpired("logged out while sending a PM")
                relogged = True
                self.login()
            elif answer.kind == "not_found":
                raise FormInvalid(f"PM recipient {username!r} refused: {answer.message}")
            elif answer.kind in (
                "permission_denied", "captcha", "invalid", "inbox_full", "locked", "queued",
            ):  # fmt: skip
                self._raise_for_answer(answer, "PM")
            else:
                if self.find_pm_marker(subject, marker):
                    return
                raise AmbiguousPost(f"PM: unexpected answer (HTTP {resp.status_code})")

