"""Staff commands on duels and drafts (issue 13), in-process against the sandbox board:
adopting a topic a poll ignored, refusing a topic the board does not have, cancelling a
stuck duel (with its French declaration), dropping a draft, refused waivers and edits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.app import bootstrap
from forumbot.cli import main
from forumbot.config import load_config
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage

ADOPT = ["--forum", "3", "--duellist", "Aurora Vexley:3", "--duellist", "Cassius Thorne:4"]


@pytest.fixture()
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A sandbox board with one duel topic and a configuration pointing at it (as in
    tests/integration/test_cli.py)."""
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne"):
        board.add_user(name, "a")
    url = board.start()
    topic = board.create_topic(
        3, "Arbitre", "Duel : Aurora contre Cassius",
        "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
    )  # fmt: skip
    cfg = tmp_path / "forumbot.toml"
    CliRunner().invoke(main, ["init", str(cfg)])
    # the sandbox's pages say lang="fr": these commands are checked in English, so say so
    cfg.write_text(
        cfg.read_text()
        .replace('url = "http://127.0.0.1:8080"', f'url = "{url}"')
        .replace('language = ""', 'language = "en"', 1)
    )
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    yield cfg, board, topic
    board.stop()


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def _poll(cfg: Path, publish: bool = False) -> None:
    bot = bootstrap(load_config(cfg))
    try:
        bot.poll()
        if publish:
            bot.publish()
    finally:
        bot.close()


def _storage(cfg: Path) -> Any:
    return open_storage(load_config(cfg).database)


def test_a_topic_a_poll_ignored_is_listed_with_all_and_can_be_adopted(sandbox) -> None:  # type: ignore[no-untyped-def]
    cfg, board, _duel_topic = sandbox
    chat = board.create_topic(3, "Arbitre", "Entraînement du mardi", "Qui vient s'entraîner ?")
    _poll(cfg)
    listed = _run("duels", "list", "-c", str(cfg))
    assert f"topic {chat}:" not in listed.output
    everything = _run("duels", "list", "--all", "-c", str(cfg))
    assert f"topic {chat}: ignored" in everything.output, everything.output
    adopted = _run("duels", "adopt", str(chat), *ADOPT, "-c", str(cfg))
    assert adopted.exit_code == 0, adopted.output
    storage = _storage(cfg)
    duel = next(d for d in storage.duels() if d["topic_id"] == chat)
    assert duel["status"] == "open" and duel["title"] == "Entraînement du mardi"
    assert [d["kind"] for d in storage.declarations(None, duel["id"])] == ["opening"]
    again = _run("duels", "adopt", str(chat), *ADOPT, "-c", str(cfg))
    assert again.exit_code != 0 and "already holds a duel" in again.output


def test_a_topic_missing_on_the_board_is_refused_before_anything_is_drafted(
    sandbox,  # type: ignore[no-untyped-def]
) -> None:
    cfg, board, _topic = sandbox
    result = _run("duels", "adopt", "9999", *ADOPT, "-c", str(cfg))
    assert result.exit_code != 0
    assert "topic 9999 does not exist on the board" in result.output
    assert "Traceback" not in result.output
    storage = _storage(cfg)
    assert not [d for d in storage.duels() if d["topic_id"] == 9999]
    assert storage.declarations() == []


