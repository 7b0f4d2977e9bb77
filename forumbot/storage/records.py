"""Typed rows the referee loop passes around: frozen dataclasses read once per poll per duel.

A row of ``duels`` becomes a :class:`Duel`, a row of ``declarations`` a :class:`Declaration`,
a row of ``posts_seen`` a :class:`StoredPost`; each ``from_row(row)`` takes the ``dict`` that
:class:`forumbot.storage.Storage` returns and decodes the JSON columns once (``state_json`` ->
``Duel.state``, ``context_json`` -> ``Declaration.stored``, ...). They are snapshots: a field
never changes under a flow that holds one; storage writes go through :class:`Storage` and the
next poll reads a new snapshot.

:class:`DuelRecords` is one duel's snapshot: the duel, its declarations and its topic's stored
posts, read by ``Storage.duel_records`` in one read transaction, once per poll per duel, when
the referee hands the duel to its flow (``FlowContext.records``). The rule for writes:

- Every write goes through :class:`Storage`; the snapshot is never written to and never
  patched, except by the referee with what it wrote itself: the posts it just recorded
  (:meth:`DuelRecords.with_posts`) and the duel's ``last_post_id``
  (:meth:`DuelRecords.with_duel`).
- A write that must see its row as it is now reads that one row, fresh: the draft writer
  (``forumbot.duels.flow.DraftWriter.write``) reads the declaration it inserts or updates by
  its idempotency key, then derives the row after the write (no second read). A flow never
  reads back in the same poll what it wrote (a relaunch it cancelled is not looked at again).
- Another connection's commit (the publish worker, the review page, the CLI) makes the
  snapshot stale: ``PRAGMA data_version`` is read with it, and ``Storage.fresh_records`` reads
  it again before the flow advances the duel and before the deadline sweep reuses it.

:class:`DeclStatus` names the life of a declaration (``draft`` -> ``approved`` ->
``publishing`` -> ``published``; ``held`` waits for a referee; ``cancelled``; ``queued``: posted,
waiting for a moderator's approval, never posted again: issue 22; ``redraft``: drafted again
at the next poll); :data:`EDITABLE` is the tuple of statuses a draft may still be rewritten
in, :data:`REDRAFTABLE` those a flow may draft (again).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

DICE_REQUEST = "-dice"
"""Key tail of the post asking for the forum's missing dice
(:func:`forumbot.duels.flow.missing_dice_draft`): ``…-turn3`` -> ``…-turn3-dice``, kind
``notice``. Its own key, so the turn's declaration (``…-turn3``) is still written and published
when the dice come after a referee published the request; a notice advances no duel when it
is published (it has no outcome)."""


def is_dice_request(decl: Declaration) -> bool:
    """True for a request for the forum's missing dice (:data:`DICE_REQUEST`)."""
    return decl.kind == "notice" and decl.idempotency_key.endswith(DICE_REQUEST)


class DeclStatus(StrEnum):
    """Statuses of a declaration row (``declarations.status``)."""

    DRAFT = "draft"
    APPROVED = "approved"
    HELD = "held"
    PUBLISHING = "publishing"
    PUBLISHED = "published"
    CANCELLED = "cancelled"
    QUEUED = "queued"
    REDRAFT = "redraft"


EDITABLE: tuple[str, ...] = (
    DeclStatus.DRAFT.value,
    DeclStatus.APPROVED.value,
    DeclStatus.HELD.value,
)
"""A draft in one of these statuses may still be recomputed, edited or cancelled."""

REDRAFTABLE: tuple[str, ...] = (*EDITABLE, DeclStatus.REDRAFT.value)
"""Statuses of a declaration a flow may (re)draft: the editable ones and ``redraft`` (a turn
draft a referee dropped or asked to redraft: drafted again, fresh, from the posts at the next
poll, same idempotency key; :mod:`forumbot.duels.redraft`)."""


def _loads(raw: str | None, default: Any) -> Any:
    return json.loads(raw) if raw else default


