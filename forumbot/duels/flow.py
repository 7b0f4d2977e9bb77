"""What every ruleset flow is given and must offer: the :class:`FlowContext` and :class:`DuelFlow`.

A flow (:mod:`forumbot.duels.classic`, :mod:`forumbot.duels.fatigue`, :mod:`forumbot.duels.duo`)
decides what a duel's recorded posts call for and returns :class:`Draft` records; the referee
loop (:mod:`forumbot.duels.referee`) stores them through the context's :class:`DraftWriter`.
A flow never imports the referee: everything it needs comes in the context (storage, forum
client, clock, rng, the board's :class:`FlowSettings`, the duel's ruleset loaded once, a
:class:`DraftWriter` and a :class:`DiceSource`). The registry that picks a duel's flow is
:data:`forumbot.duels.flows.FLOWS`.

Dice (seed 000: two "Duel" d6 per post; seed 001: one d6 « Pari »): on a board where the bot
rolls, :meth:`DiceSource.roll` derives them from the duel's secret seed
(:func:`rules.dice.derive_roll`: the duel key ``<platform>:<topic id>``, the turn, the post
id, the dice name, the count) and records them in ``dice_rolls`` (verifiable once the seed is
revealed); on a board that rolls its own (Forumactif Game Master posts) the forum's dice on
the stored post are used (:func:`forum_dice`) and a post lacking them holds the draft
(:data:`MISSING_DICE`, issue 3: "the bot never invents dice on a board that rolls its own").
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Protocol, runtime_checkable

from forumbot.duels.dice_request import drop_dice_request
from forumbot.forums.base import ForumClient
from forumbot.publish.render import marker_text, render
from forumbot.storage import Storage, iso
from forumbot.storage.records import (
    DICE_REQUEST,
    EDITABLE,
    Declaration,
    DeclStatus,
    Duel,
    DuelRecords,
    StoredPost,
    declaration_row,
)
from parsers.text import fold
from rules.dice import derive_roll
from rules.ruleset import Ruleset

log = logging.getLogger("forumbot.duels.flow")

MISSING_DICE = "missing_dice: waiting for the forum's dice"
"""``last_error`` of a draft held because a post lacks the forum's dice."""



@dataclass(frozen=True)
class FlowSettings:
    """The board's referee settings a flow reads (from the config, through ``bootstrap``).

    ``review_delay_s``: seconds before a draft is published, or ``"manual"``.
    ``forum_rolls_dice``: the forum rolls the dice (Forumactif); ``dice_name`` the forum dice
    to read (default the ruleset's). ``full_reread_every``: every N-th read of a duel watching
    edits reads the whole topic. ``owl_reminders``: send owl reminders before deadlines.
    ``timezone``: ``board.timezone``, for the deadlines players read; ``board_url``: the
    board's address, for links to posts (:attr:`post_link`). ``verify_docs_url``: the page
    the declarations link « l'outil de vérification » to ("" = no link).
    """

    board_id: int
    platform: str
    ruleset_name: str = "classic"
    review_delay_s: int | str = 600
    language: str = "fr"
    referee_name: str = "L'arbitre"
    bot_username: str = ""
    forum_rolls_dice: bool = False
    dice_name: str | None = None
    watch_edits: bool = True
    full_reread_every: int = 10
    owl_reminders: bool = True
    timezone: str = "Europe/Paris"
    board_url: str = ""
    verify_docs_url: str = ""

    @property
    def post_link(self) -> str:
        """The address of a post on this board, ``{id}`` standing for its id (phpBB
        ``…/viewtopic.php?p={id}#p{id}``; Forumactif ``…/viewtopic?p={id}#{id}``, the
        permalink of fixtures/forumactif/REPORT.md without its topic); "" when unknown."""
        if not self.board_url:
            return ""
        base = self.board_url.rstrip("/")
        if self.platform == "forumactif":
            return base + "/viewtopic?p={id}#{id}"
        return base + "/viewtopic.php?p={id}#p{id}"

    @property
    def dice_source(self) -> str:
        """``"forum"`` when the forum rolls the dice, else ``"bot"``."""
        return "forum" if self.forum_rolls_dice else "bot"


