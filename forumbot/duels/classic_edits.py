"""Classic duels watch late edits (issue 22), as fatigue and 2v2 duels do.

A duellist may edit a post after the declaration of its turn. The board then shows the new
spell, while the declaration (published: its dice and text are out) used the old one. The
declaration is never changed silently: :func:`flag_late_edits` (run by the classic flow at each
advance of a running duel) compares each published turn's posts, as declared
(``inputs.posts``: spell, target, bet, kind), with the posts as last read; a post whose spell,
target or bet (or kind of action) changed opens one ``late_edit`` referee task per version of
the post (French text, ``late_edit_task.txt.j2``, quoting both versions; the notice follows
from :mod:`forumbot.notify.scan`) and one WARNING line. The referee decides (an erratum:
``forumbot duels correct``).

The classic flow is under the edit watch for this (``watches_edits``: a running duel's topic is
re-read every ``poll.edit_watch_interval_s`` even when its listing shows no change) and reads
its topic from the declaration before the last published one, so the posts of the last
declared turn are read again (every ``full_reread_every``-th read, the whole topic).

Posts edited after their Forumactif dice before the declaration were already put to the
referee (``late_edit`` violation of the draft, :mod:`forumbot.duels.dice_edits`): they are not
flagged again.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from forumbot.duels.duo_board import add_task
from forumbot.publish.render import render
from forumbot.storage import Storage
from forumbot.storage.records import Declaration, Duel, DuelRecords, StoredPost
from parsers.registration import fold

log = logging.getLogger("forumbot.duels.classic_edits")

TASK_KIND = "late_edit"
"""Kind of the referee task a classic late edit opens."""

_FIELDS_FR = {"spell": "le sort", "target": "la cible", "bet": "le pari", "kind": "l'action"}
_EXCERPT = 600  # characters of each version quoted in the task


def _spell(action: dict[str, Any]) -> str | None:
    value = action.get("spell") or action.get("spell_text")
    return fold(str(value)) if value else None


def _bet(action: dict[str, Any]) -> tuple[int, ...] | None:
    bet = action.get("bet")
    return tuple(int(b) for b in bet) if bet else None


def changes(declared: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """Which of spell, target, bet, kind differ between a post as declared (a
    :class:`rules.TurnPost` dict) and its current action (a :class:`parsers.model.Action`
    dict): field names, in that order."""
    out = []
    if _spell(declared) != _spell(current):
        out.append("spell")
    target = (fold(str(declared.get("target") or "")), fold(str(current.get("target") or "")))
    if target[0] != target[1]:
        out.append("target")
    if _bet(declared) != _bet(current):
        out.append("bet")
    if (declared.get("kind") or None) != (current.get("kind") or None):
        out.append("kind")
    return out


def _declared_text(storage: Storage, board_id: int, post_id: int, at: str | None) -> str:
    """The post's text as the bot had seen it when the declaration was published (the last
    ``post_versions`` row seen by then), or ``""``."""
    return storage.post_rows.text_seen_by(board_id, post_id, at or "")


def _changed_lines(text: str, other: str) -> str:
    """The lines of ``text`` that ``other`` does not have, joined with `` / `` (what the edit
    changed, quoted; the whole text when nothing tells them apart)."""
    theirs = {line.strip() for line in other.splitlines()}
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    changed = [line for line in lines if line not in theirs] or lines
    return " / ".join(changed)[:_EXCERPT]


def flag_late_edits(
    storage: Storage, duel: Duel, records: DuelRecords, now: datetime, language: str = "fr"
) -> int:
    """Open a ``late_edit`` task for each post of a published turn whose spell, target or bet
    changed since (module doc); returns the tasks opened now."""
    if records.seen is None:
        return 0  # the snapshot was read without its posts: nothing new to compare
    opened = 0
    for decl in records.published():
        if decl.kind != "turn":
            continue
        skip = {int(p) for p in decl.inputs.get("dice_late_edits") or []}
        for declared in decl.inputs.get("posts") or []:
            post_id = int(declared["post_id"])
            current = records.post(post_id)
            if post_id in skip or current is None or "error" in current.action:
                continue
            changed = changes(declared, current.action)
            if changed:
                opened += _open_task(storage, duel, decl, declared, current, changed, now,
                                     language)  # fmt: skip
    return opened


def _open_task(
    storage: Storage, duel: Duel, decl: Declaration, declared: dict[str, Any],
    current: StoredPost, changed: list[str], now: datetime, language: str,
) -> int:  # fmt: skip
    key = f"b{duel.board_id}t{duel.topic_id}-lateedit-p{current.post_id}-{current.content_hash}"
    if storage.duel_tasks.task_exists(key):
        return 0
    before_text = _declared_text(storage, duel.board_id, current.post_id, decl.published_at)
    after = {
        "spell": current.action.get("spell") or current.action.get("spell_text"),
        "target": current.action.get("target"),
        "bet": current.action.get("bet"),
    }
    before = {
        "spell": declared.get("spell") or declared.get("spell_text"),
        "target": declared.get("target"),
        "bet": declared.get("bet"),
    }
    text = render(
        "late_edit_task.txt.j2",
        {
            "duellist": declared["duellist"], "post_id": current.post_id, "turn": decl.turn,
            "changed": [_FIELDS_FR[c] for c in changed], "before": before, "after": after,
            "before_text": _changed_lines(before_text, current.text),
            "after_text": _changed_lines(current.text, before_text),
        },
        language,
    )  # fmt: skip
    add_task(
        storage, duel.board_id, duel.id, TASK_KIND, key, str(declared["duellist"]), None,
        f"Message n°{current.post_id} modifié après le tour {decl.turn}", text.strip(), now,
        post_id=current.post_id,
    )  # fmt: skip
    log.warning(
        "duel %s topic %s post %s: edited after the declaration of turn %s (%s changed: %r -> "
        "%r): the declaration is kept, referee task %s opened",
        duel.id, duel.topic_id, current.post_id, decl.turn, ", ".join(changed),
        before, after, TASK_KIND,
    )  # fmt: skip
    return 1


__all__ = ["TASK_KIND", "changes", "flag_late_edits"]
