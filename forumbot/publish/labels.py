"""French labels and key tokens shared by the club, the flows and the owls: name slugs for
idempotency keys, year and magic-type labels, magic-type modifiers described for players."""

from __future__ import annotations

import re
from collections.abc import Sequence

from parsers.registration import fold
from rules.fatigue import FatigueRuleset, MagicModifier


def slug(name: str) -> str:
    """An ASCII token for idempotency keys (``"Aurora Vexley"`` -> ``"aurora-vexley"``)."""
    return re.sub(r"[^a-z0-9]+", "-", fold(name)).strip("-") or "x"


def year_label(year: str) -> str:
    """``"1"`` -> ``"1re année"``, ``"5"`` -> ``"5e année"``, ``"adult"`` -> ``"adulte"``."""
    if year == "adult":
        return "adulte"
    return f"{year}{'re' if year == '1' else 'e'} année"


def types_label(ruleset: FatigueRuleset, types: Sequence[str]) -> str:
    """``("brutale", "discrete")`` -> ``"brutale et discrète"``."""
    labels = [ruleset.magic_type(t).label.lower() for t in types]
    return " et ".join(labels)


def describe_modifier(mod: MagicModifier) -> str:
    """A magic-type modifier in French, for the owl (club's table, ``rules/data/fatigue.toml``)."""
    scope = "tous tes sorts" if mod.family == "*" else f"tes sorts de la famille « {mod.family} »"
    if mod.kind == "damage_percent":
        return f"{scope} : {mod.value:+d} % de PV infligés"
    if mod.kind == "damage_flat":
        return f"{scope} : {mod.value:+d} PV infligés"
    if mod.kind == "damage_taken_flat":
        target = "tous les sorts" if mod.family == "*" else f"les sorts « {mod.family} »"
        return f"{target} qui te touchent : {mod.value:+d} PV subis"
    if mod.kind == "duration_bonus":
        return f"{scope} : effets prolongés de {mod.value:+d} tour(s)"
    return f"{scope} : soins {mod.value:+d} PV"
