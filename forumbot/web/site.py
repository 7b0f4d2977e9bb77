"""Building ``forumbot web --boards DIR``: each club's review app, the host's page and the
site that routes between them (:mod:`forumbot.web.host` says how clubs are kept apart).

Host page routes (under ``/host``; every POST needs a host session and its CSRF token):

====== ============================ ================================================
GET    /host/                       the clubs of the folder, served or refused
GET    /host/login, POST            log in (the same limits as a club's page)
POST   /host/logout                 log out
POST   /host/clubs/{club}/admin     the club's first admin (refused once it has one)
GET    /host/me/password, POST      my password (as on a club's page)
====== ============================ ================================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from forumbot.config import Config
from forumbot.storage import Storage, open_storage
from forumbot.web.app import HERE, create_app, page_env, starlette_app
from forumbot.web.auth import LoginLimiter
from forumbot.web.forum_account import MemberLookup
from forumbot.web.host import HOST_REALM, ClubAppFactory, ClubFolder, HostSite, page_settings
from forumbot.web.i18n import DEFAULT_LANGUAGE
from forumbot.web.routes.common import Deps
from forumbot.web.routes.host import host_add_admin, host_clubs
from forumbot.web.routes.login import login_page, login_submit, logout
from forumbot.web.routes.password import password_page, password_save
from forumbot.web.sessions import DEFAULT_IDLE_S

SESSION_MAX_AGE_S = 12 * 3600


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class PageOptions:
    """What every app of the site shares (the clubs' and the host's).

    Attributes:
        secret_key: signs every session cookie (at least 32 characters).
        now: clock (aware UTC datetime).
        limiter: the one login limit of the site.
        https_only: ``Secure`` cookies and HSTS (served over HTTPS).
        trusted_proxies: whose ``X-Forwarded-For`` is believed (``"unix"``: the socket's peer).
        session_max_age_s: the cookie's lifetime in seconds.
        session_idle_s: a session unused this many seconds ends.
    """

    secret_key: str
    now: Callable[[], datetime]
    limiter: LoginLimiter
    https_only: bool = False
    trusted_proxies: Sequence[str] = ()
    session_max_age_s: int = SESSION_MAX_AGE_S
    session_idle_s: int = DEFAULT_IDLE_S


def club_page(
    options: PageOptions,
    members_for: Callable[[Config], MemberLookup | None] | None = None,
) -> ClubAppFactory:
    """The :data:`forumbot.web.host.ClubAppFactory` of ``forumbot web --boards``: each club's
    app is :func:`forumbot.web.app.create_app` on its own database, with the club's name as
    realm, the site's ``options`` (one key, one login limit), the club's
    :func:`forumbot.web.host.page_settings`, and its board's member look-up
    ``members_for(config)`` (:func:`forumbot.web.serve.board_members`; None: every new forum
    account on ``/me/notify`` is refused)."""

    def make(name: str, config: Config, storage: Storage) -> Starlette:
        return create_app(
            storage,
            secret_key=options.secret_key,
            now=options.now,
            https_only=options.https_only,
            trusted_proxies=options.trusted_proxies,
            session_max_age_s=options.session_max_age_s,
            session_idle_s=options.session_idle_s,
            members=members_for(config) if members_for is not None else None,
            realm=name,
            limiter=options.limiter,
            **page_settings(config),
        )

    return make


def host_app(
    storage: Storage,
    folder: ClubFolder,
    options: PageOptions,
    language: str = DEFAULT_LANGUAGE,
) -> Starlette:
    """The host's page (module docstring), served under ``/host``: its accounts and sessions
    are rows of ``storage`` (the host database), its session cookie is scoped to ``/host``
    and records :data:`forumbot.web.host.HOST_REALM`."""
    storage.web_rows.migrate()
    routes = [
        Route("/", host_clubs),
        Route("/login", login_page, methods=["GET"]),
        Route("/login", login_submit, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/clubs/{club}/admin", host_add_admin, methods=["POST"]),
        Route("/me/password", password_page, methods=["GET"]),
        Route("/me/password", password_save, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = starlette_app(
        routes,
        secret_key=options.secret_key,
        https_only=options.https_only,
        trusted_proxies=options.trusted_proxies,
        session_max_age_s=options.session_max_age_s,
        cookie_path=HOST_REALM,
    )
    app.state.folder = folder
    app.state.deps = Deps(
        storage=storage,
        now=options.now,
        publisher=None,
        limiter=options.limiter,
        env=page_env(),
        session_idle_s=options.session_idle_s,
        language=language,
        realm=HOST_REALM,
        home="/",
        host_page=True,
    )
    return app


def create_site(
    boards_dir: str | Path,
    host_storage: Storage,
    *,
    secret_key: str,
    now: Callable[[], datetime] = _utc_now,
    https_only: bool = False,
    trusted_proxies: Sequence[str] = (),
    session_max_age_s: int = SESSION_MAX_AGE_S,
    session_idle_s: int = DEFAULT_IDLE_S,
    language: str = DEFAULT_LANGUAGE,
    members_for: Callable[[Config], MemberLookup | None] | None = None,
    open_db: Callable[[str], Storage] = open_storage,
) -> HostSite:
    """The review page of every club of ``boards_dir`` and the host's page
    (:class:`forumbot.web.host.HostSite`), one login limit for all (5 per username and
    address, 20 per address, in 15 minutes).

    Args:
        boards_dir: the folder ``forumbot serve --boards`` reads.
        host_storage: the host database (the host admins' accounts and sessions).
        secret_key: signs every session cookie (at least 32 characters).
        now: clock (aware UTC datetime).
        https_only, trusted_proxies: as :func:`forumbot.web.app.create_app` (for all).
        session_max_age_s, session_idle_s: the sessions' lifetimes in seconds.
        language: the host page's language when the user chose none; each club's page
            speaks its club's (:func:`forumbot.web.host.page_settings`).
        members_for: a club's board member look-up (``/me/notify``), or None.
        open_db: opens a club's database (tests may count or fail it).

    Raises:
        ValueError: ``secret_key`` is shorter than 32 characters.
    """
    if len(secret_key) < 32:
        raise ValueError("secret_key must have at least 32 characters")
    options = PageOptions(
        secret_key,
        now,
        LoginLimiter(now),
        https_only,
        tuple(trusted_proxies),
        session_max_age_s,
        session_idle_s,
    )
    folder = ClubFolder(boards_dir, club_page(options, members_for), open_db)
    host = host_app(host_storage, folder, options, language)
    return HostSite(
        folder,
        host,
        secret_key=secret_key,
        session_max_age_s=session_max_age_s,
        language=language,
    )


__all__ = ["PageOptions", "club_page", "create_site", "host_app"]
