"""Balance heatmaps for the review page (issue 17: "admins get the same table as a heatmap on
the review page, one page per ruleset, as an SVG like the duel page's chart").

:func:`shipped_rulesets` lists the rulesets in ``rules/data/*.toml`` (a file without a
top-level ``name``, such as ``duo.toml``'s 2v2 settings, is no ruleset). :class:`BalanceCache`
runs the pure simulator (:mod:`rules.balance`) once per ruleset and process, with a fixed seed
(:data:`SEED`) and a modest number of duels per pair (:data:`DUELS_PER_PAIR`: the fatigue
engine is slower, so fewer), and keeps the tables in memory: year against year, and for
fatigue magic type against magic type. No board and no database are involved.
"""

from __future__ import annotations

import random
import threading
import tomllib
from dataclasses import dataclass, field

from rules.balance import Table, simulate, simulate_magic_types
from rules.fatigue.settings import FatigueRuleset, parse_any_ruleset
from rules.ruleset import DATA_DIR

SEED = 17
"""The simulator's seed: the same tables on every start."""

DUELS_PER_PAIR = {"classic": 200, "fatigue": 20}
"""Duels per (row, column) pair, by engine (about 2 s of CPU for classic, 15 s for fatigue)."""


def shipped_rulesets() -> list[str]:
    """Names (file stems) of the shipped rulesets, sorted."""
    names = []
    for path in sorted(DATA_DIR.glob("*.toml")):
        with path.open("rb") as fh:
            if "name" in tomllib.load(fh):
                names.append(path.stem)
    return names


@dataclass(frozen=True)
class BalanceTables:
    """A ruleset's tables: ``years`` (year against year) and, for fatigue, ``magic_types``
    with ``labels`` (each magic type's own label)."""

    name: str
    engine: str
    years: Table
    magic_types: Table | None
    labels: dict[str, str] = field(default_factory=dict)
    """Magic type key -> the ruleset's label (« Discrète »)."""


@dataclass
class BalanceCache:
    """The tables of each shipped ruleset, computed at the first request and kept.

    ``duels_per_pair``: duels per pair by engine (tests pass small numbers).
    """

    duels_per_pair: dict[str, int] = field(default_factory=lambda: dict(DUELS_PER_PAIR))
    seed: int = SEED
    _tables: dict[str, BalanceTables] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tables(self, name: str) -> BalanceTables:
        """The tables of the shipped ruleset ``name`` (computed once; thread-safe).

        Raises:
            KeyError: ``name`` is not a shipped ruleset.
        """
        if name not in shipped_rulesets():
            raise KeyError(name)
        with self._lock:
            if name not in self._tables:
                self._tables[name] = self._compute(name)
            return self._tables[name]

    def _compute(self, name: str) -> BalanceTables:
        rs = parse_any_ruleset((DATA_DIR / f"{name}.toml").read_text(encoding="utf-8"))
        fatigue = isinstance(rs, FatigueRuleset)
        engine = "fatigue" if fatigue else "classic"
        per = self.duels_per_pair[engine]
        years = simulate(rs, duels=per * len(rs.starting_points) ** 2, rng=random.Random(self.seed))
        types = None
        if isinstance(rs, FatigueRuleset):
            types = simulate_magic_types(
                rs, duels=per * len(rs.magic_types) ** 2, rng=random.Random(self.seed)
            )
        labels = {}
        if isinstance(rs, FatigueRuleset):
            labels = {k: t.label for k, t in rs.magic_types.items()}
        return BalanceTables(name, engine, years, types, labels)


__all__ = ["DUELS_PER_PAIR", "SEED", "BalanceCache", "BalanceTables", "shipped_rulesets"]
