"""Notices to referees (issue 18): who is told, gathered owls, exactly once, Apprise over a
local HTTP server, quiet hours, and the claim that pauses a draft's clock.

The duel comes from the real referee loop (tests/unit/web_scenario.py: turn 2 is a pending
draft with a ``repeated_spell`` violation; rita referees it, alice is admin, otto referees
nothing). Owls go to a :class:`tests.fakes.forum.ClubForum` (its PM outbox)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from forumbot.duels.flow import MISSING_DICE
from forumbot.duels.publication import publish_due
from forumbot.notify.claims import ClaimError, release, take
from forumbot.notify.job import NotifyJob
from forumbot.notify.outbox import notices
from forumbot.notify.settings import (
    NotifyConfig,
    NotifyConfigError,
    UrlSource,
    parse_notify,
    quiet_until,
    set_person_settings,
)
from forumbot.publish.poster import due_declarations
from forumbot.publish.typography import plain
from forumbot.web.users import assign_referee
from tests.fakes.forum import ClubForum, Crash
from tests.unit.web_scenario import Scenario, build

CFG = NotifyConfig(review_url="https://arbitres.example", timezone="Europe/Paris")


def job(s: Scenario, pm: ClubForum, cfg: NotifyConfig = CFG, sender=None) -> NotifyJob:  # type: ignore[no-untyped-def]
    j = NotifyJob(s.storage, pm, cfg, s.clock, s.referee.board_id)
    if sender is not None:
        j.sender = sender
    return j


@pytest.fixture
def scenario() -> Scenario:
    return build()


def test_the_duels_referee_gets_one_owl_with_everything_and_an_audit_row(
    scenario: Scenario,
) -> None:
    pm = ClubForum()
    sent = job(scenario, pm).run()
    to_rita = [p for p in pm.pms if p["to"] == "rita"]
    assert len(to_rita) == 1
    text = str(to_rita[0]["message"])
    # duel, turn, what waits, when it publishes by itself, the review page's link
    assert "Duel : Aurora contre Cassius" in plain(text)
    assert "(tour 2)" in text
    assert "un brouillon de déclaration à relire" in text
    assert "Publication : part tout seul le 30/11 à 13:" in plain(text)
    assert f"[url=https://arbitres.example/drafts/{scenario.draft_id}]" in text
    assert "[url=https://arbitres.example/tasks]" in text  # the open mechanism task
    assert str(to_rita[0]["subject"]) == "Relecture : 2 éléments vous attendent"
    # the violation goes to the admin, not to otto (who referees nothing)
    assert sorted(str(p["to"]) for p in pm.pms) == ["alice", "rita"]
    alice = next(p for p in pm.pms if p["to"] == "alice")
    assert "Aurora Vexley : sort répété" in plain(plain)(str(alice["message"]))
    audit = scanned_audit(scenario)
    assert {(a["recipient"], a["channel"], a["kind"]) for a in audit} == {
        ("rita", "owl", "draft_waiting"),
        ("rita", "owl", "task_opened"),
        ("alice", "owl", "violation_waiting"),
    }
    assert len(sent) == 3
    # a second pass sends nothing more
    assert job(scenario, pm).run() == []
    assert len(pm.pms) == 2


def scanned_audit(s: Scenario) -> list[dict[str, object]]:
    return [
        json.loads(str(a["after"]))
        for a in s.storage.audit_entries("notice:")
        if a["action"] == "notice.sent"
    ]


def test_owls_are_gathered_at_most_one_per_person_per_gather_window(scenario: Scenario) -> None:
    pm = ClubForum()
    job(scenario, pm).run()
    assert len([p for p in pm.pms if p["to"] == "rita"]) == 1
    # a new draft (held by the bot) five minutes later: it waits for the window
    scenario.clock.advance(300)
    scenario.storage.db["declarations"].update(
        scenario.draft_id, {"status": "held", "last_error": MISSING_DICE}
    )
    job(scenario, pm).run()
    assert len([p for p in pm.pms if p["to"] == "rita"]) == 1
    assert [n["status"] for n in notices(scenario.storage, "pending", "owl")] == ["pending"]
    scenario.clock.advance(CFG.owl_gather_s)
    job(scenario, pm).run()
    to_rita = [p for p in pm.pms if p["to"] == "rita"]
    assert len(to_rita) == 2
    assert "un brouillon retenu par le bot — un message n'a pas encore les dés du forum" in str(
        to_rita[1]["message"]
    )
    assert "missing_dice" not in str(to_rita[1]["message"]).split("forumbot·")[0]
    assert "ne part pas sans la décision d'un arbitre" in str(to_rita[1]["message"])


def test_a_crash_between_batching_and_sending_sends_the_owl_once(scenario: Scenario) -> None:
    pm = ClubForum()
    pm.crash_next_pm = True  # the PM reaches the board, then the process dies
    with pytest.raises(Crash):
        job(scenario, pm).run()
    assert len(pm.pms) == 1
    assert {n["status"] for n in notices(scenario.storage, channel="owl")} >= {"batched"}
    job(scenario, pm).run()  # restart: the marker is found in the outbox, not resent
    assert sorted(str(p["to"]) for p in pm.pms) == ["alice", "rita"]
    assert {n["status"] for n in notices(scenario.storage, channel="owl")} == {"sent"}


def test_a_draft_published_before_its_owl_is_said_published_not_dropped(
    scenario: Scenario,
) -> None:
    """Issue 23: a notice is not dropped merely because its draft went out (the bot was
    down past the delay): it says the declaration left by itself, with the post's link."""
    from forumbot.notify.scan import scan

    scan(scenario.storage, CFG, scenario.clock())  # queued, not sent yet
    scenario.clock.advance(600)
    publish_due(scenario.storage, scenario.forum, scenario.clock)
    pm = ClubForum()
    job(scenario, pm).run()
    rita = [p for p in pm.pms if p["to"] == "rita"]
    text = str(rita[0]["message"])
    assert len(rita) == 1 and "à relire" not in text
    assert "une déclaration partie toute seule, sans relecture" in text
    assert "Publication : déjà publiée le 30/11 à 13:" in plain(text) and "avant ce message" in text
    assert "Voir le message sur le forum" in text
    assert "Je m'en occupe" not in text
    assert notices(scenario.storage, "dropped") == []