@dataclass(frozen=True)
class Duel:
    """One ``duels`` row.

    ``state`` is ``state_json`` decoded (a :meth:`rules.DuelState.to_dict` dict; ``{}`` for an
    ignored topic). ``ruleset`` is the ruleset name (``"classic"``, ``"fatigue"`` or a TOML
    path). ``status``: ``open`` (opening drafted), ``running``, ``finished`` or ``ignored``.
    ``board_forum_id``: the forum a moved topic is in now (None: its watched ``forum_id``);
    ``held_at`` / ``held_reason``: the topic is gone or unreadable and the duel waits for a
    referee, its deadlines frozen (:mod:`forumbot.duels.follow`).
    """

    id: int
    board_id: int
    forum_id: int | None
    topic_id: int
    title: str | None
    ruleset: str | None
    status: str
    state: dict[str, Any] = field(default_factory=dict, compare=False)
    stakes: str | None = None
    dice_secret: str | None = None
    dice_commitment: str | None = None
    opening_post_id: int | None = None
    last_post_id: int | None = None
    created_at: str | None = None
    finished_at: str | None = None
    finish_notified_at: str | None = None
    board_forum_id: int | None = None
    held_at: str | None = None
    held_reason: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Duel:
        """The record of a ``duels`` row (``Storage.duel``)."""
        return cls(
            id=int(row["id"]),
            board_id=int(row["board_id"]),
            forum_id=row.get("forum_id"),
            topic_id=int(row["topic_id"]),
            title=row.get("title"),
            ruleset=row.get("ruleset"),
            status=str(row["status"]),
            state=_loads(row.get("state_json"), {}),
            stakes=row.get("stakes"),
            dice_secret=row.get("dice_secret"),
            dice_commitment=row.get("dice_commitment"),
            opening_post_id=row.get("opening_post_id"),
            last_post_id=row.get("last_post_id"),
            created_at=row.get("created_at"),
            finished_at=row.get("finished_at"),
            finish_notified_at=row.get("finish_notified_at"),
            board_forum_id=row.get("board_forum_id"),
            held_at=row.get("held_at"),
            held_reason=row.get("held_reason"),
        )

    @classmethod
    def of(cls, duel: Duel | dict[str, Any]) -> Duel:
        """``duel`` itself, or the record of a row dict (public functions take either)."""
        return duel if isinstance(duel, Duel) else cls.from_row(duel)

    @property
    def secret(self) -> bytes:
        """The 32-byte dice seed (``dice_secret`` is its hex)."""
        return bytes.fromhex(self.dice_secret or "")


@dataclass(frozen=True)
class Declaration:
    """One ``declarations`` row; ``stored`` is ``context_json`` decoded (``context``,
    ``inputs``, ``outcome``), ``overrides`` and ``waived`` the referee's decisions.

    ``stored`` is decoded on first use, once: a snapshot holds every declaration of its duel
    and a turn's ``context_json`` is about 20 kB of JSON (the state before and after, the
    trail), which most polls never look at (issue 12, memory and CPU).
    """

    id: int
    duel_id: int
    turn: int
    kind: str
    idempotency_key: str
    status: str
    text: str
    text_edited: bool
    context_json: str | None = field(default=None, compare=False, repr=False)
    overrides: dict[str, Any] = field(default_factory=dict, compare=False)
    waived: list[list[str]] = field(default_factory=list, compare=False)
    last_error: str | None = None
    published_post_id: int | None = None
    published_at: str | None = None
    version: int = 1
    marker: str | None = None
    publish_after: str | None = None
    attempts: int = 0
    created_at: str | None = None
    updated_at: str | None = None
    claimed_by: str | None = None
    claim_until: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Declaration:
        """The record of a ``declarations`` row."""
        return cls(
            id=int(row["id"]),
            duel_id=int(row["duel_id"]),
            turn=int(row["turn"] or 0),
            kind=str(row["kind"]),
            idempotency_key=str(row["idempotency_key"]),
            status=str(row["status"]),
            text=str(row["text"] or ""),
            text_edited=bool(row["text_edited"]),
            context_json=row.get("context_json"),
            overrides=_loads(row.get("overrides_json"), {}),
            waived=_loads(row.get("waived_json"), []),
            last_error=row.get("last_error"),
            published_post_id=row.get("published_post_id"),
            published_at=row.get("published_at"),
            version=int(row.get("version") or 1),
            marker=row.get("marker"),
            publish_after=row.get("publish_after"),
            attempts=int(row.get("attempts") or 0),
            created_at=row.get("created_at"),
            updated_at=row.get("updated_at"),
            claimed_by=row.get("claimed_by"),
            claim_until=row.get("claim_until"),
        )

    @classmethod
    def of(cls, decl: Declaration | dict[str, Any]) -> Declaration:
        """``decl`` itself, or the record of a row dict (public functions take either)."""
        return decl if isinstance(decl, Declaration) else cls.from_row(decl)

    @functools.cached_property
    def stored(self) -> dict[str, Any]:
        """``context_json`` decoded (``{}`` when empty)."""
        decoded: dict[str, Any] = _loads(self.context_json, {})
        return decoded

    @property
    def inputs(self) -> dict[str, Any]:
        """What the engine was given (``{}`` for an opening or a relaunch)."""
        return dict(self.stored.get("inputs") or {})

    @property
    def context(self) -> dict[str, Any]:
        """The template context stored with the draft (``{}`` when none)."""
        return dict(self.stored.get("context") or {})

    @property
    def outcome(self) -> dict[str, Any] | None:
        """The engine's result stored with the draft (None for an opening or a relaunch)."""
        return self.stored.get("outcome")

    @property
    def editable(self) -> bool:
        """True while the draft may still be rewritten (:data:`EDITABLE`)."""
        return self.status in EDITABLE


