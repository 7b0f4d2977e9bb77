"""The crash test of ``bench/crash_test.py`` with a small count (CI): ``forumbot run`` is
SIGKILLed 8 times (random moments and the ``before_post`` / ``after_post`` crash points of the
publish path), restarted each time, then run cleanly until its duels end; the board holds every
published declaration exactly once and nothing else. The full run (``--runs 100``) is in
``bench/``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.e2e

CRASH_TEST = Path(__file__).resolve().parents[2] / "bench" / "crash_test.py"


def load_crash_test() -> ModuleType:
    spec = importlib.util.spec_from_file_location("forumbot_bench_crash_test", CRASH_TEST)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def test_markers_are_read_as_whole_tokens() -> None:
    crash = load_crash_test()
    text = "Tour 1.\n[size=70]forumbot·b1t7-turn1·[/size]\nforumbot·b1t7-turn10·"
    assert crash.markers_in(text) == ["b1t7-turn1", "b1t7-turn10"]
    assert crash.markers_in("no marker here") == []


def test_sigkill_at_random_points_then_restart_loses_and_duplicates_nothing(
    tmp_path: Path,
) -> None:
    crash = load_crash_test()
    lines: list[str] = []
    figures = crash.run_crash_test(
        6,
        tmp_path,
        duels=2,
        seed=11,
        point_share=0.75,
        max_delay_s=3.0,
        # deadlines of the waits on a condition (the crash point reached, every duel over and
        # nothing left to publish): generous, so a loaded machine only makes the test slower
        point_timeout_s=120.0,
        final_timeout_s=900.0,
        say=lines.append,
    )
    report = "\n".join(figures.lines())
    assert figures.runs == 6
    assert sum(figures.kills.values()) == 6, report
    # the publish path itself was hit: the bot killed itself before and after a POST
    assert figures.kills["before_post"] >= 1 and figures.kills["after_post"] >= 1, report
    assert figures.final_clean, report + "\n" + (tmp_path / "bot.log").read_text()[-3000:]
    assert figures.duels_finished == figures.duels_opened == 2, report
    assert figures.declarations >= 4, report
    assert figures.published_rows == figures.declarations, report
    assert figures.duplicates == 0, report
    assert figures.missing == 0, report
    assert figures.unrecorded == 0, report
    assert figures.stuck == 0 and figures.pending == 0, report
    assert figures.owl_duplicates == 0 and figures.owls_missing == 0, report
    assert figures.ok and report.endswith("RESULT: OK")


def test_restoring_older_backups_between_kills_loses_and_duplicates_nothing(
    tmp_path: Path,
) -> None:
    """Issue 22: ``--restore`` mode with a small count (every gap backs the database up, half
    of them restore an older backup before the bot starts again)."""
    crash = load_crash_test()
    lines: list[str] = []
    figures = crash.run_crash_test(
        4,
        tmp_path,
        duels=2,
        seed=5,
        point_share=1.0,  # kills at the publish points only: no luck in the suite
        max_delay_s=3.0,
        point_timeout_s=120.0,
        final_timeout_s=900.0,
        backup_share=1.0,
        restore_share=0.5,
        say=lines.append,
    )
    report = "\n".join(figures.lines())
    assert figures.restores >= 1 and figures.backups >= figures.restores, report
    assert figures.final_clean, report + "\n" + (tmp_path / "bot.log").read_text()[-3000:]
    assert figures.declarations >= 4, report
    assert figures.published_rows == figures.declarations, report
    assert figures.duplicates == 0 and figures.missing == 0 and figures.unrecorded == 0, report
    assert figures.stuck == 0 and figures.pending == 0, report
    assert figures.ok and report.endswith("RESULT: OK")
