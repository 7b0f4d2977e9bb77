"""What the publisher does when a board does not simply take a post (issue 22): the post
waits for a moderator, the topic or forum is locked, the board refuses the bot; and the
free look at the posts the referee already read before a first post.

- **Queued** (phpBB « Votre message a été posté, mais requiert l'approbation d'un
  modérateur », :class:`~forumbot.errors.PostQueued`): the post IS on the board, hidden. The
  declaration goes ``queued``, a state that never posts again; a referee task
  (``publish_queued``) is opened (the notice follows from it: ``task_opened``), and the marker
  is looked for every :data:`QUEUED_CHECK_S` seconds (:func:`settle_queued`). Once a moderator
  approves it the marker shows in the topic: the row becomes ``published`` with its post id,
  the duel goes on (``on_published``) and the task is closed by the bot.
- **Refused** (a locked topic or forum, :class:`~forumbot.errors.TopicLocked`, or a permission
  refusal, :class:`~forumbot.errors.PermissionDenied`): nothing was posted. The declaration is
  ``held`` with ``last_error`` starting ``refused:`` and the board's own sentence; a referee
  task (``publish_refused``, French then English) quotes it. It goes out again when a referee
  approves it (« Approuver » / ``drafts approve``: ``held`` -> ``approved``), or by itself
  when the reply form comes back: every :data:`REFUSED_PROBE_S` seconds one GET of the reply
  form (``client.probe_reply``) tells whether the lock was lifted (:func:`probe_refused`).
- **Seen already** (:func:`seen_marker`): before the first post of a key, the topic's stored
  posts (``posts_seen``: the referee read the topic to draft the turn, the bot's own posts
  with their text) are searched for its marker, in a post by the bot: a declaration drafted
  again after a restore or on a new database is found there and never posted twice.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.storage import Storage, iso
from forumbot.storage.records import Declaration

log = logging.getLogger("forumbot.publish.refusals")

QUEUED_CHECK_S = 60.0
"""How often (seconds) the topic of a queued declaration is read for its marker (one read per
queued declaration per minute: the duel waits for it, so a moderator's approval is seen soon;
on a real board 300 s held a duel four minutes after the approval)."""

REFUSED_PROBE_S = 900.0
"""How often (seconds) the reply form of a refused (locked) topic is fetched again."""

REFUSED_PREFIX = "refused: "
"""``last_error`` of a declaration held because the board refused it (then the sentence)."""


_DIGEST_RE = re.compile(r"(?<![0-9a-fA-F])[0-9a-fA-F]{64}(?![0-9a-fA-F])")


def versions_differ(draft_bbcode: str, board_text: str) -> bool:
    """True when a draft and the text the board shows for the same marker name different dice
    digests (the 64-hex SHA-256 commitments or seeds the bot's dice print: the opening's
    « Empreinte des dés »): the board holds the version of another dice seed, the duel was
    adopted again by a database restored from before its adoption (or a new database), and
    its next turns would roll other dice than the board's. Other differences (a later note
    such as « Messages supplémentaires… », read after the posts that followed) do not count.
    Only opens a referee task; it never posts nor drops anything."""
    ours = set(_DIGEST_RE.findall(draft_bbcode))
    theirs = set(_DIGEST_RE.findall(board_text))
    return bool(ours or theirs) and {d.lower() for d in ours} != {d.lower() for d in theirs}


def seen_post(
    storage: Storage, board_id: int, topic_id: int, marker: str, bot: str | None
) -> tuple[int, str] | None:
    """``(post id, text)`` of the stored post :func:`seen_marker` finds, or None."""
    if not bot or not marker:
        return None
    rows = storage.publish_rows.seen_posts(board_id, topic_id, marker)
    for post_id, author, text in rows:  # the marker's closing "·" makes it a whole token
        if (author or "").casefold() == bot.casefold():
            return int(post_id), str(text)
    return None


def seen_marker(
    storage: Storage, board_id: int, topic_id: int, marker: str, bot: str | None
) -> int | None:
    """Post id of a stored post of ``topic_id`` (``posts_seen``) by ``bot`` (case ignored)
    whose text holds ``marker`` as a whole token, or None. No request: the posts the referee
    read. ``bot`` None (a client that does not say its user name): None (a quote of the bot's
    post by a player must never count as the post)."""
    found = seen_post(storage, board_id, topic_id, marker, bot)
    return found[0] if found is not None else None


def _duel_title(storage: Storage, duel_id: int) -> str:
    row = storage.publish_rows.duel_title(duel_id)
    if row is None:
        return f"duel {duel_id}"
    return str(row[0] or f"sujet {row[1]}")


def _turn_fr(decl: Declaration) -> str:
    return "l'ouverture" if decl.kind == "opening" else f"le tour {decl.turn}"


def _turn_en(decl: Declaration) -> str:
    return "the opening" if decl.kind == "opening" else f"turn {decl.turn}"


def open_publish_task(
    storage: Storage, decl: Declaration, kind: str, sentence: str, now: datetime
) -> None:
    """Open the referee task ``kind`` (``publish_queued`` / ``publish_refused``) of ``decl``,
    once per attempt (``source_key`` ``b<board>-decl<id>-<kind>-a<attempts>``), its text in
    French then English, quoting the board's ``sentence``. The notice follows (the notify
    scan tells the duel's referees of every task opened: ``task_opened``)."""
    duel = storage.duel(decl.duel_id)
    title = _duel_title(storage, decl.duel_id)
    quoted = " ".join(sentence.split())[:400]
    if kind == "publish_mismatch":
        subject = f"Une autre version est déjà sur le forum : {title}"
        text = (
            f"FR : la déclaration ({_turn_fr(decl)}) du duel « {title} » est déjà dans le "
            f"sujet (message {quoted}), mais avec une autre empreinte des dés que le brouillon "
            "de la base (base restaurée d'avant l'adoption du duel ?) : les tours suivants "
            "seraient tirés avec d'autres dés. Le bot ne l'a pas repostée ; retenez ou annulez "
            "le duel et vérifiez-le avant la suite.\n"
            f'EN: the declaration ({_turn_en(decl)}) of duel "{title}" is already in the '
            f"topic (post {quoted}), but with another dice digest than the database's draft (a "
            "database restored from before the duel was adopted?): the next turns would roll "
            "other dice. The bot did not post it again; hold or cancel the duel and check it "
            "before it goes on."
        )
    elif kind == "publish_queued":
        subject = f"En attente d'un modérateur : {title}"
        text = (
            f"FR : le forum a mis la déclaration ({_turn_fr(decl)}) du duel « {title} » en "
            f"attente d'un modérateur : « {quoted} ». Le bot ne la postera pas une seconde "
            "fois ; il la tiendra pour publiée dès qu'elle sera approuvée et visible dans le "
            "sujet. Approuvez-la dans la file de modération du forum.\n"
            f'EN: the board put the declaration ({_turn_en(decl)}) of duel "{title}" in the '
            f'moderator queue: "{quoted}". The bot will not post it again; it counts it as '
            "published as soon as it is approved and shows in the topic. Approve it in the "
            "board's moderation queue."
        )
    else:
        subject = f"Publication refusée par le forum : {title}"
        text = (
            f"FR : le forum a refusé la déclaration ({_turn_fr(decl)}) du duel « {title} » : "
            f"« {quoted} ». Elle est retenue : elle repartira quand vous l'approuverez "
            "(« Approuver » / drafts approve) ou d'elle-même quand le sujet sera de nouveau "
            "ouvert au bot.\n"
            f'EN: the board refused the declaration ({_turn_en(decl)}) of duel "{title}": '
            f'"{quoted}". It is held: it goes out again when you approve it (Approve / drafts '
            "approve) or by itself once the topic is open to the bot again."
        )
    storage.publish_rows.open_task(
        int(duel["board_id"]), decl.duel_id, kind,
        f"b{duel['board_id']}-decl{decl.id}-{kind}-a{decl.attempts}", "", subject, text, iso(now),
    )  # fmt: skip


