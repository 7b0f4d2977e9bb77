"""The folder of club files ``forumbot serve --boards DIR`` runs (issue 27).

Every ``*.toml`` file directly in the folder (not hidden, not a folder) is one club: the same
schema as ``forumbot.toml``, read by the same loader (:func:`forumbot.config.load_config`) and
the same checks as ``run`` (:func:`forumbot.ops.validate.validate_config`). The club's name is
the file's stem (``dumbledore.toml`` -> ``dumbledore``); there is no name field in the schema.

A file that does not load is *refused*: its error, with the line (TOML syntax errors carry
tomllib's ``(at line L, column C)``; for a schema error the line of the setting or of its
table is looked up in the text, :func:`locate_problem`), goes to the log and to the health
answer, and the other clubs go on.

Two clubs may not share one database file (symlinks and hard links count as the same file)
nor one bot account on one board (``board.url`` + ``bot.username``): two processes' worth of
one bot would post twice. :func:`sharing_conflicts` refuses the later one, naming both files;
a club already running keeps its place against a newcomer.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from forumbot.config import Config, ConfigError, load_config
from forumbot.ops.validate import validate_config
from forumbot.storage.engine import is_postgres, pg_identity, redacted


@dataclass(frozen=True)
class ClubFile:
    """One club file as read now.

    Attributes:
        name: the club's name (the file's stem).
        path: the file.
        fingerprint: ``(mtime_ns, size, sha256 of the bytes)``: a changed file (or a
            ``touch``) restarts the club at the next reload; an unchanged one leaves it alone.
        config: the parsed, validated configuration; None when refused.
        error: why the file is refused (one line, the file's name first); None when valid.
    """

    name: str
    path: Path
    fingerprint: tuple[int, int, str]
    config: Config | None
    error: str | None = None


def club_paths(directory: str | Path) -> list[Path]:
    """The club files of ``directory``, sorted by name: ``*.toml``, regular files, not hidden
    (an editor's ``.x.toml.swp`` or a ``.hidden.toml`` is not a club).

    Raises:
        ConfigError: ``directory`` is not a readable folder.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise ConfigError(f"--boards {folder}: not a folder")
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        raise ConfigError(f"--boards {folder}: {exc.strerror or exc}") from None
    return [
        p for p in entries if p.suffix == ".toml" and not p.name.startswith(".") and p.is_file()
    ]


def fingerprint_of(path: Path) -> tuple[int, int, str]:
    """``(mtime_ns, size, sha256)`` of ``path``; ``(0, 0, "")`` when it cannot be read."""
    try:
        st = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return (0, 0, "")
    return (st.st_mtime_ns, st.st_size, digest)


def dir_signature(directory: str | Path) -> tuple[tuple[str, int, int], ...]:
    """``(name, mtime_ns, size)`` of every club file: what the folder watch compares between
    two looks (cheap: no file is read). Empty when the folder cannot be listed."""
    try:
        paths = club_paths(directory)
    except ConfigError:
        return ()
    out = []
    for p in paths:
        try:
            st = p.stat()
        except OSError:
            continue
        out.append((p.name, st.st_mtime_ns, st.st_size))
    return tuple(out)


_PATH = re.compile(
    r"^(?:unknown setting |unknown section \[|unknown |no declaration templates for )?"
    r"(?P<section>[a-z_]+)(?:\[(?P<index>\d+)\])?(?:\.(?P<key>[a-z_]+))?"
)
_HEADER = re.compile(r"^\s*\[(?P<double>\[)?\s*(?P<name>[A-Za-z0-9_.-]+)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*(?P<key>[A-Za-z0-9_-]+)\s*=")


def locate_problem(text: str, problem: str) -> int | None:
    """The line (1-based) of ``text`` a schema problem is about: the setting's line inside its
    table (``club.review_delay`` -> the ``review_delay = ...`` line under ``[club]``;
    ``watch[1].forum_id``: under the second ``[[watch]]``), else the table's header line;
    None when the problem names no table found in the text (e.g. a required table missing).
    """
    found = _PATH.match(problem)
    if found is None:
        return None
    section, key = found.group("section"), found.group("key")
    index = int(found.group("index")) if found.group("index") is not None else None
    current: str | None = None
    seen: dict[str, int] = {}
    header_line: int | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        head = _HEADER.match(line)
        if head is not None:
            current = head.group("name")
            count = seen.get(current, 0)
            seen[current] = count + 1
            here = current == section and (index is None or count == index)
            if here and header_line is None:
                header_line = number
            current = current if here else None
            continue
        if current == section and key is not None:
            item = _KEY.match(line)
            if item is not None and item.group("key") == key:
                return number
    return header_line


def _with_lines(path: Path, problems: Sequence[str]) -> list[str]:
    """``problems`` (each may start with ``<path>: ``) with ``line N`` added where
    :func:`locate_problem` finds one and the loader gave none."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return list(problems)
    out = []
    prefix = f"{path}: "
    for problem in problems:
        body = problem.removeprefix(prefix)
        line = None if "line " in body else locate_problem(text, body)
        out.append(f"{path}: line {line}: {body}" if line is not None else f"{path}: {body}")
    return out


def read_club(path: Path) -> ClubFile:
    """Read one club file: loaded (:func:`load_config`) and checked as ``run`` checks it
    (:func:`validate_config`). Never raises for a bad file: it comes back refused."""
    name = path.stem
    fingerprint = fingerprint_of(path)
    try:
        config = validate_config(load_config(path))
    except ConfigError as exc:
        problems = _with_lines(path, exc.problems)
        return ClubFile(name, path, fingerprint, None, "; ".join(problems))
    return ClubFile(name, path, fingerprint, config)


def read_boards(directory: str | Path) -> list[ClubFile]:
    """Every club file of ``directory`` (:func:`club_paths`), read (:func:`read_club`).

    Raises:
        ConfigError: ``directory`` is not a readable folder.
    """
    return [read_club(p) for p in club_paths(directory)]


def _database_key(config: Config) -> str:
    """The database's identity: its real path, and its inode when it exists (a hard link); a
    PostgreSQL club's server, database and schema
    (:func:`forumbot.storage.engine.pg_identity`: never a path made of its URL)."""
    if config.database == ":memory:":
        return ""  # never shared: each connection has its own
    if is_postgres(config.database):
        return pg_identity(config.database)
    real = os.path.realpath(config.database)
    try:
        st = os.stat(real)
    except OSError:
        return real
    return f"inode {st.st_dev}:{st.st_ino}"


def _account_key(config: Config) -> str:
    return f"{config.board_url.rstrip('/').lower()} as {config.username.casefold()}"


def sharing_conflicts(clubs: Iterable[ClubFile], first: Sequence[str] = ()) -> dict[str, str]:
    """The valid clubs refused because they share a database file or a board account with a
    club kept before them: ``{name: reason}``, the reason naming both files.

    ``first``: names kept in priority (the clubs already running); the others in name order.
    """
    valid = [c for c in clubs if c.config is not None]
    rank = {name: i for i, name in enumerate(first)}
    valid.sort(key=lambda c: (rank.get(c.name, len(rank)), c.name))
    databases: dict[str, ClubFile] = {}
    accounts: dict[str, ClubFile] = {}
    refused: dict[str, str] = {}
    for club in valid:
        assert club.config is not None
        db_key, account = _database_key(club.config), _account_key(club.config)
        if db_key and db_key in databases:
            other = databases[db_key]
            refused[club.name] = (
                f"{club.path}: refused: storage.database {redacted(club.config.database)} is the "
                f"database of club {other.name} ({other.path}); give each club its own file"
            )
            continue
        if account in accounts:
            other = accounts[account]
            refused[club.name] = (
                f"{club.path}: refused: bot {club.config.username!r} on {club.config.board_url} "
                f"is already run by club {other.name} ({other.path}); one club per board account"
            )
            continue
        if db_key:
            databases[db_key] = club
        accounts[account] = club
    return refused
