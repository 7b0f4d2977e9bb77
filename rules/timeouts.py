"""Deadlines and relaunches of a fatigue duel (pure: ``now`` and every time are passed in).

Seed 001: "Si 36h ou 48h (selon type de duel) après la première déclaration de l'arbitre le
second duelliste n'a pas posté sa défense, l'arbitre relancera automatiquement le jeu en invitant
l'autre duelliste à poster un autre sort. De même si 36h ou 48h (selon le type de duel) après la
deuxième déclaration de l'arbitre, aucun des deux duellistes n'a saisi l'initiative, l'arbitre
relancera une dernière fois avant de mettre fin au duel."

RULES.md: "36 h for 1v1, 48 h for 2v2 [D], counted from the publication of the declaration. If
the expected defense post has not come when the clock runs out, the bot relaunches: the
initiative spell resolves undefended and the turn closes [D] [...]. If nobody takes the
initiative within the delay after a second declaration, the bot relaunches once more; after one
more delay with no post the duel closes with no winner [...] [D]. Any post resets the relaunch
allowance." A missed deadline is not a violation.

All datetimes must be timezone-aware (UTC is fine).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from rules.errors import RuleError
from rules.ruleset import Ruleset

DuelKind = Literal["1v1", "2v2"]
DuelPhase = Literal["awaiting_defense", "awaiting_initiative"]
RelaunchAction = Literal["wait", "resolve_undefended", "relaunch", "close_no_winner"]


@dataclass(frozen=True)
class TimeoutPolicy:
    """The timeout settings of a ruleset (``rules/data/fatigue.toml``).

    Attributes:
        hours_1v1, hours_2v2: delay after a declaration (seed 001: "36h ou 48h").
        relaunches_without_initiative: relaunches allowed when nobody takes the initiative
            (seed 001: "relancera une dernière fois": 1).
        owl_reminder_hours: an owl reminder this many hours before a deadline; 0 = none.
    """

    hours_1v1: int = 36
    hours_2v2: int = 48
    relaunches_without_initiative: int = 1
    owl_reminder_hours: int = 12

    @classmethod
    def from_ruleset(cls, ruleset: Ruleset) -> TimeoutPolicy:
        """The policy from a fatigue ruleset's settings.

        Raises RuleError(setting name) when a timeout setting is missing.
        """
        return cls(
            hours_1v1=int(ruleset.setting("timeout_1v1_hours")),
            hours_2v2=int(ruleset.setting("timeout_2v2_hours")),
            relaunches_without_initiative=int(ruleset.setting("relaunches_without_initiative")),
            owl_reminder_hours=int(ruleset.setting("owl_reminder_hours")),
        )

    def delay(self, duel_kind: DuelKind) -> timedelta:
        """The delay for ``duel_kind``. Raises RuleError(``"duel_kind"``) for another kind."""
        if duel_kind == "1v1":
            return timedelta(hours=self.hours_1v1)
        if duel_kind == "2v2":
            return timedelta(hours=self.hours_2v2)
        raise RuleError("duel_kind", f"unknown duel kind {duel_kind!r}; use '1v1' or '2v2'")


DEFAULT_POLICY = TimeoutPolicy()


def _aware(value: datetime, what: str) -> None:
    if value.tzinfo is None or value.utcoffset() is None:
        raise RuleError("timeouts", f"{what} must be timezone-aware, got {value!r}")


def next_deadline(
    duel_phase: DuelPhase,
    last_declaration_at: datetime,
    duel_kind: DuelKind,
    *,
    policy: TimeoutPolicy = DEFAULT_POLICY,
) -> datetime:
    """When the expected post is due: the declaration's publication plus the duel kind's delay.

    ``duel_phase`` says which post is expected (``"awaiting_defense"`` after a first
    declaration, ``"awaiting_initiative"`` after a second declaration, an opening or a
    relaunch); the delay is the same for both (seed 001: "36h ou 48h (selon type de duel)").

    Raises:
        RuleError: naive datetime (``"timeouts"``), unknown kind (``"duel_kind"``) or phase
            (``"duel_phase"``).
    """
    if duel_phase not in ("awaiting_defense", "awaiting_initiative"):
        raise RuleError("duel_phase", f"unknown phase {duel_phase!r}")
    _aware(last_declaration_at, "last_declaration_at")
    return last_declaration_at + policy.delay(duel_kind)


def owl_reminder_at(
    deadline: datetime, *, policy: TimeoutPolicy = DEFAULT_POLICY
) -> datetime | None:
    """When to send the owl reminder before ``deadline`` (setting ``owl_reminder_hours``), or
    None when reminders are off (0)."""
    _aware(deadline, "deadline")
    if policy.owl_reminder_hours <= 0:
        return None
    return deadline - timedelta(hours=policy.owl_reminder_hours)


@dataclass(frozen=True)
class RelaunchDecision:
    """What the bot should do about a silent duel at ``now``.

    Attributes:
        action: ``"wait"`` (deadline not reached, or a post came in: draft it instead),
            ``"resolve_undefended"`` (step ``"relaunch"`` of the engine: the initiative spell
            resolves undefended and the turn closes), ``"relaunch"`` (invite the duellists to
            take the initiative again), ``"close_no_winner"``
            (:func:`rules.fatigue.close_without_winner`).
        deadline: the deadline considered.
        remind_at: when the owl reminder is due (None: off).
        reason: English explanation for logs and the trail.
    """

    action: RelaunchAction
    deadline: datetime
    remind_at: datetime | None
    reason: str


def relaunch_decision(
    duel_phase: DuelPhase,
    last_declaration_at: datetime,
    now: datetime,
    duel_kind: DuelKind,
    *,
    last_post_at: datetime | None = None,
    relaunches_since_last_post: int = 0,
    policy: TimeoutPolicy = DEFAULT_POLICY,
) -> RelaunchDecision:
    """Decide the relaunch policy's next move.

    Args:
        duel_phase: ``"awaiting_defense"`` after a first declaration; ``"awaiting_initiative"``
            after a second declaration (or the opening, or a relaunch).
        last_declaration_at: publication of the last declaration (relaunches included).
        now: the current time (passed in).
        duel_kind: ``"1v1"`` or ``"2v2"``.
        last_post_at: the last duellist post, or None.
        relaunches_since_last_post: "nobody took the initiative" relaunches published since
            the last duellist post (RULES.md: "Any post resets the relaunch allowance").
        policy: the ruleset's :class:`TimeoutPolicy`.

    Returns:
        :class:`RelaunchDecision`.

    Raises:
        RuleError: naive datetimes (``"timeouts"``), unknown phase or kind, a negative count
            (``"timeouts"``).
    """
    _aware(now, "now")
    if relaunches_since_last_post < 0:
        raise RuleError("timeouts", "relaunches_since_last_post must be >= 0")
    deadline = next_deadline(duel_phase, last_declaration_at, duel_kind, policy=policy)
    remind = owl_reminder_at(deadline, policy=policy)
    if last_post_at is not None:
        _aware(last_post_at, "last_post_at")
        if last_post_at > last_declaration_at:
            return RelaunchDecision("wait", deadline, remind, "a post came in: draft it")
    if now < deadline:
        return RelaunchDecision("wait", deadline, remind, "the delay is still running")
    if duel_phase == "awaiting_defense":
        return RelaunchDecision(
            "resolve_undefended",
            deadline,
            remind,
            "no defense post in time: the initiative spell resolves undefended",
        )
    if relaunches_since_last_post < policy.relaunches_without_initiative:
        return RelaunchDecision(
            "relaunch",
            deadline,
            remind,
            f"nobody took the initiative: relaunch {relaunches_since_last_post + 1} of "
            f"{policy.relaunches_without_initiative}",
        )
    return RelaunchDecision(
        "close_no_winner",
        deadline,
        remind,
        "no post after the last relaunch: the duel closes with no winner",
    )


__all__ = [
    "DEFAULT_POLICY",
    "DuelKind",
    "DuelPhase",
    "RelaunchAction",
    "RelaunchDecision",
    "TimeoutPolicy",
    "next_deadline",
    "owl_reminder_at",
    "relaunch_decision",
]
