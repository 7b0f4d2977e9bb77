"""The hand-computed (golden) duel tests run again with an engine entry wrapped (issue 26:
"generate the equality tests from the golden duels"), shared by the fast paths' and the
trusted 2v2 step's equality tests (``tests/unit/test_rules_fast_golden.py``,
``test_rules_fast_classic.py``, ``test_duo_trusted.py``).

A golden test of a module is one of its ``test_*`` functions taking no argument (the
parametrized ones run in their own module) and not a hypothesis one. The wrapper resolves
each step as the module's entry does and compares a fast path's outcome on what it takes;
the golden tests still check their own hand-computed numbers.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest


def golden_tests(name: str) -> list[tuple[str, Callable[[], object]]]:
    """The golden tests of module ``name``: (``module.function`` name, the function)."""
    module = importlib.import_module(name)
    return [
        (f"{name}.{fn_name}", fn)
        for fn_name, fn in vars(module).items()
        if fn_name.startswith("test_")
        and inspect.isfunction(fn)
        and not inspect.signature(fn).parameters  # parametrized ones run in their module
        and not hasattr(fn, "hypothesis")
    ]


def run_golden(
    monkeypatch: pytest.MonkeyPatch, name: str, entry: str, wrapped: Callable[..., Any],
    *, optional: bool = False,
) -> None:  # fmt: skip
    """Run every golden test of module ``name`` with its engine ``entry`` (the name it
    imported, e.g. ``"resolve_turn"``) replaced by ``wrapped``. AttributeError when the
    module has no ``entry``, unless ``optional`` (then its tests run unwrapped);
    AssertionError when it has no golden test."""
    module = importlib.import_module(name)
    if not optional or hasattr(module, entry):
        monkeypatch.setattr(module, entry, wrapped)  # raises AttributeError when absent
    tests = golden_tests(name)
    assert tests, name
    for _, fn in tests:
        fn()
