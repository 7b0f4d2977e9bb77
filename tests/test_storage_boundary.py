"""Issue 27's contract: all SQL lives in ``forumbot/storage/``.

The rooms ask :class:`forumbot.storage.Storage` and its repositories (``storage.notices``,
``storage.duel_rows``, ``storage.readouts``, ``forumbot.storage.files``, ...) for what they
need; no module outside ``forumbot/storage/`` (the sandbox, a test double, aside) runs SQL or
touches the database object. The scan reads each module's code tokens (comments and strings
dropped) for:

- ``execute(`` / ``executemany(``: a statement run by hand;
- ``db[`` and ``.db.`` / ``.db``: a sqlite-utils table (``db["x"]``, ``storage.db.table(...)``),
  the connection (``storage.db.conn``), its transactions (``storage.db.atomic()``);
- ``sqlite3`` and ``sqlite_utils``: the engine itself (its errors are
  :data:`forumbot.storage.StorageOperationalError` and :mod:`forumbot.storage.files`).

Issue 27 moved the rooms one by one; since the last ones (the club's desks, posts and
rewards: ``storage.signup_rows``, ``club_posts``, ``reward_rows``) moved, no module outside
:data:`EXEMPT` has a pass: any SQL found fails the test.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "forumbot"
EXEMPT = ("storage", "sandbox")
"""Top folders of ``forumbot/`` the contract does not cover: storage itself, and the sandbox
(a stand-in forum with its own database, no part of the bot)."""

PATTERN = re.compile(r"\bexecute(?:many)?\s*\(|\bdb\s*\[|\.\s*db\b|\bsqlite3\b|\bsqlite_utils\b")


def code_hits(path: Path) -> list[tuple[int, str]]:
    """``(line, text)`` of each SQL or database access in the code of ``path`` (comments,
    strings and docstrings left out)."""
    source = path.read_text(encoding="utf-8")
    lines: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type >= tokenize.N_TOKENS:
            continue
        if getattr(tokenize, "FSTRING_MIDDLE", None) == tok.type:
            continue
        lines.setdefault(tok.start[0], []).append(tok.string)
    hits = []
    for number, parts in sorted(lines.items()):
        code = " ".join(parts)
        if PATTERN.search(code):
            hits.append((number, code))
    return hits


def modules_with_sql() -> dict[str, list[tuple[int, str]]]:
    """``{path under forumbot/: hits}`` of every module outside :data:`EXEMPT` with SQL."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in EXEMPT:
            continue
        hits = code_hits(path)
        if hits:
            found[rel.as_posix()] = hits
    return found


def test_no_sql_outside_storage() -> None:
    found = {name: hits[:3] for name, hits in modules_with_sql().items()}
    assert not found, f"SQL or database access outside forumbot/storage/: {found}"


def test_the_scan_sees_sql_and_not_prose(tmp_path: Path) -> None:
    """The scanner itself: it finds each kind of access, and not words in comments or text."""
    source = (
        'x = storage.db["duels"].rows_where("id = ?", [1])\n'
        "storage.db.execute('select 1')\n"
        "import sqlite3\n"
        "# storage.db.execute in a comment\n"
        "s = 'sqlite3 and db[ in a string'\n"
        "with storage.atomic():\n"
        "    pass\n"
    )
    sample = tmp_path / "sample.py"
    sample.write_text(source, encoding="utf-8")
    assert [n for n, _ in code_hits(sample)] == [1, 2, 3]
