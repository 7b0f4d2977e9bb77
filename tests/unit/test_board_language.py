"""The board's language from the board (issue 25: « ``board.language``, default from the
board »): read from the pages' ``<html lang>`` (phpBB and Forumactif real pages), recorded in
the board's row by ``doctor``, ``check`` and the first poll, and spoken by the command line
when ``board.language`` is not set (reader2 C26)."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from forumbot.app import bootstrap
from forumbot.forums.phpbb import PhpbbClient
from forumbot.ops.check import dry_run
from forumbot.ops.doctor import doctor
from forumbot.storage import open_storage, recorded_board_language
from parsers.page_language import page_language
from tests.unit.test_ops import (
    BOARD,
    BOARD_NOW,
    ENV,
    FIXTURES,
    board,
    make_config,
    no_form_wait,  # noqa: F401 (the autouse fixture: no real form wait)
    seeded_database,
)

REPO = Path(__file__).resolve().parents[2]
FORUMACTIF = REPO.parent / "shared" / "fixtures" / "forumactif"


def test_phpbb_pages_say_their_language() -> None:
    """The real captures: French pages ``lang="fr"``, English ones ``lang="en-gb"`` -> en; a
    302 body has no ``<html>``."""
    found = {p.name: page_language(p.read_text(encoding="utf-8")) for p in FIXTURES.glob("*.html")}
    french = [n for n in found if n.endswith("_fr.html")]
    english = [n for n in found if n.endswith("_en.html")]
    assert len(french) >= 15 and len(english) >= 1
    assert {found[n] for n in french} == {"fr"}
    assert {found[n] for n in english} == {"en"}
    assert found["login_success_302.html"] is None


def _forumactif(relative: str) -> str:
    path = FORUMACTIF / relative
    if not path.is_file():
        pytest.skip(f"shared Forumactif fixtures not found at {FORUMACTIF} (need {relative})")
    return path.read_text(encoding="utf-8", errors="replace")


@pytest.mark.parametrize(
    ("relative", "language"),
    [
        ("rendered/awesomebb/topic_t8320_page1_viewsource.html", "fr"),  # real, French
        ("rendered/phpbb3/index_jxr-new_foroactivo_saved.html", "es"),  # real, Spanish
        *[(f"built/{v}/topic_t12_A.html", "fr")
          for v in ("phpbb2", "phpbb3", "punbb", "invision", "modernbb", "awesomebb")],
        ("templates/phpbb3/default_tpl/overall_header.tpl", None),  # {L_LANG_HTML} unfilled
        ("templates/awesomebb/default_tpl/overall_header.tpl", None),
    ],
)  # fmt: skip
def test_forumactif_pages_say_their_language(relative: str, language: str | None) -> None:
    assert page_language(_forumactif(relative)) == language


def test_page_language_edges() -> None:
    assert page_language("") is None
    assert page_language("<p>no root element said</p>") is None
    assert page_language('<html lang="fr-FR"><body>x</body></html>') == "fr"
    assert page_language('<html xml:lang="en_GB"><body>x</body></html>') == "en"
    assert page_language('<html lang="  "><body>x</body></html>') is None
    assert page_language('<html lang="x"><body>x</body></html>') is None
    long_page = '<!DOCTYPE html><html lang="fr"><body>' + "mot " * 100_000 + "</body></html>"
    assert page_language(long_page) == "fr"  # only the head is parsed


def test_storage_records_once_and_reads_without_writing(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    assert recorded_board_language(str(db), BOARD) is None and not db.exists()  # not created
    storage = open_storage(db)
    assert storage.board_language(BOARD) is None
    assert storage.record_board_language(BOARD, "phpbb3", "fr", BOARD_NOW)
    assert not storage.record_board_language(BOARD, "phpbb3", "fr", BOARD_NOW)  # unchanged
    assert not storage.record_board_language(BOARD, "phpbb3", None, BOARD_NOW)
    assert storage.board_language(BOARD) == "fr"
    storage.close()
    before = db.stat().st_mtime_ns
    assert recorded_board_language(str(db), BOARD) == "fr"
    assert recorded_board_language(str(db), "http://other.test") is None
    assert db.stat().st_mtime_ns == before
    old = tmp_path / "old.db"  # a database from before the migration: no column, no error
    sqlite3.connect(old).execute("create table boards (id integer, url text)").connection.close()
    assert recorded_board_language(str(old), BOARD) is None


def test_the_client_reads_the_language_of_the_first_page() -> None:
    client = PhpbbClient(BOARD, "Hibou", "s3cret", transport=board(), sleep=lambda s: None)
    assert client.page_language is None
    client.login()
    assert client.page_language == "fr"  # the login page: <html dir="ltr" lang="fr">


def test_doctor_records_the_language_in_an_existing_database(tmp_path: Path) -> None:
    seeded_database(tmp_path / "forumbot.db")
    checks = doctor(
        make_config(tmp_path), environ=ENV, transport=board(),
        now=lambda: BOARD_NOW + timedelta(seconds=4),
    )  # fmt: skip
    line = next(c for c in checks if c.name == "board")
    assert line.status == "ok" and "pages in language fr" in line.detail
    assert recorded_board_language(str(tmp_path / "forumbot.db"), BOARD) == "fr"


def test_doctor_never_creates_the_database(tmp_path: Path) -> None:
    doctor(make_config(tmp_path), environ=ENV, transport=board(), now=lambda: BOARD_NOW)
    assert not (tmp_path / "forumbot.db").exists()


def test_the_first_poll_records_the_language(tmp_path: Path) -> None:
    config = make_config(tmp_path)
    storage = open_storage(config.database)
    bot = bootstrap(config, password="s3cret", transport=board(), storage=storage,
                    now=lambda: BOARD_NOW, sleep=lambda s: None)  # fmt: skip
    bot.poll()
    assert storage.board_language(BOARD) == "fr" and bot.language_recorded
    assert not bot.record_language()  # once a process


def test_check_records_the_language_in_the_real_database(tmp_path: Path) -> None:
    seeded_database(tmp_path / "forumbot.db")
    config = make_config(tmp_path)
    client = PhpbbClient(BOARD, "Hibou", "s3cret", transport=board(), sleep=lambda s: None)
    lines = list(dry_run(config, client=client))
    assert lines[-1] == "dry run: nothing was posted"
    assert recorded_board_language(config.database, BOARD) == "fr"
