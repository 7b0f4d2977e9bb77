"""The Forumactif sandbox's records and wordings: accounts, forums, topics, posts (with
their dice), PMs, the admins' dice, sessions, and the French messages its pages show."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

GUEST_ID = -1

LOGIN_ERROR = "Vous avez saisi un nom d'utilisateur ou un mot de passe incorrect."
POSTED = "Votre message a été enregistré avec succès."
PM_SENT = "Votre message a été envoyé."
NEW_POST = (
    "Un nouveau message a été posté dans ce sujet pendant que vous rédigiez le vôtre. "
    "Relisez la revue du sujet avant d'envoyer."
)
FLOOD = (
    "Flood control : vous ne pouvez pas poster un autre message si rapidement après le précédent."
)
NO_TOPIC = "Le sujet demandé n'existe pas."
NO_POST = "Le message demandé n'existe pas."
NO_FORUM = "Le forum demandé n'existe pas."
#: A forum the member may not read (ASSUMED: no capture of Forumactif's refusal page).
NO_READ = "Désolé, mais vous n'avez pas la permission de lire les sujets de ce forum."
EMPTY_MESSAGE = "Vous devez entrer un message avant de poster."
EMPTY_SUBJECT = "Vous devez spécifier un sujet avant de poster un nouveau sujet."
BAD_AUTH = "Le formulaire a expiré ou n'est pas valide. Merci de recommencer."
PM_NO_USER = "L'utilisateur demandé n'existe pas."
PM_NOT_ALLOWED = "Vous n'êtes pas autorisé à envoyer des messages privés."
NOT_LOGGED = "Vous devez être connecté pour accéder à cette page."
#: phpBB2's French ``Edit_own_posts``; Forumactif's own wording is not documented (ASSUMED).
EDIT_DENIED = "Désolé, mais vous ne pouvez éditer que vos propres messages."

_TOPIC_PATH_RE = re.compile(r"^/t(\d+)(?:p(\d+))?(?:-.*)?$")
_FORUM_PATH_RE = re.compile(r"^/f(\d+)(?:p(\d+))?(?:-.*)?$")


@dataclass
class FaUser:
    """A board account. ``last_post_time`` (epoch s) feeds the flood check (posts and PMs);
    ``level`` is ``_userdata["user_level"]`` (1 = admin)."""

    user_id: int
    name: str
    password: str
    ignore_flood: bool = False
    can_pm: bool = True
    level: int = 0
    last_post_time: float = -1e12
    # "a" oldest first; "d" newest first: a sandbox preference standing for any profile or
    # theme that reverses a topic (no URL parameter overrides it here: none is known).
    post_order: str = "a"
    needs_approval: bool = False
    inbox_limit: int | None = None


@dataclass
class FaForum:
    """A forum."""

    forum_id: int
    name: str
    readers: list[str] | None = None  # who may read it (None: every member)


@dataclass
class FaTopic:
    """A topic (its first post is the opening post)."""

    topic_id: int
    forum_id: int
    title: str
    poster_id: int
    time: float
    shadow_forum_ids: list[int] = field(default_factory=list)  # forums listing a shadow


@dataclass
class FaPost:
    """A post as stored: BBCode source in ``text``; for a Game Master dice post, ``dice``
    holds ``(dice name, values)`` per die type and ``dice_for`` the id of the rolling post."""

    post_id: int
    topic_id: int
    poster_id: int
    subject: str
    text: str
    time: float
    edit_count: int = 0
    edit_user_id: int | None = None
    edit_time: float | None = None
    dice: tuple[tuple[str, tuple[int, ...]], ...] = ()
    dice_for: int | None = None
    approved: bool = True


@dataclass
class FaPm:
    """A private message; ``unread_by`` lists recipients who have not opened it yet."""

    msg_id: int
    author_id: int
    to_ids: list[int]
    subject: str
    text: str
    time: float
    unread_by: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Dice:
    """A dice the admins defined (ACP Roleplay > Dice): id, name, faces 1..``faces``."""

    dice_id: int
    name: str
    faces: int


@dataclass
class _Session:
    sid: str
    user_id: int
    tid: str
    auth: tuple[str, str]
    key: str
    last_seen: float


DEFAULT_FORUMS = (
    FaForum(2, "Club de duel"),
    FaForum(3, "Duels en cours"),
    FaForum(4, "Inscriptions"),
)

DiceRequest = tuple[str, int]


def _dice_requests(dice: DiceRequest | Sequence[DiceRequest] | None) -> list[DiceRequest]:
    """``("Duel", 2)`` or ``[("Duel", 2), ...]`` -> a list of requests."""
    if not dice:
        return []
    items: list[Any] = list(dice)
    if isinstance(items[0], str):
        return [(str(items[0]), int(items[1]))]
    return [(str(n), int(c)) for n, c in items]
