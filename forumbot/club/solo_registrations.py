"""The 1v1 desk: sign-ups of ``kind = "1v1"`` threads -> open requests -> pairings -> a queue of
duels, at most ``max_concurrent`` at once.

Seed 001 (RULES.md, "Registration and scheduling"): "Open request: a sign-up with no partner is
matched with the first person who answers it or who also signs up alone. [...] At most 3
one-against-one duels at once, then a queue". Matching is :mod:`rules.matchmaking` (pure); the
lobby (open requests, queue, running pairings) lives in the ``requests`` and ``queue`` tables.
The forum account that posted is the player; the sign-up's name is the character. Stakes come
from an ``Enjeux :`` line of either sign-up (the opening one first) **[D]**. Within 1v1, a player
in a formed duel (queued, being opened or running) is in no other: a sign-up naming the
player they are paired with confirms that pairing (a reply says so), any other is refused with
its real reason (issue 23; the decision never depends on whether a queued pairing was started
between two reads).

Registered as the ``"1v1"`` entry of :data:`forumbot.club.registrations.KIND_HANDLERS`
(:data:`HANDLER`); it shares profiles, engagements and replies with the 2v2 desk
(:mod:`forumbot.club.duo_registrations`) and imports neither that desk nor the cycle.
"""

from __future__ import annotations

import logging
from typing import Any

from forumbot.club.context import DeskContext, KindHandler
from forumbot.club.engagements import board_engagements, unplayable_reason
from forumbot.club.opening import open_duel
from forumbot.club.posts import draft_club_post
from forumbot.club.profiles import Profile, get_profile, insert_profile, partner_profile
from forumbot.club.replies import (
    cancel_duel,
    confirm_pairing,
    record_post,
    refuse,
    refuse_busy,
    refuse_engaged,
    withdraw_other_kind,
)
from forumbot.config import Registration
from forumbot.errors import ForumError, LoginFailed
from forumbot.publish.labels import types_label, year_label
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import iso
from parsers.model import Post
from parsers.registration import Signup
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset
from rules.matchmaking import (
    Entrant,
    Lobby,
    MatchEvent,
    Pairing,
    Request,
    add_request,
    character_key,
    other_kind,
    player_key,
    schedule,
    set_aside,
)

log = logging.getLogger("forumbot.club.registrations")

REJECTIONS = {
    "already_signed_up": (
        "Tu as déjà une inscription en cours : ta demande ouverte attend encore son adversaire "
        "dans ce sujet, et on ne participe qu'à un duel à la fois."
    ),
    "self_partner": "Tu ne peux pas affronter l'un de tes propres personnages.",
    "unknown_request": "La demande ouverte à laquelle tu réponds n'est plus disponible.",
}
#: Refusals answered by :func:`forumbot.club.replies.refuse_engaged` (the reply names the
#: poster's or the partner's situation, ``signup_partner_busy.bbcode.j2``).
ENGAGED = ("partner_in_duel", "partner_signed_up")


