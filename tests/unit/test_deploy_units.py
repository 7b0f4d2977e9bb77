"""deploy/'s systemd units, read as systemd reads them (issue 27): the backup unit works for
SQLite and for PostgreSQL (pg_dump reaching the server through the local Unix socket as it is,
over TCP with the drop-in), and the bot's units keep the network they need. A small parser of
the unit format: ``Key=value`` lines per section, comments dropped, a key given several times
kept in order; list settings (``RestrictAddressFamilies=``) merged as systemd merges them."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def unit(*names: str) -> dict[str, dict[str, list[str]]]:
    """The unit file ``names[0]`` with the drop-ins ``names[1:]`` applied, in order:
    ``{section: {key: [values...]}}``."""
    found: dict[str, dict[str, list[str]]] = {}
    for name in names:
        section = ""
        for raw in (DEPLOY / name).read_text(encoding="utf-8").splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", ";")):
                continue
            header = re.fullmatch(r"\[(\w+)\]", line)
            if header:
                section = header.group(1)
                continue
            key, _, value = line.partition("=")
            found.setdefault(section, {}).setdefault(key, []).append(value)
    return found


def last(found: dict[str, dict[str, list[str]]], key: str) -> str | None:
    """A single-valued ``[Service]`` setting: the last assignment wins (systemd)."""
    values = found.get("Service", {}).get(key)
    return values[-1] if values else None


def families(found: dict[str, dict[str, list[str]]]) -> set[str]:
    """``RestrictAddressFamilies=``: the lists are merged, an empty assignment resets."""
    allowed: set[str] = set()
    for value in found.get("Service", {}).get("RestrictAddressFamilies", []):
        allowed = set() if not value else allowed | set(value.split())
    return allowed


def test_the_backup_unit_needs_no_network_for_sqlite_and_a_local_postgresql() -> None:
    found = unit("forumbot-backup.service")
    assert last(found, "PrivateNetwork") == "yes"
    assert families(found) == {"AF_UNIX"}  # the server's socket in /run/postgresql is a file
    start = shlex.split(last(found, "ExecStart") or "")
    assert start[1:3] == ["backup", "-c"] and "--dest" in start
    dest = start[start.index("--dest") + 1]
    writable = (last(found, "ReadWritePaths") or "").split()
    assert any(dest == w or dest.startswith(w.rstrip("/") + "/") for w in writable)
    # libpq's settings (PGPASSFILE...) as the bot's unit reads them; optional for SQLite
    assert last(found, "EnvironmentFile") == "-/etc/forumbot/env"


def test_the_tcp_drop_in_gives_pg_dump_the_network_and_nothing_else() -> None:
    bare = unit("forumbot-backup.service")
    found = unit("forumbot-backup.service", "forumbot-backup.service.d/postgresql-tcp.conf")
    assert last(found, "PrivateNetwork") == "no"
    assert families(found) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    changed = {k for k, v in found["Service"].items() if bare["Service"].get(k) != v}
    assert changed == {"PrivateNetwork", "RestrictAddressFamilies"}


def test_the_bot_units_reach_boards_and_a_postgresql_server() -> None:
    for name in ("forumbot.service", "forumbot-serve.service"):
        found = unit(name)
        assert last(found, "PrivateNetwork") in (None, "no"), name
        assert {"AF_INET", "AF_INET6", "AF_UNIX"} <= families(found), name
