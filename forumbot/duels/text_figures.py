"""The figures a declaration's text states, to check a hand-written text against the draft's
(issue 22: ``drafts edit --text-file`` refuses a text whose numbers contradict the draft's).

A declaration states two kinds of figures a player can check and a referee's rewrite must
keep: each duellist's total (``- Aurora Vexley : 25 PD``, the unit of the ruleset: PD in
classic, PV in fatigue and 2v2; an opening's starting points ``- Aurora Vexley (5e année) :
35 PD`` too, newcomer check s4 W6) and the dice of each post (``message n°12 ... attaque 4,
défense 2`` in classic; ``message n°12 ... dé « Pari » 5`` in fatigue and 2v2). The figures of
the new text are compared with those of the text the engine rendered for the same draft: the
same reading on both sides, so a figure is compared only where both texts state it; a figure
the new text leaves out is no contradiction. Damage lines (« perd 4 PD ») are not compared:
one turn may state several per duellist.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from forumbot.publish.typography import plain

Figure = tuple[str, ...]
"""A figure's key: ``("total", name)`` or ``("die", post_id, "attaque" | "défense" | "dé")``."""

_TOTAL = (
    r"^\W*(?:\[b\])?{name}(?:\[/b\])?(?:\s*\([^)\n]*\))?\s*:\s*"
    r"(?:-?\d+(?:\s[+-]\s\d+(?:\s\([^)\n]*\))?)+\s=\s)?(-?\d+)\s*(?:PD|PV)\b"
)
_POST = re.compile(r"message n°\s*(\d+)(?P<rest>.*)$", re.MULTILINE)
_DIE = re.compile(r"\b(attaque|défense)\s+(\d+)\b|\bdé\b[^»\n]*»\s*(\d+)")


@dataclass(frozen=True)
class Difference:
    """A figure the new text states otherwise: ``key``, the draft's ``expected`` value and
    the text's ``found`` one."""

    key: Figure
    expected: str
    found: str

    def describe(self) -> str:
        """One English line: ``Cassius Thorne's total: the text says 12, the draft 13``."""
        if self.key[0] == "total":
            what = f"{self.key[1]}'s total"
        else:
            what = f"post {self.key[1]}'s {self.key[2]} die"
        return f"{what}: the text says {self.found}, the draft {self.expected}"


def figures(text: str, names: Iterable[str]) -> dict[Figure, set[str]]:
    """The figures ``text`` states (module doc) for the duellists ``names``: key -> values
    (a set: a text may state one figure twice, possibly differently)."""
    found: dict[Figure, set[str]] = {}
    text = plain(text)  # no-break spaces and « − » (issue 25 typography) read as plain ones
    for name in names:
        pattern = re.compile(_TOTAL.format(name=re.escape(name)), re.MULTILINE | re.IGNORECASE)
        for m in pattern.finditer(text):
            found.setdefault(("total", name), set()).add(m.group(1))
    for m in _POST.finditer(text):
        post_id = m.group(1)
        for d in _DIE.finditer(m.group("rest")):
            label, value = (d.group(1), d.group(2)) if d.group(1) else ("dé", d.group(3))
            found.setdefault(("die", post_id, label), set()).add(value)
    return found


def contradictions(computed: str, new: str, names: Iterable[str]) -> list[Difference]:
    """The figures ``new`` states otherwise than ``computed`` (the draft's rendered text)."""
    names = list(names)
    expected = figures(computed, names)
    out = []
    for key, values in sorted(figures(new, names).items()):
        want = expected.get(key)
        if not want:
            continue
        for value in sorted(values - want):
            out.append(Difference(key, "/".join(sorted(want)), value))
    return out


__all__ = ["Difference", "Figure", "contradictions", "figures"]
