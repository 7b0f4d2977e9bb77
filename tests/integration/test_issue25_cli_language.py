"""Issue 25: the staff's command line speaks the board's language (``board.language``), and
one error never mixes two languages: the same errors, run in French and in English, hold no
word of the other language (a small list of each language's common words)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from forumbot.cli import main

ENGLISH_WORDS = {
    "the", "is", "no", "not", "of", "to", "and", "with", "give", "holds", "exists", "error",
    "declaration", "topic", "nothing", "change", "cannot", "use", "see", "file", "read",
    "such", "or", "directory", "pending", "draft", "account", "yet", "changed",
}  # fmt: skip
FRENCH_WORDS = {
    "le", "la", "les", "aucun", "aucune", "est", "du", "de", "sujet", "déclaration", "erreur",
    "rien", "donnez", "existe", "impossible", "lire", "ou", "dossier", "changer", "voir",
    "brouillon", "attente", "compte", "pour", "mot", "passe",
}  # fmt: skip

BOARD = """[board]
url = "http://127.0.0.1:9"
{language}
[bot]
username = "Hibou"
[storage]
database = "{database}"
"""


def _config(tmp_path: Path, language: str) -> Path:
    folder = tmp_path / (language or "unset")
    folder.mkdir()
    path = folder / "forumbot.toml"
    line = f'language = "{language}"' if language else ""
    path.write_text(BOARD.format(language=line, database=folder / "bot.db"), encoding="utf-8")
    path.chmod(0o600)
    return path


def _words(result: Result, *paths: Path) -> set[str]:
    text = result.output
    for path in paths:  # a path is a value, not a word of either language
        text = text.replace(str(path), " ")
    text = re.sub(r"--[\w-]+|`[^`]*`|\b\w+\.\w+\b", " ", text)  # options, commands, settings
    return {w.lower() for w in re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text)} | {
        w.lower().split("'")[-1] for w in re.findall(r"[^\W\d_]+'[^\W\d_]+", text)
    }


def _commands(cfg: Path) -> list[list[str]]:
    c = ["-c", str(cfg)]
    return [
        ["drafts", "show", "999", *c],  # the CLI's own error
        ["drafts", "edit", "1", *c],  # nothing to change
        ["drafts", "approve", "999", *c],  # a library's error (OverrideError), translated
        ["duels", "cancel", "5", "--reason", "x", *c],  # topic holds no duel
        ["drafts", "list", *c],  # a message, not an error
        ["users", "list", *c],
        ["init", str(cfg)],  # exists
    ]


@pytest.mark.parametrize("language", ["fr", "en", ""])
def test_one_error_one_language(tmp_path: Path, language: str) -> None:
    cfg = _config(tmp_path, language)
    runner = CliRunner()
    for args in _commands(cfg):
        result = runner.invoke(main, args)
        words = _words(result, cfg, cfg.parent)
        assert result.output.strip(), args
        if language == "fr":
            assert not words & ENGLISH_WORDS, (args, result.output, words & ENGLISH_WORDS)
            assert words & FRENCH_WORDS, (args, result.output)
        else:  # English, and English where the board's language is not known
            assert not words & FRENCH_WORDS, (args, result.output, words & FRENCH_WORDS)
            assert words & ENGLISH_WORDS, (args, result.output)


def test_french_errors_read_as_french(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "fr")
    runner = CliRunner()
    shown = runner.invoke(main, ["drafts", "show", "999", "-c", str(cfg)])
    assert shown.exit_code == 1 and shown.output == "Erreur : aucune déclaration 999\n"
    approve = runner.invoke(main, ["drafts", "approve", "999", "-c", str(cfg)])
    assert approve.output == "Erreur : aucune déclaration 999\n"
    assert runner.invoke(main, ["drafts", "list", "-c", str(cfg)]).output == (
        "aucun brouillon en attente\n"
    )
    english = runner.invoke(main, ["drafts", "show", "999", "-c", str(_config(tmp_path, "en"))])
    assert english.output == "Error: no declaration 999\n"


def test_an_error_the_catalogue_cannot_translate_is_all_english(tmp_path: Path) -> None:
    """A configuration refused by the schema (pydantic's English): the whole line is English,
    « Error: » included, even on a French board, rather than half and half."""
    cfg = _config(tmp_path, "fr")
    cfg.write_text(cfg.read_text(encoding="utf-8") + "[poll]\npoll_interval_s = -1\n")
    result = CliRunner().invoke(main, ["drafts", "list", "-c", str(cfg)])
    assert result.exit_code == 78
    assert result.output.startswith("Error: ") and "poll_interval_s" in result.output
    assert not _words(result, cfg) & (FRENCH_WORDS - {"ou"}), result.output
    # click's own usage errors are click's English, the detail too
    usage = CliRunner().invoke(main, ["drafts", "edit", "1", "--set", "x", "-c", str(cfg)])
    assert usage.exit_code == 2 and "wants KEY=VALUE, got 'x'" in usage.output
    assert not _words(usage, cfg) & FRENCH_WORDS, usage.output


def test_a_missing_file_is_reported_in_english(tmp_path: Path) -> None:
    """The configuration cannot be read, so its language is not known: English."""
    missing = tmp_path / "nowhere.toml"
    result = CliRunner().invoke(main, ["drafts", "list", "-c", str(missing)])
    assert result.exit_code == 78
    assert result.output == (
        f"Error: cannot read configuration {missing}: No such file or directory\n"
    )
