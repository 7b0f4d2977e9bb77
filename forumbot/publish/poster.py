"""Publish due declarations exactly once.

Life of a declaration: ``draft`` -> (``approved``) -> ``publishing`` -> ``published``;
``held`` waits for a referee. A draft is due when its review delay is over
(``publish_after`` <= now) or a referee approved it; with ``review_delay_s = "manual"``
only approved drafts are due. A draft a referee took (``claimed_by``, issue 18) is not due
by its delay before ``claim_until`` (:mod:`forumbot.notify.claims`).

Exactly once, across crashes and restores: before the POST the row is claimed
(``publishing``, attempt counter incremented, compare-and-set on status and version) in its
own committed transaction. Every declaration is then first looked for in the topic by its
marker (``forumbot·<idempotency key>``) from the duel's last published declaration on; only
when the topic does not hold it is it posted. The forum client itself re-reads the topic
for the marker after any ambiguous POST outcome (timeout, FORM_INVALID, post review).

The poster knows nothing of duels' rules: what a publication does to its duel is the injected
``on_published`` hook (:data:`OnPublished`, from the duels room through ``bootstrap``).
"""

from __future__ import annotations

import logging
import os
import signal
from collections.abc import Callable
from datetime import datetime
from typing import Any

from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.publish.render import marker_line
from forumbot.storage import Storage, iso

log = logging.getLogger("forumbot.publish.poster")

CRASH_POINT_ENV = "FORUMBOT_CRASH_POINT"


def crash_point(name: str) -> None:
    """Fault injection for the crash tests: when the environment variable
    ``FORUMBOT_CRASH_POINT`` equals ``name``, the process kills itself with SIGKILL here
    (points: ``before_post``, ``after_post``). Never set in production."""
    if os.environ.get(CRASH_POINT_ENV) == name:
        os.kill(os.getpid(), signal.SIGKILL)


def _last_published(storage: Storage, duel: dict[str, Any]) -> int | None:
    """Post id of the duel's latest published declaration: the marker search starts there."""
    row = storage.db.execute(
        "select max(published_post_id) from declarations where duel_id = ? "
        "and status = 'published'",
        [duel["id"]],
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else None


def due_declarations(storage: Storage, now: datetime, manual: bool) -> list[dict[str, Any]]:
    """Declarations to publish now, oldest first (see module docstring)."""
    due = []
    for row in storage.declarations(("draft", "approved", "publishing")):
        if row["status"] in ("approved", "publishing"):
            due.append(row)
        elif (
            not manual
            and row["publish_after"]
            and row["publish_after"] <= iso(now)
            # a draft a referee took waits for them until claim_until (issue 18)
            and not (row.get("claimed_by") and (row.get("claim_until") or "") > iso(now))
        ):
            due.append(row)
    return due


def publish_one(
    storage: Storage,
    client: ForumClient,
    decl: dict[str, Any],
    now: Callable[[], datetime],
    on_published: Callable[[dict[str, Any]], None] | None = None,
) -> int | None:
    """Publish one declaration; returns its post id, or None when it failed this time.

    ``on_published(row)`` runs after the row is marked published (advances the duel).
    Login failures propagate (they stop the bot); other forum errors are logged and the
    row stays ``publishing`` so the next attempt checks the marker first.
    """
    duel = storage.duel(decl["duel_id"])
    topic_id = duel["topic_id"]
    retrying = decl["status"] == "publishing"
    # Claim the row (compare-and-set on its status and version): of two processes that saw
    # it due at once (forumbot run and the review page's "publish now"), one goes on.
    claimed = storage.db.execute(
        "update declarations set status = 'publishing', attempts = coalesce(attempts, 0) + 1, "
        "version = version + 1, updated_at = ? where id = ? and status = ? and version = ?",
        [iso(now()), decl["id"], decl["status"], decl["version"]],
    ).rowcount
    storage.db.conn.commit()
    if claimed != 1:
        log.info("declaration %s: claimed by another publisher or changed; skipped", decl["id"])
        return None

    try:
        # Always look for the marker first, not only on a retry: after a restore from a
        # backup, a declaration already published comes back as a draft.
        post_id = client.find_marker(topic_id, decl["marker"], _last_published(storage, duel))
        if post_id is not None:
            log.info(
                "declaration %s: found already published as post %s (retry: %s)",
                decl["id"],
                post_id,
                retrying,
            )
        if post_id is None:
            message = decl["text"].rstrip() + "\n" + marker_line(decl["idempotency_key"])
            crash_point("before_post")
            post_id = client.reply(topic_id, message, decl["marker"])
            crash_point("after_post")
    except LoginFailed:
        raise
    except ForumError as exc:
        storage.db["declarations"].update(
            decl["id"], {"last_error": f"{type(exc).__name__}: {exc}", "updated_at": iso(now())}
        )
        log.warning(
            "topic %s: declaration %s (duel %s) publish failed (%s: %s); will retry",
            topic_id,
            decl["id"],
            decl["duel_id"],
            type(exc).__name__,
            exc,
        )
        return None
    # Marking it published and advancing the duel happen in one transaction: a crash
    # leaves either both undone (the marker check finds the post next time) or both done.
    with storage.db.atomic():
        storage.db["declarations"].update(
            decl["id"],
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
            f"declaration:{decl['id']}",
            {"status": decl["status"]},
            {"status": "published", "post_id": post_id},
            now(),
        )
        if on_published is not None:
            on_published(storage.declaration(decl["id"]))
    log.info(
        "duel %s: declaration %s (%s) published as post %s",
        decl["duel_id"],
        decl["id"],
        decl["idempotency_key"],
        post_id,
    )
    return post_id


OnPublished = Callable[[Storage, dict[str, Any], datetime], None]
"""``on_published(storage, row, now)``: what a publication does to its duel (run inside the
transaction that marks ``row`` published). The duels room provides it
(:func:`forumbot.duels.publication.apply_published`); ``bootstrap`` injects it."""


def publish_due(
    storage: Storage,
    client: ForumClient,
    now: Callable[[], datetime],
    *,
    on_published: OnPublished | None,
    manual: bool = False,
) -> list[int]:
    """Publish every due declaration; returns the post ids published this pass.

    ``on_published`` is required (None: publish without advancing any duel)."""

    def advance(row: dict[str, Any]) -> None:
        if on_published is not None:
            on_published(storage, row, now())

    published = []
    for decl in due_declarations(storage, now(), manual):
        post_id = publish_one(storage, client, decl, now, on_published=advance)
        if post_id is not None:
            published.append(post_id)
    return published
