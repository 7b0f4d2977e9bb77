"""The database holds the duels' secret dice seeds: a new file is created 0600 (a newcomer's
finding: a hand-run bot made it world-readable); SQLite's WAL files follow its mode."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from forumbot.storage import open_storage


def mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_database_and_its_wal_files_are_private(tmp_path: Path) -> None:
    old = os.umask(0o022)  # a shell's usual umask
    try:
        storage = open_storage(tmp_path / "forumbot.db")
        storage.db["duels_probe"].insert({"a": 1})
        assert {p.name: mode(p) for p in tmp_path.iterdir()} == {
            "forumbot.db": 0o600,
            "forumbot.db-wal": 0o600,
            "forumbot.db-shm": 0o600,
        }
        storage.close()
    finally:
        os.umask(old)


def test_an_existing_database_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    open_storage(path).close()
    path.chmod(0o640)  # staff chose a group-readable file
    open_storage(path).close()
    assert mode(path) == 0o640
