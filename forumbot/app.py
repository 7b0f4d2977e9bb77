"""Wiring (the one ``bootstrap``): config -> storage, forum client, referee; and the jobs.

Nothing here does I/O at import time. ``Bot`` holds the wired parts; the scheduler
(:mod:`forumbot.ops.scheduler`), the CLI and the demo all drive the same two jobs:
:meth:`Bot.poll` (read watched forums, draft) and :meth:`Bot.publish` (publish due drafts).

The hooks are wired here once, not looked up per call: :data:`AFTER_POLL` (the club's jobs
after every poll: sign-ups, owls, rewards, the leaderboard post; the 2v2 inbox and rewards)
and the poster's ``on_published`` (:func:`forumbot.duels.publication.apply_published`: the
duel's flow advances it, the next deadline starts).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from forumbot.club.jobs import Club, build_club
from forumbot.config import Config
from forumbot.duels.dice_reserve import DiceReserve, reserve_path
from forumbot.duels.publication import apply_published, published_hook
from forumbot.duels.referee import PollReport, Referee
from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.forums.clock_watch import attach_clock_watch
from forumbot.notify.job import NotifyJob
from forumbot.publish.poster import OnPublished, PublishState, publish_due
from forumbot.storage import Storage, StorageOperationalError, open_storage
from forumbot.storage.engine import side_file

log = logging.getLogger("forumbot")


def utc_now() -> datetime:
    """The real clock (aware, UTC). Only the shell reads it."""
    return datetime.now(UTC)


def cookie_file_for(database: str) -> Path | None:
    """The bot's cookie jar beside ``database`` (``bot.db`` -> ``bot.cookies.json``, mode 0600;
    a PostgreSQL club's in its state folder: :func:`forumbot.storage.engine.side_file`); None
    for an in-memory database."""
    return side_file(database, ".cookies.json")


def make_client(
    config: Config,
    password: str,
    transport: httpx.BaseTransport | None = None,
    *,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] | None = None,
    keep_session: bool = True,
) -> ForumClient:
    """The forum client for ``config.platform``.

    ``sleep`` (seconds) and ``clock`` (seconds) replace the client's real waits and time, for
    tests on a fake clock; None keeps ``time.sleep`` / ``time.monotonic``. ``keep_session``:
    the session is kept in the cookie file beside the database (``forumbot run``); False for
    a one-off client (``check``) that must neither read nor rewrite the running bot's jar.

    Raises:
        ValueError: for an unknown platform.
    """
    timing: dict[str, Any] = {"sleep": sleep, "clock": clock}
    timing = {key: value for key, value in timing.items() if value is not None}
    # Issue 12: the cookie jar (remember-me key) survives restarts, 0600 beside the database;
    # a Retry-After longer than one poll pauses the board instead of sleeping in the job.
    timing["cookie_file"] = cookie_file_for(config.database) if keep_session else None
    timing["max_inline_wait_s"] = float(config.poll_interval_s)
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
            dice_actions=config.dice_actions,
            **timing,
        )
    raise ValueError(f"unknown platform {config.platform!r}")


AfterPoll = tuple[str, Callable[[Any], object]]
"""A job run after every poll: ``(label for the logs, job(bot))``."""

def _registrations(bot: Bot) -> object:
    return bot.wired_club().registrations()


def _two_against_two(bot: Bot) -> object:
    return bot.wired_club().two_against_two()


AFTER_POLL: tuple[AfterPoll, ...] = (
    ("registrations", _registrations),  # sign-ups, owls, rewards (issue 4)
    ("2v2", _two_against_two),  # two against two (issue 5): PM inbox, zone owls, rewards
)
"""The club's jobs after each poll, in order."""


