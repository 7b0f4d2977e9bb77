"""``forumbot doctor --all --boards DIR``: the doctor of every club of a ``serve`` folder
(issue 27), one report per club, plus the checks only a folder has (two clubs on one database
file or one board account: :func:`forumbot.ops.boards_dir.sharing_conflicts`).

With ``--lease-url`` (the one of ``serve``, also ``$FORUMBOT_LEASE_URL``) each club's report
ends with a ``lease`` check, read once for the folder from the lease table
(:func:`forumbot.storage.leases.read_leases`, read only): the worker holding the club, its
epoch and the seconds before it expires; a lease nobody holds (« libre »), one expired, a club
no worker has seen yet, or one that cannot run under leases (:func:`forumbot.ops.leases.
lease_refusal`) is a ``warn`` (``fail`` for the refusal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from forumbot.i18n import N_
from forumbot.ops.boards_dir import ClubFile, read_boards, sharing_conflicts
from forumbot.ops.doctor import REFUSED_CONFIG, Check, Text, _check, doctor
from forumbot.ops.leases import lease_key, lease_refusal
from forumbot.storage.engine import redacted
from forumbot.storage.leases import LeaseRow, read_leases


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
    lease_url: str | None = None,
    **doctor_options: Any,
) -> list[ClubReport]:
    """Run the doctor on every club file of ``boards_dir`` (in name order); ``lease_url``:
    the serve workers' lease database, for each club's ``lease`` check (module doc).

    ``doctor_options`` go to :func:`forumbot.ops.doctor.doctor` (``transport``, ``now``,
    ``timeout_s``...). Never raises for a club's problem (each is a failed check).

    Raises:
        ConfigError: ``boards_dir`` is not a readable folder.
    """
    files = read_boards(boards_dir)
    conflicts = sharing_conflicts(files)
    leases = _lease_checks(files, lease_url) if lease_url else {}
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
        if club.name in leases:
            checks.append(leases[club.name])
        reports.append(ClubReport(club.name, club.path, checks))
    return reports


def _lease_checks(files: list[ClubFile], lease_url: str) -> dict[str, Check]:
    """Each valid club's ``lease`` check (module doc), by club name; one read of the table."""
    keys: dict[str, str] = {}
    checks: dict[str, Check] = {}
    for club in files:
        if club.config is None:
            continue
        why = lease_refusal(club.config, lease_url)
        if why is not None:
            checks[club.name] = _check("lease", "fail", "%s", Text(why),
                                       alone=N_("this club cannot run under leases"))  # fmt: skip
        else:
            keys[club.name] = lease_key(club.config)
    if not keys:
        return checks
    try:
        rows = read_leases(lease_url, keys.values())
    except Exception as exc:  # ConfigError (unreachable), psycopg.Error: a diagnosis goes on
        unread = _check("lease", "warn", N_("the lease table cannot be read: %s"), exc,
                        alone=N_("the lease table cannot be read"))  # fmt: skip
        return {**checks, **dict.fromkeys(keys, unread)}
    for name, key in keys.items():
        checks[name] = lease_check(rows, key, redacted(lease_url))
    return checks


def lease_check(rows: dict[str, LeaseRow] | None, key: str, where: str) -> Check:
    """The ``lease`` check of the club whose lease key is ``key``, from the rows read
    (:func:`forumbot.storage.leases.read_leases`; None: no lease table at ``where``)."""
    if rows is None:
        return _check("lease", "warn", N_("no lease table in %s yet: no serve worker has run"),
                      where)  # fmt: skip
    row = rows.get(key)
    if row is None:
        return _check("lease", "warn", N_("no lease yet for %s: no serve worker has seen it"), key)
    if row.holder is None:
        return _check("lease", "warn", N_("free (epoch %s): no worker runs it"), row.epoch)
    remaining = row.remaining_s if row.remaining_s is not None else 0.0
    if not row.live:
        return _check(
            "lease", "warn",
            N_("expired %s s ago (worker %s, epoch %s): the next worker's lease round takes it"),
            f"{-remaining:.0f}", row.holder, row.epoch,
        )  # fmt: skip
    return _check("lease", "ok", N_("held by worker %s, epoch %s, expires in %s s"),
                  row.holder, row.epoch, f"{remaining:.0f}")  # fmt: skip
