"""``forumbot verify-dice`` recomputes every bot roll of a duel from its pages alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.classic import make_demo_board, run_demo
from forumbot.duels.verify import verify_pages
from forumbot.fetch import fetch_topic_pages
from forumbot.publish.typography import plain
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
        assert not report.ok and any("pages manquantes : 2" in plain(p) for p in report.problems)
        assert verify_pages([replace(p) for p in pages]).ok
    finally:
        board.stop()


def _english_words(lines: list[str]) -> list[str]:
    """English words of the French lint (``forumbot.publish.checks``) in ``lines``, beyond
    the URLs, hashes and numbers they quote."""
    from forumbot.publish.checks import french_problems

    return [p for line in lines for p in french_problems(line) if "English word" in p]


def test_a_running_duel_says_it_is_running_and_exits_0() -> None:
    """Issue 13: on a running duel verify-dice says so and how many rolls will be checkable
    at its end, in French, exit 0 (it said « NON conforme » and exited 1)."""
    clock = SandboxClock()
    board = make_demo_board(clock=clock)
    board.start()
    try:
        result = run_demo(
            seed=5, echo=lambda _line: None, board=board, sleep=clock.sleep, clock=clock,
            max_turns=1,
        )  # fmt: skip
        url = f"{board.base_url}/viewtopic.php?t={result.topic_id}"
        report = verify_pages(fetch_topic_pages(url))
        assert report.running and not report.ok and not report.failed, report.problems
        declared = sum(
            t.count("; attaque ") for t in (p.text for p in board.posts(result.topic_id))
        )
        assert report.pending == declared > 0
        cli = CliRunner().invoke(main, ["verify-dice", url])
        assert cli.exit_code == 0, cli.output
        lines = cli.output.splitlines()
        assert "NON conforme" not in cli.output
        assert lines[-1].startswith("duel en cours : rien n'est encore vérifiable")
        assert f"les {declared} lancers déclarés jusqu'ici le seront" in lines[-1]
        assert _english_words(lines) == [] and "problème" not in cli.output
    finally:
        board.stop()


def test_board_down_404_and_unknown_host_give_one_french_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Issue 13: a board that is down, a 404, an unknown host, a page that is not a topic
    and a missing file each give one line on standard error, no traceback."""
    import socket

    board = make_demo_board()
    base = board.start()
    try:
        runner = CliRunner()
        cases = {
            f"{base}/viewtopic.php?t=999": (1, "ce sujet n'existe pas (HTTP 404)"),
            f"{base}/index.php": (1, "ce n'est pas une page de sujet"),
            str(tmp_path / "absent.html"): (1, "fichier illisible"),
        }
        with socket.socket() as s:  # a port nobody listens on: the board is down
            s.bind(("127.0.0.1", 0))
            down = f"http://127.0.0.1:{s.getsockname()[1]}/viewtopic.php?t=1"
        cases[down] = (69, "le forum ne répond pas")
        for source, (code, words) in cases.items():
            out = runner.invoke(main, ["verify-dice", source])
            assert out.exit_code == code, (source, out.output)
            (line,) = out.output.splitlines()  # one line, no traceback
            assert line.startswith(f"verify-dice : {source} : ") and words in line, line
            assert isinstance(out.exception, SystemExit)
    finally:
        board.stop()

    def no_such_host(*_args: object, **_kwargs: object) -> object:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)  # no DNS query leaves the test
    out = CliRunner().invoke(main, ["verify-dice", "http://board.example/viewtopic.php?t=1"])
    assert out.exit_code == 69
    assert out.output == (
        "verify-dice : http://board.example/viewtopic.php?t=1 : hôte inconnu (board.example)\n"
    )
