"""What newcomer 5 found clumsy (session 6, C1-C11) on the staff's command line, the review
page's words and the host's commands: an identical text edit makes no version, an audit row
shows what changed, the page and the CLI say a draft's state alike, an opening's trail says
where its numbers come from, the poll counts the opening, doctor speaks the board's language
and names the ruleset in French, a first admin is refused before the password, the
simulate table's French, serve's health path."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from forumbot.app import bootstrap
from forumbot.cli import main
from forumbot.config import load_config
from forumbot.i18n import figures, ruleset_word, translator
from forumbot.ops.doctor import PAGES_IN_LANGUAGE, Check, page_language_of
from forumbot.ops.health import start_health_server
from forumbot.publish.typography import plain
from forumbot.web.audit_words import text_changes
from forumbot.web.draft_state import draft_state
from forumbot.web.users import UserError, add_user, check_first_admin
from forumbot.web.words import Words
from rules.balance.render import text_table
from rules.balance.simulate import Cell, Table
from tests.integration.test_cli_duels import _poll, _run, _storage, sandbox  # noqa: F401 (the fixture)
from tests.integration.test_cli_referee import (  # noqa: F401 (the fixtures)
    AURORA,
    CASSIUS,
    DISARM,
    SHIELD,
    _post,
    board_cfg,
    duel,
)
from tests.integration.test_newcomer4_cli import _speak


def test_an_identical_text_edit_says_so_and_makes_no_version(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    _poll(cfg)
    _speak(cfg, "fr")
    [opening] = _storage(cfg).declarations(("draft",))
    same = tmp_path / "same.txt"
    same.write_text(opening["text"] + "\n", encoding="utf-8")  # as `drafts show > file` gives it
    edit = ["drafts", "edit", str(opening["id"]), "--text-file", str(same), "--by", "Maelis"]
    done = _run(*edit, "-c", str(cfg))
    assert done.exit_code == 0, done.output
    assert done.output == (
        f"déclaration {opening['id']} : texte inchangé : aucune nouvelle version\n"
    ), done.output
    storage = _storage(cfg)
    assert storage.declaration(opening["id"])["version"] == opening["version"]
    rows = storage.db.execute("select action from audit_log where action like 'draft.%'")
    assert [r[0] for r in rows.fetchall()] == []
    listed = _run("drafts", "list", "-c", str(cfg)).output
    assert " brouillon, version 1 " in listed, listed


def test_an_openings_trail_says_where_its_points_come_from(
    request: pytest.FixtureRequest,
) -> None:
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    _poll(cfg)
    [opening] = _storage(cfg).declarations(("draft",))
    english = _run("drafts", "show", str(opening["id"]), "--trail", "-c", str(cfg)).output
    assert (
        "# an opening has no rule trail (nothing is computed before the first turn): the "
        "starting points come from the table by year of the classic rules ([starting_points])\n"
        "  Aurora Vexley: 25 PD (year 3)\n  Cassius Thorne: 30 PD (year 4)\n"
    ) in english, english
    _speak(cfg, "fr")
    french = _run("drafts", "show", str(opening["id"]), "--trail", "-c", str(cfg)).output
    assert "table par année des règles « classique »" in french, french
    assert "  Aurora Vexley : 25 PD (3e année)\n" in french, french


def test_the_poll_counts_the_opening_it_drafts(request: pytest.FixtureRequest) -> None:
    cfg, _board, _topic = request.getfixturevalue("sandbox")
    bot = bootstrap(load_config(cfg))
    try:
        report = bot.referee.poll_forum(3)
    finally:
        bot.close()
    assert (report.topics_listed, report.drafts) == (1, 1)
    assert len(_storage(cfg).declarations(("draft",))) == 1


def test_a_name_or_a_club_is_refused_before_the_password_is_asked(
    request: pytest.FixtureRequest,
) -> None:
    cfg = request.getfixturevalue("sandbox")[0]
    storage = _storage(cfg)  # no poll: accounts need none
    add_user(storage, "Admin", "long-enough-pw", "admin", datetime(2026, 12, 2, tzinfo=UTC))
    with pytest.raises(UserError, match=r"the club has an admin already \(Admin\)"):
        check_first_admin(storage, "Other")
    again = _run("users", "add", "Admin", "--role", "referee", "-c", str(cfg))
    assert again.exit_code == 1 and "Password" not in again.output, again.output
    assert "exists already" in again.output, again.output
    added = CliRunner().invoke(
        main, ["users", "add", "Maelis", "--role", "referee", "--password-stdin", "-c", str(cfg)],
        input="long-enough-pw\n",
    )  # the hint names the club's file
    assert f'--forum-name "BOARD NAME" -c {cfg}\n' in added.output, added.output


def test_a_draft_state_is_one_phrase_on_the_page_and_the_cli() -> None:
    french, english = translator("fr"), translator("en")
    assert draft_state("approved", 2, french) == "brouillon approuvé, version 2"
    assert draft_state("published", 3, french) == "déclaration publiée, version 3"
    assert draft_state("held", 1, english) == "held draft, version 1"
    page = Words("fr", "Europe/Paris", french)
    assert page.draft_state("approved", 2) == "brouillon approuvé, version 2"


def test_a_text_edit_in_the_audit_shows_the_lines_that_changed() -> None:
    head = "[b]Déclaration de l'arbitre : ouverture du duel[/b] " + "x" * 130
    before = f"{head}\nLes duellistes se saluent.\nFin."
    after = f"{head}\nLes duellistes se saluent, puis reculent.\nFin.\nPrécision."
    rows = text_changes(before, after, str, lambda n: f"line {n}", lambda k: f"+{k}")
    assert rows == (
        ("line 2", "Les duellistes se saluent.", "Les duellistes se saluent, puis reculent."),
        ("line 4", "—", "Précision."),
    )
    long_line = "mot " * 40
    [(field, old, new)] = text_changes(
        long_line + "A", long_line + "B", str, lambda n: f"line {n}", str
    )
    assert field == "line 1" and old.startswith("…") and old.endswith("A") and new.endswith("B")
    page = Words("fr", "Europe/Paris", translator("fr"))
    row = page.audit(
        {"action": "draft.edit_text", "target": "declaration:1", "before": before,
         "after": after, "actor": "Maelis", "at": "2026-12-02T17:00:00+00:00"}
    )  # fmt: skip
    assert row.changes[0][0] == "ligne 2" and row.changes[0][1] != row.changes[0][2]


def test_doctor_names_the_ruleset_and_a_club_without_database_speaks_its_pages() -> None:
    word = ruleset_word("classic")
    assert str(word) == "classic" and figures("fr", (word, "1.5")) == ("classique", "1,5")
    assert figures("en", (word,)) == ("classic",)
    board = Check("board", "ok", "", PAGES_IN_LANGUAGE, ("u", 200, "0.1", "fr"))
    assert page_language_of([Check("config", "ok", ""), board]) == "fr"
    assert page_language_of([Check("board", "skip", "")]) is None


def test_serves_health_line_gives_the_documented_path() -> None:
    run = start_health_server(0, lambda: {"status": "ok"})
    serve = start_health_server(0, lambda: {"status": "ok"}, club_status=lambda club: None)
    try:
        assert run.url.endswith("/health") and serve.url.endswith("/healthz")
    finally:
        run.close()
        serve.close()


def test_the_simulate_table_says_adult_in_french_with_the_same_figures() -> None:
    keys = ("5", "adult")
    cells = {
        (r, c): Cell(r, c, 3, 2 if r == "adult" else 1, 1 if r == "adult" else 2, 0, 0, 30)
        for r in keys for c in keys
    }  # fmt: skip
    table = Table("fatigue", "years", keys, keys, cells)
    english = text_table(table)
    from forumbot.i18n import Plural, translate

    def say_n(one: str, many: str, n: int, *values: object) -> str:
        return translate("fr", Plural(one, many, n), *values)

    french = text_table(table, say=translator("fr"), say_n=say_n)
    assert "  adult " not in french and "adulte" in french
    numbers = [line.split()[1:] for line in english.splitlines()[2:4]]
    assert numbers == [line.split()[1:] for line in french.splitlines()[2:4]]
    assert french.rstrip().endswith("19 fois sur 20.")
    assert english.rstrip().endswith("19 times in 20.")


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_draft_page_says_the_clis_state_and_an_unchanged_text_saves_nothing(
    anyio_backend: str,
) -> None:
    from forumbot.web import create_app
    from tests.unit.test_web_app import SECRET, form_post, login
    from tests.unit.web_scenario import build

    scenario = build()
    app = create_app(scenario.storage, secret_key=SECRET, now=scenario.clock)
    path = f"/drafts/{scenario.draft_id}"
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as client:
        await login(client, "rita")
        text = scenario.storage.declaration(scenario.draft_id)["text"]
        same = await form_post(client, path, path + "/text", {"version": "1", "text": text})
        assert same.status_code == 303
        page = (await client.get(path)).text
        assert "Texte inchangé : aucune nouvelle version." in plain(page)
        assert scenario.storage.declaration(scenario.draft_id)["version"] == 1
        assert "brouillon, version 1" in plain(page) and 'class="take"' in page
        await form_post(client, path, path + "/status", {"version": "1", "status": "approved"})
        approved = (await client.get(path)).text
    assert "brouillon approuvé, version 1" in plain(approved), approved
    assert 'class="take"' not in approved  # it goes out at the next pass: nothing to take


def test_doctor_of_a_club_with_no_database_speaks_the_language_its_pages_say(
    request: pytest.FixtureRequest,
) -> None:
    cfg = request.getfixturevalue("sandbox")[0]
    _speak(cfg, "")  # no board.language: the sandbox's pages say lang="fr"
    assert not (cfg.parent / "forumbot.db").exists()
    said = plain(_run("doctor", "-c", str(cfg)).output)
    assert "[    ok] configuration : forum phpbb3 " in said, said
    assert ", règles « classique »," in said, said  # one wording (newcomer6 C4)
    assert "n'existe pas encore ; forumbot run (ou forumbot serve) la crée" in said, said
    assert "pages in language" not in said and "ruleset" not in said, said


def test_checks_dry_run_names_no_draft_id_the_database_lacks(
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    cfg, board, topic = request.getfixturevalue("duel")
    board.post_reply(topic, AURORA, _post(DISARM, AURORA))
    board.post_reply(topic, CASSIUS, _post(SHIELD, CASSIUS))
    with caplog.at_level(logging.INFO, logger="forumbot"):
        checked = _run("check", "-c", str(cfg))
    assert checked.exit_code == 0, checked.output
    drafted = [r.getMessage() for r in caplog.records if " classic draft" in r.getMessage()]
    assert drafted == ["duel 1: classic draft (dry run: not stored) (turn1)"], drafted
    assert [d["kind"] for d in _storage(cfg).declarations(("draft",))] == []
