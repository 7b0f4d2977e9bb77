"""``forumbot backup``, ``restore`` and ``check``'s copy on PostgreSQL (issue 27): pg_dump of the
club's schema with the same retention, a restore in one transaction with its safety copy and
its stamp, the run lock, refused archives, and the dry run's in-memory copy that writes
nothing to the server. Skipped, with the reason, without a server (``POSTGRES_URL``,
tests/engines.py) or without ``pg_dump``."""

from __future__ import annotations

import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from forumbot.config import load_config
from forumbot.ops.backup import (
    BackupError,
    RestoreError,
    backup,
    backup_name,
    default_backup_dir,
    list_backups,
    restore,
)
from forumbot.ops.lock import AlreadyRunning, single_instance
from forumbot.storage import Storage, open_storage
from forumbot.storage.engine import split_schema
from forumbot.storage.pg_files import PgToolError, dump_health, memory_copy_pg, pg_tool
from tests.engines import PgSchemas

psycopg = pytest.importorskip("psycopg", reason="no psycopg: pip install '.[postgres]'")

NOW = datetime(2026, 11, 30, 11, 45, 7, tzinfo=UTC)


@pytest.fixture
def pg(pg_schemas: PgSchemas) -> PgSchemas:
    """The test's schemas, skipping without the PostgreSQL client programs."""
    try:
        for tool in ("pg_dump", "pg_restore", "psql"):
            pg_tool(tool)
    except PgToolError as exc:
        pytest.skip(str(exc))
    return pg_schemas


def seeded(url: str, rows: int) -> None:
    """``rows`` more audit rows in the club's schema at ``url``."""
    storage = open_storage(url)
    start = len(storage.audit_entries())
    for i in range(start, start + rows):
        storage.audit("t", "seed", f"row:{i}", None, {"i": i}, NOW)
    storage.close()


def audit_count(url: str) -> int:
    storage = open_storage(url)
    try:
        return len(storage.audit_entries())
    finally:
        storage.close()


MINIMAL = '[board]\nurl = "https://b.example"\n[bot]\nusername = "Hibou"\n[[watch]]\nforum_id = 3\n'
"""A club file's required settings; its ``[storage]`` table is the test's."""


def club_file(tmp_path: Path, name: str, storage: str) -> Path:
    """``tmp_path/name``: :data:`MINIMAL` and ``[storage]`` ``storage`` (mode 0644)."""
    path = tmp_path / name
    path.write_text(f"{MINIMAL}[storage]\n{storage}\n", encoding="utf-8")
    path.chmod(0o644)
    return path


def schema_of(url: str) -> str:
    schema = split_schema(url)[1]
    assert schema is not None
    return schema


def test_backup_is_a_private_pg_dump_of_the_schema_kept_n_days(
    pg: PgSchemas, tmp_path: Path
) -> None:
    url = pg.fresh()
    live = open_storage(url)  # a connection stays open: pg_dump runs beside it
    live.audit("t", "seed", "row:0", None, {"i": 0}, NOW)
    dest = tmp_path / "backups"
    path = backup(url, dest, NOW)
    live.close()
    assert path == dest / f"postgres-{schema_of(url)}-20261130.dump"
    assert path.name == backup_name(url, NOW)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(dest.stat().st_mode) == 0o700
    assert dump_health(path) == ([], True, schema_of(url))
    assert not list(dest.glob(".*.tmp"))
    unrelated = dest / "postgres-other-20261101.dump"
    unrelated.write_bytes(b"another club's")
    for day in range(10):
        backup(url, dest, NOW + timedelta(days=day), keep=3)
    assert [p.name for p in list_backups(url, dest)] == [
        backup_name(url, NOW + timedelta(days=d)) for d in (7, 8, 9)
    ]
    assert unrelated.exists()


def test_backup_refuses_a_schema_that_does_not_exist(pg: PgSchemas, tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="no matching schemas"):
        backup(pg.fresh(), tmp_path / "b", NOW)
    assert not list((tmp_path / "b").iterdir())