@dataclass(frozen=True)
class Draft:
    """A declaration a flow wants stored (the writer inserts or updates it by its key).

    ``what`` is the key's tail (``opening``, ``turn3``, ``turn3-defense``, ``closure``, ...);
    ``kind`` the row's kind (``opening``, ``turn``, ``relaunch``, ``closure``); ``context`` the
    template context, ``inputs`` what the engine was given and ``outcome`` its result (a dict),
    stored together in ``context_json``. ``hold``: hold the draft for the referee with that
    reason (``hold_over``: even when it is held already for another reason).
    """

    turn: int
    kind: str
    what: str
    text: str
    context: dict[str, Any]
    inputs: dict[str, Any] | None = None
    outcome: dict[str, Any] | None = None
    hold: str | None = None
    hold_over: bool = False


def _same_deadline(draft: Draft, before: dict[str, Any] | None) -> Draft:
    """``draft`` dated like the stored row it redrafts: a draft rendered again at the next
    poll keeps the deadline phrase it had (the poster dates it from the real publication,
    :func:`forumbot.publish.deadline_text.redate`), so an unchanged draft stays unchanged."""
    if before is None or not draft.context.get("deadline"):
        return draft
    try:
        old = json.loads(before.get("context_json") or "{}").get("context") or {}
    except (TypeError, ValueError):
        return draft
    old_phrase, new_phrase = old.get("deadline"), draft.context["deadline"]
    if not old_phrase or old_phrase == new_phrase or new_phrase not in draft.text:
        return draft
    context = {**draft.context, "deadline": old_phrase, "planned_at": old.get("planned_at")}
    return replace(draft, text=draft.text.replace(new_phrase, old_phrase), context=context)


def forum_dice(
    row: StoredPost | dict[str, Any], dice_name: str, count: int
) -> tuple[int, ...] | None:
    """The first ``count`` values of the forum dice named like ``dice_name`` on a stored post
    (a record, or a ``posts_seen`` row; accent/case-insensitive containment: "Dé du Duel"
    matches "Duel"), in roll order; None when fewer are there."""
    wanted = fold(dice_name)
    values: list[int] = []
    for roll in StoredPost.of(row).dice:
        if wanted in fold(roll["name"]):
            values.extend(int(v) for v in roll["values"])
    return tuple(values[:count]) if len(values) >= count else None


class DiceSource:
    """The dice of a duel's posts: derived from its seed, or the forum's (see module doc)."""

    def __init__(
        self, storage: Storage, settings: FlowSettings, now: Callable[[], datetime]
    ) -> None:
        self.storage = storage
        self.settings = settings
        self.now = now

    def duel_key(self, duel: Duel) -> str:
        """The duel's derivation key, ``<platform>:<topic id>``."""
        return f"{self.settings.platform}:{duel.topic_id}"

    def roll(self, duel: Duel, turn: int, post_id: int, name: str, count: int) -> tuple[int, ...]:
        """Derive and record a post's dice (recorded once; the same inputs give the same roll)."""
        key = self.duel_key(duel)
        values = derive_roll(duel.secret, key, turn, post_id, name, count)
        self.storage.duel_rows.insert_roll_once(
            {
                "duel_id": duel.id,
                "turn": turn,
                "post_id": post_id,
                "name": name,
                "values_json": json.dumps(list(values)),
                "source": "bot",
                "derivation": f"hmac-sha256 v1 {key}|{turn}|{post_id}|{name}",
                "rolled_at": iso(self.now()),
            }
        )
        return values

    def record_forum(
        self, duel: Duel, turn: int, post_id: int, name: str, values: tuple[int, ...]
    ) -> tuple[int, ...]:
        """Record dice the forum rolled for a post (source ``forum``)."""
        self.storage.duel_rows.replace_roll(
            {
                "duel_id": duel.id,
                "turn": turn,
                "post_id": post_id,
                "name": name,
                "values_json": json.dumps(list(values)),
                "source": "forum",
                "derivation": "rolled by the forum (Game Master post)",
                "rolled_at": iso(self.now()),
            }
        )
        return values

    def for_post(
        self, duel: Duel, ruleset: Ruleset, turn: int, post: StoredPost, count: int
    ) -> tuple[int, ...] | None:
        """The ``count`` dice of the stored ``post`` in ``turn`` (named like the ruleset's
        ``dice_name``): rolled by the bot, or the forum's (None when the post lacks them)."""
        if self.settings.forum_rolls_dice:
            values = forum_dice(post, self.settings.dice_name or ruleset.dice_name, count)
            if values is None:
                return None
            return self.record_forum(duel, turn, post.post_id, ruleset.dice_name, values)
        return self.roll(duel, turn, post.post_id, ruleset.dice_name, count)


