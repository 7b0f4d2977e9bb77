"""Write constraints.txt: every runtime dependency of forumbot (the whole closure), pinned
to the version installed here, i.e. the versions the test suite ran with.

Run from the repository root after the tests pass: ``python3 deploy/pin_constraints.py``.
deploy/ installs with ``pip install -c constraints.txt .`` (deploy/README.md, Dockerfile).

The documented server is Debian 12, whose Python is 3.11.2 (:data:`OLDEST_PYTHON`): a pin
whose ``Requires-Python`` excludes it would make that install fail (soupsieve 3.0.2 and later
need 3.11.5: Python before 3.11.5 has broken possessive quantifiers in ``re``). Such a pin is
refused (exit 1, naming it): install an older version of it in the test environment, run the
tests, then pin again.
"""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Installers are left to the machine (sqlite-utils requires pip: pinning it would make every
# install replace the pip doing the install).
UNPINNED = {"pip", "setuptools", "wheel"}
OLDEST_PYTHON = (3, 11, 2)
"""The oldest Python the pins must install on: Debian 12's (deploy/README.md)."""


def _name(requirement: str) -> str | None:
    """The distribution name of a requirement, None when its marker is an extra."""
    if "extra ==" in requirement.replace('"', " ").replace("'", " "):
        return None
    if ";" in requirement:
        marker = requirement.split(";", 1)[1].strip()
        if "python_version" in marker and "<" in marker and "3.11" in marker:
            return None  # backports for older Pythons
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement.strip())
    return found.group(0) if found else None


def closure(roots: list[str]) -> dict[str, str]:
    """Installed name -> version for ``roots`` and everything they require."""
    pinned: dict[str, str] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        key = dist.metadata["Name"]
        if key.lower() in UNPINNED or key.lower() in (k.lower() for k in pinned):
            continue
        pinned[key] = dist.version
        todo.extend(n for n in map(_name, dist.requires or []) if n)
    return pinned


def excludes_oldest(requires_python: str | None) -> bool:
    """Whether a ``Requires-Python`` specifier (``">=3.11.5"``, ``">=3.8, <4"``) excludes
    :data:`OLDEST_PYTHON` (only ``>=``, ``>``, ``==`` and ``<`` clauses are read; others
    are taken as allowing it)."""
    for clause in (requires_python or "").split(","):
        found = re.fullmatch(r"\s*(>=|>|==|<)\s*(\d+(?:\.\d+)*)(?:\.\*)?\s*", clause)
        if not found:
            continue
        op, version = found.group(1), tuple(int(p) for p in found.group(2).split("."))
        have = OLDEST_PYTHON[: len(version)] if op == "==" else OLDEST_PYTHON
        if (op == ">=" and have < version) or (op == ">" and have <= version):
            return True
        if (op == "==" and have != version) or (op == "<" and have >= version):
            return True
    return False


def main() -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    roots = [n for n in map(_name, project["dependencies"]) if n]
    pins = closure(roots)
    oldest = ".".join(map(str, OLDEST_PYTHON))
    too_new = [
        f"{name} {version} (Requires-Python {metadata.metadata(name)['Requires-Python']})"
        for name, version in sorted(pins.items())
        if excludes_oldest(metadata.metadata(name)["Requires-Python"])
    ]
    if too_new:
        print(f"not installable on Python {oldest} (Debian 12): " + "; ".join(too_new))
        return 1
    lines = [
        "# Versions forumbot was tested with (runtime dependencies and theirs).",
        "# Made by deploy/pin_constraints.py; install with: pip install -c constraints.txt .",
        *(
            f"{name}=={version}"
            for name, version in sorted(pins.items(), key=lambda p: p[0].lower())
        ),
    ]
    (ROOT / "constraints.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"constraints.txt: {len(pins)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