def handle_solo_signup(ctx: DeskContext, reg: Registration, post: Post, s: Signup) -> int:
    """Handle a readable sign-up of a 1v1 thread: refused (character of another account, a
    partner without a profile, a player busy in a 2v2, :func:`rules.matchmaking.add_request`'s
    rejections) or recorded as an open request, possibly paired at once (a ``queue`` row; the
    players' open 2v2 sign-ups withdrawn in the same transaction). A sign-up quoting an open
    request answers it. Returns the replies drafted."""
    lob, _ = solo_lobby(ctx, reg)
    answers = next(
        (
            q.post_id
            for q in post.quotes
            if q.post_id is not None and any(e.post_id == q.post_id for e in lob.open_requests)
        ),
        None,
    )
    now = ctx.now()
    replies = 0
    mine = get_profile(ctx.storage, ctx.board_id, s.name)
    if mine is not None and player_key(mine.player) != player_key(post.author):
        message = (
            f"Le personnage {mine.character} est déjà inscrit au club par un autre compte "
            f"({mine.player})."
        )
        return refuse(ctx, reg, post, "character_taken", message)
    profile = mine or Profile(s.name, post.author, s.year, s.magic_types)
    entrant = Entrant(player=post.author, character=profile.character, post_id=post.post_id)
    lobby, rows = solo_lobby(ctx, reg)
    if s.partner is not None:  # naming the player one is already paired with confirms it
        _, early = add_request(lobby, Request(entrant, partner=s.partner.name))
        if early.outcome == "confirmed" and early.pairing is not None:
            return confirm_solo(ctx, reg, post, s, early.pairing, rows[early.pairing], early)
    partner_name: str | None = None
    partner_player: str | None = None
    partner_new: Profile | None = None
    if s.partner is not None:
        partner_name, partner_player, partner_new, error = partner_profile(
            ctx.storage, ctx.board_id, s.partner
        )
        if error is not None:
            return refuse(ctx, reg, post, "partner_incomplete", error)
    engagements = board_engagements(ctx.storage, ctx.board_id)
    clash = engagements.clash("1v1", [post.author] + ([partner_player] if partner_player else []))
    if clash is not None:
        return refuse_busy(ctx, reg, post, clash)
    request = Request(
        entrant,
        partner=partner_name,
        partner_player=partner_player,
        answers=None if partner_name else answers,
    )
    lobby, event = add_request(lobby, request)
    if event.outcome == "confirmed" and event.pairing is not None:
        return confirm_solo(ctx, reg, post, s, event.pairing, rows[event.pairing], event)
    if event.outcome == "rejected":
        if event.reason in ENGAGED or event.stage in ("queued", "running"):
            return refuse_engaged(ctx, reg, post, event.reason, event.other, event.stage)
        return refuse(ctx, reg, post, event.reason, REJECTIONS[event.reason])
    stakes = s.stakes
    signups = ctx.storage.signup_rows
    with ctx.storage.atomic():
        if mine is None:
            insert_profile(ctx.storage, ctx.board_id, profile, now)
        if partner_new is not None:
            insert_profile(ctx.storage, ctx.board_id, partner_new, now)
        signups.insert_request(
            {
                "board_id": ctx.board_id,
                "thread_topic_id": reg.topic_id,
                "post_id": post.post_id,
                "player": post.author,
                "character": profile.character,
                "stakes": stakes,
                "status": "open" if event.outcome == "opened" else "paired",
                "created_at": iso(now),
                "updated_at": iso(now),
            }
        )
        if event.pairing is not None:
            first = event.pairing.first
            first_stakes = None
            if first.post_id != post.post_id:
                signups.pair_request(ctx.board_id, first.post_id, iso(now))
                found = signups.request(ctx.board_id, first.post_id)
                first_stakes = found["stakes"] if found else None
            withdraw_other_kind(ctx, "1v1", event.pairing.players, engagements)
            signups.insert_pairing(
                {
                    "board_id": ctx.board_id,
                    "thread_topic_id": reg.topic_id,
                    "kind": reg.kind,
                    "ruleset": reg.ruleset,
                    "first_player": first.player,
                    "first_character": first.character,
                    "first_post_id": first.post_id,
                    "second_player": event.pairing.second.player,
                    "second_character": event.pairing.second.character,
                    "second_post_id": event.pairing.second.post_id,
                    "reason": event.reason,
                    "stakes": first_stakes or stakes,
                    "status": "queued",
                    "forum_id": reg.forum_id,
                    "attempts": 0,
                    "created_at": iso(now),
                }
            )
        record_post(ctx, post, "accepted", event.reason, None, s)
    log.info(
        "sign-up %s: %s (%s) %s (%s)",
        post.post_id,
        profile.character,
        post.author,
        event.outcome,
        event.reason,
    )
    if mine is not None and (mine.year != s.year or set(mine.magic_types) != set(s.magic_types)):
        rs = load_ruleset(reg.ruleset)
        assert isinstance(rs, FatigueRuleset)
        context = {
            "author": post.author,
            "post_id": post.post_id,
            "character": mine.character,
            "year_label": year_label(mine.year),
            "types_label": types_label(rs, mine.magic_types),
        }
        key = f"b{ctx.board_id}-reg{reg.topic_id}-p{post.post_id}-profile"
        text = render(
            "signup_profile.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
        )
        draft_club_post(
            ctx.storage,
            ctx.board_id,
            key,
            "signup_reply",
            reg.topic_id,
            text,
            now,
            after_post_id=post.post_id,
        )
        replies += 1
    return replies


