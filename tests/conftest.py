"""Suite-wide checks: every text the templates render in any test is valid BBCode (as phpBB
reads it) and passes the French lint (issues 15 and 25; :mod:`forumbot.publish.checks`:
typography, one colon per sentence, sums that add up, no internal names, and a dated deadline
in every waiting post of a ruleset with deadlines); account passwords are hashed with cheap
argon2 parameters in-process (the real ones cost ~64 MiB and ~0.1 s per hash: hundreds of web
tests would spend minutes on them). A test that needs the production parameters is marked
``real_argon2``."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from forumbot.publish import render as render_module
from forumbot.publish.checks import (
    DEADLINE_TEMPLATES,
    bbcode_problems,
    deadline_problems,
    french_problems,
    lint_problems,
)
from forumbot.web import users as users_module
from tests.engines import on_each_engine, pg_schemas, postgres_server, storage_url

__all__ = ["on_each_engine", "pg_schemas", "postgres_server", "storage_url"]


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


# argon2id with the smallest parameters argon2-cffi accepts: same code path, same hash format.
_CHEAP_HASHER = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
_CHEAP_DUMMY = _CHEAP_HASHER.hash("forumbot-no-such-user")


@pytest.fixture(autouse=True)
def _cheap_password_hashes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("real_argon2"):
        return
    monkeypatch.setattr(users_module, "_HASHER", _CHEAP_HASHER)
    monkeypatch.setattr(users_module, "_DUMMY_HASH", _CHEAP_DUMMY)


SEED_TESTS_RULESET = Path(__file__).resolve().parent / "fixtures" / "fatigue_seed_tests.toml"
"""The fatigue ruleset with the spellbook the hand-computed duels were written with (issue 26:
the shipped spellbook changed so that duels end; the golden numbers stay right)."""


@pytest.fixture
def seed_spellbook(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """For the duration of a test, the ruleset named ``fatigue`` (``club.ruleset``, a duel's
    ruleset) is read from :data:`SEED_TESTS_RULESET`: flows, desks and the sandbox's scripted
    duellists play the golden duels' spellbook. Use with
    ``pytestmark = pytest.mark.usefixtures("seed_spellbook")``."""
    from forumbot import rulesets
    from rules.ruleset import ruleset_path

    def redirected(name: str) -> Path:
        return SEED_TESTS_RULESET if name == "fatigue" else ruleset_path(name)

    monkeypatch.setattr(rulesets, "ruleset_path", redirected)
    rulesets.load_ruleset.cache_clear()
    yield SEED_TESTS_RULESET
    rulesets.load_ruleset.cache_clear()


# Hypothesis: no test may depend on the machine's speed, so the per-example deadline and the
# "input generation is slow" health check are off for every property test (each test's own
# @settings still sets its number of examples).
hypothesis_settings.register_profile(
    "forumbot",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
hypothesis_settings.load_profile("forumbot")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core. About half of the suite's time is spent waiting
    (servers on 127.0.0.1, subprocesses started and killed, Chromium), so two workers per
    core keep both cores busy; every test has its own port (0) and tmp_path."""
    return 2 * (os.cpu_count() or 1)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The skipped tests' reasons, counted (newcomer 7, #5: « 396 skipped » said nothing of
    why; most are « ../shared/fixtures/ absent » beside a fresh clone): one line a reason,
    the most frequent first, without ``-rs``'s line per test."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else "?"
        reason = str(reason).removeprefix("Skipped: ")
        reasons[reason] = reasons.get(reason, 0) + 1
    if not reasons:
        return
    terminalreporter.section("skipped, by reason")
    for reason, count in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        terminalreporter.line(f"{count:5d}  {reason}")
