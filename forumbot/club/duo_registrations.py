"""The registration desk for two-against-two duels (issue 5; RULES.md "Registration and
scheduling"): sign-ups -> duos -> a match of two duos -> one 2v2 duel at a time.

Registered as the ``"2v2"`` entry of :data:`forumbot.club.registrations.KIND_HANDLERS`
(:data:`HANDLER`), called by :class:`forumbot.club.registrations.RegistrationDesk` for its
``kind = "2v2"`` threads with the board's :class:`forumbot.club.context.DeskContext`. It shares
profiles (:mod:`forumbot.club.profiles`), engagements (:mod:`forumbot.club.engagements`) and
replies (:mod:`forumbot.club.replies`) with the 1v1 desk and imports neither that desk nor the
cycle:

- :func:`handle_duo_signup` (a readable sign-up of a 2v2 thread): a sign-up naming a teammate
  forms a duo; lone sign-ups pair up as teammates; a duo faces the open duo it answers, else
  the oldest open duo (:func:`rules.duo_matchmaking.add_duo_signup`, pure). The lobby lives in
  ``duo_entries``, matches in ``duo_matches``.
- **Registration closed while a 2v2 is formed or runs [D: refused]**: seed 001 says "Un seul
  duel en Deux contre Deux sera organisé à la fois" and RULES.md "its registration closes while
  it runs". A 2v2 sign-up posted while a 2v2 match is formed (queued, being opened) or its duel
  open or running is *refused* with one French reply (a club post, exactly once) asking to sign
  up again once the result is out: nothing is kept for later, so nobody finds themselves in a
  duel they signed up for weeks before (:func:`registration_closed`; closing at the match, not
  at its opening, keeps the answer the same however the posts are batched, issue 23). A sign-up
  naming the teammate one already has confirms that duo (:func:`confirm_teammate`), even then.
- :func:`start_duo_matches`: when no 2v2 is open or running, the oldest match is opened: the
  duel topic in the thread's ``forum_id`` exactly once (claimed, then ``create_topic``; after a
  crash the forum is searched for the topic by its marker first), then
  :func:`forumbot.duels.duo.open_duo_duel` with the environment (setting ``environment`` of the
  ``[[registration]]`` table, ``""`` = the shipped environments in turn) and the dice secret
  fixed beforehand (its commitment is in the topic's first post). A finished duel frees the
  slot; its rewards are :mod:`forumbot.club.duo_settling`'s.
- **One duel per player across 1v1 and 2v2 [D]** (RULES.md: "a player (the person, across all
  their characters) is in one duel at a time"; the reading is in
  :mod:`forumbot.club.engagements`): a 2v2 sign-up whose poster or named teammate is in a 1v1 not
  finished (queued, being opened or running) is refused (``busy_other_kind``); sign-ups of
  players formed in a 1v1 are set aside from the lobby; when a match of two duos forms, its
  four players' open 1v1 requests are withdrawn (with a reply); and
  :func:`start_duo_matches` holds a match whose player is in a started 1v1 (the next match
  may start instead).
- **One player, one place [D]**: players are compared with
  :func:`rules.matchmaking.player_key` and characters with
  :func:`rules.matchmaking.character_key` (case, accents and spacing ignored) everywhere, so a
  match never holds one player or one character twice. A match stored with a repeat (or a
  duellist without a profile) is re-checked before its topic is created and cancelled
  (status ``cancelled``, never retried), with a French reply under each of its sign-ups and a
  notice in its topic if it was already posted
  (:func:`forumbot.club.replies.cancel_duel`); a rules error while opening
  it cancels it the same way. The cycle goes on.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from forumbot.club.context import DeskContext, KindHandler
from forumbot.club.engagements import board_engagements, unplayable_reason
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
from forumbot.club.topics import create_topic_once, stakes_view, stakes_written
from forumbot.config import Registration
from forumbot.duels.duo import duo_running, environments, open_duo_duel
from forumbot.errors import ForumError, LoginFailed
from forumbot.publish.labels import types_label, year_label
from forumbot.publish.render import Trusted, render
from forumbot.rulesets import load_ruleset
from forumbot.storage import iso
from parsers.model import Post
from parsers.registration import Signup
from rules.dice import commitment
from rules.duo_matchmaking import (
    Duo,
    DuoLobby,
    add_duo_signup,
    first_free_match,
    set_aside_duos,
)
from rules.errors import RuleError
from rules.fatigue import FatigueRuleset
from rules.matchmaking import Entrant, character_key, player_key

log = logging.getLogger("forumbot.club.duo_registrations")

CLOSED_MESSAGE = (
    "Les inscriptions aux duels en deux contre deux sont fermées : un duel en deux contre deux "
    "est en cours, et un seul est organisé à la fois. Ton inscription n'est pas retenue : "
    "réinscris-toi dans ce sujet dès que le résultat du duel en cours sera publié."
)
REJECTIONS = {
    "already_signed_up": (
        "Tu as déjà une inscription en cours pour un duel en deux contre deux (seul ou en duo) "
        ": on ne participe qu'à un duel à la fois."
    ),
    "self_partner": "Tu ne peux pas faire duo avec l'un de tes propres personnages.",
}


# -- lobby ----------------------------------------------------------------------------------------


def lobby(ctx: DeskContext, reg: Registration) -> DuoLobby:
    """The thread's lobby rebuilt from storage (busy: players and characters of matches not
    finished, on the whole board; sign-ups involving a player in a formed 1v1 are set aside)."""
    lone: list[Entrant] = []
    duos: list[Duo] = []
    for r in ctx.storage.signup_rows.waiting_duo_entries(ctx.board_id, reg.topic_id):
        me = Entrant(r["player"], r["character"], r["post_id"])
        if r["status"] == "lone":
            lone.append(me)
        else:
            duos.append((me, Entrant(r["mate_player"], r["mate_character"], r["mate_post_id"])))
    busy: set[str] = set()
    busy_characters: set[str] = set()
    matched: list[Duo] = []
    for m in formed_matches(ctx):
        members = [e for duo in json.loads(m["duos_json"]) for e in duo]
        busy |= {e["player"] for e in members}
        busy_characters |= {e["character"] for e in members}
        matched += list(_match_duos(m))
    formed_1v1 = board_engagements(ctx.storage, ctx.board_id).formed_in("1v1")
    lob = DuoLobby(tuple(lone), tuple(duos), frozenset(busy), frozenset(busy_characters),
                   tuple(matched))  # fmt: skip
    return set_aside_duos(lob, formed_1v1)


def formed_matches(ctx: DeskContext) -> list[dict[str, Any]]:
    """The board's 2v2 matches formed and not over (``queued``, ``opening`` or ``running``,
    their duel not finished), oldest first."""
    return ctx.storage.signup_rows.formed_matches(ctx.board_id)


def registration_closed(ctx: DeskContext) -> bool:
    """Whether 2v2 sign-ups are refused now: a 2v2 duel is open or running, or a match is
    formed and not over (queued or being opened). **[D]** (issue 23) closing at the match,
    not at its opening, makes the answer the same whether or not the desk opened the match
    between two reads (one 2v2 at a time: a formed match is the next one)."""
    return duo_running(ctx.storage, ctx.board_id) is not None or bool(formed_matches(ctx))


def _answers(post: Post, lob: DuoLobby) -> int | None:
    ids = {e.post_id for e in lob.lone} | {e.post_id for d in lob.duos for e in d}
    return next((q.post_id for q in post.quotes if q.post_id in ids), None)


def _match_duos(row: dict[str, Any]) -> tuple[Duo, Duo]:
    """The two duos of a ``duo_matches`` row."""
    one, two = (
        (Entrant(d[0]["player"], d[0]["character"], d[0]["post_id"]),
         Entrant(d[1]["player"], d[1]["character"], d[1]["post_id"]))
        for d in json.loads(row["duos_json"])
    )  # fmt: skip
    return one, two


def _entrant_dict(e: Entrant) -> dict[str, Any]:
    return {"player": e.player, "character": e.character, "post_id": e.post_id}


# -- sign-ups -------------------------------------------------------------------------------------


def handle_duo_signup(ctx: DeskContext, reg: Registration, post: Post, s: Signup) -> int:
    """Handle a readable sign-up of a 2v2 thread; returns the replies drafted (0 or 1)."""
    storage, now = ctx.storage, ctx.now()
    mine = get_profile(storage, ctx.board_id, s.name)
    if mine is not None and player_key(mine.player) != player_key(post.author):
        message = (
            f"Le personnage {mine.character} est déjà inscrit au club par un autre compte "
            f"({mine.player})."
        )
        return refuse(ctx, reg, post, "character_taken", message)
    profile = mine or Profile(s.name, post.author, s.year, s.magic_types)
    if s.partner is not None:  # naming one's teammate confirms the duo, even once it runs
        named = Entrant(s.partner.name, s.partner.name, post.post_id)
        me = Entrant(post.author, profile.character, post.post_id)
        _, early = add_duo_signup(lobby(ctx, reg), me, named)
        if early.outcome == "confirmed" and early.duo is not None:
            return confirm_teammate(ctx, reg, post, s, early.duo, early.other or "")
    if registration_closed(ctx):
        return refuse(ctx, reg, post, "registration_closed", Trusted(CLOSED_MESSAGE))
    teammate: Entrant | None = None
    mate_profile: Profile | None = None
    if s.partner is not None:
        name, player, mate_profile, error = partner_profile(storage, ctx.board_id, s.partner)
        if error is not None:
            return refuse(ctx, reg, post, "partner_incomplete", error)
        if character_key(name) == character_key(profile.character):
            return refuse(ctx, reg, post, "self_partner", REJECTIONS["self_partner"])
        teammate = Entrant(player, name, post.post_id)
    engagements = board_engagements(storage, ctx.board_id)
    clash = engagements.clash("2v2", [post.author] + ([teammate.player] if teammate else []))
    if clash is not None:
        return refuse_busy(ctx, reg, post, clash)
    entrant = Entrant(post.author, profile.character, post.post_id)
    before = lobby(ctx, reg)
    after, event = add_duo_signup(before, entrant, teammate, _answers(post, before))
    if event.outcome == "confirmed" and event.duo is not None:
        return confirm_teammate(ctx, reg, post, s, event.duo, event.other or "")
    if event.outcome == "rejected":
        if event.reason in ("teammate_in_duel", "teammate_signed_up"):
            return refuse_engaged(ctx, reg, post, event.reason, event.other, None)
        return refuse(ctx, reg, post, event.reason, REJECTIONS[event.reason])
    stakes = s.stakes
    signups = storage.signup_rows
    with storage.atomic():
        if mine is None:
            insert_profile(storage, ctx.board_id, profile, now)
        if mate_profile is not None:
            insert_profile(storage, ctx.board_id, mate_profile, now)
        status = {"waiting_teammate": "lone", "waiting_opponents": "duo"}.get(
            event.outcome, "matched"
        )
        if event.duo is not None and event.duo[0].post_id != post.post_id:
            # paired with a lone sign-up: the older entry becomes the duo
            signups.join_duo(
                ctx.board_id, event.duo[0].post_id,
                (entrant.player, entrant.character, entrant.post_id), status, iso(now),
            )  # fmt: skip
            row_status = "merged"
        else:
            row_status = status
        signups.insert_duo_entry(
            {
                "board_id": ctx.board_id, "thread_topic_id": reg.topic_id,
                "post_id": post.post_id, "player": entrant.player, "character": entrant.character,
                "mate_player": teammate.player if teammate else None,
                "mate_character": teammate.character if teammate else None,
                "mate_post_id": post.post_id if teammate else None,
                "status": row_status, "stakes": stakes,
                "created_at": iso(now), "updated_at": iso(now),
            },
        )  # fmt: skip
        if event.match is not None:
            waiting, new = event.match
            withdraw_other_kind(
                ctx, "2v2", [e.player for d in (waiting, new) for e in d], engagements
            )
            signups.match_duos(ctx.board_id, [waiting[0].post_id, new[0].post_id], iso(now))
            first_stakes = signups.duo_stakes(
                ctx.board_id, [e.post_id for d in (waiting, new) for e in d]
            )
            signups.insert_match(
                {
                    "board_id": ctx.board_id, "thread_topic_id": reg.topic_id,
                    "forum_id": reg.forum_id,
                    "duos_json": json.dumps(
                        [[_entrant_dict(e) for e in d] for d in (waiting, new)],
                        ensure_ascii=False,
                    ),
                    "stakes": first_stakes[0] if first_stakes else None,
                    "status": "queued", "attempts": 0, "created_at": iso(now),
                }
            )  # fmt: skip
        record_post(ctx, post, "accepted", event.reason, None, s)
    log.info("2v2 sign-up %s: %s (%s) %s (%s)", post.post_id, profile.character, post.author,
             event.outcome, event.reason)  # fmt: skip
    return 0


def confirm_teammate(
    ctx: DeskContext, reg: Registration, post: Post, s: Signup, duo: Duo, other: str
) -> int:
    """Apply a ``confirmed`` :func:`rules.duo_matchmaking.add_duo_signup`: the sign-up names
    the teammate its poster already has (a duo waiting for opponents, or in a match queued,
    being opened or running). Nothing new is formed (issue 23). When the poster holds the
    place the teammate's sign-up named for them (issue 15: their entrant carries the other's
    post id), the duo's entry takes their post and account and their sign-up is kept as
    ``merged`` with its stakes (code ``mutual``); else the code is ``confirmed``. One French
    reply says so (``signup_confirmed.bbcode.j2``). Returns 1."""
    signups = ctx.storage.signup_rows
    me = character_key(s.name)
    stage = "open"
    for m in formed_matches(ctx):
        if any(set(d) == set(duo) for d in _match_duos(m)):
            stage = "queued" if m["status"] == "queued" else "running"
    placeholder = next(
        (r for r in signups.placeholder_entries(ctx.board_id, duo[0].post_id)
         if character_key(r["mate_character"] or "") in (me, character_key(post.author))),
        None,
    )  # fmt: skip
    now = iso(ctx.now())
    with ctx.storage.atomic():
        if placeholder is not None:
            row = placeholder
            signups.take_mate_place(row["id"], post.post_id, post.author, s.stakes, now)
            signups.insert_duo_entry(
                {
                    "board_id": ctx.board_id, "thread_topic_id": reg.topic_id,
                    "post_id": post.post_id, "player": post.author,
                    "character": row["mate_character"], "mate_player": row["player"],
                    "mate_character": row["character"], "mate_post_id": row["post_id"],
                    "status": "merged", "stakes": s.stakes, "created_at": now,
                    "updated_at": now,
                },
            )  # fmt: skip
        code = "mutual" if placeholder is not None else "confirmed"
        replies = confirm_pairing(ctx, reg, post, s, code, other, stage)
    log.info("2v2 sign-up %s: %s confirms the duo of sign-up %s", post.post_id, post.author,
             duo[0].post_id)  # fmt: skip
    return replies


# -- opening the duels ----------------------------------------------------------------------------


def pick_environment(ctx: DeskContext, reg: Registration) -> str:
    """The setting's environment, else the shipped ones in turn (by matches opened so far)."""
    if reg.environment:
        return reg.environment
    shipped = environments()
    if not shipped:
        raise ValueError("no environment shipped in rules/data/environments")
    opened = ctx.storage.signup_rows.matches_with_environment(ctx.board_id)
    return shipped[opened % len(shipped)]


