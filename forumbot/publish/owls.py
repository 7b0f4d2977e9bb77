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
  whose fate is unknown: the row goes ``failed`` for an admin to check.

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
    LoginFailed,
    PermissionDenied,
    SessionExpired,
)
from forumbot.forums.base import ForumClient
from forumbot.publish.render import marker_line, marker_text
from forumbot.storage import Storage, iso

log = logging.getLogger("forumbot.publish.owls")

# Errors raised before anything was sent: the owl goes back to ``pending``.
_NOT_SENT = (FloodLimited, SessionExpired)
# Errors that will not change by retrying: the owl is ``failed``.
_REFUSED = (FormInvalid, PermissionDenied)


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
) -> int:
    """Put an owl in the outbox (once: a second draft with the same ``key`` is ignored).

    Args:
        key: idempotency key, unique across the board's owls (e.g. ``b1-duel4-owl-aurora``).
        kind: what it is (``magic_types``, ``result``, ``reminder``...), for logs and tests.
        recipient: the forum account's name; ``user_id``: its id when known.
        subject, text: the PM (BBCode); the marker is appended when it is sent.

    Returns:
        The owl's row id.
    """
    existing = owl(storage, key)
    if existing is not None:
        return int(existing["id"])
    return int(
        storage.db["owls"]
        .insert(
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
        .last_pk
    )


def owl(storage: Storage, key: str) -> dict[str, Any] | None:
    """The owl with that idempotency key, or None."""
    rows = list(storage.db["owls"].rows_where("idempotency_key = ?", [key]))
    return rows[0] if rows else None


def owls(storage: Storage, board_id: int, status: str | None = None) -> list[dict[str, Any]]:
    """The board's owls (optionally only those with ``status``), oldest first."""
    if status is None:
        return list(storage.db["owls"].rows_where("board_id = ?", [board_id], order_by="id"))
    return list(
        storage.db["owls"].rows_where(
            "board_id = ? and status = ?", [board_id, status], order_by="id"
        )
    )


def _already_sent(client: ForumClient, row: dict[str, Any]) -> bool | None:
    """True/False from the client's outbox search, None when it cannot search."""
    finder = getattr(client, "find_pm_marker", None)
    if finder is None:
        return None
    return bool(finder(row["subject"], row["marker"]))


def send_owl(
    storage: Storage, client: ForumClient, row: dict[str, Any], now: Callable[[], datetime]
) -> bool:
    """Send one owl (see module docstring). Returns True when it is (now known to be) sent.

    Raises:
        LoginFailed: the bot cannot log in (stops the bot, as for declarations).
    """
    retrying = row["status"] == "sending"
    claimed = storage.db.execute(
        "update owls set status = 'sending', attempts = coalesce(attempts, 0) + 1 "
        "where id = ? and status = ?",
        [row["id"], row["status"]],
    ).rowcount
    storage.db.conn.commit()
    if claimed != 1:
        return False
    try:
        if retrying:
            found = _already_sent(client, row)
            if found is None:
                _set(storage, row, "failed", "fate unknown and the client cannot search its outbox")
                log.error("owl %s to %s: fate unknown; not resent", row["id"], row["recipient"])
                return False
            if found:
                _set(storage, row, "sent", None, now())
                log.info("owl %s to %s: found already sent", row["id"], row["recipient"])
                return True
        message = row["text"].rstrip() + "\n" + marker_line(row["idempotency_key"])
        client.send_pm(row["user_id"], row["recipient"], row["subject"], message, row["marker"])
    except LoginFailed:
        raise
    except _NOT_SENT as exc:
        _set(storage, row, "pending", f"{type(exc).__name__}: {exc}")
        log.warning("owl %s to %s: not sent (%s); will retry", row["id"], row["recipient"], exc)
        return False
    except _REFUSED as exc:
        _set(storage, row, "failed", f"{type(exc).__name__}: {exc}")
        log.error("owl %s to %s: refused by the board (%s)", row["id"], row["recipient"], exc)
        return False
    except ForumError as exc:
        storage.db["owls"].update(row["id"], {"last_error": f"{type(exc).__name__}: {exc}"})
        log.warning("owl %s to %s: outcome unknown (%s)", row["id"], row["recipient"], exc)
        return False
    _set(storage, row, "sent", None, now())
    log.info("owl %s (%s) sent to %s", row["id"], row["kind"], row["recipient"])
    return True


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
    storage.db["owls"].update(row["id"], fields)


def send_due_owls(
    storage: Storage, client: ForumClient, now: Callable[[], datetime], board_id: int
) -> list[int]:
    """Send every pending owl of the board, and settle those left ``sending``. Returns the ids
    of the owls sent (or found sent) in this pass."""
    rows = storage.db["owls"].rows_where(
        "board_id = ? and status in ('pending', 'sending')", [board_id], order_by="id"
    )
    return [row["id"] for row in list(rows) if send_owl(storage, client, row, now)]


__all__ = ["draft_owl", "owl", "owls", "send_due_owls", "send_owl"]
