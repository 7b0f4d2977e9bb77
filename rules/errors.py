"""Errors raised by the rules engine.

Exception tree::

    RuleError    a ruleset file, a state or a turn's input breaks a rule of the engine
                 (fields: rule, reason)

User-facing wording (French) is written at the edge (CLI, declaration), not here.
"""

from __future__ import annotations


class RuleError(Exception):
    """A ruleset setting, a duel state or a turn's input is invalid.

    Attributes:
        rule: the setting name (e.g. ``"tie_rule"``, ``"spells[3].effects[0].type"``) or
            the rule id (e.g. ``"classic.dice"``, ``"referee.override"``) that was broken.
        reason: human-readable reason, English.
    """

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason

    @property
    def setting(self) -> str:
        """Alias of :attr:`rule`, for errors about a ruleset file's setting."""
        return self.rule