def start_duo_matches(ctx: DeskContext, reg: Registration) -> int:
    """Free the slot of finished 2v2 duels, then open the oldest match of ``reg``'s thread when
    no 2v2 is open or running (one at a time); a match holding a player in a started 1v1 keeps
    its place and the next one may open instead. A match not opened yet that cannot be played
    (one player or character twice, a missing profile, a rules error while opening it) is
    cancelled once with its French replies, and the next one may open. Returns the duels
    opened now.

    Raises:
        forumbot.errors.LoginFailed: the bot cannot log in (other forum errors are logged on
            the match and retried next cycle).
    """
    signups, club_rows = ctx.storage.signup_rows, ctx.storage.club_rows
    for m in signups.running_matches(ctx.board_id):
        if ctx.storage.duel(m["duel_id"])["status"] == "finished":
            club_rows.update_row(
                "duo_matches", m["id"], {"status": "finished", "finished_at": iso(ctx.now())}
            )
    ctx.storage.commit()
    rows = signups.matches_in(ctx.board_id, reg.topic_id, "opening")
    rows = [row for row in rows if not cancel_if_unplayable(ctx, row)]
    if not rows and duo_running(ctx.storage, ctx.board_id) is None:
        queued = [
            row
            for row in signups.matches_in(ctx.board_id, reg.topic_id, "queued")
            if not cancel_if_unplayable(ctx, row)
        ]
        in_1v1 = board_engagements(ctx.storage, ctx.board_id).started_in("1v1")
        free = first_free_match([_match_duos(m) for m in queued], in_1v1)
        if free is not None:
            m = queued[free]
            duos = json.loads(m["duos_json"])
            names = [" et ".join(e["character"] for e in d) for d in duos]
            signups.start_match(
                m["id"], iso(ctx.now()), f"Duel en deux contre deux : {names[0]} contre {names[1]}",
                f"b{ctx.board_id}-duo{m['id']}-topic", ctx.referee.rng.randbytes(32).hex(),
                pick_environment(ctx, reg),
            )  # fmt: skip
            ctx.storage.commit()
            rows = [signups.match(m["id"])]
    opened = 0
    for row in rows:
        try:
            open_match(ctx, row)
            opened += 1
        except LoginFailed:
            raise
        except RuleError as exc:
            reason = "la fiche de l'un des duellistes ne permet pas de l'ouvrir."
            cancel_duel(ctx, "duo_matches", row["id"], reason, f"{type(exc).__name__}: {exc}")
        except ForumError as exc:
            club_rows.update_row(
                "duo_matches", row["id"], {"last_error": f"{type(exc).__name__}: {exc}"}
            )
            log.warning("2v2 match %s: duel topic not opened yet (%s)", row["id"], exc)
    return opened


