"""What the newcomer's check of session 4 found on the staff's command line: a held draft's
note is read in the staff's language (never the raw code on a French board); a misspelt
duellist and a re-rendered text are reported in one language, never half and half."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from forumbot.cli import main
from forumbot.cli._common import LibraryText, one_language, set_language
from forumbot.duels.overrides import TEXT_RERENDERED
from forumbot.publish.typography import plain
from tests.integration.test_cli_duels import _poll, _run, _storage, sandbox  # noqa: F401 (the fixture)


def _speak(cfg: Path, language: str) -> None:
    line = re.compile(r'(?m)^language = "[a-z]*"$')
    cfg.write_text(line.sub(f'language = "{language}"', cfg.read_text(), count=1))


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


def test_a_misspelt_duellist_is_refused_in_one_language(request: pytest.FixtureRequest) -> None:
    cfg, board, _topic = request.getfixturevalue("sandbox")
    _poll(cfg)  # the duel's duellists are the did-you-mean's candidates
    chat = board.create_topic(3, "Arbitre", "Entraînement du mardi", "Qui vient s'entraîner ?")
    adopt = ["duels", "adopt", str(chat), "--forum", "3", "--duellist", "Aurora Vexly:3",
             "--duellist", "Cassius Thorne:4", "-c", str(cfg)]  # fmt: skip
    english = _run(*adopt)
    assert english.exit_code == 1 and english.output == (
        "Error: no member named 'Aurora Vexly' on the board (did you mean 'Aurora Vexley'?): "
        "nothing adopted (fix the name, or --force to adopt anyway)\n"
    ), english.output
    _speak(cfg, "fr")
    french = _run(*adopt)
    assert french.exit_code == 1 and french.output == (
        "Erreur : aucun membre du forum ne s'appelle 'Aurora Vexly' (vouliez-vous dire "
        "'Aurora Vexley' ?) ; rien n'est adopté (corrigez le nom, ou --force pour adopter "
        "quand même)\n"
    ), french.output
    forced = _run(*adopt, "--force")
    assert forced.exit_code == 0, forced.output
    assert "attention : aucun membre du forum ne s'appelle 'Aurora Vexly'" in forced.output


def test_the_rerendered_text_warning_is_in_one_language() -> None:
    message = "warning: declaration %s: %s"
    with click.Context(main):
        set_language("fr")
        assert one_language(message, 1, LibraryText(TEXT_RERENDERED)) == (
            "attention, déclaration 1 : le texte avait été modifié à la main : il a été refait "
            "à partir du modèle pour donner les nouveaux nombres (le texte modifié à la main "
            "est dans le journal d'audit)", "fr",
        )  # fmt: skip
        # a library text the catalogue does not hold: the whole line in English
        assert one_language(message, 1, LibraryText("something new")) == (
            "warning: declaration 1: something new", "en",
        )  # fmt: skip
        set_language("en")
        assert one_language(message, 1, LibraryText(TEXT_RERENDERED))[1] == "en"


def test_check_says_which_language_an_unset_board_language_gives(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """board.language unset: the command line follows the board's recorded language, else
    the one its index page says (as doctor reads it: newcomer6 W3), else English, and check's
    note says so in the language of the rest of its output."""
    from tests.integration.test_issue25_cli_language import _record

    cfg, _board, _topic = request.getfixturevalue("sandbox")
    _speak(cfg, "")
    with monkeypatch.context() as quiet:  # a board whose pages say no language
        quiet.setattr("forumbot.ops.doctor.pages_language", lambda config: None)
        first = _run("check", "-c", str(cfg))
    assert first.exit_code == 0, first.output
    assert (
        "warning: board.language is not set and the board's language is not recorded yet: "
        'the command line speaks English until then (set board.language = "fr" for a French '
        "board)\n"
    ) in first.output
    assert "dry run: nothing was posted" in first.output
    _record(cfg, "fr")
    second = _run("check", "-c", str(cfg))
    assert second.exit_code == 0, second.output
    assert (
        "note : board.language n'est pas réglé : la ligne de commande parle la langue du "
        "forum (fr, lue sur ses pages)\n"
    ) in second.output
    assert "essai à blanc" in second.output and "not set" not in second.output


def test_users_add_says_which_board_account_its_owls_go_to(tmp_path: Path) -> None:
    from click.testing import CliRunner

    cfg = tmp_path / "forumbot.toml"
    runner = CliRunner()
    assert runner.invoke(main, ["init", str(cfg)]).exit_code == 0
    added = runner.invoke(
        main, ["users", "add", "Admin", "--role", "admin", "-c", str(cfg), "--password-stdin"],
        input="long enough secret\n",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    assert added.output.splitlines()[-2:] == [
        "user Admin added (admin)",
        "owls to Admin go to the board account 'Admin' (not checked on the board); if that is "
        'not their board account: forumbot users notify Admin --forum-name "BOARD NAME" '
        f"-c {cfg}",  # the club's file, typed as printed (newcomer5 C8)
    ]


def wrong_opening(cfg: Path, tmp_path: Path, by: int) -> tuple[int, str, str, Path]:
    """Polls, then: the opening's draft id, its starting PD for Aurora Vexley, that figure plus
    ``by``, and a file holding the opening's text with the wrong figure."""
    _poll(cfg)
    [opening] = _storage(cfg).declarations(("draft",))
    text = opening["text"]
    line = re.search(r"(?m)^- \[b\]Aurora Vexley\[/b\] \(3e année\)\s:\s(\d+)\sPD$", text)
    assert line is not None, text
    wrong = str(int(line.group(1)) + by)
    new = tmp_path / "opening.txt"
    new.write_text(text[: line.start(1)] + wrong + text[line.end(1) :], encoding="utf-8")
    return int(opening["id"]), line.group(1), wrong, new


