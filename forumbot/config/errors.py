"""The configuration's one error (:class:`ConfigError`) and the review-delay type."""

from __future__ import annotations

from typing import Literal

ReviewDelay = int | Literal["manual"]


class ConfigError(Exception):
    """The configuration file is missing, unreadable or has a bad setting (message names it).

    Attributes:
        problems: one line per bad setting (the message joins them with ``"; "``).
    """

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = problems if problems is not None else [message]
