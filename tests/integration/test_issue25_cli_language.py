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


# ---------------------------------------------------------------------------------------
# doctor, check, notify list and simulate (issue 25: what was still English on a French board)
# ---------------------------------------------------------------------------------------

NOTICES = (
    ("draft_waiting", "declaration:4", "pending"),
    ("violation_waiting", "violation:2", "sent"),
    ("task_opened", "referee_task:7", "dropped"),
)


def _one_language(output: str, language: str, *paths: Path) -> None:
    """No sentence of the other language in ``output`` (the module's word lists)."""
    words = _words(_Output(output), *paths)
    if language == "fr":
        assert not words & ENGLISH_WORDS, (output, words & ENGLISH_WORDS)
        assert words & FRENCH_WORDS, output
    else:
        assert not words & FRENCH_WORDS, (output, words & FRENCH_WORDS)


class _Output:
    """A piece of a command's output, read by :func:`_words` as a result."""

    def __init__(self, output: str) -> None:
        self.output = output


@pytest.mark.parametrize("language", ["fr", "en"])
def test_doctor_speaks_the_board_language(tmp_path: Path, language: str) -> None:
    cfg = _config(tmp_path, language)
    result = CliRunner().invoke(main, ["doctor", "--offline", "-c", str(cfg)], env={})
    assert result.exit_code == 1, result.output  # no password: a failed check
    lines = result.output.splitlines()
    assert len(lines) >= 8, result.output
    _one_language(result.output, language, cfg, cfg.parent)
    if language == "fr":
        assert "[  omis] horloge\u00a0: non vérifié (--offline)" in lines
        assert any(
            line.startswith("[ échec] mot de passe\u00a0: aucun mot de passe") for line in lines
        )
    else:  # the English lines as before
        assert "[skip] clock: not checked (--offline)" in lines
        assert any(line.startswith("[fail] password: no password: set") for line in lines)


def test_a_doctor_line_whose_library_text_is_unknown_quotes_it_after_french(
    tmp_path: Path,
) -> None:
    """A check whose detail is a library's text the catalogue does not hold says its French
    sentence, then quotes the library's English as a technical detail: one report, one language
    (issue 25, third reader; it printed the whole line in English)."""
    cfg = _config(tmp_path, "fr")
    (tmp_path / "fr" / "bot.db").write_bytes(b"not a database at all" * 100)
    result = CliRunner().invoke(main, ["doctor", "--offline", "-c", str(cfg)], env={})
    (line,) = [ln for ln in result.output.splitlines() if "bot.db" in ln]
    assert line.startswith("[ échec] base de données\u00a0: "), line
    assert line.endswith(
        "n'est pas lisible comme base de données (restaurez une sauvegarde) "
        "(détail technique\u00a0: «\u00a0file is not a database\u00a0»)"
    ), line
    _one_language(result.output.replace("file is not a database", ""), "fr", cfg, cfg.parent)


def _notices(cfg: Path) -> None:
    from forumbot.config import load_config
    from forumbot.storage import open_storage

    storage = open_storage(load_config(cfg).database)
    try:
        for i, (kind, target, status) in enumerate(NOTICES, 1):
            storage.db.execute(
                "insert into notices (idempotency_key, event_key, kind, target, recipient, "
                "channel, facts_json, status, attempts, created_at) values (?, ?, ?, ?, ?, "
                "'owl', '{}', ?, 0, '2026-12-02T05:00:00+00:00')",
                [f"k{i}", f"e{i}", kind, target, "Arbitre", status],
            )
        storage.db.conn.commit()
    finally:
        storage.close()


