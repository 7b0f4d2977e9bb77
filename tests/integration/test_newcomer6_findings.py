"""What the sixth newcomer found on a fresh install (issue 26, items W2-W4, C4, C6, C7 of
the eighth session's brief; the report itself was lost, each finding reproduced first)."""

from __future__ import annotations

from pathlib import Path

import pytest

from forumbot.ops.check import ruleset_warnings
from tests.integration.test_cli_referee import (  # noqa: F401 (the fixtures)
    board_cfg,
    duel,
    play_turn,
    poll,
    run,
    storage,
)
from tests.integration.test_newcomer4_cli import _speak

STALLING = Path(__file__).resolve().parents[1] / "fixtures" / "fatigue_seed_tests.toml"
"""The issue-17 spellbook: most of its pairings stall (tests/unit/test_balance_readable.py)."""


def test_check_stall_warnings_say_adultes_in_year_order_with_sample_and_next_step() -> None:
    """W2: « élèves d'adult » is « entre adultes » (the catalogue's year words); the warnings
    follow the years (1re année mirror, 2e contre 1re, 2e mirror...), each says its sample
    (« 11 sur 20 duels simulés »), and a last line says what to do next."""
    french = ruleset_warnings([str(STALLING)], language="fr")
    assert not any("adult " in line or "d'adult" in line for line in french), french
    head = f"avertissement (règles « {STALLING} »)\u00a0: en simulation, "
    assert all(line.startswith(head) for line in french[:-1]), french
    assert any("% des duels entre adultes ne peuvent pas finir" in line for line in french)
    assert any(
        "% des duels d'un adulte face à un élève de 7e année ne peuvent" in line for line in french
    )
    assert "% des duels entre élèves de 1re année ne peuvent" in french[0]
    assert "d'un élève de 2e année face à un élève de 1re année" in french[1]
    assert all(line.endswith(" sur 20 duels simulés") for line in french[:-1]), french
    assert french[-1] == (
        "prochaine étape\u00a0: voir le tableau complet avec forumbot simulate --ruleset "
        f"{STALLING}, puis donner plus de sorts d'attaque (ou moins de points de départ) aux "
        "années dont les duels ne peuvent pas finir, et relancer forumbot check"
    )
    english = ruleset_warnings([str(STALLING)])
    assert len(english) == len(french)
    assert "1st-year mirror duels cannot end" in english[0]
    assert english[0].endswith("with no winner): 20 of 20 simulated duels"), english[0]
    assert "2nd-year against 1st-year duels" in english[1]
    assert english[-1].startswith("next step: see the whole table with forumbot simulate")


def test_a_misspelt_set_or_waive_is_refused_in_french_with_the_closest_name(
    request: pytest.FixtureRequest,
) -> None:
    """W4: on a French board, ``drafts edit --set`` refusals are French and name the closest
    duellist or field (was « Error: referee.override: unknown override key ... » in English)."""
    cfg, board, topic = request.getfixturevalue("duel")
    draft = play_turn(cfg, board, topic)
    edit = ["drafts", "edit", str(draft["id"]), "-c", str(cfg)]
    english = run(*edit, "--set", "Cassius Thorn.points=3")
    assert english.exit_code == 1
    assert english.output == (
        "Error: referee.override: unknown override key 'Cassius Thorn.points': no duellist "
        "'Cassius Thorn' (did you mean 'Cassius Thorne'?); the duellists: 'Aurora Vexley', "
        "'Cassius Thorne'\n"
    ), english.output
    _speak(cfg, "fr")
    name = run(*edit, "--set", "Cassius Thorn.points=3")
    assert name.exit_code == 1
    assert name.output == (
        "Erreur : clé de correction inconnue 'Cassius Thorn.points' : aucun duelliste "
        "'Cassius Thorn' (vouliez-vous dire 'Cassius Thorne' ?) ; les duellistes : "
        "'Aurora Vexley', 'Cassius Thorne'\n"
    ), name.output
    field = run(*edit, "--set", "cassius thorne.pionts=3")
    assert field.output == (
        "Erreur : clé de correction inconnue 'cassius thorne.pionts' : aucun champ 'pionts' "
        "(vouliez-vous dire 'points' ?) ; les champs : attack_die, damage, defense_die, "
        "disqualified, landed, points\n"
    ), field.output
    case = run(*edit, "--set", "cassius thorne.points=3")  # the classic engine's names: exact
    assert "aucun duelliste 'cassius thorne' (vouliez-vous dire 'Cassius Thorne' ?)" in case.output
    typed = run(*edit, "--set", "Aurora Vexley.landed=3")
    assert (
        typed.output == "Erreur : Aurora Vexley.landed attend true ou false (vrai/faux), reçu 3\n"
    )
    waived = run(*edit, "--waive", "Aurora Vexly:barred")
    assert waived.exit_code == 1
    assert waived.output == (
        "Erreur : aucun duelliste ne s'appelle 'Aurora Vexly' "
        "(vouliez-vous dire 'Aurora Vexley' ?)\n"
    ), waived.output


