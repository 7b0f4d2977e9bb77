"""One review page for many clubs: ``forumbot web --boards DIR`` (issue 27).

The clubs are the files of the folder ``forumbot serve --boards DIR`` runs
(:mod:`forumbot.ops.boards_dir`: same loader, same checks, the club's name is the file's
stem). Each club keeps its own database (its SQLite file or PostgreSQL schema): its accounts,
sessions, drafts, duels, tasks and violations are rows of that database only. The page of club
``a`` is the one-club review page (:func:`forumbot.web.app.create_app`) mounted under
``/c/a`` (``/c/a/drafts``, ``/c/a/duels/3``...); ``/host`` is the host's page, with accounts
of its own in the host database (``--host-db``).

Isolation (a referee or admin of club A never sees club B):

- **by id**: an id typed under ``/c/a/`` is looked up in A's database only (B's draft 12 is
  not A's; when A has no draft 12 the answer is 404, as for any unknown id);
- **by session**: the session cookie is scoped to its club's path (``Path=/c/a``) and records
  its realm (the club's name, or :data:`HOST_REALM`) under the signature
  (:data:`forumbot.web.auth.REALM`). A request under ``/c/b/`` (or ``/host``) presenting a
  session of another realm gets the same 404 as a club that does not exist, on every route,
  without reaching B's app (:meth:`HostSite.__call__`); inside an app a session of another
  realm is anonymous anyway (:func:`forumbot.web.auth.current_user`). An account is a row of
  its club's database: A's ``alice`` cannot log in under B (B has no such row, or a different
  person of that name with her own password);
- **in lists**: an app lists its own database only; the host page lists the clubs, their
  accounts' count and admins' names, never a duel.

A host admin sees no club's duels unless a club gives them an account of its own. The host
page creates a club's *first* admin only (:func:`forumbot.web.users.add_first_admin`: refused
once the club has an enabled admin).

The folder is reread when it changes (:func:`forumbot.ops.boards_dir.dir_signature`, looked
at on each request under ``/c/`` or ``/host``): a new valid file is served at once, a changed
one is reopened, a removed one stops being served (404). A file that does not load, that
shares a database or board account with a club served before it
(:func:`forumbot.ops.boards_dir.sharing_conflicts`), whose name is not a plain URL segment
(:data:`CLUB_NAME`) or whose database does not open is refused: the host page shows why, the
others go on.

The login limit is one :class:`forumbot.web.auth.LoginLimiter` for the host and all clubs:
an address has its 20 guesses in all, not 20 per club; a username counts per club.
"""

from __future__ import annotations

import json
import logging
import re
from base64 import b64decode
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import itsdangerous
from itsdangerous.exc import BadSignature
from starlette._utils import get_route_path
from starlette.requests import HTTPConnection
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from forumbot.config import Config, ConfigError
from forumbot.notify.settings import NotifyConfig
from forumbot.ops.boards_dir import dir_signature, read_boards, sharing_conflicts
from forumbot.ops.club_log import club_context
from forumbot.storage import Storage, open_storage
from forumbot.web.auth import REALM
from forumbot.web.i18n import page_translator
from forumbot.web.routes.common import SECURITY_HEADERS, SESSION_COOKIE
from forumbot.web.users import enabled_admins

log = logging.getLogger("forumbot.web.host")

HOST_REALM = "/host"
"""The realm of the host page's sessions (a club's name never holds a ``/``)."""
CLUB_PREFIX = "/c/"
CLUB_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
"""A club's name as the review page serves it: a URL segment and a cookie path as they stand
(``dumbledore``, ``club-2``); another file stem is refused with this reason."""

ClubAppFactory = Callable[[str, Config, Storage], ASGIApp]
"""``make(name, config, storage)``: the review app of one club
(:func:`forumbot.web.site.club_page`)."""


@dataclass
class Club:
    """One club file as the review page sees it.

    Attributes:
        name: the club's name (the file's stem, :data:`CLUB_NAME`).
        path: its file in the folder.
        fingerprint: the file's ``(mtime_ns, size, sha256)`` when it was read.
        config: its configuration; None when the file does not load.
        storage: its database, open while served; None when refused.
        app: its review app (mounted under ``/c/<name>``); None when refused.
        error: why the club is refused (one line); None when served.
    """

    name: str
    path: Path
    fingerprint: tuple[int, int, str]
    config: Config | None
    storage: Storage | None = None
    app: ASGIApp | None = None
    error: str | None = None


