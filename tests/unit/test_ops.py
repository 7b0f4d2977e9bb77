"""forumbot.ops.doctor: doctor checks, online backup / restore, JSON log lines; the CLI commands."""

from __future__ import annotations

import io
import json
import logging
import os
import sqlite3
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

import forumbot.app
from forumbot import exit_codes
from forumbot.cli import main
from forumbot.config import Config, WatchedForum, parse_config
from forumbot.forums.phpbb import PhpbbClient
from forumbot.ops.backup import (
    BackupError,
    RestoreError,
    backup,
    backup_name,
    list_backups,
    restore,
)
from forumbot.ops.doctor import Check, doctor
from forumbot.ops.logs import JsonFormatter, configure_json_logging, log_decision
from forumbot.ops.scheduler import AlreadyRunning, single_instance
from forumbot.storage import open_storage

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"
BOARD = "http://board.test"
# The real capture's clock: fixtures/html/phpbb/*.headers.txt say "Mon, 30 Nov 2026 11:45:07 GMT".
BOARD_DATE = "Mon, 30 Nov 2026 11:45:07 GMT"
BOARD_NOW = datetime(2026, 11, 30, 11, 45, 7, tzinfo=UTC)
ENV = {"FORUMBOT_PASSWORD": "s3cret"}


def page(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def make_config(tmp_path: Path, **changes: Any) -> Config:
    values: dict[str, Any] = {
        "board_url": BOARD,
        "platform": "phpbb3",
        "username": "Hibou",
        "database": str(tmp_path / "forumbot.db"),
        "watch": (WatchedForum(3),),
    }
    values.update(changes)
    return Config(**values)


def board(password_ok: bool = True, date: str | None = BOARD_DATE) -> httpx.MockTransport:
    """A phpBB board answering with the real captured pages."""

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"Content-Type": "text/html; charset=UTF-8"}
        if date:
            headers["Date"] = date
        path = request.url.path
        query = request.url.params
        if request.method == "POST" and path == "/ucp.php":
            if password_ok and b"password=s3cret" in request.content:
                headers["Set-Cookie"] = "phpbb3_1qtk7_u=63; path=/"
                headers["Location"] = f"{BOARD}/index.php"
                return httpx.Response(302, headers=headers)
            return httpx.Response(
                200, headers=headers, text=page("login_failure_wrong_password.html")
            )
        if path == "/ucp.php" and query.get("mode") == "login":
            return httpx.Response(200, headers=headers, text=page("login_page.html"))
        if path == "/viewforum.php" and query.get("f") == "3":
            return httpx.Response(200, headers=headers, text=page("viewforum_f3_logged_in_fr.html"))
        if path in ("/", "/index.php"):
            return httpx.Response(200, headers=headers, text=page("index_guest_fr.html"))
        return httpx.Response(404, headers=headers, text="not found")

    return httpx.MockTransport(handler)


