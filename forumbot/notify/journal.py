"""The notice journal: what the notify pass sent, in a file beside the database that a
``forumbot restore`` does not roll back (issue 23: « every notice is sent once »).

A notice goes to Apprise or in an owl, not to the board as a declaration does, so after a
restore nothing on the board tells the bot that the notices of the forgotten hours were sent:
the restored database has them ``pending`` again (or queues them again from the drafts and
tasks it drafts again), and they would go out a second time. The journal is the proof:

- one JSON line per step, appended and flushed (``fsync``) by the notify pass: ``sending``
  just after a notice is claimed (Apprise) or batched into an owl, before anything leaves;
  ``sent`` once it is out; ``retry`` when it went back to ``pending`` (Apprise refused it) or
  ``failed``. Fields: ``at`` (ISO, UTC), ``key`` (the notice's *durable key*, below),
  ``state``, ``notice`` (the row's own idempotency key, for people reading the file).
- the durable key names the notice by facts a restore cannot give to another notice: the
  declaration's idempotency key (``b1t7-turn3``, the topic and the turn) instead of its row
  id, a referee task's ``source_key``, a violation's topic, turn, duellist and rule; then the
  event's kind, the recipient and the channel (:func:`durable_key`).
- after a restore (``publish_restores``, stamped by :func:`forumbot.ops.backup.restore`), the
  entries written between the restored database's last notice and the restore are the ones
  it forgot (:meth:`NoticeJournal.forgotten`); a pending notice whose durable key was last
  ``sending`` or ``sent`` there is settled ``sent`` without being sent again (its
  ``last_error`` says why). Outside those windows the journal is only written, never read:
  a draft drafted again with the same key in normal running is announced as before.

The file is ``<database stem>.notices.journal`` beside the database (``bot.db`` ->
``bot.notices.journal``, mode 0600); an in-memory database has none. Deleting it loses only
this protection (docs/operations.md, "Restoring").
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from forumbot.storage import Storage, iso
from forumbot.storage.engine import side_file

Final = Callable[..., None]
"""``final(storage, row, status, now, **fields)``: the outbox's final state of a notice."""

log = logging.getLogger("forumbot.notify.journal")

SUFFIX = ".notices.journal"
"""The journal's name tail, after the database file's stem."""

DELIVERED = ("sending", "sent")
"""Journal states that mean the notice may have reached its recipient."""


def journal_path(database: str) -> Path | None:
    """The journal beside ``database`` (``bot.db`` -> ``bot.notices.journal``; a PostgreSQL
    club's in its state folder, ``forumbot-poudlard.notices.journal``:
    :func:`forumbot.storage.engine.side_file`); None for ``:memory:``."""
    return side_file(database, SUFFIX)


def durable_key(storage: Storage, row: dict[str, Any]) -> str:
    """The notice ``row``'s name by board facts (module doc): ``<subject>|<kind>|<recipient>|
    <channel>``. A subject the database cannot name any better keeps its event key."""
    target = str(row.get("target") or "")
    table, _, ident = target.partition(":")
    subject = str(row.get("event_key") or target)
    if table == "declaration" and ident.isdigit():
        key = storage.notices.declaration_key(int(ident))
        if key:
            subject = f"declaration:{key}"
    elif table == "referee_task" and ident.isdigit():
        key = storage.notices.task_source_key(int(ident))
        if key:
            subject = f"task:{key}"
    elif table == "violation":
        parts = target.split(":")  # violation:<duel id>:<turn>:<duellist>:<rule>
        if len(parts) == 5 and parts[1].isdigit():
            row_d = storage.notices.duel_place(int(parts[1]))
            if row_d:
                subject = f"violation:b{row_d[0]}t{row_d[1]}:{':'.join(parts[2:])}"
    return f"{subject}|{row.get('kind')}|{row.get('recipient')}|{row.get('channel')}"


@dataclass
class NoticeJournal:
    """The journal file of one database (``path`` None: no journal, nothing is recorded).

    ``_forgotten``: the durable keys the restores forgot, read once per process (a restore
    happens with the bot stopped, so the set cannot grow while it runs)."""

    path: Path | None
    _forgotten: dict[str, str] | None = field(default=None, repr=False)

    @classmethod
    def for_database(cls, database: str) -> NoticeJournal:
        """The journal beside ``database`` (:func:`journal_path`)."""
        return cls(journal_path(database))

    def note(
        self, storage: Storage, rows: list[dict[str, Any]], state: str, now: datetime
    ) -> None:
        """Append one ``state`` line per notice of ``rows`` and flush it to the disk.
        A journal that cannot be written is logged (the notice still goes: the journal only
        protects against a restore)."""
        if self.path is None or not rows:
            return
        lines = "".join(
            json.dumps(
                {"at": iso(now), "key": durable_key(storage, r), "state": state,
                 "notice": str(r.get("idempotency_key"))},
                ensure_ascii=False,
            ) + "\n"
            for r in rows
        )  # fmt: skip
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, lines.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            log.error("notice journal %s: not written (%s)", self.path, exc)

    def forgotten(self, storage: Storage) -> dict[str, str]:
        """Durable key -> when it went out, for the notices a restore forgot: journal lines
        written after the restored database's last notice and before the restore, whose
        last state there is ``sending`` or ``sent``. Empty without a restore or a journal."""
        if self._forgotten is not None:
            return self._forgotten
        self._forgotten = {}
        if self.path is None or not self.path.exists():
            return self._forgotten
        try:
            restores = storage.notices.restore_times()
        except Exception:  # noqa: BLE001 - no table: a database never restored
            return self._forgotten
        if not restores:
            return self._forgotten
        windows = []
        for restored_at in restores:
            mark = storage.notices.last_notice_audit_before(restored_at)
            windows.append((str(mark or ""), restored_at))
        last: dict[str, tuple[str, str]] = {}
        with self.path.open(encoding="utf-8") as lines:
            for line in lines:
                try:
                    entry = json.loads(line)
                    at, key, state = str(entry["at"]), str(entry["key"]), str(entry["state"])
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line after a crash
                if any(low < at < high for low, high in windows):
                    last[key] = (state, at)
        self._forgotten = {k: at for k, (state, at) in last.items() if state in DELIVERED}
        return self._forgotten

    def unforgotten(
        self, storage: Storage, rows: list[dict[str, Any]], now: datetime, final: Final
    ) -> list[dict[str, Any]]:
        """``rows`` (pending notices) but those a restore forgot were sent
        (:meth:`forgotten`): each of these is settled ``sent`` by ``final`` (the outbox's
        final state and audit row), its ``last_error`` saying when it went out, and is not
        sent again."""
        forgotten = self.forgotten(storage) if rows else {}
        if not forgotten:
            return rows
        out = []
        for row in rows:
            at = forgotten.get(durable_key(storage, row))
            if at is None:
                out.append(row)
                continue
            with storage.atomic():
                final(storage, row, "sent", now,
                      last_error=f"sent at {at}, before the database was restored (notice "
                      "journal): not sent again")  # fmt: skip
            log.warning("notify: notice %s was sent before the restore: not sent again",
                        row["idempotency_key"])  # fmt: skip
        return out


__all__ = ["DELIVERED", "SUFFIX", "NoticeJournal", "durable_key", "journal_path"]
