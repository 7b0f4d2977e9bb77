"""The schema cache of the bot's SQLite connections (forumbot.storage.sqlite_schema): every
schema change, on this connection or another, and a rolled-back one, is seen at once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from sqlite_utils.db import NoTable

from forumbot.storage import open_storage
from forumbot.storage.sqlite_schema import SchemaCachedDatabase


def _pair(tmp_path: Path) -> tuple[SchemaCachedDatabase, sqlite3.Connection]:
    path = tmp_path / "s.db"
    return SchemaCachedDatabase(sqlite3.connect(path)), sqlite3.connect(path)


def test_the_bots_connections_use_the_cache(tmp_path: Path) -> None:
    assert isinstance(open_storage(":memory:").db, SchemaCachedDatabase)
    assert isinstance(open_storage(tmp_path / "bot.db").db, SchemaCachedDatabase)


def test_a_table_another_connection_creates_is_seen_with_its_rows(tmp_path: Path) -> None:
    db, other = _pair(tmp_path)
    assert db.table_names() == []
    assert list(db["posts"].rows_where()) == []  # read (and cached) before it exists
    other.execute("create table posts (id integer primary key, text text)")
    other.execute("insert into posts (text) values ('Expelliarmus')")
    other.commit()
    assert db.table_names() == ["posts"]
    assert [r["text"] for r in db["posts"].rows_where()] == ["Expelliarmus"]
    assert db["posts"].pks == ["id"]


def test_a_column_added_elsewhere_is_seen(tmp_path: Path) -> None:
    db, other = _pair(tmp_path)
    db["duels"].insert({"id": 1, "status": "open"}, pk="id")
    assert [c.name for c in db["duels"].columns] == ["id", "status"]
    other.execute("alter table duels add column turn integer")
    other.commit()
    assert [c.name for c in db["duels"].columns] == ["id", "status", "turn"]
    db["duels"].update(1, {"turn": 2})
    assert db["duels"].get(1) == {"id": 1, "status": "open", "turn": 2}


def test_a_rolled_back_table_is_forgotten(tmp_path: Path) -> None:
    db, _ = _pair(tmp_path)
    db.conn.execute("begin")
    db.conn.execute("create table draft (id integer primary key)")
    assert "draft" in db.table_names()
    db.conn.rollback()
    assert db.table_names() == []
    assert not db["draft"].exists()
    assert db["draft"].columns == []


def test_a_view_is_still_a_view(tmp_path: Path) -> None:
    db, other = _pair(tmp_path)
    db["t"].insert({"id": 1}, pk="id")
    other.execute("create view v as select id from t")
    other.commit()
    assert db.view_names() == ["v"]
    with pytest.raises(NoTable):
        db.table("v")
    assert [r["id"] for r in db["v"].rows] == [1]
    assert db.table_names(fts4=True) == []


def test_a_table_dropped_elsewhere_fails_loudly_never_reads_as_empty(tmp_path: Path) -> None:
    db, other = _pair(tmp_path)
    db["posts"].insert({"id": 1, "text": "Lumos"}, pk="id")
    assert db["posts"].exists()
    other.execute("drop table posts")
    other.commit()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        list(db["posts"].rows_where())
    assert db.table_names() == []  # asked outright: read again
    assert not db["posts"].exists()
    assert list(db["posts"].rows_where()) == []  # now known gone: sqlite-utils' answer
