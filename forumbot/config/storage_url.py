"""``storage.url`` (issue 27): which engine holds the database, read from the URL alone.

A plain path, ``:memory:`` or ``sqlite:///path`` (``sqlite:////abs/path``) is SQLite;
``postgresql://...`` (or ``postgres://``) is PostgreSQL (:mod:`forumbot.storage.engine`).
"""

from __future__ import annotations

import re

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
