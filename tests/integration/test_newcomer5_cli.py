"""What the fifth newcomer found in English on a French board's staff command line (W3), and
the advice an opening's refused text gave (W4: « set the numbers first (--set) », the command
refused on an opening). /work/helpers/newcomer5/report.md."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from tests.integration.test_cli_duels import _poll, _run, _storage, sandbox  # noqa: F401 (the fixture)
from tests.integration.test_newcomer4_cli import _speak, wrong_opening


def test_an_openings_contradicting_text_is_refused_in_french_without_advising_set(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """W3 and W4: the refusal and the --force warning in French; on an opening, only --force
    keeps the text and the duel keeps counting from the computed points (no --set)."""
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    decl, right, wrong, new = wrong_opening(cfg, tmp_path, by=2)
    edit = ["drafts", "edit", str(decl), "--text-file", str(new), "-c", str(cfg)]
    english = _run(*edit)
    assert english.exit_code == 1, english.output
    assert "(--set)" not in english.output, english.output
    assert (
        f"(Aurora Vexley's total: the text says {wrong}, the draft {right}); an opening's "
        "numbers cannot be set: only --force keeps the text as written, and the duel keeps "
        "counting from the computed points" in english.output
    ), english.output
    _speak(cfg, "fr")
    french = _run(*edit)
    assert french.exit_code == 1
    assert french.output == (
        f"Erreur : déclaration {decl} : le nouveau texte contredit les nombres du brouillon "
        f"(total d'Aurora Vexley : le texte dit {wrong}, le brouillon {right}) ; les nombres "
        "d'une ouverture ne se corrigent pas (pas de --set) : seul --force garde le texte tel "
        "quel, et le duel continue de compter à partir des points calculés\n"
    ), french.output
    forced = _run(*edit, "--force")
    assert forced.exit_code == 0, forced.output
    assert (
        f"attention, déclaration {decl} : gardé malgré le brouillon (--force) : total "
        f"d'Aurora Vexley : le texte dit {wrong}, le brouillon {right}\n"
    ) in forced.output, forced.output
    assert "the text says" not in forced.output


def test_a_users_unknown_name_and_password_prompts_are_french(
    request: pytest.FixtureRequest,
) -> None:
    """W3: « Error: no user 'Ivan' » and the « Password: / Repeat for confirmation: » prompts
    of users add, on a French board."""
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    _speak(cfg, "fr")
    unknown = _run("users", "notify", "Ivan", "--forum-name", "Ivan K", "-c", str(cfg))
    assert unknown.exit_code != 0
    assert unknown.output == "Erreur : aucun compte « Ivan »\n", unknown.output
    added = CliRunner().invoke(
        main, ["users", "add", "Maelis", "--role", "referee", "-c", str(cfg)],
        input="un-mot-de-passe-assez-long\nun-mot-de-passe-assez-long\n",
    )  # fmt: skip
    assert added.exit_code == 0, added.output
    assert "Mot de passe: " in added.output and "Répétez pour confirmer: " in added.output
    assert "Password" not in added.output and "Repeat" not in added.output, added.output
