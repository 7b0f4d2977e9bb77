"""Settling the finished 1v1 duels the desk opened (step 3 of the cycle): rewards once
(:func:`forumbot.club.leaderboard.record_rewards`), one result owl per duellist, the pairing's
slot freed (``queue`` row ``finished``).

The referee's ``on_finished`` hook settles a duel at once (:func:`on_finished`, registered by
:meth:`forumbot.club.registrations.RegistrationDesk.attach`); each cycle catches any it missed
(:func:`settle_finished`). Everything is keyed, so settling twice changes nothing.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.leaderboard import record_rewards
from forumbot.club.stakes import stakes_owed, stakes_terms
from forumbot.club.topics import topic_url
from forumbot.publish.labels import slug
from forumbot.publish.owls import draft_owl, owl_key
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from forumbot.storage import iso
from forumbot.storage.profiles import player_of, registration_duel
from rules.fatigue import FatigueRuleset

log = logging.getLogger("forumbot.club.registrations")


def on_finished(ctx: DeskContext, duel_id: int, outcome: dict[str, Any]) -> None:
    """The referee's ``on_finished`` hook: settle the duel now (rewards once, result
    owls, the slot freed). ``outcome`` is only logged: the duel row is the authority."""
    log.info("duel %s finished (%s)", duel_id, outcome.get("reason"))
    settle(ctx, ctx.storage.duel(duel_id))


def settle_finished(ctx: DeskContext) -> int:
    """Settle every finished duel the registration flow opened and has not settled yet
    (a missed hook, a crash). Returns how many were settled now."""
    count = 0
    for row in ctx.storage.club_rows.running_pairings(ctx.board_id):
        duel = ctx.storage.duel(row["duel_id"])
        if duel["status"] == "finished":
            settle(ctx, duel)
            count += 1
    return count


def settle(ctx: DeskContext, duel: dict[str, Any]) -> None:
    """Rewards of a finished fatigue 1v1 duel the sign-up desk opened (once), the result owls
    (once each: who owes whom the stakes, :mod:`forumbot.club.stakes`), and its pairing
    marked finished (its slot is free). A duel adopted by hand gives no reward."""
    state = json.loads(duel["state_json"] or "{}")
    names = [d["name"] for d in state.get("duellists", [])]
    rs = load_ruleset(duel["ruleset"] or "classic")
    if not isinstance(rs, FatigueRuleset) or len(names) != 2:
        return
    now = ctx.now()
    # Only the duels the sign-up desk opened count on the leaderboard (its post says so): a
    # duel adopted by hand that ends while a desk runs gets its result owl, no reward.
    counted = registration_duel(ctx.storage, int(duel["id"]))
    if counted:
        record_rewards(ctx.storage, ctx.board_id, duel, now)
    winner = state.get("winner")
    terms = stakes_terms(ctx, duel)
    for name in names:
        opponent = next(n for n in names if n != name)
        result = (
            ("won" if name == winner else "lost")
            if winner
            else ("draw" if state.get("draw") else "none")
        )
        text = render(
            "owl_result.bbcode.j2",
            {
                "character": name,
                "opponent": opponent,
                "topic_url": topic_url(ctx, duel["topic_id"]),
                "outcome": result,
                "counted": counted,
                "owed": stakes_owed(
                    terms, name, [winner] if winner else [],
                    [n for n in names if winner and n != winner],
                ),
                "referee_name": ctx.referee_name,
            },
            ctx.language,
        )
        draft_owl(
            ctx.storage,
            ctx.board_id,
            owl_key(
                ctx.board_id, int(duel["topic_id"]), "result",
                player_of(ctx.storage, ctx.board_id, name), name,
            ),
            "result",
            player_of(ctx.storage, ctx.board_id, name),
            f"Fin du duel contre {opponent}",
            text,
            now,
            duel_id=duel["id"],
            legacy_keys=(f"b{ctx.board_id}-duel{duel['id']}-result-{slug(name)}",),
        )  # fmt: skip
    ctx.storage.club_rows.finish_pairing(ctx.board_id, duel["id"], iso(now))
    ctx.storage.commit()


__all__ = ["on_finished", "settle", "settle_finished"]
