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
    ids: list[int] | None = None
    if visible_duels is not None:
        ids = sorted(set(visible_duels))
        if not ids:
            return []
    return storage.web_rows.violations(ids, flt.duel_id, flt.duellist, flt.rule, flt.status)


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
    before = storage.web_rows.violation(violation_id)
    if before is None:
        raise JudgingError(f"no violation {violation_id}")
    changes = {"status": decision, "decided_by": actor, "reason": reason, "updated_at": iso(now)}
    with storage.atomic():
        storage.web_rows.update_violation(violation_id, changes)
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
    return storage.web_rows.violation_row(violation_id)


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
