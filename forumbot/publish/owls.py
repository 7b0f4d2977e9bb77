"""The owl outbox: private messages (seed 001's "hiboux") drafted, then sent exactly once.

Every owl is a row of ``owls`` with a unique idempotency key and a marker
(``forumbot·<key>``, appended to the message in small print), sent like declarations are
published (:mod:`forumbot.publish.poster`):

- ``pending`` -> ``sending`` (claimed by compare-and-set and committed *before* the POST) ->
  ``sent``; a permanent refusal (unknown recipient, PMs not allowed) -> ``failed``;
- a row found ``sending`` at the next pass (the process died mid-send, or the board's answer
  was ambiguous) is first looked for in the bot's outbox and sentbox by its marker
  (``client.find_pm_marker(subject, marker)``): found -> ``sent``, never sent twice;
- a client that cannot look in its outbox (no ``find_pm_marker``) never resends an owl
  whose fate is unknown: the row goes ``failed`` for an admin to check;
- before the FIRST send, the outbox and sentbox are searched too for an owl written before
  this process started (``publish_marks.owls_fresh_after``) and for every owl while a
  restore's check window lasts (``publish_restores.check_until``): a database restored from a
  backup, or a power cut, never sends an owl twice (issue 22);
- a PM the board holds for a moderator (:class:`~forumbot.errors.PostQueued`) goes ``queued``
  (never sent again; found in the sent box later -> ``sent``); a PM refused because the
  recipient's inbox is full (:class:`~forumbot.errors.InboxFull`, Forumactif) goes ``failed``
  with the board's sentence and a referee task (``owl_refused``).

Keys are built from what the board knows (:func:`owl_key`: board, topic, kind, recipient),
never from a database counter, so an owl drafted again on a restored or new database has the
key (and the marker) of the one already sent. Keys of older versions (``b1-duel4-owl-…``) stay
readable: :func:`draft_owl` takes them as ``legacy_keys``.

Seed 001: "Vous recevrez par hibou les modificateurs liés à votre type de magie" (RULES.md:
"they are sent to the duellist by owl").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from forumbot.errors import (
    FloodLimited,
    FormInvalid,
    ForumError,
    InboxFull,
    LoginFailed,
    PermissionDenied,
    PostQueued,
    SessionExpired,
)
from forumbot.forums.base import ForumClient
from forumbot.publish.labels import slug
from forumbot.publish.render import client_platform, marker_line, marker_text
from forumbot.storage import Storage, iso

log = logging.getLogger("forumbot.publish.owls")

# Errors raised before anything was sent: the owl goes back to ``pending``.
_NOT_SENT = (FloodLimited, SessionExpired)
# Errors that will not change by retrying: the owl is ``failed``.
_REFUSED = (FormInvalid, PermissionDenied)


def owl_key(board_id: int, topic_id: int, kind: str, recipient: str, who: str = "") -> str:
    """Idempotency key of an owl from what the board knows: ``b<board>t<topic>-owl-<kind>-
    <recipient>`` (slugs), plus ``-<who>`` (the character) when it is not the recipient's
    account name. ``kind`` says which owl (``magic_types``, ``result``, ``zone-<zone>``...).
    A restored or new database drafting the same owl again gets the same key."""
    key = f"b{board_id}t{topic_id}-owl-{kind}-{slug(recipient)}"
    if who and slug(who) != slug(recipient):
        key += f"-{slug(who)}"
    return key


def draft_owl(
    storage: Storage,
    board_id: int,
    key: str,
    kind: str,
    recipient: str,
    subject: str,
    text: str,
    now: datetime,
    *,
    duel_id: int | None = None,
    user_id: int | None = None,
    legacy_keys: tuple[str, ...] = (),
) -> int:
    """Put an owl in the outbox (once: a second draft with the same ``key``, or with one of
    its ``legacy_keys`` in the database, is ignored).

    Args:
        key: idempotency key, unique across the board's owls (e.g. ``b1-duel4-owl-aurora``).
        kind: what it is (``magic_types``, ``result``, ``reminder``...), for logs and tests.
        recipient: the forum account's name; ``user_id``: its id when known.
        subject, text: the PM (BBCode); the marker is appended when it is sent.
        legacy_keys: the keys older versions gave this owl (``b1-duel4-owl-aurora``): a row
            under one of them is this owl.

    Returns:
        The owl's row id.
    """
    for known in (key, *legacy_keys):
        existing = owl(storage, known)
        if existing is not None:
            return int(existing["id"])
    return storage.owl_rows.insert(
        {
            "board_id": board_id,
            "idempotency_key": key,
            "kind": kind,
            "duel_id": duel_id,
            "recipient": recipient,
            "user_id": user_id,
            "subject": subject,
            "text": text,
            "marker": marker_text(key),
            "status": "pending",
            "attempts": 0,
            "created_at": iso(now),
        }
    )


def owl(storage: Storage, key: str) -> dict[str, Any] | None:
    """The owl with that idempotency key, or None."""
    return storage.owl_rows.by_key(key)


def owls(storage: Storage, board_id: int, status: str | None = None) -> list[dict[str, Any]]:
    """The board's owls (optionally only those with ``status``), oldest first."""
    return storage.owl_rows.of_board(board_id, status)