class DraftWriter:
    """Stores drafts by idempotency key ``b<board>t<topic>-<what>`` (the marker's key).

    A draft already published (or publishing, cancelled) is left alone; one whose stored
    context and text did not change is left alone too (a referee's open form, approval or
    text edit is never disturbed by a re-poll); one the referee rewrote is held when its
    inputs change.
    """

    def __init__(
        self, storage: Storage, settings: FlowSettings, now: Callable[[], datetime]
    ) -> None:
        self.storage = storage
        self.settings = settings
        self.now = now
        self.changed = False  # did the last write insert or change a row? (logged once)

    def key(self, duel: Duel, what: str) -> str:
        """The idempotency key of the duel's draft ``what``."""
        return f"b{self.settings.board_id}t{duel.topic_id}-{what}"

    def existing(self, duel: Duel, what: str) -> Declaration | None:
        """The stored declaration ``what`` of the duel, or None."""
        row = self.storage.declaration_by_key(self.key(duel, what))
        return Declaration.from_row(row) if row is not None else None

    def write(self, duel: Duel, draft: Draft) -> int:
        """Insert or update ``draft``, then hold or release it; returns the declaration id.

        A draft written without ``hold`` releases a :data:`MISSING_DICE` hold (the dice came;
        a row drafted before the request had its own key); on a board rolling its own dice
        any draft but a dice request cancels the step's unpublished dice request (``what`` +
        :data:`DICE_REQUEST`: :func:`forumbot.duels.dice_request.drop_dice_request`).
        Afterwards :attr:`changed` tells whether a row was inserted or changed (a pending
        draft rendered again, unchanged, on every poll is not news: the referee logs and
        counts only changes).
        """
        # The write path reads the one row it writes (by its key), fresh: a referee may have
        # approved or edited it since the snapshot; everything after is derived, not re-read.
        before = self.storage.declaration_by_key(self.key(duel, draft.what))
        draft = _same_deadline(draft, before)
        decl_id, row = self._upsert(duel, draft, before)
        if draft.hold is not None:
            if row["status"] in EDITABLE and (row["status"] != "held" or draft.hold_over):
                hold = {"status": "held", "last_error": draft.hold}
                self.storage.update_row("declarations", {"id": decl_id}, hold)
                row = {**row, **hold}
        elif row["status"] == "held" and row["last_error"] == MISSING_DICE:
            release = {"status": "draft", "last_error": None}
            self.storage.update_row("declarations", {"id": decl_id}, release)
            row = {**row, **release}
        self.changed = before is None or before != row
        if draft.hold != MISSING_DICE and self.settings.forum_rolls_dice:
            dice_key = self.key(duel, draft.what + DICE_REQUEST)
            self.changed = drop_dice_request(self.storage, dice_key, self.now()) or self.changed
        return decl_id

    def upsert(self, duel: Duel, draft: Draft) -> int:
        """Insert or update the row keyed by ``draft.what`` (see the class doc)."""
        existing = self.storage.declaration_by_key(self.key(duel, draft.what))
        return self._upsert(duel, draft, existing)[0]

    def _upsert(
        self, duel: Duel, draft: Draft, existing: dict[str, Any] | None
    ) -> tuple[int, dict[str, Any]]:
        """Insert or update the row keyed by ``draft.what`` given its stored ``existing``
        row; returns (id, the row as written)."""
        now = self.now()
        key = self.key(duel, draft.what)
        delay = self.settings.review_delay_s
        publish_after = None if delay == "manual" else iso(now + timedelta(seconds=int(delay)))
        ctx_json = json.dumps(
            {"context": draft.context, "inputs": draft.inputs, "outcome": draft.outcome},
            ensure_ascii=False,
        )
        if existing is None:
            inserted = declaration_row(
                duel_id=duel.id, turn=draft.turn, kind=draft.kind, key=key,
                marker=marker_text(key), text=draft.text, context_json=ctx_json,
                status="draft", publish_after=publish_after, at=iso(now),
            )  # fmt: skip
            decl_id = self.storage.duel_rows.insert_declaration(inserted)
            return decl_id, {**inserted, "id": decl_id, "last_error": None}
        if existing["status"] == DeclStatus.REDRAFT:
            return self._redraft(existing, draft, ctx_json, publish_after)
        if existing["status"] not in EDITABLE:
            return int(existing["id"]), existing
        if existing["context_json"] == ctx_json and (
            existing["text_edited"] or existing["text"] == draft.text
        ):
            return int(existing["id"]), existing
        changes: dict[str, Any] = {
            "context_json": ctx_json,
            "updated_at": iso(now),
            "version": existing["version"] + 1,
        }
        if existing["text_edited"]:
            # The inputs really changed (an edited post, new dice) after the referee rewrote
            # the text: their text may now be wrong, so it waits for them.
            if existing["status"] != "held":
                changes["status"] = "held"
                changes["last_error"] = (
                    "inputs changed after the referee edited the text: held for review"
                )
        else:
            changes["text"] = draft.text
        self.storage.update_row("declarations", {"id": existing["id"]}, changes)
        return int(existing["id"]), {**existing, **changes}


    def _redraft(
        self, existing: dict[str, Any], draft: Draft, ctx_json: str, publish_after: str | None
    ) -> tuple[int, dict[str, Any]]:
        """Draft again a row waiting in ``redraft`` (a referee dropped it or asked for it:
        :mod:`forumbot.duels.redraft`): the same row, so the same idempotency key and marker
        (one key per turn: never two posts for it), fresh from the flow's computation (no
        override, waive or hand-edited text), a new review delay; audit ``draft.redrafted``."""
        now = self.now()
        changes: dict[str, Any] = {
            "status": DeclStatus.DRAFT.value,
            "text": draft.text,
            "text_edited": 0,
            "context_json": ctx_json,
            "overrides_json": "{}",
            "waived_json": "[]",
            "last_error": None,
            "publish_after": publish_after,
            "claimed_by": None,
            "claim_until": None,
            "updated_at": iso(now),
            "version": existing["version"] + 1,
        }
        self.storage.update_row("declarations", {"id": existing["id"]}, changes)
        self.storage.audit(
            "forumbot", "draft.redrafted", f"declaration:{existing['id']}",
            {"status": existing["status"], "note": existing.get("last_error")},
            {"status": DeclStatus.DRAFT.value, "text": draft.text}, now,
        )  # fmt: skip
        log.info(
            "declaration %s (%s): drafted again from the posts (%s)",
            existing["id"], existing["idempotency_key"], existing.get("last_error") or "redraft",
        )  # fmt: skip
        return int(existing["id"]), {**existing, **changes}


