"""Limits of every TOML file the bot reads (issue 24 F13): configuration and rulesets. Pure:
the caller reads the bytes (at most :data:`MAX_TOML_BYTES` + 1 of them) and passes them here.
"""

from __future__ import annotations

import tomllib
from typing import Any

MAX_TOML_BYTES = 1024 * 1024
"""The largest configuration or ruleset file read, bytes (the shipped ones are under 20 KiB)."""

MAX_TOML_DEPTH = 32
"""The deepest nesting of tables and arrays accepted (the schemas need 3)."""


class TomlLimitError(ValueError):
    """A TOML file too big, not UTF-8, invalid or nested too deeply; the message is one line
    starting with the file's name (exit code 78 at the command line)."""


def toml_depth(value: Any) -> int:
    """How deeply ``value`` nests dicts and lists (a scalar is 0; ``{"a": [1]}`` is 2);
    iterative, so any depth is measured without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def parse_toml(text: str, what: str) -> dict[str, Any]:
    """The TOML ``text`` of ``what`` (a file's name, for the message) as a dict.

    Raises:
        TomlLimitError: invalid TOML, or nesting deeper than :data:`MAX_TOML_DEPTH` (also
            when the parser itself runs out of stack on a file nested thousands of levels).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlLimitError(f"{what}: invalid TOML: {exc}") from None
    except RecursionError:
        raise TomlLimitError(f"{what}: nested too deeply (limit {MAX_TOML_DEPTH} levels)") from None
    if toml_depth(data) > MAX_TOML_DEPTH:
        raise TomlLimitError(f"{what}: nested too deeply (limit {MAX_TOML_DEPTH} levels)")
    return data


def checked_toml_text(raw: bytes, what: str, max_bytes: int = MAX_TOML_BYTES) -> str:
    """The text of a TOML file's bytes ``raw`` once it is known to be at most ``max_bytes``,
    UTF-8, valid TOML and nested at most :data:`MAX_TOML_DEPTH` levels.

    Raises:
        TomlLimitError: one line starting with ``what``, naming the problem (too big, not
            UTF-8 with the byte offset, TOML, depth).
    """
    if len(raw) > max_bytes:
        raise TomlLimitError(f"{what}: larger than {max_bytes} bytes; is this the right file?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TomlLimitError(
            f"{what}: not UTF-8 (byte {exc.start}: {raw[exc.start : exc.start + 1]!r}); "
            "save it as UTF-8"
        ) from None
    parse_toml(text, what)
    return text
