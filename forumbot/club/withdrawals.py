"""Withdrawals at the sign-up desk (issue 23 soak): a post like « Je me désiste » in a
registration thread, read by :func:`parsers.withdrawal.classify_withdrawal`.

Applied in posting order, like sign-ups (:meth:`forumbot.club.registrations.RegistrationDesk.
poll_registrations`), **[D]** each, with one French reply under the post
(``signup_withdrawal.bbcode.j2``):

- **1v1, an open request** of the poster in this thread -> ``withdrawn``;
- **1v1, a queued pairing** (not started: status ``queued``) holding the poster -> the pairing
  is ``withdrawn``, the poster's request too; the partner's own request (when they posted one)
  is ``open`` again and waits for the next lone sign-up or answer; the reply tells the partner
  (a partner who was only named, with no post of their own, is told the duel will not happen);
- **a started duel** (1v1 ``opening`` / ``running``; any formed 2v2 match) is never withdrawn:
  the reply points to a concession in the duel topic or a referee. To keep the decision
  independent of how posts are batched, the desk starts the pairings that may start just
  before it reads a withdrawal (:func:`forumbot.club.registrations.RegistrationDesk.
  poll_registrations`), as a one-by-one read would have;
- **2v2, a waiting sign-up** (``lone``, or a ``duo`` the poster is in, as the poster or the
  named teammate) -> ``withdrawn`` whole, the teammate told they may sign up again;
- **nothing to withdraw** -> a reply saying so (code ``nothing_to_withdraw``).

The post is recorded in ``registration_posts`` with status ``withdrawal`` and the code of
what was done (``withdrawn_open``, ``withdrawn_pairing``, ``withdrawn_duo``,
``duel_started``, ``nothing_to_withdraw``).
"""

from __future__ import annotations

import logging
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.engagements import board_engagements
from forumbot.club.replies import draft_reply, record_post
from forumbot.config import Registration
from forumbot.publish.render import render
from forumbot.storage import iso
from parsers.model import Post
from parsers.withdrawal import Withdrawal
from rules.matchmaking import player_key

log = logging.getLogger("forumbot.club.registrations")


def _mine(player: Any, author: str) -> bool:
    return player is not None and player_key(str(player)) == player_key(author)


def handle_withdrawal(ctx: DeskContext, reg: Registration, post: Post, w: Withdrawal) -> int:
    """Apply the withdrawal ``post`` (its author's sign-up in ``reg``'s thread; see the module
    docstring) in one transaction with its reply. Returns the replies drafted (1)."""
    with ctx.storage.atomic():
        if reg.kind == "2v2":
            code, context = _withdraw_duo(ctx, reg, post)
        else:
            code, context = _withdraw_solo(ctx, reg, post)
        context.update({"author": post.author, "post_id": post.post_id})
        text = render(
            "signup_withdrawal.bbcode.j2", {**context, "post_link": ctx.post_link}, ctx.language
        )
        record_post(ctx, post, "withdrawal", code, w.excerpt, None)
        draft_reply(ctx, reg, post, code, text)
    log.info("registration post %s by %s: withdrawal (%s): %s", post.post_id, post.author,
             w.phrase, code)  # fmt: skip
    return 1


def _withdraw_solo(ctx: DeskContext, reg: Registration, post: Post) -> tuple[str, dict[str, Any]]:
    signups = ctx.storage.signup_rows
    now = iso(ctx.now())
    for r in signups.live_pairings_of_kind(ctx.board_id, reg.kind):
        sides = (("first", "second"), ("second", "first"))
        mine = next((s for s in sides if _mine(r[f"{s[0]}_player"], post.author)), None)
        if mine is None:
            continue
        other = mine[1]
        partner = str(r[f"{other}_character"])
        if r["status"] != "queued" or r["thread_topic_id"] != reg.topic_id:
            return "duel_started", {"case": "running", "partner": partner}
        signups.withdraw_pairing(r["id"])
        reopened = 0
        for req in signups.paired_requests(ctx.board_id, [r["first_post_id"], r["second_post_id"]]):
            # a request is the withdrawer's by its player (a placeholder side carries the
            # other's post id, issue 15), never by its side of the pairing
            again = "withdrawn" if _mine(req["player"], post.author) else "open"
            reopened += again == "open"
            signups.set_request_status(req["id"], again, now)
        return "withdrawn_pairing", {
            "case": "pairing", "partner": partner, "reopened": bool(reopened),
        }  # fmt: skip
    opens = [
        r
        for r in signups.open_requests_in(ctx.board_id, reg.topic_id)
        if _mine(r["player"], post.author)
    ]
    if opens:
        signups.withdraw_signups("requests", [r["id"] for r in opens], now)
        return "withdrawn_open", {"case": "open"}
    return "nothing_to_withdraw", {"case": "nothing"}


def _withdraw_duo(ctx: DeskContext, reg: Registration, post: Post) -> tuple[str, dict[str, Any]]:
    signups = ctx.storage.signup_rows
    now = iso(ctx.now())
    rows = [
        r
        for r in signups.waiting_duo_entries(ctx.board_id, reg.topic_id)
        if _mine(r["player"], post.author) or _mine(r.get("mate_player"), post.author)
    ]
    if player_key(post.author) in board_engagements(ctx.storage, ctx.board_id).formed_in("2v2"):
        return "duel_started", {"case": "match"}
    if not rows:
        return "nothing_to_withdraw", {"case": "nothing"}
    mate: str | None = None
    for r in rows:
        if _mine(r["player"], post.author):
            if r.get("mate_player") or r.get("mate_character"):
                mate = str(r.get("mate_player") or r.get("mate_character"))
        else:
            mate = str(r["player"])
    signups.withdraw_signups("duo_entries", [r["id"] for r in rows], now)
    return "withdrawn_duo", {"case": "duo", "mate": mate}


__all__ = ["handle_withdrawal"]
