"""Rewards at the end of a 1v1 duel, the leaderboard, and editing the bot's leaderboard post
(seed 001: "Le vainqueur remportera 1 point au tableau de classement ainsi qu'une bourse de 3
gallions. Le perdant [...] recevra une chocogrenouille")."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import pytest

from forumbot.club.leaderboard import (
    record_rewards,
    render_leaderboard,
    rewards_for,
    standings,
    update_leaderboard_post,
)
from forumbot.club.posts import club_post, publish_due_club_posts
from forumbot.errors import FormInvalid
from forumbot.forums.base import EditingForumClient
from forumbot.forums.phpbb import PhpbbClient
from forumbot.publish.typography import plain
from forumbot.storage import Storage, open_storage
from tests.fakes.forum import ClubForum

pytestmark = pytest.mark.usefixtures("on_each_engine")

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
FIX = Path(__file__).resolve().parents[2] / "fixtures" / "html" / "phpbb"


def clock() -> datetime:
    return NOW


def state(winner: str | None, draw: bool = False) -> dict[str, object]:
    return {
        "winner": winner,
        "draw": draw,
        "duellists": [{"name": "Aurora Vexley"}, {"name": "Cassius Thorne"}],
    }


def finished_duel(storage: Storage, winner: str | None, draw: bool = False) -> dict[str, object]:
    storage.board_id("http://board.invalid", "phpbb3", NOW)
    duel_id = (
        storage.db["duels"]
        .insert(
            {
                "board_id": 1,
                "topic_id": 100 + len(storage.duels()),
                "ruleset": "fatigue",
                "status": "finished",
                "state_json": json.dumps(state(winner, draw)),
                "stakes": "un gallion",
            }
        )
        .last_pk
    )
    return storage.duel(int(duel_id))


def test_seed001_winner_point_and_purse_loser_frog() -> None:
    assert rewards_for(state("Aurora Vexley")) == [
        ("Aurora Vexley", "leaderboard_point", 1),
        ("Aurora Vexley", "galleons", 3),
        ("Cassius Thorne", "chocolate_frog", 1),
    ]


def test_draw_gives_a_frog_each_and_no_winner_gives_nothing() -> None:
    assert rewards_for(state(None, draw=True)) == [
        ("Aurora Vexley", "chocolate_frog", 1),
        ("Cassius Thorne", "chocolate_frog", 1),
    ]
    assert rewards_for(state(None)) == []


def test_rewards_are_recorded_once_and_move_the_leaderboard_once() -> None:
    storage = open_storage(":memory:")
    duel = finished_duel(storage, "Aurora Vexley")
    assert len(record_rewards(storage, 1, duel, NOW)) == 3
    assert record_rewards(storage, 1, duel, NOW) == []
    (first, second) = standings(storage, 1)
    assert (first.character, first.points, first.wins, first.purse) == ("Aurora Vexley", 1, 1, 3)
    assert (second.character, second.losses, second.frogs, second.rank) == (
        "Cassius Thorne",
        1,
        1,
        2,
    )
    rows = list(storage.db["rewards"].rows_where())
    assert {r["stakes"] for r in rows} == {"un gallion"}


def test_unfinished_duel_gets_no_reward() -> None:
    storage = open_storage(":memory:")
    duel = finished_duel(storage, "Aurora Vexley")
    duel["status"] = "running"
    with pytest.raises(ValueError):
        record_rewards(storage, 1, duel, NOW)


def test_standings_rank_by_points_then_wins_and_share_ranks() -> None:
    storage = open_storage(":memory:")
    record_rewards(storage, 1, finished_duel(storage, "Aurora Vexley"), NOW)
    record_rewards(storage, 1, finished_duel(storage, "Cassius Thorne"), NOW)
    record_rewards(storage, 1, finished_duel(storage, None, draw=True), NOW)
    lines = standings(storage, 1)
    assert [(s.rank, s.character, s.points, s.draws, s.frogs) for s in lines] == [
        (1, "Aurora Vexley", 1, 1, 2),
        (1, "Cassius Thorne", 1, 1, 2),
    ]
    text = render_leaderboard(storage, 1)
    assert "1. [b]Aurora Vexley[/b] : 1 point (1 victoire, 1 défaite, 1 match nul)" in plain(text)


def test_leaderboard_post_drafted_published_once_then_edited_only_on_change() -> None:
    storage, forum = open_storage(":memory:"), ClubForum()
    forum.add_topic(9, "Classement", "Arbitre", "Tableau")
    assert isinstance(forum, EditingForumClient)
    assert update_leaderboard_post(storage, forum, 1, 9, NOW) == "drafted"
    assert update_leaderboard_post(storage, forum, 1, 9, NOW) == "waiting"
    forum.fail_next_reply = True  # posted, then a timeout: found by its marker next time
    assert publish_due_club_posts(storage, forum, clock, 1) == []
    assert len(publish_due_club_posts(storage, forum, clock, 1)) == 1
    assert len([p for p in forum.posts[9] if p.author == "Hibou"]) == 1
    assert update_leaderboard_post(storage, forum, 1, 9, NOW) == "unchanged"
    record_rewards(storage, 1, finished_duel(storage, "Cassius Thorne"), NOW)
    assert update_leaderboard_post(storage, forum, 1, 9, NOW) == "edited"
    row = club_post(storage, "b1-leaderboard-1v1")
    assert row is not None and forum.bot_edits == [row["post_id"]]
    (post,) = [p for p in forum.posts[9] if p.author == "Hibou"]
    assert "Cassius Thorne" in post.text and "forumbot·b1-leaderboard-1v1" in post.text
    assert update_leaderboard_post(storage, forum, 1, 9, NOW) == "unchanged"


# -- PhpbbClient.edit_post against the captured phpBB 3.3.15 pages (FLOWS.md "Edit") ---------


class Board:
    """Answers GET posting.php?mode=edit with the captured form and POSTs with ``answers``."""

    def __init__(self, answers: list[httpx.Response]) -> None:
        self.answers = answers
        self.posts: list[list[tuple[str, str]]] = []
        self.gets: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            self.gets.append(str(request.url))
            return httpx.Response(200, content=(FIX / "posting_edit_form.html").read_bytes())
        self.posts.append(parse_qsl(request.content.decode("ascii"), keep_blank_values=True))
        return self.answers.pop(0)


class Time:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


def client(board: Board, time: Time) -> PhpbbClient:
    return PhpbbClient(
        "http://127.0.0.1:8080",
        "Aurora Vexley",
        "pw",
        transport=httpx.MockTransport(board),
        sleep=time.sleep,
        clock=time,
    )


def test_phpbb_edit_posts_the_whole_form_with_the_new_message() -> None:
    board, time = (
        Board([httpx.Response(302, headers={"Location": "/viewtopic.php?p=3#p3"})]),
        Time(),
    )
    phpbb = client(board, time)
    assert isinstance(phpbb, EditingForumClient)
    phpbb.edit_post(3, "Nouveau texte du classement")
    assert board.gets == ["http://127.0.0.1:8080/posting.php?mode=edit&p=3"]
    (body,) = board.posts
    fields = dict(body)
    assert fields["message"] == "Nouveau texte du classement"
    assert fields["edit_post_message_checksum"] == "0805f467b90fb81b36cd8e90e326dcf1"
    assert fields["edit_post_subject_checksum"] == "94b54ae13d9444712c1ba04cd68b950f"
    assert fields["post"] == "Envoyer" and "preview" not in fields
    assert time.t >= 1001.1  # the form's minimum age (1.1 s) was waited


def test_phpbb_edit_retries_form_invalid_with_a_fresh_form_then_gives_up() -> None:
    invalid = (FIX / "posting_form_invalid_stale_token.html").read_bytes()
    ok = httpx.Response(302, headers={"Location": "/viewtopic.php?p=3#p3"})
    board, time = Board([httpx.Response(200, content=invalid), ok]), Time()
    client(board, time).edit_post(3, "x")
    assert len(board.gets) == 2 and len(board.posts) == 2
    board = Board([httpx.Response(200, content=invalid) for _ in range(3)])
    with pytest.raises(FormInvalid):
        client(board, Time()).edit_post(3, "x")


def classic_duel(storage: Storage, board_id: int, winner: str | None, draw: bool = False) -> None:
    """A finished classic duel (seed 000: no reward) between Aurora and Cassius."""
    storage.db["duels"].insert(
        {
            "board_id": board_id,
            "topic_id": 500 + len(storage.duels()),
            "ruleset": "classic",
            "status": "finished",
            "state_json": json.dumps(state(winner, draw)),
        }
    )


def test_classic_duels_are_counted_in_their_own_table() -> None:
    """Issue 13: right after a classic duel ended, the leaderboard said « Aucun duel
    terminé »: classic duels give no reward, so they are counted apart."""
    from forumbot.club.leaderboard import classic_records, render_classic_records

    storage = open_storage(":memory:")
    board_id = storage.board_id("http://board.invalid", "phpbb3", NOW)
    assert "Aucun duel classique terminé" in render_classic_records(storage, board_id)
    classic_duel(storage, board_id, "Cassius Thorne")
    classic_duel(storage, board_id, None, draw=True)
    finished_duel(storage, "Aurora Vexley")  # a fatigue duel: the club's leaderboard only
    records = {r.character: r for r in classic_records(storage, board_id)}
    assert (records["Cassius Thorne"].duels, records["Cassius Thorne"].wins) == (2, 1)
    assert (records["Aurora Vexley"].losses, records["Aurora Vexley"].draws) == (1, 1)
    assert list(records) == ["Cassius Thorne", "Aurora Vexley"]  # most wins first
    text = render_classic_records(storage, board_id)
    assert "[b]Cassius Thorne[/b] : 2 duels (1 victoire, 0 défaite, 1 match nul)" in plain(text)
    assert "[b]Aurora Vexley[/b] : 2 duels (0 victoire, 1 défaite, 1 match nul)" in plain(text)
    assert "ne rapportent ni point au classement ni bourse" in text
    assert standings(storage, board_id) == []  # no reward recorded: the club's table is apart


@pytest.mark.sqlite_only(
    "the command opens the SQLite file of forumbot init's config, not the test's schema"
)
def test_the_leaderboard_command_prints_the_classic_table_too(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from forumbot.cli import main
    from forumbot.config import load_config

    cfg = tmp_path / "forumbot.toml"
    runner = CliRunner()
    assert runner.invoke(main, ["init", str(cfg)]).exit_code == 0
    config = load_config(cfg)
    storage = open_storage(config.database)
    classic_duel(storage, storage.board_id(config.board_url, config.platform, NOW), "Aurora Vexley")
    storage.db.conn.commit()
    storage.db.conn.close()
    out = runner.invoke(main, ["leaderboard", "-c", str(cfg)])
    assert out.exit_code == 0, out.output
    club, classic = out.output.split("[b]Duels classiques terminés[/b]")
    assert "Seuls les duels ouverts par les inscriptions du club comptent" in club
    assert "[b]Aurora Vexley[/b] : 1 duel (1 victoire, 0 défaite)" in plain(classic)
    only = runner.invoke(main, ["leaderboard", "--kind", "classic", "-c", str(cfg)]).output
    assert only.startswith("[b]Duels classiques terminés[/b]") and "Tableau" not in only
