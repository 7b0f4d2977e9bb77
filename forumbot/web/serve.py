"""Run the review page for a configured bot: ``forumbot web`` (uvicorn, 127.0.0.1 by default).

Session key: ``$FORUMBOT_WEB_SECRET`` (at least 32 characters) or, when unset, a random key
kept in ``<database>.web-secret`` (created once, mode 0600), so sessions survive a restart.

"Publish now" posts at once only with ``publish_now=True`` (the web process then logs in to
the board itself); otherwise an approved draft goes out at the next pass of ``forumbot run``.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from forumbot.config import Config, check_secret_file
from forumbot.storage import Storage, open_storage

SECRET_ENV = "FORUMBOT_WEB_SECRET"


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
    if database == ":memory:":
        return secrets.token_hex(32)
    path = Path(database + ".web-secret")
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


def uvicorn_config(
    app: Any, host: str = "127.0.0.1", port: int = 8000, log_level: str = "info"
) -> Any:
    """The ``uvicorn.Config`` the review page runs with.

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
        log_level=log_level,
        proxy_headers=False,
        server_header=False,
    )


def serve(
    config: Config, host: str = "127.0.0.1", port: int = 8000, publish_now: bool = False
) -> None:
    """Serve the review page until interrupted (blocking).

    The session cookie is ``Secure`` when ``web.https_only`` is true; ``X-Forwarded-For``
    is believed from ``web.trusted_proxies`` only; times show in ``board.timezone``.
    """
    import uvicorn

    from forumbot.web.app import create_app

    storage = open_storage(config.database)
    publisher = board_publisher(config, storage) if publish_now else None
    from forumbot.notify.settings import notify_config

    app = create_app(
        storage,
        secret_key=secret_key(config.database),
        publisher=publisher,
        https_only=config.web_https_only,
        trusted_proxies=config.web_trusted_proxies,
        timezone=config.timezone,
        notify=notify_config(config),
    )
    server = uvicorn.Server(uvicorn_config(app, host, port))
    try:
        server.run()
    except SystemExit:  # uvicorn's own start-up failure (exit 3): reported as ours below
        pass
    if not server.started:  # e.g. the port is in use: uvicorn logged why
        raise ValueError(f"the review page could not listen on {host}:{port} (see the line above)")
