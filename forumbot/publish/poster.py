"""Publish due declarations exactly once.

Life of a declaration: ``draft`` -> (``approved``) -> ``publishing`` -> ``published``;
``held`` waits for a referee; ``queued``: posted, waiting for a moderator, never posted again
(issue 22, :mod:`forumbot.publish.refusals`: also the locked topic and the refusals). A draft
is due when its review delay is over (``publish_after`` <= now) or a referee approved it;
with ``review_delay_s = "manual"`` only approved drafts are due. A draft a referee took
(``claimed_by``, issue 18) is not due by its delay before ``claim_until``
(:mod:`forumbot.notify.claims`).

Exactly once, across crashes and restores: before the POST the row is claimed
(``publishing``, attempt counter incremented, compare-and-set on status and version) in its
own committed transaction. A declaration that may already be in the topic is first looked
for there by its marker (``forumbot·<idempotency key>``) from the duel's last published
declaration on, and posted only when the topic does not hold it: a row left ``publishing``
(an ambiguous outcome, a crash) and every row written before this process started (a
restart, a restore from a backup: :class:`PublishState`). A row this process drafted and
never tried costs no re-read (issue 12: at most 2 requests per declaration, form GET +
POST). The forum client itself re-reads the topic for the marker after any ambiguous POST
outcome (timeout, FORM_INVALID, post review).

The form-age wait overlaps other work: on a client that can fetch a reply form ahead
(:class:`forumbot.forums.base.PreparesReplies`, phpBB), while the form of the next
declaration ages, the forms of the following due declarations (one per topic) are fetched
(:func:`publish_due`).

The poster knows nothing of duels' rules: what a publication does to its duel is the injected
``on_published`` hook (:data:`OnPublished`, from the duels room through ``bootstrap``).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from forumbot.errors import ForumError, LoginFailed, PermissionDenied, PostQueued
from forumbot.forums.base import ForumClient, PreparesReplies
from forumbot.publish.clock_pause import delay_paused, sync_clock_pause
from forumbot.publish.deadline_text import redate
from forumbot.publish.refusals import (
    REFUSED_PREFIX,
    open_publish_task,
    probe_refused,
    seen_post,
    settle_queued,
    versions_differ,
)
from forumbot.publish.render import client_platform, marker_line
from forumbot.storage import Storage, iso
from forumbot.storage.records import Declaration, DeclStatus

log = logging.getLogger("forumbot.publish.poster")

CRASH_POINT_ENV = "FORUMBOT_CRASH_POINT"


def crash_point(name: str) -> None:
    """Fault injection for the crash tests: when the environment variable
    ``FORUMBOT_CRASH_POINT`` equals ``name``, the process kills itself with SIGKILL here
    (points: ``before_post``, ``after_post``). Never set in production."""
    if os.environ.get(CRASH_POINT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _last_published(storage: Storage, duel_id: int) -> int | None:
    """Post id of the duel's latest published declaration: the marker search starts there
    (read when the search is made, after the claim: never from an older snapshot)."""
    return storage.publish_rows.last_published_post(duel_id)


DUE_STATUSES: tuple[str, ...] = (
    DeclStatus.DRAFT.value,
    DeclStatus.APPROVED.value,
    DeclStatus.PUBLISHING.value,
)
"""Statuses a due declaration may be in (a draft by its delay, approved, or left
``publishing`` by an attempt whose outcome is unknown)."""

PREFETCH_WINDOW = 40
"""How many due declarations ahead the publisher may fetch reply forms for."""


RESTORE_CHECK_S = 24 * 3600.0
"""After a restore, how long (seconds from the first start after it) every declaration and
owl has its marker looked for on the board before its first post, even one drafted later."""


@dataclass
class PublishState:
    """What one process's publisher remembers across its passes.

    ``fresh_after``: the largest declaration id when the process started; a row with a
    larger id was written by this process, so unless it is left ``publishing`` (an attempt
    whose outcome is unknown) it cannot be in the topic yet and its marker is not looked for
    on the board (the topic's stored posts are still searched, at no cost:
    :func:`forumbot.publish.refusals.seen_marker`). ``check_until``: after a
    ``forumbot restore`` (stamped in ``publish_restores``), until this ISO time every row's
    marker is looked for on the board first, whatever its id (issue 22).
    """

    fresh_after: int
    check_until: str | None = None

    @classmethod
    def at_start(cls, storage: Storage, now: datetime | None = None) -> PublishState:
        """The state of a process starting now on ``storage``. Also records, for the owl
        outbox, the largest owl id now (``publish_marks.owls_fresh_after``) and starts the
        check window of a restore not started after yet (``publish_restores.started_at``)."""
        fresh = storage.publish_rows.max_declaration_id()
        moment = now or datetime.now(UTC)
        until = iso(moment + timedelta(seconds=RESTORE_CHECK_S))
        return cls(fresh, storage.publish_rows.start_process(iso(moment), until))

    def needs_marker_check(self, decl: Declaration, now: datetime | None = None) -> bool:
        """True when ``decl`` may already be in its topic (left ``publishing``, written before
        this process started, or any row while a restore's check window lasts)."""
        if decl.status == "publishing" or decl.id <= self.fresh_after:
            return True
        return self.check_until is not None and iso(now or datetime.now(UTC)) < self.check_until


def due_declarations(storage: Storage, now: datetime, manual: bool) -> list[Declaration]:
    """Declarations to publish now, oldest first (see module docstring). While the clocks
    disagree (:func:`forumbot.publish.clock_pause.delay_paused`) no draft is due by its
    delay; approved ones still are."""
    due = []
    paused = delay_paused(storage)
    for decl in map(Declaration.from_row, storage.declarations(DUE_STATUSES)):
        if decl.status in ("approved", "publishing"):
            due.append(decl)
        elif (
            not manual
            and not paused
            and decl.publish_after
            and decl.publish_after <= iso(now)
            # a draft a referee took waits for them until claim_until (issue 18)
            and not (decl.claimed_by and (decl.claim_until or "") > iso(now))
        ):
            due.append(decl)
    return due


def publish_one(
    storage: Storage,
    client: ForumClient,
    row: Declaration | dict[str, Any],
    now: Callable[[], datetime],
    on_published: Callable[[Declaration], None] | None = None,
    *,
    check_marker: bool = True,
    prepared: Any = None,
) -> int | None:
    """Publish one declaration (a record, or a row dict as the review page reads it);
    returns its post id, or None when it failed this time.

    ``on_published(decl)`` runs after the row is marked published (advances the duel) with
    the declaration as it now is (a :class:`Declaration` read inside that transaction).
    ``check_marker``: look for the declaration's marker in the topic before posting (False
    only for a row this process wrote and never tried: :class:`PublishState`). ``prepared``:
    the topic's reply form fetched ahead (:class:`~forumbot.forums.base.PreparesReplies`).
    Before any post the topic's stored posts are searched for the marker (no request:
    :func:`forumbot.publish.refusals.seen_marker`). Login failures propagate (they stop the
    bot); a post the board queues for a moderator (:class:`~forumbot.errors.PostQueued`) makes
    the row ``queued`` (never posted again) and a refusal (locked topic or forum, no right:
    :class:`~forumbot.errors.PermissionDenied`) makes it ``held``, each with a referee task
    (:mod:`forumbot.publish.refusals`); other forum errors are logged and the row stays
    ``publishing`` so the next attempt checks the marker first.
    """
    decl = Declaration.of(row)
    topic_id = int(storage.duel(decl.duel_id)["topic_id"])
    retrying = decl.status == "publishing"
    # Claim the row (compare-and-set on its status and version): of two processes that saw
    # it due at once (forumbot run and the review page's "publish now"), one goes on.
    claimed = storage.publish_rows.claim_declaration(
        decl.id, decl.status, decl.version, iso(now())
    )
    storage.publish_rows.commit_claim()
    if claimed != 1:
        log.info("declaration %s: claimed by another publisher or changed; skipped", decl.id)
        return None

    try:
        # Look for the marker first on a retry, and for any row from before this process
        # started: after a restore from a backup, a declaration already published comes back
        # as a draft.
        duel_row = storage.duel(decl.duel_id)
        # The posts the referee read (no request): the bot's own post with this marker means
        # published, whatever this process or database knows (a restore, a new database).
        seen = seen_post(
            storage, int(duel_row["board_id"]), topic_id, decl.marker or "",
            getattr(client, "username", None),
        )  # fmt: skip
        post_id = seen[0] if seen is not None else None
        if seen is not None and versions_differ(decl.text, seen[1]):
            log.error(
                "topic %s: declaration %s is already on the board as post %s with another "
                "dice digest than its draft (restored database?): not posted; referee task "
                "opened",
                topic_id, decl.id, seen[0],
            )  # fmt: skip
            open_publish_task(storage, decl, "publish_mismatch", str(seen[0]), now())
        if post_id is None and (check_marker or retrying):
            post_id = client.find_marker(
                topic_id, decl.marker or "", _last_published(storage, decl.duel_id)
            )
        if post_id is not None:
            log.info(
                "declaration %s: found already published as post %s (retry: %s)",
                decl.id,
                post_id,
                retrying,
            )
        if post_id is None:
            text = _dated(storage, decl, now())
            message = (
                text.rstrip() + "\n" + marker_line(decl.idempotency_key, client_platform(client))
            )
            crash_point("before_post")
            if prepared is not None and isinstance(client, PreparesReplies):
                post_id = client.reply(topic_id, message, decl.marker or "", prepared=prepared)
            else:
                post_id = client.reply(topic_id, message, decl.marker or "")
            crash_point("after_post")
    except LoginFailed:
        raise
    except PostQueued as exc:
        _queued(storage, decl, topic_id, exc, now())
        return None
    except PermissionDenied as exc:  # a locked topic or forum (TopicLocked), a refusal
        _refused(storage, decl, topic_id, exc, now())
        return None
    except ForumError as exc:
        storage.publish_rows.update_declaration(
            decl.id, {"last_error": f"{type(exc).__name__}: {exc}", "updated_at": iso(now())}
        )
        log.warning(
            "topic %s: declaration %s (duel %s) publish failed (%s: %s); will retry",
            topic_id,
            decl.id,
            decl.duel_id,
            type(exc).__name__,
            exc,
        )
        return None
    _mark_published(storage, decl, post_id, now, on_published)
    return post_id


def _dated(storage: Storage, decl: Declaration, at: datetime) -> str:
    """The declaration's text with its deadline counted from ``at``, the publication
    (:func:`forumbot.publish.deadline_text.redate`); a moved date is written to the row
    first, so the stored text is the one players read."""
    stored = decl.stored or {}
    text = redate(decl.text, stored.get("context") if isinstance(stored, dict) else None, at)
    if text != decl.text:
        storage.publish_rows.update_declaration(decl.id, {"text": text})
        storage.commit()
    return text


def _queued(
    storage: Storage, decl: Declaration, topic_id: int, exc: PostQueued, now: datetime
) -> None:
    """The board took the post but holds it for a moderator: ``queued`` (never posted again),
    a referee task; :func:`forumbot.publish.refusals.settle_queued` finds it once approved."""
    with storage.atomic():
        storage.publish_rows.update_declaration(
            decl.id,
            {"status": "queued", "last_error": f"PostQueued: {exc}", "updated_at": iso(now)},
        )
        storage.audit(
            "forumbot", "declaration.queued", f"declaration:{decl.id}",
            {"status": "publishing"}, {"status": "queued", "board": str(exc)}, now,
        )  # fmt: skip
        open_publish_task(storage, decl, "publish_queued", str(exc), now)
    log.warning(
        "topic %s: declaration %s (duel %s) posted but waits for a moderator's approval; "
        "it will not be posted again (referee task opened)",
        topic_id, decl.id, decl.duel_id,
    )  # fmt: skip


def _refused(
    storage: Storage, decl: Declaration, topic_id: int, exc: PermissionDenied, now: datetime
) -> None:
    """The board refused the post (nothing posted): ``held`` with the board's sentence and a
    referee task; out again on a referee's approval or once the reply form comes back."""
    sentence = getattr(exc, "sentence", None) or str(exc)
    with storage.atomic():
        storage.publish_rows.update_declaration(
            decl.id,
            {"status": "held", "last_error": REFUSED_PREFIX + sentence, "updated_at": iso(now)},
        )
        storage.audit(
            "forumbot", "declaration.refused", f"declaration:{decl.id}",
            {"status": "publishing"}, {"status": "held", "board": sentence}, now,
        )  # fmt: skip
        open_publish_task(storage, decl, "publish_refused", sentence, now)
    log.error(
        "topic %s: declaration %s (duel %s) refused by the board (%s: %s); held for a referee",
        topic_id, decl.id, decl.duel_id, type(exc).__name__, sentence,
    )  # fmt: skip


def _mark_published(
    storage: Storage,
    decl: Declaration,
    post_id: int,
    now: Callable[[], datetime],
    on_published: Callable[[Declaration], None] | None,
) -> None:
    """Mark ``decl`` published as ``post_id`` and advance its duel, in one transaction."""
    # Marking it published and advancing the duel happen in one transaction: a crash
    # leaves either both undone (the marker check finds the post next time) or both done.
    # BEGIN IMMEDIATE takes the write lock first (waiting up to the busy timeout): a deferred
    # transaction that reads, then writes after the poll worker committed, fails at once
    # with "database is locked" (SQLite cannot upgrade a stale read snapshot).
    with storage.publish_rows.immediate(), storage.atomic():
        storage.publish_rows.update_declaration(
            decl.id,
            {
                "status": "published",
                "published_post_id": post_id,
                "published_at": iso(now()),
                "last_error": None,
                "updated_at": iso(now()),
            },
        )
        storage.audit(
            "forumbot",
            "declaration.publish",
            f"declaration:{decl.id}",
            {"status": decl.status},
            {"status": "published", "post_id": post_id},
            now(),
        )
        if on_published is not None:
            on_published(Declaration.from_row(storage.declaration(decl.id)))
    log.info(
        "duel %s: declaration %s (%s) published as post %s",
        decl.duel_id,
        decl.id,
        decl.idempotency_key,
        post_id,
    )


OnPublished = Callable[[Storage, Declaration, datetime], None]
"""``on_published(storage, decl, now)``: what a publication does to its duel (run inside the
transaction that marks ``decl`` published; ``decl`` is the published row as a
:class:`~forumbot.storage.records.Declaration`). The duels room provides it
(:func:`forumbot.duels.publication.apply_published`); ``bootstrap`` injects it."""


def publish_due(
    storage: Storage,
    client: ForumClient,
    now: Callable[[], datetime],
    *,
    on_published: OnPublished | None,
    manual: bool = False,
    state: PublishState | None = None,
) -> list[int]:
    """Publish every due declaration; returns the post ids published this pass.

    First the ``queued`` declarations a moderator approved meanwhile are settled and the
    refused ones whose topic is open again released (:mod:`forumbot.publish.refusals`).
    ``on_published`` is required (None: publish without advancing any duel). ``state``: the
    process's :class:`PublishState` (None: every row's marker is looked for first, as for a
    process that just started). On a client that prepares reply forms, while one form ages
    the forms of the next due declarations are fetched (module doc).
    """

    def advance(decl: Declaration) -> None:
        if on_published is not None:
            on_published(storage, decl, now())

    published = settle_queued(
        storage, client, now,
        lambda decl, post_id: _mark_published(storage, decl, post_id, now, advance),
        lambda duel_id: _last_published(storage, duel_id),
    )  # fmt: skip
    probe_refused(storage, client, now)
    sync_clock_pause(storage, getattr(client, "clock_watch", None), now())
    due = due_declarations(storage, now(), manual)
    checks = {d.id: state is None or state.needs_marker_check(d, now()) for d in due}
    topics: dict[int, int] = {}

    def topic_of(decl: Declaration) -> int:
        duel_id = decl.duel_id
        if duel_id not in topics:
            topics[duel_id] = int(storage.duel(duel_id)["topic_id"])
        return topics[duel_id]

    preparer = client if isinstance(client, PreparesReplies) else None
    # declaration id -> (its topic, the topic's reply form fetched ahead)
    prepared: dict[int, tuple[int, Any]] = {}
    for index, decl in enumerate(due):
        entry = prepared.pop(decl.id, None)
        form = entry[1] if entry is not None else None
        if preparer is not None and not checks[decl.id]:
            if form is None:
                form = _prepare(preparer, topic_of(decl))
            if form is not None:
                ahead = due[index + 1 : index + 1 + PREFETCH_WINDOW]
                _prefetch(preparer, form, topic_of(decl), ahead, checks, topic_of, prepared)
        post_id = publish_one(
            storage, client, decl, now, on_published=advance,
            check_marker=checks[decl.id], prepared=form,
        )  # fmt: skip
        if post_id is not None:
            published.append(post_id)
    return published


def _prepare(client: PreparesReplies, topic_id: int) -> Any:
    """The topic's reply form fetched now, or None when that failed (the publication then
    fetches its own and reports the failure). A refused login propagates."""
    try:
        return client.prepare_reply(topic_id)
    except LoginFailed:
        raise
    except ForumError as exc:
        log.info(
            "topic %s: reply form not fetched ahead (%s: %s)", topic_id, type(exc).__name__, exc
        )
        return None


def _prefetch(
    client: PreparesReplies,
    waiting: Any,
    waiting_topic: int,
    ahead: Sequence[Declaration],
    checks: dict[int, bool],
    topic_of: Callable[[Declaration], int],
    prepared: dict[int, tuple[int, Any]],
) -> None:
    """While the form ``waiting`` is younger than its minimum age, fetch the reply forms of
    the declarations ``ahead`` (fresh rows only, one form per topic: a second declaration of
    the same topic needs a form fetched after the first is posted; never two forms with one
    posting-lock key, ``client.form_key``: the second could not post)."""
    busy = {waiting_topic} | {topic for topic, _form in prepared.values()}
    keys = {client.form_key(waiting)} | {client.form_key(form) for _t, form in prepared.values()}
    for decl in ahead:
        if client.form_wait_s(waiting) <= 0:
            return
        decl_id = decl.id
        if decl_id in prepared or checks.get(decl_id, True):
            continue
        topic_id = topic_of(decl)
        if topic_id in busy:
            busy.add(topic_id)
            continue
        busy.add(topic_id)
        form = _prepare(client, topic_id)
        if form is None:
            continue
        key = client.form_key(form)
        if key is not None and key in keys:
            return  # fetched in the same second as a form held: its key could not post
        keys.add(key)
        prepared[decl_id] = (topic_id, form)
