"""`forumbot drafts show --trail` on a French board speaks French, with the review page's
words (seventh reader after issue 25, C: the trail was English whole on a French board)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from forumbot.cli._common import set_language
from forumbot.cli.trail_lines import echo_trail
from tests.integration.test_issue25_cli_language import _config

OUTCOME = {"trail": [
    {"quantity": "Aurora Vexley.die", "value": 6, "rule": "dice", "detail": "post 26"},
    {"quantity": "Cassius Thorne.action", "value": None, "rule": "fatigue.defense",
     "detail": "post 28"},
]}  # fmt: skip


def _shown(tmp_path: Path, language: str, capsys: pytest.CaptureFixture[str]) -> str:
    cfg = _config(tmp_path, language)
    with click.Context(click.Command("show")):
        set_language(language)
        echo_trail(OUTCOME, str(cfg))
    return capsys.readouterr().out


def test_the_trail_is_french_on_a_french_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _shown(tmp_path, "fr", capsys)
    assert "Aurora Vexley : dé = 6  [dés] message 26" in text.replace("\u00a0", " "), text
    assert "Cassius Thorne : action = aucune action" in text.replace("\u00a0", " "), text
    assert "post 26" not in text and "None" not in text


def test_the_trail_is_stored_english_on_an_english_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = _shown(tmp_path, "en", capsys)
    assert "Aurora Vexley.die = 6  [dice] post 26" in text
    assert "Cassius Thorne.action = no action  [fatigue.defense] post 28" in text
