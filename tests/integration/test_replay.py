"""``forumbot replay``: a saved duel refereed offline, the bot's past declarations ignored."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from forumbot.cli import main
from forumbot.duels.replay import parse_duellist_option, replay_pages
from forumbot.publish.typography import plain
from parsers.model import Post, TopicPage
from tests.integration.test_fatigue_duel import SandboxDuel, run_duel, sandbox  # noqa: F401

# issue 26: these duels were written with the spellbook of tests/fixtures/fatigue_seed_tests.toml
pytestmark = pytest.mark.usefixtures("seed_spellbook")

BODY = "\n".join(f"Ligne {i} : le duelliste avance, baguette levée." for i in range(1, 11))


def _dice_lines(text: str) -> list[str]:
    """The dice lines of a declaration, typography undone (issue 25): a replayed draft is the
    typeset BBCode, a published post is read back from the page, where the parser has already
    turned U+00A0 and U+202F into plain spaces; both are compared at the same stage."""
    return [line for line in plain(text).splitlines() if "dé « Pari »" in line]


def _as_read(text: str) -> list[str]:
    """A declaration as players read it on the page: typography undone, BBCode tags and the
    bot's marker line dropped, the deadline's time of day masked (the live bot publishes a few
    fake seconds after the post, the replay at the post's time: a minute may turn between)."""
    text = re.sub(r"\[/?[a-z]+(?:=[^\]]*)?\]", "", plain(text))
    text = re.sub(r"^forumbot·.*$", "", text, flags=re.MULTILINE)
    return re.sub(r"à \d+ h \d+", "à HH h MM", text).strip().splitlines()


def test_replay_of_a_saved_sandbox_duel_redrafts_the_same_declarations(
    sandbox: SandboxDuel,  # noqa: F811
    tmp_path: Path,
) -> None:
    run_duel(sandbox)
    saved = tmp_path / "page1.html"
    saved.write_text(httpx.get(sandbox.url()).text, encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["replay", str(saved), "--ruleset", "fatigue", "--json",
         "--duellist", "Aurora Vexley:1:brutale", "--duellist", "Cassius Thorne:adult:sournoise"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    drafted = json.loads(result.output)
    keys = [d["key"] for d in drafted]
    # the board's clock did not move 36 h (only the bot's did): no relaunch in the replay
    assert keys == ["opening", "turn1-initiative", "turn1-defense", "turn2-initiative"]
    original = sandbox.bot_texts()
    # the seed revealed in the pages is reused: every die is the original one
    for replayed, published in zip(drafted[1:], original[1:4], strict=True):
        assert _dice_lines(published) and _dice_lines(replayed["text"]) == _dice_lines(published)
        assert _as_read(replayed["text"]) == _as_read(published)  # and all the rest
    assert drafted[2]["outcome"]["state"]["duellists"][0]["points"] == 30
    text = CliRunner().invoke(
        main,
        ["replay", str(saved), "--duellist", "Aurora Vexley:1:brutale",
         "--duellist", "Cassius Thorne:adult:sournoise"],
    )  # fmt: skip
    assert text.exit_code == 0 and "=== turn1-defense (published" in text.output


def _post(pid: int, author: str, text: str, at: datetime, bold: tuple[str, ...] = ()) -> Post:
    return Post(pid, author, None, at, None, text, bold, (), len(text.splitlines()))


def test_replay_fires_the_timeouts_of_the_saved_duel() -> None:
    """A defense missing for more than 36 h in the saved pages gives the relaunch draft."""
    t0 = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
    opening = (
        "Les adversaires : Aurora Vexley (5e année, brutale) contre "
        "Cassius Thorne (adulte, sournoise).\nEnjeux : un chaudron"
    )
    posts = (
        _post(10, "Arbitre", opening, t0),
        _post(11, "Hibou", "Ouverture\nforumbot·b1t5-opening", t0 + timedelta(minutes=5)),
        _post(
            12,
            "Aurora Vexley",
            BODY + "\nFlipendo\nPari : [3,4,5,6]",
            t0 + timedelta(hours=1),
            ("Flipendo",),
        ),  # fmt: skip
        _post(13, "Hibou", "Relance\nforumbot·b1t5-x", t0 + timedelta(hours=40)),
    )
    page = TopicPage("phpbb3", 5, 1, 1, None, posts, title="Duel de fatigue")
    drafted = replay_pages([page], ruleset="fatigue", seed=3)
    assert [d.key for d in drafted] == ["opening", "turn1-initiative", "turn1-relaunch"]
    assert "Aurora Vexley[/b] (5e année, magie brutale) : 300 PV" in plain(drafted[0].text)
    assert "un chaudron" in drafted[0].text
    relaunch = drafted[-1]
    assert relaunch.outcome is not None
    assert [d["points"] for d in relaunch.outcome["state"]["duellists"]] == [300, 478]
    assert "Cassius Thorne n'a pas posté sa défense" in relaunch.text


def test_duellist_option() -> None:
    assert parse_duellist_option("Aurora Vexley:5:brutale,discrete") == (
        "Aurora Vexley", "5", ["brutale", "discrete"],
    )  # fmt: skip
    assert parse_duellist_option("Cassius:7+") == ("Cassius", "7+", [])