class ClubFolder:
    """The clubs of ``directory`` as the review page serves them (module docstring).

    Args:
        directory: the folder of club files (``--boards``).
        make_app: builds one club's app (:data:`ClubAppFactory`); None: the databases only
            (``forumbot host``).
        open_db: opens a club's database (``storage.database`` / ``storage.url``).
    """

    def __init__(
        self,
        directory: str | Path,
        make_app: ClubAppFactory | None,
        open_db: Callable[[str], Storage] = open_storage,
    ) -> None:
        self.directory = Path(directory)
        self._make_app = make_app
        self._open = open_db
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self.clubs: dict[str, Club] = {}

    def refresh(self) -> None:
        """Reread the folder when its files changed since the last look (name, mtime, size);
        a folder that cannot be read keeps the clubs served (logged)."""
        signature = dir_signature(self.directory)
        if signature == self._signature:
            return
        try:
            files = read_boards(self.directory)
        except ConfigError as exc:
            log.warning("the clubs stay as they were: %s", exc)
            return
        self._signature = signature
        served = [name for name, club in self.clubs.items() if club.error is None]
        shared = sharing_conflicts(files, first=served)
        clubs: dict[str, Club] = {}
        for file in files:
            old = self.clubs.get(file.name)
            keep = old is not None and old.error is None and file.name not in shared
            if keep and old is not None and old.fingerprint == file.fingerprint:
                clubs[file.name] = old
                continue
            if old is not None:
                _close(old)
            club = Club(file.name, file.path, file.fingerprint, file.config)
            club.error = file.error or shared.get(file.name) or self._open_club(club)
            if club.error:
                log.warning("club %s not on the review page: %s", club.name, club.error)
            clubs[file.name] = club
        for name, old in self.clubs.items():
            if name not in clubs:
                log.info("club %s left the review page (its file is gone)", name)
                _close(old)
        self.clubs = clubs

    def _open_club(self, club: Club) -> str | None:
        """Open ``club``'s database and app; the reason it is refused, or None."""
        if CLUB_NAME.fullmatch(club.name) is None:
            return (
                f"{club.path}: refused: a club's name on the review page is 1 to 64 letters, "
                "digits, '-', '_' or '.' (the file's name without .toml)"
            )
        assert club.config is not None
        try:
            with club_context(club.name):  # its lines say which club (forumbot.ops.club_log)
                club.storage = self._open(club.config.database)
                if self._make_app is not None:
                    club.app = self._make_app(club.name, club.config, club.storage)
        except Exception as exc:  # one club's database must not stop the others' pages
            log.exception("club %s: its database does not open", club.name)
            _close(club)
            return f"{club.path}: refused: its database does not open: {exc}"
        return None

    def served(self, name: str) -> Club | None:
        """The club ``name`` when it is served (the folder reread first), else None."""
        self.refresh()
        club = self.clubs.get(name)
        return club if club is not None and club.error is None else None

    def summaries(self) -> list[ClubSummary]:
        """Every club file, by name (the folder reread first): what the host sees of it."""
        self.refresh()
        out = []
        for club in sorted(self.clubs.values(), key=lambda c: c.name):
            if club.storage is None:
                out.append(ClubSummary(club.name, club.error or "", 0, ()))
                continue
            accounts = len(club.storage.web_rows.users(enabled_only=False))
            out.append(ClubSummary(club.name, "", accounts, tuple(enabled_admins(club.storage))))
        return out

    def close(self) -> None:
        """Close every club's database (the page stops)."""
        for club in self.clubs.values():
            _close(club)
        self.clubs = {}
        self._signature = None


@dataclass(frozen=True)
class ClubSummary:
    """What the host sees of a club (never a duel): its name, why it is refused (``""``:
    served), its accounts' count and its enabled admins' names."""

    name: str
    error: str
    accounts: int
    admins: tuple[str, ...]


def _close(club: Club) -> None:
    if club.storage is not None:
        club.storage.close()
    club.storage = None
    club.app = None


