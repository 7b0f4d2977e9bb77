"""The club's work after each poll, built once at bootstrap: :func:`build_club` -> :class:`Club`.

:meth:`forumbot.app.Bot.poll` reads the watched forums (the duels), then calls:

1. :meth:`Club.registrations`: the registration desk's cycle
   (:meth:`forumbot.club.registrations.RegistrationDesk.cycle`: sign-ups, settling the 1v1
   duels, opening duels, club posts, owls, the leaderboard post), when the configuration has a
   registration thread or a leaderboard topic. Forum errors of a step are logged by the desk;
   :class:`forumbot.errors.LoginFailed` and errors of the whole pass propagate to the caller.
2. :meth:`Club.two_against_two`: on a board that ever had a 2v2, the rewards of the 2v2 duels
   (:func:`forumbot.club.duo_settling.settle_duo_duels`), then the PM inbox while a 2v2 runs
   (:func:`forumbot.club.inbox.poll_duo_inbox`: owls asking for details become referee tasks)
   and the due owls. A forum error there is logged and retried next poll; LoginFailed
   propagates.

The desk's ``on_finished`` hook is registered on the referee once, when the club is built, so a
1v1 duel that ends during a poll is settled at once.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.duo_settling import settle_duo_duels
from forumbot.club.inbox import poll_duo_inbox
from forumbot.club.registrations import (
    DeskReport,
    RegistrationDesk,
    build_desk,
    desk_wanted,
    run_desk,
)
from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import ForumClient
from forumbot.publish.owls import send_due_owls
from forumbot.storage import Storage

log = logging.getLogger("forumbot.club.jobs")


@dataclass(frozen=True)
class DuoReport:
    """What :meth:`Club.two_against_two` did: 2v2 duels settled, referee tasks created from the
    inbox, owls sent; ``error`` holds the forum error that stopped the inbox or owls, if any."""

    settled: int = 0
    tasks: tuple[int, ...] = ()
    owls_sent: int = 0
    error: str | None = None


@dataclass
class Club:
    """The club of one board, wired once (see module docstring).

    Attributes:
        ctx: the board's :class:`forumbot.club.context.DeskContext`.
        desk: the registration desk, None when the configuration has no registration thread
            and no leaderboard topic.
    """

    ctx: DeskContext
    desk: RegistrationDesk | None = field(default=None)

    def registrations(self) -> DeskReport | None:
        """One desk cycle, logged (None without a desk)."""
        return run_desk(self.desk) if self.desk is not None else None

    def two_against_two(self) -> DuoReport:
        """2v2 rewards settled, then the inbox (while a 2v2 runs) and the due owls. Nothing on a
        board that never had a 2v2."""
        ctx = self.ctx
        if not ctx.storage.club_rows.had_duo(ctx.board_id):
            return DuoReport()
        settled = settle_duo_duels(ctx)
        tasks: list[int] = []
        try:
            tasks = poll_duo_inbox(
                ctx.storage, ctx.client, ctx.board_id, ctx.now, bot_username=ctx.bot_username
            )
            owls = send_due_owls(ctx.storage, ctx.client, ctx.now, ctx.board_id)
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("2v2: inbox or owls not done (%s); will retry", exc)
            return DuoReport(settled, tuple(tasks), 0, f"{type(exc).__name__}: {exc}")
        return DuoReport(settled, tuple(tasks), len(owls))


def build_club(
    config: Any,
    storage: Storage,
    client: ForumClient,
    referee: Any,
    now: Callable[[], datetime],
) -> Club:
    """The board's :class:`Club` from the bot's :class:`forumbot.config.Config` and wired parts
    (the desk built, its ``on_finished`` hook on ``referee``, when :func:`desk_wanted`)."""
    ctx = DeskContext(
        storage,
        client,
        referee,
        now,
        config.username,
        language=config.language,
        referee_name=config.referee_name,
    )
    desk = build_desk(config, storage, client, referee, now) if desk_wanted(config) else None
    return Club(ctx, desk)


__all__ = ["Club", "DuoReport", "build_club"]
