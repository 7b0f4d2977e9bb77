"""``storage.url`` (issue 27): which engine holds the database, read from the URL alone.

A plain path, ``:memory:`` or ``sqlite:///path`` (``sqlite:////abs/path``) is SQLite;
``postgresql://...`` (or ``postgres://``) is PostgreSQL (:mod:`forumbot.storage.engine`).
"""

from __future__ import annotations

import re
from pathlib import Path

from forumbot.config.errors import ConfigError

POSTGRES_SCHEMES = ("postgresql://", "postgres://")
"""URL prefixes that select PostgreSQL."""


def is_postgres(url: str) -> bool:
    """Whether ``url`` names a PostgreSQL database."""
    return url.lower().startswith(POSTGRES_SCHEMES)


def sqlite_path(url: str) -> str:
    """The SQLite file of ``url``: ``sqlite:///rel/path`` -> ``rel/path``, ``sqlite:////abs`` ->
    ``/abs``, ``sqlite:///:memory:`` -> ``:memory:``, a plain path unchanged.

    Raises:
        ConfigError: another scheme (``mysql://`` ...), or ``sqlite://host/...``.
    """
    if url.startswith("sqlite:"):
        if not url.startswith("sqlite:///"):
            raise ConfigError(f"storage.url {url!r}: write sqlite:///path (three slashes)")
        return url[len("sqlite:///") :]
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", url) and not is_postgres(url):
        raise ConfigError(
            f"storage.url {url!r}: only sqlite:///path, a path or postgresql://... are known"
        )
    return url


def resolve_database(database: str, url: str | None, base: Path) -> str:
    """The database a ``[storage]`` table names: ``url`` when set (a PostgreSQL URL kept as it
    is, SQLite's made a path, :func:`sqlite_path`), else ``database``; a relative SQLite path
    joined to ``base`` (the configuration file's folder). A PostgreSQL URL or ``:memory:`` is
    never made a path.

    >>> resolve_database("bot.db", "postgresql://bot@db/forumbot?schema=a", Path("/etc/forumbot"))
    'postgresql://bot@db/forumbot?schema=a'
    >>> resolve_database("bot.db", None, Path("/etc/forumbot"))
    '/etc/forumbot/bot.db'

    Raises:
        ConfigError: ``url`` has another scheme (:func:`sqlite_path`).
    """
    if url:
        database = url if is_postgres(url) else sqlite_path(url)
    if is_postgres(database) or database == ":memory:" or Path(database).is_absolute():
        return database
    return str(base / database)