def test_a_draft_gone_before_its_owl_is_dropped_and_logged(
    scenario: Scenario, caplog: pytest.LogCaptureFixture
) -> None:
    from forumbot.duels.ending import drop_draft
    from forumbot.notify.scan import scan

    scan(scenario.storage, CFG, scenario.clock())
    drop_draft(  # cancelled for good (the default drafts the turn again: issue 22)
        scenario.storage, scenario.draft_id, "doublon", "alice", scenario.clock(), redraft=False
    )
    pm = ClubForum()
    with caplog.at_level("WARNING", logger="forumbot.notify.outbox"):
        job(scenario, pm).run()
    dropped = notices(scenario.storage, "dropped")
    assert [(n["recipient"], n["kind"]) for n in dropped] == [("rita", "draft_waiting")]
    assert str(dropped[0]["last_error"]).startswith("gone: declaration")
    assert any(
        f"about declaration:{scenario.draft_id} dropped (gone:" in r.getMessage()
        for r in caplog.records
    )


class _Hook(BaseHTTPRequestHandler):
    received: list[dict[str, object]] = []
    status = 200

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        length = int(self.headers.get("content-length", 0))
        type(self).received.append(json.loads(self.rfile.read(length)))
        self.send_response(type(self).status)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def hook() -> Iterator[tuple[str, type[_Hook]]]:
    handler = type("Hook", (_Hook,), {"received": [], "status": 200})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"json://127.0.0.1:{server.server_port}/hook", handler
    server.shutdown()
    server.server_close()