def confirm_solo(
    ctx: DeskContext,
    reg: Registration,
    post: Post,
    s: Signup,
    pairing: Pairing,
    row_id: int,
    event: MatchEvent,
) -> int:
    """Apply a ``confirmed`` :func:`rules.matchmaking.add_request`: the sign-up names the
    player its poster is already paired with (queued, being opened or running). Nothing new is
    formed (issue 23: never a second duel for the same two players). When the poster's place
    is the one the other sign-up named for them (issue 15: their entrant carries the other's
    post id), it takes their post and account and their stakes are kept (``requests`` row
    ``paired``; code ``mutual``); else the code is ``confirmed``. One French reply says so.
    Returns 1."""
    first, second = pairing.first, pairing.second
    me_first = player_key(first.player) == player_key(post.author) or character_key(
        first.character
    ) == character_key(s.name)
    mine = first if me_first else second
    other = second if me_first else first
    placeholder = mine.post_id == other.post_id
    now = iso(ctx.now())
    side = "first" if me_first else "second"
    with ctx.storage.atomic():
        if placeholder:
            ctx.storage.signup_rows.take_pairing_place(
                row_id, side, post.post_id, post.author, s.stakes
            )
            ctx.storage.signup_rows.insert_request(
                {
                    "board_id": ctx.board_id,
                    "thread_topic_id": reg.topic_id,
                    "post_id": post.post_id,
                    "player": post.author,
                    "character": mine.character,
                    "stakes": s.stakes,
                    "status": "paired",
                    "created_at": now,
                    "updated_at": now,
                },
                ignore=True,
            )
        code = "mutual" if placeholder else "confirmed"
        replies = confirm_pairing(ctx, reg, post, s, code, other.character, event.stage)
    log.info("sign-up %s: %s confirms pairing %s", post.post_id, post.author, row_id)
    return replies


def solo_lobby(ctx: DeskContext, reg: Registration) -> tuple[Lobby, dict[Pairing, int]]:
    """The thread's lobby rebuilt from storage (running: every 1v1 duel of the board, so
    the limit and "one duel per player" hold across threads), with pairing -> queue id.
    Open requests of players in a formed 2v2 are set aside (never matched). Pairings queued in
    the board's other threads of the kind are ``elsewhere`` (their players are engaged); a
    pairing whose duel is finished (not settled yet) counts as over, as in
    :func:`forumbot.club.engagements.board_engagements`."""
    opens = tuple(
        Entrant(r["player"], r["character"], r["post_id"])
        for r in ctx.storage.signup_rows.open_requests_in(ctx.board_id, reg.topic_id)
    )
    rows: dict[Pairing, int] = {}
    queued: list[Pairing] = []
    running: list[Pairing] = []
    elsewhere: list[Pairing] = []
    for r in ctx.storage.signup_rows.live_pairings_of_kind(ctx.board_id, reg.kind):
        pairing = Pairing(
            Entrant(r["first_player"], r["first_character"], r["first_post_id"]),
            Entrant(r["second_player"], r["second_character"], r["second_post_id"]),
        )
        rows[pairing] = r["id"]
        if r["status"] == "queued" and r["thread_topic_id"] == reg.topic_id:
            queued.append(pairing)
        elif r["status"] == "queued":
            elsewhere.append(pairing)
        else:
            running.append(pairing)
    lobby = Lobby(opens, tuple(queued), tuple(running), tuple(elsewhere))
    formed_2v2 = board_engagements(ctx.storage, ctx.board_id).formed_in(other_kind("1v1"))
    return set_aside(lobby, formed_2v2), rows