def test_cancel_ends_a_running_duel_with_a_french_declaration_and_an_audit(
    sandbox,  # type: ignore[no-untyped-def]
) -> None:
    cfg, board, topic = sandbox
    _poll(cfg)
    [opening] = _storage(cfg).declarations(("draft",))
    assert _run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    _poll(cfg, publish=True)  # the opening is out: the players know the duel
    storage = _storage(cfg)
    duel = storage.duel_by_topic(1, topic) or storage.duels()[0]
    assert duel["status"] == "running"
    result = _run(
        "duels", "cancel", str(topic), "--reason", "les deux duellistes ont quitté le club",
        "--by", "Maelis", "-c", str(cfg),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "cancelled" in result.output and "Duel annulé" in result.output
    _poll(cfg, publish=True)
    posted = board.posts(topic)[-1].text
    assert "[b]Duel annulé[/b]" in posted
    assert "Motif : les deux duellistes ont quitté le club." in plain(posted)
    # The seed is revealed, so the rolls declared so far can be checked (not « en cours »).
    revealed = f"Graine des dés, révélée à l'annulation du duel : {duel['dice_secret']}"
    assert revealed in plain(posted)
    storage = _storage(cfg)
    assert storage.duel(duel["id"])["status"] == "cancelled"
    [entry] = [
        e for e in storage.audit_entries(f"duel:{duel['id']}") if e["action"] == "duel.cancel"
    ]
    assert entry["actor"] == "Maelis"
    assert json.loads(entry["before"])["status"] == "running"
    assert json.loads(entry["after"])["status"] == "cancelled"
    count = len(board.posts(topic))
    _poll(cfg, publish=True)  # posted once; the cancelled duel is no longer refereed
    assert len(board.posts(topic)) == count
    again = _run("duels", "cancel", str(topic), "--reason", "x", "-c", str(cfg))
    assert again.exit_code != 0 and "nothing to cancel" in again.output


def test_drafts_drop_ends_a_stuck_opening_and_its_duel_without_posting(
    sandbox,  # type: ignore[no-untyped-def]
) -> None:
    cfg, board, topic = sandbox
    _poll(cfg)  # the opening is drafted, not published (review delay)
    storage = _storage(cfg)
    [opening] = storage.declarations(("draft",))
    before = len(board.posts(topic))
    result = _run(
        "drafts", "drop", str(opening["id"]), "--reason", "sujet verrouillé", "-c", str(cfg)
    )
    assert result.exit_code == 0, result.output
    assert "dropped" in result.output and "cancelled" in result.output
    storage = _storage(cfg)
    assert storage.declaration(opening["id"])["status"] == "cancelled"
    assert storage.duel(opening["duel_id"])["status"] == "cancelled"
    actions = [e["action"] for e in storage.audit_entries()]
    assert "draft.drop" in actions and "duel.cancel" in actions
    _poll(cfg, publish=True)
    assert len(board.posts(topic)) == before
    listing = _run("drafts", "list", "-c", str(cfg))
    assert "no pending draft" in listing.output
    again = _run("drafts", "drop", str(opening["id"]), "--reason", "x", "-c", str(cfg))
    assert again.exit_code != 0 and "only an unpublished draft" in again.output


def test_refused_edits_exit_non_zero_and_change_nothing(sandbox) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = sandbox
    _poll(cfg)
    [opening] = _storage(cfg).declarations(("draft",))
    waived = _run(
        "drafts", "edit", str(opening["id"]), "--waive", "Aurora Vexley:short_post", "-c", str(cfg)
    )
    assert waived.exit_code != 0 and "Traceback" not in waived.output
    text = cfg.parent / "t.txt"
    text.write_text("Top !", encoding="utf-8")
    mixed = _run(
        "drafts", "edit", str(opening["id"]), "--text-file", str(text),
        "--set", "Aurora Vexley.points=3", "-c", str(cfg),
    )  # fmt: skip
    assert mixed.exit_code != 0 and "cannot be combined" in mixed.output
    after = _storage(cfg).declaration(opening["id"])
    assert after["version"] == opening["version"] and after["text"] == opening["text"]
    assert not [e for e in _storage(cfg).audit_entries() if e["action"].startswith("draft.")]


def test_concede_ends_a_classic_duel_once_with_the_opponent_winning(
    sandbox,  # type: ignore[no-untyped-def]
) -> None:
    """``duels concede``: RULES.md [D] (classic is silent; as fatigue) the opponent wins. The
    « abandon » declaration goes out once, its publication finishes the duel, the classic
    table counts it, and the audit log has the concession."""
    cfg, board, topic = sandbox
    _poll(cfg)
    [opening] = _storage(cfg).declarations(("draft",))
    assert _run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    _poll(cfg, publish=True)
    duel = _storage(cfg).duels()[0]
    stranger = _run("duels", "concede", str(topic), "Odric Lenoir", "-c", str(cfg))
    assert stranger.exit_code != 0 and "is not a duellist" in stranger.output
    result = _run(
        "duels", "concede", str(topic), "cassius thorne", "--by", "Maelis", "-c", str(cfg)
    )
    assert result.exit_code == 0, result.output
    assert "Cassius Thorne concedes; Aurora Vexley wins" in result.output
    again = _run("duels", "concede", str(topic), "Aurora Vexley", "-c", str(cfg))
    assert again.exit_code != 0 and "already waits" in again.output
    assert _storage(cfg).duel(duel["id"])["status"] == "running"  # until it is out
    _poll(cfg, publish=True)
    posted = board.posts(topic)[-1].text
    assert "[b]Déclaration de l'arbitre : abandon[/b]" in plain(posted)
    assert "Cassius Thorne abandonne.\n" in plain(posted)
    assert "[b]Fin du duel.[/b] Aurora Vexley remporte le duel !" in plain(posted)
    assert "- Aurora Vexley : 25 PD\n- Cassius Thorne : 30 PD (abandon)\n" in plain(posted)
    assert row_secret(cfg, duel["id"]) in posted  # the dice seed is revealed at the end
    _poll(cfg)  # the poll after the publication runs the club's on_finished hooks
    storage = _storage(cfg)
    row = storage.duel(duel["id"])
    state = json.loads(row["state_json"])
    assert row["status"] == "finished" and state["winner"] == "Aurora Vexley"
    assert row["finish_notified_at"] is not None
    [entry] = [
        e for e in storage.audit_entries(f"duel:{duel['id']}") if e["action"] == "duel.concede"
    ]
    assert entry["actor"] == "Maelis"
    assert json.loads(entry["before"])["status"] == "running"
    assert json.loads(entry["after"])["conceded_by"] == "Cassius Thorne"
    assert json.loads(entry["after"])["winners"] == ["Aurora Vexley"]
    table = _run("leaderboard", "--kind", "classic", "-c", str(cfg))
    assert table.exit_code == 0, table.output
    assert "[b]Aurora Vexley[/b] : 1 duel (1 victoire, 0 défaite)" in plain(table.output)
    assert "[b]Cassius Thorne[/b] : 1 duel (0 victoire, 1 défaite)" in plain(table.output)
    count = len(board.posts(topic))
    _poll(cfg, publish=True)  # posted once; the finished duel is no longer refereed
    assert len(board.posts(topic)) == count
    over = _run("duels", "concede", str(topic), "Aurora Vexley", "-c", str(cfg))
    assert over.exit_code != 0 and "nobody can concede" in over.output


def row_secret(cfg: Path, duel_id: int) -> str:
    return str(_storage(cfg).duel(duel_id)["dice_secret"])