@dataclass(frozen=True)
class FlowContext:
    """What a flow is given: the board's adapters and settings, the duel's ruleset and rows.

    ``ruleset`` is loaded once per duel per poll (:meth:`for_duel`); :attr:`rs` reads it.
    ``records`` is the duel's snapshot (:class:`~forumbot.storage.records.DuelRecords`: the
    duel, its declarations, its topic's stored posts), read once per poll by the referee;
    the flows and their helpers read declarations and posts from it
    (:meth:`records_of`), never from the tables. Writes go through ``storage``.
    """

    storage: Storage
    client: ForumClient
    now: Callable[[], datetime]
    rng: random.Random
    settings: FlowSettings
    drafts: DraftWriter
    dice: DiceSource
    ruleset: Ruleset | None = field(default=None)
    records: DuelRecords | None = field(default=None)

    @classmethod
    def build(
        cls,
        storage: Storage,
        client: ForumClient,
        now: Callable[[], datetime],
        rng: random.Random,
        settings: FlowSettings,
    ) -> FlowContext:
        """A context with its draft writer and dice source."""
        return cls(
            storage, client, now, rng, settings,
            DraftWriter(storage, settings, now), DiceSource(storage, settings, now),
        )  # fmt: skip

    def for_duel(self, ruleset: Ruleset, records: DuelRecords | None = None) -> FlowContext:
        """This context with the duel's ruleset and (when read) its snapshot."""
        return replace(self, ruleset=ruleset, records=records)

    def records_of(self, duel: Duel) -> DuelRecords:
        """The snapshot of ``duel``: :attr:`records` when it is this duel's, else the
        duel's rows read now (a caller outside the referee's poll: the CLI, a test)."""
        if self.records is not None and self.records.duel.id == duel.id:
            return self.records
        return self.storage.duel_records(duel.id)

    def existing(self, duel: Duel, what: str) -> Declaration | None:
        """The duel's declaration ``what`` as the snapshot holds it, or None."""
        return self.records_of(duel).by_key(self.drafts.key(duel, what))

    @property
    def rs(self) -> Ruleset:
        """The duel's ruleset (set by :meth:`for_duel`)."""
        if self.ruleset is None:
            raise RuntimeError("FlowContext.for_duel(ruleset) was not called")
        return self.ruleset

    @property
    def board_id(self) -> int:
        return self.settings.board_id

    def render(self, template: str, context: dict[str, Any]) -> str:
        """A template rendered in the board's language. A context with a deadline
        (``hours``) is dated from the draft's planned publication (now plus the review delay;
        now when drafts wait for a referee) in the board's timezone, in place
        (:func:`forumbot.publish.deadline_text.fill_deadline`; the poster moves it to the real
        publication time, :func:`forumbot.publish.deadline_text.redate`)."""
        if "hours" in context and "planned_at" not in context:
            delay = self.settings.review_delay_s
            wait = 0 if delay == "manual" else int(delay)
            context["planned_at"] = (self.now() + timedelta(seconds=wait)).isoformat()
            context.setdefault("timezone", self.settings.timezone)
        if self.settings.post_link:
            context.setdefault("post_link", self.settings.post_link)
        if self.settings.verify_docs_url:
            context.setdefault("verify_docs_url", self.settings.verify_docs_url)
        return render(template, context, self.settings.language)


