"""The rooms of the code stay as docs/architecture.md draws them (issue 11).

- the import-linter contracts of pyproject.toml hold (layers, pure core, sandbox, storage);
- no import cycle inside ``forumbot``, at any depth, counting imports placed inside functions;
- no module over 600 lines outside the tests.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 600


def test_import_contracts_hold() -> None:
    pytest.importorskip("importlinter")
    result = subprocess.run(
        [sys.executable, "-c", "import sys, importlinter.cli as c; sys.exit(c.lint_imports())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def import_cycles(package: str) -> list[list[str]]:
    """Strongly connected groups (size > 1) of the module import graph of ``package``.

    grimp reads every import statement, including those inside functions, so a lazy import
    placed to dodge a circle is still a circle.
    """
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph(package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = 0

    def imported(module: str) -> list[str]:
        return sorted(graph.find_modules_directly_imported_by(module))

    def visit(start: str) -> None:  # iterative Tarjan (no recursion limit)
        nonlocal counter
        work = [(start, iter(imported(start)))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if not child.startswith(package):
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(imported(child))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return groups


def test_no_import_cycle_in_forumbot() -> None:
    assert import_cycles("forumbot") == []


def test_no_module_over_600_lines() -> None:
    too_long = []
    for folder in ("forumbot", "parsers", "rules", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            if lines > MAX_MODULE_LINES:
                too_long.append(f"{path.relative_to(ROOT)}: {lines}")
    assert too_long == []
