"""Forumactif edits made after the dice were rolled (issue 16, "edit after the dice").

On Forumactif the duellist posts, then rolls from the full reply form; the Game Master's
dice post follows. The duellist can still edit the first post, and the page does not always
show an edit notice. The ruling must use the version in force when the dice were rolled.

The parser exposes what that needs (pure, no storage):

- :attr:`parsers.model.Post.dice_post_ids` on the roller's post: the Game Master posts whose
  dice belong to it (the first one fixes the moment of the roll);
- :func:`parsers.model.content_fingerprint`: what a ruling reads in a post (own text + bold);
- :func:`dice_snapshots`: the fingerprints to keep, the first time a page shows a post with its
  dice; :func:`late_edits`: the posts of a later page whose fingerprint differs from the kept
  one, with or without an edit notice.

The shell (not this package) stores the snapshot of each post the first time it is seen with
``dice_post_ids``, never overwrites it, and on every later read calls :func:`late_edits`; for
each :class:`LateEdit` it rules on the stored version, proposes ``late_edit`` and holds the
draft for the referee. A post edited before the bot first saw its dice post cannot be told
apart from its original (the page keeps no history): that limit is logged by the shell.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from parsers.model import Post, content_fingerprint

__all__ = ["LateEdit", "dice_snapshots", "late_edits"]


@dataclass(frozen=True)
class LateEdit:
    """A roller's post that no longer reads as it did when its dice were rolled.

    ``post_id``: the edited post; ``dice_post_id``: the first Game Master post of its dice;
    ``before`` / ``after``: :func:`content_fingerprint` at the roll and now; ``noticed``: the
    page now shows an edit notice for it (False: a silent edit).
    """

    post_id: int
    dice_post_id: int
    before: str
    after: str
    noticed: bool


def dice_snapshots(posts: Iterable[Post]) -> dict[int, tuple[int, str]]:
    """``{post_id: (first dice post id, fingerprint)}`` for every post that has its dice on
    the page. Keep the first snapshot seen of each post; later ones may hold an edit."""
    return {
        post.post_id: (post.dice_post_ids[0], content_fingerprint(post))
        for post in posts
        if post.dice_post_ids and not post.is_dice_post
    }


def late_edits(snapshots: Mapping[int, tuple[int, str]], posts: Iterable[Post]) -> list[LateEdit]:
    """The posts of ``posts`` whose fingerprint differs from their stored snapshot, page order.

    Args:
        snapshots: what :func:`dice_snapshots` returned when the dice were first seen (post id
            -> (dice post id, fingerprint)), as the shell stored it.
        posts: the posts of a page read later (posts absent from ``snapshots`` are ignored).
    """
    found: list[LateEdit] = []
    for post in posts:
        kept = snapshots.get(post.post_id)
        if kept is None:
            continue
        now = content_fingerprint(post)
        if now != kept[1]:
            found.append(LateEdit(post.post_id, kept[0], kept[1], now, post.edited is not None))
    return found
