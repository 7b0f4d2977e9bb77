"""Issue 27 ops gaps: a ``postgresql://`` storage URL is never made a path (the language peek
before a command, the network-filesystem warning, doctor's ``filesystem`` check), doctor says
what it checks on PostgreSQL instead (the club's state and backup folders, ``pg_dump``), and
``doctor --all --lease-url`` shows each club's lease. The cases that read a server skip, with
the reason, without one (tests/engines.py); lease times are passed explicitly (``at``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from forumbot.cli._common import peek_language
from forumbot.config import Config, parse_config
from forumbot.config.storage_url import resolve_database
from forumbot.i18n import translate
from forumbot.ops import doctor_folders
from forumbot.ops.doctor_all import doctor_all
from forumbot.ops.doctor_folders import backup_tool_check, filesystem_check
from forumbot.ops.filesystem import network_filesystem_warning
from forumbot.ops.startup import check_filesystem
from forumbot.storage import open_storage
from forumbot.storage.pg_files import PgToolError
from tests.engines import PgSchemas

UNREACHABLE = "postgresql://bot@127.0.0.1:9/forumbot?schema=poudlard"
"""A PostgreSQL URL no server answers (port 9: discard, closed)."""

NFS_EVERYWHERE = "nas:/export / nfs4 rw 0 0\n"
"""A mount table whose root is on NFS: any path, relative or not, is on it."""


def club_toml(url: str, board: str = "https://b.org", *, key: str = "url") -> str:
    return (f'[board]\nurl = "{board}"\n[bot]\nusername = "Hibou"\n'
            f'[storage]\n{key} = "{url}"\n[[watch]]\nforum_id = 3\n')  # fmt: skip


def test_a_postgresql_url_is_kept_as_it_is_by_every_reader_of_the_file(tmp_path: Path) -> None:
    base = tmp_path / "etc"
    assert resolve_database("bot.db", UNREACHABLE, base) == UNREACHABLE
    assert resolve_database(UNREACHABLE, None, base) == UNREACHABLE  # storage.database = URL
    assert resolve_database("bot.db", "sqlite:///club.db", base) == str(base / "club.db")
    assert resolve_database(":memory:", None, base) == ":memory:"
    for key in ("url", "database"):
        config = parse_config(club_toml(UNREACHABLE, key=key), base_dir=base)
        assert config.database == UNREACHABLE


def test_the_language_peek_reads_a_postgresql_club_and_never_a_path(
    tmp_path: Path, pg_schemas: PgSchemas
) -> None:
    """``peek_language`` (a command's language, before it runs) on ``storage.url``: the board's
    recorded language is read from the club's schema; a schema not made yet, or a server that
    does not answer, gives None (English) and nothing is created beside the file."""
    url = pg_schemas.fresh()
    path = tmp_path / "club.toml"
    path.write_text(club_toml(url), encoding="utf-8")
    assert peek_language(str(path)) is None  # no schema yet
    storage = open_storage(url)
    storage.record_board_language("https://b.org", "phpbb3", "fr", datetime.now(UTC))
    storage.close()
    assert peek_language(str(path)) == "fr"
    path.write_text(club_toml(url, key="database"), encoding="utf-8")
    assert peek_language(str(path)) == "fr"
    path.write_text(club_toml(UNREACHABLE), encoding="utf-8")
    assert peek_language(str(path)) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["club.toml"]


def test_no_network_filesystem_warning_for_a_postgresql_club(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """SQLite's WAL warning is about a database file: a PostgreSQL URL has none (before, its
    « folder » ``postgresql:/bot@...`` was looked up and the working folder's mount judged)."""
    table = tmp_path / "mounts"
    table.write_text(NFS_EVERYWHERE, encoding="utf-8")
    assert network_filesystem_warning(str(tmp_path / "bot.db"), table) is not None
    assert network_filesystem_warning(UNREACHABLE, table) is None
    config = parse_config(club_toml(UNREACHABLE), base_dir=tmp_path)
    caplog.set_level("WARNING", logger="forumbot.startup")
    assert check_filesystem(config, table) is None
    assert not caplog.records


def pg_config(tmp_path: Path, **changes: object) -> Config:
    values: dict[str, object] = {"board_url": "https://b.org", "platform": "phpbb3",
                                 "username": "Hibou", "database": UNREACHABLE}  # fmt: skip
    values.update(changes)
    return Config(**values)  # type: ignore[arg-type]


def test_doctor_checks_a_postgresql_clubs_folders_not_a_path_made_of_its_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("STATE_DIRECTORY", str(state))
    table = tmp_path / "mounts"
    table.write_text(f"/dev/sda1 {tmp_path} ext4 rw 0 0\n", encoding="utf-8")
    found = filesystem_check(pg_config(tmp_path), table)
    assert found.status == "ok", found
    assert f"state folder {state} (on ext4 {tmp_path})" in found.detail
    assert f"backups in {state / 'backups'}:" in found.detail and "MiB free" in found.detail
    assert "postgresql:" not in found.detail
    elsewhere = tmp_path / "dumps"
    assert f"backups in {elsewhere}:" in filesystem_check(
        pg_config(tmp_path, backup_dir=str(elsewhere)), table
    ).detail
    monkeypatch.setattr(doctor_folders, "MIN_BACKUP_FREE_MIB", 1 << 40)  # more than any disk
    low = filesystem_check(pg_config(tmp_path), table)
    assert low.status == "warn" and "MiB free for the backups in" in low.detail
    french = translate("fr", low.message, *low.args)
    assert french != low.detail and str(state / "backups") in french


def test_doctor_looks_for_pg_dump_on_postgresql_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sqlite = pg_config(tmp_path, database=str(tmp_path / "bot.db"))
    assert backup_tool_check(sqlite) == []

    def missing(name: str) -> str:
        raise PgToolError(f"{name} not found")

    monkeypatch.setattr(doctor_folders, "pg_tool", missing)
    [check] = backup_tool_check(pg_config(tmp_path))
    assert check.name == "backup" and check.status == "warn" and "pg_dump not found" in check.detail
    monkeypatch.setattr(doctor_folders, "pg_tool", lambda name: f"/usr/bin/{name}")
    [check] = backup_tool_check(pg_config(tmp_path))
    assert check.status == "ok" and check.detail == "pg_dump found: /usr/bin/pg_dump"


def test_doctor_all_shows_each_clubs_lease(tmp_path: Path, pg_schemas: PgSchemas) -> None:
    """One club held (worker, epoch, expiry), one whose lease expired, one free (« libre »),
    one no worker has seen, one on SQLite (refused under leases); then a lease URL whose
    tables no worker has made. Nothing is created by doctor."""
    from forumbot.storage.leases import LeaseTable, read_leases

    lease_url = pg_schemas.fresh()
    folder = tmp_path / "boards"
    folder.mkdir()
    clubs = {name: pg_schemas.fresh() for name in ("held", "lapsed", "free", "unseen")}
    for name, url in clubs.items():
        (folder / f"{name}.toml").write_text(club_toml(url, f"https://{name}.example"),
                                             encoding="utf-8")  # fmt: skip
    local = club_toml(str(tmp_path / "local.db"), "https://local.example")
    (folder / "local.toml").write_text(local, encoding="utf-8")

    def key(name: str) -> str:
        return clubs[name].rsplit("schema=", 1)[1]

    table = LeaseTable(lease_url)
    table.ensure([key("held"), key("lapsed"), key("free")])
    assert table.claim("w1", [key("held")], 1, 30) == {key("held"): 1}
    past = datetime.now(UTC) - timedelta(seconds=120)
    assert table.claim("w2", [key("lapsed")], 1, 30, at=past) == {key("lapsed"): 1}
    table.close()
    env = {"FORUMBOT_PASSWORD": "s3cret"}
    reports = {r.name: r for r in doctor_all(folder, offline=True, environ=env,
                                             lease_url=lease_url)}  # fmt: skip
    lease = {name: r.checks[-1] for name, r in reports.items()}
    assert all(c.name == "lease" for c in lease.values())
    assert lease["held"].status == "ok"
    assert lease["held"].detail.startswith("held by worker w1, epoch 1, expires in ")
    assert 25 <= int(lease["held"].detail.rsplit(" ", 2)[1]) <= 30
    assert lease["lapsed"].status == "warn" and "(worker w2, epoch 1)" in lease["lapsed"].detail
    assert lease["lapsed"].detail.startswith("expired ")
    assert lease["free"].status == "warn" and lease["free"].detail.startswith("free (epoch 0)")
    assert translate("fr", lease["free"].message, *lease["free"].args).startswith("libre")
    assert lease["unseen"].status == "warn" and "no serve worker has seen it" in lease[
        "unseen"].detail  # fmt: skip
    assert lease["local"].status == "fail" and "is not PostgreSQL" in lease["local"].detail
    assert read_leases(lease_url, [key("unseen")]) == {}  # doctor made no row
    bare = pg_schemas.fresh()
    reports = {r.name: r for r in doctor_all(folder, offline=True, environ=env, lease_url=bare)}
    assert "no lease table" in reports["held"].checks[-1].detail
    assert read_leases(bare, [key("held")]) is None  # still none: doctor reads only
    without = doctor_all(folder, offline=True, environ=env)
    assert all(c.name != "lease" for r in without for c in r.checks)


def test_doctor_all_speaks_each_clubs_language_on_its_lease_line(
    tmp_path: Path, pg_schemas: PgSchemas, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line: each club's report in its ``board.language``, the lease line too."""
    from click.testing import CliRunner

    from forumbot.cli import main
    from forumbot.storage.leases import LeaseTable

    lease_url, url = pg_schemas.fresh(), pg_schemas.fresh()
    folder = tmp_path / "boards"
    folder.mkdir()
    text = club_toml(url).replace("[bot]", 'language = "fr"\n[bot]')
    (folder / "poudlard.toml").write_text(text, encoding="utf-8")
    table = LeaseTable(lease_url)
    table.ensure([url.rsplit("schema=", 1)[1]])
    table.close()
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    result = CliRunner().invoke(
        main, ["doctor", "--all", "--boards", str(folder), "--offline"],
        env={"FORUMBOT_PASSWORD": "s3cret", "FORUMBOT_LEASE_URL": lease_url},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    output = result.output.replace("\xa0", " ")  # French spacing before the colon
    assert "== club poudlard" in output
    assert "[alerte] bail : libre (époque 0) : aucun processus ne le fait tourner" in output


def test_two_club_files_naming_one_schema_are_refused_whatever_the_spelling(
    tmp_path: Path,
) -> None:
    """The folder's sharing check: a PostgreSQL club's data is its server, database and
    schema (``storage.engine.pg_identity``), not a path made of its URL; the refusal shows the
    URL without its password."""
    from forumbot.ops.boards_dir import read_boards, sharing_conflicts

    folder = tmp_path / "boards"
    folder.mkdir()
    urls = {
        "a": "postgresql://bot@db.example:5432/forumbot?schema=poudlard",
        "b": "postgres://bot:secret@DB.example/forumbot?sslmode=require&schema=poudlard",
        "c": "postgresql://bot@db.example/forumbot?schema=gringotts",
    }
    for name, url in urls.items():
        (folder / f"{name}.toml").write_text(club_toml(url, f"https://{name}.example"),
                                             encoding="utf-8")  # fmt: skip
    refused = sharing_conflicts(read_boards(folder))
    assert set(refused) == {"b"}
    assert "is the database of club a" in refused["b"] and "secret" not in refused["b"]
    assert "postgres://bot:***@DB.example/forumbot" in refused["b"]
