"""Issue 25, fourth reader W4: the review page's « Historique des tours » of the demos' fatigue
and 2v2 duels listed changes that did not add up to the totals printed under them (lasting
effects, creatures' rewards, infractions missing). Each turn now ends with the declarations'
own points lines, checked here with the declarations' adding-up lint
(:func:`forumbot.publish.checks.balance_problems`) over every turn of both demos' duels, and
on the page itself."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from forumbot.demo.duo import run_duo_demo
from forumbot.demo.season import DemoClock, run_season_demo
from forumbot.publish.checks import balance_problems
from forumbot.storage import open_storage
from forumbot.web import create_app
from forumbot.web.history import declared_turns
from forumbot.web.page_words import PageWords
from forumbot.web.users import add_user
from tests.fakes.clock import SandboxClock
from tests.unit.test_web_app import login

PASSWORD = "correct horse battery staple"


def _words() -> PageWords:
    return PageWords("fr", "Europe/Paris", lambda text, *a: text % a if a else text)


def _check_history(database: Path) -> tuple[int, list[str]]:
    """(turns checked, problems) over every duel of ``database``."""
    storage = open_storage(str(database))
    words, problems, checked = _words(), [], 0
    for duel in storage.duels():
        turns = declared_turns(storage, int(duel["id"]))
        assert turns, duel["id"]
        previous: dict[str, int] = {}
        for t in turns:
            totals = dict(t["points"])
            lines = [f"{name} : {words.balance(b, 'PV')}" for name, b in t["balance"].items()]
            problems += balance_problems("\n".join(lines))
            for name, b in t["balance"].items():
                assert b["end"] == totals[name], (t["number"], name)  # the total printed
                if name in previous:  # each turn starts where the one before ended
                    assert b["start"] == previous[name], (t["number"], name)
                previous[name] = b["end"]
            checked += 1
    return checked, problems


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_history_of_the_demos_duels_adds_up(tmp_path: Path, anyio_backend: str) -> None:
    duo_db, season_db = tmp_path / "duo.db", tmp_path / "season.db"
    sandbox = SandboxClock()
    run_duo_demo(platform="phpbb3", seed=7, echo=lambda _: None, database=str(duo_db),
                 sleep=sandbox.sleep, clock=sandbox)  # fmt: skip
    run_season_demo(platform="phpbb3", echo=lambda _: None, database=str(season_db),
                    clock=DemoClock())  # fmt: skip
    for database in (duo_db, season_db):
        checked, problems = _check_history(database)
        assert checked > 3 and problems == [], (database.name, problems)

    # the 2v2 turn 1 the reader quoted: Aurora's +20 reward is listed, « 500 … = 506 PV »
    storage = open_storage(str(duo_db))
    turns: list[dict[str, Any]] = declared_turns(storage, 1) or []
    aurora = turns[0]["balance"]["Aurora Vexley"]
    assert any("récompense" in c["label"] or "strangulot" in c["label"]
               for c in aurora["changes"]), aurora  # fmt: skip
    # and the page prints those lines
    add_user(storage, "alice", PASSWORD, "admin", datetime(2026, 12, 2, 12, tzinfo=UTC))
    app = create_app(storage, secret_key="s" * 48)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://testserver"
    ) as c:
        await login(c, "alice", PASSWORD)
        html = (await c.get("/duels/1")).text
    first = f"Aurora Vexley\u00a0: {_words().balance(aurora, 'PV')}"
    assert first.replace("'", "&#39;") in html, html[html.find("Turn") :][:3000]
