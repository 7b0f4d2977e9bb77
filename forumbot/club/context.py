"""What every step of the registration desk works with, for one board (:class:`DeskContext`),
and what a duel kind's desk offers the cycle (:class:`KindHandler`).

Built once by :class:`forumbot.club.registrations.RegistrationDesk` and handed to the steps of
both desks (:mod:`forumbot.club.solo_registrations`, :mod:`forumbot.club.duo_registrations`),
the replies (:mod:`forumbot.club.replies`), the duel opening (:mod:`forumbot.club.opening`) and
the settling (:mod:`forumbot.club.settling`), so none of them imports the desk back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.config import Registration
from forumbot.forums.base import ForumClient
from forumbot.storage import Storage
from parsers.model import Post
from parsers.registration import Signup


@dataclass(frozen=True)
class DeskContext:
    """One board's desk context.

    Attributes:
        storage, client: the bot's database and forum client.
        referee: the board's :class:`forumbot.duels.referee.Referee` (its ``board_id``, ``rng``
            for dice secrets, ``adopt`` to register a duel).
        now: the clock (aware UTC).
        bot_username: the bot's forum account (its posts are skipped).
        language, referee_name: the templates' language and the owls' signature.
    """

    storage: Storage
    client: ForumClient
    referee: Any
    now: Callable[[], datetime]
    bot_username: str
    language: str = "fr"
    referee_name: str = "L'arbitre"

    @property
    def board_id(self) -> int:
        """The board's id in storage (the referee's)."""
        return int(self.referee.board_id)

    @property
    def post_link(self) -> str:
        """The board's post address with ``{id}`` (:attr:`forumbot.duels.flow.FlowSettings.
        post_link`), "" when the referee does not say: the replies' « message n° 5 » becomes a
        link to the post (issue 25, reader C13)."""
        settings = getattr(self.referee, "settings", None)
        link = getattr(settings(), "post_link", "") if callable(settings) else ""
        return link if isinstance(link, str) else ""

    @property
    def dice_source(self) -> str:
        """``"forum"`` when the board's forum rolls the dice (Forumactif), else ``"bot"``: how
        a duel topic's first post words its dice (the referee's ``forum_rolls_dice``)."""
        return "forum" if getattr(self.referee, "forum_rolls_dice", False) else "bot"


@dataclass(frozen=True)
class KindHandler:
    """One duel kind's desk, as the cycle calls it (the registry
    :data:`forumbot.club.registrations.KIND_HANDLERS` maps a thread's ``kind`` to it).

    Attributes:
        kind: ``"1v1"`` or ``"2v2"`` (a ``[[registration]]`` table's ``kind``).
        handle_signup: ``(ctx, reg, post, signup) -> replies drafted`` for a readable sign-up of
            one of the kind's threads (invalid ones are answered by the cycle).
        start: ``(ctx, reg) -> duels opened`` for one of the kind's threads, each cycle: formed
            duels that may start are started (and, for 2v2, opened).
        open_started: ``(ctx) -> duels opened``, once per cycle after every thread's ``start``:
            the board's duels being opened are opened.
    """

    kind: str
    handle_signup: Callable[[DeskContext, Registration, Post, Signup], int]
    start: Callable[[DeskContext, Registration], int]
    open_started: Callable[[DeskContext], int]


__all__ = ["DeskContext", "KindHandler"]
