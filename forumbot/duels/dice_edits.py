"""Forumactif posts edited after their dice were rolled (issue 16, "edit after the dice").

On Forumactif the duellist posts and the board's Game Master posts the dice right after it. The
duellist can still edit the first post, and the page does not always show an edit notice, so
a changed spell could be chosen after seeing the dice. The ruling uses the version in force
when the dice were rolled:

- :func:`observe` (called by the referee loop after each read of a duel topic, on a board
  that rolls its own dice) stores, the first time a post is seen with its dice
  (``Post.dice_post_ids``), its fingerprint (:func:`parsers.forumactif.dice_snapshots`) and
  the ``post_versions`` row it then had, in ``dice_snapshots``; a snapshot is never
  overwritten. Every later read compares the page with the snapshots
  (:func:`parsers.forumactif.late_edits`): a post that no longer reads the same is recorded
  (``late_*`` columns, first sighting kept) and logged once as a WARNING.
- :func:`ruled_version` gives a flow the stored post (a
  :class:`~forumbot.storage.records.StoredPost`) with the text and action of the
  snapshot's version, and the ``late_edit`` facts when the post was edited after its dice.
- :func:`late_edit_proposal` is the violation the draft proposes (rule ``late_edit``, status
  ``proposed``, like the fatigue and 2v2 late edits); :func:`hold_reason` holds the draft for
  the referee the first time a late-edited post enters it (a referee who approves it later is
  not overruled on the next poll).

Limit (logged by the parser's docstring, repeated here): a post edited before the bot first
saw its dice post cannot be told from its original (the page keeps no history); the bot polls
every ``poll_interval_s``, so the window is one poll.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from forumbot.duels.flow import FlowContext
from forumbot.storage import Storage, iso
from forumbot.storage.records import Declaration, Duel, StoredPost
from parsers.forumactif.late_edit import LateEdit, dice_snapshots, late_edits
from parsers.model import Post

log = logging.getLogger("forumbot.duels.dice_edits")

TABLE = "dice_snapshots"
HOLD_PREFIX = "late_edit: edited after its dice"
"""Start of ``last_error`` of a draft held because a post was edited after its dice."""


def _snapshots(storage: Storage, board_id: int, post_ids: Sequence[int]) -> dict[int, Any]:
    return storage.post_rows.snapshots(TABLE, board_id, post_ids)


def _latest_version(storage: Storage, board_id: int, post_id: int) -> int | None:
    return storage.post_rows.latest_version(board_id, post_id)


def observe(ctx: FlowContext, duel: Duel, posts: Sequence[Post]) -> list[LateEdit]:
    """Store the first dice snapshot of each post of ``posts`` and record the late edits.

    ``posts`` is what the forum client just read of ``duel``'s topic, already recorded in
    ``posts_seen`` / ``post_versions`` (the snapshot names the version recorded then). Does
    nothing on a board where the bot rolls the dice. Returns the late edits found in this
    read (new or already recorded), page order.
    """
    if not ctx.settings.forum_rolls_dice or not posts:
        return []
    storage, board_id = ctx.storage, ctx.board_id
    kept = _snapshots(storage, board_id, [p.post_id for p in posts])
    now = iso(ctx.now())
    for post_id, (dice_post_id, fingerprint) in dice_snapshots(posts).items():
        if post_id in kept:
            continue  # never overwritten: a later one may hold an edit
        row = {
            "board_id": board_id,
            "post_id": post_id,
            "topic_id": duel.topic_id,
            "dice_post_id": dice_post_id,
            "fingerprint": fingerprint,
            "version": _latest_version(storage, board_id, post_id),
            "seen_at": now,
        }
        storage.post_rows.insert_snapshot(TABLE, row)
        kept[post_id] = row
    found = late_edits({k: (int(v["dice_post_id"]), v["fingerprint"]) for k, v in kept.items()},
                       posts)  # fmt: skip
    for edit in found:
        row = kept[edit.post_id]
        if row.get("late_fingerprint") == edit.after:
            continue  # this reading is known: logged once
        storage.post_rows.update_snapshot(
            TABLE,
            (board_id, edit.post_id),
            {
                "late_fingerprint": edit.after,
                "late_seen_at": row.get("late_seen_at") or now,
                "late_noticed": int(edit.noticed),
            },
        )
        log.warning(
            "duel %s topic %s post %s: edited after its dice (Game Master post %s, %s): "
            "ruled on the version of the roll, late_edit proposed (the draft ruling on it is held "
            "for the referee) "
            '(docs/forumactif.md, section "Dice")',
            duel.id,
            duel.topic_id,
            edit.post_id,
            edit.dice_post_id,
            "edit notice shown" if edit.noticed else "no edit notice",
        )
    return found


def ruled_version(
    storage: Storage, board_id: int, row: StoredPost | dict[str, Any]
) -> tuple[StoredPost, dict[str, Any] | None]:
    """The stored post ``row`` (a record, or a ``posts_seen`` row) as it is ruled on, and its
    late edit.

    When the post was edited after its dice (a recorded late reading), the record's ``text``
    and ``action`` are those of the snapshot's ``post_versions`` row (the version in force
    when the dice were rolled) and the second item is ``{post_id, dice_post_id, noticed,
    version}``; otherwise ``(row, None)``.
    """
    post = StoredPost.of(row)
    snap = _snapshots(storage, board_id, [post.post_id]).get(post.post_id)
    if snap is None or snap.get("late_fingerprint") is None:
        return post, None
    late = {
        "post_id": post.post_id,
        "dice_post_id": int(snap["dice_post_id"]),
        "noticed": bool(snap["late_noticed"]),
        "version": snap["version"],
    }
    if snap["version"] is None:
        return post, late
    version = storage.post_rows.version_reading(board_id, post.post_id, int(snap["version"]))
    if version is None:
        return post, late
    ruled = replace(post, text=str(version[0] or ""), action=json.loads(version[1] or "{}"))
    return ruled, late


def dice_late_posts(storage: Storage, board_id: int, post_ids: Iterable[int]) -> list[int]:
    """Those of ``post_ids`` edited after their dice (a recorded late reading), sorted."""
    ids = sorted({int(p) for p in post_ids})
    return sorted(
        pid for pid, snap in _snapshots(storage, board_id, ids).items()
        if snap.get("late_fingerprint") is not None
    )  # fmt: skip


def late_edit_proposal(duellist: str, late: dict[str, Any], penalty: int = 0) -> dict[str, Any]:
    """The proposed ``late_edit`` violation of a post edited after its dice (a violation
    dict: duellist, rule, post_id, evidence, penalty, status). ``penalty`` in the ruleset's
    unit: 0 in classic (the referee decides), the ruleset's late-edit penalty in fatigue."""
    return {
        "duellist": duellist,
        "rule": "late_edit",
        "post_id": late["post_id"],
        "evidence": (
            f"edited after its dice (Game Master post {late['dice_post_id']}; "
            f"{'edit notice' if late['noticed'] else 'no edit notice'}): "
            "version of the roll kept"
        ),
        "penalty": penalty,
        "status": "proposed",
    }


def hold_reason(existing: Declaration | None, late_post_ids: Iterable[int]) -> str | None:
    """The hold of a draft whose posts include ``late_post_ids`` (edited after their dice), or
    None: only posts not already listed in the stored draft (``inputs.dice_late_edits``) hold
    it, so a draft the referee released after seeing them is not held again."""
    before = {int(p) for p in (existing.inputs.get("dice_late_edits", []) if existing else [])}
    new = sorted(set(late_post_ids) - before)
    if not new:
        return None
    return f"{HOLD_PREFIX} (posts {', '.join(str(p) for p in new)}): referee decides"


__all__ = [
    "HOLD_PREFIX",
    "dice_late_posts",
    "TABLE",
    "hold_reason",
    "late_edit_proposal",
    "observe",
    "ruled_version",
]
