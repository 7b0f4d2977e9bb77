"""Post requirements of the fatigue ruleset that the shell measures on a post's text (pure).

- :func:`count_displayed_lines`: RULES.md "at least **10 lines** as displayed (non-blank lines,
  long lines wrapped at ``chars_per_line`` [...], excluding quotes, signature, dice block, edit
  note and the action footer)"; seed 001: "Chaque post doit, au minimum, faire 10 lignes."
- :func:`version_in_force`: RULES.md "Editing is allowed until anyone (the declaration
  included) posts after it: the version in force is the last one before the next post; a later
  edit is ``late_edit`` and the bot keeps the version in force"; seed 001: "L'édition d'un poste
  est autorisée dans le cas seul où personne n'a encore posté après le post concerné."
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

_QUOTE_OPEN = re.compile(r"\[quote(?:=[^\]]*)?\]", re.IGNORECASE)
_QUOTE_CLOSE = re.compile(r"\[/quote\]", re.IGNORECASE)
_CODE = re.compile(r"\[code\].*?\[/code\]", re.IGNORECASE | re.DOTALL)
_TAGS = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
_SIGNATURE = re.compile(r"^\s*(?:--\s*|_{5,}\s*|-{5,}\s*)$")
_EDIT_NOTE = re.compile(
    r"^\s*(?:derni[eè]re\s+[ée]dition\s+par|edit[ée]?\s+par|[ée]dit[ée]\s+par|last\s+edited\s+by"
    r"|edited\s+by)\b",
    re.IGNORECASE,
)
_DICE = re.compile(
    r"^\s*(?:le\s+membre\s+'[^']*'\s+a\s+effectu[ée]|lancer\s+de\s+d[ée]s|#\d+\s*'[^']*'\s*:"
    r"|r[ée]sultat(?:s)?\s*:\s*\d)",
    re.IGNORECASE,
)
_FOOTER = re.compile(
    r"^\s*(?:mon\s+|ma\s+)?(?:pari|paris|bet|mise|action|cible|target|d[ée]placement|move"
    r"|sort|sortil[eè]ge|spell)\s*:",
    re.IGNORECASE,
)
_BET_ONLY = re.compile(r"^\s*\[?\s*[1-6](?:\s*[,;/\- ]\s*[1-6])+\s*\]?\s*$")


def _fold(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).casefold()


def count_displayed_lines(text: str, chars_per_line: int = 100, *, footer_lines: int = 4) -> int:
    """Displayed lines of a post's own text.

    Args:
        text: the post's text, one line per displayed line (``parsers.model.Post.text``); BBCode
            ``[quote]``/``[code]`` blocks and ``>`` quote lines still in it are dropped too.
        chars_per_line: a line longer than this counts ``ceil(len / chars_per_line)`` lines
            (setting ``chars_per_line``, RULES.md [D: 100]).
        footer_lines: how many last non-blank lines may be the action footer (bet, action,
            target, move, spell label, a bare bet like ``[3,4,5,6]``); those are not counted.

    Returns:
        The count (>= 0). Dropped: blank lines, quotes, code blocks, everything from a signature
        separator (``--``, ``_____``) on, edit notes ("Dernière édition par ..."), forum dice
        lines ("Le membre 'X' a effectué l'action suivante : Lancer des dés"), footer lines.

    Raises:
        ValueError: ``chars_per_line`` < 1.
    """
    if chars_per_line < 1:
        raise ValueError(f"chars_per_line must be >= 1, got {chars_per_line}")
    text = _CODE.sub("\n", text)
    kept: list[str] = []
    depth = 0
    for raw in text.splitlines():
        line = raw
        # Quotes may open and close on one line; keep only the text outside them.
        outside = []
        pos = 0
        while pos < len(line):
            opening = _QUOTE_OPEN.search(line, pos)
            closing = _QUOTE_CLOSE.search(line, pos)
            nxt = min(
                (m for m in (opening, closing) if m is not None),
                key=lambda m: m.start(),
                default=None,
            )
            if nxt is None:
                if depth == 0:
                    outside.append(line[pos:])
                break
            if depth == 0:
                outside.append(line[pos : nxt.start()])
            depth = depth + 1 if nxt is opening else max(0, depth - 1)
            pos = nxt.end()
        line = _TAGS.sub("", "".join(outside))
        if _SIGNATURE.match(line):
            break
        if not line.strip() or line.lstrip().startswith(">"):
            continue
        if _EDIT_NOTE.match(_fold(line)) or _DICE.match(_fold(line)):
            continue
        kept.append(line.strip())
    footer = 0
    while (
        kept
        and footer < footer_lines
        and (_FOOTER.match(_fold(kept[-1])) or _BET_ONLY.match(kept[-1]))
    ):
        kept.pop()
        footer += 1
    return sum(-(-len(line) // chars_per_line) for line in kept)


@dataclass(frozen=True)
class VersionInForce:
    """Which stored version of a post counts.

    Attributes:
        index: index in the versions given (0 = the first seen).
        text: that version's text.
        late_edit: True when a later version was stored after the next post (``late_edit``).
    """

    index: int
    text: str
    late_edit: bool


def version_in_force(
    versions: Sequence[tuple[datetime, str]], next_post_at: datetime | None
) -> VersionInForce:
    """The version of a post in force: the last one seen before the next post in the topic.

    Args:
        versions: (seen_at, text) pairs in the order the bot stored them (aware datetimes).
        next_post_at: when anyone (a duellist, the referee's declaration) next posted, or None
            when nobody has posted since (then the latest version is in force).

    Returns:
        :class:`VersionInForce`; ``late_edit`` is True when some version was stored at or after
        ``next_post_at`` with a text different from the version in force.

    Raises:
        ValueError: ``versions`` is empty.
    """
    if not versions:
        raise ValueError("a post has at least one version")
    if next_post_at is None:
        return VersionInForce(len(versions) - 1, versions[-1][1], False)
    index = 0
    for i, (seen_at, _) in enumerate(versions):
        if seen_at < next_post_at:
            index = i
    text = versions[index][1]
    late = any(seen_at >= next_post_at and body != text for seen_at, body in versions[index + 1 :])
    return VersionInForce(index, text, late)


__all__ = ["VersionInForce", "count_displayed_lines", "version_in_force"]
