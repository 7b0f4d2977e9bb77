"""Balance simulator (issue 17): scripted duels between policies, win-rate tables, CSV, SVG.

Pure (rules engines only, randomness passed in)::

    table = simulate(ruleset, duels=10_000, rng=random.Random(7))
    print(text_table(table))
"""

from __future__ import annotations

from rules.balance.policies import POLICIES, Policy, Rng
from rules.balance.render import MEANING, MIRROR_NOTE, csv_text, svg_heatmap, text_table
from rules.balance.simulate import (
    DEFAULT_MAX_TURNS,
    MEANINGLESS_CAPPED,
    Cell,
    Table,
    compare,
    play_classic,
    play_fatigue,
    simulate,
    simulate_magic_types,
    type_combinations,
    wilson,
)
from rules.balance.stall import Stall, stall_warnings

__all__ = [
    "DEFAULT_MAX_TURNS",
    "MEANING",
    "MEANINGLESS_CAPPED",
    "MIRROR_NOTE",
    "POLICIES",
    "Cell",
    "Policy",
    "Rng",
    "Stall",
    "Table",
    "compare",
    "csv_text",
    "play_classic",
    "play_fatigue",
    "simulate",
    "simulate_magic_types",
    "stall_warnings",
    "svg_heatmap",
    "text_table",
    "type_combinations",
    "wilson",
]
