"""What one notice says, read from the database when it is sent (not when it was queued).

A notice names its subject (``target``): a declaration, a violation or a referee task. At send
time :func:`explain` reads it again, so a gathered owl says when a draft publishes *now* (it
may have been taken or held since). A subject that no longer waits is either said as it is or
dropped (issue 23: a notice is not dropped merely because its draft went out):

- a draft **published by itself** (nobody approved it: the bot was down, quiet hours, a
  delay of 0) -> sent, saying « déjà publiée le …, sans relecture », with a link to the post;
- a draft approved by a person (published or about to be), a draft cancelled or dropped, a
  declaration row gone, a violation decided, a task closed -> dropped, the reason in the log
  and in the notice's ``last_error`` (« gone » when the row is missing or cancelled).

Kinds (issue 18, "who is told, and what"):

- ``draft_waiting``: a new draft awaits the duel's referees (admins when it has none);
- ``draft_held``: a draft is held; the notice says who held it (the referee's name from the
  audit log, or « le bot » with the reason in French, :func:`forumbot.publish.reasons.
  reason_fr`);
- ``draft_claimed``: a referee took a draft (« je m'en occupe »): the others are told;
- ``violation_waiting``: a violation awaits an admin's decision;
- ``task_opened``: a referee task was opened (an owl asking details, a mechanism, a sign-up
  to read: that one has no duel, goes to the admins and links the sign-up post).

Turns are named as players name them (:func:`forumbot.publish.reasons.turn_label`): the
opening is « ouverture », never « tour 0 ».
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.notify.settings import NotifyConfig
from forumbot.publish.labels import rule_label
from forumbot.publish.reasons import reason_fr, task_kind_fr, turn_label
from forumbot.storage import Storage

KINDS = ("draft_waiting", "draft_held", "draft_claimed", "violation_waiting", "task_opened")
PENDING_DRAFT = ("draft", "held")
BOT = "forumbot"


@dataclass(frozen=True)
class Item:
    """One line of a notice, for the templates (all French, player text neutralised there).

    Attributes:
        kind: one of :data:`KINDS`, or ``draft_published`` (a draft that went out by itself
            before its notice).
        duel: the duel's title (or "sujet <topic id>"; for a task without duel, what it is
            about: « Inscription de Nerys »); duel_id: its id (0 without duel).
        turn: "tour 3" / "ouverture" / "" (no turn).
        what: what waits (e.g. "un brouillon de déclaration à relire").
        when: when it publishes by itself ("" when that does not apply).
        link: the review page's link (absolute when ``review_url`` is set).
        detail: a short extra (who took or held the draft, the rule, why it is held).
        post_link: a link to a post on the board ("" = none): the sign-up post of a sign-up
            task, the published declaration.
    """

    kind: str
    duel: str
    duel_id: int
    turn: str
    what: str
    when: str
    link: str
    detail: str = ""
    post_link: str = ""


def local_text(ts: str | datetime, cfg: NotifyConfig) -> str:
    """``"le 30/11 à 13:10"`` in the board's timezone."""
    moment = datetime.fromisoformat(ts) if isinstance(ts, str) else ts
    local = moment.astimezone(cfg.tz)
    return f"le {local:%d/%m} à {local:%H:%M}"


def _one(storage: Storage, table: str, row_id: object) -> dict[str, Any] | None:
    if row_id is None:
        return None
    return storage.notices.row(table, int(str(row_id)))


def _duel_title(duel: dict[str, Any]) -> str:
    return str(duel["title"] or f"sujet {duel['topic_id']}")


def post_link(storage: Storage, board_id: object, post_id: object, topic_id: object = None) -> str:
    """A link to one post on the board ("" when the board or post is unknown): phpBB
    ``viewtopic.php?p=N#pN``; Forumactif ``/t<topic>-a#N`` (``/viewtopic?p=N#N`` when the
    topic is unknown)."""
    board = _one(storage, "boards", board_id) if board_id is not None else None
    if board is None or post_id is None:
        return ""
    base, post = str(board["url"]).rstrip("/"), int(str(post_id))
    if board["platform"] == "forumactif":
        if topic_id is not None:
            return f"{base}/t{int(str(topic_id))}-a#{post}"
        return f"{base}/viewtopic?p={post}#{post}"
    return f"{base}/viewtopic.php?p={post}#p{post}"


def publish_when(decl: dict[str, Any], now: datetime, cfg: NotifyConfig) -> str:
    """When a pending declaration publishes by itself, in French."""
    if decl["status"] == "held":
        return "ne part pas sans la décision d'un arbitre"
    claimed = decl.get("claimed_by")
    until = decl.get("claim_until") or ""
    if claimed and until > now.isoformat():
        return f"pris par {claimed} : attend sa décision (au plus tard {local_text(until, cfg)})"
    if not decl["publish_after"]:
        return "publié seulement sur approbation (mode manuel)"
    if decl["publish_after"] <= now.isoformat():
        return "part tout seul au prochain passage"
    return f"part tout seul {local_text(decl['publish_after'], cfg)}"


def last_decision(storage: Storage, decl_id: int) -> tuple[str, str] | None:
    """``(actor, action)`` of the draft's last ``draft.*`` audit line (None: none yet)."""
    return storage.notices.last_decision(f"declaration:{decl_id}")


def held_by(storage: Storage, decl: dict[str, Any]) -> str | None:
    """Who holds a ``held`` draft: the person whose « Retenir » is its last decision, None
    when the bot held it."""
    last = last_decision(storage, int(decl["id"]))
    if last and last[1] == "draft.held" and last[0] != BOT:
        return last[0]
    return None


