"""Bad files fail cleanly (issue 24 F13): every configuration and ruleset file is read through
:func:`read_toml_file`, which caps its size, refuses what is not UTF-8, and parses the TOML
with a bounded nesting depth, so a hostile or broken file gives one line (exit code 78 at the
command line) instead of a traceback or an endless parse.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from forumbot.config.errors import ConfigError

MAX_TOML_BYTES = 1024 * 1024
"""The largest configuration or ruleset file read, bytes (the shipped ones are under 20 KiB)."""

MAX_TOML_DEPTH = 32
"""The deepest nesting of tables and arrays accepted (the schema needs 3)."""


def toml_depth(value: Any) -> int:
    """How deeply ``value`` nests dicts and lists (a scalar is 0; ``{"a": [1]}`` is 2);
    iterative, so any depth is measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
            deepest = max(deepest, depth + 1)
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
            deepest = max(deepest, depth + 1)
    return deepest


def parse_toml(text: str, what: str) -> dict[str, Any]:
    """The TOML ``text`` of ``what`` (a file's name, for the message) as a dict.

    Raises:
        ConfigError: invalid TOML, or nesting deeper than :data:`MAX_TOML_DEPTH` (also when
            the parser itself runs out of stack on a file nested thousands of levels).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{what}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{what}: nested too deeply (limit {MAX_TOML_DEPTH} levels)") from None
    if toml_depth(data) > MAX_TOML_DEPTH:
        raise ConfigError(f"{what}: nested too deeply (limit {MAX_TOML_DEPTH} levels)")
    return data


def read_toml_file(path: str | Path, what: str, max_bytes: int = MAX_TOML_BYTES) -> str:
    """The text of the TOML file ``path`` once it is known to be readable: at most
    ``max_bytes``, UTF-8, valid TOML nested at most :data:`MAX_TOML_DEPTH` levels.

    Raises:
        ConfigError: one line starting with ``what`` and the path, naming the problem
            (missing or unreadable, too big, not UTF-8 with the byte offset, TOML, depth).
    """
    p = Path(path)
    name = f"{what} {p}"
    try:
        with p.open("rb") as f:
            raw = f.read(max_bytes + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read {name}: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise ConfigError(f"{name}: larger than {max_bytes} bytes; is this the right file?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{name}: not UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r}); "
            "save it as UTF-8"
        ) from None
    parse_toml(text, name)
    return text
