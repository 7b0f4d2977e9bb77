"""Forumactif dice results ("Lancer de dés").

Dice are rolled from the full reply form; Forumactif then posts the result as a
**separate post by the "Game Master" account** (Forumotion FAQ, REPORT.md section 5).
Rendered (README A5, assumed wording)::

    Le membre 'Éloïse Brumerive' a effectué l'action suivante : Lancer des dés
    <br /><br />'Dé du Duel' : <img src=".../dice/de-du-duel-5.png" alt="5" />

one ``'Dice name' : <img>…`` line per die type, one image per roll. The value is the
image ``alt`` (a die face may be non-numeric: « Pile ou Face » shows « Face »), else its
``title``, else the face named at the end of the image file name (``de-du-duel-5.png`` ->
``5``; assumed from the face images admins upload per die, not confirmed on a live board).
Roller names may contain ``'``. The action label is a setting (``dice_actions``); by
default the French variants « Lancer des dés », « Lancer les dés », « Lancer de dés » (the
editor's own label) are accepted, compared without case, accents or extra spaces. The Game
Master is identified by account, not by wording.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import unquote

from parsers.forumactif.htmltext import Line, squash
from parsers.model import DiceRoll

#: Action labels accepted after "a effectué l'action suivante :".
DEFAULT_DICE_ACTIONS: tuple[str, ...] = ("Lancer des dés", "Lancer les dés", "Lancer de dés")

_HEADER_RE = re.compile(
    r"^(?:Le membre|The member|El miembro)\s+['‘’](?P<roller>.+)['‘’]\s+"
    r"(?:a effectué l['’]action suivante|has (?:done|made) the following action"
    r"|ha realizado la siguiente acción)\s*:\s*(?P<action>.+?)\s*$",
    re.IGNORECASE,
)
_HEADER_HINT_RE = re.compile(r"membre|member|miembro", re.IGNORECASE)
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


@lru_cache(maxsize=1024)
def _fold(text: str) -> str:
    """Case-, accent- and space-insensitive key (« Lancer des Dés » == « lancer des des »)."""
    decomposed = unicodedata.normalize("NFKD", squash(text).casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@lru_cache(maxsize=64)
def _folded(values: tuple[str, ...]) -> frozenset[str]:
    return frozenset(_fold(v) for v in values)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", _fold(text)).strip("-")


_IMAGE_EXT_RE = re.compile(r"\.(?:png|gif|jpe?g|webp|svg)$", re.IGNORECASE)


def face_from_file_name(src: str, die_name: str | None = None) -> str | None:
    """The face named by a face image's file name, or None.

    The die's slug is removed from the front when present (``pile-ou-face-face.png`` with
    die « Pile ou face » -> ``Face``), else the last ``-``/``_`` part is taken
    (``de-du-duel-5.png`` -> ``5``). Numbers are returned without leading zeros, words
    capitalised.

    Examples:
        >>> face_from_file_name("https://2img.net/u/1/dice/de-du-duel-5.png")
        '5'
        >>> face_from_file_name("/dice/pile-ou-face-face.gif", "Pile ou face")
        'Face'
    """
    stem = unquote(src.split("?", 1)[0].rsplit("/", 1)[-1])
    if not _IMAGE_EXT_RE.search(stem):
        return None
    stem = _IMAGE_EXT_RE.sub("", stem)
    slug = _slug(stem)
    prefix = _slug(die_name) if die_name else ""
    if prefix and slug.startswith(prefix + "-"):
        face = slug[len(prefix) + 1 :]
    else:
        face = re.split(r"[-_]", slug)[-1]
    if not face:
        return None
    if face.isdigit():
        return str(int(face))
    return face.replace("-", " ").capitalize()


def face_of(image: object, die_name: str | None = None) -> str | None:
    """The face an image shows: its ``alt``, else its ``title``, else its file name
    (:func:`face_from_file_name`); None when none of them names one."""
    get = getattr(image, "get", None)
    if get is None:
        return None
    for attribute in ("alt", "title"):
        value = get(attribute)
        if value is not None and value.strip():
            return str(value).strip()
    src = get("src")
    return face_from_file_name(str(src), die_name) if src else None


def _roll(name: str, line: Line, rest: str) -> DiceRoll:
    faces = [face for face in (face_of(img, name) for img in line.images) if face is not None]
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
    wanted_actions = _folded(tuple(actions))
    wanted_names = _folded(tuple(dice_names)) if dice_names is not None else None
    for index, line in enumerate(lines):
        if _HEADER_HINT_RE.search(line.text) is None:
            continue  # cheap test before squashing every line of every post
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