@pytest.fixture()
def fresh_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """``forumbot init`` and board.url, nothing else (no board.language, no database), in
    an empty folder; the sandbox board's pages say lang="fr"."""
    from click.testing import CliRunner

    from forumbot.cli import main
    from forumbot.sandbox import SandboxBoard

    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne"):
        board.add_user(name, "a")
    url = board.start()
    board.create_topic(
        3, "Arbitre", "Duel : Aurora contre Cassius",
        "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
    )  # fmt: skip
    home = tmp_path / "club"
    home.mkdir()
    monkeypatch.chdir(home)
    cfg = home / "forumbot.toml"
    assert CliRunner().invoke(main, ["init", str(cfg)]).exit_code == 0
    cfg.write_text(cfg.read_text().replace('url = "http://127.0.0.1:8080"', f'url = "{url}"'))
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    yield cfg
    board.stop()


def test_check_speaks_the_language_doctor_reads_and_writes_only_its_dice_reserve(
    fresh_install: Path,
) -> None:
    """W3: with no board.language and no database, check spoke English (« not recorded yet »)
    where doctor spoke French (« pages en langue fr »); now both read the index page the same
    way. The dry run left ``forumbot.db.dice-reserve.json.lock`` too: now its one file is the
    dice reserve (issue 13: run publishes the opening check printed), and it says so."""
    cfg = fresh_install
    checked = run("check", "-c", str(cfg))
    assert checked.exit_code == 0, checked.output
    assert checked.output.startswith(  # no database yet: the note says it is not kept (NC7 #6)
        "note : board.language n'est pas réglé : cette commande parle la langue du forum (fr, "
        "lue sur ses pages), pas encore mémorisée : les autres commandes la suivront quand "
        'forumbot run aura créé la base de données (ou réglez board.language = "fr")\n'
    ), checked.output
    assert "essai à blanc" in checked.output and "dry run" not in checked.output
    reserve = cfg.parent / "forumbot.db.dice-reserve.json"
    assert sorted(p.name for p in cfg.parent.iterdir()) == [reserve.name, "forumbot.toml"]
    assert (
        f"mis de côté pour forumbot run : la graine des dés de chaque ouverture ci-dessus, dans "
        f"{reserve} (aussi secret que la base de données)"
    ) in checked.output, checked.output
    doctor = run("doctor", "-c", str(cfg))
    assert "pages en langue fr" in doctor.output and "connexion" in doctor.output, doctor.output
    assert sorted(p.name for p in cfg.parent.iterdir()) == [reserve.name, "forumbot.toml"]


