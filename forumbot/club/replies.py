"""What the desk records and says under sign-up posts, for both desks (1v1 and 2v2).

- every sign-up post handled is recorded once in ``registration_posts`` (:func:`record_post`,
  :func:`post_row`), ``accepted``, ``rejected`` or ``invalid`` with its code;
- a refused sign-up gets one French reply under it (:func:`refuse`; :func:`refuse_busy` for a
  player in a duel of the other kind, code ``busy_other_kind``);
- when a duel of one kind is formed, its players' open sign-ups of the other kind are
  withdrawn with a reply each (:func:`withdraw_other_kind`);
- a formed duel that cannot be played is cancelled once, with a reply under each sign-up and a
  notice in its topic if it was posted (:func:`cancel_duel`).

Each reply is a club post keyed by board, thread, post and code, so it is published exactly once
(:func:`forumbot.club.posts.draft_club_post`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.engagements import KIND_LABELS
from forumbot.club.posts import draft_club_post
from forumbot.config import Registration
from forumbot.publish.render import Trusted, neutralise, render
from forumbot.storage import content_hash, iso
from parsers.model import Post
from parsers.registration import Signup
from parsers.text import fold
from rules.matchmaking import DuelKind, Engagement, Engagements, Entrant, player_key

log = logging.getLogger("forumbot.club.registrations")


def refuse(ctx: DeskContext, reg: Registration, post: Post, code: str, message: str) -> int:
    """Refuse a sign-up: recorded ``rejected`` with ``code``, one French reply under it
    (``signup_rejected.bbcode.j2`` saying ``message``). Returns 1 (the reply)."""
    record_post(ctx, post, "rejected", code, message, None)
    reply(ctx, reg, post, "signup_rejected.bbcode.j2", code, message)
    log.info("sign-up %s by %s: refused (%s)", post.post_id, post.author, code)
    return 1


def refuse_busy(ctx: DeskContext, reg: Registration, post: Post, clash: Engagement) -> int:
    """Refuse a sign-up whose poster or partner is in a duel of the other kind that is not
    finished (code ``busy_other_kind``); one French reply. Returns 1."""
    context = {
        "author": post.author,
        "post_id": post.post_id,
        "is_author": player_key(clash.player) == player_key(post.author),
        "player": clash.player,
        "kind_label": KIND_LABELS[clash.kind],
        "running": clash.stage == "running",
    }
    text = render(
        "signup_busy_other_kind.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
    )
    record_post(ctx, post, "rejected", "busy_other_kind", text, None)
    draft_reply(ctx, reg, post, "busy_other_kind", text)
    log.info(
        "sign-up %s by %s: refused (busy_other_kind: %s in a %s %s)",
        post.post_id,
        post.author,
        clash.player,
        clash.kind,
        clash.stage,
    )
    return 1


def refuse_engaged(
    ctx: DeskContext,
    reg: Registration,
    post: Post,
    code: str,
    other: str | None,
    stage: str | None,
) -> int:
    """Refuse a sign-up for the real situation of its poster or of the player it names, in a
    duel of the thread's own kind (``already_signed_up`` for a poster in a formed duel;
    ``partner_in_duel`` /
    ``partner_signed_up`` in 1v1, ``teammate_in_duel`` / ``teammate_signed_up`` in 2v2):
    recorded ``rejected`` with ``code``, one French reply naming that player's situation
    (``signup_partner_busy.bbcode.j2``). ``other``: the named player; ``stage``: ``queued``
    or ``running`` (their formed duel), else None. Returns 1."""
    context = {
        "author": post.author,
        "post_id": post.post_id,
        "code": code,
        "other": other or "",
        "stage": stage,
        "kind_label": KIND_LABELS.get(reg.kind, reg.kind),
    }
    text = render(
        "signup_partner_busy.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
    )
    record_post(ctx, post, "rejected", code, text, None)
    draft_reply(ctx, reg, post, code, text)
    log.info("sign-up %s by %s: refused (%s: %s %s)", post.post_id, post.author, code, other,
             stage)  # fmt: skip
    return 1


def confirm_pairing(
    ctx: DeskContext,
    reg: Registration,
    post: Post,
    signup: Signup,
    code: str,
    other: str,
    stage: str | None,
) -> int:
    """A sign-up naming the player its poster is already paired with confirms that pairing
    (issue 23): recorded ``accepted`` with ``code`` (``mutual``: it took the place the other
    sign-up named; ``confirmed``: the poster already had it), and one French reply saying so
    (``signup_confirmed.bbcode.j2``: the opponent or teammate, where the duel stands). Nothing
    new is formed. Call it inside the caller's transaction. Returns 1 (the reply)."""
    context = {
        "author": post.author,
        "post_id": post.post_id,
        "kind": reg.kind,
        "other": other,
        "stage": stage,
    }
    text = render(
        "signup_confirmed.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
    )
    record_post(ctx, post, "accepted", code, None, signup)
    draft_reply(ctx, reg, post, "confirmed", text)
    log.info("sign-up %s by %s: confirms the %s with %s (%s)", post.post_id, post.author,
             reg.kind, other, stage)  # fmt: skip
    return 1


