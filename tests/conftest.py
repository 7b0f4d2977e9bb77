"""Suite-wide checks: every text the templates render in any test is valid BBCode (as phpBB
reads it) and passes the French lint (issue 15; :mod:`forumbot.publish.checks`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from forumbot.publish import render as render_module
from forumbot.publish.checks import bbcode_problems, french_problems


def _check_rendered(template: str, language: str, text: str) -> None:
    problems = bbcode_problems(text)
    if language == "fr":
        problems += french_problems(text)
    if problems:
        raise AssertionError(f"{language}/{template} rendered badly: {problems}\n{text}")


@pytest.fixture(autouse=True)
def _rendered_text_is_checked() -> Iterator[None]:
    render_module.RENDER_CHECKS.append(_check_rendered)
    try:
        yield
    finally:
        render_module.RENDER_CHECKS.remove(_check_rendered)
