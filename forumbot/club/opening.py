"""Opening a 1v1 duel of the desk (step 4 of the cycle): its topic, the duel, the owls.

A pairing being opened (a ``queue`` row, status ``opening``) gets, each step once and safe to
repeat after a crash: the duel topic in the configured forum (:func:`create_duel_topic`: the
duellists' profiles, the stakes and the commitment of the dice secret fixed beforehand; claimed,
then ``create_topic``, after a crash the forum is searched for it by its marker first), the duel
registered with :meth:`forumbot.duels.referee.Referee.adopt` (ruleset per duel), and each
duellist's owl with their magic-type modifiers (:func:`owl_magic_types`,
:mod:`forumbot.publish.owls`).
"""

from __future__ import annotations

import logging
from typing import Any

from forumbot.club.context import DeskContext
from forumbot.club.profiles import Profile, get_profile
from forumbot.club.topics import create_topic_once, stakes_view, stakes_written, topic_url
from forumbot.publish.labels import modifier_scope, slug, types_label, year_label
from forumbot.publish.owls import draft_owl, owl_key
from forumbot.publish.render import render
from forumbot.rulesets import load_ruleset
from rules.dice import commitment
from rules.fatigue import FatigueRuleset

log = logging.getLogger("forumbot.club.registrations")


def open_duel(ctx: DeskContext, row: dict[str, Any]) -> int:
    """Open the duel of a pairing being opened (each step once, safe to repeat after a
    crash): the topic, the duel, the owls. Returns the duel id.

    Raises:
        ForumError: the topic could not be opened now (retried next cycle).
    """
    rs = load_ruleset(row["ruleset"])
    if not isinstance(rs, FatigueRuleset):
        raise ValueError(f"ruleset {row['ruleset']!r} has no magic types")
    first = profile_for(ctx, row["first_character"], row["first_player"])
    second = profile_for(ctx, row["second_character"], row["second_player"])
    secret = bytes.fromhex(row["dice_secret"])
    topic_id = row["topic_id"]
    if topic_id is None:
        topic_id = create_duel_topic(ctx, row, rs, first, second, secret)
    duel_id = row["duel_id"]
    if duel_id is None:
        duel = ctx.storage.duel_by_topic(ctx.board_id, topic_id)
        if duel is not None and duel["status"] == "ignored":
            ctx.storage.club_rows.delete_duel(duel["id"])
            duel = None
        if duel is None:
            duel_id = ctx.referee.adopt(
                row["forum_id"],
                topic_id,
                row["subject"],
                [(p.character, p.year, list(p.magic_types)) for p in (first, second)],
                stakes=row["stakes"],
                ruleset=row["ruleset"],
                dice_secret=secret,
                actor="forumbot",
            )
        else:
            duel_id = duel["id"]
    for me, other in ((first, second), (second, first)):
        owl_magic_types(ctx, duel_id, topic_id, rs, me, other)
    ctx.storage.club_rows.update_row(
        "queue", row["id"], {"duel_id": duel_id, "status": "running", "last_error": None}
    )
    log.info("pairing %s: duel %s opened in topic %s", row["id"], duel_id, topic_id)
    return int(duel_id)


def profile_for(ctx: DeskContext, character: str, player: str) -> Profile:
    """The recorded profile of a duellist about to duel.

    Raises:
        ValueError: ``character`` has no profile.
    """
    found = get_profile(ctx.storage, ctx.board_id, character)
    if found is None:
        raise ValueError(f"no profile for {character!r} ({player})")
    return found


def create_duel_topic(
    ctx: DeskContext,
    row: dict[str, Any],
    rs: FatigueRuleset,
    first: Profile,
    second: Profile,
    secret: bytes,
) -> int:
    """Open the 1v1 duel topic once (:func:`forumbot.club.topics.create_topic_once`): the two
    duellists' profiles, the stakes and the dice commitment. Returns the topic id."""

    def view(p: Profile) -> dict[str, Any]:
        return {
            "name": p.character,
            "year_label": year_label(p.year),
            "points": rs.starting_points_for(p.year),
            "types_label": types_label(rs, p.magic_types),
        }

    written = stakes_written(
        ctx,
        "requests",
        [(row["first_post_id"], first.character), (row["second_post_id"], second.character)],
    )
    text = render(
        "signup_duel_topic.bbcode.j2",
        {
            "first": view(first),
            "second": view(second),
            "unit": rs.unit,
            "stakes": row["stakes"],
            **stakes_view(written, row["stakes"], 2),
            "commitment": commitment(secret),
            "dice_source": ctx.dice_source,
            "dice_name": rs.dice_name,
        },
        ctx.language,
    )
    return create_topic_once(ctx, "queue", row, text)


def owl_magic_types(
    ctx: DeskContext, duel_id: int, topic_id: int, rs: FatigueRuleset, me: Profile, other: Profile
) -> None:
    """Draft the owl telling ``me`` their magic types' traits and modifiers before the duel
    against ``other`` (once: keyed by duel and character)."""
    types = []
    for key in me.magic_types:
        mtype = rs.magic_type(key)
        types.append(
            {
                "label": mtype.label,
                "traits": mtype.traits,
                "owl": mtype.owl,
                "modifiers": [modifier_scope(rs, m) for m in mtype.modifiers],
            }
        )
    text = render(
        "owl_magic_types.bbcode.j2",
        {
            "character": me.character,
            "opponent": other.character,
            "topic_url": topic_url(ctx, topic_id),
            "types": types,
            "referee_name": ctx.referee_name,
        },
        ctx.language,
    )
    draft_owl(
        ctx.storage,
        ctx.board_id,
        owl_key(ctx.board_id, topic_id, "magic_types", me.player, me.character),
        "magic_types",
        me.player,
        f"Duel contre {other.character} : ton type de magie",
        text,
        ctx.now(),
        duel_id=duel_id,
        legacy_keys=(f"b{ctx.board_id}-duel{duel_id}-owl-{slug(me.character)}",),
    )


__all__ = [
    "create_duel_topic",
    "open_duel",
    "owl_magic_types",
    "profile_for",
]
