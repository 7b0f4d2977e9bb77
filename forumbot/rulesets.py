"""Load rulesets (data files) for the shell; the pure engine only ever sees their text.

A ruleset name is either a shipped one (``classic``, read from ``rules/data/<name>.toml``)
or a path to a club's own TOML file. Both engines (classic, fatigue) are understood.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rules.fatigue import parse_any_ruleset
from rules.ruleset import Ruleset, ruleset_path
from rules.toml_limits import MAX_TOML_BYTES, checked_toml_text


@lru_cache(maxsize=16)
def load_ruleset(name: str) -> Ruleset:
    """The parsed ruleset ``name`` (cached).

    Raises:
        FileNotFoundError: when neither a shipped ruleset nor a file has that name.
        rules.errors.RuleError: when the file is not a valid ruleset.
        rules.toml_limits.TomlLimitError: too big, not UTF-8 or nested too deeply
            (:func:`read_ruleset_file`).
    """
    candidate = Path(name)
    path = candidate if candidate.suffix == ".toml" and candidate.exists() else ruleset_path(name)
    if not path.exists():
        raise FileNotFoundError(path)
    return parse_any_ruleset(read_ruleset_file(path))


def read_ruleset_file(path: str | Path) -> str:
    """The text of a ruleset file, read with the configuration's limits (issue 24 F13/F14).

    Raises:
        OSError: the file cannot be read.
        rules.toml_limits.TomlLimitError: too big, not UTF-8, invalid TOML or nested too
            deeply (one line naming the file; exit code 78 at the command line).
    """
    with Path(path).open("rb") as f:
        raw = f.read(MAX_TOML_BYTES + 1)
    return checked_toml_text(raw, f"ruleset {path}")
