"""The sandbox phpBB board's records and wordings: accounts, forums, topics, posts, PMs,
sessions, one HTTP request and answer as the board sees them, and the request parsing
(form bodies, query strings, cookies) of :mod:`forumbot.sandbox.server`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

GUEST_ID = 1

FORM_INVALID = "Le formulaire envoyé n’est pas valide. Essayez à nouveau."
FLOOD_ERROR = "Vous ne pouvez pas poster un nouveau message, si tôt après le dernier."
WRONG_PASSWORD = (
    "Vous avez indiqué un mot de passe incorrect. Vérifiez votre mot de passe et réessayez. "
    "Si vous continuez à rencontrer des problèmes, contactez l’administrateur du forum."
)
WRONG_USERNAME = (
    "Vous avez indiqué un nom d’utilisateur incorrect. Vérifiez votre nom d’utilisateur et "
    "réessayez. Si vous continuez à rencontrer des problèmes, contactez l’administrateur du "
    "forum."
)
TOO_MANY_ATTEMPTS = (
    "Vous avez dépassé le nombre maximum autorisé de tentatives de connexion. En plus de votre "
    "nom d’utilisateur et de votre mot de passe, vous devez également valider le test CAPTCHA."
)
NO_TOPIC = "Le sujet demandé n’existe pas."
NO_FORUM = "Le forum que vous avez tenté d’atteindre n’existe pas."
SORRY_AUTH_READ = "Vous n’êtes pas autorisé à lire ce forum."
TOO_FEW_CHARS = "Votre message contient trop peu de caractères."
EMPTY_SUBJECT = "Vous devez indiquer un sujet lors de la publication d’un nouveau sujet."
LOGIN_TO_REPLY = "Vous devez être connecté pour répondre aux sujets de ce forum."
LOGIN_TO_POST = "Vous devez être connecté pour écrire de nouveaux sujets dans ce forum."
LOGIN_TO_UCP = "Connectez-vous pour accéder à votre panneau d’utilisateur."
POST_QUEUED = (
    "Votre message a été posté, mais requiert l’approbation d’un modérateur avant d’être rendu "
    "visible publiquement. Vous serez averti lorsque votre message sera approuvé."
)
TOPIC_LOCKED = (
    "Ce sujet est verrouillé, vous ne pouvez pas modifier de messages ou poster de réponse."
)
FORUM_LOCKED = "Forum verrouillé"
POST_UNAPPROVED_EXPLAIN = (
    "Ce message n’est pas visible par les autres utilisateurs tant qu’il n’a pas été approuvé "
    "par un modérateur."
)
BUTTON_TOPIC_LOCKED = "Verrouillé"
PM_SENT = "Votre message a été envoyé."
PM_NO_USERS = "Les utilisateurs demandés pour être ajoutés n’existent pas."
PM_NO_RECIPIENT = "Vous devez indiquer au moins un destinataire."
PM_EMPTY_SUBJECT = "Vous devez indiquer un sujet lors de la rédaction d’un nouveau message."
PM_NOT_ALLOWED = (
    "Nous sommes désolés, mais vous n’êtes pas autorisé à utiliser cette fonctionnalité. "
    "Vous venez juste de vous enregistrer et devez participer davantage pour pouvoir "
    "l’utiliser."
)
PM_NO_MESSAGE = "Le message privé demandé n’existe pas."
NOT_LOGGED_OUT = (
    "Vous n’avez pas été déconnecté, car la requête ne correspond pas à votre session. "
    "Contactez l’administrateur du forum si vous continuez à rencontrer des problèmes."
)

_PM_FOLDERS = {
    "inbox": (0, "Boîte de réception"),
    "outbox": (-2, "Boîte d’envoi"),
    "sentbox": (-1, "Messages envoyés"),
}


@dataclass
class User:
    """A board account. ``last_post_time`` (epoch s) feeds the flood check (posts and PMs)."""

    user_id: int
    name: str
    password: str
    ignore_flood: bool = False
    needs_approval: bool = False
    can_pm: bool = True
    form_salt: str = ""
    last_post_time: float = 0.0
    login_attempts: int = 0
    # UCP → Board preferences → "Display posts": "a" oldest first (phpBB's default), "d"
    # newest first (``user_post_sortby_dir``); a topic URL's ``sd`` overrides it.
    post_sortby_dir: str = "a"


@dataclass
class Forum:
    """A forum (``is_category`` forums hold no topics)."""

    forum_id: int
    name: str
    parent_id: int | None = None
    is_category: bool = False
    # Who may read the forum (phpBB ``f_read``): None = every member, else these names.
    readers: list[str] | None = None


@dataclass
class Topic:
    """A topic: its first post is the opening post."""

    topic_id: int
    forum_id: int
    title: str
    poster_id: int
    time: float
    # Forums that still list a shadow of the topic after a move ("leave shadow topic"): the
    # shadow row links to the topic itself, in its new forum.
    shadow_forum_ids: list[int] = field(default_factory=list)


@dataclass
class PostRecord:
    """A post as stored (BBCode source in ``text``)."""

    post_id: int
    topic_id: int
    poster_id: int
    subject: str
    text: str
    time: float
    approved: bool = True
    edit_count: int = 0
    edit_user_id: int | None = None
    edit_time: float | None = None
    edit_reason: str | None = None


@dataclass
class Pm:
    """A private message; ``unread_by`` lists recipients who have not opened it yet."""

    msg_id: int
    author_id: int
    to_ids: list[int]
    subject: str
    text: str
    time: float
    unread_by: list[int] = field(default_factory=list)


@dataclass
class Session:
    """A board session (guests too): who, the User-Agent it is bound to, last activity."""

    sid: str
    user_id: int
    user_agent: str
    last_seen: float


@dataclass
class Request:
    """One HTTP request as the board sees it (query and form: last value of a name wins)."""

    method: str
    path: str
    query: dict[str, str]
    form: list[tuple[str, str]]
    cookies: dict[str, str]
    user_agent: str = ""
    host: str = "127.0.0.1"

    def field(self, name: str, default: str = "") -> str:
        """Form value of ``name`` (the last one, as PHP), or ``default``."""
        found = default
        for key, value in self.form:
            if key == name:
                found = value
        return found

    def has(self, name: str) -> bool:
        """True when the form has a field ``name``."""
        return any(key == name for key, _ in self.form)


@dataclass
class Response:
    """The board's answer: status, headers (Set-Cookie may repeat), HTML body."""

    status: int
    body: str = ""
    headers: list[tuple[str, str]] = field(default_factory=list)


