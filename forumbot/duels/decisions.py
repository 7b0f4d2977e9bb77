"""The referee's decisions a declaration must state (issue 13: "overrides keep text and
numbers together").

When a referee sets a computed number (``drafts edit --set``, the review page), the engine
records it in the outcome's rule trail under ``referee.override`` with the value it had
computed (:meth:`rules.trail.TrailBuilder.override`: detail ``"computed 13, referee set 12"``).
:func:`referee_decisions` reads them back so every turn template can say « (décision de
l'arbitre) » beside the numbers and list what the referee changed: a published text never
shows a number that the duel's stored state contradicts, nor hides that a number was set.
"""

from __future__ import annotations

import ast
import re
from typing import Any

OVERRIDE_RULE = "referee.override"
_DETAIL = re.compile(r"^computed (?P<computed>.+), referee set (?P<value>.+)$")


def _literal(raw: str) -> Any:
    try:
        return ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        return raw


def referee_decisions(outcome: dict[str, Any]) -> list[dict[str, Any]]:
    """The overridden quantities of an outcome dict, in trail order, one per quantity (the
    last entry wins).

    Returns:
        ``[{"quantity": "Cassius Thorne.points", "name": "Cassius Thorne", "field":
        "points", "value": 12, "computed": 13}]``: the entries of
        :meth:`rules.trail.TrailBuilder.override` only (not what follows from them, such as
        ``duel.finished`` after a disqualification). An override equal to the computed
        value is left out (it changes nothing). Empty when nothing was overridden (or no
        trail was kept).
    """
    found: dict[str, dict[str, Any]] = {}
    for entry in outcome.get("trail") or []:
        if entry.get("rule") != OVERRIDE_RULE:
            continue
        quantity = str(entry["quantity"])
        name, _, fld = quantity.rpartition(".")
        m = _DETAIL.match(str(entry.get("detail") or ""))
        if m is None:
            continue  # what follows from a decision (the end of the duel), not a number set
        found.pop(quantity, None)
        computed = _literal(m.group("computed"))
        if computed == entry.get("value"):
            continue  # set to what the engine computed: nothing to state
        found[quantity] = {
            "quantity": quantity,
            "name": name,
            "field": fld,
            "value": entry.get("value"),
            "computed": computed,
        }
    return list(found.values())


def decided_quantities(outcome: dict[str, Any]) -> set[str]:
    """The quantities (``"<name>.<field>"``) the referee set in ``outcome``."""
    return {d["quantity"] for d in referee_decisions(outcome)}


__all__ = ["OVERRIDE_RULE", "decided_quantities", "referee_decisions"]
