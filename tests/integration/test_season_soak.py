"""The season soak of ``bench/season_soak.py`` on a short seed (CI): eight players sign up in
the corpus' phrasings on the sandbox board, in the 1v1 thread and (most of them) in the 2v2
one, as duos written one line per member or alone; the real bot (HTTP client, desk, referee,
poster, notify) opens and referees a 1v1 and a 2v2 on the fake clock through a restore of the
nightly backup and whatever the seed draws (kills mid-write, restarts, outages, referee
decisions); every invariant of ``bench/soak/checks.py`` and ``checks_duo.py`` holds. The full
season (``--players 40 --weeks 8``) is in ``bench/``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SOAK = Path(__file__).resolve().parents[2] / "bench" / "season_soak.py"


def load_soak() -> ModuleType:
    spec = importlib.util.spec_from_file_location("forumbot_bench_season_soak", SOAK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_short_season_keeps_every_invariant(tmp_path: Path) -> None:
    load_soak()  # puts bench/ on sys.path for the soak package
    from soak.season import run_seed

    summary = run_seed(4, players=8, weeks=0.5, folder=tmp_path, drain_days=3, duo_share=0.6)
    assert summary.violations == []
    duos = int(str(summary.extra["duels_2v2"]))
    assert duos >= 1 and summary.duels > duos  # a 2v2 and a 1v1 at least
    assert int(str(summary.extra["duo_signup"])) >= 4 and summary.owls >= 6
    assert summary.restores == 1  # the restore of the last nightly backup ran
    line = summary.line()
    assert line.startswith(f"seed=4 duels={summary.duels} posts={summary.posts} ")
    assert " violations=0" in line
