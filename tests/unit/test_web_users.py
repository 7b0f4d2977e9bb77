"""Accounts (argon2 hashes, roles), referee assignment, violation judging, CSV, chart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from forumbot.storage import open_storage
from forumbot.web.auth import LoginLimiter
from forumbot.web.chart import points_chart
from forumbot.web.judging import (
    JudgingError,
    ViolationFilter,
    decide_violation,
    query_violations,
    violations_csv,
)
from forumbot.web.users import (
    UserError,
    add_user,
    assign_referee,
    authenticate,
    can_see_duel,
    duel_referees,
    get_user,
    list_users,
    set_password,
    unassign_referee,
)

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.fixture
def storage():  # type: ignore[no-untyped-def]
    s = open_storage(":memory:")
    s.db["duels"].insert({"id": 1, "topic_id": 7, "status": "running"})
    s.db["duels"].insert({"id": 2, "topic_id": 8, "status": "running"})
    return s


def test_users_table_comes_with_open_storage(storage) -> None:  # type: ignore[no-untyped-def]
    assert {"users", "duel_referees"} <= set(storage.db.table_names())


def test_password_is_stored_as_argon2id_hash(storage) -> None:  # type: ignore[no-untyped-def]
    add_user(storage, "Alice", "long enough", "admin", NOW)
    row = storage.db["users"].get("Alice")
    assert row["password_hash"].startswith("$argon2id$")
    assert "long enough" not in row["password_hash"]
    assert authenticate(storage, "alice", "long enough") == get_user(storage, "ALICE")
    assert authenticate(storage, "alice", "wrong one!") is None
    assert authenticate(storage, "nobody", "long enough") is None
    set_password(storage, "alice", "another secret", NOW)
    assert authenticate(storage, "alice", "long enough") is None
    assert authenticate(storage, "alice", "another secret") is not None


@pytest.mark.real_argon2
def test_the_production_hash_parameters_are_argon2_cffi_defaults(storage) -> None:  # type: ignore[no-untyped-def]
    """The suite hashes cheaply (tests/conftest.py); this test keeps the real parameters:
    argon2id, 64 MiB, 3 passes (argon2-cffi's RFC 9106 low-memory profile), and a hash made
    with weaker parameters (e.g. the suite's) is upgraded at the next successful login."""
    from argon2 import PasswordHasher

    add_user(storage, "Alice", "long enough", "admin", NOW)
    stored = storage.db["users"].get("Alice")["password_hash"]
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")  # argon2-cffi's defaults
    weak = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1).hash("long enough")
    storage.db["users"].update("Alice", {"password_hash": weak})
    assert authenticate(storage, "alice", "long enough") is not None
    upgraded = storage.db["users"].get("Alice")["password_hash"]
    assert upgraded.startswith("$argon2id$v=19$m=65536,t=3,p=4$")


def test_add_user_refusals(storage) -> None:  # type: ignore[no-untyped-def]
    add_user(storage, "rita", "long enough", "referee", NOW)
    with pytest.raises(UserError, match="exists"):
        add_user(storage, "RITA", "long enough", "referee", NOW)
    with pytest.raises(UserError, match="role"):
        add_user(storage, "bob", "long enough", "king", NOW)
    with pytest.raises(UserError, match="8 characters"):
        add_user(storage, "bob", "short", "referee", NOW)
    with pytest.raises(UserError, match="username"):
        add_user(storage, "bob smith", "long enough", "referee", NOW)
    assert [u.username for u in list_users(storage)] == ["rita"]


def test_disabled_user_cannot_log_in(storage) -> None:  # type: ignore[no-untyped-def]
    add_user(storage, "rita", "long enough", "referee", NOW)
    storage.db["users"].update("rita", {"disabled": 1})
    assert authenticate(storage, "rita", "long enough") is None
    assert get_user(storage, "rita") is None


def test_referee_assignment(storage) -> None:  # type: ignore[no-untyped-def]
    admin = add_user(storage, "alice", "long enough", "admin", NOW)
    rita = add_user(storage, "rita", "long enough", "referee", NOW)
    assert not can_see_duel(storage, rita, 1) and can_see_duel(storage, admin, 2)
    assign_referee(storage, 1, "RITA", "alice", NOW)
    assign_referee(storage, 1, "rita", "alice", NOW)  # idempotent
    assert duel_referees(storage, 1) == ["rita"]
    assert can_see_duel(storage, rita, 1) and not can_see_duel(storage, rita, 2)
    with pytest.raises(UserError):
        assign_referee(storage, 1, "ghost", "alice", NOW)
    with pytest.raises(UserError):
        assign_referee(storage, 99, "rita", "alice", NOW)
    unassign_referee(storage, 1, "rita", "alice", NOW)
    assert duel_referees(storage, 1) == []
    assert [e["action"] for e in storage.audit_entries("duel:1")] == [
        "duel.assign_referee",
        "duel.unassign_referee",
    ]


def _violation(storage, duel_id: int, duellist: str, rule: str) -> int:  # type: ignore[no-untyped-def]
    return int(
        storage.db["violations"]
        .insert(
            {
                "duel_id": duel_id,
                "turn": 1,
                "duellist": duellist,
                "rule": rule,
                "post_id": 5,
                "evidence": "x",
                "penalty": 0,
                "status": "applied",
            }
        )
        .last_pk
    )


def test_decide_and_filter_violations(storage) -> None:  # type: ignore[no-untyped-def]
    a = _violation(storage, 1, "Aurora", "repeated_spell")
    b = _violation(storage, 2, "Cassius", "unlisted_spell")
    with pytest.raises(JudgingError, match="reason"):
        decide_violation(storage, a, "dismissed", " ", "alice", NOW)
    with pytest.raises(JudgingError, match="decision"):
        decide_violation(storage, a, "forgiven", "why", "alice", NOW)
    with pytest.raises(JudgingError, match="no violation"):
        decide_violation(storage, 99, "confirmed", "why", "alice", NOW)
    row = decide_violation(storage, a, "dismissed", "misread", "alice", NOW)
    assert (row["status"], row["decided_by"], row["reason"]) == ("dismissed", "alice", "misread")
    decide_violation(storage, b, "confirmed", "clear", "alice", NOW)
    assert [r["id"] for r in query_violations(storage, ViolationFilter(), None)] == [b, a]
    assert [r["id"] for r in query_violations(storage, ViolationFilter(), [1])] == [a]
    assert query_violations(storage, ViolationFilter(), []) == []
    flt = ViolationFilter(duellist="cassius", rule="unlisted_spell", status="confirmed")
    assert [r["id"] for r in query_violations(storage, flt, None)] == [b]
    assert query_violations(storage, ViolationFilter(duel_id=2, status="dismissed"), None) == []
    assert [e["action"] for e in storage.audit_entries(f"violation:{a}")] == ["violation.dismiss"]


def test_csv_neutralises_formulas() -> None:
    text = violations_csv([{"id": 1, "duellist": "@cmd", "evidence": "+1", "reason": None}])
    lines = text.splitlines()
    assert lines[0].startswith("id,duel_id,turn,duellist,rule")
    assert "'@cmd" in lines[1] and "'+1" in lines[1]


def test_login_limiter_window() -> None:
    t = [NOW]
    limiter = LoginLimiter(lambda: t[0], max_failures=5, window_s=900)
    key = limiter.key("Alice ", "127.0.0.1")
    assert key == limiter.key("alice", "127.0.0.1")
    for _ in range(4):
        limiter.failure(key)
        t[0] += timedelta(seconds=60)
    assert limiter.retry_after_s(key) == 0
    limiter.failure(key)
    assert limiter.retry_after_s(key) == 900 - 240 + 1
    assert limiter.retry_after_s(limiter.key("alice", "10.0.0.2")) == 0
    t[0] += timedelta(seconds=900 - 240)
    assert limiter.retry_after_s(key) == 0  # the oldest failure left the window
    limiter.success(key)
    assert limiter.retry_after_s(key) == 0


def test_chart_escapes_names_and_plots_each_point() -> None:
    svg = str(points_chart({"<b>A</b>": [30, 24, 18], "B": [30, 30, 12]}, unit="PD"))
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert "<b>A</b>" not in svg and "&lt;b&gt;A&lt;/b&gt;" in svg
    assert svg.count("<polyline") == 2 and svg.count("<circle") == 6
    assert str(points_chart({})).startswith("<svg")


def test_confusable_and_invisible_names_are_refused() -> None:
    """Issue 24 F12: a Cyrillic 'а' among Latin letters and a zero-width space are refused;
    names are NFKC-normalised (a fullwidth name is stored as plain letters)."""
    from datetime import UTC, datetime

    from forumbot.storage import open_storage
    from forumbot.web.users import UserError, add_user

    storage = open_storage(":memory:")
    now = datetime(2026, 11, 1, tzinfo=UTC)
    add_user(storage, "alice", "password1", "admin", now)
    with pytest.raises(UserError, match="look-alike"):
        add_user(storage, "\u0430lice", "password1", "admin", now)
    with pytest.raises(UserError, match="invisible"):
        add_user(storage, "rob\u200b", "password1", "referee", now)
    with pytest.raises(UserError, match="invisible"):
        add_user(storage, "\u3164rob", "password1", "referee", now)
    assert add_user(storage, "\uff52\uff4f\uff42", "password1", "referee", now).username == "rob"