def close_publish_tasks(storage: Storage, decl: Declaration, note: str, now: datetime) -> int:
    """Close (``done``, by ``forumbot``) the open publish tasks of ``decl``; returns how many."""
    duel = storage.duel(decl.duel_id)
    return storage.publish_rows.close_tasks_like(
        f"b{duel['board_id']}-decl{decl.id}-publish_%", note, iso(now)
    )


def _older_than(stamp: str | None, now: datetime, seconds: float) -> bool:
    return not stamp or stamp <= iso(now - timedelta(seconds=seconds))


def settle_queued(
    storage: Storage,
    client: ForumClient,
    now: Callable[[], datetime],
    mark_published: Callable[[Declaration, int], None],
    last_published: Callable[[int], int | None],
    *,
    every_s: float = QUEUED_CHECK_S,
) -> list[int]:
    """Look for the marker of each ``queued`` declaration not looked for in ``every_s``
    seconds (one topic read from the duel's last published post each); found (a moderator
    approved it): ``mark_published(decl, post_id)`` and its tasks closed. Returns the post ids
    found. A refused login propagates; other forum errors leave the row queued."""
    found_ids: list[int] = []
    rows = storage.publish_rows.queued_declarations()
    for decl in map(Declaration.from_row, list(rows)):
        if not _older_than(decl.updated_at, now(), every_s):
            continue
        topic_id = int(storage.duel(decl.duel_id)["topic_id"])
        try:
            post_id = client.find_marker(topic_id, decl.marker or "", last_published(decl.duel_id))
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("declaration %s (queued): topic %s not read: %s", decl.id, topic_id, exc)
            continue
        if post_id is None:
            storage.publish_rows.update_declaration(decl.id, {"updated_at": iso(now())})
            storage.commit()
            continue
        log.info(
            "duel %s: queued declaration %s approved by a moderator: post %s",
            decl.duel_id, decl.id, post_id,
        )  # fmt: skip
        mark_published(decl, post_id)
        close_publish_tasks(storage, decl, f"approved: post {post_id}", now())
        storage.commit()
        found_ids.append(post_id)
    return found_ids


