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
    d = new.__dict__
    d.update(obj.__dict__)
    d.update(changes)
    return new


__all__ = ["evolve"]
