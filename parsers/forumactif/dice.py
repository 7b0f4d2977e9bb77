"""Forumactif dice results ("Lancer de dés").

Dice are rolled from the full reply form; Forumactif then posts the result as a
**separate post by the "Game Master" account** (Forumotion FAQ, REPORT.md section 5).
Rendered (README A5, assumed wording)::

    Le membre 'Éloïse Brumerive' a effectué l'action suivante : Lancer des dés
    <br /><br />'Dé du Duel' : <img src=".../dice/de-du-duel-5.png" alt="5" />

one ``'Dice name' : <img>…`` line per die type, one image per roll. The value is the
image ``alt`` (a die face may be non-numeric). Roller names may contain ``'``. Both
``Lancer des dés`` and ``Lancer de dés`` (the editor's own label) are accepted, and
the list is configurable. The Game Master is identified by account, not by wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from parsers.forumactif.htmltext import Line, squash
from parsers.model import DiceRoll

#: Action labels accepted after "a effectué l'action suivante :".
DEFAULT_DICE_ACTIONS: tuple[str, ...] = ("Lancer des dés", "Lancer de dés")

_HEADER_RE = re.compile(
    r"^(?:Le membre|The member|El miembro)\s+['‘’](?P<roller>.+)['‘’]\s+"
    r"(?:a effectué l['’]action suivante|has (?:done|made) the following action"
    r"|ha realizado la siguiente acción)\s*:\s*(?P<action>.+?)\s*$",
    re.IGNORECASE,
)
_DIE_RE = re.compile(r"^['‘’](?P<name>.+?)['‘’]\s*:\s*(?P<rest>.*)$")
_INT_RE = re.compile(r"-?\d+")


@dataclass(frozen=True)
class DiceBlock:
    """A dice result found in a post's lines.

    ``start``/``end`` delimit the block in the line list (``end`` exclusive).
    """

    roller: str
    action: str
    rolls: tuple[DiceRoll, ...]
    start: int
    end: int


def _fold(text: str) -> str:
    return squash(text).casefold()


def face_of(image: object) -> str | None:
    """The face an image shows: its ``alt``, else its ``title``; None when neither."""
    get = getattr(image, "get", None)
    if get is None:
        return None
    for attribute in ("alt", "title"):
        value = get(attribute)
        if value is not None and value.strip():
            return str(value).strip()
    return None


def _roll(name: str, line: Line, rest: str) -> DiceRoll:
    faces = [face for face in (face_of(img) for img in line.images) if face is not None]
    if not faces:
        faces = _INT_RE.findall(rest)
    values = tuple(int(face) for face in faces if _INT_RE.fullmatch(face))
    return DiceRoll(name=name, values=values, faces=tuple(faces))


def find_dice_block(
    lines: Sequence[Line],
    *,
    actions: Sequence[str] = DEFAULT_DICE_ACTIONS,
    dice_names: Sequence[str] | None = None,
) -> DiceBlock | None:
    """The first dice result in ``lines``, or None.

    Args:
        lines: displayed lines of a post (see :func:`parsers.forumactif.htmltext.extract`).
        actions: accepted action labels (case-insensitive).
        dice_names: when given, only dice with these names are kept (case-insensitive);
            None keeps every die.
    """
    wanted_actions = {_fold(a) for a in actions}
    wanted_names = {_fold(n) for n in dice_names} if dice_names is not None else None
    for index, line in enumerate(lines):
        header = _HEADER_RE.match(squash(line.text))
        if header is None or _fold(header.group("action")) not in wanted_actions:
            continue
        rolls: list[DiceRoll] = []
        end = index + 1
        for position in range(index + 1, len(lines)):
            text = squash(lines[position].text)
            if not text and not lines[position].images:
                end = position + 1
                continue
            die = _DIE_RE.match(text)
            if die is None:
                break
            end = position + 1
            name = squash(die.group("name"))
            if wanted_names is None or _fold(name) in wanted_names:
                rolls.append(_roll(name, lines[position], die.group("rest")))
        while end > index + 1 and not squash(lines[end - 1].text) and not lines[end - 1].images:
            end -= 1
        return DiceBlock(
            roller=squash(header.group("roller")),
            action=squash(header.group("action")),
            rolls=tuple(rolls),
            start=index,
            end=end,
        )
    return None
