"""Posting half of :class:`forumbot.forums.phpbb.PhpbbClient`: reply, open a topic, edit the
bot's post, and the one ``_submit`` that never posts twice (marker search after any doubt).

A mixin: it uses the session plumbing of :class:`~forumbot.forums.phpbb.PhpbbClient`
(``_get``, ``_post``, ``_fetch_form``, ``_read``, ``find_marker``...)."""


from __future__ import annotations

from collections.abc import Callable

import httpx

from forumbot.errors import (
    AmbiguousPost,
    FloodLimited,
    FormInvalid,
    ForumError,
    PermissionDenied,
    PostQueued,
    PostReview,
    SessionExpired,
    TopicLocked,
    TopicNotFound,
)
from forumbot.forums.phpbb_http import (
    FetchedForm,
    about_path,
    log,
    query_int,
)
from parsers.phpbb_forms import (
    HtmlForm,
    classify_notice,
    parse_form,
)

NO_MAGIC_URL = {"disable_magic_url": "on"}
"""Sent with every post (the reply form's « Ne pas transformer automatiquement les adresses
URL » checkbox, ``posting_reply_form`` capture): the board never turns player text quoted in
a declaration into links (issue 15); the bot's own links are written as ``[url]`` BBCode."""


class PhpbbPosting:
    """reply / create_topic / edit_post of the phpBB client (mixin)."""

    # ------------------------------------------------------------------ posting

    def prepare_reply(self, topic_id: int) -> FetchedForm:
        """GET the reply form of ``topic_id`` now, to POST it later with
        ``reply(..., prepared=form)``: the publisher fetches the forms of the next due
        declarations while the first one waits its minimum age (issue 12), so the form-age
        wait overlaps other work. One request.

        Raises: like :meth:`reply` before its POST (TopicNotFound, PermissionDenied,
            SessionExpired, ServerError).
        """
        return self._fetch_form(f"posting.php?mode=reply&t={topic_id}")

    def probe_reply(self, topic_id: int) -> str | None:
        """Whether the bot may reply in ``topic_id`` now: None when the reply form is offered,
        else the board's refusal sentence (a locked topic or forum, a permission refusal).
        One GET of ``posting.php?mode=reply&t=T``; nothing is posted.

        Raises: TopicNotFound, SessionExpired, ServerError (like :meth:`prepare_reply`).
        """
        try:
            self._fetch_form(f"posting.php?mode=reply&t={topic_id}")
        except PermissionDenied as exc:  # TopicLocked included
            return exc.sentence
        return None

    def form_wait_s(self, prepared: FetchedForm) -> float:
        """Seconds the prepared form must still age before it may be POSTed (0.0: now)."""
        return max(0.0, self.min_form_age_s - (self._clock() - prepared.fetched_at))

    def form_key(self, prepared: FetchedForm) -> tuple[str, str] | None:
        """The form's posting-lock key ``(creation_time, form_token)`` when the board's posting
        lock applies (``flood_interval_s`` > 0), else None. phpBB lets one key make one post per
        ``flood_interval`` (FLOWS.md "Posting lock"), and two forms fetched in the same second
        share it: the publisher never holds two forms with one key."""
        if self.flood_interval_s <= 0:
            return None
        return (
            prepared.form.value("creation_time") or "",
            prepared.form.value("form_token") or "",
        )

    def _locked(self, fetched: FetchedForm) -> bool:
        """True when ``fetched``'s key made a post less than ``flood_interval_s`` ago (the
        board would answer FORM_INVALID)."""
        key = self.form_key(fetched)
        if key is None:
            return False
        used: dict[tuple[str, str], float] = self.__dict__.setdefault("_posting_locks", {})
        now = self._clock()
        for old in [k for k, at in used.items() if now - at >= self.flood_interval_s]:
            del used[old]
        return key in used

    def _note_posted(self, fetched: FetchedForm) -> None:
        key = self.form_key(fetched)
        if key is not None:
            self.__dict__.setdefault("_posting_locks", {})[key] = self._clock()

    def reply(
        self, topic_id: int, message: str, marker: str, *, prepared: FetchedForm | None = None
    ) -> int:
        """Reply in ``topic_id`` with ``message`` (which must contain ``marker``).

        ``prepared``: the topic's reply form from :meth:`prepare_reply` (then no GET is made
        before the first POST; a later attempt fetches a fresh form as usual).

        Flow: GET ``posting.php?mode=reply&t=T``, wait the form age, POST all its fields with
        ``message`` and ``post=<label>``; a 302 to ``viewtopic.php?p=N#pN`` gives N. Flood: wait
        ``flood_interval_s`` then a fresh form. Post review / FORM_INVALID / timeout / 5xx: search
        the topic for ``marker`` (posts after the form's ``topic_cur_post_id``) and return that
        post if found, else submit again (post review: with the refreshed form it carries).

        Returns: the new post id.
        Raises: FloodLimited, FormInvalid, PostReview, PostQueued, TopicNotFound,
            PermissionDenied, SessionExpired, AmbiguousPost, ServerError.
        """
        after: list[int | None] = [None]

        def find() -> int | None:
            return self.find_marker(topic_id, marker, after[0])

        def on_form(form: HtmlForm) -> None:
            if after[0] is None:
                cur = form.value("topic_cur_post_id")
                after[0] = int(cur) if cur and cur.isdigit() else None

        return self._submit(
            f"posting.php?mode=reply&t={topic_id}", message, None, "p", find, on_form,
            first=prepared,
        )  # fmt: skip

    def create_topic(self, forum_id: int, subject: str, message: str, marker: str) -> int:
        """Open a topic ``subject`` in ``forum_id``; a 302 to ``viewtopic.php?t=N`` gives N.

        Same safety as :meth:`reply`; the marker is looked for in the first post of topics of
        the forum titled ``subject`` and opened by this user.

        Raises: like :meth:`reply`.
        """
        return self._submit(
            f"posting.php?mode=post&f={forum_id}",
            message,
            subject,
            "t",
            lambda: self._find_topic_marker(forum_id, subject, marker),
            lambda form: None,
        )

    def edit_post(self, post_id: int, message: str) -> None:
        """Replace the text of the bot's own post ``post_id`` with ``message``.

        Flow (``FLOWS.md`` "Edit"): GET ``posting.php?mode=edit&p=N`` (form ``postform`` with
        the current message and the hidden ``edit_post_message_checksum`` /
        ``edit_post_subject_checksum``), wait the form age, POST every field with ``message``
        and ``post=<label>``; success is a **302** to ``viewtopic.php?p=N#pN``. An edit is
        idempotent (same text again changes nothing), so after a timeout, a 5xx or
        FORM_INVALID it is simply done again with a fresh form. Edits are exempt from the
        flood limit; a flood answer is waited out all the same.

        Raises: TopicNotFound (no such post), PermissionDenied (not the bot's post, or the
            board's edit time limit is over), FormInvalid, SessionExpired, AmbiguousPost,
            ServerError.
        """
        path = f"posting.php?mode=edit&p={post_id}"
        relogged = False
        floods = invalids = failures = 0
        while True:
            if floods > self.max_retries:
                raise FloodLimited("edit still flood-limited", self.flood_interval_s)
            if invalids > 2:
                raise FormInvalid("FORM_INVALID on edit, repeatedly")
            if failures > self.max_retries:
                raise AmbiguousPost(f"{path}: no answer after {failures} tries")
            fetched = self._fetch_form(path)
            self._wait_form_age(fetched.fetched_at)
            body = fetched.form.payload({"message": message, **NO_MAGIC_URL}, "post")
            try:
                resp = self._post(fetched.form.action or path, body)
            except httpx.TransportError:
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code in (301, 302, 303):
                return
            if resp.status_code >= 500 or resp.status_code == 429:
                failures += 1
                self._sleep(min(self.backoff_cap_s, 2.0**failures))
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{path}: HTTP 404")
            notice = classify_notice(resp.text)
            if notice.kind == "form_invalid":
                invalids += 1
            elif notice.kind == "flood":
                floods += 1
                self._sleep(self.flood_interval_s)
            elif notice.kind == "login_required":
                if relogged:
                    raise SessionExpired(f"{path}: logged out while editing")
                relogged = True
                self.login()
            elif notice.kind == "not_found":
                raise TopicNotFound(notice.message or path)
            elif notice.kind == "locked":
                raise TopicLocked(f"{path}: {notice.message}", notice.message or "")
            elif notice.kind == "permission_denied":
                raise PermissionDenied(notice.message or path, notice.message)
            elif notice.kind == "other_error":
                raise FormInvalid(f"the board refused the edit: {notice.message}")
            else:
                raise AmbiguousPost(f"{path}: unexpected HTTP {resp.status_code} answer")

    def _submit(
        self,
        form_path: str,
        message: str,
        subject: str | None,
        location_key: str,
        find: Callable[[], int | None],
        on_form: Callable[[HtmlForm], None],
        first: FetchedForm | None = None,
    ) -> int:
        """The posting loop shared by reply and create_topic (see :meth:`reply`); ``first``:
        a form fetched beforehand, used for the first POST.

        Every fault it gets over (timeout, 5xx, flood, post review, FORM_INVALID, logged out)
        is logged as ONE warning naming the topic (or forum) and what is done about it.
        """
        about = about_path(form_path)
        uncertain = False  # a previous POST may have been saved
        relogged = False
        carried: FetchedForm | None = first
        last_error: ForumError | None = None
        floods = reviews = invalids = failures = 0
        while True:
            if uncertain:
                found = find()
                if found is not None:
                    return found
            if floods > self.max_retries:
                raise FloodLimited("still flood-limited", self.flood_interval_s)
            if reviews > self.max_retries:
                raise PostReview("other posts keep arriving (post review)")
            if invalids > 2:
                raise FormInvalid(str(last_error) if last_error else "FORM_INVALID")
            if failures > self.max_retries:
                raise AmbiguousPost(f"{form_path}: no answer and no trace of the post")
            fetched = carried if carried is not None else self._fetch_form(form_path)
            carried = None
            for _second in range(3):  # a key that just made a post: a form of a later second
                if not self._locked(fetched):
                    break
                self._sleep(1.0)
                fetched = self._fetch_form(form_path)
            on_form(fetched.form)
            self._wait_form_age(fetched.fetched_at)
            overrides = {"message": message, **NO_MAGIC_URL}
            if subject is not None:
                overrides["subject"] = subject
            body = fetched.form.payload(overrides, "post")
            try:
                resp = self._post(fetched.form.action or form_path, body)
            except httpx.TransportError as exc:
                uncertain = True
                failures += 1
                wait = min(self.backoff_cap_s, 2.0**failures)
                log.warning(
                    "%s: POST %s: %s (outcome unknown); looking for the marker in %.0f s "
                    "before posting again",
                    about,
                    form_path,
                    type(exc).__name__,
                    wait,
                )
                self._sleep(wait)
                continue
            if resp.status_code in (301, 302, 303):
                location = resp.headers.get("location", "")
                new_id = query_int(location, location_key)
                if new_id is not None:
                    self._note_posted(fetched)
                    return new_id
                uncertain = True
                failures += 1
                continue
            if resp.status_code >= 500 or resp.status_code == 429:
                uncertain = True
                failures += 1
                wait = min(self.backoff_cap_s, 2.0**failures)
                log.warning(
                    "%s: POST %s: HTTP %d; looking for the marker in %.0f s before posting again",
                    about,
                    form_path,
                    resp.status_code,
                    wait,
                )
                self._sleep(wait)
                continue
            if resp.status_code == 404:
                raise TopicNotFound(f"{form_path}: HTTP 404")
            notice = classify_notice(resp.text)
            if notice.kind == "flood":
                floods += 1
                log.warning(
                    "%s: flood limit (%s); waiting %.0f s, then a fresh form",
                    about,
                    notice.message,
                    self.flood_interval_s,
                )
                self._sleep(self.flood_interval_s)
            elif notice.kind == "post_review":
                reviews += 1
                uncertain = True
                log.warning(
                    "%s: someone posted meanwhile (post review); looking for the marker, then "
                    "submitting the refreshed form",
                    about,
                )
                refreshed = parse_form(resp.text, "postform")
                if refreshed is not None:
                    carried = FetchedForm(refreshed, self._clock())
            elif notice.kind == "form_invalid":
                invalids += 1
                uncertain = True
                log.warning(
                    "%s: form refused (FORM_INVALID: %s); looking for the marker, then a fresh "
                    "form",
                    about,
                    notice.message,
                )
                last_error = FormInvalid(notice.message or "FORM_INVALID")
            elif notice.kind == "queued":
                raise PostQueued(notice.message or "post awaits moderator approval")
            elif notice.kind == "login_required":
                if relogged:
                    raise SessionExpired(f"{form_path}: logged out while posting")
                relogged = True
                log.warning("%s: logged out while posting: logging in again", about)
                self.login()
            elif notice.kind == "not_found":
                raise TopicNotFound(notice.message or form_path)
            elif notice.kind == "locked":
                raise TopicLocked(f"{form_path}: {notice.message}", notice.message or "")
            elif notice.kind == "permission_denied":
                raise PermissionDenied(notice.message or form_path, notice.message)
            elif notice.kind == "other_error":
                raise FormInvalid(f"the board refused the post: {notice.message}")
            else:
                found = find()
                if found is not None:
                    return found
                raise AmbiguousPost(f"{form_path}: unexpected HTTP {resp.status_code} answer")

