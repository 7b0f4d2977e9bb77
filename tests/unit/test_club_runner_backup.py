"""The daily backup of a club under ``forumbot serve`` (issue 27 mend): the club runner writes
it where ``forumbot run`` does (:func:`forumbot.ops.backup.daily_backup`), on SQLite beside
the database and on PostgreSQL in the state folder, never in a folder named after the URL.
The PostgreSQL case is skipped, with the reason, without a server (``POSTGRES_URL``,
tests/engines.py) or without ``pg_dump``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from forumbot.ops.backup import backup_name, list_backups
from forumbot.ops.boards_dir import read_club
from forumbot.ops.club_runner import ClubRunner
from forumbot.storage import open_storage
from forumbot.storage.pg_files import PgToolError, pg_tool
from tests.engines import PgSchemas

NOW = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC)

CLUB = """\
[board]
url = "http://127.0.0.1:9/club"
platform = "phpbb3"

[bot]
username = "Hibou"

[storage]
{storage}
backup_keep = 2

[[watch]]
forum_id = 3
"""


def runner_for(tmp_path: Path, storage: str) -> ClubRunner:
    """A club runner on ``tmp_path/boards/club.toml`` whose ``[storage]`` is ``storage``."""
    folder = tmp_path / "boards"
    folder.mkdir()
    path = folder / "club.toml"
    path.write_text(CLUB.format(storage=storage), encoding="utf-8")
    path.chmod(0o600)
    club = read_club(path)
    assert club.config is not None, club.error
    return ClubRunner(club, clock=lambda: 1000.0, now=lambda: NOW)


def test_the_sqlite_backup_sits_beside_the_database(tmp_path: Path) -> None:
    runner = runner_for(tmp_path, 'database = "data/club.db"')
    database = tmp_path / "boards" / "data" / "club.db"
    database.parent.mkdir()
    open_storage(str(database)).close()
    runner._job_backup()
    backups = tmp_path / "boards" / "data" / "backups"
    assert [p.name for p in list_backups(database, backups)] == [backup_name(database, NOW)]
    assert runner.due["backup"] > 1000.0


def test_the_postgresql_backup_goes_to_the_state_folder_not_a_url_folder(
    pg_schemas: PgSchemas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    try:
        pg_tool("pg_dump")
        pg_tool("pg_restore")
    except PgToolError as exc:
        pytest.skip(str(exc))
    url = pg_schemas.fresh()
    open_storage(url).close()
    state = tmp_path / "state"
    state.mkdir()
    monkeypatch.setenv("STATE_DIRECTORY", str(state))
    monkeypatch.chdir(tmp_path)
    runner = runner_for(tmp_path, f'url = "{url}"')
    runner._job_backup()
    saved = list_backups(url, state / "backups")
    assert len(saved) == 1 and saved[0].stat().st_size > 0
    assert not (tmp_path / "postgresql:").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["boards", "state"]