class HasContext(Protocol):
    """Anything that gives a flow context (the referee: :meth:`Referee.context`)."""

    def context(self) -> FlowContext: ...


def context_of(source: FlowContext | HasContext) -> FlowContext:
    """``source`` itself when it is a context, else ``source.context()``."""
    return source if isinstance(source, FlowContext) else source.context()


def duellist_of(storage: Storage, duel_id: int, row: StoredPost | dict[str, Any]) -> str | None:
    """The duellist who wrote a stored post (a record, or a ``posts_seen`` row), or None
    (referee, spectator, look-alike).

    Names are matched case-insensitively, then bound to the forum account: the first
    post of a duellist that carries an author id records it, and later posts under the
    same display name from another account (a look-alike such as ``"Cassius  Thorne"``,
    shown as ``"Cassius Thorne"``) are not the duellist's.
    """
    post = StoredPost.of(row)
    author = (post.author or "").casefold()
    for d in storage.duellists(duel_id):
        if d["name"].casefold() != author:
            continue
        author_id = post.author_id
        if author_id is None:
            return str(d["name"])
        if d["user_id"] is None:
            storage.duel_rows.set_duellist_user(d["id"], author_id)
            return str(d["name"])
        if d["user_id"] == author_id:
            return str(d["name"])
        log.warning(
            "duel %s: post %s signed %r by account %s, not the duellist's account %s: ignored",
            duel_id,
            post.post_id,
            post.author,
            author_id,
            d["user_id"],
        )
        return None
    return None


