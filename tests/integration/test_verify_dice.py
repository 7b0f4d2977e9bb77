"""``forumbot verify-dice`` recomputes every bot roll of a duel from its pages alone."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.classic import make_demo_board, run_demo
from forumbot.duels.verify import verify_pages
from forumbot.fetch import fetch_topic_pages
from tests.fakes.clock import SandboxClock


def test_verify_dice_on_a_whole_sandbox_duel(tmp_path: Path) -> None:
    clock = SandboxClock()  # board and bot share it: form ages cost no real time
    board = make_demo_board(clock=clock)
    board.start()
    try:
        result = run_demo(
            seed=5, echo=lambda _line: None, board=board, sleep=clock.sleep, clock=clock
        )
        url = f"{board.base_url}/viewtopic.php?t={result.topic_id}"
        pages = fetch_topic_pages(url)
        report = verify_pages(pages)
        assert report.ok, report.problems
        assert len(report.checks) == 2 * result.turns  # two posts a turn, all checked
        cli = CliRunner().invoke(main, ["verify-dice", url])
        assert cli.exit_code == 0, cli.output
        assert "tout est conforme" in cli.output
        # one tampered roll on a saved page is caught
        html = board_page(url)
        first = report.checks[0]
        wrong = 1 if first.declared[0] != 1 else 2
        needle = f"attaque {first.declared[0]}, défense {first.declared[1]}"
        assert needle in html
        saved = tmp_path / "page1.html"
        saved.write_text(
            html.replace(needle, f"attaque {wrong}, défense {first.declared[1]}", 1),
            encoding="utf-8",
        )
        others = []
        for i, page_url in enumerate(_page_urls(url, len(pages))[1:], start=2):
            path = tmp_path / f"page{i}.html"
            path.write_text(board_page(page_url), encoding="utf-8")
            others.append(str(path))
        tampered = CliRunner().invoke(main, ["verify-dice", str(saved), *others])
        assert tampered.exit_code == 1
        assert "DIFFÉRENT" in tampered.output
    finally:
        board.stop()


def _page_urls(url: str, count: int) -> list[str]:
    return [url] + [f"{url}&start={10 * k}" for k in range(1, count)]


def board_page(url: str) -> str:
    import httpx

    return httpx.get(url).text


def test_a_missing_middle_page_is_reported(tmp_path: Path) -> None:
    from dataclasses import replace

    clock = SandboxClock()  # board and bot share it: form ages cost no real time
    board = make_demo_board(clock=clock)
    board.start()
    try:
        result = run_demo(
            seed=5, echo=lambda _line: None, board=board, sleep=clock.sleep, clock=clock
        )
        pages = fetch_topic_pages(f"{board.base_url}/viewtopic.php?t={result.topic_id}")
        assert len(pages) >= 2
        kept = [p for p in pages if p.page != 2]
        report = verify_pages(kept)
        assert not report.ok and any("pages missing: 2" in p for p in report.problems)
        assert verify_pages([replace(p) for p in pages]).ok
    finally:
        board.stop()