def session_realm(scope: Scope, secret_key: str, max_age_s: int) -> str | None:
    """The realm recorded in the request's session cookie (:data:`forumbot.web.auth.REALM`),
    read as ``SessionMiddleware`` reads it (the same signature and lifetime); None when there
    is no cookie, it is not ours (bad signature, expired, not JSON) or it has no realm (a
    session that never logged in)."""
    raw = HTTPConnection(scope).cookies.get(SESSION_COOKIE)
    if not raw:
        return None
    try:
        data = itsdangerous.TimestampSigner(secret_key).unsign(raw.encode(), max_age=max_age_s)
        payload = json.loads(b64decode(data))
    except (BadSignature, ValueError):
        return None
    realm = payload.get(REALM) if isinstance(payload, dict) else None
    return realm if isinstance(realm, str) else None


class HostSite:
    """The ASGI app of ``forumbot web --boards``: ``/c/<club>/...`` goes to the club's app,
    ``/host/...`` to the host's (:func:`forumbot.web.site.host_app`), ``/`` to
    ``/host/``; anything else, an unknown or refused club, and a session of another realm
    get one and the same 404 page.

    Args:
        folder: the clubs (:class:`ClubFolder`).
        host_app: the host page's app.
        secret_key: the key the session cookies are signed with (all realms).
        session_max_age_s: their lifetime (as given to the apps).
        language: the 404 page's language (``"fr"`` or ``"en"``).
    """

    def __init__(
        self,
        folder: ClubFolder,
        host_app: ASGIApp,
        *,
        secret_key: str,
        session_max_age_s: int,
        language: str,
    ) -> None:
        self.folder = folder
        self.host_app = host_app
        self.secret_key = secret_key
        self.session_max_age_s = session_max_age_s
        self.language = language

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1000})
            return
        path = get_route_path(scope)
        root = str(scope.get("root_path", "")).rstrip("/")
        if path in ("", "/"):
            await RedirectResponse(root + HOST_REALM + "/", status_code=303)(scope, receive, send)
            return
        if path == HOST_REALM or path.startswith(HOST_REALM + "/"):
            app: ASGIApp | None = self.host_app
            realm, prefix = HOST_REALM, HOST_REALM
        elif path.startswith(CLUB_PREFIX):
            realm = path[len(CLUB_PREFIX) :].split("/", 1)[0]
            club = self.folder.served(realm)
            app = club.app if club is not None else None
            prefix = CLUB_PREFIX + realm
        else:
            app = None
        if app is None or session_realm(scope, self.secret_key, self.session_max_age_s) not in (
            None,
            realm,
        ):
            await self._not_found(scope, receive, send)
            return
        if path == prefix:  # "/c/a": the app's home is "/c/a/"
            await RedirectResponse(root + prefix + "/", status_code=303)(scope, receive, send)
            return
        with club_context(realm):  # the request's log lines name its club (or /host)
            await app({**scope, "root_path": root + prefix}, receive, send)

    async def _not_found(self, scope: Scope, receive: Receive, send: Send) -> None:
        _ = page_translator(self.language)
        text = _("Page not found.")
        page = (
            f'<!doctype html><html lang="{self.language}"><head><meta charset="utf-8">'
            f"<title>{text}</title></head><body><p>{text}</p></body></html>"
        )
        headers = {**SECURITY_HEADERS, "cache-control": "no-store"}
        response: Response = HTMLResponse(page, status_code=404, headers=headers)
        await response(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.folder.refresh()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.folder.close()
                await send({"type": "lifespan.shutdown.complete"})
                return


class PageSettings(TypedDict):
    """A club's own settings of its review app (:func:`page_settings`)."""

    timezone: str
    notify: NotifyConfig
    language: str


def page_settings(config: Config) -> PageSettings:
    """What a club's review app takes from its configuration (:func:`create_app` keyword
    arguments): its timezone, its ``[notify]`` settings and its staff language (an unset
    ``board.language`` keeps the language the club's players read, French by default)."""
    from forumbot.i18n import staff_language
    from forumbot.notify.settings import notify_config

    return {  # the keys of PageSettings
        "timezone": config.timezone,
        "notify": notify_config(config),
        "language": staff_language(config.board_language or config.language),
    }


__all__ = [
    "CLUB_NAME",
    "CLUB_PREFIX",
    "HOST_REALM",
    "Club",
    "ClubAppFactory",
    "ClubFolder",
    "ClubSummary",
    "HostSite",
    "PageSettings",
    "page_settings",
    "session_realm",
]