def probe_refused(
    storage: Storage,
    client: ForumClient,
    now: Callable[[], datetime],
    *,
    every_s: float = REFUSED_PROBE_S,
) -> list[int]:
    """For each declaration held because the board refused it (``last_error`` starting
    :data:`REFUSED_PREFIX`) and not probed in ``every_s`` seconds: one GET of the topic's reply
    form (``client.probe_reply``, when the client has it). Offered again (the lock was lifted):
    the row goes ``approved`` (it was due when refused; audit ``declaration.unlocked``) and its
    tasks are closed. Returns the ids of the declarations released."""
    probe: Callable[[int], Any] | None = getattr(client, "probe_reply", None)
    if probe is None:
        return []
    released: list[int] = []
    rows = storage.publish_rows.refused_declarations(REFUSED_PREFIX)
    for decl in map(Declaration.from_row, list(rows)):
        if not _older_than(decl.updated_at, now(), every_s):
            continue
        topic_id = int(storage.duel(decl.duel_id)["topic_id"])
        try:
            refusal = probe(topic_id)
        except LoginFailed:
            raise
        except ForumError as exc:
            log.info("declaration %s (refused): reply form not probed: %s", decl.id, exc)
            refusal = "probe failed"
        if refusal is not None:
            storage.publish_rows.touch_held(decl.id, iso(now()))
            storage.commit()
            continue
        with storage.atomic():
            changed = storage.publish_rows.release_refused(decl.id, decl.version, iso(now()))
            if changed == 1:
                storage.audit(
                    "forumbot", "declaration.unlocked", f"declaration:{decl.id}",
                    {"status": "held", "last_error": decl.last_error}, {"status": "approved"},
                    now(),
                )  # fmt: skip
                close_publish_tasks(storage, decl, "the board offers the reply form again", now())
        if changed == 1:
            log.info(
                "duel %s: topic %s open again: declaration %s goes out",
                decl.duel_id, topic_id, decl.id,
            )  # fmt: skip
            released.append(decl.id)
    return released


__all__ = [
    "QUEUED_CHECK_S",
    "REFUSED_PREFIX",
    "REFUSED_PROBE_S",
    "close_publish_tasks",
    "versions_differ",
    "open_publish_task",
    "probe_refused",
    "seen_marker",
    "seen_post",
    "settle_queued",
]
