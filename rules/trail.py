"""Building the rule trail of a turn: one :class:`rules.model.TrailEntry` per number decided.

:class:`TrailBuilder` is a small accumulator used inside one pure resolution call; the
sources it quotes come from a table rule id -> sentence (e.g. ``rules.classic_sources``).
"""

from __future__ import annotations

from collections.abc import Mapping

from rules.errors import RuleError
from rules.model import TrailEntry, TrailValue

OVERRIDE_RULE = "referee.override"
OVERRIDE_SOURCE = (
    'RULES.md, Referee and admin: "The referee can edit the text, change any computed number, '
    'add or waive a violation, hold, or publish now."'
)


class TrailBuilder:
    """Collects trail entries in computation order.

    Args:
        sources: rule id -> quoted sentence (seed or RULES.md line).
        enabled: False when nobody reads the trail (the balance simulator, benchmarks):
            :meth:`add` records nothing and :meth:`entries` is empty. Engines test :attr:`on`
            before building an entry's text, so a turn without a trail skips that work.
    """

    def __init__(self, sources: Mapping[str, str], enabled: bool = True) -> None:
        self._sources = sources
        self._entries: list[TrailEntry] = []
        self.on = enabled

    def add(
        self,
        quantity: str,
        value: TrailValue,
        rule: str,
        detail: str = "",
        *,
        source: str | None = None,
    ) -> None:
        """Record ``quantity = value`` decided by ``rule``; ``source`` overrides the table's.

        Raises:
            RuleError: the rule id has no source (a programming error, rule ``rule``).
        """
        if not self.on:
            return
        if source is None:
            if rule == OVERRIDE_RULE:
                source = OVERRIDE_SOURCE
            elif rule in self._sources:
                source = self._sources[rule]
            else:
                raise RuleError(rule, "no source sentence for this rule id")
        self._entries.append(TrailEntry(quantity, value, rule, source, detail))

    def override(self, quantity: str, computed: TrailValue, value: TrailValue) -> None:
        """Record a referee override of ``quantity`` from ``computed`` to ``value``."""
        self.add(quantity, value, OVERRIDE_RULE, f"computed {computed!r}, referee set {value!r}")

    def entries(self) -> tuple[TrailEntry, ...]:
        """The entries so far, in order."""
        return tuple(self._entries)
