"""Two-against-two fatigue duels (seed 001): environments, zones, moves, targets, creatures.

Typical use::

    env = load_environment(text_of("rules/data/environments/serre.toml"))
    settings = load_duo_settings(text_of("rules/data/duo.toml"))
    state = start_duo(new_duo_duel(ruleset, duos, env, draw))
    outcome = resolve_duo_step(state, [DuoPost(post, move_to="zone 2")], {post.post_id: (4,)},
                               ruleset=ruleset, env=env, settings=settings, draw=draw)
"""

from __future__ import annotations

from rules.duo.engine import (
    DuoOutcome,
    DuoPost,
    Event,
    Target,
    duo_rewards,
    expected_posters,
    new_duo_duel,
    place_duellists,
    posts_per_declaration,
    resolve_duo_silence,
    resolve_duo_step,
    resolve_target,
    start_duo,
)
from rules.duo.environment import Environment, load_environment
from rules.duo.settings import DuoSettings, load_duo_settings
from rules.duo.state import DuoState, PendingAttack, RewardGiven

__all__ = [
    "DuoOutcome",
    "DuoPost",
    "DuoSettings",
    "DuoState",
    "Environment",
    "Event",
    "PendingAttack",
    "RewardGiven",
    "Target",
    "duo_rewards",
    "expected_posters",
    "load_duo_settings",
    "load_environment",
    "new_duo_duel",
    "place_duellists",
    "posts_per_declaration",
    "resolve_duo_silence",
    "resolve_duo_step",
    "resolve_target",
    "start_duo",
]