def missing_dice_draft(
    ctx: FlowContext, duel: Duel, turn_no: int, missing: list[dict[str, Any]], dice_per_post: int,
    what: str | None = None, clock: dict[str, Any] | None = None,
) -> Draft:  # fmt: skip
    """A held draft saying which posts lack the forum's dice, asking the referee (issue 3).

    ``what`` names the step (default ``turn<N>``; fatigue steps pass theirs); the draft's key
    is ``what`` + :data:`DICE_REQUEST`, its kind ``notice``. A referee may publish it (it asks
    the duellist for a new message with the dice) or leave it held; when the dice appear the
    next poll writes the step's declaration under ``what`` and cancels this draft if it is
    still unpublished (:meth:`DraftWriter.write`).
    ``clock``: :func:`forumbot.duels.deadline_clock.deadline_clock` for a ruleset with
    deadlines (the post says until when, and whether the clock still runs); None for classic.
    """
    context = {
        "turn": turn_no,
        "missing": missing,
        "dice_name": ctx.settings.dice_name or ctx.rs.dice_name,
        "dice_per_post": dice_per_post,
        "referee_name": ctx.settings.referee_name,
        "clock": clock,
    }
    log.warning(
        "duel %s turn %s: dice missing for posts %s: held for the referee",
        duel.id,
        turn_no,
        ",".join(str(m["post_id"]) for m in missing),
    )
    return Draft(
        turn_no, "notice", (what or f"turn{turn_no}") + DICE_REQUEST,
        ctx.render("missing_dice.bbcode.j2", context), context, hold=MISSING_DICE,
    )  # fmt: skip


@dataclass(frozen=True)
class DeadlineSpec:
    """The deadline a published declaration starts (:mod:`forumbot.duels.deadlines`):
    ``phase`` (``awaiting_defense`` / ``awaiting_initiative``), who is ``expected``, how many
    ``relaunches`` came since the last post."""

    phase: str
    expected: list[str]
    relaunches: int = 0


@runtime_checkable
class DuelFlow(Protocol):
    """One ruleset kind's turn flow (registered in :data:`forumbot.duels.flows.FLOWS`).

    Attributes:
        name: the registry key (``"classic"``, ``"fatigue"``, ``"duo"``).
        watches_edits: running duels are re-read every poll (a late edit changes no post id).
        timeout_kind: ``"1v1"`` / ``"2v2"`` (the silence delay), None without deadlines.
        opening_template, relaunch_template: templates of the opening and of a relaunch.
    """

    name: str
    watches_edits: bool
    timeout_kind: str | None
    opening_template: str
    relaunch_template: str

    def read_from(self, ctx: FlowContext, duel: Duel, reads: int) -> int | None:
        """The post id to read the topic from (None: all of it); ``reads``: earlier reads."""
        ...

    def advance(self, ctx: FlowContext, duel: Duel) -> list[Draft]:
        """The drafts the duel's recorded posts call for now (often none); the declarations
        and posts are read from ``ctx.records`` (:meth:`FlowContext.records_of`)."""
        ...

    def on_published(self, storage: Storage, duel: Duel, decl: Declaration, now: datetime) -> bool:
        """Advance the duel once ``decl`` is out (in the publication's transaction); True when
        a deadline should start from it."""
        ...

    def recompute(
        self, storage: Storage, duel: Duel, decl: Declaration, overrides: dict[str, Any],
        waived: list[list[str]], language: str,
    ) -> tuple[dict[str, Any], str]:  # fmt: skip
        """Re-run a turn draft's step with the referee's decisions: (stored context, text).
        Raises rules.RuleError."""
        ...

    def sync_violations(
        self, storage: Storage, decl: Declaration, outcome: dict[str, Any], now: datetime
    ) -> None:
        """Store a recomputed draft's violations."""
        ...

    def deadline_for(self, storage: Storage, duel: Duel, decl: Declaration) -> DeadlineSpec:
        """The deadline the published ``decl`` starts (flows with a ``timeout_kind``)."""
        ...


__all__ = [
    "DICE_REQUEST",
    "MISSING_DICE",
    "DeadlineSpec",
    "DiceSource",
    "Draft",
    "DraftWriter",
    "DuelFlow",
    "FlowContext",
    "FlowSettings",
    "HasContext",
    "context_of",
    "duellist_of",
    "forum_dice",
    "missing_dice_draft",
]