def test_restore_round_trip_in_one_transaction_keeps_a_safety_dump(
    pg: PgSchemas, tmp_path: Path
) -> None:
    url = pg.fresh()
    seeded(url, 2)
    saved = backup(url, tmp_path / "backups", NOW)
    seeded(url, 5)  # 7 rows now
    reader = open_storage(url)  # a CLI command holding the schema open meanwhile
    assert len(reader.audit_entries()) == 7
    safety = restore(saved, url, now=NOW)
    assert len(reader.audit_entries()) == 2  # the open session reads the restored rows
    reader.close()
    assert safety == saved.parent / f"postgres-{schema_of(url)}.pre-restore-20261130T114507Z.dump"
    assert stat.S_IMODE(safety.stat().st_mode) == 0o600
    assert audit_count(url) == 2
    storage = open_storage(url)
    (stamp,) = storage.db.query("select restored_at, backup, started_at from publish_restores")
    assert stamp == {"restored_at": "2026-11-30T11:45:07+00:00", "backup": saved.name,
                     "started_at": None}  # fmt: skip
    storage.audit("t", "after", "row:new", None, {}, NOW)  # ids go on after the restored ones
    storage.close()
    restore(safety, url, now=NOW + timedelta(minutes=1))  # the safety dump restores too
    assert audit_count(url) == 7


def test_restore_refuses_while_forumbot_run_holds_the_lock(pg: PgSchemas, tmp_path: Path) -> None:
    url = pg.fresh()
    seeded(url, 2)
    saved = backup(url, tmp_path / "backups", NOW)
    seeded(url, 1)
    with single_instance(url), pytest.raises(AlreadyRunning):
        restore(saved, url, now=NOW)
    assert audit_count(url) == 3
    assert not list(tmp_path.rglob("*.pre-restore-*"))


def test_restore_refuses_bad_archives_and_changes_nothing(pg: PgSchemas, tmp_path: Path) -> None:
    url, other = pg.fresh(), pg.fresh()
    seeded(url, 2)
    seeded(other, 1)
    junk = tmp_path / "junk.dump"
    junk.write_bytes(b"definitely not an archive " * 100)
    with pytest.raises(RestoreError, match="not a readable pg_dump archive"):
        restore(junk, url, now=NOW)
    sqlite_file = tmp_path / "forumbot.db"
    open_storage(sqlite_file).close()
    with pytest.raises(RestoreError, match="not a readable pg_dump archive"):
        restore(sqlite_file, url, now=NOW)
    foreign = backup(other, tmp_path / "b", NOW)
    with pytest.raises(RestoreError, match=f"holds schema {schema_of(other)}"):
        restore(foreign, url, now=NOW)
    dsn, _ = split_schema(url)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'create table "{schema_of(other)}".stray (x int)')
        conn.execute(f'drop table "{schema_of(other)}"._sqlite_migrations')
    not_ours = tmp_path / "not-ours.dump"
    from forumbot.storage.pg_files import dump_schema

    with pytest.raises(PgToolError, match="holds no forumbot tables"):
        dump_schema(other, not_ours)
    assert not not_ours.exists()
    assert audit_count(url) == 2
    assert not list(tmp_path.rglob("*.pre-restore-*"))


def test_a_restore_that_fails_midway_leaves_the_schema_as_it_was(
    pg: PgSchemas, tmp_path: Path
) -> None:
    """Another session holds a lock on a club table past the restore's lock timeout: the
    one transaction rolls back; the rows and the tables are the live ones."""
    from forumbot.storage import pg_files

    url = pg.fresh()
    seeded(url, 2)
    saved = backup(url, tmp_path / "backups", NOW)
    seeded(url, 3)
    dsn, _ = split_schema(url)
    with psycopg.connect(dsn) as holder:
        holder.execute(f'lock table "{schema_of(url)}".audit_log in access share mode')
        old = pg_files.RESTORE_LOCK_TIMEOUT
        pg_files.RESTORE_LOCK_TIMEOUT = "200ms"
        try:
            with pytest.raises(RestoreError, match="nothing changed"):
                restore(saved, url, now=NOW)
        finally:
            pg_files.RESTORE_LOCK_TIMEOUT = old
        holder.rollback()
    assert audit_count(url) == 5
    storage = open_storage(url)
    assert list(storage.db.query("select * from publish_restores")) == []
    storage.close()