def test_an_apprise_json_target_on_a_local_server_receives_the_notice(
    scenario: Scenario, hook: tuple[str, type[_Hook]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = hook
    monkeypatch.setenv("FORUMBOT_NOTIFY_REFEREE", url)
    cfg = parse_notify(
        {
            "review_url": "https://arbitres.example",
            "referee": {"urls_env": "FORUMBOT_NOTIFY_REFEREE"},
        }
    )
    pm = ClubForum()
    job(scenario, pm, cfg).run()
    assert len(handler.received) == 1
    body = str(handler.received[0]["message"])
    assert handler.received[0]["title"] == "Relecture : 2 éléments vous attendent"
    assert "Pour rita : 2 éléments en attente." in plain(body)
    assert f"https://arbitres.example/drafts/{scenario.draft_id}" in body
    sent = scanned_audit(scenario)
    assert ("rita", "apprise") in {(a["recipient"], a["channel"]) for a in sent}
    job(scenario, pm, cfg).run()
    assert len(handler.received) == 1  # exactly once


def test_apprise_failure_is_retried_and_a_crash_mid_send_is_never_resent(
    scenario: Scenario, hook: tuple[str, type[_Hook]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = hook
    monkeypatch.setenv("FORUMBOT_NOTIFY_REFEREE", url)
    cfg = parse_notify({"referee": {"urls_env": "FORUMBOT_NOTIFY_REFEREE"}})
    handler.status = 500
    pm = ClubForum()
    job(scenario, pm, cfg).run()
    assert len(handler.received) == 1
    assert {n["status"] for n in notices(scenario.storage, channel="apprise")} == {"pending"}
    handler.status = 200
    job(scenario, pm, cfg).run()
    assert len(handler.received) == 2
    assert {n["status"] for n in notices(scenario.storage, channel="apprise")} == {"sent"}
    # a notice left "sending" (the process died mid-send) is failed, not sent again
    scenario.storage.db["notices"].update(
        notices(scenario.storage, channel="apprise")[0]["id"], {"status": "sending"}
    )
    job(scenario, pm, cfg).run()
    assert len(handler.received) == 2
    failed = [
        a for a in scenario.storage.audit_entries("notice:") if a["action"] == "notice.failed"
    ]
    assert len(failed) == 1 and "fate unknown" in str(failed[0]["after"])


def test_quiet_hours_hold_apprise_but_not_owls(
    scenario: Scenario, hook: tuple[str, type[_Hook]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = hook
    monkeypatch.setenv("FORUMBOT_NOTIFY_REFEREE", url)
    cfg = parse_notify({"referee": {"urls_env": "FORUMBOT_NOTIFY_REFEREE"}})
    # the clock says 12:01 UTC = 13:01 in Paris
    set_person_settings(scenario.storage, "rita", "rita", scenario.clock(), quiet="12:30-14:00")
    pm = ClubForum()
    job(scenario, pm, cfg).run()
    assert handler.received == []
    assert any(p["to"] == "rita" for p in pm.pms)
    scenario.clock.advance(3600)  # 14:01 in Paris
    job(scenario, pm, cfg).run()
    assert len(handler.received) == 1


def test_quiet_hours_across_midnight() -> None:
    from datetime import UTC, datetime
    from zoneinfo import ZoneInfo

    from forumbot.notify.settings import PersonSettings

    tz = ZoneInfo("Europe/Paris")
    night = PersonSettings("rita", "rita", ("owl",), "22:00", "07:30")
    until = quiet_until(night, datetime(2026, 12, 1, 22, 30, tzinfo=UTC), tz)  # 23:30 local
    assert until is not None and until.astimezone(tz).isoformat() == "2026-12-02T07:30:00+01:00"
    assert quiet_until(night, datetime(2026, 12, 1, 12, 0, tzinfo=UTC), tz) is None


def test_secrets_never_in_the_toml(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotifyConfigError, match="never go in the TOML"):
        parse_notify({"admin": {"urls": ["discord://id/token"]}})
    with pytest.raises(NotifyConfigError, match="unknown setting"):
        parse_notify({"owl_gather": 5})
    (tmp_path / "admin.urls").write_text("# Discord\njson://127.0.0.1:9/a\n", encoding="utf-8")
    cfg = parse_notify({"admin": {"urls_file": "admin.urls"}}, base_dir=str(tmp_path))
    assert cfg.roles["admin"].urls() == ("json://127.0.0.1:9/a",)
    assert UrlSource(urls_env="X").urls({"X": "a://1, b://2"}) == ("a://1", "b://2")


def test_a_taken_draft_waits_past_its_delay_and_publishes_once_released(
    scenario: Scenario,
) -> None:
    s = scenario
    assign_referee(s.storage, s.duel_id, "otto", "alice", s.clock())
    take(s.storage, s.draft_id, "rita", s.clock(), CFG)
    with pytest.raises(ClaimError) as err:
        take(s.storage, s.draft_id, "otto", s.clock(), CFG)
    assert err.value.code == "taken"
    s.clock.advance(3600)  # the 10-minute delay is long over
    assert publish_due(s.storage, s.forum, s.clock) == []
    assert s.storage.declaration(s.draft_id)["status"] == "draft"
    # otto was told rita took it
    claimed = [n for n in notices(s.storage) if n["kind"] == "draft_claimed"]
    assert [n["recipient"] for n in claimed] == ["otto"]
    pm = ClubForum()
    job(s, pm).run()
    otto = [p for p in pm.pms if p["to"] == "otto"]
    assert len(otto) == 1 and "rita s'en occupe" in str(otto[0]["message"])
    with pytest.raises(ClaimError):
        release(s.storage, s.draft_id, "otto", s.clock())
    release(s.storage, s.draft_id, "rita", s.clock())
    assert len(publish_due(s.storage, s.forum, s.clock)) == 1
    assert s.storage.declaration(s.draft_id)["status"] == "published"
    actions = [a["action"] for a in s.storage.audit_entries(f"declaration:{s.draft_id}")]
    assert actions[-3:] == ["draft.take", "draft.release", "declaration.publish"]


def test_a_claim_runs_out_after_the_longer_limit(scenario: Scenario) -> None:
    s = scenario
    take(s.storage, s.draft_id, "rita", s.clock(), CFG)
    s.clock.advance(CFG.claim_limit_s - 1)
    assert due_declarations(s.storage, s.clock(), manual=False) == []
    s.clock.advance(2)
    assert [d.id for d in due_declarations(s.storage, s.clock(), manual=False)] == [s.draft_id]


def test_users_notify_command_sets_and_shows_settings(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from forumbot.cli import main
    from forumbot.storage import open_storage
    from forumbot.web.users import add_user

    (tmp_path / "forumbot.toml").write_text(
        '[board]\nurl = "http://127.0.0.1:1"\n[bot]\nusername = "Hibou"\n'
        '[storage]\ndatabase = "bot.db"\n[notify]\nowl_gather_s = 600\n',
        encoding="utf-8",
    )
    storage = open_storage(tmp_path / "bot.db")
    add_user(storage, "rita", "correct horse battery", "referee", datetime.now(UTC))
    storage.close()
    config = str(tmp_path / "forumbot.toml")
    runner = CliRunner()
    shown = runner.invoke(main, ["users", "notify", "-c", config, "rita"])
    assert shown.exit_code == 0, shown.output
    assert shown.output.strip() == (
        "rita\tchannels=owl,apprise\tquiet=- (Europe/Paris)\tforum=rita"
    )
    changed = runner.invoke(
        main,
        ["users", "notify", "-c", config, "rita", "--channels", "owl", "--quiet", "22:00-07:30",
         "--by", "alice"],
    )  # fmt: skip
    assert changed.exit_code == 0, changed.output
    assert "channels=owl\tquiet=22:00-07:30" in changed.output
    bad = runner.invoke(main, ["users", "notify", "-c", config, "rita", "--channels", "pigeon"])
    assert bad.exit_code == 78 and "unknown channel 'pigeon'" in bad.output  # configuration


def test_the_scan_is_skipped_only_while_the_database_is_unchanged(
    storage_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 27 (CPU): an idle notify pass does not scan again (SQLite; on PostgreSQL the
    stand-in for data_version changes at every transaction on the server, so it scans); a
    task committed by another connection (the review page) or written on the bot's own
    connection is still told, on both engines."""
    import forumbot.notify.job as job_module
    from forumbot.storage import open_storage

    path = storage_url
    sqlite = not path.startswith("postgresql")
    s = build(path)
    scans: list[int] = []
    real_scan = job_module.scan

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        scans.append(1)
        return real_scan(*args, **kwargs)

    monkeypatch.setattr(job_module, "scan", counted)
    pm = ClubForum()
    j = job(s, pm)
    j.run()
    j.run()  # what the first pass wrote (marks, owls) is this connection's: scanned again
    before = len(scans)
    for _ in range(3):
        j.run()
    if sqlite:
        assert len(scans) == before  # nothing changed: no scan
    opened = [n for n in s.storage.notices.notices() if n["kind"] == "task_opened"]

    def task(storage, key: str) -> None:  # type: ignore[no-untyped-def]
        with storage.atomic():
            storage.club_rows.open_task({"board_id": s.referee.board_id, "kind": "note",
                                         "source_key": key, "subject": key,
                                         "created_at": "2026-12-02T12:00:00+00:00"})  # fmt: skip

    other = open_storage(path)  # another process's connection
    task(other, "from-the-review-page")
    scanned = len(scans)
    j.run()
    assert len(scans) == scanned + 1
    task(s.storage, "from-the-bot")
    j.run()
    assert len(scans) == scanned + 2
    queued = [n for n in s.storage.notices.notices() if n["kind"] == "task_opened"]
    assert len(queued) == len(opened) + 2  # each new task queued for the admin