@dataclass(frozen=True)
class StoredPost:
    """One ``posts_seen`` row: ``action`` is ``action_json`` decoded (a
    :class:`parsers.model.Action` as a dict, or ``{"error": ...}``), ``dice`` the forum's
    dice (``[{name, values}]``)."""

    board_id: int
    topic_id: int
    post_id: int
    author: str | None
    author_id: int | None
    text: str
    action: dict[str, Any] = field(default_factory=dict, compare=False)
    dice: list[dict[str, Any]] = field(default_factory=list, compare=False)
    first_seen_at: str | None = None
    content_hash: str | None = None
    hash_changes: int = 0
    posted_at: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> StoredPost:
        """The record of a ``posts_seen`` row."""
        return cls(
            board_id=int(row["board_id"]),
            topic_id=int(row["topic_id"]),
            post_id=int(row["post_id"]),
            author=row.get("author"),
            author_id=row.get("author_id"),
            text=str(row.get("text") or ""),
            action=_loads(row.get("action_json"), {}),
            dice=_loads(row.get("dice_json"), []),
            first_seen_at=row.get("first_seen_at"),
            content_hash=row.get("content_hash"),
            hash_changes=int(row.get("hash_changes") or 0),
            posted_at=row.get("posted_at"),
        )

    @property
    def key(self) -> dict[str, int]:
        """The row's primary key (``board_id``, ``post_id``)."""
        return {"board_id": self.board_id, "post_id": self.post_id}

    @classmethod
    def of(cls, post: StoredPost | dict[str, Any]) -> StoredPost:
        """``post`` itself, or the record of a row dict (public functions take either)."""
        return post if isinstance(post, StoredPost) else cls.from_row(post)


