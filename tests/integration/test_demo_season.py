"""``forumbot demo --kind fatigue``: the club's fatigue 1v1 season on both sandboxes (issue 15).

The demo's board and bot share a :class:`forumbot.demo.season.DemoClock` that moves only when
someone waits, so the flood interval and phpBB's form age cost no real time; nothing here
depends on timing.
"""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.demo.season import PLAYERS, STAKES, DemoClock, SeasonResult, run_season_demo
from forumbot.publish.typography import plain

NAMES = [n for n, _, _ in PLAYERS]


@pytest.mark.parametrize("platform", ["phpbb3", "forumactif"])
def test_season_demo_from_sign_ups_to_the_leaderboard(platform: str, tmp_path: Any) -> None:
    lines: list[str] = []
    clock = DemoClock()
    start = clock()
    result = run_season_demo(
        platform=platform, echo=lines.append, database=str(tmp_path / "bot.db"), clock=clock
    )
    out = "\n".join(lines)

    # Sign-ups: the one without a year is answered once, in French, then the corrected one pairs.
    assert result.signup_replies == 1
    assert "il manque ton année d'étude" in out
    assert out.index("il manque ton année d'étude") < out.index("Pardon, j'avais oublié")
    # The duel topic, the opening and one magic-type owl per duellist.
    assert "Déclaration de l'arbitre : ouverture du duel" in plain(out)
    assert result.magic_owls == {n: 1 for n in NAMES}
    # each scripted duellist has one magic type: « Voici ton type de magie et ses effets »
    assert "Voici ton type de magie et ses effets dans ce club." in out
    assert "Sorts concernés (famille « " in plain(out)  # issue 25: the spells a modifier concerns
    # reader after issue 25: the types are public (W3); a ward starts next turn (W2); stakes
    # Aurora proposed and Cassius never accepted are not due, in public as in the owls (W1)
    assert "te sont propres" not in out and "Ton type de magie est public" in plain(out)
    assert "prendra effet avec la défense" not in out
    # (the sentence a ward does say is pinned in tests/unit/test_french_wording.py: the demo's
    # duellists, on the shipped spellbook, may end the duel without casting one)
    assert "n'ont pas été acceptés par Cassius Thorne" in plain(out)
    assert "Enjeux à honorer : une plume de phénix" not in plain(out)

    # reader2 W1 (seed 7, turn 5): Cassius is barred from casting (Stupéfix) and dodging
    # (Levicorpus): he is offered no action, told the spell resolves undefended, and no bet
    # die is rolled for him (RULES.md: "A duellist left with no legal action [...] endures")
    text = plain(out)
    assert "Cassius Thorne ne peut ni lancer de sort (Stupéfix d'Aurora Vexley) ni esquiver" in text
    assert "sera résolu sans défense. Cassius Thorne peut poster son récit avant le " in text
    no_die = "n'est lancé" if platform == "phpbb3" else "ne compte"  # Forumactif: the forum's
    assert f"ne pouvait pas agir ce tour-ci : aucun dé {no_die} pour sa défense." in text
    assert "ne choisit aucune action, pari aucun" not in text

    # Played to a winner with legal moves only: no violation was declared.
    assert result.winner in NAMES and result.loser in NAMES and result.winner != result.loser
    assert result.turns >= 1 and result.declarations >= 1 + 2 * (result.turns - 1) + 1
    assert f"{result.winner} remporte le duel" in out
    assert "acharnement" not in out and "infraction" not in out.lower()
    assert result.duplicates == 0

    # The purse, the frog, the result owls recalling the stakes, the leaderboard edited.
    assert sorted(result.rewards) == sorted(
        [
            (result.winner, "leaderboard_point", 1),
            (result.winner, "galleons", 3),
            (result.loser, "chocolate_frog", 1),
        ]
    )
    assert result.result_owls == {n: 1 for n in NAMES}
    assert "bourse de 3 gallions" in out and "chocogrenouille" in out and STAKES in out
    assert "Aucun duel terminé" in result.leaderboard_before
    assert f"1. [b]{result.winner}[/b] : 1 point" in plain(result.leaderboard_after)
    assert "classement : Hibou modifie son message" in plain(out)

    # The dice: the bot's on phpBB (verify-dice recomputes them), the forum's on Forumactif.
    if platform == "phpbb3":
        assert result.verify is not None and result.verify.ok, result.verify.problems
        assert result.verify.checks and "tout est conforme" in out
    else:
        assert result.verify is None
        assert "dé du forum « Pari »" in plain(out) and "Graine secrète" not in out
    assert lines[-1].startswith(f"=== vainqueur : {result.winner} (")
    assert "aucun doublon" in lines[-1] and "classement modifié" in lines[-1]
    assert clock() > start  # the demo's time is the shared clock's


def test_the_command_line_runs_the_season_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    import forumbot.demo.season as season

    calls: list[dict[str, Any]] = []

    def fake(**kwargs: Any) -> SeasonResult:
        calls.append(kwargs)
        winner = "Aurora Vexley" if kwargs["seed"] == 7 else None
        return SeasonResult(winner, None, 3, 7, 0, 1, {}, {})

    monkeypatch.setattr(season, "run_season_demo", fake)
    ok = CliRunner().invoke(main, ["demo", "--kind", "fatigue", "--platform", "forumactif"])
    assert ok.exit_code == 0, ok.output
    assert [(c["platform"], c["seed"]) for c in calls] == [("forumactif", 7)]
    none = CliRunner().invoke(main, ["demo", "--kind", "fatigue", "--seed", "3"])
    assert none.exit_code == 1 and "without a winner" in none.output


def test_the_command_line_reports_a_stuck_season(monkeypatch: pytest.MonkeyPatch) -> None:
    import forumbot.demo.season as season

    def stuck(**kwargs: Any) -> SeasonResult:
        raise RuntimeError("the bot did not open the duel within 6 cycles")

    monkeypatch.setattr(season, "run_season_demo", stuck)
    result = CliRunner().invoke(main, ["demo", "--kind", "fatigue"])
    assert result.exit_code == 1 and "did not open the duel" in result.output
    assert "Traceback" not in result.output
