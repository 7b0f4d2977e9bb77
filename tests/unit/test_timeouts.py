"""Deadlines and relaunches (seed 001: "Si 36h ou 48h (selon type de duel) après la première
déclaration de l'arbitre le second duelliste n'a pas posté sa défense, l'arbitre relancera
automatiquement le jeu [...] l'arbitre relancera une dernière fois avant de mettre fin au
duel.")."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from rules import ruleset_path
from rules.errors import RuleError
from rules.fatigue import load_fatigue_ruleset
from rules.timeouts import TimeoutPolicy, next_deadline, owl_reminder_at, relaunch_decision

T0 = datetime(2025, 3, 1, 20, 0, tzinfo=UTC)
H = timedelta(hours=1)


def test_seed001_36h_for_1v1_48h_for_2v2() -> None:
    """seed 001: "36h ou 48h (selon type de duel)" """
    assert next_deadline("awaiting_defense", T0, "1v1") == T0 + 36 * H
    assert next_deadline("awaiting_initiative", T0, "2v2") == T0 + 48 * H
    policy = TimeoutPolicy.from_ruleset(
        load_fatigue_ruleset(ruleset_path("fatigue").read_text(encoding="utf-8"))
    )
    assert policy == TimeoutPolicy(36, 48, 1, 12)


def test_owl_reminder_before_deadline() -> None:
    deadline = next_deadline("awaiting_defense", T0, "1v1")
    assert owl_reminder_at(deadline) == deadline - 12 * H
    assert owl_reminder_at(deadline, policy=TimeoutPolicy(owl_reminder_hours=0)) is None


def test_seed001_missing_defense_resolves_undefended() -> None:
    """seed 001: "le second duelliste n'a pas posté sa défense, l'arbitre relancera
    automatiquement le jeu en invitant l'autre duelliste à poster un autre sort." """
    assert relaunch_decision("awaiting_defense", T0, T0 + 35 * H, "1v1").action == "wait"
    d = relaunch_decision("awaiting_defense", T0, T0 + 36 * H, "1v1")
    assert d.action == "resolve_undefended" and d.deadline == T0 + 36 * H


def test_seed001_nobody_takes_initiative_relaunch_once_then_close() -> None:
    """seed 001: "aucun des deux duellistes n'a saisi l'initiative, l'arbitre relancera une
    dernière fois avant de mettre fin au duel." """
    first = relaunch_decision("awaiting_initiative", T0, T0 + 40 * H, "1v1")
    assert first.action == "relaunch"
    later = T0 + 40 * H
    second = relaunch_decision(
        "awaiting_initiative", later, later + 37 * H, "1v1", relaunches_since_last_post=1
    )
    assert second.action == "close_no_winner"


def test_any_post_resets_the_relaunch_allowance() -> None:
    """RULES.md: "Any post resets the relaunch allowance." """
    d = relaunch_decision(
        "awaiting_initiative", T0, T0 + 50 * H, "1v1", last_post_at=T0 + H,
        relaunches_since_last_post=0,
    )  # fmt: skip
    assert d.action == "wait"


def test_naive_datetimes_and_bad_kinds_rejected() -> None:
    with pytest.raises(RuleError):
        next_deadline("awaiting_defense", datetime(2025, 1, 1), "1v1")
    with pytest.raises(RuleError):
        next_deadline("awaiting_defense", T0, "3v3")  # type: ignore[arg-type]
