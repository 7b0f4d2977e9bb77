"""Write constraints.txt: every runtime dependency of forumbot (the whole closure), pinned
to the version installed here, i.e. the versions the test suite ran with.

Run from the repository root after the tests pass: ``python3 deploy/pin_constraints.py``.
deploy/ installs with ``pip install -c constraints.txt .`` (deploy/README.md, Dockerfile).
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


def main() -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    roots = [n for n in map(_name, project["dependencies"]) if n]
    pins = closure(roots)
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
