"""The notify pass the scheduler runs: scan what waits, then send the notices due.

Wiring (the lead's, see the module's users): ``NotifyJob.for_bot(bot)`` once at bootstrap,
then ``job.run()`` as an APScheduler interval job (e.g. every ``publish_interval_s``), after
the poll job in the same single worker thread (it shares the bot's SQLite connection and
forum client). ``forumbot notify send`` (or ``python -m forumbot notify send -c
forumbot.toml``, which the crash tests run) does one pass.

Crash points (:func:`forumbot.publish.poster.crash_point`, ``FORUMBOT_CRASH_POINT``):
``notice_before_send`` (owl batched and committed, PM not sent), ``notice_after_pm`` (PM
posted on the board, the owl row not yet ``sent``), ``notice_after_send`` (owl ``sent``,
notices not yet), ``notice_before_apprise``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.notify.journal import NoticeJournal
from forumbot.notify.outbox import Sender, apprise_send, send_notices
from forumbot.notify.scan import scan
from forumbot.notify.settings import NotifyConfig, notify_config
from forumbot.publish.poster import crash_point
from forumbot.storage import Storage, StorageOperationalError

log = logging.getLogger("forumbot.notify.job")


class _CrashAfterPm:
    """A forum client whose ``send_pm`` may die right after the board took the PM (tests)."""

    def __init__(self, client: ForumClient) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def send_pm(
        self, user_id: int | None, username: str, subject: str, message: str, marker: str
    ) -> None:
        self._client.send_pm(user_id, username, subject, message, marker)
        crash_point("notice_after_pm")


@dataclass
class NotifyJob:
    """The wired notify pass.

    Attributes:
        storage, client, now: the bot's.
        cfg: the parsed ``[notify]`` table.
        board_id: the board's row id (the owl outbox is per board).
        sender: sends one Apprise message (tests pass a recorder or keep the real one).
        journal: the notice journal beside the database (:mod:`forumbot.notify.journal`;
            None: none, e.g. a job built by hand in a test).

    The scan is skipped while the database is as the last scan left it (issue 27, CPU: it
    runs at every publish interval of every club): :meth:`changed` compares ``PRAGMA
    data_version`` (another connection committed: the review page, a second worker) read
    before that scan and the connection's own ``total_changes()`` (rows this connection
    wrote: the poll, the publisher, the scan itself) read after it with their values now.
    The scan reads only the database and the fixed ``cfg`` (``now`` only stamps the rows it
    writes), so an unchanged database would queue nothing. On PostgreSQL ``data_version``
    changes at every transaction on the server: there it scans nearly every pass, as before.
    The sending half runs at every pass (its retries and gather windows depend on the time).
    """

    storage: Storage
    client: ForumClient | None
    cfg: NotifyConfig
    now: Callable[[], datetime]
    board_id: int
    sender: Sender = apprise_send
    journal: NoticeJournal | None = None
    _scanned: tuple[int, int] | None = field(default=None, init=False, repr=False)

    @classmethod
    def for_bot(cls, bot: Any) -> NotifyJob:
        """Build from a :class:`forumbot.app.Bot` (its config's ``[notify]`` table).

        Raises:
            forumbot.notify.settings.NotifyConfigError: a bad ``[notify]`` table.
        """
        cfg = notify_config(bot.config)
        board_id = bot.storage.board_id(bot.config.board_url, bot.config.platform, bot.now())
        journal = NoticeJournal.for_database(bot.config.database)
        return cls(bot.storage, bot.client, cfg, bot.now, board_id, journal=journal)

    def run(self) -> list[int]:
        """Scan, then send; returns the ids of the notices sent. Forum and database errors
        end the pass with a warning (the outbox keeps every row's state); a refused login
        propagates (it stops the bot)."""
        try:
            if self.changed():
                before = self.storage.data_version()
                scan(self.storage, self.cfg, self.now())
                self._scanned = (before, self.storage.duel_tasks.total_changes())
            client = _CrashAfterPm(self.client) if self.client is not None else None
            return send_notices(
                self.storage,
                client,
                self.cfg,
                self.now,
                self.board_id,
                sender=self.sender,
                journal=self.journal,
            )
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("notify: stopped (%s: %s); will retry", type(exc).__name__, exc)
        except StorageOperationalError as exc:
            self.storage.rollback_open()
            log.warning("notify: database error (%s); will retry", exc)
        return []

    def changed(self) -> bool:
        """True when the database may differ from what the last scan read (class doc),
        or no scan ran yet. Raises the storage's errors."""
        if self._scanned is None:
            return True
        now = (self.storage.data_version(), self.storage.duel_tasks.total_changes())
        return now != self._scanned