def test_an_openings_starting_points_are_checked_like_a_turns_totals(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """drafts edit --text-file on an opening whose starting PD contradict the draft's: refused
    unless --force, as for a turn's totals (README: "totals or dice contradicting the draft")."""
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    decl, right, wrong, new = wrong_opening(cfg, tmp_path, by=1)
    before = _storage(cfg).declaration(decl)["text"]
    edit = ["drafts", "edit", str(decl), "--text-file", str(new), "-c", str(cfg)]
    refused = _run(*edit)
    assert refused.exit_code == 1, refused.output
    assert (
        f"Aurora Vexley's total: the text says {wrong}, the draft {right}"
        in refused.output
    )
    assert _storage(cfg).declaration(decl)["text"] == before
    forced = _run(*edit, "--force")
    assert forced.exit_code == 0, forced.output
    assert "kept against the draft (--force): Aurora Vexley's total" in forced.output


def test_a_declarations_state_reads_as_on_the_review_page_and_no_duel_is_said(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    cfg, _board, _topic = request.getfixturevalue("sandbox")
    empty = tmp_path / "empty.toml"
    empty.write_text(cfg.read_text().replace("forumbot.db", "empty.db"))
    assert _run("duels", "list", "-c", str(empty)).output == "no duel\n"
    _speak(empty, "fr")
    assert _run("duels", "list", "-c", str(empty)).output == "aucun duel\n"
    _poll(cfg)
    _speak(cfg, "fr")
    [opening] = _storage(cfg).declarations(("draft",))
    held = _run("drafts", "hold", str(opening["id"]), "-c", str(cfg))
    # one phrase with its noun, as the review page says it (newcomer5 C3)
    said = f"déclaration {opening['id']} : brouillon mis en attente, version 1\n"
    assert plain(held.output) == said, held.output
    listed = _run("drafts", "list", "-c", str(cfg)).output
    assert " brouillon mis en attente, version 1  " in listed, listed
    approved = _run("drafts", "approve", str(opening["id"]), "-c", str(cfg))
    said = f"déclaration {opening['id']} : brouillon approuvé, version 1\n"
    assert plain(approved.output) == said, approved.output
    _speak(cfg, "en")
    shown = _run("drafts", "show", str(opening["id"]), "-c", str(cfg)).output
    assert "(opening, approved draft, version 1)" in shown, shown
    offline = CliRunner().invoke(main, ["doctor", "--offline", "-c", str(empty)], env={})
    assert "[  omis] forum : non vérifié (--offline)" in plain(offline.output).splitlines()
