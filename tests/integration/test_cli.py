"""The command line, in-process (click's CliRunner) against real pages and the sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.config import load_config
from forumbot.publish.typography import plain
from forumbot.sandbox import SandboxBoard

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"


def test_parse_page_prints_the_json_contract() -> None:
    result = CliRunner().invoke(main, ["parse-page", str(FIXTURES / "viewtopic_t2_page1_fr.html")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert set(data) == {"platform", "topic_id", "page", "pages", "logged_in_as", "posts"}
    assert (data["platform"], data["topic_id"], data["page"], data["pages"]) == ("phpbb3", 2, 1, 3)
    post = next(p for p in data["posts"] if p["post_id"] == 3)
    assert set(post) == {
        "post_id",
        "author",
        "author_id",
        "posted_at",
        "edited",
        "text",
        "bold",
        "quotes",
        "line_count",
        "dice",
        "action",
    }
    assert post["author"] == "Aurora Vexley" and post["author_id"] == 58
    assert post["edited"] == {"by": "Aurora Vexley", "count": 1}
    assert post["bold"] == ["Lance de givre"]
    assert set(post["action"]) == {"spell", "bet", "kind", "target", "move_to"}


def test_parse_page_on_a_page_that_is_not_a_topic_fails_clearly() -> None:
    result = CliRunner().invoke(
        main, ["parse-page", str(FIXTURES / "viewtopic_topic_does_not_exist_fr.html")]
    )
    assert result.exit_code == 1
    assert (
        "does not exist" in result.output
        or "n’existe pas" in result.output
        or "existe" in result.output
    )


def test_init_writes_a_config_that_loads(tmp_path: Path) -> None:
    target = tmp_path / "forumbot.toml"
    result = CliRunner().invoke(main, ["init", str(target)])
    assert result.exit_code == 0
    config = load_config(target)
    assert config.platform == "phpbb3" and config.review_delay_s == 600
    assert CliRunner().invoke(main, ["init", str(target)]).exit_code != 0  # no overwrite


@pytest.fixture()
def sandbox_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
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
    # the sandbox's pages say lang="fr": these commands are checked in English, so say so
    cfg.write_text(text.replace('language = ""', 'language = "en"', 1))
    monkeypatch.setenv("FORUMBOT_PASSWORD", "pw-hibou")
    yield cfg, board, topic
    board.stop()


def test_check_posts_nothing_and_prints_the_drafts(sandbox_config) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = sandbox_config
    before = len(board.posts(topic))
    result = CliRunner().invoke(main, ["check", "-c", str(cfg)])
    assert result.exit_code == 0, result.output
    assert "would post in topic" in result.output and "Top !" in plain(result.output)
    assert "nothing was posted" in result.output
    assert len(board.posts(topic)) == before
    assert not Path(load_config(cfg).database).exists()  # a dry run works on a copy


def test_drafts_commands_with_audit(sandbox_config) -> None:  # type: ignore[no-untyped-def]
    cfg, board, topic = sandbox_config
    from forumbot.app import bootstrap

    bot = bootstrap(load_config(cfg))
    bot.poll()
    bot.close()
    runner = CliRunner()
    listing = runner.invoke(main, ["drafts", "list", "-c", str(cfg)])
    assert listing.exit_code == 0 and "opening" in listing.output
    decl_id = int(listing.output.split()[0].lstrip("#"))
    shown = runner.invoke(main, ["drafts", "show", str(decl_id), "-c", str(cfg)])
    assert "Top !" in plain(shown.output)
    new_text = cfg.parent / "new.txt"
    new_text.write_text("Que le duel commence !", encoding="utf-8")
    edited = runner.invoke(
        main,
        [
            "drafts",
            "edit",
            str(decl_id),
            "-c",
            str(cfg),
            "--text-file",
            str(new_text),
            "--by",
            "Maelis",
        ],
    )
    assert edited.exit_code == 0 and "Que le duel commence" in edited.output
    assert runner.invoke(main, ["drafts", "hold", str(decl_id), "-c", str(cfg)]).exit_code == 0
    assert (
        runner.invoke(
            main, ["drafts", "approve", str(decl_id), "-c", str(cfg), "--by", "Maelis"]
        ).exit_code
        == 0
    )
    bot = bootstrap(load_config(cfg))
    try:
        audit = bot.storage.audit_entries("declaration:")
        assert [a["action"] for a in audit] == ["draft.edit_text", "draft.held", "draft.approved"]
        assert audit[0]["actor"] == "Maelis"
        assert bot.publish()
    finally:
        bot.close()
    hibou = board.user_id("Hibou")
    posted = [p.text for p in board.posts(topic) if p.poster_id == hibou]
    assert len(posted) == 1 and "Que le duel commence" in posted[0]
    # published drafts can no longer change
    late = runner.invoke(main, ["drafts", "hold", str(decl_id), "-c", str(cfg)])
    assert late.exit_code != 0 and "published" in late.output


def test_demo_referees_a_duel_to_a_winner() -> None:
    from forumbot.demo.classic import run_demo

    lines: list[str] = []
    result = run_demo(seed=11, echo=lines.append)
    assert result.winner is not None or result.draw
    assert result.duplicates == 0
    assert len(result.declarations) == result.turns + 1  # opening + one per turn
    assert any("Fin du duel" in line for line in lines)


def test_readme_documents_every_command() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    for command in main.list_commands(click.Context(main)):
        assert f"forumbot {command}" in readme, f"README does not mention `forumbot {command}`"


def test_forumactif_demo_uses_the_game_master_dice() -> None:
    """Issue 3: `forumbot demo --platform forumactif` referees a classic duel to a winner
    with forum-rolled dice (the bot rolls none)."""
    from forumbot.demo.classic import run_demo

    lines: list[str] = []
    result = run_demo(platform="forumactif", seed=3, echo=lines.append)
    assert result.winner is not None or result.draw
    assert result.duplicates == 0
    assert len(result.declarations) == result.turns + 1


def test_markers_are_whole_tokens() -> None:
    from forumbot.publish.render import marker_text

    assert marker_text("b1t7-turn1") not in marker_text("b1t7-turn10")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--now", "garbage"], "not an ISO datetime"),
        (["--ruleset", "nosuch"], "no ruleset 'nosuch'"),
        (["--platform", "forumactif"], "this is a phpbb3 page, not forumactif"),
    ],
)
def test_parse_page_bad_options_give_a_clear_error(args: list[str], message: str) -> None:
    page = str(FIXTURES / "viewtopic_t2_page1_fr.html")
    result = CliRunner().invoke(main, ["parse-page", page, *args])
    assert result.exit_code != 0 and message in result.output
    assert "Traceback" not in result.output
