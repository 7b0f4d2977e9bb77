"""Load rulesets (data files) for the shell; the pure engine only ever sees their text.

A ruleset name is either a shipped one (``classic``, read from ``rules/data/<name>.toml``)
or a path to a club's own TOML file. Both engines (classic, fatigue) are understood.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from rules.fatigue import parse_any_ruleset
from rules.ruleset import Ruleset, ruleset_path
from rules.toml_limits import MAX_TOML_BYTES, checked_toml_text

if TYPE_CHECKING:  # the 2v2 engine is imported by the 2v2 inputs only (a 1v1 run needs none)
    from rules.duo import DuoSettings, Environment


def duel_rng(seed: int, index: int) -> random.Random:
    """The draws of duel ``index`` (0-based, table order) of a balance table seeded ``seed``:
    ``forumbot simulate``'s (:mod:`forumbot.cli.simulate_jobs`) and the review page's
    (:mod:`forumbot.web.balance`), the same in every process (a string seed is hashed with
    SHA-512, not with ``hash``)."""
    return random.Random(f"forumbot-simulate:{seed}:{index}")


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


DUO_NAME = "duo"
"""The 2v2 settings' name as ``forumbot simulate --ruleset`` takes it (``rules/data/duo.toml``)."""


def is_duo_settings(text: str) -> bool:
    """True when ``text`` is a 2v2 settings file (``duo.toml``: a ``placement`` key and no
    ruleset ``engine``), not a ruleset."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return "placement" in data and "engine" not in data


def load_duo_inputs(
    settings_file: str | Path | None = None, environments: tuple[str, ...] = ()
) -> tuple[DuoSettings, list[Environment]]:
    """The 2v2 settings (``settings_file``, default the shipped ``rules/data/duo.toml``) and
    environments (keys of ``rules/data/environments/`` or TOML paths; default every shipped
    one, as a registration with ``environment = ""`` rotates through them), read with the
    configuration's limits.

    Raises:
        OSError: a file cannot be read (an unknown environment key: FileNotFoundError).
        rules.errors.RuleError: a file is not valid 2v2 settings or environment.
        rules.toml_limits.TomlLimitError: as :func:`read_ruleset_file`."""
    from rules.duo import load_duo_settings, load_environment

    data = ruleset_path(DUO_NAME).parent
    settings = load_duo_settings(read_ruleset_file(settings_file or data / "duo.toml"))
    paths = []
    for key in environments or tuple(
        sorted(p.stem for p in (data / "environments").glob("*.toml"))
    ):
        given = Path(key)
        paths.append(given if given.suffix == ".toml" else data / "environments" / f"{key}.toml")
    if not paths:
        raise FileNotFoundError(data / "environments")
    return settings, [load_environment(read_ruleset_file(p)) for p in paths]
