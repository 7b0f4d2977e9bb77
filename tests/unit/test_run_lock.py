"""The run lock holds for every path to one database file (issue 12, single instance)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from forumbot.ops.lock import AlreadyRunning, single_instance


def test_second_lock_on_same_path_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "bot.db")
    with single_instance(db):
        assert (tmp_path / "bot.db.lock").exists()
        with pytest.raises(AlreadyRunning, match="already using"):
            with single_instance(db):
                pass
    with single_instance(db):  # released: can be taken again
        pass


def test_symlink_and_hard_link_share_the_lock(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    db.write_bytes(b"")
    sym = tmp_path / "alias.db"
    sym.symlink_to(db)
    other = tmp_path / "elsewhere"
    other.mkdir()
    hard = other / "same.db"
    os.link(db, hard)
    with single_instance(str(db)):
        with pytest.raises(AlreadyRunning):
            with single_instance(str(sym)):
                pass
        with pytest.raises(AlreadyRunning, match="inode"):
            with single_instance(str(hard)):
                pass


def test_memory_database_needs_no_lock() -> None:
    with single_instance(":memory:"):
        with single_instance(":memory:"):
            pass
