"""Suite-wide checks: every text the templates render in any test is valid BBCode (as phpBB
reads it) and passes the French lint (issues 15 and 25; :mod:`forumbot.publish.checks`:
typography, one colon per sentence, sums that add up, no internal names, and a dated deadline
in every waiting post of a ruleset with deadlines)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from forumbot.publish import render as render_module
from forumbot.publish.checks import (
    DEADLINE_TEMPLATES,
    bbcode_problems,
    deadline_problems,
    french_problems,
    lint_problems,
)


def _check_rendered(template: str, language: str, text: str) -> None:
    problems = bbcode_problems(text)
    if language == "fr":
        problems += french_problems(text)
        if template.endswith(".bbcode.j2"):  # what players read (tasks are the staff's)
            problems += lint_problems(text)
        if template in DEADLINE_TEMPLATES:
            problems += deadline_problems(text)
    if problems:
        raise AssertionError(f"{language}/{template} rendered badly: {problems}\n{text}")


@pytest.fixture(autouse=True)
def _rendered_text_is_checked() -> Iterator[None]:
    render_module.RENDER_CHECKS.append(_check_rendered)
    try:
        yield
    finally:
        render_module.RENDER_CHECKS.remove(_check_rendered)
