"""Small speed helpers for the engines' inner loops (issue 17, "dataclasses.replace is heavy").

:func:`evolve` is :func:`dataclasses.replace` without the ``__init__`` round trip: it copies the
instance's fields and sets the changed ones. It runs no ``__post_init__`` check, so it is only
for changes the engine knows to be valid (an effect's duration that stays >= 1, points, tuples
of effects); field names are not checked either (mypy cannot see them): callers use real field
names only.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")


def evolve(obj: T, **changes: Any) -> T:
    """A copy of the frozen dataclass instance ``obj`` with ``changes`` applied."""
    new = object.__new__(type(obj))
    # a new dict, not the fresh instance's own __dict__: that one (or a .copy() of an
    # __init__-built instance's) is a split-table dict, and CPython 3.11 specializes no
    # attribute read of an object with one (rules/fatigue/fast_close.py, issue 26)
    d = dict(obj.__dict__)
    d.update(changes)
    object.__setattr__(new, "__dict__", d)
    return new


__all__ = ["evolve"]
