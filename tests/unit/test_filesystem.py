"""Issue 22: a database on a network filesystem is warned about at start-up and by doctor
(SQLite's WAL does not work there). The mount table is a file the test writes, in the format
of ``/proc/mounts`` (octal escapes for spaces)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from forumbot.config import parse_config
from forumbot.ops.doctor import doctor
from forumbot.ops.filesystem import mount_of, network_filesystem_warning
from forumbot.ops.startup import check_filesystem


def mounts(tmp_path: Path, *rows: tuple[str, str, str]) -> Path:
    table = tmp_path / "mounts"
    lines = ["overlay / overlay rw,relatime 0 0", "proc /proc proc rw 0 0"]
    lines += [f"{dev} {point.replace(' ', chr(92) + '040')} {fs} rw 0 0" for dev, point, fs in rows]
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return table


@pytest.mark.parametrize(
    "fstype", ["nfs4", "nfs", "cifs", "smb3", "fuse.sshfs", "9p", "virtiofs", "fuse.rclone"]
)
def test_a_database_folder_on_a_network_filesystem_is_warned_about(
    tmp_path: Path, fstype: str
) -> None:
    folder = tmp_path / "shared data"
    folder.mkdir()
    table = mounts(tmp_path, ("nas:/export", str(folder), fstype))
    warning = network_filesystem_warning(str(folder / "bot.db"), table)
    assert warning is not None and fstype in warning and "WAL" in warning
    assert "nas:/export" in warning and str(folder) in warning


def test_a_local_disk_and_the_longest_mount_point_win(tmp_path: Path) -> None:
    nfs = tmp_path / "nfs"
    local = nfs / "local"
    local.mkdir(parents=True)
    table = mounts(tmp_path, ("nas:/x", str(nfs), "nfs4"), ("/dev/sdb1", str(local), "ext4"))
    assert network_filesystem_warning(str(local / "bot.db"), table) is None
    found = mount_of(local / "not-yet" / "bot.db", table)  # a folder not created yet
    assert found is not None and found.fstype == "ext4" and found.point == str(local)
    assert network_filesystem_warning(str(nfs / "bot.db"), table) is not None
    assert network_filesystem_warning(":memory:", table) is None
    assert network_filesystem_warning(str(nfs / "bot.db"), tmp_path / "absent") is None


def test_start_up_logs_it_once_and_doctor_warns(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    table = mounts(tmp_path, ("//nas/share", str(tmp_path), "cifs"))
    config = parse_config(
        f'[board]\nurl = "http://127.0.0.1:9"\n[bot]\nusername = "Hibou"\n'
        f'[storage]\ndatabase = "{tmp_path / "bot.db"}"\n'
    )
    with caplog.at_level(logging.WARNING):
        line = check_filesystem(config, table)
    assert line is not None and caplog.messages == [line]
    checks = {c.name: c for c in doctor(config, offline=True, environ={}, mounts=table)}
    assert checks["filesystem"].status == "warn" and "cifs" in checks["filesystem"].detail
    local = mounts(tmp_path, ("/dev/sda1", str(tmp_path), "ext4"))
    ok = {c.name: c for c in doctor(config, offline=True, environ={}, mounts=local)}
    assert ok["filesystem"].status == "ok" and "ext4" in ok["filesystem"].detail