def cancel_if_unplayable(ctx: DeskContext, row: dict[str, Any]) -> bool:
    """Cancel a match not opened yet that cannot be played (the same player or character twice,
    a duellist without a profile: :func:`forumbot.club.engagements.unplayable_reason`), with its
    French replies (:func:`forumbot.club.replies.cancel_duel`); True when it
    was cancelled."""
    if row["duel_id"] is not None:
        return False
    one, two = _match_duos(row)
    reason = unplayable_reason(ctx.storage, ctx.board_id, one + two)
    if reason is None:
        return False
    return cancel_duel(ctx, "duo_matches", row["id"], reason, "unplayable")


def open_match(ctx: DeskContext, row: dict[str, Any]) -> int:
    """Open the duel of a match being opened (each step once, safe to repeat after a crash):
    the topic, then the 2v2 duel. Returns the duel id.

    Raises:
        ForumError: the topic could not be opened now (retried next cycle).
    """
    rs = load_ruleset("fatigue")
    assert isinstance(rs, FatigueRuleset)
    duos: list[list[Profile]] = []
    for duo in json.loads(row["duos_json"]):
        members = []
        for e in duo:
            found = get_profile(ctx.storage, ctx.board_id, e["character"])
            if found is None:
                raise ValueError(f"no profile for {e['character']!r}")
            members.append(found)
        duos.append(members)
    secret = bytes.fromhex(row["dice_secret"])
    topic_id = row["topic_id"]
    if topic_id is None:
        text = render(
            "signup_duo_topic.bbcode.j2",
            {
                "duos": [
                    [{"name": p.character, "year_label": year_label(p.year),
                      "points": rs.starting_points_for(p.year),
                      "types_label": types_label(rs, p.magic_types)} for p in d]
                    for d in duos
                ],
                "unit": rs.unit, "stakes": row["stakes"], "commitment": commitment(secret),
                "dice_source": ctx.dice_source, "dice_name": rs.dice_name,
                **stakes_view(
                    stakes_written(ctx, "duo_entries", [
                        (e["post_id"], e["character"])
                        for d in json.loads(row["duos_json"]) for e in d
                    ]),
                    row["stakes"], 4,
                ),
            },
            ctx.language,
        )  # fmt: skip
        topic_id = create_topic_once(ctx, "duo_matches", row, text)
    duel_id = row["duel_id"]
    if duel_id is None:
        duel = ctx.storage.duel_by_topic(ctx.board_id, topic_id)
        if duel is not None and duel["status"] == "ignored":
            ctx.storage.club_rows.delete_duel(duel["id"])
            duel = None
        if duel is None:
            duel_id = open_duo_duel(
                ctx.referee, row["forum_id"], int(topic_id), row["subject"],
                [[(p.character, p.year, list(p.magic_types)) for p in d] for d in duos],
                row["environment"], stakes=row["stakes"], dice_secret=secret,
            )  # fmt: skip
        else:
            duel_id = duel["id"]
    ctx.storage.club_rows.update_row(
        "duo_matches", row["id"], {"duel_id": duel_id, "status": "running", "last_error": None}
    )
    ctx.storage.commit()
    log.info("2v2 match %s: duel %s opened in topic %s (%s)", row["id"], duel_id, topic_id,
             row["environment"])  # fmt: skip
    return int(duel_id)


def open_duo_started(ctx: DeskContext) -> int:
    """Nothing left to open once every 2v2 thread's :func:`start_duo_matches` ran (a match is
    opened there, one at a time). Returns 0."""
    return 0


#: The 2v2 desk as the cycle calls it (:class:`forumbot.club.context.KindHandler`).
HANDLER = KindHandler(
    kind="2v2",
    handle_signup=handle_duo_signup,
    start=start_duo_matches,
    open_started=open_duo_started,
)


__all__ = [
    "CLOSED_MESSAGE",
    "HANDLER",
    "cancel_if_unplayable",
    "confirm_teammate",
    "formed_matches",
    "handle_duo_signup",
    "lobby",
    "open_match",
    "pick_environment",
    "registration_closed",
    "start_duo_matches",
]
