"""Run the review page for a configured bot: ``forumbot web`` (uvicorn, 127.0.0.1 by default).

Session key: ``$FORUMBOT_WEB_SECRET`` (at least 32 characters) or, when unset, a random key
kept in ``<database>.web-secret`` (created once, mode 0600), so sessions survive a restart; a
PostgreSQL club's file is in its state folder (:func:`forumbot.storage.engine.side_file`).

"Publish now" posts at once only with ``publish_now=True`` (the web process then logs in to
the board itself); otherwise an approved draft goes out at the next pass of ``forumbot run``.

Forum accounts named on ``/me/notify`` are looked up on the board (issue 24 F11,
:func:`board_members`): the web process logs in to the board for that too, with the bot's
password (``bot.password_env`` / ``bot.password_file``); without it every new forum account is
refused (« réessayez plus tard ») and a warning says why at start.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from forumbot.config import Config, ConfigError, check_secret_file
from forumbot.storage import Storage, open_storage
from forumbot.storage.engine import side_file
from forumbot.web.forum_account import MemberLookup

SECRET_ENV = "FORUMBOT_WEB_SECRET"
LOOKUP_RETRIES = 1
"""Retries of one member look-up (the person waits for the page: a board that fails twice is
« réessayez plus tard »)."""

log = logging.getLogger("forumbot.web.serve")


def secret_key(database: str, environ: Mapping[str, str] | None = None) -> str:
    """The session signing key (see module docstring).

    Raises:
        ValueError: when ``$FORUMBOT_WEB_SECRET`` is set but shorter than 32 characters.
        ConfigError: the secret file may be written by other users (created 0600; a warning
            is logged when others may read it).
    """
    env = os.environ if environ is None else environ
    value = env.get(SECRET_ENV)
    if value is not None:
        if len(value) < 32:
            raise ValueError(f"${SECRET_ENV} must have at least 32 characters")
        return value
    path = side_file(database, ".web-secret", whole_name=True)
    if path is None:
        return secrets.token_hex(32)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(secrets.token_hex(32))
    check_secret_file(path, "web secret")
    return path.read_text(encoding="ascii").strip()


def board_publisher(config: Config, storage: Storage) -> Callable[[int], None]:
    """``publisher(declaration_id)`` that posts an approved declaration to the board now
    (through :func:`forumbot.publish.poster.publish_one`, exactly once, advancing the duel)."""
    from forumbot.app import bootstrap
    from forumbot.duels.publication import apply_published
    from forumbot.publish.poster import publish_one

    bot = bootstrap(config, storage=storage)

    def publish(decl_id: int) -> None:
        decl = storage.declaration(decl_id)
        if decl["status"] not in ("approved", "publishing"):
            return
        publish_one(
            storage,
            bot.client,
            decl,
            bot.now,
            on_published=lambda row: apply_published(storage, row, bot.now()),
        )

    return publish


def board_members(config: Config, password: str | None = None) -> MemberLookup | None:
    """The member look-up of ``/me/notify`` (:data:`forumbot.web.forum_account.MemberLookup`):
    a forum client of its own (no cookie jar: the running bot's jar is not touched), logged in
    on the first look-up, one look-up at a time (the client is not thread-safe), answers
    cached an hour (:class:`forumbot.forums.members.MemberCache`). None (logged) when the bot's
    password is not available.
    """
    try:
        secret = config.password() if password is None else password
    except ConfigError as exc:
        log.warning("forum accounts on /me/notify cannot be checked on the board: %s", exc)
        return None
    from forumbot.app import make_client

    client = make_client(config, secret, keep_session=False)
    if hasattr(client, "max_retries"):
        client.max_retries = LOOKUP_RETRIES
    spell = getattr(client, "member_spelling", None)
    if spell is None:
        log.warning("the %s client cannot look members up", config.platform)
        return None
    lock = threading.Lock()

    def lookup(name: str) -> str | bool | None:
        with lock:
            found: str | bool | None = spell(name)
            return found

    return lookup


def uvicorn_config(
    app: Any,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    uds: str = "",
) -> Any:
    """The ``uvicorn.Config`` the review page runs with: on ``host:port``, or on the Unix
    socket ``uds`` when given (then host and port are unused; the documented deploy, issue 24
    F4: only the proxy can reach a socket in a folder only it and the service may enter).

    uvicorn's own proxy-header handling is off (``proxy_headers=False``; by default it
    believes ``X-Forwarded-For`` from 127.0.0.1, so anyone behind a local proxy, or on the
    host, could pick the address the login limit counts): the app does it itself, for the
    configured ``web.trusted_proxies`` only (:func:`forumbot.web.app.create_app`).
    """
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        uds=uds or None,
        log_level=log_level,
        proxy_headers=False,
        server_header=False,
    )


def serve(
    config: Config,
    host: str = "127.0.0.1",
    port: int = 8000,
    publish_now: bool = False,
    uds: str = "",
) -> None:
    """Serve the review page until interrupted (blocking), on ``host:port`` or on the Unix
    socket ``uds`` (``--uds``, else ``web.socket``; "" = TCP).

    The session cookie is ``Secure`` and HSTS is sent when ``web.https_only`` is true;
    ``X-Forwarded-For`` is believed from ``web.trusted_proxies`` only (``"unix"``: the peer
    of the Unix socket, i.e. the proxy); times show in ``board.timezone``.

    Raises:
        ValueError: no session key, or the address / socket cannot be listened on.
    """
    uds = uds or config.web_socket
    from forumbot.web.app import create_app
    from forumbot.web.host import page_settings

    storage = open_storage(config.database)
    publisher = board_publisher(config, storage) if publish_now else None
    app = create_app(
        storage,
        secret_key=secret_key(config.database),
        publisher=publisher,
        https_only=config.web_https_only,
        trusted_proxies=config.web_trusted_proxies,
        members=board_members(config),
        **page_settings(config),
    )
    run_page(app, host, port, uds)


def run_page(app: Any, host: str, port: int, uds: str) -> None:
    """Run ``app`` with uvicorn (:func:`uvicorn_config`) until interrupted (blocking).

    Raises:
        ValueError: the address / socket cannot be listened on.
    """
    import uvicorn

    server = uvicorn.Server(uvicorn_config(app, host, port, uds=uds))
    try:
        server.run()
    except SystemExit:  # uvicorn's own start-up failure (exit 3): reported as ours below
        pass
    if not server.started:  # e.g. the port is in use: uvicorn logged why
        where = f"unix socket {uds}" if uds else f"{host}:{port}"
        raise ValueError(f"the review page could not listen on {where} (see the line above)")


def host_database(boards_dir: str | Path, host_db: str = "") -> str:
    """The host database of ``forumbot web --boards`` / ``forumbot host``: ``host_db``
    (``--host-db``: a path or ``storage.url``), else ``host.db`` in the folder (not a
    ``.toml``: never read as a club)."""
    return host_db or str(Path(boards_dir) / "host.db")


def serve_boards(
    boards_dir: str | Path,
    host_db: str = "",
    host: str = "127.0.0.1",
    port: int = 8000,
    uds: str = "",
    https_only: bool = False,
    trusted_proxies: tuple[str, ...] = (),
    language: str = "fr",
) -> None:
    """Serve the review page of every club of ``boards_dir`` and the host's page
    (:func:`forumbot.web.site.create_site`) until interrupted (blocking). The session key is
    ``$FORUMBOT_WEB_SECRET`` or the host database's ``.web-secret`` file (:func:`secret_key`;
    a PostgreSQL host database needs the variable). Each club's forum
    accounts on ``/me/notify`` are checked on its board with its bot's password
    (:func:`board_members`). "Publish now" is not offered: approved drafts go out at
    ``forumbot serve``'s next pass.

    Raises:
        ConfigError: ``boards_dir`` is not a folder, or the host database cannot be opened.
        ValueError: no session key (a PostgreSQL host database without
            ``$FORUMBOT_WEB_SECRET``), or the address / socket cannot be listened on.
    """
    from forumbot.config.storage_url import is_postgres
    from forumbot.ops.boards_dir import club_paths
    from forumbot.ops.club_log import install_club_logging
    from forumbot.web.site import create_site

    club_paths(boards_dir)  # not a folder: refused now, not at the first request
    install_club_logging()  # "[club]" on the lines of a club's page, as under forumbot serve
    database = host_database(boards_dir, host_db)
    if is_postgres(database) and SECRET_ENV not in os.environ:
        raise ValueError(
            f"a PostgreSQL host database keeps no key file: set ${SECRET_ENV} (at least 32 "
            "characters), the key of every session cookie of the site"
        )
    key = secret_key(database)
    site = create_site(
        boards_dir,
        open_storage(database),
        secret_key=key,
        https_only=https_only,
        trusted_proxies=trusted_proxies,
        language=language,
        members_for=board_members,
    )
    run_page(site, host, port, uds)
