"""The duels room's shape (issue 11): flows behind a registry, no circles, nothing too big.

Checked on the import graph (grimp, the engine of import-linter), function-level imports
included, so an import moved into a function to dodge a circle still counts.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

import forumbot
from forumbot.duels.flow import DuelFlow
from forumbot.duels.flows import FLOWS

ROOT = Path(forumbot.__file__).resolve().parent


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("forumbot", cache_dir=None)


def _imports(graph: grimp.ImportGraph, module: str) -> set[str]:
    return set(graph.find_modules_directly_imported_by(module))


def test_no_import_circle_in_the_duels_room(graph: grimp.ImportGraph) -> None:
    duels = {m for m in graph.modules if m.startswith("forumbot.duels.")}
    circles = [
        (a, b)
        for a in sorted(duels)
        for b in sorted(_imports(graph, a) & duels)
        if graph.find_shortest_chain(importer=b, imported=a) is not None
    ]
    assert circles == []


def test_duels_import_no_upper_room_and_publish_no_duels(graph: grimp.ImportGraph) -> None:
    upper = ("forumbot.club", "forumbot.ops", "forumbot.web", "forumbot.cli", "forumbot.app",
             "forumbot.demo", "forumbot.sandbox")  # fmt: skip
    wrong = [
        (m, i)
        for m in sorted(graph.modules)
        for i in sorted(_imports(graph, m))
        if (m.startswith("forumbot.duels") and i.startswith(upper))
        or (m.startswith("forumbot.publish") and i.startswith("forumbot.duels"))
    ]
    assert wrong == []


def test_flows_never_import_the_referee_nor_each_other(graph: grimp.ImportGraph) -> None:
    flows = ["forumbot.duels.classic", "forumbot.duels.fatigue", "forumbot.duels.duo"]
    others = {
        "forumbot.duels.referee",
        "forumbot.duels.deadlines",
        "forumbot.duels.flows",
        "forumbot.duels.publication",
    }
    for flow in flows:
        reached = graph.find_upstream_modules(flow)
        assert not reached & others, flow
        assert not reached & (set(flows) - {flow}), flow


def test_one_flow_per_kind_behind_the_protocol() -> None:
    assert sorted(FLOWS) == ["classic", "duo", "fatigue"]
    for name, flow in FLOWS.items():
        assert flow.name == name
        assert isinstance(flow, DuelFlow)


def test_no_module_of_the_room_over_600_lines() -> None:
    sizes = {
        str(p.relative_to(ROOT)): len(p.read_text(encoding="utf-8").splitlines())
        for folder in ("duels", "storage")
        for p in (ROOT / folder).glob("*.py")
    }
    assert {k: v for k, v in sizes.items() if v > 600} == {}
