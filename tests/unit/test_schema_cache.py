"""Issue 23 (soak speed): the remembered schema lookups of the storage's sqlite-utils database
never answer with a stale schema (forumbot.storage.schema_cache)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from forumbot.storage import open_storage
from forumbot.storage.sqlite_schema import SchemaCachedDatabase


def test_the_storage_opens_a_schema_cached_database() -> None:
    storage = open_storage(":memory:")
    assert isinstance(storage.db, SchemaCachedDatabase)
    assert "queue" in storage.db.table_names()
    assert storage.db["queue"].pks == ["id"]


def test_a_table_created_dropped_or_altered_is_seen_at_once() -> None:
    db = SchemaCachedDatabase(memory=True)
    assert db.table_names() == [] and db["t"].columns == []
    db["t"].insert({"id": 1, "a": "x"}, pk="id")  # created on first insert
    assert db.table_names() == ["t"] and db["t"].pks == ["id"]
    db.execute("alter table t add column b text")
    assert [c.name for c in db["t"].columns] == ["id", "a", "b"]
    db.execute("create view v as select * from t")
    assert db.view_names() == ["v"]
    db.execute("drop table t")
    assert db.table_names() == [] and not db["t"].exists()


def test_a_rolled_back_table_is_forgotten() -> None:
    db = SchemaCachedDatabase(memory=True)
    db.conn.execute("BEGIN")
    db.execute("create table t (a)")
    assert db.table_names() == ["t"]
    db.conn.execute("ROLLBACK")
    assert db.table_names() == []


def test_another_connection_s_migration_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    db = SchemaCachedDatabase(sqlite3.connect(path))
    db.execute("create table t (a)")
    assert db.table_names() == ["t"] and [c.name for c in db["t"].columns] == ["a"]
    other = sqlite3.connect(path)
    other.execute("create table u (b)")
    other.execute("alter table t add column c")
    other.commit()
    assert sorted(db.table_names()) == ["t", "u"]
    assert [c.name for c in db["t"].columns] == ["a", "c"]
