"""``forumbot doctor`` on a French board: one report, one language (issue 25, third reader).
A library's English text (httpx, sqlite, a board's refusal) the catalogue does not know is
quoted as a technical detail after a French sentence, never printed as a bare English line."""

from __future__ import annotations

import re
from pathlib import Path

import click
import httpx
import pytest

from forumbot.cli._common import set_language
from forumbot.cli.ops import check_line
from forumbot.config import Config, WatchedForum
from forumbot.ops.doctor import Check, Text, _check, doctor

BOARD = "http://board.test"
ENV = {"FORUMBOT_PASSWORD": "s3cret"}
ENGLISH = {"the", "is", "no", "not", "of", "to", "and", "cannot", "refused", "board", "error",
           "database", "file", "login", "failed", "read"}  # fmt: skip
DETAIL = re.compile(r" \(détail technique\u00a0: «\u00a0(.*)\u00a0»\)$")


def _config(tmp_path: Path) -> Config:
    return Config(board_url=BOARD, platform="phpbb3", username="Hibou",
                  database=str(tmp_path / "forumbot.db"), watch=(WatchedForum(3),))  # fmt: skip


def _line(item: Check, language: str = "fr") -> str:
    with click.Context(click.Command("doctor")):
        set_language(language)
        return check_line(item)


def _no_english(text: str, *values: object) -> None:
    """No English word in ``text`` once the address and ``values`` (paths) are taken out."""
    for value in (BOARD, *values):
        text = text.replace(str(value), " ")
    words = {w.lower() for w in re.findall(r"[^\W\d_]+", text)}
    assert not words & ENGLISH, (text, words & ENGLISH)


def _french(line: str, *values: object) -> tuple[str, str]:
    """The line's French sentence and its quoted technical detail; the sentence holds no
    English word."""
    found = DETAIL.search(line)
    assert found is not None, line
    sentence = line[: found.start()]
    _no_english(sentence, *values)
    return sentence, found.group(1)


def _refuse(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("[Errno 111] Connection refused", request=request)


def test_an_unreachable_board_is_a_french_sentence_with_the_httpx_text_quoted(
    tmp_path: Path,
) -> None:
    checks = doctor(_config(tmp_path), environ=ENV, transport=httpx.MockTransport(_refuse))
    (board,) = [c for c in checks if c.name == "board"]
    sentence, detail = _french(_line(board))
    assert sentence == f"[ échec] forum\u00a0: {BOARD}/\u00a0: le forum ne répond pas"
    assert detail == "ConnectError: [Errno 111] Connection refused"
    # the English report is as before
    assert _line(board, "en") == (
        f"[fail] board: {BOARD}/: ConnectError: [Errno 111] Connection refused"
    )


def test_a_corrupt_database_is_a_french_sentence_with_sqlite_quoted(tmp_path: Path) -> None:
    (tmp_path / "forumbot.db").write_bytes(b"not a database at all" * 100)
    checks = doctor(_config(tmp_path), environ=ENV, offline=True)
    (database,) = [c for c in checks if c.name == "database"]
    sentence, detail = _french(_line(database), tmp_path)
    assert sentence == (
        f"[ échec] base de données\u00a0: {tmp_path / 'forumbot.db'} n'est pas lisible comme "
        "base de données (restaurez une sauvegarde)"
    )
    assert detail == "file is not a database"


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("password", "connexion refusée\u00a0: nom d'utilisateur ou mot de passe erroné"),
        ("banned", "connexion refusée\u00a0: le compte du bot est banni"),
        ("refused", "connexion refusée par le forum"),
    ],
)
def test_a_refused_login_names_its_kind_in_french(kind: str, said: str) -> None:
    from forumbot.ops.doctor import REFUSALS

    item = _check("login", "fail", "refused (%s): %s", kind, Text("bad credentials"),
                  alone=REFUSALS[kind], alone_args=())  # fmt: skip
    sentence, detail = _french(_line(item))
    assert sentence == f"[ échec] connexion\u00a0: {said}"
    assert detail == "bad credentials"


def test_every_doctor_finding_of_a_french_report_reads_french(tmp_path: Path) -> None:
    """A whole report on a broken board: each line is French, or French with a quoted detail."""
    (tmp_path / "forumbot.db").write_bytes(b"x" * 4096)
    checks = doctor(_config(tmp_path), environ=ENV, transport=httpx.MockTransport(_refuse))
    for item in checks:
        line = _line(item)
        if DETAIL.search(line):
            _french(line, tmp_path)
        else:
            _no_english(line, tmp_path)


def test_a_library_text_without_its_french_sentence_is_refused() -> None:
    with pytest.raises(ValueError, match="needs the sentence said without it"):
        _check("board", "fail", "%s", Text("boom"))
