"""Every secret file is checked like the password file (issue 24 F10), and a database has one
name while a run has it open (issue 24, "also seen")."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from forumbot.config import ConfigError, check_secret_file, load_config, parse_config
from forumbot.forums.board_http import BoardHttp
from forumbot.notify.settings import UrlSource
from forumbot.ops.lock import single_instance
from forumbot.storage import open_storage
from forumbot.storage.same_file import SecondName
from forumbot.web.serve import secret_key

BASE = '[board]\nurl = "https://board.test/forum"\n[bot]\nusername = "Hibou"\n'


def _file(tmp_path: Path, name: str, mode: int, text: str = "x") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def test_one_check_refuses_others_write_and_warns_on_others_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    assert check_secret_file(_file(tmp_path, "a", 0o600), "secret") is None
    with pytest.raises(ConfigError, match=r"refusing secret .*mode 0666.*chmod o-w"):
        check_secret_file(_file(tmp_path, "b", 0o666), "secret")
    with caplog.at_level(logging.WARNING, logger="forumbot.config"):
        line = check_secret_file(_file(tmp_path, "c", 0o644), "secret")
        check_secret_file(tmp_path / "c", "secret")  # logged once per file
    assert line is not None and "readable by others (mode 0644)" in line
    assert [r.getMessage() for r in caplog.records] == [line]


def test_password_file(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pw = _file(tmp_path, "pw", 0o644, "s3cret\n")
    config = parse_config(BASE + f'password_file = "{pw}"\n')
    with caplog.at_level(logging.WARNING, logger="forumbot.config"):
        assert config.password() == "s3cret"
    assert "bot.password_file" in caplog.text and "0644" in caplog.text
    pw.chmod(0o666)
    with pytest.raises(ConfigError, match="refusing bot.password_file"):
        config.password()


def test_notify_urls_file(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    urls = _file(tmp_path, "admin.urls", 0o666, "json://hooks.test/T0KEN\n")
    with pytest.raises(ConfigError, match="refusing notify urls_file"):
        UrlSource(urls_file=str(urls)).urls()
    urls.chmod(0o604)
    with caplog.at_level(logging.WARNING, logger="forumbot.config"):
        assert UrlSource(urls_file=str(urls)).urls() == ("json://hooks.test/T0KEN",)
    assert "notify urls_file" in caplog.text


def test_web_secret_is_created_0600_and_checked(tmp_path: Path) -> None:
    db = str(tmp_path / "bot.db")
    key = secret_key(db, environ={})
    path = Path(db + ".web-secret")
    assert len(key) == 64 and (path.stat().st_mode & 0o777) == 0o600
    path.chmod(0o646)
    with pytest.raises(ConfigError, match="refusing web secret"):
        secret_key(db, environ={})


def test_database_file(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    open_storage(db).db.conn.close()
    assert (db.stat().st_mode & 0o777) == 0o600
    db.chmod(0o666)
    with pytest.raises(ConfigError, match="refusing storage.database"):
        open_storage(db)


def test_cookie_jar_writable_by_others_is_refused(tmp_path: Path) -> None:
    jar = _file(tmp_path, "cookies.json", 0o666, "{}")
    client = BoardHttp.__new__(BoardHttp)
    client.cookie_file = jar
    with pytest.raises(ConfigError, match="refusing cookie jar"):
        client._load_cookies()


def test_config_file_and_folder(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "etc"
    folder.mkdir()
    config = _file(folder, "forumbot.toml", 0o664, BASE)
    with caplog.at_level(logging.WARNING, logger="forumbot.config"):
        load_config(config)
    assert "writable by its group (mode 0664)" in caplog.text
    folder.chmod(0o777)
    try:
        with pytest.raises(ConfigError, match=r"folder .* is writable by other users"):
            load_config(config)
        folder.chmod(0o1777)  # sticky (like /tmp): others cannot replace the file
        load_config(config)
    finally:
        folder.chmod(0o755)


def test_hard_link_of_a_running_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    open_storage(db).db.conn.close()
    other = tmp_path / "elsewhere"
    other.mkdir()
    hard = other / "same.db"
    os.link(db, hard)
    sym = tmp_path / "alias.db"
    sym.symlink_to(db)
    with single_instance(str(db)):
        with pytest.raises(SecondName, match="another name"):
            open_storage(hard)
        assert not Path(str(hard) + "-wal").exists()  # refused before SQLite opened it
        open_storage(db).db.conn.close()  # the run's own name
        open_storage(sym).db.conn.close()  # a symlink resolves to the same name
    assert not (tmp_path / "alias.db-wal").exists()
    open_storage(hard).db.conn.close()  # no run: nothing to collide with
