"""``forumbot doctor --all --boards DIR``: the doctor of every club of a ``serve`` folder
(issue 27), one report per club, plus the checks only a folder has (two clubs on one database
file or one board account: :func:`forumbot.ops.boards_dir.sharing_conflicts`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forumbot.i18n import N_
from forumbot.ops.boards_dir import read_boards, sharing_conflicts
from forumbot.ops.doctor import REFUSED_CONFIG, Check, Text, _check, doctor


@dataclass(frozen=True)
class ClubReport:
    """One club's doctor report.

    Attributes:
        name: the club (the file's stem); path: its file.
        checks: :func:`forumbot.ops.doctor.doctor`'s findings, after a ``sharing`` check when
            the club shares a database or an account; a file that does not load gives one
            failed ``config`` check (its line in the detail).
    """

    name: str
    path: Path
    checks: list[Check]

    @property
    def failed(self) -> bool:
        """True when one of its checks failed."""
        return any(c.failed for c in self.checks)


def doctor_all(
    boards_dir: str | Path,
    *,
    offline: bool = False,
    environ: Mapping[str, str] | None = None,
    **doctor_options: Any,
) -> list[ClubReport]:
    """Run the doctor on every club file of ``boards_dir`` (in name order).

    ``doctor_options`` go to :func:`forumbot.ops.doctor.doctor` (``transport``, ``now``,
    ``timeout_s``...). Never raises for a club's problem (each is a failed check).

    Raises:
        ConfigError: ``boards_dir`` is not a readable folder.
    """
    files = read_boards(boards_dir)
    conflicts = sharing_conflicts(files)
    reports = []
    for club in files:
        if club.config is None:
            checks = [
                _check("config", "fail", "%s", Text(club.error or "invalid"), alone=REFUSED_CONFIG)
            ]
        else:
            checks = doctor(club.config, offline=offline, environ=environ, **doctor_options)
            if club.name in conflicts:
                checks.insert(0, _check(
                    "sharing", "fail", "%s", Text(conflicts[club.name]),
                    alone=N_("refused: this club shares its database or its bot account with "
                             "another club; give each club its own"),
                ))  # fmt: skip
        reports.append(ClubReport(club.name, club.path, checks))
    return reports
