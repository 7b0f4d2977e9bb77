"""Private messages ("owls") half of :class:`forumbot.forums.phpbb.PhpbbClient`: compose, send
exactly once (marker search in the outbox / sent folders), read the inbox.

A mixin: it uses the session plumbing of :class:`~forumbot.forums.phpbb.PhpbbClient`."""


from __future__ import annotations

from collections.abc import Container

import httpx

from forumbot.errors import (
    AmbiguousPost,
    FloodLimited,
    FormInvalid,
    PermissionDenied,
    PostQueued,
    ServerError,
    SessionExpired,
)
from forumbot.forums.marker_search import pm_text_cache
from forumbot.forums.phpbb_http import (
    FetchedForm,
)
from forumbot.forums.phpbb_posting import NO_MAGIC_URL
from parsers.phpbb_forms import (
    classify_notice,
    parse_form,
    parse_pm_folder,
)
from parsers.pm_text import parse_pm_message_text


class PhpbbMessages:
    """send_pm / find_pm_marker / read_pm_inbox of the phpBB client (mixin)."""

    # ------------------------------------------------------------------ private messages

    def _pm_form(self, user_id: int | None, username: str) -> FetchedForm:
        """The compose form with the recipient set (``u=`` short way, else ``add_to`` step)."""
        if user_id is not None:
            return self._fetch_form(f"ucp.php?i=pm&mode=compose&u={user_id}")
        fetched = self._fetch_form("ucp.php?i=pm&mode=compose")
        self._wait_form_age(fetched.fetched_at)
        body = fetched.form.payload({"username_list": username}, "add_to")
        try:
            resp = self._post(fetched.form.action, body)
        except httpx.TransportError as exc:
            raise ServerError(f"PM add_to: {type(exc).__name__}") from exc
        if resp.status_code >= 500:
            raise ServerError(f"PM add_to: HTTP {resp.status_code}")
        at = self._clock()
        form = parse_form(resp.text, "postform")
        if form is None or not any(k.startswith("address_list[") for k, _ in form.fields):
            notice = classify_notice(resp.text)
            self._raise_for_notice(resp.text, "PM add_to")
            raise FormInvalid(f"recipient {username!r} not accepted: {notice.message}")
        return FetchedForm(form, at)

    def find_pm_marker(self, subject: str, marker: str, limit: int = 10) -> bool:
        """True when a PM in the outbox or sentbox (the ``limit`` newest of each) has
        ``marker`` in its subject, or has subject ``subject`` and ``marker`` in its text."""
        texts = pm_text_cache(self)
        for folder in ("outbox", "sentbox"):
            rows = parse_pm_folder(self._read(f"ucp.php?i=pm&folder={folder}"))
            for row in rows[:limit]:
                if marker in row.subject:
                    return True
                if row.subject != subject:
                    continue
                if row.href not in texts:  # a sent PM never changes: read once per process
                    texts[row.href] = parse_pm_message_text(self._read(row.href)) or ""
                if marker in texts[row.href]:
                    return True
        return False

    def read_pm_inbox(
        self, skip: Container[int] = frozenset(), limit: int = 50
    ) -> list[tuple[int, str, str, str]]:
        """The bot's PM inbox (``ucp.php?i=pm&folder=inbox``, first page), newest first:
        ``(msg_id, sender, subject, text)`` for the ``limit`` newest messages. Each message's
        page (``ucp.php?i=pm&mode=view&p=N``) is read for its text, except for the ids in
        ``skip`` (messages already handled), whose text is ``""`` (no request).

        Raises: SessionExpired, LoginFailed, ServerError, PageNotUnderstood (like every page
            read); a message page that shows no message gives ``""``.
        """
        rows = parse_pm_folder(self._read("ucp.php?i=pm&folder=inbox", "PM inbox"))
        out: list[tuple[int, str, str, str]] = []
        for row in rows[:limit]:
            text = ""
            if row.msg_id not in skip:
                text = parse_pm_message_text(self._read(row.href, f"PM {row.msg_id}")) or ""
            out.append((row.msg_id, row.other_user or "", row.subject, text))
        return out

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        """Send a PM to ``user_id`` (short way ``compose&u=``) or ``username`` (``add_to``).

        Success: HTTP 200 "Votre message a été envoyé." / "Your message has been sent
        successfully.". Flood: wait ``flood_interval_s``, fresh form. Timeout / 5xx /
        FORM_INVALID: look for ``marker`` in the outbox and sentbox before sending again.

        Raises: FloodLimited, FormInvalid, PermissionDenied, PostQueued (a board whose PMs
            wait for a moderator: phpBB core has no such queue, an extension may), SessionExpired,
            AmbiguousPost, ServerError.
        """
        uncertain = False
        floods = invalids = failures = 0
        while True:
            if uncertain and self.find_pm_marker(subject, marker):
                return
            if floods > self.max_retries:
                raise FloodLimited("PM still flood-limited", self.flood_interval_s)
            if invalids > 2:
                raise FormInvalid("FORM_INVALID on PM, repeatedly")
            if failures > self.max_retries:
                raise AmbiguousPost("PM: no answer and no trace of it in the outbox/sentbox")
            fetched = self._pm_form(user_id, username)
            self._wait_form_age(fetched.fetched_at)
            body = fetched.form.payload(
                {"subject": subject, "message": message, **NO_MAGIC_URL}, "post"
            )
            try:
                resp = self._post(fetched.form.action, body)
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
            notice = classify_notice(resp.text)
            if notice.kind == "pm_sent":
                return
            if notice.kind == "flood":
                floods += 1
                self._sleep(self.flood_interval_s)
            elif notice.kind == "form_invalid":
                invalids += 1
                uncertain = True
            elif notice.kind == "queued":  # not in phpBB core: an extension's PM moderation
                raise PostQueued(notice.message or "PM awaits moderator approval")
            elif notice.kind == "permission_denied":
                raise PermissionDenied(notice.message or "PMs not allowed", notice.message)
            elif notice.kind == "login_required":
                raise SessionExpired("logged out while sending a PM")
            elif notice.kind == "other_error":
                raise FormInvalid(f"the board refused the PM: {notice.message}")
            else:
                if self.find_pm_marker(subject, marker):
                    return
                raise AmbiguousPost(f"PM: unexpected answer (HTTP {resp.status_code})")