def test_check_copies_the_schema_into_memory_and_writes_nothing(pg: PgSchemas) -> None:
    url = pg.fresh()
    seeded(url, 3)
    copy = memory_copy_pg(url)
    assert copy.path == ":memory:" and len(copy.audit_entries()) == 3
    copy.audit("t", "dry", "row:x", None, {}, NOW)  # the dry run writes to its copy only
    assert len(copy.audit_entries()) == 4 and audit_count(url) == 3
    live = open_storage(url)
    assert [m.name for m in _applied(copy)] == [m.name for m in _applied(live)]
    live.close()
    missing = pg.fresh()
    empty = memory_copy_pg(missing)
    assert empty.audit_entries() == [] and empty.duels() == []
    dsn, _ = split_schema(missing)
    with psycopg.connect(dsn) as conn:  # the dry run did not create the schema
        found = conn.execute(
            "select 1 from pg_namespace where nspname = %s", [schema_of(missing)]
        ).fetchone()
    assert found is None


def _applied(storage: Storage) -> list[object]:
    from forumbot.storage import MIGRATIONS

    return list(MIGRATIONS.applied(storage.db))


def test_the_backup_folder_of_a_postgresql_club(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``storage.backup_dir`` (relative to the file), else ``./backups`` on PostgreSQL (no file
    to sit beside), else beside the SQLite database."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
    url = 'url = "postgresql://u@h/db?schema=club"'
    pg_file = club_file(tmp_path, "pg.toml", url)
    assert default_backup_dir(load_config(pg_file)) == tmp_path / "backups"
    pg_file = club_file(tmp_path, "pg.toml", f'{url}\nbackup_dir = "dumps"')
    assert default_backup_dir(load_config(pg_file)) == tmp_path / "dumps"
    lite = club_file(tmp_path, "lite.toml", 'database = "data/bot.db"')
    assert default_backup_dir(load_config(lite)) == tmp_path / "data" / "backups"


def test_the_commands_back_up_and_restore_a_postgresql_club(
    pg: PgSchemas, tmp_path: Path
) -> None:
    """``forumbot backup`` / ``restore -c`` with ``storage.url``: the dump lands in
    ``storage.backup_dir``; the restore names the schema's URL without a password."""
    from click.testing import CliRunner

    from forumbot.cli import main

    url = pg.fresh()
    seeded(url, 2)
    config = club_file(tmp_path, "club.toml", f'url = "{url}"\nbackup_dir = "dumps"')
    done = CliRunner().invoke(main, ["backup", "-c", str(config), "--keep", "2"])
    assert done.exit_code == 0, done.output
    saved = Path(done.output.strip())
    assert list_backups(url, tmp_path / "dumps") == [saved]
    seeded(url, 4)
    done = CliRunner().invoke(main, ["restore", str(saved), "-c", str(config)])
    assert done.exit_code == 0, done.output
    assert f"into {url}" in done.output and "pre-restore" in done.output
    assert audit_count(url) == 2


def test_a_postgresql_clubs_side_files_live_in_its_state_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cookie jar, the notice journal (which a restore must not roll back: issue 23) and
    the dice reserve of a PostgreSQL club: named after its database and schema in
    ``$STATE_DIRECTORY`` (else the working directory), never a path made of the URL."""
    from forumbot.app import cookie_file_for
    from forumbot.duels.dice_reserve import reserve_path
    from forumbot.notify.journal import journal_path
    from forumbot.storage.engine import pg_file_stem

    url = "postgresql://bot:secret@db.example/forumbot?schema=poudlard&sslmode=require"
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    assert journal_path(url) == tmp_path / "state" / "forumbot-poudlard.notices.journal"
    assert cookie_file_for(url) == tmp_path / "state" / "forumbot-poudlard.cookies.json"
    assert reserve_path(url) == tmp_path / "state" / "forumbot-poudlard.dice-reserve.json"
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.chdir(tmp_path)
    assert journal_path(url) == tmp_path / "forumbot-poudlard.notices.journal"
    assert default_backup_dir_of(url) == tmp_path / "backups"
    assert pg_file_stem("postgresql://u@h/db?options=-csearch_path%3Dclub_b,public") == "db-club_b"
    assert pg_file_stem("postgres://u@h") == "u-public"
    assert journal_path("/var/lib/forumbot/bot.db") == Path("/var/lib/forumbot/bot.notices.journal")
    assert reserve_path("/x/bot.db") == Path("/x/bot.db.dice-reserve.json")
    assert reserve_path(":memory:") is None and cookie_file_for(":memory:") is None


def default_backup_dir_of(url: str) -> Path:
    from forumbot.config import Config

    config = Config(board_url="https://b.org", platform="phpbb3", username="Hibou", database=url)
    return default_backup_dir(config)


def test_doctor_reads_a_postgresql_clubs_schema_without_creating_it(pg: PgSchemas) -> None:
    """``doctor --offline`` on ``storage.url``: the schema's tables and its migrations, read
    only; a schema not made yet is a warning (``run`` makes it), and is still not made."""
    from forumbot.config import Config, WatchedForum
    from forumbot.ops.doctor import doctor

    def checks(url: str) -> dict[str, tuple[str, str]]:
        config = Config(board_url="https://b.org", platform="phpbb3", username="Hibou",
                        database=url, watch=(WatchedForum(3),))  # fmt: skip
        found = doctor(config, offline=True, environ={"FORUMBOT_PASSWORD": "s3cret"})
        return {c.name: (c.status, c.detail) for c in found}

    url = pg.fresh()
    seeded(url, 1)
    found = checks(url)
    assert found["database"][0] == "ok" and f"schema {schema_of(url)}:" in found["database"][1]
    assert found["migrations"][0] == "ok" and "none pending" in found["migrations"][1]
    # no path made of the URL: the club's state and backup folders on this machine
    assert found["filesystem"][1].startswith("PostgreSQL: ") and "postgresql:" not in found[
        "filesystem"][1]  # fmt: skip
    assert found["backup"][0] in ("ok", "warn") and "pg_dump" in found["backup"][1]
    missing = pg.fresh()
    found = checks(missing)
    assert found["database"][0] == "warn" and found["migrations"][0] == "skip"
    assert memory_copy_pg(missing).duels() == []  # still no schema: an empty copy
    dsn, _ = split_schema(missing)
    with psycopg.connect(dsn) as conn:
        made = conn.execute(
            "select 1 from pg_namespace where nspname = %s", [schema_of(missing)]
        ).fetchone()
    assert made is None


def test_the_daily_backup_of_a_postgresql_club_goes_to_its_state_folder(
    pg: PgSchemas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``run`` (ops.scheduler) does each day: a pg_dump in ``<state folder>/backups``,
    ``storage.backup_keep`` kept."""
    from forumbot.config import Config
    from forumbot.ops.backup import daily_backup

    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    url = pg.fresh()
    seeded(url, 1)
    config = Config(board_url="https://b.org", platform="phpbb3", username="Hibou",
                    database=url, backup_keep=2)  # fmt: skip
    for day in range(3):
        daily_backup(config, NOW + timedelta(days=day))
    kept = list_backups(url, tmp_path / "backups")
    assert [p.name for p in kept] == [backup_name(url, NOW + timedelta(days=d)) for d in (1, 2)]