@dataclass(frozen=True)
class DuelRecords:
    """One duel's rows as one poll sees them: the duel, its declarations (by id) and its
    topic's stored posts (by post id), read together (:meth:`Storage.duel_records`: one
    read transaction, one SELECT per table).

    ``data_version`` is SQLite's ``PRAGMA data_version`` read just before the rows: when it
    differs later, another connection (the publish worker, the review page, the CLI) has
    committed since, and the snapshot is read again (:meth:`Storage.fresh_records`).
    """

    duel: Duel
    declarations: tuple[Declaration, ...] = ()
    seen: tuple[StoredPost, ...] | None = ()
    data_version: int = field(default=0, compare=False)

    @property
    def posts(self) -> tuple[StoredPost, ...]:
        """The topic's stored posts, by post id. Raises RuntimeError on a snapshot read
        without them (``Storage.duel_records(..., posts=False)``: the referee's look at an
        unchanged topic; :meth:`Storage.with_posts` adds them)."""
        if self.seen is None:
            raise RuntimeError("this duel snapshot was read without its posts")
        return self.seen

    def published(self) -> tuple[Declaration, ...]:
        """The published declarations that make the duel's history, by id: an erratum
        (kind ``erratum``, :mod:`forumbot.duels.erratum`) is left out (it is no turn and no
        turn boundary; its numbers are applied to the duel's state when it is published), and
        so is a published request for the forum's missing dice (:func:`is_dice_request`: the
        turn it asks about is still open)."""
        return tuple(
            d for d in self.declarations
            if d.status == DeclStatus.PUBLISHED and d.kind != "erratum"
            and not is_dice_request(d)
        )  # fmt: skip

    def editable(self) -> tuple[Declaration, ...]:
        """The declarations a flow may still rewrite (:data:`EDITABLE`), by id."""
        return tuple(d for d in self.declarations if d.status in EDITABLE)

    def redrafts(self) -> tuple[Declaration, ...]:
        """The declarations waiting to be drafted again (status ``redraft``), by id."""
        return tuple(d for d in self.declarations if d.status == DeclStatus.REDRAFT)

    def by_key(self, key: str) -> Declaration | None:
        """The declaration with that idempotency key, or None."""
        return next((d for d in self.declarations if d.idempotency_key == key), None)

    def declaration(self, decl_id: int) -> Declaration | None:
        """The declaration ``decl_id`` of this duel, or None."""
        return next((d for d in self.declarations if d.id == decl_id), None)

    def last_published_post_id(self) -> int | None:
        """Post id of the latest published declaration (the highest), or None."""
        ids = [d.published_post_id for d in self.published() if d.published_post_id]
        return max(ids) if ids else None

    def publications(self) -> tuple[int, int]:
        """(published declarations, the latest one's id; 0 when none), errata included."""
        published = [d for d in self.declarations if d.status == DeclStatus.PUBLISHED]
        return len(published), max((d.id for d in published), default=0)

    def post(self, post_id: int) -> StoredPost | None:
        """The stored post ``post_id`` of the topic, or None."""
        return next((p for p in self.posts if p.post_id == post_id), None)

    def posts_after(self, post_id: int) -> tuple[StoredPost, ...]:
        """The stored posts with an id above ``post_id``, by post id."""
        return tuple(p for p in self.posts if p.post_id > post_id)

    def with_posts(self, posts: Sequence[StoredPost]) -> DuelRecords:
        """This snapshot with ``posts`` stored or replaced (by post id): what the referee
        itself just recorded, without reading the table again."""
        merged = {p.post_id: p for p in self.posts}
        merged.update((p.post_id, p) for p in posts)
        return replace(self, seen=tuple(merged[k] for k in sorted(merged)))

    def with_duel(self, duel: Duel) -> DuelRecords:
        """This snapshot with the duel row the referee itself just updated."""
        return replace(self, duel=duel)


def declaration_row(
    *,
    duel_id: int,
    turn: int,
    kind: str,
    key: str,
    marker: str,
    text: str,
    context_json: str,
    status: str,
    publish_after: str | None,
    at: str,
) -> dict[str, Any]:
    """A new ``declarations`` row (no id yet): never edited, no override, no waive, no
    attempt, version 1. ``at``: ISO time of creation; ``marker``: the text the bot's post
    carries (``forumbot.publish.render.marker_text(key)``); ``publish_after``: ISO time the
    review delay ends (None: only on approval, or already ``approved``)."""
    return {
        "duel_id": duel_id,
        "turn": turn,
        "kind": kind,
        "idempotency_key": key,
        "status": status,
        "text": text,
        "text_edited": 0,
        "context_json": context_json,
        "overrides_json": "{}",
        "waived_json": "[]",
        "marker": marker,
        "created_at": at,
        "updated_at": at,
        "publish_after": publish_after,
        "attempts": 0,
        "version": 1,
    }


__all__ = [
    "DICE_REQUEST",
    "declaration_row",
    "is_dice_request",
    "EDITABLE",
    "REDRAFTABLE",
    "DeclStatus",
    "Declaration",
    "Duel",
    "DuelRecords",
    "StoredPost",
]