@pytest.fixture(autouse=True)
def no_form_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real PhpbbClient, but its minimum form age is waited on a fake clock."""

    def make_client(
        config: Config, password: str, transport: httpx.BaseTransport | None = None, **_: object
    ) -> PhpbbClient:
        return PhpbbClient(
            config.board_url, config.username, password, transport=transport, sleep=lambda s: None
        )

    monkeypatch.setattr(forumbot.app, "make_client", make_client)


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def seeded_database(path: Path, rows: int = 3) -> None:
    storage = open_storage(path)
    for i in range(rows):
        storage.audit("test", "seed", f"row:{i}", None, {"i": i}, BOARD_NOW)
    storage.close()


def audit_count(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("select count(*) from audit_log").fetchone()[0])
    finally:
        conn.close()


# -- doctor --------------------------------------------------------------------------------


def test_doctor_all_green_against_a_real_board_flow(tmp_path: Path) -> None:
    seeded_database(tmp_path / "forumbot.db")
    checks = doctor(
        make_config(tmp_path),
        environ=ENV,
        transport=board(),
        now=lambda: BOARD_NOW + timedelta(seconds=4),
    )
    found = by_name(checks)
    assert [c.name for c in checks] == [
        "config",
        "password",
        "database",
        "migrations",
        "filesystem",
        "board",
        "clock",
        "login",
        "forum 3",
    ]
    assert all(c.status == "ok" for c in checks), checks
    assert "4 s ahead" in found["clock"].detail
    assert "logged in as Hibou" in found["login"].detail
    assert "integrity_check ok" in found["database"].detail


def test_doctor_reports_refused_login_with_the_board_message(tmp_path: Path) -> None:
    found = by_name(
        doctor(
            make_config(tmp_path),
            environ=ENV,
            transport=board(password_ok=False),
            now=lambda: BOARD_NOW,
        )
    )
    assert found["login"].failed
    assert "mot de passe incorrect" in found["login"].detail
    assert "forum 3" not in found


def test_doctor_fails_on_clock_skew_and_warns_without_date(tmp_path: Path) -> None:
    late = by_name(
        doctor(
            make_config(tmp_path),
            environ=ENV,
            transport=board(),
            now=lambda: BOARD_NOW - timedelta(minutes=10),
        )
    )
    assert late["clock"].failed
    assert "600 s behind" in late["clock"].detail
    undated = by_name(
        doctor(
            make_config(tmp_path), environ=ENV, transport=board(date=None), now=lambda: BOARD_NOW
        )
    )
    assert undated["clock"].status == "warn"


def test_doctor_board_down_skips_clock_and_login(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    found = by_name(
        doctor(make_config(tmp_path), environ=ENV, transport=httpx.MockTransport(refuse))
    )
    assert found["board"].failed and "ConnectError" in found["board"].detail
    assert found["clock"].status == "skip" and found["login"].status == "skip"

    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, text="maintenance")

    found = by_name(
        doctor(make_config(tmp_path), environ=ENV, transport=httpx.MockTransport(broken))
    )
    assert found["board"].failed and "HTTP 503" in found["board"].detail


def test_doctor_offline_checks_password_and_database_only(tmp_path: Path) -> None:
    found = by_name(doctor(make_config(tmp_path), offline=True, environ={}))
    assert found["password"].failed and "FORUMBOT_PASSWORD" in found["password"].detail
    assert found["database"].status == "warn"  # not created yet: forumbot run creates it
    assert {found[n].status for n in ("board", "clock", "login")} == {"skip"}


def test_doctor_password_file_readable_by_others_is_a_warning(tmp_path: Path) -> None:
    secret = tmp_path / "password"
    secret.write_text("s3cret\n", encoding="utf-8")
    secret.chmod(0o644)
    found = by_name(doctor(make_config(tmp_path, password_file=str(secret)), offline=True))
    assert found["password"].status == "warn" and "chmod 600" in found["password"].detail
    secret.chmod(0o600)
    found = by_name(doctor(make_config(tmp_path, password_file=str(secret)), offline=True))
    assert found["password"].status == "ok"


def test_doctor_bad_config_file_and_bad_settings(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[board]\nurl = \n", encoding="utf-8")
    checks = doctor(broken)
    assert len(checks) == 1 and checks[0].name == "config" and checks[0].failed
    found = by_name(
        doctor(
            make_config(tmp_path, timezone="Mars/Olympus", ruleset="no-such-ruleset"),
            offline=True,
            environ=ENV,
        )
    )
    assert found["config"].failed
    assert "Mars/Olympus" in found["config"].detail and "no-such-ruleset" in found["config"].detail
    found = by_name(doctor(make_config(tmp_path, watch=()), offline=True, environ=ENV))
    assert found["watch"].status == "warn"


def test_doctor_detects_a_corrupt_database(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    db.write_bytes(b"this is not a database, just text " * 200)
    found = by_name(doctor(make_config(tmp_path), offline=True, environ=ENV))
    assert found["database"].failed
    assert found["migrations"].status == "skip"


def test_doctor_detects_damaged_pages(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    storage = open_storage(db)
    storage.db.execute("PRAGMA journal_mode=DELETE")
    with storage.db.atomic():  # one transaction: enough rows for a multi-page b-tree
        for i in range(400):
            storage.audit("t", "seed", f"row:{i}", None, {"pad": "x" * 200}, BOARD_NOW)
    root_page = storage.db.execute(
        "select rootpage from sqlite_master where name = 'audit_log'"
    ).fetchone()[0]
    storage.close()
    data = bytearray(db.read_bytes())
    page_size = int.from_bytes(data[16:18], "big")
    start = (root_page - 1) * page_size
    data[start : start + 12] = b"\xff" * 12  # scribble over the table's b-tree page header
    db.write_bytes(bytes(data))
    found = by_name(doctor(make_config(tmp_path), offline=True, environ=ENV))
    assert found["database"].failed


def test_doctor_migrations_pending_and_unknown(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    seeded_database(db)
    conn = sqlite3.connect(db)
    conn.execute("delete from _sqlite_migrations where name = 'm001_initial'")
    conn.commit()
    conn.close()
    found = by_name(doctor(make_config(tmp_path), offline=True, environ=ENV))
    assert found["migrations"].status == "warn" and "m001_initial" in found["migrations"].detail
    conn = sqlite3.connect(db)
    conn.execute(
        "insert into _sqlite_migrations (migration_set, name, applied_at) "
        "values ('forumbot', 'm999_from_the_future', '2027-01-01')"
    )
    conn.commit()
    conn.close()
    found = by_name(doctor(make_config(tmp_path), offline=True, environ=ENV))
    assert found["migrations"].failed and "m999_from_the_future" in found["migrations"].detail


# -- backup ----------------------------------------------------------------------------------


def test_backup_copies_wal_content_with_private_permissions(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    storage = open_storage(db)  # stays open: the backup runs beside a live connection
    for i in range(5):
        storage.audit("t", "seed", f"row:{i}", None, {"i": i}, BOARD_NOW)
    assert (tmp_path / "forumbot.db-wal").stat().st_size > 0  # rows still in the WAL
    path = backup(db, tmp_path / "backups", BOARD_NOW)
    storage.close()
    assert path == tmp_path / "backups" / "forumbot-20261130.db"
    assert audit_count(path) == 5
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "backups").stat().st_mode) == 0o700
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()
    assert not list((tmp_path / "backups").glob(".*.tmp"))


def test_backup_keeps_the_newest_n_days_and_replaces_the_same_day(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    seeded_database(db, rows=1)
    dest = tmp_path / "backups"
    unrelated = dest / "other-20261101.db"
    dest.mkdir()
    unrelated.write_bytes(b"not ours")
    for day in range(10):
        backup(db, dest, BOARD_NOW + timedelta(days=day), keep=3)
    kept = list_backups(db, dest)
    assert [p.name for p in kept] == [
        "forumbot-20261207.db",
        "forumbot-20261208.db",
        "forumbot-20261209.db",
    ]
    assert unrelated.exists()
    seeded_database(db, rows=2)  # 1 + 2 rows now
    again = backup(db, dest, BOARD_NOW + timedelta(days=9, hours=5), keep=3)
    assert again == kept[-1] and audit_count(again) == 3
    assert len(list_backups(db, dest)) == 3


def test_backup_name_uses_the_utc_date() -> None:
    paris_evening = datetime(2026, 12, 1, 0, 30, tzinfo=UTC) - timedelta(hours=1)
    assert backup_name("/x/bot.sqlite", paris_evening) == "bot-20261130.sqlite"
    assert backup_name("/x/bot", BOARD_NOW) == "bot-20261130.db"


def test_backup_refuses_missing_database_and_bad_keep(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="no database"):
        backup(tmp_path / "absent.db", tmp_path / "b", BOARD_NOW)
    seeded_database(tmp_path / "forumbot.db")
    with pytest.raises(ValueError):
        backup(tmp_path / "forumbot.db", tmp_path / "b", BOARD_NOW, keep=0)


# -- restore ---------------------------------------------------------------------------------


def test_restore_round_trip_keeps_a_safety_copy(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    seeded_database(db, rows=2)
    saved = backup(db, tmp_path / "backups", BOARD_NOW)
    seeded_database(db, rows=5)  # 7 rows now
    reader = open_storage(db)  # a CLI command holding the database open meanwhile
    safety = restore(saved, db, now=BOARD_NOW)
    assert len(reader.audit_entries()) == 2  # the open connection sees the restored data
    assert reader.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    reader.close()
    assert safety == tmp_path / "forumbot.db.pre-restore-20261130T114507Z"
    assert audit_count(safety) == 7
    assert stat.S_IMODE(safety.stat().st_mode) == 0o600
    assert audit_count(db) == 2


def test_restore_into_a_missing_database(tmp_path: Path) -> None:
    seeded_database(tmp_path / "old.db", rows=4)
    saved = backup(tmp_path / "old.db", tmp_path / "backups", BOARD_NOW)
    target = tmp_path / "new" / "forumbot.db"
    assert restore(saved, target, now=BOARD_NOW) is None
    assert audit_count(target) == 4


def test_restore_refuses_while_forumbot_run_holds_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    seeded_database(db, rows=2)
    saved = backup(db, tmp_path / "backups", BOARD_NOW)
    seeded_database(db, rows=1)
    with single_instance(str(db)), pytest.raises(AlreadyRunning):
        restore(saved, db, now=BOARD_NOW)
    assert audit_count(db) == 3
    assert not list(tmp_path.glob("*.pre-restore-*"))


def test_restore_refuses_bad_backups(tmp_path: Path) -> None:
    db = tmp_path / "forumbot.db"
    seeded_database(db, rows=2)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"definitely not sqlite " * 100)
    with pytest.raises(RestoreError, match="not an SQLite database"):
        restore(junk, db)
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("create table t (x)")
    conn.commit()
    conn.close()
    with pytest.raises(RestoreError, match="not a forumbot database"):
        restore(foreign, db)
    with pytest.raises(RestoreError, match="same file"):
        restore(db, db)
    assert audit_count(db) == 2


# -- JSON logs -------------------------------------------------------------------------------


def capture(fmt: logging.Formatter) -> tuple[logging.Logger, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(fmt)
    logger = logging.getLogger(f"test.ops.{id(stream)}")
    logger.handlers[:] = [handler]
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    return logger, stream


def test_json_formatter_one_line_with_extra_fields() -> None:
    logger, stream = capture(JsonFormatter())
    log_decision(logger, "duel %s turn %s drafted", 4, 2, duel=4, turn=2, post_ids=[31, 32])
    logger.warning("multi\nline", extra={"declaration": 9, "when": BOARD_NOW})
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["msg"] == "duel 4 turn 2 drafted"
    assert (first["event"], first["duel"], first["turn"], first["post_ids"]) == (
        "decision",
        4,
        2,
        [31, 32],
    )
    assert first["level"] == "INFO" and first["ts"].endswith("+00:00")
    assert second["msg"] == "multi\nline" and second["declaration"] == 9
    assert second["when"] == str(BOARD_NOW)
    assert "args" not in first and "exc_info" not in first


def test_json_formatter_includes_tracebacks() -> None:
    logger, stream = capture(JsonFormatter())
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        logger.exception("publish failed", extra={"duel": 1})
    data = json.loads(stream.getvalue())
    assert "RuntimeError: boom" in data["exc"] and data["duel"] == 1


def test_log_decision_refuses_reserved_names() -> None:
    logger, _ = capture(JsonFormatter())
    with pytest.raises(KeyError):
        log_decision(logger, "x", duel=1, msg="clash")


def test_configure_json_logging_replaces_root_handlers() -> None:
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    stream = io.StringIO()
    try:
        configure_json_logging(logging.INFO, stream)
        logging.getLogger("forumbot.test").info("hello", extra={"turn": 3})
    finally:
        root.handlers[:] = saved
        root.setLevel(level)
    assert json.loads(stream.getvalue())["turn"] == 3


# -- CLI -------------------------------------------------------------------------------------


def write_config(tmp_path: Path) -> Path:
    path = tmp_path / "forumbot.toml"
    path.write_text(
        "[board]\nurl = 'http://board.test'\n[bot]\nusername = 'Hibou'\n"
        "[storage]\ndatabase = 'data/forumbot.db'\n[[watch]]\nforum_id = 3\n",
        encoding="utf-8",
    )
    assert parse_config(path.read_text(encoding="utf-8"), tmp_path).database == str(
        tmp_path / "data" / "forumbot.db"
    )
    return path


def invoke(args: list[str], env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(main, args, env=env or {}, catch_exceptions=False)


def test_cli_doctor_offline_exit_codes(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    ok = invoke(["doctor", "-c", str(config), "--offline"], env=ENV)
    assert ok.exit_code == 0, ok.output
    assert "[  ok] password" in ok.output and "[skip] board: not checked (--offline)" in ok.output
    missing = invoke(["doctor", "-c", str(config), "--offline"], env={"FORUMBOT_PASSWORD": ""})
    assert missing.exit_code == 1 and "[fail] password" in missing.output


def test_cli_backup_then_restore(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    db = tmp_path / "data" / "forumbot.db"
    seeded_database(db, rows=2)
    made = invoke(["backup", "-c", str(config), "--keep", "2"])
    assert made.exit_code == 0, made.output
    path = Path(made.output.strip())
    assert path.parent == tmp_path / "data" / "backups" and audit_count(path) == 2
    seeded_database(db, rows=3)
    with single_instance(str(db)):
        refused = CliRunner().invoke(main, ["restore", str(path), "-c", str(config)])
    # issue 13: "already running" has its own exit code (forumbot/exit_codes.py)
    assert refused.exit_code == exit_codes.ALREADY_RUNNING and "already using" in refused.output
    done = invoke(["restore", str(path), "-c", str(config)])
    assert done.exit_code == 0, done.output
    assert "previous database saved as" in done.output
    assert audit_count(db) == 2


def test_backups_are_not_world_readable_even_with_a_loose_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        seeded_database(tmp_path / "forumbot.db")
        path = backup(tmp_path / "forumbot.db", tmp_path / "b", BOARD_NOW)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
