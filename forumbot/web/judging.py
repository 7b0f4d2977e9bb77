"""Admins' review of violation reports: filter, confirm or dismiss (with a reason), CSV.

RULES.md, Referee and admin: "admins review the violation reports afterwards and may confirm
or dismiss each: a dismissed violation gives back its penalty and no longer counts toward
three." Here a decision is recorded on the ``violations`` row (``status`` ``confirmed`` or
``dismissed``, ``decided_by``, ``reason``) and in the audit log; the rules engine reads
dismissed rows when it counts violations.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from forumbot.duels.violations import carry_decision
from forumbot.storage import Storage, iso

DECISIONS = ("confirmed", "dismissed")
STATUSES = ("proposed", "applied", "waived", "confirmed", "dismissed")
CSV_COLUMNS = (
    "id",
    "duel_id",
    "turn",
    "duellist",
    "rule",
    "post_id",
    "evidence",
    "penalty",
    "status",
    "decided_by",
    "reason",
    "created_at",
    "updated_at",
)


class JudgingError(Exception):
    """A decision was refused (message in English says why)."""


@dataclass(frozen=True)
class ViolationFilter:
    """Filters of the violations list; None or "" means any.

    Attributes:
        duel_id: one duel.
        duellist: exact duellist name (case-insensitive).
        rule: rule code, e.g. ``"repeated_spell"``.
        status: one of :data:`STATUSES`.
    """

    duel_id: int | None = None
    duellist: str | None = None
    rule: str | None = None
    status: str | None = None


def query_violations(
    storage: Storage, flt: ViolationFilter, visible_duels: Iterable[int] | None
) -> list[dict[str, Any]]:
    """Violation rows matching ``flt`` among ``visible_duels`` (None: all), newest first."""
    where: list[str] = []
    args: list[Any] = []
    if visible_duels is not None:
        ids = sorted(set(visible_duels))
        if not ids:
            return []
        where.append(f"duel_id in ({','.join('?' * len(ids))})")
        args.extend(ids)
    if flt.duel_id is not None:
        where.append("duel_id = ?")
        args.append(flt.duel_id)
    if flt.duellist:
        where.append("duellist = ? collate nocase")
        args.append(flt.duellist)
    if flt.rule:
        where.append("rule = ?")
        args.append(flt.rule)
    if flt.status:
        where.append("status = ?")
        args.append(flt.status)
    return list(
        storage.db.table("violations").rows_where(
            " and ".join(where) or None, args, order_by="id desc"
        )
    )


def distinct_values(
    storage: Storage, column: str, visible_duels: Iterable[int] | None
) -> list[str]:
    """Sorted distinct non-empty values of ``duellist`` or ``rule`` (for the filter menus)."""
    if column not in ("duellist", "rule"):
        raise ValueError(column)
    rows = query_violations(storage, ViolationFilter(), visible_duels)
    return sorted({str(r[column]) for r in rows if r[column]})


def decide_violation(
    storage: Storage,
    violation_id: int,
    decision: str,
    reason: str,
    actor: str,
    now: datetime,
) -> dict[str, Any]:
    """Confirm or dismiss a violation; returns the updated row.

    Raises:
        JudgingError: unknown violation or decision, or an empty reason.
    """
    if decision not in DECISIONS:
        raise JudgingError(f"unknown decision {decision!r}")
    reason = reason.strip()
    if not reason:
        raise JudgingError("a decision needs a reason")
    rows = list(storage.db.table("violations").rows_where("id = ?", [violation_id]))
    if not rows:
        raise JudgingError(f"no violation {violation_id}")
    before = rows[0]
    changes = {"status": decision, "decided_by": actor, "reason": reason, "updated_at": iso(now)}
    with storage.db.atomic():
        storage.db.table("violations").update(violation_id, changes)
        # the decision reaches the duel: penalty given back or taken, count toward three
        carry_decision(storage, before, decision, actor, now)
        storage.audit(
            actor,
            "violation.confirm" if decision == "confirmed" else "violation.dismiss",
            f"violation:{violation_id}",
            {"status": before["status"], "reason": before["reason"]},
            {"status": decision, "reason": reason},
            now,
        )
    return dict(storage.db.table("violations").get(violation_id))


def violations_csv(rows: Iterable[dict[str, Any]]) -> str:
    """The rows as CSV text (header :data:`CSV_COLUMNS`, RFC 4180 quoting).

    Cells starting with ``= + - @`` get a leading apostrophe so a spreadsheet never runs
    player text as a formula.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in CSV_COLUMNS])
    return out.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return "" if value is None else value
