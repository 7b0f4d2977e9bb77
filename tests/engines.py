"""The storage tests on both engines (issue 27): SQLite always, PostgreSQL when a server answers.

The server is ``POSTGRES_URL`` (``.ci/run`` starts one from Debian's package and exports it),
else a local one at ``postgresql://postgres@127.0.0.1:5432/postgres`` if it answers; without
either, the PostgreSQL cases skip with the reason. Every database a test opens on PostgreSQL is
a schema of its own (``?schema=t_...``), dropped at the end of the test: tests run in parallel
(pytest-xdist) on one server.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from forumbot.storage import Storage
from forumbot.storage import open_storage as real_open_storage

LOCAL_SERVER = "postgresql://postgres@127.0.0.1:5432/postgres"
ENGINES = ("sqlite", "postgresql")


def server_url() -> tuple[str | None, str]:
    """The PostgreSQL server to test against, or None and why not."""
    try:
        import psycopg
    except ImportError:
        return None, "psycopg is not installed (pip install '.[postgres]')"
    url = os.environ.get("POSTGRES_URL") or LOCAL_SERVER
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except psycopg.Error as exc:
        where = "POSTGRES_URL" if os.environ.get("POSTGRES_URL") else "no POSTGRES_URL, and"
        return None, f"PostgreSQL skipped: {where} {url} does not answer ({exc})".strip()
    return url, ""


def with_schema(base: str, schema: str) -> str:
    """``base`` (a server URL) with ``schema=`` set."""
    return f"{base}{'&' if '?' in base else '?'}schema={schema}"


class PgSchemas:
    """Schemas made for one test on the server ``base``, dropped by :meth:`drop`."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.names: list[str] = []

    def fresh(self) -> str:
        """The URL of a new, empty schema."""
        return self.named(f"t_{uuid.uuid4().hex[:16]}")

    def for_path(self, path: str) -> str:
        """The same schema every time for the same file path in this test (a reopening)."""
        return self.named("t_" + hashlib.sha1(f"{id(self)}:{path}".encode()).hexdigest()[:16])

    def named(self, name: str) -> str:
        if name not in self.names:
            self.names.append(name)
        return with_schema(self.base, name)

    def drop(self) -> None:
        import psycopg

        # A session the test left open in a transaction would make the drop wait: it gives
        # up after 10 s and leaves the schema (a throwaway server's; the next one is new).
        with psycopg.connect(self.base, autocommit=True) as conn:
            conn.execute("set lock_timeout = '10s'")
            for name in self.names:
                try:
                    conn.execute(f'drop schema if exists "{name}" cascade')
                except psycopg.errors.LockNotAvailable:
                    continue


@pytest.fixture(scope="session")
def postgres_server() -> tuple[str | None, str]:
    """The session's PostgreSQL server URL (None and the reason when there is none)."""
    return server_url()


@pytest.fixture
def pg_schemas(postgres_server: tuple[str | None, str]) -> Iterator[PgSchemas]:
    """Fresh schemas on the test server, dropped after the test (skips without a server)."""
    url, reason = postgres_server
    if url is None:
        pytest.skip(reason)
    schemas = PgSchemas(url)
    try:
        yield schemas
    finally:
        schemas.drop()


@pytest.fixture(params=ENGINES)
def storage_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """A new database's ``storage.url`` on each engine: a SQLite file, a PostgreSQL schema."""
    if request.param == "sqlite":
        return str(tmp_path / "engine.db")
    schemas: PgSchemas = request.getfixturevalue("pg_schemas")
    return schemas.fresh()


@pytest.fixture(params=ENGINES)
def on_each_engine(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Run the test module once per engine: on PostgreSQL its ``open_storage`` opens a schema
    (``":memory:"``: a new one each call; a file path: the same one for the same path)."""
    if request.param == "sqlite":
        return "sqlite"
    if request.node.get_closest_marker("sqlite_only"):
        pytest.skip(request.node.get_closest_marker("sqlite_only").args[0])
    schemas: PgSchemas = request.getfixturevalue("pg_schemas")

    def open_on_pg(path: Any) -> Storage:
        text = str(path)
        url = schemas.fresh() if text == ":memory:" else schemas.for_path(text)
        return real_open_storage(url)

    opener: Callable[[Any], Storage] = open_on_pg
    monkeypatch.setattr(request.module, "open_storage", opener)
    return "postgresql"
