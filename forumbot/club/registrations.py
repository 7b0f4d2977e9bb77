"""The registration desk: sign-up threads -> matchmaking -> duel topics -> owls -> purse.

Seed 001 (RULES.md, "Registration and scheduling"): "One registration thread per duel type. A
sign-up post gives name, year, magic type(s) (two at most) and, if chosen, the partner's name,
year and magic type [...] Open request: a sign-up with no partner is matched with the first
person who answers it or who also signs up alone. [...] At most 3 one-against-one duels at
once, then a queue; a player (the person, across all their characters) is in one duel at a
time."

One :meth:`RegistrationDesk.cycle` (run after every poll: :func:`build_desk` once, then
:func:`run_desk`; :func:`after_poll` for a wired bot):

1. **Read the registration threads** like duel forums: one listing request per forum holding
   threads, and a thread is read only when its last post id changed (or, without a listing
   forum, one read of the thread's new posts). Each new post (not the thread's first post, not
   the bot's) is parsed by :func:`parsers.registration.parse_signup`; an invalid sign-up gets
   a clear French reply (a club post published exactly once, :mod:`forumbot.club.posts`); a
   readable one is checked first (:func:`forumbot.club.signup_checks.check_signup`: a partner
   who is no member of the board is refused, a sign-up the parser is not sure about becomes a
   referee task).
2. **Match**: each thread's ``kind`` picks its desk in :data:`KIND_HANDLERS`
   (:class:`forumbot.club.context.KindHandler`): ``"1v1"`` is
   :mod:`forumbot.club.solo_registrations` (:mod:`rules.matchmaking`, pure; the lobby lives in
   the ``requests`` and ``queue`` tables), ``"2v2"`` is :mod:`forumbot.club.duo_registrations`.
   The forum account that posted is the player; the sign-up's name is the character.
3. **Settle finished duels** (:mod:`forumbot.club.settling`): rewards once
   (:mod:`forumbot.club.leaderboard`), result owls, the slot freed. The referee's
   ``on_finished`` hook does it at once; the cycle catches any it missed.
4. **Start duels** while slots are free (each kind's ``start``, then ``open_started``;
   1v1: :mod:`forumbot.club.opening`): the duel topic is opened in the configured forum
   exactly once (claimed, then ``create_topic``; after a crash the forum is searched for the
   topic by its marker first), the duel is registered with
   :meth:`forumbot.duels.referee.Referee.adopt` (ruleset per duel, the dice secret fixed beforehand
   so the topic's first post can publish its commitment), and each duellist gets an owl with
   their magic-type modifiers (:mod:`forumbot.publish.owls`, exactly once).
5. **Publish**: due club posts, owls, and the leaderboard post (edited when it changes).

Decisions **[D]**: a returning duellist's recorded profile (year, magic types) wins over what a
new sign-up says, with a reply saying so (RULES.md: magic types are "fixed between duels unless
[...] an admin records the change"); a sign-up that only answers an open request (quoting it)
without year or types is accepted from the poster's single recorded profile; stakes come from an
``Enjeux :`` line of either sign-up (the opening one first). Threads of ``kind = "2v2"`` go to
:mod:`forumbot.club.duo_registrations` (duos, one 2v2 at a time, registration closed while it runs).

Profiles live in :mod:`forumbot.club.profiles`, the replies under sign-ups (refusals,
withdrawals, cancellations) in :mod:`forumbot.club.replies`; both desks share them and neither
imports the other or this module.

One duel per player **across 1v1 and 2v2** (RULES.md: "a player (the person, across all their
characters) is in one duel at a time"), read from storage by
:func:`forumbot.club.engagements.board_engagements` and
decided by :class:`rules.matchmaking.Engagements`, **[D]** each:

- a sign-up (of either kind) from a player, or naming a partner, who is in a duel of the other
  kind that is not finished (formed and queued, being opened, or running) is refused with the
  code ``busy_other_kind`` and the French reply ``signup_busy_other_kind.bbcode.j2``;
- a player may keep an open sign-up in both threads; when a duel of one kind is formed for
  them (a 1v1 pairing, a 2v2 match), their open sign-ups of the other kind are withdrawn in the
  same transaction (status ``withdrawn``), each with a French reply under it
  (``signup_withdrawn.bbcode.j2``). A 2v2 duo waiting for opponents is withdrawn whole, the
  teammate included (the reply tells them they may sign up again);
- the start re-checks: a 1v1 pairing or a 2v2 match holding a player in a started duel of the
  other kind keeps its place until that duel is over.

Within one kind too, a player is in one duel at a time, queued or running alike (issue 23):
a sign-up naming the player one is already paired with (an opponent, a teammate) confirms that
pairing with a reply (``signup_confirmed.bbcode.j2``) and never forms a new one; any other
sign-up of a player in a formed duel, or naming one, is refused with a reply naming the real
situation (``signup_partner_busy.bbcode.j2``). Queued and running count alike, and the threads'
new posts are handled together in posting order, so the desk's decisions are the same whether
it reads the posts one by one, all at once or in any batching
(``tests/integration/test_desk_order_independence.py``).

One player, one place **[D]**: players are compared with :func:`rules.matchmaking.player_key`
and characters with :func:`rules.matchmaking.character_key` (case, accents and spacing
ignored, the profiles' folding), so no pairing holds one player or one character twice. A
formed duel is re-checked before its topic is created
(:func:`forumbot.club.engagements.unplayable_reason`); a bad one stored earlier is cancelled once
(:func:`forumbot.club.replies.cancel_duel`: status ``cancelled``,
a French reply under each sign-up, ``signup_cancelled.bbcode.j2``) and the cycle goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.club import duo_registrations, settling, solo_registrations
from forumbot.club.context import DeskContext, KindHandler
from forumbot.club.engagements import KIND_LABELS, board_engagements, unplayable_reason
from forumbot.club.leaderboard import update_leaderboard_post
from forumbot.club.opening import open_duel
from forumbot.club.posts import ClubPostBudget, declarations_due, publish_due_club_posts
from forumbot.club.profiles import Profile, ProfileError, get_profile, profiles_of, set_profile
from forumbot.club.replies import cancel_duel, post_row, record_post, reply, withdraw_other_kind
from forumbot.club.signup_checks import ask_referee, check_signup, from_profile
from forumbot.club.withdrawals import handle_withdrawal
from forumbot.config import Registration
from forumbot.errors import ForumError, LoginFailed
from forumbot.forums.base import EditingForumClient, ForumClient
from forumbot.publish.owls import send_due_owls
from forumbot.rulesets import load_ruleset
from forumbot.storage import Storage, iso
from parsers.model import Post
from parsers.registration import Signup, SignupError, fold, parse_signup
from parsers.withdrawal import classify_withdrawal, find_withdrawal
from rules.fatigue import FatigueRuleset
from rules.matchmaking import DuelKind, Engagements

log = logging.getLogger("forumbot.club.registrations")

#: The desk of each duel kind, keyed by a ``[[registration]]`` table's ``kind`` (a thread of
#: another kind is logged and skipped).
KIND_HANDLERS: Mapping[str, KindHandler] = {
    "1v1": solo_registrations.HANDLER,
    "2v2": duo_registrations.HANDLER,
}


@dataclass(frozen=True)
class DeskReport:
    """What one cycle did (for logs and tests)."""

    signups: int
    replies: int
    started: int
    settled: int
    posts_published: int
    owls_sent: int
    leaderboard: str


class RegistrationDesk:
    """Runs the club's registrations for one board (see module docstring).

    Args:
        storage, client: the bot's database and forum client.
        referee: the board's :class:`forumbot.duels.referee.Referee` (its ``board_id``, ``rng`` for
            dice secrets, ``adopt`` to register a duel).
        registrations: the ``[[registration]]`` settings.
        now: the clock (aware UTC); bot_username: the bot's account (its posts are skipped).
        leaderboard_topic_id: topic of the leaderboard post, 0 = none.
        language, referee_name: templates' language and signature.
        handlers: the desk of each duel kind (default :data:`KIND_HANDLERS`).
        club_posts_per_pass: most club posts published per cycle (setting
            ``poll.club_posts_per_pass``; None = no limit); yield_to_declarations: no club
            post goes out while a declaration is due (:class:`ClubPostBudget`);
            manual_review: the review delay is ``"manual"`` (which declarations are due:
            :func:`forumbot.club.posts.declarations_due`). :func:`build_desk` sets all three
            from the configuration (a bot's desk is paced); a desk built by hand, with no
            poster beside it, is not.
    """

    def __init__(
        self,
        storage: Storage,
        client: ForumClient,
        referee: Any,
        registrations: Sequence[Registration],
        *,
        now: Callable[[], datetime],
        bot_username: str,
        leaderboard_topic_id: int = 0,
        language: str = "fr",
        referee_name: str = "L'arbitre",
        handlers: Mapping[str, KindHandler] | None = None,
        club_posts_per_pass: int | None = None,
        yield_to_declarations: bool = False,
        manual_review: bool = False,
    ) -> None:
        self.storage = storage
        self.client = client
        self.referee = referee
        self.registrations = tuple(registrations)
        self.now = now
        self.bot_username = bot_username
        self.leaderboard_topic_id = leaderboard_topic_id
        self.language = language
        self.referee_name = referee_name
        self.board_id: int = referee.board_id
        self.handlers: Mapping[str, KindHandler] = dict(handlers or KIND_HANDLERS)
        self.club_posts_per_pass = club_posts_per_pass
        self.yield_to_declarations = yield_to_declarations
        self.manual_review = manual_review
        self.ctx = DeskContext(
            storage,
            client,
            referee,
            now,
            bot_username,
            language=language,
            referee_name=referee_name,
        )

    # -- cycle ------------------------------------------------------------------------------
    def cycle(self) -> DeskReport:
        """One pass: read threads, settle finished duels, start duels, publish. A forum error
        in one step is logged and retried next cycle; LoginFailed propagates."""
        signups = replies = started = settled = 0
        try:
            signups, replies = self.poll_registrations()
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("registrations: poll failed: %s", exc)
        settled = self.settle_finished()
        started = self.start_duels()
        budget = self.posting_budget()
        published = publish_due_club_posts(
            self.storage, self.client, self.now, self.board_id, budget
        )
        owls = send_due_owls(self.storage, self.client, self.now, self.board_id)
        board = self.refresh_leaderboard(budget)
        if (self.club_posts_per_pass and budget.spent >= budget.limit) or budget.yielded:
            log.info(
                "club posts: %d published this pass (at most %d)%s; the others wait",
                budget.spent, budget.limit,
                ", a declaration is due" if budget.yielded else "",
            )  # fmt: skip
        return DeskReport(signups, replies, started, settled, len(published), len(owls), board)

    def posting_budget(self) -> ClubPostBudget:
        """This pass's :class:`forumbot.club.posts.ClubPostBudget`: ``club_posts_per_pass``
        posts (no limit when None), none while a declaration is due (when
        ``yield_to_declarations``)."""

        def due() -> bool:
            return self.yield_to_declarations and declarations_due(
                self.storage, self.now, self.manual_review
            )

        limit = self.club_posts_per_pass
        return ClubPostBudget(limit if limit is not None else 1 << 30, due)

    def attach(self) -> None:
        """Register :meth:`on_finished` on the referee's ``on_finished`` hook, once per referee
        (a desk built again for the same referee does not add a second hook)."""
        hooks = getattr(self.referee, "on_finished", None)
        if hooks is None:
            return
        if not any(getattr(h, "_forumbot_registrations", False) for h in hooks):
            desk = self

            def hook(duel_id: int, outcome: dict[str, Any]) -> None:
                desk.on_finished(duel_id, outcome)

            hook._forumbot_registrations = True  # type: ignore[attr-defined]
            hooks.append(hook)

    # -- 1. reading the threads -------------------------------------------------------------
    def poll_registrations(self) -> tuple[int, int]:
        """Read the registration threads that changed and handle their new posts, **all
        threads' posts together in posting order** (post ids; issue 23: the rules' own order,
        so a 2v2 sign-up posted before a 1v1 one is decided first whether the two threads are
        read in one pass or in two). Returns ``(sign-up posts handled, replies drafted)``."""
        listings: dict[int, dict[int, int | None]] = {}
        handled = replies = 0
        pending: list[tuple[int, int, Registration, Post]] = []
        marks: list[tuple[Registration, int | None]] = []
        for index, reg in enumerate(self.registrations):
            if reg.kind not in self.handlers:
                log.warning("registration thread %s: %s not handled yet", reg.topic_id, reg.kind)
                continue
            row = self._thread(reg.topic_id)
            last = row["last_post_id"] if row else None
            listed: int | None = None
            if reg.thread_forum_id:
                if reg.thread_forum_id not in listings:
                    listings[reg.thread_forum_id] = {
                        t.topic_id: t.last_post_id
                        for t in self.client.list_topics(reg.thread_forum_id)
                    }
                listed = listings[reg.thread_forum_id].get(reg.topic_id)
                if row is not None and listed is not None and listed == last:
                    continue
            posts = self.client.read_topic(reg.topic_id, last)
            opener = posts[0].post_id if row is None and posts else None
            for post in posts:
                if post.post_id == opener:
                    continue  # the thread's own first post explains how to sign up
                if last is not None and post.post_id <= last:
                    continue
                pending.append((post.post_id, index, reg, post))
            seen = [p.post_id for p in posts] + ([listed] if listed is not None else [])
            newest = max([s for s in seen if s is not None] + ([last] if last else []), default=0)
            marks.append((reg, newest or None))
        for _, _, reg, post in sorted(pending, key=lambda item: (item[0], item[1])):
            if fold(post.author) != fold(self.bot_username) and withdrawal_of(post) is not None:
                # a withdrawal sees the pairings started as a one-by-one read would have
                for r_ in self.registrations:
                    if r_.kind in self.handlers:
                        self.handlers[r_.kind].start(self.ctx, r_)
            h, r = self.handle_post(reg, post)
            handled += h
            replies += r
        for reg, newest in marks:
            self.storage.club_rows.set_thread_mark(
                {
                    "board_id": self.board_id,
                    "topic_id": reg.topic_id,
                    "last_post_id": newest,
                    "updated_at": iso(self.now()),
                },
            )
        return handled, replies

    def _thread(self, topic_id: int) -> dict[str, Any] | None:
        return self.storage.club_rows.thread_mark(self.board_id, topic_id)

    # -- 2. one sign-up ---------------------------------------------------------------------
    def handle_post(self, reg: Registration, post: Post) -> tuple[int, int]:
        """Handle one post of a registration thread (once per post). Returns ``(1 if it was
        a sign-up attempt, replies drafted)``."""
        if fold(post.author) == fold(self.bot_username):
            return 0, 0
        if post_row(self.ctx, post.post_id) is not None:
            return 0, 0
        rs = load_ruleset(reg.ruleset)
        known = (
            {k: t.label for k, t in rs.magic_types.items()}
            if isinstance(rs, FatigueRuleset)
            else None
        )
        parsed = parse_signup(post, magic_types=known) if known else parse_signup(post)
        withdrawal = classify_withdrawal(post.text, signup_readable=isinstance(parsed, Signup))
        if withdrawal is not None and withdrawal[0] == "withdrawal":
            return 1, handle_withdrawal(self.ctx, reg, post, withdrawal[1])
        if withdrawal is not None:
            return 1, ask_referee(self.ctx, reg, post, ("withdrawal_and_signup",))
        if isinstance(parsed, SignupError):
            returning = from_profile(self.ctx, post, parsed, known)  # the profile says it
            if returning is not None:
                parsed = returning
            else:
                record_post(self.ctx, post, "invalid", parsed.code, parsed.message, None)
                reply(self.ctx, reg, post, "signup_invalid.bbcode.j2", parsed.code, parsed.message)
                log.info("sign-up %s by %s: invalid (%s)", post.post_id, post.author, parsed.code)
                return 1, 1
        answered = check_signup(self.ctx, reg, post, parsed)
        if answered is not None:
            return 1, answered
        return 1, self.handlers[reg.kind].handle_signup(self.ctx, reg, post, parsed)

    def withdraw_other_kind(
        self, kind: DuelKind, players: Sequence[str], engagements: Engagements
    ) -> int:
        """:func:`forumbot.club.replies.withdraw_other_kind` on this board."""
        return withdraw_other_kind(self.ctx, kind, players, engagements)

    def cancel_duel(self, table: str, row_id: int, reason: str, detail: str) -> bool:
        """:func:`forumbot.club.replies.cancel_duel` on this board."""
        return cancel_duel(self.ctx, table, row_id, reason, detail)

    # -- 3. finished duels --------------------------------------------------------------------
    def on_finished(self, duel_id: int, outcome: dict[str, Any]) -> None:
        """The referee's ``on_finished`` hook: :func:`forumbot.club.settling.on_finished`."""
        settling.on_finished(self.ctx, duel_id, outcome)

    def settle_finished(self) -> int:
        """:func:`forumbot.club.settling.settle_finished` on this board."""
        return settling.settle_finished(self.ctx)

    def settle(self, duel: dict[str, Any]) -> None:
        """:func:`forumbot.club.settling.settle` (a finished 1v1 duel)."""
        settling.settle(self.ctx, duel)

    # -- 4. starting duels --------------------------------------------------------------------
    def start_duels(self) -> int:
        """Each thread's desk starts the formed duels that may start (``start``, in the
        settings' order: 1v1 pairings become ``opening``, the oldest 2v2 match is opened), then
        each kind opens the duels being opened (``open_started``). A duel not opened yet that
        cannot be played is cancelled once instead of being retried. Returns the duels opened
        now."""
        opened = 0
        for reg in self.registrations:
            handler = self.handlers.get(reg.kind)
            if handler is not None:
                opened += handler.start(self.ctx, reg)
        for handler in self.handlers.values():
            opened += handler.open_started(self.ctx)
        return opened

    def open_duel(self, row: dict[str, Any]) -> int:
        """:func:`forumbot.club.opening.open_duel` (a 1v1 pairing being opened)."""
        return open_duel(self.ctx, row)

    # -- 5. leaderboard ---------------------------------------------------------------------
    def refresh_leaderboard(self, budget: ClubPostBudget | None = None) -> str:
        """Keep the leaderboard post up to date (``"off"`` without a leaderboard topic); a
        new leaderboard post is published within ``budget`` (default: a fresh
        :meth:`posting_budget`), else it waits for a later pass."""
        if not self.leaderboard_topic_id:
            return "off"
        client = self.client
        if not isinstance(client, EditingForumClient):
            log.warning("leaderboard: this forum client cannot edit posts")
            return "unsupported"
        try:
            state = update_leaderboard_post(
                self.storage,
                client,
                self.board_id,
                self.leaderboard_topic_id,
                self.now(),
                language=self.language,
            )
            if state == "drafted":
                publish_due_club_posts(
                    self.storage, self.client, self.now, self.board_id,
                    budget if budget is not None else self.posting_budget(),
                )  # fmt: skip
            return state
        except LoginFailed:
            raise
        except ForumError as exc:
            log.warning("leaderboard: post not updated (%s); will retry", exc)
            return "failed"