def _spec_user(spec: Any, next_id: int) -> User:
    if isinstance(spec, User):
        return spec
    if isinstance(spec, tuple):
        return User(user_id=next_id, name=spec[0], password=spec[1])
    data = dict(spec)
    data.setdefault("user_id", next_id)
    return User(**data)


def _spec_forum(spec: Any) -> Forum:
    if isinstance(spec, Forum):
        return spec
    if isinstance(spec, tuple):
        return Forum(forum_id=spec[0], name=spec[1], parent_id=spec[2] if len(spec) > 2 else None)
    return Forum(**dict(spec))


DEFAULT_FORUMS = (
    Forum(1, "Le Club", None, True),
    Forum(2, "Club de duel", 1),
    Forum(3, "Duels en cours", 2),
    Forum(4, "Inscriptions", 1),
)


def parse_form_body(content_type: str, body: bytes) -> list[tuple[str, str]]:
    """Fields of a POST body: ``application/x-www-form-urlencoded`` or ``multipart/form-data``
    (file parts ignored). Order and repeated names are kept."""
    if content_type.startswith("multipart/form-data"):
        from email.parser import BytesParser
        from email.policy import HTTP

        message = BytesParser(policy=HTTP).parsebytes(
            f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + body
        )
        out: list[tuple[str, str]] = []
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if not name or part.get_filename():
                continue
            raw = part.get_payload(decode=True)
            payload = raw if isinstance(raw, bytes) else b""
            out.append((str(name), payload.decode("utf-8", "replace")))
        return out
    return parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)


def query_dict(query: str) -> dict[str, str]:
    """Query string -> dict (the last value of a name wins, as PHP)."""
    return dict(parse_qsl(query, keep_blank_values=True))


def cookie_dict(header: str | None) -> dict[str, str]:
    """``Cookie`` header -> dict."""
    out: dict[str, str] = {}
    for part in (header or "").split(";"):
        if "=" in part:
            key, value = part.split("=", 1)
            out[key.strip()] = value.strip()
    return out
