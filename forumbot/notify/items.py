"""What one notice says, read from the database when it is sent (not when it was queued).

A notice names its subject (``target``): a declaration, a violation or a referee task. At send
time :func:`describe` reads it again, so a gathered owl says when a draft publishes *now* (it
may have been taken or held since), and a notice whose subject no longer waits (the draft went
out, the violation was decided, the task closed) is dropped instead of sent.

Kinds (issue 18, "who is told, and what"):

- ``draft_waiting``: a new draft awaits the duel's referees (admins when it has none);
- ``draft_held``: the bot held a draft (it cannot decide alone);
- ``draft_claimed``: a referee took a draft (« je m'en occupe »): the others are told;
- ``violation_waiting``: a violation awaits an admin's decision;
- ``task_opened``: a 2v2 referee task (owl asking details, mechanism) was opened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.notify.settings import NotifyConfig
from forumbot.publish.labels import rule_label
from forumbot.storage import Storage

KINDS = ("draft_waiting", "draft_held", "draft_claimed", "violation_waiting", "task_opened")
PENDING_DRAFT = ("draft", "held")


@dataclass(frozen=True)
class Item:
    """One line of a notice, for the templates (all French, player text neutralised there).

    Attributes:
        kind: one of :data:`KINDS`.
        duel: the duel's title (or "sujet <topic id>"); duel_id: its id.
        turn: "tour 3" / "ouverture" / "" (no turn).
        what: what waits (e.g. "le brouillon de la déclaration").
        when: when it publishes by itself ("" when that does not apply).
        link: the review page's link (absolute when ``review_url`` is set).
        detail: a short extra (who took the draft, the rule, why it is held).
    """

    kind: str
    duel: str
    duel_id: int
    turn: str
    what: str
    when: str
    link: str
    detail: str = ""


def local_text(ts: str | datetime, cfg: NotifyConfig) -> str:
    """``"le 30/11 à 13:10"`` in the board's timezone."""
    moment = datetime.fromisoformat(ts) if isinstance(ts, str) else ts
    local = moment.astimezone(cfg.tz)
    return f"le {local:%d/%m} à {local:%H:%M}"


def _duel(storage: Storage, duel_id: int) -> dict[str, Any] | None:
    rows = list(storage.db["duels"].rows_where("id = ?", [duel_id]))
    return rows[0] if rows else None


def _duel_title(duel: dict[str, Any]) -> str:
    return str(duel["title"] or f"sujet {duel['topic_id']}")


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


def describe(
    storage: Storage, notice: dict[str, Any], cfg: NotifyConfig, now: datetime
) -> Item | None:
    """The :class:`Item` of a notice row as things stand, or None when its subject no longer
    waits (then the notice is dropped)."""
    facts = json.loads(notice["facts_json"] or "{}")
    duel = _duel(storage, int(notice["duel_id"]))
    if duel is None:
        return None
    title = _duel_title(duel)
    kind = notice["kind"]
    target_kind, _, target_id = str(notice["target"]).partition(":")
    if target_kind == "declaration":
        rows = list(storage.db["declarations"].rows_where("id = ?", [int(target_id)]))
        if not rows or rows[0]["status"] not in PENDING_DRAFT:
            return None
        decl = rows[0]
        turn = f"tour {decl['turn']}" if decl["kind"] == "turn" else "ouverture"
        detail = ""
        if kind == "draft_held":
            what = "un brouillon retenu par le bot"
            detail = str(decl["last_error"] or "")
        elif kind == "draft_claimed":
            if decl.get("claimed_by") != facts.get("by"):
                return None  # released (or taken by someone else) since
            what = "un brouillon pris en charge"
            detail = f"{facts.get('by')} s'en occupe"
        else:
            what = "un brouillon de déclaration à relire"
        return Item(
            kind,
            title,
            int(duel["id"]),
            turn,
            what,
            publish_when(decl, now, cfg),
            cfg.link(f"/drafts/{decl['id']}"),
            detail,
        )
    if target_kind == "violation":
        undecided = list(
            storage.db["violations"].rows_where(
                "duel_id = ? and turn = ? and duellist = ? and rule = ? "
                "and status in ('proposed', 'applied', 'waived')",
                [duel["id"], notice["turn"], facts.get("duellist"), facts.get("rule")],
            )
        )
        if not undecided:
            return None
        return Item(
            kind,
            title,
            int(duel["id"]),
            f"tour {notice['turn']}",
            "une violation à confirmer ou rejeter",
            "",
            cfg.link(f"/violations?duel={duel['id']}"),
            f"{facts.get('duellist')} : {rule_label(str(facts.get('rule') or ''))}",
        )
    if target_kind == "referee_task":
        rows = list(storage.db["referee_tasks"].rows_where("id = ?", [int(target_id)]))
        if not rows or rows[0]["status"] != "open":
            return None
        task = rows[0]
        what = (
            "un mécanisme à juger"
            if task["kind"] == "mechanism"
            else "un hibou de duelliste demandant des détails"
        )
        return Item(
            kind,
            title,
            int(duel["id"]),
            "",
            what,
            "",
            cfg.link("/tasks"),
            str(task["subject"] or ""),
        )
    return None


__all__ = ["KINDS", "Item", "describe", "local_text", "publish_when"]