def withdrawal_of(post: Post) -> object | None:
    """The withdrawal phrase of a registration post (:func:`parsers.withdrawal.find_withdrawal`),
    or None."""
    return find_withdrawal(post.text)


def build_desk(
    config: Any,
    storage: Storage,
    client: ForumClient,
    referee: Any,
    now: Callable[[], datetime],
) -> RegistrationDesk:
    """The board's registration desk from the bot's :class:`forumbot.config.Config` (its
    ``registrations``, ``username``, ``leaderboard_topic_id``, ``language``, ``referee_name``),
    with its ``on_finished`` hook on ``referee`` (once per referee). Build it once at bootstrap
    and call :func:`run_desk` after each poll."""
    desk = RegistrationDesk(
        storage,
        client,
        referee,
        config.registrations,
        now=now,
        bot_username=config.username,
        leaderboard_topic_id=config.leaderboard_topic_id,
        language=config.language,
        referee_name=config.referee_name,
        club_posts_per_pass=getattr(config, "club_posts_per_pass", None),
        yield_to_declarations=True,
        manual_review=getattr(config, "review_delay_s", 0) == "manual",
    )
    desk.attach()
    return desk


def desk_wanted(config: Any) -> bool:
    """Whether the configuration runs a desk at all (a registration thread or a leaderboard
    topic)."""
    return bool(config.registrations or config.leaderboard_topic_id)


def desk_for(bot: Any) -> RegistrationDesk:
    """The registration desk of a wired :class:`forumbot.app.Bot` (:func:`build_desk` on its
    parts; its hook attached)."""
    return build_desk(bot.config, bot.storage, bot.client, bot.referee, bot.now)


def run_desk(desk: RegistrationDesk) -> DeskReport:
    """One :meth:`RegistrationDesk.cycle`, logged (one INFO line with the report's figures)."""
    report = desk.cycle()
    log.info(
        "registrations: %d sign-ups, %d replies, %d duels opened, %d settled, %d posts, "
        "%d owls, leaderboard %s",
        report.signups,
        report.replies,
        report.started,
        report.settled,
        report.posts_published,
        report.owls_sent,
        report.leaderboard,
    )
    return report


__all__ = [
    "KIND_HANDLERS",
    "KIND_LABELS",
    "DeskReport",
    "Profile",
    "ProfileError",
    "RegistrationDesk",
    "board_engagements",
    "build_desk",
    "desk_for",
    "desk_wanted",
    "get_profile",
    "profiles_of",
    "run_desk",
    "set_profile",
    "unplayable_reason",
]
