"""Posting half of :class:`forumbot.forums.forumactif.ForumactifClient`: reply (with dice), open a
topic, edit the bot's post, and the ``_submit`` that never posts twice.

A mixin: it uses the session plumbing of :class:`~forumbot.forums.forumactif.ForumactifClient`."""


from __future__ import annotations

from collections.abc import Callable, Sequence

import httpx

from forumbot.errors import (
    AmbiguousPost,
    CaptchaRequired,
    FloodLimited,
    FormInvalid,
    ForumError,
    InboxFull,
    PermissionDenied,
    PostQueued,
    PostReview,
    ServerError,
    SessionExpired,
    TopicLocked,
    TopicNotFound,
)
from forumbot.forums.forumactif_http import (
    same_text,
)
from forumbot.forums.forumactif_pages import (
    Answer,
    classify_answer,
    note_answer,
)
from parsers.forumactif.forms import (
    FormData,
    parse_posting_form,
)


class ForumactifPosting:
    """reply / create_topic / edit_post of the Forumactif client (mixin)."""

    # ------------------------------------------------------------------ posting

    def _posting_form(self, path: str) -> FormData:
        """The full posting form of ``path`` (``/post?t=T&mode=reply`` ...).

        Raises: TopicNotFound / PermissionDenied when the board answers a message instead.
        """
        html, _url = self._read(path)
        form = parse_posting_form(html)
        if form is not None:
            return form.form
        self._raise_for_answer(
            note_answer(classify_answer(html, flood_patterns=self.flood_patterns), path, html), path
        )
        raise ForumError(f"{path}: no posting form on the page")

    def _raise_for_answer(self, answer: Answer, what: str) -> None:
        if answer.kind == "locked":
            raise TopicLocked(f"{what}: {answer.message}", answer.message or "")
        if answer.kind == "inbox_full":
            raise InboxFull(f"{what}: {answer.message}", answer.message or "")
        if answer.kind == "queued":
            raise PostQueued(f"{what}: {answer.message}")
        if answer.kind == "not_found":
            raise TopicNotFound(f"{what}: {answer.message}")
        if answer.kind == "permission_denied":
            raise PermissionDenied(f"{what}: {answer.message}", answer.message)
        if answer.kind == "captcha":
            raise CaptchaRequired(f"{what}: {answer.message}")
        if answer.kind == "invalid":
            raise FormInvalid(f"{what}: the board refused it: {answer.message}")

    def probe_reply(self, topic_id: int) -> str | None:
        """Whether the bot may reply in ``topic_id`` now: None when the full reply form
        (``/post?t=T&mode=reply``) is offered, else the board's refusal sentence (locked topic,
        no right). One GET; nothing is posted.

        Raises: TopicNotFound, SessionExpired, ServerError.
        """
        try:
            self._posting_form(f"/post?t={topic_id}&mode=reply")
        except PermissionDenied as exc:  # TopicLocked included
            return exc.sentence
        return None

    def _flood_wait(self, answer: Answer) -> float:
        if answer.wait_s is not None:
            return answer.wait_s + self.flood_margin_s
        return self.flood_interval_s

    @staticmethod
    def _dice_fields(form: FormData, dice: Sequence[tuple[str, int]]) -> list[tuple[str, str]]:
        """``post_dice_N`` / ``nb_rolls_N`` for each ``(dice name, rolls)`` (REPORT.md 5).

        Raises: FormInvalid when the form offers no dice of that name.
        """
        options = form.selects.get("post_dice_0", ())
        fields: list[tuple[str, str]] = []
        for index, (name, rolls) in enumerate(dice):
            value = next(
                (v for v, label in options if v and label.casefold() == name.casefold()), None
            )
            if value is None:
                raise FormInvalid(f"the board offers no dice named {name!r}")
            fields += [(f"post_dice_{index}", value), (f"nb_rolls_{index}", str(rolls))]
        return fields

    def reply(
        self,
        topic_id: int,
        message: str,
        marker: str,
        *,
        dice: Sequence[tuple[str, int]] = (),
    ) -> int:
        """Reply in ``topic_id`` with ``message`` (which must contain ``marker``).

        Flow (REPORT.md 6.3): GET the full form ``/post?t=T&mode=reply``, POST ``/post`` with
        every field of it (``auth[]`` twice, ``mode``, ``t``, ``lt``, ...), ``message`` and the
        submit ``post``; ``dice`` = ``[("Duel", 2)]`` asks the board to roll (fields
        ``post_dice_0`` = the dice's id, ``nb_rolls_0`` = 2). Success is the confirmation page
        ("... enregistré avec succès") whose link ``/viewtopic?t=T&p=P#P`` gives P. Flood: wait
        (the delay the message gives, else ``flood_interval_s``) then a fresh form. "A new
        message has been posted", timeout, 5xx, an unreadable answer: search the topic for
        ``marker`` (posts after the form's ``lt``) and return that post when found, else submit
        again.

        Returns: the new post id.
        Raises: FloodLimited, FormInvalid, PostReview, TopicNotFound, PermissionDenied,
            CaptchaRequired, SessionExpired, AmbiguousPost, ServerError.
        """
        after: list[int | None] = [None]

        def find() -> int | None:
            return self.find_marker(topic_id, marker, after[0])

        def extra(form: FormData) -> list[tuple[str, str]]:
            lt = form.first("lt")
            if after[0] is None and lt is not None and lt.isdigit():
                after[0] = int(lt)
            return self._dice_fields(form, dice) if dice else []

        return self._submit(f"/post?t={topic_id}&mode=reply", message, None, find, extra)

    def create_topic(self, forum_id: int, subject: str, message: str, marker: str) -> int:
        """Open a topic ``subject`` in ``forum_id`` (``/post?f=F&mode=newtopic``); the
        confirmation link ``/viewtopic?t=T&p=P`` gives T.

        Same safety as :meth:`reply`; the marker is looked for in the first post of topics of
        the forum titled ``subject`` and opened by this user.

        Raises: like :meth:`reply`.
        """
        return self._submit(
            f"/post?f={forum_id}&mode=newtopic",
            message,
            subject,
            lambda: self._find_topic_marker(forum_id, subject, marker),
            lambda form: [],
            want_topic=True,
        )

    def edit_post(self, post_id: int, message: str) -> None:
        """Replace the text of the bot's own post ``post_id`` with ``message``.

        Flow (REPORT.md 6.3 "Edit: ``/post?p={P}&mode=editpost``" [H]): GET the edit form
        ``/post?p=P&mode=editpost`` (the reply form's fields: ``auth[]`` twice, ``mode``, ``lt``,
        plus the post id ``p``; ``subject`` when it is a topic's first post; ``edit_reason``),
        POST ``/post`` with every field of it as the board gave it, ``message`` and the submit
        ``post``. Success is the confirmation page ("... enregistré avec succès"), as for a
        reply. An edit is idempotent: after a timeout, a 5xx, an unreadable answer or "a new
        message has been posted" it is sent again with a fresh form, and before every POST the
        form's textarea (the post's current BBCode) is compared with ``message``: when they
        are the same (line ends and surrounding blanks aside) nothing is sent, so a lost answer
        or a repeated call adds no edit (and no "édité N fois").

        ASSUMED (no real edit page or edit answer was captured, REPORT.md section 9): that the
        edit form carries ``p`` and ``mode=editpost`` among its hidden fields, that its textarea
        holds the post's BBCode source, that the edit answer uses the reply's confirmation
        wording, that the refusal for somebody else's post reads like "Désolé, mais vous ne
        pouvez éditer que vos propres messages" (phpBB2's wording) and that edits are exempt
        from the flood delay (phpBB2 checks it for new posts only; a flood answer is waited out
        all the same). A form refused as expired is fetched again like a timeout.

        Requests: one GET per attempt, one POST unless the post already shows ``message``.
        Raises: TopicNotFound (no such post), PermissionDenied (not the bot's post, topic
            locked), FormInvalid (the board refused the text), CaptchaRequired, FloodLimited,
            SessionExpired, AmbiguousPost (no answer after ``max_retries`` tries), ServerError.
        """
        path = f"/post?p={post_id}&mode=editpost"
        relogged = False
        floods = reviews = failures = 0
        last_wait = self.flood_interval_s
        while True:
            if floods > self.max_retries:
                raise FloodLimited("edit still flood-limited", last_wait)
            if reviews > self.max_retries:
                raise PostReview(f"{path}: new messages keep arriving while editing")
            if failures > self.max_retries:
                raise AmbiguousPost(f"{path}: no answer after {failures} tries")
            form = self._posting_form(path)
            if same_text(form.first("message") or "", message):
                return
            body = [(k, v) for k, v in form.items if k != "message"]
            body.append(("message", message))
            button = next((v for k, v in form.buttons if k == "post"), "") or "Envoyer"
            body.append(("post", button))
            try:
                resp = self._post(form.action or "/post", body)
            except httpx.TransportError:
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code >= 500 or resp.status_code == 429:
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{path}: HTTP 404")
            try:
                html = self._answer_text(resp)
            except ServerError:
                failures += 1
                continue
            answer = note_answer(
                classify_answer(html, flood_patterns=self.flood_patterns), path, html
            )
            if answer.kind == "posted":
                return
            if answer.kind == "flood":
                floods += 1
                last_wait = self._flood_wait(answer)
                self._sleep(last_wait)
            elif answer.kind == "new_post":
                reviews += 1
            elif answer.kind == "login_required":
                if relogged:
                    raise SessionExpired(f"{path}: logged out while editing")
                relogged = True
                self.login()
            elif answer.kind in ("not_found", "permission_denied", "captcha", "invalid", "locked"):
                self._raise_for_answer(answer, path)
            else:  # expired form, unknown page: a fresh form tells whether it was applied
                failures += 1

    def _submit(
        self,
        form_path: str,
        message: str,
        subject: str | None,
        find: Callable[[], int | None],
        extra: Callable[[FormData], list[tuple[str, str]]],
        *,
        want_topic: bool = False,
    ) -> int:
        """The posting loop shared by reply and create_topic (see :meth:`reply`)."""
        uncertain = False  # a previous POST may have been saved
        relogged = False
        floods = reviews = failures = 0
        last_wait = self.flood_interval_s
        while True:
            if uncertain:
                found = find()
                if found is not None:
                    return found
            if floods > self.max_retries:
                raise FloodLimited("still flood-limited", last_wait)
            if reviews > self.max_retries:
                raise PostReview("new messages keep arriving while posting")
            if failures > self.max_retries:
                raise AmbiguousPost(f"{form_path}: no answer and no trace of the post")
            form = self._posting_form(form_path)
            added = extra(form)
            replaced = {"message", "subject", *(k for k, _ in added)}
            body = [(k, v) for k, v in form.items if k not in replaced]
            body += added
            if subject is not None:
                body.append(("subject", subject))
            elif form.first("subject") is not None:
                body.append(("subject", form.first("subject") or ""))
            body.append(("message", message))
            button = next((v for k, v in form.buttons if k == "post"), "") or "Envoyer"
            body.append(("post", button))
            try:
                resp = self._post(form.action or "/post", body)
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
            if resp.status_code == 404:
                raise TopicNotFound(f"{form_path}: HTTP 404")
            try:
                html = self._answer_text(resp)
            except ServerError:
                uncertain = True
                failures += 1
                continue
            answer = note_answer(
                classify_answer(html, flood_patterns=self.flood_patterns), form_path, html
            )
            if answer.kind == "posted":
                new_id = answer.topic_id if want_topic else answer.post_id
                if new_id is not None:
                    return new_id
                uncertain = True
                failures += 1
            elif answer.kind == "flood":
                floods += 1
                last_wait = self._flood_wait(answer)
                self._sleep(last_wait)
            elif answer.kind == "new_post":
                reviews += 1
                uncertain = True
            elif answer.kind == "login_required":
                if relogged:
                    raise SessionExpired(f"{form_path}: logged out while posting")
                relogged = True
                self.login()
            elif answer.kind in (
                "not_found", "permission_denied", "captcha", "invalid", "locked", "queued",
            ):  # fmt: skip
                self._raise_for_answer(answer, form_path)
            else:
                found = find()
                if found is not None:
                    return found
                raise AmbiguousPost(f"{form_path}: unexpected answer (HTTP {resp.status_code})")

