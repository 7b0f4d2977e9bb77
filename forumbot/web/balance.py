"""Balance heatmaps for the review page (issue 17: "admins get the same table as a heatmap on
the review page, one page per ruleset, as an SVG like the duel page's chart").

:func:`shipped_rulesets` lists the rulesets in ``rules/data/*.toml`` (a file without a
top-level ``name``, such as ``duo.toml``'s 2v2 settings, is no ruleset). :class:`BalanceCache`
runs the pure simulator (:mod:`rules.balance`) once per ruleset and process (shared by the
clubs of a host) and keeps the tables in memory: year against year, and for fatigue magic
type against magic type. They are
``forumbot simulate``'s own tables (newcomer 6 C3: the page played 20 duels a pair from one
generator, so its figures were nobody else's): :data:`DUELS` duels and seed :data:`SEED`, the
command's defaults, each duel drawn from its own generator as the command's
(:func:`forumbot.rulesets.duel_rng`), so ``forumbot simulate --ruleset fatigue``
prints the page's figures (:func:`command` gives the line). About 1.5 s of CPU for classic,
6.6 s for fatigue (both tables), at the first request (it was 1 s for fatigue's 20 duels a
pair). No board and no database are involved.
"""

from __future__ import annotations

import random
import threading
import tomllib
from dataclasses import dataclass, field

from forumbot.rulesets import duel_rng
from rules.balance import Table, simulate, simulate_magic_types
from rules.fatigue.settings import FatigueRuleset, parse_any_ruleset
from rules.ruleset import DATA_DIR

SEED = 1
"""The simulator's seed, ``forumbot simulate``'s default: the same tables on every start."""

DUELS = 10_000
"""Duels of a table, ``forumbot simulate``'s default ``--duels`` (rounded down to whole duels
a cell as the command does: 9,984 for the 64 cells of fatigue's years)."""


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


def command(name: str, table: Table, duels: int = DUELS, seed: int = SEED) -> str:
    """The ``forumbot simulate`` line that prints ``table`` of shipped ruleset ``name``
    (``forumbot simulate --ruleset fatigue --magic-types --duels 10000 --seed 1``)."""
    kind = " --magic-types" if table.kind == "magic_types" else ""
    return f"forumbot simulate --ruleset {name}{kind} --duels {duels} --seed {seed}"


_SHARED_TABLES: dict[tuple[str, int, int], BalanceTables] = {}
_SHARED_LOCK = threading.Lock()


@dataclass
class BalanceCache:
    """The tables of each shipped ruleset, computed at the first request and kept.

    ``duels``: each table's ``--duels`` (tests pass small numbers); ``seed``: its ``--seed``.
    The tables are kept per process, not per cache: every club of a multi-club host reads the
    same shipped files (package data), so the first club's request computes them for all
    (keyed by ruleset, ``duels`` and ``seed``).
    """

    duels: int = DUELS
    seed: int = SEED
    _tables: dict[tuple[str, int, int], BalanceTables] = field(
        default_factory=lambda: _SHARED_TABLES
    )
    _lock: threading.Lock = field(default_factory=lambda: _SHARED_LOCK)

    def tables(self, name: str) -> BalanceTables:
        """The tables of the shipped ruleset ``name`` (computed once; thread-safe).

        Raises:
            KeyError: ``name`` is not a shipped ruleset.
        """
        if name not in shipped_rulesets():
            raise KeyError(name)
        key = (name, self.duels, self.seed)
        with self._lock:
            if key not in self._tables:
                self._tables[key] = self._compute(name)
            return self._tables[key]

    def _compute(self, name: str) -> BalanceTables:
        rs = parse_any_ruleset((DATA_DIR / f"{name}.toml").read_text(encoding="utf-8"))
        fatigue = isinstance(rs, FatigueRuleset)
        engine = "fatigue" if fatigue else "classic"

        def rng_of(i: int) -> random.Random:
            return duel_rng(self.seed, i)

        years = simulate(rs, duels=self.duels, rng_of=rng_of)
        types = None
        labels = {}
        if isinstance(rs, FatigueRuleset):
            types = simulate_magic_types(rs, duels=self.duels, rng_of=rng_of)
            labels = {k: t.label for k, t in rs.magic_types.items()}
        return BalanceTables(name, engine, years, types, labels)


__all__ = ["DUELS", "SEED", "BalanceCache", "BalanceTables", "command", "shipped_rulesets"]