def test_french_cli_lines_name_a_ruleset_one_way(request: pytest.FixtureRequest) -> None:
    """C4: « règles classique » (doctor, drafts show --trail) and « règles « classique » »
    (the review page) were two wordings, the first one ungrammatical: the command line's
    lines now say « règles « classique » » as the page does, check's warnings too."""
    cfg, _board, _topic = request.getfixturevalue("board_cfg")
    _speak(cfg, "fr")
    doctor = run("doctor", "--offline", "-c", str(cfg))
    assert ", règles « classique », forums suivis : 3\n" in doctor.output, doctor.output
    french = ruleset_warnings([str(STALLING)], language="fr")
    assert french[0].startswith(f"avertissement (règles « {STALLING} »)\u00a0: "), french[0]


def test_a_text_edit_says_its_version_and_trailing_spaces_change_nothing(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """C6: a file that is the draft's text with spaces at its lines' ends made version 2 (the
    text's end only was ignored); an edit printed the text alone, no version."""
    cfg, board, topic = request.getfixturevalue("duel")
    draft = play_turn(cfg, board, topic)
    text = storage(cfg).declaration(draft["id"])["text"]
    new = tmp_path / "new.txt"
    new.write_text("\n".join(line + "  \t" for line in text.split("\n")) + "\n\n")
    _speak(cfg, "fr")
    edit = ["drafts", "edit", str(draft["id"]), "--text-file", str(new), "-c", str(cfg)]
    same = run(*edit)
    assert same.exit_code == 0, same.output
    assert same.output == f"déclaration {draft['id']} : texte inchangé : aucune nouvelle version\n"
    assert storage(cfg).declaration(draft["id"])["text"] == text
    new.write_text(text.replace("L'arbitre\n", "L'arbitre du club\n"))
    edited = run(*edit)
    assert edited.exit_code == 0, edited.output
    head, _, shown = edited.output.partition("\n")
    assert head == f"# déclaration {draft['id']} modifiée : brouillon, version 2", edited.output
    assert "L'arbitre du club" in shown
    _speak(cfg, "en")
    numbers = run("drafts", "edit", str(draft["id"]), "--set", "Cassius Thorne.points=29",
                  "-c", str(cfg))  # fmt: skip
    assert f"# declaration {draft['id']} edited: draft, version 3\n" in numbers.output


def test_counts_are_printed_with_their_plural(
    request: pytest.FixtureRequest, fresh_install: Path
) -> None:
    """C7: « 1 brouillon(s) annulé(s) », « lisible, 1 sujet(s) listé(s) », « sujets listés 1,
    lus 1 »: each count takes its noun's form through ngettext (French: 0 and 1 singular)."""
    from forumbot.i18n import ngettext, translate

    one, many = "%s draft cancelled", "%s drafts cancelled"
    assert [translate("fr", ngettext(one, many, n), n) for n in (0, 1, 2)] == [
        "0 brouillon annulé", "1 brouillon annulé", "2 brouillons annulés",
    ]  # fmt: skip
    assert [translate("en", ngettext(one, many, n), n) for n in (0, 1, 2)] == [
        "0 drafts cancelled", "1 draft cancelled", "2 drafts cancelled",
    ]  # fmt: skip
    checked = run("check", "-c", str(fresh_install))  # French: its pages say so (W3)
    assert "forum n°\u00a03 : 1 sujet listé, 1 lu, 1 nouveau message\n" in checked.output
    doctor = run("doctor", "-c", str(fresh_install))
    expected = "[    ok] forum n°\u00a03\u00a0: lisible, 1 sujet listé\n"
    assert expected in doctor.output, doctor.output
    cfg, _board, topic = request.getfixturevalue("board_cfg")
    _speak(cfg, "fr")
    poll(cfg)
    cancelled = run("duels", "cancel", str(topic), "--reason", "erreur", "-c", str(cfg))
    assert cancelled.exit_code == 0, cancelled.output
    assert cancelled.output.startswith(
        f"duel 1 (sujet {topic}) : annulé ; 1 brouillon annulé\n"
    ), cancelled.output
