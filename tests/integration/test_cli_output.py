"""Issue 13, output that reads well: `drafts list` in clear columns with the board's time,
published drafts with their publish time; `users list` with headers and disabled accounts."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from forumbot.app import bootstrap
from forumbot.cli import main
from forumbot.config import load_config
from forumbot.sandbox import SandboxBoard


@pytest.fixture()
def polled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    board.add_user("Arbitre", "a")
    board.add_user("Aurora Vexley", "a")
    board.add_user("Cassius Thorne", "c")
    url = board.start()
    topic = board.create_topic(
        3,
        "Arbitre",
        "Duel : Aurora contre Cassius",
        "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
    )
    cfg = tmp_path / "forumbot.toml"
    CliRunner().invoke(main, ["init", str(cfg)])
    text = cfg.read_text().replace('url = "http://127.0.0.1:8080"', f'url = "{url}"')
    text = text.replace('language = ""', 'language = "en"', 1)  # English checked (the board: fr)
    cfg.write_text(text.replace('timezone = "Europe/Paris"', 'timezone = "America/Montreal"'))
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    bot = bootstrap(load_config(cfg))
    bot.poll()
    bot.close()
    yield cfg, topic
    board.stop()


def board_minute(iso: str) -> str:
    return (
        datetime.fromisoformat(iso)
        .astimezone(ZoneInfo("America/Montreal"))
        .strftime("%Y-%m-%d %H:%M %Z")
    )


def test_drafts_list_columns_in_the_board_timezone(polled) -> None:  # type: ignore[no-untyped-def]
    cfg, topic = polled
    runner = CliRunner()
    listing = runner.invoke(main, ["drafts", "list", "-c", str(cfg)])
    assert listing.exit_code == 0, listing.output
    (line,) = listing.output.splitlines()
    bot = bootstrap(load_config(cfg))
    try:
        (decl,) = bot.storage.declarations(("draft",))
    finally:
        bot.close()
    found = re.fullmatch(
        rf"#{decl['id']}\s+duel 1\s+topic {topic}\s+opening\s+draft, version 1\s+publishes (.+)",
        line,
    )
    assert found is not None, line
    assert found.group(1) == board_minute(decl["publish_after"])  # no UTC, no microseconds
    assert "turn    turn" not in line

    assert (
        runner.invoke(main, ["drafts", "approve", str(decl["id"]), "-c", str(cfg)]).exit_code == 0
    )
    bot = bootstrap(load_config(cfg))
    try:
        assert len(bot.publish()) == 1
        published = bot.storage.declaration(decl["id"])
    finally:
        bot.close()
    assert runner.invoke(main, ["drafts", "list", "-c", str(cfg)]).output == "no pending draft\n"
    every = runner.invoke(main, ["drafts", "list", "--all", "-c", str(cfg)]).output.splitlines()
    assert re.fullmatch(
        rf"#{decl['id']}\s+duel 1\s+topic {topic}\s+opening\s+published declaration, version \d+"
        r"\s+.+",
        every[0],
    )
    assert every[0].endswith(f"published {board_minute(published['published_at'])}")


def test_users_list_has_headers_and_shows_disabled_accounts(tmp_path: Path) -> None:
    runner = CliRunner()
    cfg = tmp_path / "forumbot.toml"
    assert runner.invoke(main, ["init", str(cfg)]).exit_code == 0
    c = ["-c", str(cfg)]
    assert runner.invoke(main, ["users", "list", *c]).output.startswith("no account yet")
    for name, role in (("alice", "admin"), ("rita", "referee")):
        args = ["users", "add", name, "--role", role, *c, "--password-stdin"]
        assert runner.invoke(main, args, input="long enough secret\n").exit_code == 0
    assert runner.invoke(main, ["users", "disable", "rita", *c]).exit_code == 0
    rows = [
        line.split("\t") for line in runner.invoke(main, ["users", "list", *c]).output.splitlines()
    ]
    assert rows == [
        ["name", "role", "status", "duels"],
        ["alice", "admin", "enabled", "all"],
        ["rita", "referee", "disabled", "-"],
    ]
