"""Why a referee's override key (``"Cassius Thorne.points"``) names nothing, with the
closest duellist or field (newcomer6 W4: ``drafts edit --set "Cassius Thorn.points=3"``
said only « unknown override key » and the fields).

Pure: :func:`difflib.get_close_matches` (deterministic) over the duel's names and the
engine's override fields; names are compared case-insensitively, as the fatigue engine
reads them. English here; the staff's catalogue translates it at the edge.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Sequence

from rules.errors import RuleError

OVERRIDE_RULE = "referee.override"
CUTOFF = 0.6
"""Lowest :class:`difflib.SequenceMatcher` ratio for a did-you-mean."""


def closest(word: str, candidates: Sequence[str]) -> str | None:
    """The candidate closest to ``word`` (case-insensitive), or None below :data:`CUTOFF`."""
    folded = {c.casefold(): c for c in candidates}
    found = difflib.get_close_matches(word.casefold(), list(folded), n=1, cutoff=CUTOFF)
    return folded[found[0]] if found else None


def unknown_key(
    key: str, names: Sequence[str], fields: Collection[str], *, creatures: bool = False
) -> RuleError:
    """The :data:`OVERRIDE_RULE` error of an override key that names no duellist (or
    creature, ``creatures``) of ``names`` or no field of ``fields``; the reason always starts
    with ``"unknown override key '<key>'"``:

    - ``"...: no duellist 'Cassius Thorn' (did you mean 'Cassius Thorne'?); the duellists:
      'Aurora Vexley', 'Cassius Thorne'"``;
    - ``"...: no field 'pionts' (did you mean 'points'?); the fields: attack_die, ..."``
      (the name is known; only case-insensitively when its field is not one either);
    - ``"...: write '<duellist>.<field>'; the duellists: ..."`` (no dot).
    """
    who = "duellist or creature" if creatures else "duellist"
    whom = "duellists and creatures" if creatures else "duellists"
    listed = ", ".join(repr(n) for n in names)
    head = f"unknown override key {key!r}"
    name, dot, fld = key.rpartition(".")
    if not dot or not name:
        return RuleError(OVERRIDE_RULE, f"{head}: write '<{who}>.<field>'; the {whom}: {listed}")
    folded = name.casefold() in {n.casefold() for n in names}
    if name in names or (folded and fld not in fields):  # the field is what is wrong
        near = closest(fld, sorted(fields))
        guess = f" (did you mean {near!r}?)" if near else ""
        return RuleError(
            OVERRIDE_RULE,
            f"{head}: no field {fld!r}{guess}; the fields: {', '.join(sorted(fields))}",
        )
    near = closest(name, names)
    guess = f" (did you mean {near!r}?)" if near else ""
    return RuleError(OVERRIDE_RULE, f"{head}: no {who} {name!r}{guess}; the {whom}: {listed}")


def unknown_name(rule: str, name: str, names: Sequence[str]) -> RuleError:
    """``rule``'s error for a waiver naming no duellist of ``names``: ``"no duellist named
    'Cassius Thorn' (did you mean 'Cassius Thorne'?)"``."""
    near = closest(name, names)
    guess = f" (did you mean {near!r}?)" if near else ""
    return RuleError(rule, f"no duellist named {name!r}{guess}")


__all__ = ["CUTOFF", "OVERRIDE_RULE", "closest", "unknown_key", "unknown_name"]