RESTORE_PM_SEARCH = 100
"""PMs read (newest first, per folder) when an owl is looked for before its FIRST send (a
restore's window, a row from before this process started): the owls sent between a backup
and its restore can be many more than the usual 10 (soak seed 5: 12, searched one by one,
each re-send pushing the next out of the 10 newest). The clients keep the text of the PMs
they read (a sent PM never changes), so the window's searches cost the folder listings."""


def _already_sent(client: ForumClient, row: dict[str, Any], deep: bool = False) -> bool | None:
    """True/False from the client's outbox search, None when it cannot search; ``deep``:
    among the :data:`RESTORE_PM_SEARCH` newest PMs of each folder, not the client's default."""
    finder = getattr(client, "find_pm_marker", None)
    if finder is None:
        return None
    if deep:
        return bool(finder(row["subject"], row["marker"], limit=RESTORE_PM_SEARCH))
    return bool(finder(row["subject"], row["marker"]))


def send_owl(
    storage: Storage,
    client: ForumClient,
    row: dict[str, Any],
    now: Callable[[], datetime],
    *,
    check_first: bool = False,
) -> bool:
    """Send one owl (see module docstring). Returns True when it is (now known to be) sent.

    ``check_first``: search the outbox and sentbox for its marker before the first send too
    (a row from before this process started, a restore's window: :func:`send_due_owls`).

    Raises:
        LoginFailed: the bot cannot log in (stops the bot, as for declarations).
    """
    retrying = row["status"] == "sending"
    claimed = storage.owl_rows.claim(row["id"], row["status"])
    storage.owl_rows.commit()
    if claimed != 1:
        return False
    try:
        if retrying or check_first:
            found = _already_sent(client, row, deep=check_first)
            if found is None and retrying:
                _set(storage, row, "failed", "fate unknown and the client cannot search its outbox")
                log.error("owl %s to %s: fate unknown; not resent", row["id"], row["recipient"])
                return False
            if found:
                _set(storage, row, "sent", None, now())
                log.info("owl %s to %s: found already sent", row["id"], row["recipient"])
                return True
        message = (
            row["text"].rstrip()
            + "\n"
            + marker_line(row["idempotency_key"], client_platform(client))
        )
        client.send_pm(row["user_id"], row["recipient"], row["subject"], message, row["marker"])
    except LoginFailed:
        raise
    except _NOT_SENT as exc:
        _set(storage, row, "pending", f"{type(exc).__name__}: {exc}")
        log.warning("owl %s to %s: not sent (%s); will retry", row["id"], row["recipient"], exc)
        return False
    except PostQueued as exc:
        _set(storage, row, "queued", f"PostQueued: {exc}")
        _owl_task(storage, row, "owl_queued", str(exc), now())
        log.warning(
            "owl %s to %s: the board holds it for a moderator; not sent again",
            row["id"], row["recipient"],
        )  # fmt: skip
        return False
    except InboxFull as exc:
        _set(storage, row, "failed", f"InboxFull: {exc.sentence}")
        _owl_task(storage, row, "owl_refused", exc.sentence, now())
        log.error(
            "owl %s to %s: refused, the recipient's inbox is full (%s); referee task opened",
            row["id"], row["recipient"], exc.sentence,
        )  # fmt: skip
        return False
    except _REFUSED as exc:
        _set(storage, row, "failed", f"{type(exc).__name__}: {exc}")
        log.error("owl %s to %s: refused by the board (%s)", row["id"], row["recipient"], exc)
        return False
    except ForumError as exc:
        storage.owl_rows.update(row["id"], {"last_error": f"{type(exc).__name__}: {exc}"})
        log.warning("owl %s to %s: outcome unknown (%s)", row["id"], row["recipient"], exc)
        return False
    _set(storage, row, "sent", None, now())
    log.info("owl %s (%s) sent to %s", row["id"], row["kind"], row["recipient"])
    return True