def start_solo_duels(ctx: DeskContext, reg: Registration) -> int:
    """Start the queued pairings of ``reg``'s thread that may start (FIFO, at most
    ``max_concurrent``, one duel per player: a pairing holding a player in a started 1v1 or 2v2
    keeps its place): they become ``opening`` (subject, idempotency key and dice secret fixed).
    A queued pairing that cannot be played (:func:`unplayable_reason`) is cancelled once first.
    The duels are opened by :func:`open_solo_duels`. Returns 0 (nothing opened yet)."""
    for row in ctx.storage.signup_rows.queued_pairings(ctx.board_id, reg.topic_id, reg.kind):
        cancel_if_unplayable(ctx, row)
    lobby, rows = solo_lobby(ctx, reg)
    in_2v2 = board_engagements(ctx.storage, ctx.board_id).started_in("2v2")
    _, started = schedule(lobby, reg.max_concurrent, busy_elsewhere=in_2v2)
    for pairing in started:
        row_id = rows[pairing]
        key = f"b{ctx.board_id}-pair{row_id}-topic"
        ctx.storage.signup_rows.start_pairing(
            row_id,
            iso(ctx.now()),
            f"Duel : {pairing.first.character} contre {pairing.second.character}",
            key,
            ctx.referee.rng.randbytes(32).hex(),
        )
        ctx.storage.commit()
        log.info("pairing %s: a slot is free, opening its duel", row_id)
    return 0


def open_solo_duels(ctx: DeskContext) -> int:
    """Open every 1v1 duel being opened on the board (:func:`forumbot.club.opening.open_duel`),
    once per cycle after every thread's :func:`start_solo_duels`. A pairing not opened yet that
    cannot be played (:func:`unplayable_reason`, or a rules error while opening it) is
    cancelled once (:func:`forumbot.club.replies.cancel_duel`) instead of being retried; a forum
    error is kept on the row and retried next cycle. Returns the duels opened now.

    Raises:
        forumbot.errors.LoginFailed: the bot cannot log in.
    """
    opened = 0
    for row in ctx.storage.signup_rows.opening_pairings(ctx.board_id):
        if cancel_if_unplayable(ctx, row):
            continue
        try:
            open_duel(ctx, row)
            opened += 1
        except LoginFailed:
            raise
        except RuleError as exc:
            reason = "la fiche de l'un des duellistes ne permet pas de l'ouvrir."
            cancel_duel(ctx, "queue", row["id"], reason, f"{type(exc).__name__}: {exc}")
        except ForumError as exc:
            ctx.storage.club_rows.update_row(
                "queue", row["id"], {"last_error": f"{type(exc).__name__}: {exc}"}
            )
            log.warning("pairing %s: duel topic not opened yet (%s)", row["id"], exc)
    return opened


def cancel_if_unplayable(ctx: DeskContext, row: dict[str, Any]) -> bool:
    """Cancel a 1v1 ``queue`` row not opened yet whose pairing cannot be played
    (:func:`unplayable_reason`); True when it was cancelled."""
    if row["duel_id"] is not None:
        return False
    entrants = [
        Entrant(row["first_player"], row["first_character"], row["first_post_id"]),
        Entrant(row["second_player"], row["second_character"], row["second_post_id"]),
    ]
    reason = unplayable_reason(ctx.storage, ctx.board_id, entrants)
    if reason is None:
        return False
    cancel_duel(ctx, "queue", row["id"], reason, "unplayable")
    return True


#: The 1v1 desk as the cycle calls it (:class:`forumbot.club.context.KindHandler`).
HANDLER = KindHandler(
    kind="1v1",
    handle_signup=handle_solo_signup,
    start=start_solo_duels,
    open_started=open_solo_duels,
)


__all__ = [
    "HANDLER",
    "REJECTIONS",
    "cancel_if_unplayable",
    "confirm_solo",
    "handle_solo_signup",
    "open_solo_duels",
    "solo_lobby",
    "start_solo_duels",
]