def withdraw_other_kind(
    ctx: DeskContext, kind: DuelKind, players: Sequence[str], engagements: Engagements
) -> int:
    """A duel of ``kind`` was just formed for ``players``: withdraw their open sign-ups of
    the other kind (1v1 ``requests`` / 2v2 ``duo_entries`` -> ``withdrawn``), each with one
    French reply under it. Call it inside the transaction that forms the duel; the
    ``engagements`` are the board's before it. Returns the sign-ups withdrawn."""
    now = ctx.now()
    done = 0
    signups = ctx.storage.signup_rows
    for eng in engagements.withdrawals(kind, players):
        table = "requests" if eng.kind == "1v1" else "duo_entries"
        row = signups.live_signup(table, ctx.board_id, eng.ref)
        if row is None:
            continue
        signups.withdraw_signups(table, [row["id"]], iso(now))
        context = {
            "author": row["player"],
            "post_id": eng.ref,
            "is_author": player_key(eng.player) == player_key(row["player"]),
            "player": eng.player,
            "kind_label": KIND_LABELS[kind],
            "duo": eng.kind == "2v2" and bool(row.get("mate_player")),
            "mate": row.get("mate_player") or "",
        }
        text = render(
            "signup_withdrawn.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
        )
        draft_club_post(
            ctx.storage,
            ctx.board_id,
            f"b{ctx.board_id}-reg{row['thread_topic_id']}-p{eng.ref}-withdrawn",
            "signup_reply",
            int(row["thread_topic_id"]),
            text,
            now,
            after_post_id=eng.ref,
        )
        log.info(
            "%s sign-up %s withdrawn: %s is now in a %s duel",
            eng.kind,
            eng.ref,
            eng.player,
            kind,
        )
        done += 1
    return done


_LINE = re.compile(r"^\s*([A-Za-zÀ-ÿ' ]{2,30}?)\s*:\s*(.+?)\s*$", re.MULTILINE)
_FIELDS = {
    "nom": "name",
    "annee": "year",
    "annee d'etude": "year",
    "annee d'etudes": "year",
    "type de magie": "types",
    "types de magie": "types",
    "magie": "types",
    "partenaire": "partner",
    "adversaire": "partner",
    "coequipier": "partner",
    "coequipiere": "partner",
    "enjeux": "stakes",
    "enjeu": "stakes",
}
_WRONG = {
    "year": ("missing_year", "invalid_year"),
    "types": ("missing_magic_type", "too_many_magic_types", "unknown_magic_type"),
}


def own_words(text: str, code: str) -> dict[str, str]:
    """The sign-up lines of ``text`` as the player typed them (« Année : 6e année »):
    ``name``, ``year``, ``types``, ``partner``, ``stakes`` (those present), so the example of
    a reply is the player's own sign-up with only the wrong line replaced. The field ``code``
    names as wrong (``missing_year``, ``partner_invalid_year``...) is left out."""
    out: dict[str, str] = {}
    for m in _LINE.finditer(text):
        field = _FIELDS.get(fold(m.group(1)).strip())
        if field and field not in out:
            out[field] = m.group(2)
    wrong = next((f for f, codes in _WRONG.items() if code in codes), None)
    if code.startswith("partner_"):
        wrong = "partner"
    if wrong:
        out.pop(wrong, None)
    return out


def reply(
    ctx: DeskContext, reg: Registration, post: Post, template: str, code: str, message: str
) -> None:
    """Draft the reply ``template`` (given ``author``, ``post_id``, ``message``, the duel
    ``kind`` and the player's ``own`` words, :func:`own_words`) under ``post``."""
    text = render(
        template,
        {
            "author": post.author,
            "post_id": post.post_id,
            "post_link": ctx.post_link,
            # the bot's words (parser and desk messages) with player text neutralised inside,
            # typeset like a template's own text (issue 25, reader T4)
            "message": message if isinstance(message, Trusted) else Trusted(neutralise(message)),
            "kind": reg.kind,
            "own": own_words(post.text, code),
            **open_request(ctx, reg, post.author),
        },
        ctx.language,
    )
    draft_reply(ctx, reg, post, code, text)


def open_request(ctx: DeskContext, reg: Registration, author: str) -> dict[str, Any]:
    """A reply's ``open_request``: the character of the thread's first open 1v1 request by
    someone other than ``author`` (a sign-up without « Adversaire » is matched with it at
    once: RULES.md « matched with the first person who answers it or who also signs up
    alone »; issue 25, reader W4), and ``open_request_stakes``: the stakes that request wrote
    (player text), which the reply's reader accepts by writing the same « Enjeux » line
    (:mod:`forumbot.duels.stakes` [D]; reader3). Both None in 2v2 or when there is none."""
    if reg.kind == "1v1":
        for r in ctx.storage.signup_rows.open_requests_in(ctx.board_id, reg.topic_id):
            if player_key(str(r["player"])) != player_key(author):
                return {"open_request": str(r["character"]), "open_request_stakes": r["stakes"]}
    return {"open_request": None, "open_request_stakes": None}


