"""Issue 25, what staff read on the command line: `duels list` says which turn is awaited,
an untouched draft shows as v1 (the version counts real edits, not claims), and a topic
adopted right after it was created is named by its real title (its concession too)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from forumbot.cli.drafts import duel_progress
from forumbot.publish.typography import plain
from tests.integration.test_cli_duels import _poll, _run, _storage, sandbox  # noqa: F401 (the fixture)
from tests.integration.test_newcomer4_cli import _speak


def _row(status: str, **state: Any) -> dict[str, Any]:
    return {"status": status, "state_json": json.dumps(state)}


def test_duel_progress_says_the_turn_awaited() -> None:
    assert duel_progress(_row("running", turn=2)) == "running, turn 3 awaited"
    assert duel_progress(_row("running", turn=0)) == "running, turn 1 awaited"
    assert duel_progress(_row("running", turn=2, pending=[{"post_id": 9}])) == (
        "running, turn 3: defense awaited"
    )
    assert duel_progress(_row("finished", turn=7)) == "finished after turn 7"
    assert duel_progress(_row("draft")) == "draft"


def test_untouched_draft_is_v1_and_an_edit_makes_v2(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    cfg, board, topic = request.getfixturevalue("sandbox")
    _poll(cfg)
    storage = _storage(cfg)
    [opening] = storage.declarations(("draft",))
    # claims and status changes move the compare-and-set version, not the shown one
    storage.db["declarations"].update(opening["id"], {"version": 4})
    storage.db.conn.commit()
    listing = _run("drafts", "list", "-c", str(cfg)).output
    assert " draft, version 1 " in listing and "version 4" not in listing, listing
    assert "draft, version 1)" in _run("drafts", "show", str(opening["id"]), "-c", str(cfg)).output
    new = tmp_path / "text.txt"
    new.write_text(opening["text"] + "\nPrécision de l'arbitre.", encoding="utf-8")
    edited = _run(
        "drafts", "edit", str(opening["id"]), "--text-file", str(new), "--by", "Maelis",
        "-c", str(cfg),
    )  # fmt: skip
    assert edited.exit_code == 0, edited.output
    assert " draft, version 2 " in _run("drafts", "list", "-c", str(cfg)).output


def test_duels_list_and_a_topic_adopted_right_after_it_was_created(
    request: pytest.FixtureRequest,
) -> None:
    cfg, board, _ = request.getfixturevalue("sandbox")
    fresh = board.create_topic(3, "Arbitre", "Le duel de l'aube", "Rendez-vous au lever du jour.")
    adopted = _run(
        "duels", "adopt", str(fresh), "--forum", "3", "--duellist", "Aurora Vexley:3",
        "--duellist", "Cassius Thorne:4", "-c", str(cfg),
    )  # fmt: skip
    assert adopted.exit_code == 0, adopted.output
    storage = _storage(cfg)
    duel = storage.duel_by_topic(1, fresh) or next(
        d for d in storage.duels() if d["topic_id"] == fresh
    )
    assert duel["title"] == "Le duel de l'aube"
    [opening] = [d for d in storage.declarations(("draft",)) if d["duel_id"] == duel["id"]]
    assert _run("drafts", "approve", str(opening["id"]), "-c", str(cfg)).exit_code == 0
    _poll(cfg, publish=True)
    listed = _run("duels", "list", "-c", str(cfg)).output
    assert f"topic {fresh} running, turn 1 awaited" in listed, listed
    assert re.search(r": Aurora Vexley \d+ PD, Cassius Thorne \d+ PD$", listed, re.M), listed
    _speak(cfg, "fr")  # seventh reader, C16: the unit, and the minus sign of French typography
    french = _run("duels", "list", "-c", str(cfg)).output
    assert re.search(r"Aurora Vexley \d+ PD, Cassius Thorne \d+ PD$", french, re.M), french
    _speak(cfg, "en")
    conceded = _run("duels", "concede", str(fresh), "Cassius Thorne", "--by", "M", "-c", str(cfg))
    assert conceded.exit_code == 0, conceded.output
    [text] = [
        plain(d["text"]) for d in _storage(cfg).declarations(("draft", "approved"))
        if d["duel_id"] == duel["id"]
    ]
    assert "Cassius Thorne abandonne." in text and f"topic {fresh}" not in text