@dataclass
class Bot:
    """The wired bot: one board, one database.

    ``after_poll``: the jobs run after every poll (default :data:`AFTER_POLL`);
    ``on_published``: what a publication does to its duel (default
    :func:`forumbot.duels.publication.apply_published`). ``publish_state``: the publisher's
    memory of which rows this process wrote (:class:`forumbot.publish.poster.PublishState`;
    taken at :func:`bootstrap`, else at the first :meth:`publish`).
    """

    config: Config
    storage: Storage
    client: ForumClient
    referee: Referee
    now: Callable[[], datetime]
    after_poll: tuple[AfterPoll, ...] = AFTER_POLL
    on_published: OnPublished = apply_published
    club: Club | None = None
    notify_job: NotifyJob | None = None
    publish_state: PublishState | None = None
    language_recorded: bool = False

    def record_language(self) -> bool:
        """Store the language the board's pages said (the client's ``page_language``, read
        from ``<html lang>``: :mod:`parsers.page_language`) in the board's row, once a process
        (the first poll that met one). Returns True when it was stored this call."""
        language = getattr(self.client, "page_language", None)
        if self.language_recorded or not language:
            return False
        self.storage.record_board_language(
            self.config.board_url, self.config.platform, language, self.now()
        )
        self.language_recorded = True
        return True

    def wired_club(self) -> Club:
        """The board's club (:func:`forumbot.club.jobs.build_club`), wired once: by
        :func:`bootstrap`, or at the first call for a bot built by hand."""
        if self.club is None:
            self.club = build_club(self.config, self.storage, self.client, self.referee, self.now)
        return self.club

    def wired_notify(self) -> NotifyJob:
        """The notify pass (:class:`forumbot.notify.job.NotifyJob`), wired once like the club.

        Raises:
            forumbot.notify.settings.NotifyConfigError: (a ConfigError) a bad ``[notify]``.
        """
        if self.notify_job is None:
            self.notify_job = NotifyJob.for_bot(self)
        return self.notify_job

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
            except StorageOperationalError as exc:  # e.g. another process holds a write lock
                self._rollback()
                log.warning(
                    "forum %s: poll stopped, database error (%s); will retry next cycle",
                    watched.forum_id,
                    exc,
                )
        try:
            self.record_language()
        except StorageOperationalError as exc:  # tried again at the next poll
            self._rollback()
            log.warning("board language not recorded, database error (%s)", exc)
        for label, job in self.after_poll:
            try:
                job(self)
            except LoginFailed:
                raise
            except ForumError as exc:
                log.warning(
                    "%s: stopped (%s: %s); will retry next cycle", label, type(exc).__name__, exc
                )
            except StorageOperationalError as exc:
                self._rollback()
                log.warning("%s: stopped, database error (%s); will retry next cycle", label, exc)
        for report in reports:
            # An idle poll (no new or edited post, no draft) is DEBUG: one INFO line per
            # poll was about 720 a day (issue 25).
            busy = report.new_posts or report.edited_posts or report.drafts
            log.log(
                logging.INFO if busy else logging.DEBUG,
                "forum %s: %s, %d read, %s, %d edited, %s",
                report.forum_id,
                counted(report.topics_listed, "topic"),
                report.topics_read,
                counted(report.new_posts, "new post"),
                report.edited_posts,
                counted(report.drafts, "draft"),
            )
        return reports

    def publish(self) -> list[int]:
        """Publish due declarations (the scheduler's publish job).

        A database error (e.g. locked by another process beyond the busy timeout) ends the
        pass with one warning; rows keep their status (a ``publishing`` row is looked for by
        its marker at the next pass, so nothing is posted twice).
        """
        if self.publish_state is None:
            self.publish_state = PublishState.at_start(self.storage, self.now())
        try:
            return publish_due(
                self.storage,
                self.client,
                self.now,
                manual=self.config.review_delay_s == "manual",
                on_published=self.on_published,
                state=self.publish_state,
            )
        except StorageOperationalError as exc:
            self._rollback()
            log.warning("publish: stopped, database error (%s); will retry next cycle", exc)
            return []

    def _rollback(self) -> None:
        """End a transaction a failed statement left open (its snapshot would be stale)."""
        self.storage.rollback_open()

    def close(self) -> None:
        """Close the database."""
        self.storage.close()


def counted(n: int, noun: str) -> str:
    """``"1 topic"``, ``"0 topics"``, ``"3 new posts"``: an English count for the logs."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


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
    keep_session: bool = True,
    client: ForumClient | None = None,
    watch_clock: bool | None = None,
) -> Bot:
    """Wire a :class:`Bot` from ``config``; real adapters unless fakes are given (``sleep`` and
    ``clock``: the forum client's waits and time; ``keep_session``: see :func:`make_client`).

    ``client``: the forum client every part uses (referee, club desks, notify, publisher);
    ``check`` passes its logged-in read-only client, so nothing logs in a second time
    (``password``, ``transport``, ``sleep``, ``clock`` and ``keep_session`` then unused).
    ``watch_clock``: compare the clocks on every board answer
    (:mod:`forumbot.forums.clock_watch`); default: when ``now`` and ``clock`` are the real
    clocks."""
    store = storage if storage is not None else open_storage(config.database)
    if client is None:
        secret = password if password is not None else config.password()
        client = make_client(
            config, secret, transport, sleep=sleep, clock=clock, keep_session=keep_session
        )
    if watch_clock is None:  # fakes given: their clocks are not the board's (tests)
        watch_clock = now is utc_now and clock is None
    if watch_clock and getattr(client, "clock_watch", None) is None:
        attach_clock_watch(client, config.max_clock_skew_s, now)  # issue 24 F7
    referee = Referee(
        store,
        client,
        board_url=config.board_url,
        verify_docs_url=config.verification_url,
        platform=config.platform,
        ruleset_name=config.ruleset,
        review_delay_s=config.review_delay_s,
        now=now,
        rng=rng if rng is not None else DiceReserve(reserve_path(config.database)),
        language=config.language,
        referee_name=config.referee_name,
        bot_username=config.username,
        dice_name=config.dice_name,
        edit_watch_interval_s=config.edit_watch_interval_s,
        follow_after_polls=config.follow_after_polls,
        timezone=config.timezone,
    )
    bot = Bot(
        config=config,
        storage=store,
        client=client,
        referee=referee,
        now=now,
        after_poll=AFTER_POLL,
        on_published=published_hook(config.stalemate_turns),
        publish_state=PublishState.at_start(store, now()),
    )
    bot.wired_club()  # the desk's on_finished hook is on the referee from the start
    bot.wired_notify()
    return bot