@pytest.mark.parametrize("language", ["fr", "en"])
def test_notify_list_speaks_the_board_language(tmp_path: Path, language: str) -> None:
    cfg = _config(tmp_path, language)
    _notices(cfg)
    result = CliRunner().invoke(main, ["notify", "list", "-c", str(cfg)])
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.output.splitlines()]
    assert [row[0] for row in rows] == ["1", "2", "3"]
    if language == "fr":
        assert rows[0][1:2] + rows[0][4:6] == ["en attente", "brouillon à relire", "déclaration 4"]
        assert rows[1][5] == "infraction 2" and rows[2][1] == "abandonné"
        _one_language(result.output, "fr")
    else:  # the outbox's own keys, as before
        assert rows[0][1:2] + rows[0][4:6] == ["pending", "draft_waiting", "declaration:4"]
        assert not _words(result) & FRENCH_WORDS
    person = CliRunner().invoke(main, ["users", "notify", "Rita", "-c", str(cfg)])
    assert person.exit_code == 0, person.output
    if language == "fr":
        assert person.output.startswith("Rita\tcanaux=owl,apprise\theures calmes=- (")
    else:
        assert person.output.startswith("Rita\tchannels=owl,apprise\tquiet=- (")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_simulate_captions_speak_the_board_language(tmp_path: Path, language: str) -> None:
    cfg = _config(tmp_path, language)
    args = ["simulate", "--duels", "60", "--seed", "3", "-c", str(cfg)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    _one_language(result.output, language, cfg)
    first = result.output.splitlines()[0]
    if language == "fr":
        assert first == (
            "classique — victoires de la ligne contre la colonne (%), intervalle à 95 %, années"
        )
        assert "clos au plafond de tours" in result.output and "Cases miroirs" in result.output
        assert re.search(r"durée moyenne \d+,\d tours, médiane \d+, nuls \d+,\d %", result.output)
    else:
        assert first == "classic — win rate of the row side (%), 95 % interval, years"
        assert re.search(r"mean length \d+\.\d turns, median \d+, draws \d+\.\d %", result.output)
    greedy = CliRunner().invoke(main, [*args, "--policy", "greedy"])
    _one_language(greedy.output, language, cfg)
    fatigue = CliRunner().invoke(
        main, ["simulate", "--ruleset", "fatigue", "--magic-types", "--duels", "40", "-c", str(cfg)]
    )
    assert fatigue.exit_code == 0, fatigue.output
    _one_language(fatigue.output, language, cfg)


def test_without_a_configuration_simulate_is_english(tmp_path: Path) -> None:
    """``simulate`` reads ``board.language`` of ``-c`` when there is one; none: English."""
    nowhere = tmp_path / "none.toml"
    result = CliRunner().invoke(main, ["simulate", "--duels", "60", "-c", str(nowhere)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("classic — win rate of the row side")


def test_ruleset_warnings_in_french() -> None:
    from forumbot.ops.check import ruleset_warnings

    stalling = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
    english = ruleset_warnings([str(stalling)])
    french = ruleset_warnings([str(stalling)], language="fr")
    assert english and len(french) == len(english)
    assert all(
        line.startswith(f"warning: ruleset {stalling}: in simulation") for line in english[:-1]
    )
    assert english[-1].startswith("next step: ")
    assert french[-1].startswith("prochaine étape\u00a0: ")
    assert any(
        line.startswith(f"avertissement (règles « {stalling} »)\u00a0: en simulation, 100 % des")
        and "élèves de 5e année" in line
        for line in french
    ), french
    for line in french:
        _one_language(line, "fr", stalling)


@pytest.fixture()
def sandbox_board():  # type: ignore[no-untyped-def]
    from forumbot.sandbox import SandboxBoard

    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne"):
        board.add_user(name, "pw")
    url = board.start()
    topic = board.create_topic(
        3, "Arbitre", "Duel : Aurora contre Cassius",
        "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
    )  # fmt: skip
    yield url, topic
    board.stop()


def _staff_lines(output: str) -> str:
    """``check``'s own lines: the drafts under each « --- » header are the players' French."""
    kept, in_draft = [], False
    for line in output.splitlines():
        if line.startswith("---"):
            kept.append(line)
            in_draft = True
        elif not in_draft or line.startswith(("dry run:", "essai à blanc")):
            kept.append(line)
    return "\n".join(kept)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_check_speaks_the_board_language(
    tmp_path: Path,
    sandbox_board: tuple[str, int],
    monkeypatch: pytest.MonkeyPatch,
    language: str,
) -> None:
    url, topic = sandbox_board
    cfg = tmp_path / "forumbot.toml"
    assert CliRunner().invoke(main, ["init", str(cfg)]).exit_code == 0
    text = cfg.read_text().replace('url = "http://127.0.0.1:8080"', f'url = "{url}"')
    text = re.sub(r"(?m)^language = .*\n", "", text)
    cfg.write_text(text.replace("[board]\n", f'[board]\nlanguage = "{language}"\n', 1))
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    result = CliRunner().invoke(main, ["check", "-c", str(cfg)])
    assert result.exit_code == 0, result.output
    own = _staff_lines(result.output)
    _one_language(own, language, cfg, cfg.parent)
    if language == "fr":
        assert f"--- serait publié dans le sujet {topic} (ouverture 0) ---" in own
        assert own.endswith("essai à blanc\u00a0: rien n'a été publié")
        assert f"connecté à {url} avec le compte Hibou" in own
    else:
        assert f"--- would post in topic {topic} (opening 0) ---" in own
        assert own.endswith("dry run: nothing was posted")


# ---------------------------------------------------------------------------------------
# board.language unset: the language the board's pages said (reader2 C26)
# ---------------------------------------------------------------------------------------


def _record(cfg: Path, language: str) -> None:
    """What doctor, check or the first poll store after reading a board page."""
    from datetime import UTC, datetime

    from forumbot.config import load_config
    from forumbot.storage import open_storage

    config = load_config(cfg)
    storage = open_storage(config.database)
    try:
        storage.record_board_language(
            config.board_url, config.platform, language, datetime(2026, 12, 2, tzinfo=UTC)
        )
    finally:
        storage.close()


def test_unset_language_follows_the_board(tmp_path: Path) -> None:
    """board.language unset on a board whose pages said « fr »: the commands speak French,
    errors included; an explicit board.language wins over what the board said."""
    unset = _config(tmp_path, "")
    _record(unset, "fr")
    runner = CliRunner()
    for args in _commands(unset):
        result = runner.invoke(main, args)
        if args[0] == "init":  # no configuration read: its language is not known
            continue
        _one_language(result.output, "fr", unset, unset.parent)
    shown = runner.invoke(main, ["drafts", "show", "999", "-c", str(unset)])
    assert shown.output == "Erreur : aucune déclaration 999\n"
    english = _config(tmp_path, "en")
    _record(english, "fr")
    assert runner.invoke(main, ["drafts", "show", "999", "-c", str(english)]).output == (
        "Error: no declaration 999\n"
    )
