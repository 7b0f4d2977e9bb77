"""``forumbot demo --kind 2v2``: four scripted duellists play a two-against-two fatigue duel on
the sandbox (phpBB and Forumactif), the real bot referees it to the end (issue 5)."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.duo import DUOS, run_duo_demo
from forumbot.publish.typography import plain
from tests.fakes.clock import SandboxClock

# issue 26: these duels were written with the spellbook of tests/fixtures/fatigue_seed_tests.toml
pytestmark = pytest.mark.usefixtures("seed_spellbook")

# What the script may be caught at: its deliberate mistakes (extra_move) and nothing else (a
# duellist left with no legal action moves alone, which RULES.md allows: no move_alone).
EXPECTED_RULES = {"extra_move"}


@pytest.mark.parametrize(
    ("platform", "seed"), [("phpbb3", 3), ("forumactif", 2)]
)
def test_2v2_demo_runs_to_a_winner(platform: str, seed: int) -> None:
    lines: list[str] = []
    clock = SandboxClock()  # the demo's board and bot share it: form ages cost no real time
    result = run_duo_demo(
        platform=platform, seed=seed, echo=lines.append, sleep=clock.sleep, clock=clock
    )
    names = {n for duo in DUOS for n, _, _ in duo}
    assert result.draw or (len(result.winners) == 2 and set(result.winners) <= names)
    assert result.duplicates == 0
    assert result.owls_twice == 0
    assert result.zone_owls >= 4  # the four starting zones, then every zone entered
    assert result.turns >= 1 and len(result.declarations) > result.turns
    # every deliberate mistake is caught, and the scripted posts break no other rule
    assert set(result.mistakes) <= set(result.violations)
    assert {rule for rule, _ in result.violations} <= EXPECTED_RULES, result.violations
    assert result.verify is not None and result.verify.ok, result.verify.problems
    assert len([c for c in result.verify.checks if c.turn == 0]) == 4  # the placements
    if platform == "phpbb3":  # the bot's own « Pari » dice are all checked
        assert [c for c in result.verify.checks if c.turn > 0 and not c.label]
    else:  # the forum rolled the bets: only the bot's draws (placement, rewards) are its own
        assert all(c.turn == 0 or c.label for c in result.verify.checks)
    assert any(line.startswith("--- declaration (post ") for line in lines)
    assert lines[-1].startswith("verify-dice : ") and "tout est conforme" in lines[-1]


def test_2v2_demo_from_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """The command's wiring and output; the duel itself on the fake clock (the real-time
    end-to-end duels are the classic demos, one per platform: tests/integration/test_cli.py)."""
    import forumbot.demo.duo as demo_duo

    real = demo_duo.run_duo_demo

    def on_the_fake_clock(**kwargs: Any) -> Any:
        clock = SandboxClock()
        return real(**kwargs, sleep=clock.sleep, clock=clock)

    monkeypatch.setattr(demo_duo, "run_duo_demo", on_the_fake_clock)
    result = CliRunner().invoke(main, ["demo", "--kind", "2v2", "--seed", "7"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "La serre enchantée" in out or "bibliothèque" in out.lower()
    assert "=== vainqueurs : " in plain(out) and "aucun doublon" in out and "0 en double" in out
    assert "ce second déplacement est refusé" in out  # seed 7: an extra move, caught
    assert "tout est conforme" in out
    # the second French reader (issue 25): the bet rule is the opening's, never repeated (C2);
    # no self cast glued to the next line (C4) and no dodge « avec pour cible » (C5); the
    # heading typeset (T1). The demo's duel varies with the session (its content is pinned
    # in tests/unit/test_reader2_duo.py and test_reader25_duo.py: C3-C6)
    text = plain(out)
    assert "ne compte que si sa cible esquive" not in text
    assert "Le pari d'un sort lancé ne compte que contre une esquive" in text
    assert "agit sur son lanceur.[*]" not in out and ", avec pour cible" not in text
    assert "[b]Duel en deux contre deux\u00a0: " in out


def test_2v2_demo_reports_a_missing_winner(monkeypatch: pytest.MonkeyPatch) -> None:
    import forumbot.demo.duo as demo_duo

    def capped(**kwargs: Any) -> Any:
        raise RuntimeError("no winner after 30 turns")

    monkeypatch.setattr(demo_duo, "run_duo_demo", capped)
    result = CliRunner().invoke(main, ["demo", "--kind", "2v2"])
    assert result.exit_code == 1 and "no winner after 30 turns" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [[], ["--kind", "classic"]])
def test_classic_demo_is_unchanged(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> None:
    import forumbot.demo.classic as demo
    import forumbot.demo.duo as demo_duo
    from forumbot.demo.classic import DemoResult

    calls: list[dict[str, Any]] = []

    def classic(**kwargs: Any) -> DemoResult:
        calls.append(kwargs)
        return DemoResult([1, 2], "Aurora Vexley", False, 0, 1)

    def duo(**kwargs: Any) -> Any:
        raise AssertionError("the classic demo ran the 2v2 one")

    monkeypatch.setattr(demo, "run_demo", classic)
    monkeypatch.setattr(demo_duo, "run_duo_demo", duo)
    result = CliRunner().invoke(main, ["demo", *args])
    assert result.exit_code == 0, result.output
    assert [(c["platform"], c["seed"]) for c in calls] == [("phpbb3", 7)]