def _owl_task(
    storage: Storage, row: dict[str, Any], kind: str, sentence: str, now: datetime
) -> None:
    """A referee task for an owl the board did not deliver (``owl_refused``: inbox full;
    ``owl_queued``: held for a moderator), French then English with the board's sentence.
    An owl of no duel (a notice) has no referee: logged only."""
    if row.get("duel_id") is None:
        return
    quoted = " ".join(sentence.split())[:400]
    who = row["recipient"]
    if kind == "owl_queued":
        subject = f"Hibou en attente d'un modérateur : {who}"
        text = (
            f"FR : le forum retient pour un modérateur le hibou « {row['subject']} » à {who} : "
            f"« {quoted} ». Le bot ne l'enverra pas une seconde fois.\n"
            f'EN: the board holds the owl "{row["subject"]}" to {who} for a moderator: '
            f'"{quoted}". The bot will not send it again.'
        )
    else:
        subject = f"Hibou refusé par le forum : {who}"
        text = (
            f"FR : le forum a refusé le hibou « {row['subject']} » à {who} : « {quoted} ». "
            "Rien n'est parti ; prévenez le joueur (boîte de réception pleine) puis renvoyez-le "
            "(owls retry) ou transmettez-le vous-même.\n"
            f'EN: the board refused the owl "{row["subject"]}" to {who}: "{quoted}". Nothing '
            "was sent; tell the player (inbox full), then send it again or pass it on yourself."
        )
    storage.publish_rows.open_task(
        row["board_id"], row["duel_id"], kind,
        f"b{row['board_id']}-owl{row['id']}-{kind}-a{int(row.get('attempts') or 0) + 1}",
        who, subject, text, iso(now),
    )  # fmt: skip
    storage.owl_rows.commit()


def _set(
    storage: Storage,
    row: dict[str, Any],
    status: str,
    error: str | None,
    sent_at: datetime | None = None,
) -> None:
    fields: dict[str, Any] = {"status": status, "last_error": error}
    if sent_at is not None:
        fields["sent_at"] = iso(sent_at)
    storage.owl_rows.update(row["id"], fields)


def _first_send_checks(storage: Storage, now: datetime) -> tuple[int, bool]:
    """``(owls_fresh_after, restore window open)``: owls with an id up to the first were
    written before this process started; while a restore's window is open every owl is
    looked for before its first send (:class:`forumbot.publish.poster.PublishState`)."""
    mark = storage.owl_rows.fresh_after()
    until = storage.owl_rows.restore_check_until()
    window = bool(until and iso(now) < until)
    return (mark if mark is not None else 0), window


def found_in_sent_box(client: ForumClient, subject: str, marker: str) -> bool:
    """True when the bot's outbox or sent box holds a PM with ``marker`` (False when the
    client cannot search)."""
    return bool(_already_sent(client, {"subject": subject, "marker": marker}))


def restore_window(storage: Storage, now: datetime) -> bool:
    """True while a restore's check window lasts (``publish_restores.check_until``): an owl
    sent outside the outbox (a deadline's reminder) is looked for in the sent box first."""
    return _first_send_checks(storage, now)[1]


def send_due_owls(
    storage: Storage, client: ForumClient, now: Callable[[], datetime], board_id: int
) -> list[int]:
    """Send every pending owl of the board, and settle those left ``sending`` or ``queued``
    (found in the sent box -> ``sent``). Returns the ids of the owls sent (or found sent)
    in this pass."""
    fresh_after, window = _first_send_checks(storage, now())
    done: list[int] = []
    for row in storage.owl_rows.queued(board_id):
        try:
            delivered = _already_sent(client, row)
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("owl %s (queued): sent box not read: %s", row["id"], exc)
            continue
        if delivered:
            _set(storage, row, "sent", None, now())
            log.info("owl %s to %s: delivered after moderation", row["id"], row["recipient"])
            done.append(int(row["id"]))
    for row in storage.owl_rows.due(board_id):
        check = window or int(row["id"]) <= fresh_after
        if send_owl(storage, client, row, now, check_first=check):
            done.append(int(row["id"]))
    return done


__all__ = [
    "draft_owl", "found_in_sent_box", "owl", "owl_key", "owls", "restore_window",
    "send_due_owls", "send_owl",
]  # fmt: skip
