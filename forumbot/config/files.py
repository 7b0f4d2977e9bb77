"""Bad files fail cleanly (issue 24 F13): the configuration is read through
:func:`read_toml_file`, which caps its size, refuses what is not UTF-8, and parses the TOML
with a bounded nesting depth (:mod:`rules.toml_limits`, shared with the rulesets), so a hostile
or broken file gives one line (exit code 78 at the command line) instead of a traceback.
"""

from __future__ import annotations

from pathlib import Path

from forumbot.config.errors import ConfigError
from rules.toml_limits import MAX_TOML_BYTES, TomlLimitError, checked_toml_text


def read_limited(path: str | Path, what: str, max_bytes: int = MAX_TOML_BYTES) -> str:
    """The text of the TOML file ``path`` (:func:`rules.toml_limits.checked_toml_text`).

    Raises:
        OSError: the file cannot be opened or read.
        TomlLimitError: too big, not UTF-8, invalid TOML or nested too deeply.
    """
    with Path(path).open("rb") as f:
        raw = f.read(max_bytes + 1)
    return checked_toml_text(raw, f"{what} {path}", max_bytes)


def read_toml_file(path: str | Path, what: str, max_bytes: int = MAX_TOML_BYTES) -> str:
    """:func:`read_limited` with every problem as a :class:`ConfigError` (one line).

    Raises:
        ConfigError: missing or unreadable, too big, not UTF-8, TOML, depth.
    """
    try:
        return read_limited(path, what, max_bytes)
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except TomlLimitError as exc:
        raise ConfigError(str(exc)) from None
