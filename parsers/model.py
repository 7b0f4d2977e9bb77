"""Domain values produced by the parsers (frozen dataclasses).

These are the shapes behind the public ``forumbot parse-page`` JSON contract
(see README, "JSON contract"): :func:`parsers.contract.page_to_json` turns a
:class:`TopicPage` into that JSON.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Platform = Literal["phpbb3", "forumactif"]
ActionKind = Literal["cast", "dodge", "dodge_riposte"]


@dataclass(frozen=True)
class Quote:
    """A quote inside a post: who was quoted and which post, when the forum says.

    ``depth``: 0 for a top-level quote, 1 for a quote inside a quote, and so on. Both
    platforms list every quote of the own content in document order (outermost first);
    the top-level ones are those with ``depth == 0``.
    """

    author: str | None
    post_id: int | None
    depth: int = 0


@dataclass(frozen=True)
class Edit:
    """The forum's edit notice: last editor and how many times the post was edited."""

    by: str
    count: int
    at: datetime | None = None  # when the notice gives a date (Forumactif), aware


@dataclass(frozen=True)
class DiceRoll:
    """A dice roll rendered by the forum (Forumactif) or recorded by the bot.

    ``values`` are the faces, in the order shown (classic "Duel": attack, defense).
    """

    name: str
    values: tuple[int, ...]
    faces: tuple[str, ...] = ()  # raw faces as shown (Forumactif img alt), also non-numeric


@dataclass(frozen=True)
class Post:
    """One post of a topic page.

    Attributes:
        post_id: the forum's post id (phpBB ``p``).
        author: display name of the poster.
        author_id: the forum's user id, or None (guest / deleted user).
        posted_at: aware datetime (UTC for phpBB's ``<time datetime>``).
        edited: the edit notice, or None when the page shows none.
        text: the post's own text: quotes, code blocks, signature, edit notice
            and forum dice blocks removed; one line per displayed line.
        bold: bold texts of the own content, in order.
        quotes: quotes found in the post (not in its signature), in document order, outermost
            first, each with its nesting ``depth`` (0 = top-level).
        line_count: non-empty lines of ``text``.
        dice: forum-rendered dice attached to this post (Forumactif), else empty.
        is_dice_post: True for a Forumactif "Game Master" post that only carries dice.
        html: the own content as sanitized-free raw HTML fragment (for hashing/audit).
        dice_roller: Forumactif dice post: the member who rolled.
        dice_post_ids: Forumactif roller's post: ids of the Game Master posts whose dice were
            attached to it, in page order (the dice were rolled when the first one was posted:
            the version of this post in force for the ruling is the one seen then).
        warnings: doubts the parser has about this post, for the shell to log or hold the
            draft on, e.g. ``"posted_at: weekday_mismatch ('Ven 17 Juin - 10:00')"``
            (Forumactif year-less date whose weekday matches no year near ``now``).
        unapproved: the post waits for a moderator's approval (phpBB shows it to its author
            and to moderators only, with ``p.post-notice.unapproved``): not public yet.
    """

    post_id: int
    author: str
    author_id: int | None
    posted_at: datetime | None
    edited: Edit | None
    text: str
    bold: tuple[str, ...]
    quotes: tuple[Quote, ...]
    line_count: int
    dice: tuple[DiceRoll, ...] = ()
    is_dice_post: bool = False
    html: str = ""
    dice_roller: str | None = None  # Forumactif dice post: the member who rolled
    warnings: tuple[str, ...] = ()
    unapproved: bool = False
    dice_post_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class Action:
    """What a duel post asks for (parsed from its own text and bold).

    Attributes:
        spell: canonical spellbook name, or None.
        spell_text: the bold text that matched (or the last bold when none matched).
        unknown_bold: bold texts that looked like a spell but matched nothing
            (candidates for ``unknown_spell`` / ``unlisted_spell``).
        bet: faces bet on, e.g. (3, 4, 5, 6), or None.
        kind: cast / dodge / dodge_riposte, or None when the post says nothing.
        target: the ``Cible :`` line, or None.
        move_to: the ``Déplacement :`` line, or None.
        targets: every name the ``Cible :`` line lists when it lists two or more
            (« Cible : Jules Meyer et Irène Vasseur » -> both, in the order written; joined by
            « et », « and », a comma, « ; », « & », « / » or « + »); empty for one target or
            none. One spell has one target: the engine resolves nothing for such a post and
            proposes ``missing_target`` (docs/rules-readings.md, issue 26 D2).
    """

    spell: str | None = None
    spell_text: str | None = None
    unknown_bold: tuple[str, ...] = ()
    bet: tuple[int, ...] | None = None
    kind: ActionKind | None = None
    target: str | None = None
    move_to: str | None = None
    targets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReplyForm:
    """Hidden fields of a reply form found on the page (quick reply), if any."""

    action: str
    fields: dict[str, str] = field(default_factory=dict)
    # every (name, value) pair in form order, repeated names kept (Forumactif ``auth[]`` x2)
    items: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class TopicPage:
    """Facts of one topic page and its posts.

    Attributes:
        platform: ``"phpbb3"`` or ``"forumactif"``.
        topic_id: the topic id (phpBB ``t``), or None when the page does not say.
        page: 1-based page number; pages: total pages of the topic.
        logged_in_as: the viewer's user name, or None for a guest.
        title: topic title, or None.
        forum_id: the forum id (phpBB ``f``) when shown, else None.
        version: display version (Forumactif ``tpl_used``; ``"prosilver"`` for phpBB).
        reply_form: the quick-reply form, when the page has one.
    """

    platform: Platform
    topic_id: int | None
    page: int
    pages: int
    logged_in_as: str | None
    posts: tuple[Post, ...]
    title: str | None = None
    forum_id: int | None = None
    version: str | None = None
    reply_form: ReplyForm | None = None


def content_fingerprint(post: Post) -> str:
    """SHA-256 hex digest of what a ruling reads in ``post``: its own text (lines stripped of
    trailing spaces) and its bold texts, in order.

    Two versions of a post with the same fingerprint read the same (same spell, bet, action);
    a change of bold alone (the spell is the last bold) changes it. Used to see a Forumactif
    post edited after its dice were rolled although the page shows no edit notice
    (:func:`parsers.forumactif.late_edits`).
    """
    text = "\n".join(line.rstrip() for line in post.text.strip().splitlines())
    payload = json.dumps([text, list(post.bold)], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()
