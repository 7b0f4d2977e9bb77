"""parsers/ and rules/ never read the clock: time is passed in.

Project rule: "parsers/ and rules/ never do I/O, never read the clock or a global RNG". Their
imports (no httpx, sqlite, apscheduler, forumbot, random, time, socket) are checked by the
import-linter contract ``pure-core`` in pyproject.toml (tests/test_architecture.py); this file
checks what an import contract cannot see: calls of ``datetime.now()``, ``utcnow()``, ``today()``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE_DIRS = ("parsers", "rules")
FORBIDDEN_CALLS = frozenset({"now", "utcnow", "today"})


def _sources() -> list[Path]:
    return sorted(p for d in PURE_DIRS for p in (ROOT / d).rglob("*.py"))


def _violations(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in FORBIDDEN_CALLS:
                owner = func.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                if name in {"datetime", "date"}:
                    found.append(f"{name}.{func.attr}() at line {node.lineno}")
    return [f"{path.relative_to(root)}: {v}" for v in found]


def test_there_are_sources_to_check() -> None:
    assert any(p.parent.name == "parsers" for p in _sources())


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_module(path: Path) -> None:
    assert _violations(path) == []


def test_the_checker_catches_clock_reads(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    bad.write_text(
        "from datetime import datetime, date\nx = datetime.now()\ny = date.today()\n"
        "z = datetime.datetime.utcnow()\n",
        encoding="utf-8",
    )
    assert _violations(bad, tmp_path) == [
        "probe.py: datetime.now() at line 2",
        "probe.py: date.today() at line 3",
        "probe.py: datetime.utcnow() at line 4",
    ]
