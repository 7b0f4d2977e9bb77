"""Issue 13, check shows what run posts: the declaration ``forumbot check`` prints is the one
``run`` publishes, with the same dice commitment (the dry run's seed used to vanish with its
in-memory copy of the database, and ``run`` drew another)."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.app import bootstrap
from forumbot.cli import main
from forumbot.config import load_config
from forumbot.duels.dice_reserve import DiceReserve, reserve_path
from forumbot.sandbox import SandboxBoard

FINGERPRINT = re.compile(r"Empreinte des dés[^:]*:\s*([0-9a-f]{64})")


@pytest.fixture()
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    board = SandboxBoard(flood_interval_s=0)
    board.add_user("Hibou", "pw-hibou", ignore_flood=True)
    for name in ("Arbitre", "Aurora Vexley", "Cassius Thorne"):
        board.add_user(name, "pw")
    url = board.start()
    topic = board.create_topic(
        3,
        "Arbitre",
        "Duel : Aurora contre Cassius",
        "Aurora Vexley (3e année) contre Cassius Thorne (4e année).",
    )
    cfg = tmp_path / "forumbot.toml"
    assert CliRunner().invoke(main, ["init", str(cfg)]).exit_code == 0
    # the sandbox's pages say lang="fr" (check speaks it, as doctor): checked in English here
    cfg.write_text(
        cfg.read_text()
        .replace('url = "http://127.0.0.1:8080"', f'url = "{url}"')
        .replace('language = ""', 'language = "en"', 1)
    )
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    yield cfg, board, topic
    board.stop()


def printed_opening(output: str, topic: int) -> str:
    """The text ``check`` prints under ``--- would post in topic <topic> (opening 0) ---``,
    before its closing lines (the dice it kept, « dry run: nothing was posted »)."""
    head = f"--- would post in topic {topic} (opening 0) ---\n"
    assert head in output, output
    rest = output.split(head, 1)[1]  # up to the lines that close the dry run
    closing = r"\n(?:kept for forumbot run: |dry run: nothing was posted)"
    return re.split(closing, rest, maxsplit=1)[0]


@pytest.mark.parametrize("engine", ["sqlite", "postgresql"])
def test_check_prints_the_opening_run_publishes(  # type: ignore[no-untyped-def]
    sandbox, engine: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On both engines (issue 27): on PostgreSQL ``check`` dry-runs on a copy of the club's
    schema (not even created by it) and keeps the reserve in the club's state folder."""
    cfg, board, topic = sandbox
    if engine == "postgresql":
        url = request.getfixturevalue("pg_schemas").fresh()
        cfg.write_text(cfg.read_text().replace('url = ""', f'url = "{url}"', 1))
        monkeypatch.setenv("STATE_DIRECTORY", str(cfg.parent / "state"))
        (cfg.parent / "state").mkdir(mode=0o700)
    runner = CliRunner()
    first = runner.invoke(main, ["check", "-c", str(cfg)])
    assert first.exit_code == 0, first.output
    shown = printed_opening(first.output, topic)
    again = printed_opening(runner.invoke(main, ["check", "-c", str(cfg)]).output, topic)
    assert again == shown  # a second dry run shows the same dice
    config = load_config(cfg)
    # still a dry run: the database is untouched (on PostgreSQL: the schema not even made)
    assert not untouched_exists(config.database)
    reserve = reserve_path(config.database)
    assert reserve is not None and stat.S_IMODE(reserve.stat().st_mode) == 0o600

    bot = bootstrap(config)  # what `forumbot run` does, one poll and one publish pass
    try:
        bot.poll()
        (decl,) = bot.storage.declarations(("draft",))
        assert decl["text"] == shown
        duel = bot.storage.duel(decl["duel_id"])
        (fingerprint,) = FINGERPRINT.findall(shown)
        assert duel["dice_commitment"] == fingerprint
        assert json.loads(reserve.read_text()) == {}  # taken once: a later duel gets its own
        bot.storage.db["declarations"].update(decl["id"], {"status": "approved"})
        bot.storage.db.conn.commit()
        assert len(bot.publish()) == 1
    finally:
        bot.close()
    published = [p.text for p in board.posts(topic) if "forumbot·" in p.text]
    assert len(published) == 1 and FINGERPRINT.findall(published[0]) == [fingerprint]


def untouched_exists(database: str) -> bool:
    """Whether the club's database exists: its file, or its PostgreSQL schema."""
    from forumbot.storage.engine import is_postgres
    from forumbot.storage.pg_files import schema_health

    if is_postgres(database):
        return schema_health(database)[1]
    return Path(database).exists()


def test_the_reserve_keeps_for_check_and_hands_over_once_to_run(tmp_path: Path) -> None:
    path = reserve_path(str(tmp_path / "bot.db"))
    assert path is not None and reserve_path(":memory:") is None
    check = DiceReserve(path, keep=True)
    seed = check.seed_for(1, 7)
    assert len(seed) == 32 and check.seed_for(1, 7) == seed  # check after check: same seed
    assert check.seed_for(1, 8) != seed  # one seed per topic
    run = DiceReserve(path)
    assert run.seed_for(1, 7) == seed  # run takes the seed check showed...
    assert run.seed_for(1, 7) != seed  # ...once: a topic adopted again gets a fresh one
    assert set(json.loads(path.read_text())) == {"1:8"}
    # no reserve file at all: run draws fresh seeds and creates nothing
    fresh = DiceReserve(reserve_path(str(tmp_path / "other.db")))
    assert (
        len(fresh.seed_for(1, 7)) == 32 and not (tmp_path / "other.db.dice-reserve.json").exists()
    )
    # a damaged reserve is logged and skipped: the duel still gets a seed
    path.write_text("not json")
    assert len(DiceReserve(path).seed_for(1, 8)) == 32