def _approved_by(storage: Storage, decl_id: int) -> str | None:
    return storage.notices.approved_by(f"declaration:{decl_id}", BOT)


def _declaration(
    storage: Storage, notice: dict[str, Any], facts: dict[str, Any], duel: dict[str, Any],
    decl_id: int, cfg: NotifyConfig, now: datetime,
) -> Item | str:  # fmt: skip
    decl = _one(storage, "declarations", decl_id)
    if decl is None:
        return f"gone: declaration {decl_id} no longer exists"
    kind, status = str(notice["kind"]), str(decl["status"])
    turn = turn_label(decl["turn"], decl["kind"])
    title, link = _duel_title(duel), cfg.link(f"/drafts/{decl['id']}")
    if status in ("cancelled", "dropped"):
        return f"gone: declaration {decl_id} was {status} ({decl['last_error'] or 'no reason'})"
    if status not in PENDING_DRAFT:
        approver = _approved_by(storage, decl_id)
        if approver is not None:
            return f"declaration {decl_id} {status}: approved by {approver}"
        if status not in ("published", "publishing") or kind == "draft_claimed":
            return f"declaration {decl_id} is {status}: no longer waits"
        when = (
            f"déjà publiée {local_text(decl['published_at'], cfg)}, avant ce message"
            if decl["published_at"]
            else "en cours de publication"
        )
        return Item(
            "draft_published", title, int(duel["id"]), turn,
            "une déclaration partie toute seule, sans relecture", when, link, "",
            post_link(storage, duel["board_id"], decl["published_post_id"], duel["topic_id"]),
        )  # fmt: skip
    detail = ""
    if kind == "draft_claimed":
        if decl.get("claimed_by") != facts.get("by"):
            return "claim released or taken by someone else since"
        what = "un brouillon pris en charge"
        detail = f"{facts.get('by')} s'en occupe"
    elif status == "held":
        holder = held_by(storage, decl)
        if holder is not None:
            what = f"un brouillon retenu par {holder}"
        else:
            what = "un brouillon retenu par le bot"
            detail = reason_fr(decl["last_error"]) or "il ne peut pas décider seul"
    else:
        what = "un brouillon de déclaration à relire"
    return Item(kind, title, int(duel["id"]), turn, what, publish_when(decl, now, cfg), link,
                detail)  # fmt: skip


def _task(
    storage: Storage, duel: dict[str, Any] | None, task_id: int, cfg: NotifyConfig
) -> Item | str:
    task = _one(storage, "referee_tasks", task_id)
    if task is None:
        return f"gone: referee task {task_id} no longer exists"
    if task["status"] != "open":
        return f"referee task {task_id} is {task['status']}"
    what = task_kind_fr(task["kind"])
    subject = str(task["subject"] or "")
    link = ""
    if duel is not None:
        title, duel_id = _duel_title(duel), int(duel["id"])
    elif task["kind"] == "signup_unsure":
        title, duel_id = f"Inscription de {task['duellist'] or '?'}", 0
        topic = storage.notices.signup_topic(task["board_id"], task["post_id"])
        link = post_link(storage, task["board_id"], task["post_id"], topic)
        subject = str(task["note"] or "")  # the doubts, already French (club.signup_checks)
    elif task["duel_id"] is not None:
        title, duel_id = f"duel n°{task['duel_id']} (introuvable)", 0
    else:
        title, duel_id = "Arbitrage", 0
    return Item("task_opened", title, duel_id, "", what, "", cfg.link("/tasks"), subject, link)


def explain(
    storage: Storage, notice: dict[str, Any], cfg: NotifyConfig, now: datetime
) -> Item | str:
    """The :class:`Item` of a notice row as things stand, or why it is dropped (English, for
    the log and the notice's ``last_error``; starts with ``gone:`` when its subject no
    longer exists). Raises on a row it cannot read (the caller reports it once)."""
    facts = json.loads(notice["facts_json"] or "{}")
    duel = _one(storage, "duels", notice["duel_id"])
    target_kind, _, target_id = str(notice["target"]).partition(":")
    if target_kind == "referee_task":
        return _task(storage, duel, int(target_id), cfg)
    if duel is None:
        return f"gone: duel {notice['duel_id']} no longer exists"
    if target_kind == "declaration":
        return _declaration(storage, notice, facts, duel, int(target_id), cfg, now)
    if target_kind == "violation":
        undecided = storage.notices.undecided_violation(
            duel["id"], notice["turn"], facts.get("duellist"), facts.get("rule")
        )
        if not undecided:
            return "violation decided since"
        return Item(
            str(notice["kind"]), _duel_title(duel), int(duel["id"]),
            turn_label(notice["turn"]), "une violation à confirmer ou rejeter", "",
            cfg.link(f"/violations?duel={duel['id']}"),
            f"{facts.get('duellist')} : {rule_label(str(facts.get('rule') or ''))}",
        )  # fmt: skip
    return f"unknown subject {notice['target']!r}"


def describe(
    storage: Storage, notice: dict[str, Any], cfg: NotifyConfig, now: datetime
) -> Item | None:
    """The :class:`Item` of a notice row as things stand, or None when it is dropped
    (:func:`explain` says why)."""
    found = explain(storage, notice, cfg, now)
    return found if isinstance(found, Item) else None


__all__ = [
    "KINDS",
    "Item",
    "describe",
    "explain",
    "held_by",
    "last_decision",
    "local_text",
    "post_link",
    "publish_when",
]
