"""``forumbot serve``'s idle publish passes (issue 27, latency at 100 clubs) on a sandbox
board, with the fake clock of tests/integration/test_serve_sandbox.py (no sleep, each tick
deterministic): a skipped pass never holds back a draft approved from another process or a
draft whose review delay ends; the pool hands a poll out before other clubs' periodic passes.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from forumbot.duels.overrides import set_status
from forumbot.ops.club_runner import ClubRunner
from forumbot.ops.serve import Serve
from forumbot.sandbox import SandboxBoard
from forumbot.storage import open_storage
from tests.fakes.clock import SandboxClock
from tests.integration import test_serve_sandbox as sandbox
from tests.integration.test_serve_sandbox import (
    POLL_S,
    declarations,
    drive,
    open_duel,
    serve_for,
    write_club,
)

clock = sandbox.clock  # the fixtures: one fake clock, three sandbox boards
boards = sandbox.boards

PUBLISH_S = 5  # the clubs' publish_interval_s (test_serve_sandbox.CLUB)


def club_with_delay(folder: Path, board: SandboxBoard, delay: str) -> Path:
    """The club ``alpha`` on ``board`` with ``review_delay_s = <delay>`` (TOML text)."""
    path = write_club(folder, "alpha", board)
    path.write_text(path.read_text().replace("review_delay_s = 0", f"review_delay_s = {delay}"))
    return path


def skipped(runner: ClubRunner) -> int:
    return int(runner.snapshot()["jobs"].get("publish", {}).get("skipped", 0))


def one_club(
    tmp_path: Path, clock: SandboxClock, board: SandboxBoard, delay: str
) -> tuple[Serve, ClubRunner, int]:
    """One club ``alpha`` on ``board`` with ``review_delay_s = delay``, a duel topic opened
    on the board, and its serve loaded: ``(serve, runner, topic_id)``."""
    club_with_delay(tmp_path, board, delay)
    topic = open_duel(board)
    serve = serve_for(tmp_path, clock)
    serve.reload()
    return serve, serve.runners["alpha"], topic


def stop(serve: Serve, clock: SandboxClock) -> None:
    serve.stop_all()
    drive(serve, clock, lambda: not serve.runners, 60)


def test_a_draft_approved_from_another_process_goes_out_at_the_next_pass(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha = boards["alpha"]
    serve, runner, topic = one_club(tmp_path, clock, alpha, '"manual"')
    drive(serve, clock, lambda: runner.state == "running" and runner.passes > 3, 60)
    # the opening is drafted; under manual review it waits for a referee: passes idle
    drive(serve, clock, lambda: skipped(runner) >= 3, 10 * PUBLISH_S)
    assert declarations(alpha, topic) == 0
    page = open_storage(runner.config.database)  # the review page: its own connection
    try:
        (draft,) = page.declarations(("draft",))
        set_status(page, int(draft["id"]), "approved", "Arbitre", clock.utc())
    finally:
        page.close()
    took = drive(serve, clock, lambda: declarations(alpha, topic) == 1, 3 * PUBLISH_S)
    # the next pass ran (the change token moved), not skipped: one interval, then the
    # reply form's 1 s age on the fake clock
    assert took <= PUBLISH_S + 1.5
    before = skipped(runner)
    drive(serve, clock, lambda: skipped(runner) > before, 3 * PUBLISH_S)  # idle again after
    assert declarations(alpha, topic) == 1
    stop(serve, clock)


def test_a_draft_whose_review_delay_ends_is_never_held_back(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha = boards["alpha"]
    serve, runner, topic = one_club(tmp_path, clock, alpha, "60")
    drive(serve, clock, lambda: runner.snapshot()["pending_drafts"] == 1, POLL_S + 10)
    drafted_at = clock()
    # nothing changes in the database for 60 s: the pending draft keeps every pass running
    took = drive(serve, clock, lambda: declarations(alpha, topic) == 1, 60 + 3 * PUBLISH_S)
    assert skipped(runner) == 0
    assert 60 - PUBLISH_S <= clock() - drafted_at <= 60 + PUBLISH_S + 1.5, took
    drive(serve, clock, lambda: skipped(runner) >= 2, 4 * PUBLISH_S)  # then nothing is due
    stop(serve, clock)


def test_a_poll_goes_before_the_periodic_passes_of_other_clubs(
    tmp_path: Path, clock: SandboxClock, boards: dict[str, SandboxBoard]
) -> None:
    alpha, beta = boards["alpha"], boards["beta"]
    write_club(tmp_path, "alpha", alpha)
    write_club(tmp_path, "beta", beta)
    serve = serve_for(tmp_path, clock)
    serve.workers = 1  # one slot: the order of the hand-out is the order of the runs
    serve.reload()
    a, b = serve.runners["alpha"], serve.runners["beta"]
    drive(serve, clock, lambda: a.state == b.state == "running" and a.passes + b.passes > 8, 60)
    clock.advance(timedelta(seconds=POLL_S))  # everything of both clubs is due now
    with a._lock, b._lock:
        now_s = clock()
        a.due.update(publish=now_s - 20, notify=now_s - 20, poll=now_s + 100)
        b.due.update(publish=now_s + 100, notify=now_s + 100, poll=now_s - 1)
    polls = b.snapshot()["jobs"]["poll"]["runs"]
    published = a.snapshot()["jobs"]["publish"]["runs"]
    serve.tick()
    assert b.snapshot()["jobs"]["poll"]["runs"] == polls + 1  # due later, handed out first
    assert a.snapshot()["jobs"]["publish"]["runs"] == published
    assert [a.rank("publish"), a.rank("notify"), b.rank("poll"), b.rank("login")] == [2, 2, 1, 0]
    a.kick()
    assert a.rank("publish") == 1  # a kicked publish: a turn's declaration waits on it
    serve.stop_all()
    drive(serve, clock, lambda: not serve.runners, 60)
