"""What the newcomer's check of session 4 found on the staff's command line: a held draft's
note is read in the staff's language (never the raw code on a French board), ..."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_cli_duels import _poll, _run, _storage, sandbox  # noqa: F401 (the fixture)


def _speak(cfg: Path, language: str) -> None:
    cfg.write_text(cfg.read_text().replace('language = "en"', f'language = "{language}"', 1))


def test_drafts_show_gives_a_held_drafts_note_in_the_staffs_language(
    request: pytest.FixtureRequest,
) -> None:
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    _poll(cfg)
    storage = _storage(cfg)
    [opening] = storage.declarations(("draft",))
    storage.db["declarations"].update(
        opening["id"], {"status": "held", "last_error": "cast_before_start: referee decides"}
    )
    storage.db.conn.commit()
    english = _run("drafts", "show", str(opening["id"]), "-c", str(cfg)).output
    assert "# note: cast_before_start: referee decides\n" in english, english
    _speak(cfg, "fr")
    french = _run("drafts", "show", str(opening["id"]), "-c", str(cfg)).output
    assert "# note : un sort a été lancé avant le top de départ : l'arbitre décide\n" in french
    assert "cast_before_start" not in french and "referee" not in french, french
