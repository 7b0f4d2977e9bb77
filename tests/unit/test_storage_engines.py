"""The storage on both engines (issue 27): the same migrations give the same schema, the same
queries the same rows, and the exactly-once primitives hold on each (docs/operations.md,
"PostgreSQL"). PostgreSQL cases skip with the reason when no server answers (tests/engines.py).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlite_utils

from forumbot.config import ConfigError, parse_config
from forumbot.ops.lock import AlreadyRunning, single_instance
from forumbot.storage import Storage, open_storage
from forumbot.storage.engine import describe, is_postgres
from forumbot.storage.pg_dialect import Untranslatable
from tests.engines import PgSchemas

NOW = datetime(2026, 12, 2, 8, 0, tzinfo=UTC)


def _duel(storage: Storage, topic_id: int = 10) -> int:
    board = storage.board_id("http://board.invalid", "phpbb3", NOW)
    row = {"board_id": board, "forum_id": 2, "topic_id": topic_id, "title": "Duel",
           "ruleset": "classic", "status": "running", "state_json": "{}",
           "created_at": NOW.isoformat()}  # fmt: skip
    return int(storage.db["duels"].insert(row).last_pk)


def _declaration(storage: Storage, duel_id: int, key: str, status: str = "approved") -> int:
    row = {"duel_id": duel_id, "turn": 1, "kind": "turn", "status": status,
           "idempotency_key": key, "text": "Tour 1", "created_at": NOW.isoformat(),
           "updated_at": NOW.isoformat()}  # fmt: skip
    return int(storage.db["declarations"].insert(row).last_pk)


def test_the_two_engines_give_the_same_schema(pg_schemas: PgSchemas) -> None:
    sqlite = open_storage(":memory:")
    pg = open_storage(pg_schemas.fresh())
    mine, theirs = describe(sqlite.db), describe(pg.db)
    assert sorted(mine) == sorted(theirs)
    assert "_sqlite_migrations" in theirs and len(theirs) > 30
    for table, shape in mine.items():
        assert theirs[table] == shape, table
    applied = [r["name"] for r in pg.db["_sqlite_migrations"].rows_where(order_by="rowid")]
    assert applied == [r["name"] for r in sqlite.db["_sqlite_migrations"].rows_where(order_by="id")]


def test_reopening_applies_no_migration_twice(storage_url: str) -> None:
    first = open_storage(storage_url)
    count = first.db["_sqlite_migrations"].count
    first.close()
    again = open_storage(storage_url)
    assert again.db["_sqlite_migrations"].count == count > 10


def test_the_same_queries_give_the_same_rows(storage_url: str) -> None:
    storage = open_storage(storage_url)
    duel_id = _duel(storage)
    assert storage.duel(duel_id)["topic_id"] == 10
    assert storage.board_id("http://board.invalid", "phpbb3", NOW) == 1
    assert storage.duel_by_topic(1, 10)["id"] == duel_id
    assert storage.duel_by_topic(1, 11) is None
    with pytest.raises(sqlite_utils.db.NotFoundError):
        storage.duel(999)
    storage.update_duel(duel_id, status="finished")
    assert [d["id"] for d in storage.duels("finished")] == [duel_id]
    first = _declaration(storage, duel_id, "k1", "draft")
    _declaration(storage, duel_id, "k2", "approved")
    assert [d["idempotency_key"] for d in storage.declarations(("draft",))] == ["k1"]
    assert storage.declaration_by_key("k2")["status"] == "approved"
    assert storage.update_row("declarations", {"id": first}, {"text": "Tour 1 bis"}) == 1
    assert storage.update_row("declarations", {"id": 999}, {"text": "x"}) == 0
    # replace=True: the row sharing the unique (duel_id, number) key is replaced, as SQLite does
    for outcome in ("first", "second"):
        storage.record_turn(duel_id, 1, {}, [], {}, {"state": {"o": outcome}, "finished": False},
                            NOW)  # fmt: skip
    turns = list(storage.db["turns"].rows_where("duel_id = ?", [duel_id]))
    assert len(turns) == 1 and '"second"' in turns[0]["outcome_json"]
    storage.audit("arbitre", "edit", "declaration:1", {"a": 1}, {"a": 2}, NOW)
    storage.audit("arbitre", "edit", "duel:1", None, None, NOW)
    assert [e["target"] for e in storage.audit_entries("DECLARATION:")] == ["declaration:1"]
    storage.db["posts_seen"].insert({"board_id": 1, "topic_id": 10, "post_id": 5, "text": "x"})
    storage.posts_seen_again([("2026-12-02T09:00:00+00:00", 1, 5)])
    assert storage.seen_post(1, 5)["last_seen_at"] == "2026-12-02T09:00:00+00:00"
    assert storage.seen_post(1, 6) is None
    assert storage.last_post_id(1, 10) == 5
    records = storage.duel_records(duel_id)
    assert [d.idempotency_key for d in records.declarations] == ["k1", "k2"]
    assert storage.fresh_records(records).duel.id == duel_id


def test_insert_ignore_upsert_and_a_failed_insert_inside_a_transaction(storage_url: str) -> None:
    storage = open_storage(storage_url)
    table = storage.db.table("notify_state")
    table.insert({"name": "a", "value": "1"}, pk="name")
    table.insert({"name": "a", "value": "2"}, pk="name", ignore=True)
    assert table.get("a")["value"] == "1"
    table.upsert({"name": "a", "value": "3"}, pk="name")
    table.upsert({"name": "b", "value": "4"}, pk="name")
    assert [(r["name"], r["value"]) for r in table.rows_where(order_by="name")] == [
        ("a", "3"), ("b", "4"),
    ]  # fmt: skip
    storage.db.execute("insert or ignore into notify_state (name, value) values (?, ?)", ["a", "x"])
    replace = "insert or replace into publish_marks (name, value) values (?, ?)"
    storage.db.execute(replace, ["m", "1"])
    storage.db.execute(replace, ["m", "2"])
    storage.db.conn.commit()
    assert storage.db.execute("select value from publish_marks").fetchall() == [("2",)]
    with storage.db.atomic():
        with pytest.raises(sqlite3.IntegrityError):
            table.insert({"name": "a", "value": "dup"})
        table.insert({"name": "c", "value": "5"})  # the transaction goes on, as in SQLite
    assert table.count == 3
    table.delete_where("name = ?", ["c"])
    assert table.count_where("name like ?", ["%"]) == 2


def test_the_publishers_compare_and_set_claims_a_row_once(storage_url: str) -> None:
    one, two = open_storage(storage_url), open_storage(storage_url)
    decl = _declaration(one, _duel(one), "k1")
    claim = "update declarations set status = ? where id = ? and status = ?"
    assert one.db.execute(claim, ["publishing", decl, "approved"]).rowcount == 1
    one.db.conn.commit()
    assert two.db.execute(claim, ["publishing", decl, "approved"]).rowcount == 0
    two.db.conn.commit()
    assert one.stamp_once("duels", "finish_notified_at", 1, NOW) is True
    assert two.stamp_once("duels", "finish_notified_at", 1, NOW) is False


def _no_wait(storage: Storage) -> None:
    if is_postgres(storage.path):
        storage.db.raw.execute("set lock_timeout = '50ms'")
    else:
        storage.db.execute("PRAGMA busy_timeout = 0")


def test_begin_immediate_takes_the_write_lock_first(storage_url: str) -> None:
    holder, other = open_storage(storage_url), open_storage(storage_url)
    _no_wait(other)
    with holder.publish_rows.immediate():
        assert holder.db.conn.in_transaction
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            with other.publish_rows.immediate():
                pass
        assert not other.db.conn.in_transaction
    with other.publish_rows.immediate():  # released at the holder's commit
        other.board_id("http://other.invalid", "phpbb3", NOW)
    assert holder.board_id("http://other.invalid", "phpbb3", NOW) == 1


def test_the_run_lock_refuses_a_second_run(storage_url: str) -> None:
    with single_instance(storage_url):
        with pytest.raises(AlreadyRunning):
            with single_instance(storage_url):
                pass
    with single_instance(storage_url):  # released when the first run ended
        pass


def test_another_clubs_schema_has_its_own_run_lock(pg_schemas: PgSchemas) -> None:
    club_a, club_b = pg_schemas.fresh(), pg_schemas.fresh()
    with single_instance(club_a), single_instance(club_b):
        a, b = open_storage(club_a), open_storage(club_b)
        a.board_id("http://a.invalid", "phpbb3", NOW)
        assert b.db["boards"].count == 0


def test_sqlite_only_sql_is_refused_by_name(pg_schemas: PgSchemas) -> None:
    storage = open_storage(pg_schemas.fresh())
    with pytest.raises(Untranslatable, match="strftime"):
        storage.db.execute("select strftime('%Y', created_at) from duels")
    with pytest.raises(Untranslatable, match="integrity_check"):
        storage.db.execute("PRAGMA integrity_check")
    with pytest.raises(sqlite3.OperationalError):
        storage.db.execute("select * from no_such_table")


def test_storage_url_selects_the_engine(tmp_path: Path) -> None:
    base = "[board]\nurl = 'https://board.test/forum'\n[bot]\nusername = 'Hibou'\n[storage]\n"
    pg = parse_config(base + "url = 'postgresql://bot@db.invalid/forumbot?schema=club_a'\n")
    assert pg.database == "postgresql://bot@db.invalid/forumbot?schema=club_a"
    lite = parse_config(base + "url = 'sqlite:///data/bot.db'\n", tmp_path)
    assert lite.database == str(tmp_path / "data/bot.db")
    with pytest.raises(ConfigError, match="only sqlite"):
        parse_config(base + "url = 'mysql://bot@db.invalid/forumbot'\n")


def _waits_for_a_lock(watcher: Storage, pid: int) -> bool:
    row = watcher.db.raw.execute(
        "select wait_event_type from pg_stat_activity where pid = %s", [pid]
    ).fetchone()
    return bool(row and row[0] == "Lock")


def test_a_concurrent_compare_and_set_waits_and_then_loses(pg_schemas: PgSchemas) -> None:
    url = pg_schemas.fresh()
    one, two, watcher = open_storage(url), open_storage(url), open_storage(url)
    decl = _declaration(one, _duel(one), "k1")
    claim = "update declarations set status = ? where id = ? and status = ?"
    assert one.db.execute(claim, ["publishing", decl, "approved"]).rowcount == 1  # not committed
    results: list[int] = []
    loser = threading.Thread(
        target=lambda: results.append(two.db.execute(claim, ["publishing", decl, "approved"])
                                      .rowcount)  # fmt: skip
    )
    loser.start()
    pid = two.db.raw.info.backend_pid
    give_up = time.monotonic() + 60  # the second session waits for the lock: seen, not slept
    while not _waits_for_a_lock(watcher, pid) and time.monotonic() < give_up:
        pass
    assert _waits_for_a_lock(watcher, pid) and not results
    one.db.conn.commit()
    loser.join(timeout=30)
    two.db.conn.commit()
    assert results == [0]
    assert one.declaration(decl)["status"] == "publishing"


def test_total_changes_counts_the_rows_written(storage_url: str) -> None:
    storage = open_storage(storage_url)
    before = storage.db.execute("select total_changes()").fetchone()[0]
    insert = "insert or ignore into notify_state (name, value) values (?, ?)"
    storage.db.execute(insert, ["a", "1"])
    storage.db.conn.commit()
    middle = storage.db.execute("select total_changes()").fetchone()[0]
    storage.db.execute(insert, ["a", "2"])  # ignored: nothing changed
    storage.db.conn.commit()
    assert middle == before + 1
    assert storage.db.execute("select total_changes()").fetchone()[0] == middle


def test_the_change_token_moves_with_own_and_other_writes(storage_url: str) -> None:
    """``PublishRows.change_token`` (serve's idle publish passes): this connection's write and
    another connection's commit each change it; ``any_declaration_in`` probes by status."""
    storage = open_storage(storage_url)
    rows = storage.publish_rows
    duel_id = _duel(storage)
    storage.db.conn.commit()
    assert not rows.any_declaration_in(("draft", "approved"))
    token = rows.change_token()
    if not is_postgres(storage_url):  # SQLite: unchanged while nobody writes (PostgreSQL errs)
        assert rows.change_token() == token
    decl = _declaration(storage, duel_id, "k1", "draft")
    storage.db.conn.commit()
    assert rows.change_token() != token  # own write
    assert rows.any_declaration_in(("draft", "approved"))
    assert not rows.any_declaration_in(("queued",))
    token = rows.change_token()
    other = open_storage(storage_url)  # the review page: its own connection
    other.update_row("declarations", {"id": decl}, {"status": "approved"})
    other.db.conn.commit()
    other.close()
    assert rows.change_token() != token  # another connection's commit
    assert rows.any_declaration_in(("approved",))


def test_an_empty_in_list_matches_nothing_and_not_in_everything(storage_url: str) -> None:
    storage = open_storage(storage_url)
    storage.board_id("http://board.invalid", "phpbb3", NOW)
    assert list(storage.db["boards"].rows_where("id in ()")) == []
    assert [r["id"] for r in storage.db["boards"].rows_where("id not in ()")] == [1]


# -- the club's repositories (issue 27: the last SQL moved into storage/) ---------------------
def test_a_club_post_is_claimed_once_and_the_claim_is_committed(storage_url: str) -> None:
    one, two = open_storage(storage_url), open_storage(storage_url)
    row = {"board_id": 1, "idempotency_key": "b1-reply", "kind": "signup_reply", "topic_id": 20,
           "text": "Bienvenue", "marker": "m", "status": "draft", "attempts": 0,
           "created_at": NOW.isoformat(), "publish_after": NOW.isoformat(),
           "updated_at": NOW.isoformat()}  # fmt: skip
    post_id = one.club_posts.insert(row)
    assert [r["id"] for r in two.club_posts.due(1, NOW.isoformat())] == [post_id]
    assert two.club_posts.due(1, "2026-12-01T00:00:00+00:00") == []  # not due before its time
    assert one.club_posts.claim(post_id, "draft", NOW.isoformat()) == 1
    assert not one.in_transaction  # the claim commits before any request to the board
    assert two.club_posts.claim(post_id, "draft", NOW.isoformat()) == 0
    claimed = two.club_posts.by_key("b1-reply")
    assert claimed is not None and (claimed["status"], claimed["attempts"]) == ("publishing", 1)
    assert [r["id"] for r in two.club_posts.due(1, NOW.isoformat())] == [post_id]  # left publishing
    two.club_posts.update(post_id, {"status": "published", "post_id": 99})
    assert one.club_posts.due(1, NOW.isoformat()) == []
    assert one.club_posts.by_key("b1-other") is None


def test_rewards_are_given_once_and_the_leaderboard_sums_them(storage_url: str) -> None:
    storage = open_storage(storage_url)
    rows = storage.reward_rows
    at = NOW.isoformat()
    reward = {"board_id": 1, "duel_id": 7, "kind": "1v1", "character": "Aurora", "player": "A",
              "reward": "galleons", "amount": 3, "stakes": None, "created_at": at}  # fmt: skip
    frog = {**reward, "character": "Cassius", "player": "C", "reward": "chocolate_frog",
            "amount": 1}  # fmt: skip
    in_duel = {"board_id": 1, "duel_id": 7, "kind": "1v1", "character": "Aurora", "player": "A",
               "source": "creature:troll", "reward": "galleons", "amount": 2,
               "created_at": at}  # fmt: skip
    with storage.atomic():
        assert [rows.give_reward(reward), rows.give_reward(frog)] == [1, 1]
        assert rows.give_reward({**reward, "amount": 30}) == 0  # given before: unchanged
        assert [rows.give_duel_reward(in_duel), rows.give_duel_reward(in_duel)] == [1, 0]
        rows.bump_leaderboard(1, "1v1", "aurora", "Aurora", "A", "wins", 1, at)
        rows.bump_leaderboard(1, "1v1", "aurora", "Aurora", "A", "wins", 1, at)
        rows.bump_leaderboard(1, "1v1", "cassius", "Cassius", "C", "losses", 0, at)
        with pytest.raises(ValueError, match="points"):
            rows.bump_leaderboard(1, "1v1", "aurora", "Aurora", "A", "points", 1, at)
    assert sorted(tuple(r) for r in rows.purses(1, "1v1")) == [("Aurora", 3, 0), ("Cassius", 0, 1)]
    assert [tuple(r) for r in rows.duel_reward_sums(1, "1v1")] == [("Aurora", "galleons", 2)]
    lines = {r["character_key"]: (r["points"], r["wins"], r["losses"])
             for r in rows.leaderboard(1, "1v1")}  # fmt: skip
    assert lines == {"aurora": (2, 2, 0), "cassius": (0, 0, 1)}
    assert rows.leaderboard(1, "2v2") == []


def _pairing(storage: Storage, first: int, second: int) -> int:
    with storage.atomic():
        for post_id, player in ((first, f"p{first}"), (second, f"p{second}")):
            storage.signup_rows.insert_request({
                "board_id": 1, "thread_topic_id": 20, "post_id": post_id, "player": player,
                "character": player.upper(), "status": "paired", "created_at": NOW.isoformat(),
                "updated_at": NOW.isoformat(),
            })  # fmt: skip
        storage.signup_rows.insert_pairing({
            "board_id": 1, "thread_topic_id": 20, "kind": "1v1", "first_player": f"p{first}",
            "first_character": f"P{first}", "first_post_id": first,
            "second_player": f"p{second}", "second_character": f"P{second}",
            "second_post_id": second, "status": "queued", "attempts": 0,
            "created_at": NOW.isoformat(),
        })  # fmt: skip
    return int(storage.signup_rows.queued_pairings(1, 20, "1v1")[-1]["id"])


def test_the_lobby_changes_a_row_only_in_the_state_it_was_read_in(storage_url: str) -> None:
    storage = open_storage(storage_url)
    signups, at = storage.signup_rows, NOW.isoformat()
    started, cancelled = _pairing(storage, 101, 102), _pairing(storage, 103, 104)
    signups.start_pairing(started, at, "Duel : P101 contre P102", "b1-pair1-topic", "ab")
    signups.start_pairing(started, at, "again", "b1-pair1-other", "cd")  # no longer queued
    storage.commit()
    assert [r["id"] for r in signups.opening_pairings(1)] == [started]
    assert signups.opening_pairings(1)[0]["subject"] == "Duel : P101 contre P102"
    assert signups.cancel_formed("queue", cancelled, at, "cancelled: unplayable") == 1
    assert signups.cancel_formed("queue", cancelled, at, "cancelled: again") == 0
    signups.cancel_signup("requests", 1, 103, ("paired",), at)
    storage.commit()
    assert signups.formed("queue", cancelled)["last_error"] == "cancelled: unplayable"
    assert [r["id"] for r in signups.live_pairings_of_kind(1, "1v1")] == [started]
    assert [r["post_id"] for r in signups.paired_requests(1, [103, 104])] == [104]
    request = signups.request(1, 104)
    assert request is not None
    signups.set_request_status(request["id"], "open", at)
    assert [r["post_id"] for r in signups.open_requests_in(1, 20)] == [104]
    signups.withdraw_signups("requests", [request["id"]], at)
    storage.commit()
    assert signups.open_requests_in(1, 20) == [] and signups.live_signup("requests", 1, 104) is None
    with pytest.raises(ValueError):
        signups.withdraw_signups("duels", [1], at)
    with pytest.raises(ValueError):
        signups.take_pairing_place(started, "third", 105, "p105", None)
