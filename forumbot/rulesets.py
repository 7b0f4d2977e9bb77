"""Load rulesets (data files) for the shell; the pure engine only ever sees their text.

A ruleset name is either a shipped one (``classic``, read from ``rules/data/<name>.toml``)
or a path to a club's own TOML file. Both engines (classic, fatigue) are understood.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rules.fatigue import parse_any_ruleset
from rules.ruleset import Ruleset, ruleset_path


@lru_cache(maxsize=16)
def load_ruleset(name: str) -> Ruleset:
    """The parsed ruleset ``name`` (cached).

    Raises:
        FileNotFoundError: when neither a shipped ruleset nor a file has that name.
        rules.errors.RuleError: when the file is not a valid ruleset.
    """
    candidate = Path(name)
    path = candidate if candidate.suffix == ".toml" and candidate.exists() else ruleset_path(name)
    return parse_any_ruleset(path.read_text(encoding="utf-8"))
