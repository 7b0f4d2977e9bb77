"""Typed rows the referee loop passes around: frozen dataclasses read once per poll per duel.

A row of ``duels`` becomes a :class:`Duel`, a row of ``declarations`` a :class:`Declaration`,
a row of ``posts_seen`` a :class:`StoredPost`; each ``from_row(row)`` takes the ``dict`` that
:class:`forumbot.storage.Storage` returns and decodes the JSON columns once (``state_json`` ->
``Duel.state``, ``context_json`` -> ``Declaration.stored``, ...). They are snapshots: a field
never changes under a flow that holds one; storage writes go through :class:`Storage` and the
next poll reads a new snapshot.

:class:`DeclStatus` names the life of a declaration (``draft`` -> ``approved`` ->
``publishing`` -> ``published``; ``held`` waits for a referee; ``cancelled``); :data:`EDITABLE`
is the tuple of statuses a draft may still be rewritten in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class DeclStatus(StrEnum):
    """Statuses of a declaration row (``declarations.status``)."""

    DRAFT = "draft"
    APPROVED = "approved"
    HELD = "held"
    PUBLISHING = "publishing"
    PUBLISHED = "published"
    CANCELLED = "cancelled"


EDITABLE: tuple[str, ...] = (
    DeclStatus.DRAFT.value,
    DeclStatus.APPROVED.value,
    DeclStatus.HELD.value,
)
"""A draft in one of these statuses may still be recomputed, edited or cancelled."""


def _loads(raw: str | None, default: Any) -> Any:
    return json.loads(raw) if raw else default


@dataclass(frozen=True)
class Duel:
    """One ``duels`` row.

    ``state`` is ``state_json`` decoded (a :meth:`rules.DuelState.to_dict` dict; ``{}`` for an
    ignored topic). ``ruleset`` is the ruleset name (``"classic"``, ``"fatigue"`` or a TOML
    path). ``status``: ``open`` (opening drafted), ``running``, ``finished`` or ``ignored``.
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
    ``inputs``, ``outcome``), ``overrides`` and ``waived`` the referee's decisions."""

    id: int
    duel_id: int
    turn: int
    kind: str
    idempotency_key: str
    status: str
    text: str
    text_edited: bool
    stored: dict[str, Any] = field(default_factory=dict, compare=False)
    overrides: dict[str, Any] = field(default_factory=dict, compare=False)
    waived: list[list[str]] = field(default_factory=list, compare=False)
    last_error: str | None = None
    published_post_id: int | None = None
    published_at: str | None = None
    version: int = 1

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
            stored=_loads(row.get("context_json"), {}),
            overrides=_loads(row.get("overrides_json"), {}),
            waived=_loads(row.get("waived_json"), []),
            last_error=row.get("last_error"),
            published_post_id=row.get("published_post_id"),
            published_at=row.get("published_at"),
            version=int(row.get("version") or 1),
        )

    @property
    def inputs(self) -> dict[str, Any]:
        """What the engine was given (``{}`` for an opening or a relaunch)."""
        return dict(self.stored.get("inputs") or {})

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
        )


__all__ = ["EDITABLE", "DeclStatus", "Declaration", "Duel", "StoredPost"]
