"""parsers/ and rules/ stay pure: no transport, storage, scheduler, clock or randomness.

Project rule: "parsers/ and rules/ must NEVER import httpx, sqlite3, sqlite_utils, apscheduler,
forumbot, random, time, or call datetime.now(): time, randomness and transports are passed in."
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE_DIRS = ("parsers", "rules")
FORBIDDEN_MODULES = frozenset(
    {
        "httpx",
        "sqlite3",
        "sqlite_utils",
        "apscheduler",
        "forumbot",
        "random",
        "time",
        "socket",
        "urllib.request",
    }
)
FORBIDDEN_CALLS = frozenset({"now", "utcnow", "today"})


def _sources() -> list[Path]:
    return sorted(p for d in PURE_DIRS for p in (ROOT / d).rglob("*.py"))


def _forbidden(module: str) -> bool:
    return any(module == m or module.startswith(m + ".") for m in FORBIDDEN_MODULES)


def _violations(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"import {a.name}" for a in node.names if _forbidden(a.name)]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if _forbidden(node.module):
                found.append(f"from {node.module} import ...")
                continue
            found += [
                f"from {node.module} import {a.name}"
                for a in node.names
                if _forbidden(f"{node.module}.{a.name}")
            ]
        elif isinstance(node, ast.Call):
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


def test_the_checker_catches_violations(tmp_path: Path) -> None:
    bad = tmp_path / "probe.py"
    source = (
        "import time\nimport urllib.request\nfrom sqlite3 import connect\n"
        "from urllib import request\n"
        "from datetime import datetime, date\nx = datetime.now()\ny = date.today()\n"
    )
    bad.write_text(source, encoding="utf-8")
    found = _violations(bad, tmp_path)
    assert found == [
        "probe.py: import time",
        "probe.py: import urllib.request",
        "probe.py: from sqlite3 import ...",
        "probe.py: from urllib import request",
        "probe.py: datetime.now() at line 6",
        "probe.py: date.today() at line 7",
    ]
