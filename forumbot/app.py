"""Wiring (the one ``bootstrap``): config -> storage, forum client, referee; and the jobs.

Nothing here does I/O at import time. ``Bot`` holds the wired parts; the scheduler
(:mod:`forumbot.scheduler`), the CLI and the demo all drive the same two jobs:
:meth:`Bot.poll` (read watched forums, draft) and :meth:`Bot.publish` (publish due drafts).
"""

from __future__ import annotations

import logging
import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from forumbot.config import Config
from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.poster import publish_due
from forumbot.referee import PollReport, Referee
from forumbot.storage import Storage, open_storage

log = logging.getLogger("forumbot")


def utc_now() -> datetime:
    """The real clock (aware, UTC). Only the shell reads it."""
    return datetime.now(UTC)


def make_client(
    config: Config,
    password: str,
    transport: httpx.BaseTransport | None = None,
    *,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> ForumClient:
    """The forum client for ``config.platform``.

    ``sleep`` (seconds) and ``clock`` (seconds) replace the client's real waits and time, for
    tests on a fake clock; None keeps ``time.sleep`` / ``time.monotonic``.

    Raises:
        ValueError: for an unknown platform.
    """
    timing: dict[str, Any] = {"sleep": sleep, "clock": clock}
    timing = {key: value for key, value in timing.items() if value is not None}
    if config.platform == "phpbb3":
        from forumbot.forums.phpbb import PhpbbClient

        return PhpbbClient(
            config.board_url,
            config.username,
            password,
            transport=transport,
            flood_interval_s=config.flood_interval_s,
            **timing,
        )
    if config.platform == "forumactif":
        from forumbot.forums.forumactif import ForumactifClient

        return ForumactifClient(
            config.board_url,
            config.username,
            password,
            transport=transport,
            flood_interval_s=config.flood_interval_s,
            timezone=config.timezone,
            gm_names=config.game_master,
            **timing,
        )
    raise ValueError(f"unknown platform {config.platform!r}")


@dataclass
class Bot:
    """The wired bot: one board, one database."""

    config: Config
    storage: Storage
    client: ForumClient
    referee: Referee
    now: Callable[[], datetime]

    def poll(self) -> list[PollReport]:
        """Poll every watched forum once (the scheduler's poll job)."""
        reports = []
        for watched in self.config.watch:
            try:
                reports.append(self.referee.poll_forum(watched.forum_id))
            except LoginFailed:
                raise
            except ForumError as exc:
                log.warning(
                    "forum %s: poll failed (%s: %s); will retry next cycle",
                    watched.forum_id,
                    type(exc).__name__,
                    exc,
                )
            except sqlite3.OperationalError as exc:  # e.g. another process holds a write lock
                self._rollback()
                log.warning(
                    "forum %s: poll stopped, database error (%s); will retry next cycle",
                    watched.forum_id,
                    exc,
                )
        try:  # registrations, owls, rewards and the leaderboard post (issue 4)
            from forumbot.registrations import after_poll as registrations_after_poll

            registrations_after_poll(self)
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning(
                "registrations: stopped (%s: %s); will retry next cycle", type(exc).__name__, exc
            )
        except sqlite3.OperationalError as exc:
            self._rollback()
            log.warning("registrations: stopped, database error (%s); will retry", exc)
        try:  # two against two (issue 5): PM inbox, zone owls, finished 2v2 duels
            from forumbot.duo_flow import after_poll

            after_poll(self)
        except sqlite3.OperationalError as exc:
            self._rollback()
            log.warning("2v2: stopped, database error (%s); will retry next cycle", exc)
        for report in reports:
            log.info(
                "forum %s: %d topics, %d read, %d new posts, %d edited, %d drafts",
                report.forum_id,
                report.topics_listed,
                report.topics_read,
                report.new_posts,
                report.edited_posts,
                report.drafts,
            )
        return reports

    def publish(self) -> list[int]:
        """Publish due declarations (the scheduler's publish job).

        A database error (e.g. locked by another process beyond the busy timeout) ends the
        pass with one warning; rows keep their status (a ``publishing`` row is looked for by
        its marker at the next pass, so nothing is posted twice).
        """
        try:
            return publish_due(
                self.storage, self.client, self.now, manual=self.config.review_delay_s == "manual"
            )
        except sqlite3.OperationalError as exc:
            self._rollback()
            log.warning("publish: stopped, database error (%s); will retry next cycle", exc)
            return []

    def _rollback(self) -> None:
        """End a transaction a failed statement left open (its snapshot would be stale)."""
        if self.storage.db.conn.in_transaction:
            self.storage.db.conn.rollback()

    def close(self) -> None:
        """Close the database."""
        self.storage.close()


def bootstrap(
    config: Config,
    *,
    password: str | None = None,
    transport: httpx.BaseTransport | None = None,
    storage: Storage | None = None,
    now: Callable[[], datetime] = utc_now,
    rng: random.Random | None = None,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
) -> Bot:
    """Wire a :class:`Bot` from ``config``; real adapters unless fakes are given (``sleep`` and
    ``clock``: the forum client's waits and time, see :func:`make_client`)."""
    store = storage if storage is not None else open_storage(config.database)
    secret = password if password is not None else config.password()
    client = make_client(config, secret, transport, sleep=sleep, clock=clock)
    referee = Referee(
        store,
        client,
        board_url=config.board_url,
        platform=config.platform,
        ruleset_name=config.ruleset,
        review_delay_s=config.review_delay_s,
        now=now,
        rng=rng if rng is not None else random.SystemRandom(),
        language=config.language,
        referee_name=config.referee_name,
        bot_username=config.username,
        dice_name=config.dice_name,
    )
    return Bot(config=config, storage=store, client=client, referee=referee, now=now)
