"""Two-against-two settings (``rules/data/duo.toml``): the [D] points 2v2 adds to fatigue.

Seed 001, "Règle 2 – Actions" and "Règle 3 – Déroulement d'un tour" (RULES.md "Ruleset fatigue —
duels two against two"). Pure: the shell reads the file, :func:`load_duo_settings` parses it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any, Literal

from rules.errors import RuleError

Status = Literal["applied", "proposed", "off"]
_STATUS = ("applied", "proposed", "off")


@dataclass(frozen=True)
class DuoSettings:
    """Parsed ``duo.toml`` (each field documented in the file)."""

    placement: str = "uniform"
    extra_move: Status = "applied"
    missing_move: Status = "applied"
    double_target: Status = "applied"
    move_alone: Status = "proposed"
    unknown_zone: Status = "proposed"
    missing_target: Status = "proposed"
    missing_move_blame: str = "last_poster"
    extra_move_effect: str = "stays"
    double_target_effect: str = "void"
    posts_per_declaration_together: int = 2
    pv_reward_above_start: bool = True
    creature_damage: str = "caster"
    move_effect: str = "at_once"
    both_duos_down: str = "higher_total_wins"
    member_concession: str = "duo_loses"
    win_points: int = 1
    win_galleons: int = 5
    loser_frogs: int = 1
    draw_frogs: int = 1

    def status(self, rule: str) -> Status:
        """The draft status of a 2v2 violation code (``extra_move``, ``missing_move``...)."""
        value = getattr(self, rule)
        assert value in _STATUS
        return value  # type: ignore[no-any-return]


_CHOICES: dict[str, tuple[Any, ...]] = {
    "placement": ("uniform",),
    "missing_move_blame": ("last_poster",),
    "extra_move_effect": ("stays",),
    "double_target_effect": ("void",),
    "creature_damage": ("caster", "base"),
    "move_effect": ("at_once", "end_of_turn"),
    "both_duos_down": ("higher_total_wins", "draw"),
    "member_concession": ("duo_loses",),
}
_STATUSES = (
    "extra_move",
    "missing_move",
    "double_target",
    "move_alone",
    "unknown_zone",
    "missing_target",
)
_INTS = (
    "posts_per_declaration_together",
    "win_points",
    "win_galleons",
    "loser_frogs",
    "draw_frogs",
)


def load_duo_settings(toml_text: str) -> DuoSettings:
    """Parse ``duo.toml``; a missing key keeps the shipped default.

    Raises:
        RuleError: invalid TOML (``"toml"``), an unknown key, or a bad value (its name).
    """
    try:
        data = tomllib.loads(toml_text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleError("toml", str(exc)) from exc
    known = set(_CHOICES) | set(_STATUSES) | set(_INTS) | {"pv_reward_above_start"}
    for key, value in data.items():
        if key not in known:
            raise RuleError(key, "unknown 2v2 setting")
        if key in _CHOICES and value not in _CHOICES[key]:
            raise RuleError(key, f"one of {list(_CHOICES[key])}, got {value!r}")
        if key in _STATUSES and value not in _STATUS:
            raise RuleError(key, f"one of {list(_STATUS)}, got {value!r}")
        if key in _INTS and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise RuleError(key, f"an integer >= 0, got {value!r}")
        if key == "pv_reward_above_start" and not isinstance(value, bool):
            raise RuleError(key, f"true or false, got {value!r}")
    if data.get("posts_per_declaration_together", 2) not in (1, 2):
        raise RuleError("posts_per_declaration_together", "1 or 2")
    return DuoSettings(**data)


__all__ = ["DuoSettings", "load_duo_settings"]
