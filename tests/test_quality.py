"""Static checks run with the tests: ruff on the whole tree, mypy --strict on the pure packages,
unique test file names."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_ruff_clean() -> None:
    result = subprocess.run(["ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_on_parsers_and_rules() -> None:
    pytest.importorskip("mypy")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "parsers", "rules"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_test_files_have_unique_names() -> None:
    """The test folders have no ``__init__.py`` (pytest's default ``prepend`` import mode):
    two test files with one base name break the collection of the whole suite."""
    seen: dict[str, Path] = {}
    clashes = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        if path.name in seen:
            clashes.append(f"{seen[path.name].relative_to(ROOT)} / {path.relative_to(ROOT)}")
        seen.setdefault(path.name, path)
    assert not clashes, clashes
