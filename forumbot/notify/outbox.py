"""The notices outbox: who is told, one row per (event, person, channel), sent exactly once.

Queueing (:func:`queue_event`) inserts one ``notices`` row per recipient and channel with the
idempotency key ``<event key>|<username>|<channel>`` (unique): queueing the same event again is
a no-op, so the scanner may look at the same state twice.

Sending (:func:`send_notices`), exactly once like declarations (:mod:`forumbot.publish.poster`):

- **owls** (channel ``owl``), gathered per person: a person's pending owl notices become one
  owl when it is due (:func:`owl_due_at`: at once when their last owl is older than
  ``owl_gather_s``, so the first item goes at the next pass; else at the end of that window,
  or ``owl_lead_s`` before one of the drafts publishes by itself, whichever comes first).
  That owl is drafted in the owl outbox (:func:`forumbot.publish.owls.draft_owl`, key
  :func:`notice_owl_key`, unique across restores) and the notices turn ``batched`` in the same
  committed transaction; the owl is then sent by :func:`forumbot.publish.owls.send_owl`
  (claimed before the POST, looked for by its marker in the bot's outbox after a crash: never
  sent twice); once it is ``sent`` its notices are ``sent`` and audit-logged. A crash
  anywhere leaves ``batched`` notices whose owl the next pass settles.
- **Apprise** (channel ``apprise``): the pending notices of one URL group (a person's own URLs,
  or their role's) outside the recipients' quiet hours are claimed (``sending``, attempts + 1,
  committed), then sent as one message; success -> ``sent``, failure -> back to ``pending``
  (``failed`` after ``max_attempts``). A row found ``sending`` at the next pass (the process
  died mid-send) cannot be checked with the far end: it becomes ``failed`` (never resent) and
  the audit log says so.
- a notice whose subject no longer waits (:func:`forumbot.notify.items.explain` says why) is
  ``dropped``, the reason logged (a warning when its subject is gone); a draft published by
  itself before its notice is *not* a reason: the notice says so. A notice that cannot be
  written is ``failed`` and reported once (:func:`forumbot.notify.faults.report_once`); every
  other notice of the pass goes on.

No write transaction is held while sending: each owl and Apprise group is claimed and
committed before the network call, and settled in a new short transaction after it.

Every final state (sent, failed, dropped) writes one audit row: actor ``forumbot``, action
``notice.<status>``, target ``notice:<id>``, after = recipient, channel, kind, subject, owl key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from forumbot.errors import LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.notify.faults import report_failed_owl, report_once
from forumbot.notify.items import Item, explain
from forumbot.notify.journal import NoticeJournal
from forumbot.notify.settings import NotifyConfig, PersonSettings, person_settings, quiet_until
from forumbot.publish.labels import slug
from forumbot.publish.owls import draft_owl, owl, send_owl
from forumbot.publish.poster import crash_point
from forumbot.publish.render import Trusted, render
from forumbot.storage import Storage, StorageOperationalError, iso

log = logging.getLogger("forumbot.notify.outbox")

Sender = Callable[[tuple[str, ...], str, str], bool]
"""``sender(urls, title, body) -> ok``: sends one Apprise message (see :func:`apprise_send`)."""


@dataclass(frozen=True)
class Event:
    """Something a person should hear about.

    Attributes:
        key: stable identity of the event (e.g. ``declaration:12:created``).
        kind: one of :data:`forumbot.notify.items.KINDS`.
        duel_id, turn: the duel and turn (None when there is none: a sign-up task has no
            duel, and goes to the admins).
        target: what waits: ``declaration:<id>``, ``violation:<duel>:<turn>:<name>:<rule>``,
            ``referee_task:<id>``.
        facts: small JSON facts the text needs later (who took a draft, the rule).
    """

    key: str
    kind: str
    duel_id: int | None
    turn: int | None
    target: str
    facts: dict[str, Any] = field(default_factory=dict)


def _enabled_users(storage: Storage, role: str | None = None) -> list[dict[str, Any]]:
    return storage.notices.enabled_users(role)


def recipients(storage: Storage, duel_id: int | None, audience: str) -> list[tuple[str, str]]:
    """``[(username, role)]`` told about an event of ``duel_id``.

    ``audience``: ``"referees"`` (the duel's assigned referees, table ``duel_referees``;
    admins when it has none, or when ``duel_id`` is None), ``"admins"`` (every enabled
    admin). Disabled accounts are never told.
    """
    admins = [(u["username"], "admin") for u in _enabled_users(storage, "admin")]
    if audience == "admins" or duel_id is None:
        return admins
    roles = {u["username"]: u["role"] for u in _enabled_users(storage)}
    assigned = [
        (r["username"], roles[r["username"]])
        for r in storage.notices.duel_referees(duel_id)
        if r["username"] in roles
    ]
    return assigned or admins


def queue_event(
    storage: Storage,
    event: Event,
    people: list[tuple[str, str]],
    cfg: NotifyConfig,
    now: datetime,
    *,
    skip: str | None = None,
    settings_of: Callable[[str], PersonSettings] | None = None,
) -> list[int]:
    """Queue ``event`` for each ``(username, role)`` in ``people`` (except ``skip``) on each
    of their channels (``apprise`` only when URLs are configured for them). Idempotent.
    ``settings_of(username)`` gives a person's settings (default: read from storage).
    Returns the ids of the rows inserted now (not committed: the caller's transaction)."""
    inserted = []
    for username, role in people:
        if skip is not None and username.casefold() == skip.casefold():
            continue
        if settings_of is not None:
            settings = settings_of(username)
        else:
            settings = person_settings(storage, username, cfg)
        for channel in settings.channels:
            if channel == "apprise" and cfg.apprise_source(username, role) is None:
                continue
            new_id = storage.notices.queue(
                [
                    f"{event.key}|{username}|{channel}",
                    event.key,
                    event.kind,
                    event.duel_id,
                    event.turn,
                    event.target,
                    username,
                    channel,
                    json.dumps(event.facts, ensure_ascii=False),
                    iso(now),
                ]
            )
            if new_id is not None:
                inserted.append(new_id)
    return inserted


def notices(
    storage: Storage, status: str | None = None, channel: str | None = None
) -> list[dict[str, Any]]:
    """Notice rows (optionally one status / channel), oldest first."""
    return storage.notices.notices(status, channel)


def _final(storage: Storage, row: dict[str, Any], status: str, now: datetime, **extra: Any) -> None:
    """Set a notice's final status and write its audit row (caller commits)."""
    fields: dict[str, Any] = {"status": status, **extra}
    if status == "sent":
        fields["sent_at"] = iso(now)
    storage.notices.update(row["id"], fields)
    storage.audit(
        "forumbot",
        f"notice.{status}",
        f"notice:{row['id']}",
        {"status": row["status"]},
        {
            "recipient": row["recipient"],
            "channel": row["channel"],
            "kind": row["kind"],
            "subject": row["target"],
            "batch": extra.get("batch_key", row.get("batch_key")),
            "error": extra.get("last_error"),
        },
        now,
    )


def _role(storage: Storage, username: str) -> str:
    user = storage.notices.user(username)
    return str(user["role"]) if user else "referee"


def _render_items(template: str, username: str, items: list[Item], cfg: NotifyConfig) -> str:
    context = {
        "username": username,
        "items": [
            {
                "kind": i.kind,
                "duel": i.duel,
                "duel_id": i.duel_id,
                "turn": i.turn,
                "what": i.what,
                "when": i.when,
                "detail": i.detail,
                "link": Trusted(i.link),
                "post_link": Trusted(i.post_link),
            }
            for i in items
        ],
        "count": len(items),
    }
    return render(template, context)


def owl_subject(count: int) -> str:
    """The owl's subject: ``"Relecture : 3 éléments vous attendent"``."""
    return (
        "Relecture : 1 élément vous attend"
        if count == 1
        else f"Relecture : {count} éléments vous attendent"
    )


# -- owls ---------------------------------------------------------------------------------
def _settle_batches(
    storage: Storage, client: ForumClient, now: Callable[[], datetime],
    journal: NoticeJournal | None = None,
) -> list[int]:  # fmt: skip
    """Finish the owls of ``batched`` notices (sent, or failed); returns notice ids sent."""
    sent: list[int] = []
    by_key: dict[str, list[dict[str, Any]]] = {}
    for row in notices(storage, "batched", "owl"):
        by_key.setdefault(str(row["batch_key"]), []).append(row)
    for key, rows in by_key.items():
        outbox_row = owl(storage, key)
        if outbox_row is None:  # cannot happen (same transaction); reopen them
            for r in rows:
                storage.notices.update(r["id"], {"status": "pending", "batch_key": None})
            storage.commit()
            continue
        if outbox_row["status"] in ("pending", "sending"):
            crash_point("notice_before_send")
            send_owl(storage, client, outbox_row, now)
            crash_point("notice_after_send")
            outbox_row = owl(storage, key) or outbox_row
        if outbox_row["status"] == "sent":
            with storage.atomic():
                for r in rows:
                    _final(storage, r, "sent", now(), batch_key=key)
            sent.extend(int(r["id"]) for r in rows)
            if journal is not None:
                journal.note(storage, rows, "sent", now())
            log.info("owl %s sent to %s (%d notices)", key, rows[0]["recipient"], len(rows))
        elif outbox_row["status"] == "failed":
            with storage.atomic():
                for r in rows:
                    _final(storage, r, "failed", now(), last_error=outbox_row["last_error"])
            report_failed_owl(
                storage, str(rows[0]["recipient"]), str(outbox_row["recipient"]),
                str(outbox_row["last_error"] or ""), now(),
            )  # fmt: skip
            if journal is not None:
                journal.note(storage, rows, "retry", now())
    return sent


def _last_owl_at(storage: Storage, username: str) -> str | None:
    return storage.notices.last_owl_at(username)


def _deadline(storage: Storage, row: dict[str, Any]) -> datetime | None:
    """When the draft of a ``draft_waiting`` notice publishes by itself (its review delay,
    or the end of a referee's claim), None when it does not (held, manual, not a draft)."""
    if row["kind"] != "draft_waiting" or not str(row["target"]).startswith("declaration:"):
        return None
    decl = storage.notices.draft_deadline(int(str(row["target"]).partition(":")[2]))
    if decl is None or decl[0] != "draft" or not decl[1]:
        return None
    until = max(str(decl[1]), str(decl[3] or "")) if decl[2] else str(decl[1])
    return datetime.fromisoformat(until)


def owl_due_at(
    storage: Storage, cfg: NotifyConfig, rows: list[dict[str, Any]], now: datetime
) -> datetime:
    """When a person's gathered owl of pending ``rows`` is due (issue 23): at once when their
    last owl is older than ``owl_gather_s`` (the first item of a notice goes at the next
    pass); else at the end of that window, or earlier, ``owl_lead_s`` before the first of
    their drafts publishes by itself: later items join the next owl that is due anyway, and
    no draft publishes before its owl."""
    last = _last_owl_at(storage, str(rows[0]["recipient"]))
    if not last:
        return now
    due = datetime.fromisoformat(last) + timedelta(seconds=cfg.owl_gather_s)
    for r in rows:
        deadline = _deadline(storage, r)
        if deadline is not None:
            due = min(due, deadline - timedelta(seconds=cfg.owl_lead_s))
    return due


def _broken(storage: Storage, row: dict[str, Any], exc: BaseException, now: datetime) -> None:
    """A notice that cannot be written: ``failed`` (audit), reported once (log, and a
    referee task when it is about a draft or a violation)."""
    with storage.atomic():
        _final(storage, row, "failed", now, last_error=f"cannot be written: {exc}"[:500])
    report_once(
        storage, f"notice:{row['id']}", exc, now, duel_id=row["duel_id"],
        needs_task=not str(row["target"]).startswith("referee_task:"),
    )  # fmt: skip


def _dropped(storage: Storage, row: dict[str, Any], why: str, now: datetime) -> None:
    """A notice whose subject no longer waits: ``dropped``, the reason logged (caller's
    transaction)."""
    _final(storage, row, "dropped", now, last_error=why)
    level = logging.WARNING if why.startswith("gone:") else logging.INFO
    log.log(level, "notify: notice %s to %s about %s dropped (%s)", row["id"],
            row["recipient"], row["target"], why)  # fmt: skip


def items_of(
    storage: Storage, rows: list[dict[str, Any]], cfg: NotifyConfig, now: datetime
) -> list[tuple[dict[str, Any], Item]]:
    """``(row, item)`` for each notice row that is still to be said; the others are dropped
    (subject no longer waits) or failed (cannot be written, reported once): each row on its
    own, one bad row never stops the others. Commits."""
    kept = []
    for r in rows:
        try:
            found = explain(storage, r, cfg, now)
        except StorageOperationalError:
            raise
        except Exception as exc:  # noqa: BLE001 - one bad row: reported, the others go on
            _broken(storage, r, exc, now)
            continue
        if isinstance(found, Item):
            kept.append((r, found))
        else:
            with storage.atomic():
                _dropped(storage, r, found, now)
    return kept


def notice_owl_key(username: str, rows: list[dict[str, Any]], text: str) -> str:
    """The owl key of a notice owl: ``notice-<user slug>-<created>-<hash>``.

    ``created`` is the first notice row's ``created_at`` in compact form (``20261201T230201``);
    ``hash`` is 10 hex digits of SHA-256 over the rows' idempotency keys and the owl's text.
    Row ids are not part of it: a restored or new database hands the same ids out again, and
    ``notice-<user>-<id>`` (the old form, still valid for owls already stored) then named two
    different owls. The same pending rows and text give the same key again (a re-batch after
    a crash finds its owl by its marker); a new notice (new creation time or other text) gets
    a new key.
    """
    first = min(rows, key=lambda r: (str(r["created_at"]), int(r["id"])))
    created = re.sub(r"[^0-9T]", "", str(first["created_at"]).split("+")[0])[:15]
    digest = hashlib.sha256()
    for r in sorted(str(r["idempotency_key"]) for r in rows):
        digest.update(r.encode() + b"\n")
    digest.update(text.encode())
    return f"notice-{slug(username)}-{created}-{digest.hexdigest()[:10]}"


def _batch_owls(
    storage: Storage, cfg: NotifyConfig, board_id: int, now: datetime,
    journal: NoticeJournal | None = None,
) -> None:  # fmt: skip
    """Gather each person's pending owl notices into one owl of the outbox when it is due
    (:func:`owl_due_at`). A person whose owl cannot be written is reported once; the others'
    owls are drafted."""
    pending: dict[str, list[dict[str, Any]]] = {}
    for row in _unforgotten(storage, notices(storage, "pending", "owl"), journal, now):
        pending.setdefault(str(row["recipient"]), []).append(row)
    for username, rows in pending.items():
        if owl_due_at(storage, cfg, rows, now) > now:
            continue
        kept = items_of(storage, rows, cfg, now)
        if not kept:
            continue
        try:
            settings = person_settings(storage, username, cfg)
            items = [i for _, i in kept]
            text = _render_items("notice_owl.bbcode.j2", settings.forum_name, items, cfg)
            key = notice_owl_key(username, [r for r, _ in kept], text)
        except Exception as exc:  # noqa: BLE001 - their owl only; the others go on
            for r, _ in kept:
                _broken(storage, r, exc, now)
            continue
        with storage.atomic():
            draft_owl(
                storage,
                board_id,
                key,
                "notice",
                settings.forum_name,
                owl_subject(len(items)),
                text,
                now,
            )
            storage.notices.batch(key, [r["id"] for r, _ in kept])
        if journal is not None:
            journal.note(storage, [r for r, _ in kept], "sending", now)


# -- Apprise ------------------------------------------------------------------------------
def apprise_send(urls: tuple[str, ...], title: str, body: str) -> bool:
    """Send one message to every Apprise URL (``apprise.Apprise().notify``); True when all
    were accepted. Apprise does the HTTP (Discord, e-mail, Matrix, ntfy, Telegram, json://)."""
    import apprise

    hub = apprise.Apprise()
    for url in urls:
        if not hub.add(url):
            log.error("notify: an Apprise URL was refused (scheme %s)", url.split(":", 1)[0])
            return False
    return bool(hub.notify(title=title, body=body))


def _settle_unknown_apprise(storage: Storage, now: datetime) -> None:
    """Apprise notices left ``sending`` by a crash: their fate is unknown -> ``failed``."""
    rows = notices(storage, "sending", "apprise")
    if not rows:
        return
    with storage.atomic():
        for r in rows:
            _final(storage, r, "failed", now, last_error="fate unknown after a crash: not resent")
    log.error("notify: %d Apprise notices of unknown fate marked failed", len(rows))


def _unforgotten(
    storage: Storage, rows: list[dict[str, Any]], journal: NoticeJournal | None, now: datetime
) -> list[dict[str, Any]]:
    """``rows`` but those the notice journal shows sent before a restore (settled ``sent``)."""
    return rows if journal is None else journal.unforgotten(storage, rows, now, _final)


def _send_apprise(
    storage: Storage, cfg: NotifyConfig, sender: Sender, now: datetime,
    journal: NoticeJournal | None = None,
) -> list[int]:  # fmt: skip
    groups: dict[str, tuple[tuple[str, ...], list[dict[str, Any]]]] = {}
    for row in _unforgotten(storage, notices(storage, "pending", "apprise"), journal, now):
        username = str(row["recipient"])
        if quiet_until(person_settings(storage, username, cfg), now, cfg.tz) is not None:
            continue  # quiet hours: nothing but owls
        found = cfg.apprise_source(username, _role(storage, username))
        if found is None:
            with storage.atomic():
                _final(storage, row, "dropped", now, last_error="no Apprise URL for this person")
            continue
        group, source = found
        urls = source.urls()
        if not urls:
            continue  # the variable or file is empty for now: wait
        groups.setdefault(group, (urls, []))[1].append(row)
    sent: list[int] = []
    for group, (urls, rows) in groups.items():
        items: list[Item] = []
        keep: list[dict[str, Any]] = []
        seen: set[str] = set()
        for r, item in items_of(storage, rows, cfg, now):
            keep.append(r)
            if r["event_key"] not in seen:  # a shared channel hears each event once
                seen.add(r["event_key"])
                items.append(item)
        if not keep:
            continue
        names = sorted({str(r["recipient"]) for r in keep})
        try:
            body = _render_items("notice_apprise.txt.j2", ", ".join(names), items, cfg)
        except Exception as exc:  # noqa: BLE001 - this group only; the others go on
            for r in keep:
                _broken(storage, r, exc, now)
            continue
        ids = [r["id"] for r in keep]
        claimed = storage.notices.claim_sending(group, ids)
        if claimed != len(ids):  # another pass took some: leave them to it
            continue
        if journal is not None:
            journal.note(storage, keep, "sending", now)
        crash_point("notice_before_apprise")
        try:
            ok = sender(urls, owl_subject(len(items)), body)
        except Exception as exc:  # an Apprise plugin raising: counted as a failure
            log.warning("notify: Apprise group %s raised %s", group, exc)
            ok = False
        with storage.atomic():
            for r in keep:
                r = {**r, "status": "sending", "attempts": int(r["attempts"] or 0) + 1}
                if ok:
                    _final(storage, r, "sent", now, batch_key=group)
                elif r["attempts"] >= cfg.max_attempts:
                    _final(storage, r, "failed", now, last_error="Apprise refused it")
                else:
                    storage.notices.update(
                        r["id"], {"status": "pending", "last_error": "Apprise refused it"}
                    )
        if journal is not None:
            journal.note(storage, keep, "sent" if ok else "retry", now)
        if ok:
            sent.extend(ids)
            log.info("notify: Apprise group %s: %d notices sent", group, len(ids))
        else:
            log.warning("notify: Apprise group %s: not sent; will retry", group)
    return sent


def send_notices(
    storage: Storage,
    client: ForumClient | None,
    cfg: NotifyConfig,
    now: Callable[[], datetime],
    board_id: int,
    *,
    sender: Sender = apprise_send,
    journal: NoticeJournal | None = None,
) -> list[int]:
    """One pass of the outbox (see module docstring). Returns the notice ids sent.

    ``client`` None: owls are not sent in this pass (a process without a forum login).
    ``journal``: the notice journal beside the database (:mod:`forumbot.notify.journal`):
    written at each send, read after a restore; None: no journal.

    Raises:
        LoginFailed: the bot cannot log in (as for declarations).
    """
    sent: list[int] = []
    _settle_unknown_apprise(storage, now())
    if client is not None:
        try:
            sent += _settle_batches(storage, client, now, journal)
            _batch_owls(storage, cfg, board_id, now(), journal)
            sent += _settle_batches(storage, client, now, journal)
        except LoginFailed:
            raise
    sent += _send_apprise(storage, cfg, sender, now(), journal)
    return sent


__all__ = [
    "Event",
    "Sender",
    "apprise_send",
    "notices",
    "owl_subject",
    "queue_event",
    "recipients",
    "send_notices",
]