def draft_reply(ctx: DeskContext, reg: Registration, post: Post, code: str, text: str) -> None:
    """Draft ``text`` as the bot's reply under ``post`` (once: keyed by post and code)."""
    key = f"b{ctx.board_id}-reg{reg.topic_id}-p{post.post_id}-{code}"
    draft_club_post(
        ctx.storage,
        ctx.board_id,
        key,
        "signup_reply",
        reg.topic_id,
        text,
        ctx.now(),
        after_post_id=post.post_id,
    )


def post_row(ctx: DeskContext, post_id: int) -> dict[str, Any] | None:
    """The ``registration_posts`` row of a sign-up post already handled, or None."""
    return ctx.storage.signup_rows.post(ctx.board_id, post_id)


def record_post(
    ctx: DeskContext, post: Post, status: str, code: str, message: str | None, signup: Signup | None
) -> None:
    """Record a handled sign-up post (``status`` ``accepted``, ``rejected``, ``invalid`` or
    ``referee``: handed to a referee, :mod:`forumbot.club.signup_checks`;
    its ``code``, the French ``message`` given, the parsed ``signup`` when readable)."""
    now = iso(ctx.now())
    ctx.storage.signup_rows.record_post(
        {
            "board_id": ctx.board_id,
            "post_id": post.post_id,
            "topic_id": None,
            "author": post.author,
            "content_hash": content_hash(post.text),
            "status": status,
            "code": code,
            "message": message,
            "signup_json": json.dumps(
                {
                    "name": signup.name,
                    "year": signup.year,
                    "magic_types": list(signup.magic_types),
                    "partner": signup.partner.name if signup.partner else None,
                },
                ensure_ascii=False,
            )
            if signup
            else None,
            "created_at": now,
            "updated_at": now,
        },
    )


def cancel_duel(ctx: DeskContext, table: str, row_id: int, reason: str, detail: str) -> bool:
    """Cancel a formed duel not opened yet: a 1v1 pairing (``table = "queue"``) or a 2v2
    match (``"duo_matches"``), ``queued`` or ``opening`` and without a duel, becomes
    ``cancelled`` (never retried), its sign-ups too (``requests``/``duo_entries`` ->
    ``cancelled``), with one French reply under each of its sign-up posts and, when the duel
    topic was already posted, one notice in it (``signup_cancelled.bbcode.j2``; ``reason``
    is its French sentence). ``detail``: for the log and ``last_error``. Returns False
    when the row was no longer cancellable."""
    signups = ctx.storage.signup_rows
    now = ctx.now()
    if signups.cancel_formed(table, row_id, iso(now), f"cancelled: {detail}") == 0:
        ctx.storage.commit()
        return False
    row = signups.formed(table, row_id)
    kind: DuelKind = "1v1" if table == "queue" else "2v2"
    if table == "queue":
        entrants = [
            Entrant(row["first_player"], row["first_character"], row["first_post_id"]),
            Entrant(row["second_player"], row["second_character"], row["second_post_id"]),
        ]
        live: tuple[str, ...] = ("paired",)
        signups_table = "requests"
    else:
        entrants = [
            Entrant(e["player"], e["character"], e["post_id"])
            for d in json.loads(row["duos_json"])
            for e in d
        ]
        signups_table, live = "duo_entries", ("matched", "merged")
    post_ids = sorted({e.post_id for e in entrants})
    thread = int(row["thread_topic_id"])
    for post_id in post_ids:
        signups.cancel_signup(signups_table, ctx.board_id, post_id, live, iso(now))
        posted = post_row(ctx, post_id)
        author = (
            posted["author"]
            if posted is not None
            else next(e.player for e in entrants if e.post_id == post_id)
        )
        context = {
            "author": author,
            "post_id": post_id,
            "kind_label": KIND_LABELS[kind],
            "reason": reason,
            "in_topic": False,
        }
        text = render(
            "signup_cancelled.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
        )
        draft_club_post(
            ctx.storage,
            ctx.board_id,
            f"b{ctx.board_id}-reg{thread}-p{post_id}-{table}{row_id}-cancelled",
            "signup_reply",
            thread,
            text,
            now,
            after_post_id=post_id,
        )
    if row["topic_id"] is not None:
        context = {"kind_label": KIND_LABELS[kind], "reason": reason, "in_topic": True}
        text = render(
            "signup_cancelled.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
        )
        draft_club_post(
            ctx.storage,
            ctx.board_id,
            f"b{ctx.board_id}-{table}{row_id}-cancelled",
            "signup_reply",
            int(row["topic_id"]),
            text,
            now,
        )
    ctx.storage.commit()
    log.warning(
        "%s %s %s (%s) cancelled before its duel opened: %s [%s]",
        kind,
        table,
        row_id,
        ", ".join(e.character for e in entrants),
        reason,
        detail,
    )
    return True


__all__ = [
    "cancel_duel",
    "confirm_pairing",
    "draft_reply",
    "post_row",
    "record_post",
    "refuse",
    "refuse_busy",
    "refuse_engaged",
    "reply",
    "withdraw_other_kind",
]
